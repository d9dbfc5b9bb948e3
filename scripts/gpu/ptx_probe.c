/* ptx_probe.c — which forms of inline PTX the NVIDIA OpenCL compiler builds and runs correctly:
 *   - cp.async (global -> local copies) in several operand forms: each work-item copies 16 bytes into local
 *     memory, waits, and writes back a neighbour's 16 bytes;
 *   - Hopper's warpgroup wgmma.mma_async (f16 and tf32, operands in local memory behind 128-byte-swizzle
 *     descriptors), built as is (it fails: the compiler targets sm_90) and with the program's PTX retargeted
 *     to sm_90a, the instructions hidden behind "//@" until then (as host/runtime/ptx_retarget.c does);
 *   - the sm_90 fp64 shapes mma.m16n8k{4,8,16}.f64.
 * Each variant's result is checked element by element (products of inputs that are exact in their type).
 * Build and run on the GPU host:  gcc -O2 -std=c11 scripts/gpu/ptx_probe.c -o /tmp/ptx_probe -lOpenCL -lm && /tmp/ptx_probe
 * With an argument (1: tf32 wgmma, 0: f16, 4/8/16: fp64 mma) it prints that kernel's source instead. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* wgmma operand list "{%0, ..., %(n-1)}" */
static void operand_list(char *out, size_t cap, int first, int n)
{
    size_t len = (size_t)snprintf(out, cap, "{");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(out + len, cap - len, "%%%d%s", first + i, i + 1 < n ? "," : "}");
}

/* 64 x 64 tile of D from A (64 x K, K-major) and B (64 x K, K-major), rows of 128 bytes, one warpgroup. */
static void wgmma_source(char *src, size_t cap, int tf32, const char *hide)
{
    char regs[512], outs[1024] = "";
    operand_list(regs, sizeof regs, 0, 32);
    for (int i = 0; i < 32; i++) {
        char one[32];
        snprintf(one, sizeof one, "\"+f\"(d[%d])%s", i, i < 31 ? "," : "");
        strcat(outs, one);
    }
    const int kstep_bytes = 32, steps = 4;   /* f16: k16 = 32 bytes; tf32: k8 = 32 bytes; a 128-byte row holds 4 */
    snprintf(src, cap,
             "static inline ulong desc(uint addr)\n"
             "{   /* start >> 4, LBO 1 (unused when K-major swizzled), SBO 1024 bytes (8 rows of 128), 128B swizzle */\n"
             "    return (ulong)((addr & 0x3FFFF) >> 4) | (1ul << 16) | ((ulong)(1024 >> 4) << 32) | (1ul << 62);\n"
             "}\n"
             "__kernel __attribute__((reqd_work_group_size(128, 1, 1)))\n"
             "void probe(__global const uint4 *A, __global const uint4 *B, __global float *D)\n"
             "{\n"
             "    __local uint4 buf[2 * 512 + 64];\n"
             "    const int l = (int)get_local_id(0);\n"
             "    const uint base = (uint)(ulong)buf;\n"
             "    __local uint4 *As = buf + ((1024 - (base & 1023)) & 1023) / 16, *Bs = As + 512;\n"
             "    for (int i = l; i < 512; i += 128) {\n"
             "        const int r = i / 8, c = i %% 8;\n"
             "        As[r * 8 + (c ^ (r & 7))] = A[i];\n"
             "        Bs[r * 8 + (c ^ (r & 7))] = B[i];\n"
             "    }\n"
             "    asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
             "    barrier(CLK_LOCAL_MEM_FENCE);\n"
             "    const ulong da = desc((uint)(ulong)As), db = desc((uint)(ulong)Bs);\n"
             "    float d[32];\n"
             "    for (int i = 0; i < 32; i++) d[i] = 0.0f;\n"
             "    asm volatile(\"%swgmma.fence.sync.aligned;\" ::: \"memory\");\n"
             "    for (int k = 0; k < %d; k++)\n"
             "        asm volatile(\"%s{ .reg .pred p; setp.ne.b32 p, %%34, 0;\"\n"
             "                     \"wgmma.mma_async.sync.aligned.%s %s, %%32, %%33, p, 1, 1%s; }\"\n"
             "                     : %s : \"l\"(da + (ulong)(k * %d / 16)), \"l\"(db + (ulong)(k * %d / 16)), \"r\"(1));\n"
             "    asm volatile(\"%swgmma.commit_group.sync.aligned;\" ::: \"memory\");\n"
             "    asm volatile(\"%swgmma.wait_group.sync.aligned 0;\" ::: \"memory\");\n"
             "    for (int i = 0; i < 32; i++) asm volatile(\"\" : \"+f\"(d[i]) :: \"memory\");\n"
             "    const int w = l / 32, g = (l %% 32) / 4, t = l %% 4;\n"
             "    for (int j = 0; j < 8; j++) {\n"
             "        D[(16 * w + g) * 64 + 8 * j + 2 * t] = d[4 * j];\n"
             "        D[(16 * w + g) * 64 + 8 * j + 2 * t + 1] = d[4 * j + 1];\n"
             "        D[(16 * w + g + 8) * 64 + 8 * j + 2 * t] = d[4 * j + 2];\n"
             "        D[(16 * w + g + 8) * 64 + 8 * j + 2 * t + 1] = d[4 * j + 3];\n"
             "    }\n"
             "}\n",
             hide, steps, hide, tf32 ? "m64n64k8.f32.tf32.tf32" : "m64n64k16.f32.f16.f16", regs, tf32 ? "" : ", 0, 0",
             outs, kstep_bytes, kstep_bytes, hide, hide);
}

/* One warp, D (16 x 8) = A (16 x K, row-major) B (K x 8, stored column by column), mma.m16n8kK.f64. Fragment
 * guess: a[i] at row g + 8 (i % 2), column t + 4 (i / 2); b[i] at row t + 4 i, column g; d as for f32. */
static void f64_source(char *src, size_t cap, int k)
{
    const int na = k / 2, nb = k / 4;
    char alist[128], blist[128], aops[512] = "", bops[512] = "";
    operand_list(alist, sizeof alist, 4, na);
    operand_list(blist, sizeof blist, 4 + na, nb);
    for (int i = 0; i < na; i++) {
        char one[32];
        snprintf(one, sizeof one, "\"d\"(a[%d]),", i);
        strcat(aops, one);
    }
    for (int i = 0; i < nb; i++) {
        char one[32];
        snprintf(one, sizeof one, "\"d\"(b[%d]),", i);
        strcat(bops, one);
    }
    snprintf(src, cap,
             "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
             "__kernel __attribute__((reqd_work_group_size(32, 1, 1)))\n"
             "void probe(__global const double *A, __global const double *B, __global double *D)\n"
             "{\n"
             "    const int l = (int)get_local_id(0), g = l / 4, t = l %% 4;\n"
             "    double a[%d], b[%d], d[4] = {0, 0, 0, 0};\n"
             "    for (int i = 0; i < %d; i++) a[i] = A[(g + 8 * (i %% 2)) * %d + t + 4 * (i / 2)];\n"
             "    for (int i = 0; i < %d; i++) b[i] = B[g * %d + t + 4 * i];\n"
             "    asm(\"mma.sync.aligned.m16n8k%d.row.col.f64.f64.f64.f64 {%%0,%%1,%%2,%%3}, %s, %s, {%%0,%%1,%%2,%%3};\"\n"
             "        : \"+d\"(d[0]), \"+d\"(d[1]), \"+d\"(d[2]), \"+d\"(d[3]) : %s %s \"d\"(0.0));\n"
             "    D[g * 8 + 2 * t] = d[0]; D[g * 8 + 2 * t + 1] = d[1];\n"
             "    D[(g + 8) * 8 + 2 * t] = d[2]; D[(g + 8) * 8 + 2 * t + 1] = d[3];\n"
             "}\n",
             na, nb, na, k, nb, k, k, alist, blist, aops, bops);
    /* the trailing "d"(0.0) only absorbs the last comma */
}

static unsigned short f16_of_int(int v)   /* small integers, exact in f16 */
{
    if (v == 0)
        return 0;
    unsigned sign = v < 0 ? 0x8000u : 0, m = (unsigned)abs(v);
    int e = 0;
    while ((m >> e) > 1)
        e++;
    unsigned mant = (m << (10 - e)) & 0x3FFu;
    return (unsigned short)(sign | (unsigned)(e + 15) << 10 | mant);
}

static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;

static cl_program build_failed(cl_program prog, const char *name, const char *opts, cl_int e)
{
    char log[16384] = "";
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    printf("%-44s [%s] build FAILED (%d): %.900s\n", name, opts, e, log);
    clReleaseProgram(prog);
    return NULL;
}

/* With patch: the program's PTX (NVIDIA's binary) retargeted to sm_90a, with the instructions hidden in
 * "//@" comments uncovered, built again from that binary. */
static cl_program build(const char *name, const char *src, const char *opts, int patch)
{
    cl_int e;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
    if ((e = clBuildProgram(prog, 1, &dev, opts, NULL, NULL)) != CL_SUCCESS)
        return build_failed(prog, name, opts, e);
    if (!patch)
        return prog;
    size_t n = 0;
    clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL);
    char *ptx = calloc(n + 64, 1), *out = calloc(n + 64, 1);
    clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof ptx, &ptx, NULL);
    clReleaseProgram(prog);
    size_t o = 0;
    for (size_t i = 0; i < n && ptx[i]; ) {
        if (strncmp(ptx + i, ".target sm_90", 13) == 0 && ptx[i + 13] != 'a') {
            memcpy(out + o, ".target sm_90a", 14), o += 14, i += 13;
        } else if (strncmp(ptx + i, "//@", 3) == 0) {
            i += 3;
        } else {
            out[o++] = ptx[i++];
        }
    }
    if (getenv("PROBE_PTX"))
        fputs(out, stderr);
    const unsigned char *bin = (const unsigned char *)out;
    cl_int bs;
    o++;
    prog = clCreateProgramWithBinary(ctx, 1, &dev, &o, &bin, &bs, &e);
    free(ptx), free(out);
    if (e != CL_SUCCESS) {
        printf("%-44s clCreateProgramWithBinary %d / %d\n", name, e, bs);
        return NULL;
    }
    if ((e = clBuildProgram(prog, 1, &dev, opts, NULL, NULL)) != CL_SUCCESS)
        return build_failed(prog, name, "patched", e);
    return prog;
}

/* Builds src with opts and runs probe(A, B, D) on one work-group of wg; returns 0, or prints why not. */
static int run(const char *name, const char *src, const char *opts, int patch, int wg, const void *a, size_t na,
               const void *b, size_t nb, void *d, size_t nd)
{
    cl_int e;
    cl_program prog = build(name, src, opts, patch);
    if (!prog)
        return 1;
    cl_kernel k = clCreateKernel(prog, "probe", &e);
    cl_mem ba = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, na, (void *)a, &e);
    cl_mem bb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nb, (void *)b, &e);
    memset(d, 0xff, nd);
    cl_mem bd = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, nd, d, &e);
    clSetKernelArg(k, 0, sizeof ba, &ba);
    clSetKernelArg(k, 1, sizeof bb, &bb);
    clSetKernelArg(k, 2, sizeof bd, &bd);
    size_t gs = (size_t)wg, ls = (size_t)wg;
    e = clEnqueueNDRangeKernel(q, k, 1, NULL, &gs, &ls, 0, NULL, NULL);
    cl_int e2 = clEnqueueReadBuffer(q, bd, CL_TRUE, 0, nd, d, 0, NULL, NULL);
    clReleaseMemObject(ba);
    clReleaseMemObject(bb);
    clReleaseMemObject(bd);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    if (e != CL_SUCCESS || e2 != CL_SUCCESS) {
        printf("%-44s [%s] launch %d read %d\n", name, opts, e, e2);
        return 1;
    }
    return 0;
}

/* ---- cp.async -------------------------------------------------------------------------------- */

static const char *cp_variants[][2] = {
    {"cp.async cg, 64-bit shared address",
     "asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \"l\"((ulong)(buf + l)), \"l\"(src + l) : \"memory\");"},
    {"cp.async ca, 64-bit shared address",
     "asm volatile(\"cp.async.ca.shared.global [%0], [%1], 16;\" :: \"l\"((ulong)(buf + l)), \"l\"(src + l) : \"memory\");"},
    {"cp.async cg, 32-bit shared address",
     "asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \"r\"((uint)(ulong)(buf + l)), \"l\"(src + l) : \"memory\");"},
    {"cp.async cg, shared::cta, 64-bit",
     "asm volatile(\"cp.async.cg.shared::cta.global [%0], [%1], 16;\" :: \"l\"((ulong)(buf + l)), \"l\"(src + l) : \"memory\");"},
    {"cp.async cg, cvta.to.shared of a generic address",
     "ulong sa; asm volatile(\"cvta.to.shared.u64 %0, %1;\" : \"=l\"(sa) : \"l\"((ulong)(__generic void *)(buf + l)));\n"
     "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \"l\"(sa), \"l\"(src + l) : \"memory\");"},
};

static void probe_cp_async(void)
{
    enum { WG = 128 };
    cl_uint h[WG * 4], out[WG * 4], unused[4] = {0};
    for (int i = 0; i < WG * 4; i++)
        h[i] = (cl_uint)i * 2654435761u;
    for (size_t v = 0; v < sizeof cp_variants / sizeof cp_variants[0]; v++) {
        char src[4096];
        snprintf(src, sizeof src,
                 "__kernel __attribute__((reqd_work_group_size(%d, 1, 1)))\n"
                 "void probe(__global const uint4 *src, __global const uint4 *unused, __global uint4 *dst)\n"
                 "{\n"
                 "    __local uint4 buf[%d];\n"
                 "    const int l = (int)get_local_id(0);\n"
                 "    buf[l] = (uint4)(0);\n"
                 "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                 "    %s\n"
                 "    asm volatile(\"cp.async.commit_group;\" ::: \"memory\");\n"
                 "    asm volatile(\"cp.async.wait_group 0;\" ::: \"memory\");\n"
                 "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                 "    dst[l] = buf[(l + 1) %% %d];\n"
                 "}\n",
                 WG, WG, cp_variants[v][1], WG);
        if (run(cp_variants[v][0], src, "", 0, WG, h, sizeof h, unused, sizeof unused, out, sizeof out) != 0)
            continue;
        int bad = 0;
        for (int g = 0; g < WG; g++)
            bad += memcmp(out + 4 * g, h + 4 * ((g + 1) % WG), 16) != 0;
        printf("%-44s built and ran: %s (%d of %d wrong)\n", cp_variants[v][0], bad ? "WRONG" : "correct", bad, WG);
    }
}

static void probe_wgmma(int tf32, const char *opts, int patch)
{
    /* A and B: 64 rows of 128 bytes. f16: 64 values a row; tf32: 32. */
    const int kdim = tf32 ? 32 : 64;
    unsigned int *A = malloc(64 * 128), *B = malloc(64 * 128);
    int *ai = malloc(sizeof(int) * 64 * 64), *bi = malloc(sizeof(int) * 64 * 64);
    float *D = malloc(64 * 64 * 4);
    for (int r = 0; r < 64; r++)
        for (int k = 0; k < kdim; k++) {
            ai[r * kdim + k] = rand() % 7 - 3;
            bi[r * kdim + k] = rand() % 7 - 3;
            if (tf32) {
                float fa = (float)ai[r * kdim + k], fb = (float)bi[r * kdim + k];
                memcpy(&A[r * 32 + k], &fa, 4);
                memcpy(&B[r * 32 + k], &fb, 4);
            } else {
                ((unsigned short *)A)[r * 64 + k] = f16_of_int(ai[r * kdim + k]);
                ((unsigned short *)B)[r * 64 + k] = f16_of_int(bi[r * kdim + k]);
            }
        }
    char src[16384], name[64];
    wgmma_source(src, sizeof src, tf32, patch ? "//@" : "");
    snprintf(name, sizeof name, "wgmma m64n64 %s%s", tf32 ? "tf32" : "f16", patch ? ", patched PTX" : "");
    if (run(name, src, opts, patch, 128, A, 64 * 128, B, 64 * 128, D, 64 * 64 * 4) == 0) {
        int bad = 0;
        for (int m = 0; m < 64; m++)
            for (int n = 0; n < 64; n++) {
                int ref = 0;
                for (int k = 0; k < kdim; k++)
                    ref += ai[m * kdim + k] * bi[n * kdim + k];
                if (D[m * 64 + n] != (float)ref) {
                    if (bad < 3)
                        printf("    D[%d][%d] = %g, expected %d\n", m, n, D[m * 64 + n], ref);
                    bad++;
                }
            }
        printf("%-44s [%s] built and ran: %s (%d of 4096 wrong)\n", name, opts, bad ? "WRONG" : "correct", bad);
    }
    free(A), free(B), free(ai), free(bi), free(D);
}

static void probe_f64(int k)
{
    double *A = malloc(sizeof(double) * 16 * k), *B = malloc(sizeof(double) * 8 * k), D[128];
    for (int i = 0; i < 16 * k; i++)
        A[i] = rand() % 9 - 4;
    for (int i = 0; i < 8 * k; i++)
        B[i] = rand() % 9 - 4;
    char src[8192], name[64];
    f64_source(src, sizeof src, k);
    snprintf(name, sizeof name, "mma m16n8k%d f64", k);
    if (run(name, src, "", 0, 32, A, sizeof(double) * 16 * k, B, sizeof(double) * 8 * k, D, sizeof D) == 0) {
        int bad = 0;
        for (int m = 0; m < 16; m++)
            for (int n = 0; n < 8; n++) {
                double ref = 0;
                for (int kk = 0; kk < k; kk++)
                    ref += A[m * k + kk] * B[n * k + kk];
                if (D[m * 8 + n] != ref) {
                    if (bad < 3)
                        printf("    D[%d][%d] = %g, expected %g\n", m, n, D[m * 8 + n], ref);
                    bad++;
                }
            }
        printf("%-44s built and ran: %s (%d of 128 wrong)\n", name, bad ? "WRONG" : "correct", bad);
    }
    free(A), free(B);
}

int main(int argc, char **argv)
{
    if (argc > 1) {   /* print the kernel sources, to check them with a local compiler */
        char src[16384];
        wgmma_source(src, sizeof src, atoi(argv[1]) == 1, "");
        if (atoi(argv[1]) >= 4)
            f64_source(src, sizeof src, atoi(argv[1]));
        puts(src);
        return 0;
    }
    cl_platform_id plats[8];
    cl_uint np = 0;
    clGetPlatformIDs(8, plats, &np);
    for (cl_uint i = 0; i < np && !dev; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
            dev = NULL;
    if (!dev) {
        fprintf(stderr, "no GPU\n");
        return 1;
    }
    cl_int e;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    q = clCreateCommandQueue(ctx, dev, 0, &e);
    probe_cp_async();
    probe_wgmma(0, "", 0);   /* fails: the compiler's PTX targets sm_90 */
    probe_wgmma(0, "", 1);
    probe_wgmma(1, "", 1);
    probe_f64(4);
    probe_f64(8);
    probe_f64(16);
    return 0;
}
