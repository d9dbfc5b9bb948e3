/* ptx_probe.c — which forms of inline PTX the NVIDIA OpenCL compiler builds and runs correctly: asynchronous
 * global-to-local copies (cp.async) in several operand forms. Each variant copies 16 bytes per work-item into
 * local memory, waits, and writes back a neighbour's 16 bytes; the host checks every word.
 * Build and run on the GPU host:  gcc -O2 -std=c11 scripts/gpu/ptx_probe.c -o /tmp/ptx_probe -lOpenCL && /tmp/ptx_probe */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1024
#define WG 128

static const char *variants[][2] = {
    {"cg, 64-bit shared address",
     "asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \"l\"((ulong)(buf + l)), \"l\"(src + g) : \"memory\");"},
    {"ca, 64-bit shared address",
     "asm volatile(\"cp.async.ca.shared.global [%0], [%1], 16;\" :: \"l\"((ulong)(buf + l)), \"l\"(src + g) : \"memory\");"},
    {"cg, 32-bit shared address",
     "asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \"r\"((uint)(ulong)(buf + l)), \"l\"(src + g) : \"memory\");"},
    {"cg, shared::cta, 64-bit",
     "asm volatile(\"cp.async.cg.shared::cta.global [%0], [%1], 16;\" :: \"l\"((ulong)(buf + l)), \"l\"(src + g) : \"memory\");"},
    {"cg, cvta.to.shared of a generic address",
     "ulong sa; asm volatile(\"cvta.to.shared.u64 %0, %1;\" : \"=l\"(sa) : \"l\"((ulong)(__generic void *)(buf + l)));\n"
     "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \"l\"(sa), \"l\"(src + g) : \"memory\");"},
};

static const char *kernel_fmt =
    "__kernel __attribute__((reqd_work_group_size(%d, 1, 1)))\n"
    "void probe(__global const uint4 *src, __global uint4 *dst)\n"
    "{\n"
    "    __local uint4 buf[%d];\n"
    "    const int l = (int)get_local_id(0), g = (int)get_global_id(0);\n"
    "    buf[l] = (uint4)(0);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    %s\n"
    "    asm volatile(\"cp.async.commit_group;\" ::: \"memory\");\n"
    "    asm volatile(\"cp.async.wait_group 0;\" ::: \"memory\");\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    dst[g] = buf[(l + 1) %% %d];\n"
    "}\n";

int main(void)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    clGetPlatformIDs(8, plats, &np);
    cl_device_id dev = NULL;
    for (cl_uint i = 0; i < np && !dev; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    if (!dev) {
        fprintf(stderr, "no GPU\n");
        return 1;
    }
    cl_int e;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
    cl_uint *h = malloc(N * 16), *out = malloc(N * 16);
    for (int i = 0; i < N * 4; i++)
        h[i] = (cl_uint)(i * 2654435761u);
    cl_mem src = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * 16, h, &e);
    cl_mem dst = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, N * 16, NULL, &e);
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        char src_text[4096];
        snprintf(src_text, sizeof src_text, kernel_fmt, WG, WG, variants[v][1], WG);
        const char *p = src_text;
        cl_program prog = clCreateProgramWithSource(ctx, 1, &p, NULL, &e);
        e = clBuildProgram(prog, 1, &dev, "", NULL, NULL);
        if (e != CL_SUCCESS) {
            char log[8192] = "";
            clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
            printf("%-40s build FAILED (%d): %.600s\n", variants[v][0], e, log);
            clReleaseProgram(prog);
            continue;
        }
        cl_kernel k = clCreateKernel(prog, "probe", &e);
        clSetKernelArg(k, 0, sizeof src, &src);
        clSetKernelArg(k, 1, sizeof dst, &dst);
        size_t gs = N, ls = WG;
        memset(out, 0, N * 16);
        clEnqueueWriteBuffer(q, dst, CL_TRUE, 0, N * 16, out, 0, NULL, NULL);
        e = clEnqueueNDRangeKernel(q, k, 1, NULL, &gs, &ls, 0, NULL, NULL);
        clEnqueueReadBuffer(q, dst, CL_TRUE, 0, N * 16, out, 0, NULL, NULL);
        int bad = 0;
        for (int g = 0; g < N; g++) {
            int from = g / WG * WG + (g % WG + 1) % WG;
            bad += memcmp(out + 4 * g, h + 4 * from, 16) != 0;
        }
        printf("%-40s built, launch %d, %s (%d of %d wrong)\n", variants[v][0], e, bad ? "WRONG" : "correct", bad, N);
        clReleaseKernel(k);
        clReleaseProgram(prog);
    }
    return 0;
}
