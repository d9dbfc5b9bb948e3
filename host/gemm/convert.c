/* convert.c — clf_convert: element conversions between the four storage types (gemm_convert.cl), so that a
 * user can prepare half-precision inputs on the device; the mixed-precision GEMM paths pack with the same
 * kernels. */
#include "gemm.h"

#include <stdio.h>

/* The -DSRC / -DDST code of a storage type in gemm_convert.cl. */
int clf__convert_code(clf_dtype t) { return t == CLF_F16 ? 16 : t == CLF_BF16 ? 17 : t == CLF_F64 ? 64 : 32; }

static int known(clf_dtype t) { return t == CLF_F32 || t == CLF_F64 || t == CLF_F16 || t == CLF_BF16; }

CLF_API clf_status clf_convert(clf_context *ctx, clf_dtype src_type, cl_mem src, size_t src_off, clf_dtype dst_type,
                               cl_mem dst, size_t dst_off, size_t n, cl_event *done)
{
    if (done)
        *done = NULL;
    if (!ctx)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_convert: ctx is NULL");
    if (!known(src_type) || !known(dst_type))
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_convert: types %d and %d must be clf_dtype values", (int)src_type,
                         (int)dst_type);
    if ((src_type == CLF_F64 || dst_type == CLF_F64) && !ctx->info.fp64)
        return clf__fail(CLF_ERR_UNSUPPORTED, "clf_convert: device \"%s\" has no fp64", ctx->info.name);
    if (n == 0) {
        cl_int e = done ? clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, done) : CL_SUCCESS;
        return e == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(e, "clEnqueueMarkerWithWaitList", "empty convert");
    }
    clf_status s = clf__check_buffer(src, "clf_convert src", src_off, n, clf__dtype_size(src_type));
    if (s == CLF_SUCCESS)
        s = clf__check_buffer(dst, "clf_convert dst", dst_off, n, clf__dtype_size(dst_type));
    if (s != CLF_SUCCESS)
        return s;
    size_t sb, db;
    if (clf__mem_root(src, &sb) == clf__mem_root(dst, &db)) {
        size_t s0 = sb + src_off * clf__dtype_size(src_type), s1 = s0 + n * clf__dtype_size(src_type);
        size_t d0 = db + dst_off * clf__dtype_size(dst_type), d1 = d0 + n * clf__dtype_size(dst_type);
        if (s0 < d1 && d0 < s1)
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_convert: source and destination overlap in the same buffer");
    }
    char opts[64];
    snprintf(opts, sizeof opts, "-DSRC=%d -DDST=%d", clf__convert_code(src_type), clf__convert_code(dst_type));
    const char *text;
    cl_kernel k = NULL;
    int cpu = (ctx->info.type & CL_DEVICE_TYPE_CPU) != 0;
    if ((s = clf__source("gemm_convert.cl", &text)) != CLF_SUCCESS ||
        (s = clf__kernel_take(ctx, text, opts, cpu ? "convert_chunks" : "convert_elems", &k)) != CLF_SUCCESS)
        return s;
    /* GPUs: a grid-stride loop, enough work-groups to fill any device, each item converting a few elements.
     * CPUs: a work-item per run of CPU_CHUNK consecutive elements (convert_chunks: 8 at a time). */
    enum { CPU_CHUNK = 4096 };
    cl_ulong cn = n, chunk = CPU_CHUNK, so = src_off, dof = dst_off;
    cl_uint a = 0;
    cl_int e = clSetKernelArg(k, a++, 8, &cn);
    if (e == CL_SUCCESS && cpu) e = clSetKernelArg(k, a++, 8, &chunk);
    if (e == CL_SUCCESS) e = clSetKernelArg(k, a++, sizeof src, &src);
    if (e == CL_SUCCESS) e = clSetKernelArg(k, a++, 8, &so);
    if (e == CL_SUCCESS) e = clSetKernelArg(k, a++, sizeof dst, &dst);
    if (e == CL_SUCCESS) e = clSetKernelArg(k, a++, 8, &dof);
    if (e != CL_SUCCESS) {
        clf__kernel_give(ctx, k);
        return clf__fail_cl(e, "clSetKernelArg", "clf_convert");
    }
    size_t local = ctx->info.max_work_group < 256 ? ctx->info.max_work_group : 256, global;
    if (cpu) {
        global = (n + CPU_CHUNK - 1) / CPU_CHUNK;
    } else {
        size_t groups = (n + local * 4 - 1) / (local * 4), cap = 64 * (size_t)(ctx->info.compute_units + 1);
        global = (groups < cap ? groups : cap) * local;
    }
    clf__work w = {"convert", 0.0, (double)n * (double)(clf__dtype_size(src_type) + clf__dtype_size(dst_type))};
    s = clf__enqueue(ctx, k, 1, &global, cpu ? NULL : &local, &w, done);
    clf__kernel_give(ctx, k);
    return s;
}
