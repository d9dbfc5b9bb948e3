/* local_mem_probe.c — how much local memory a work-group can get from NVIDIA's OpenCL driver beyond what
 * CL_DEVICE_LOCAL_MEM_SIZE reports (48 KiB on the H200, whose compute units have 228 KiB): a kernel with a
 * __local buffer argument of each size writes a pattern over the whole buffer, and reads it back mirrored
 * after a barrier; the enqueue's status and the result are printed per size, and the lines of the program's
 * PTX that mention shared memory (how the driver declares a dynamic __local argument).
 * Build and run on the GPU host:  gcc -O2 -std=c11 scripts/gpu/local_mem_probe.c -o /tmp/lmp -lOpenCL && /tmp/lmp */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *src =
    "__kernel void probe(__global uint *out, __local uint *buf, const uint n)\n"
    "{\n"
    "    const uint l = get_local_id(0), w = get_local_size(0);\n"
    "    for (uint i = l; i < n; i += w) buf[i] = i * 2654435761u;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    uint bad = 0;\n"
    "    for (uint i = l; i < n; i += w) bad += buf[n - 1 - i] != (n - 1 - i) * 2654435761u;\n"
    "    atomic_add(out, bad);\n"
    "}\n";

int main(void)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    cl_device_id dev = NULL;
    clGetPlatformIDs(8, plats, &np);
    for (cl_uint i = 0; i < np && !dev; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    if (!dev) { puts("no GPU"); return 1; }
    char name[256] = "";
    cl_ulong lm = 0;
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL);
    printf("%s: CL_DEVICE_LOCAL_MEM_SIZE %llu\n", name, (unsigned long long)lm);
    cl_int e;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
    e = clBuildProgram(p, 1, &dev, "", NULL, NULL);
    if (e != CL_SUCCESS) { printf("build %d\n", e); return 1; }
    size_t bl = 0;
    clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bl, &bl, NULL);
    unsigned char *bin = malloc(bl + 1);
    clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
    bin[bl] = 0;
    for (char *line = strtok((char *)bin, "\n"); line; line = strtok(NULL, "\n"))
        if (strstr(line, "shared") || strstr(line, ".entry") || strstr(line, ".target"))
            printf("  ptx: %s\n", line);
    cl_kernel k = clCreateKernel(p, "probe", &e);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4, NULL, &e);
    const size_t kib[] = {16, 48, 49, 64, 96, 160, 220, 227, 228};
    for (size_t s = 0; s < sizeof kib / sizeof *kib; s++) {
        size_t bytes = kib[s] * 1024;
        cl_uint n = (cl_uint)(bytes / 4), zero = 0, bad = 0;
        clEnqueueWriteBuffer(q, out, CL_TRUE, 0, 4, &zero, 0, NULL, NULL);
        cl_int a = clSetKernelArg(k, 0, sizeof out, &out);
        cl_int b = clSetKernelArg(k, 1, bytes, NULL);
        cl_int c = clSetKernelArg(k, 2, sizeof n, &n);
        size_t g = 256 * 4, l = 256;
        cl_int en = clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL);
        cl_int fin = clFinish(q);
        clEnqueueReadBuffer(q, out, CL_TRUE, 0, 4, &bad, 0, NULL, NULL);
        cl_ulong klm = 0;
        clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof klm, &klm, NULL);
        printf("%4zu KiB: setarg %d/%d/%d enqueue %d finish %d kernel-local %llu mismatches %u\n", kib[s], a, b, c,
               en, fin, (unsigned long long)klm, bad);
    }
    return 0;
}
