/* ptx_retarget.c — programs that need instructions of NVIDIA's architecture-specific targets (sm_90a: wgmma)
 * from OpenCL C. NVIDIA's OpenCL compiler emits PTX for the plain architecture (".target sm_90"), where
 * those instructions do not assemble, so kernels write them as inline-asm comments behind "//@sm90a ". The
 * compiler passes the text through, operands substituted; here the built program's PTX (NVIDIA's program
 * binary) gets ".target sm_90a", loses the "//@sm90a " markers, and is built again from that binary. A build
 * asks for this by defining CLF_SM90A in its options; the program cache then stores the retargeted binary. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK "//@sm90a "

int clf__wants_sm90a(const char *options)
{
    return options && strstr(options, "-DCLF_SM90A=1") != NULL;
}

char *clf__ptx_patch(const char *ptx, size_t len)
{
    const char *target = strstr(ptx, "\n.target sm_90");
    if (!target)
        return NULL;
    int plain = target[14] == '\n' || target[14] == ' ' || target[14] == ',' || target[14] == '\r';
    if (!plain && !(target[14] == 'a' && (target[15] == '\n' || target[15] == ' ' || target[15] == ',')))
        return NULL;   /* sm_90 followed by something else (sm_900?), or no line end */
    char *out = malloc(len + 2);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len && ptx[i];) {
        if (plain && ptx + i == target + 1) {
            memcpy(out + o, ".target sm_90a", 14), o += 14, i += 13;
        } else if (strncmp(ptx + i, MARK, sizeof MARK - 1) == 0) {
            i += sizeof MARK - 1;
        } else {
            out[o++] = ptx[i++];
        }
    }
    out[o] = '\0';
    return out;
}

clf_status clf__ptx_retarget(clf_context *ctx, cl_program *prog, const char *options)
{
    size_t len = 0;
    cl_int e = clGetProgramInfo(*prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL);
    if (e != CL_SUCCESS || len == 0)
        return clf__fail(CLF_ERR_BUILD, "sm_90a retarget: the driver gives no program binary (%d)", (int)e);
    char *ptx = malloc(len + 1), *text = NULL;
    unsigned char *bins[1] = {(unsigned char *)ptx};
    if (!ptx)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "sm_90a retarget");
    if ((e = clGetProgramInfo(*prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL)) == CL_SUCCESS) {
        ptx[len] = '\0';
        text = clf__ptx_patch(ptx, len);
    }
    free(ptx);
    if (!text)
        return clf__fail(CLF_ERR_BUILD, "sm_90a retarget: the program binary on %s is not PTX for sm_90 (only "
                         "NVIDIA compute capability 9.0 runs these kernels)", ctx->info.name);
    size_t n = strlen(text) + 1;
    const unsigned char *bin[1] = {(const unsigned char *)text};
    cl_int bin_status = CL_SUCCESS;
    cl_program p = clCreateProgramWithBinary(ctx->cl, 1, &ctx->dev, &n, bin, &bin_status, &e);
    free(text);
    if (!p || e != CL_SUCCESS || bin_status != CL_SUCCESS) {
        if (p)
            clReleaseProgram(p);
        return clf__fail_cl(e != CL_SUCCESS ? e : bin_status, "clCreateProgramWithBinary", "sm_90a PTX");
    }
    /* CLFORGE_BUILD_OPTIONS reaches this build too: the PTX is assembled here (e.g. -cl-nv-maxrregcount) */
    const char *extra = clf__extra_build_options();
    size_t flen = strlen(options) + strlen(extra) + 2;
    char *full = malloc(flen);
    if (!full) {
        clReleaseProgram(p);
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "sm_90a retarget");
    }
    snprintf(full, flen, "%s %s", options, extra);
    e = clBuildProgram(p, 1, &ctx->dev, full, NULL, NULL);
    free(full);
    if (e != CL_SUCCESS) {
        clReleaseProgram(p);
        return clf__fail(CLF_ERR_BUILD, "sm_90a retarget: the driver does not build the retargeted PTX (%s, %d) on %s",
                         clf_status_name(e), (int)e, ctx->info.name);
    }
    clReleaseProgram(*prog);
    *prog = p;
    return CLF_SUCCESS;
}
