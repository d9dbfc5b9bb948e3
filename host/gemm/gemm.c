/* gemm.c — the GEMM op: argument checks, configuration selection with the CLFORGE_GEMM_CONFIG
 * override, and the public clf_[sd]gemm[_batched_strided] entry points. The launch is gemm_run.c. */
#include "gemm.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- argument checks ---------------------------------------------------------------------- */

/* Element extent of one stored matrix of `outer` rows of `inner` elements, ld apart. */
int clf__gemm_extent(size_t outer, size_t inner, size_t ld, size_t *out)
{
    if (outer == 0 || inner == 0) {
        *out = 0;
        return 1;
    }
    size_t t;
    return clf__mul(outer - 1, ld, &t) && clf__add(t, inner, out);
}

/* Extent of batch matrices stride apart; 0 on overflow. */
static int batch_extent(size_t one, size_t stride, size_t batch, size_t *out)
{
    if (one == 0 || batch == 0) {
        *out = 0;
        return 1;
    }
    size_t t;
    return clf__mul(batch - 1, stride, &t) && clf__add(t, one, out);
}

static clf_status check_operand(const char *name, const char *ldname, const char *stname, cl_mem buf,
                                size_t off, size_t outer, size_t inner, size_t ld, size_t stride,
                                size_t batch, size_t esz, size_t *one_out)
{
    size_t need = inner > 1 ? inner : 1;
    if (ld < need)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: %s = %zu is smaller than the stored row length %zu",
                         ldname, ld, need);
    size_t one, all;
    if (!clf__gemm_extent(outer, inner, ld, &one))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: extent of %s overflows (%zu x %s %zu)", name, outer,
                         ldname, ld);
    if (!batch_extent(one, stride, batch, &all))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: extent of %s overflows (batch %zu x %s %zu)", name,
                         batch, stname, stride);
    *one_out = one;
    if (all == 0)
        return CLF_SUCCESS;
    if (!buf)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: %s is NULL", name);
    return clf__check_buffer(buf, name, off, all, esz);
}

clf_status clf__gemm_check(clf_context *ctx, const clf__gemm_call *c)
{
    if (!ctx)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: ctx is NULL");
    if (c->layout != CLF_ROW_MAJOR && c->layout != CLF_COL_MAJOR)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: layout %d is neither CLF_ROW_MAJOR nor CLF_COL_MAJOR",
                         (int)c->layout);
    if (c->ta != CLF_NO_TRANS && c->ta != CLF_TRANS)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: ta %d is neither CLF_NO_TRANS nor CLF_TRANS", (int)c->ta);
    if (c->tb != CLF_NO_TRANS && c->tb != CLF_TRANS)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: tb %d is neither CLF_NO_TRANS nor CLF_TRANS", (int)c->tb);
    if (c->dtype != CLF_F32 && c->dtype != CLF_F64)
        return clf__fail(CLF_ERR_UNSUPPORTED, "gemm: only f32 and f64 are implemented");
    if (c->dtype == CLF_F64 && !ctx->info.fp64)
        return clf__fail(CLF_ERR_UNSUPPORTED, "dgemm: device \"%s\" has no fp64 (cl_khr_fp64)", ctx->info.name);
    /* Kernels index tiles with int: keep every extent well inside it. */
    const size_t lim = (size_t)INT_MAX - 1024;
    if (c->m > lim || c->n > lim || c->k > lim)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: m, n and k must be below %zu (got %zu, %zu, %zu)", lim,
                         c->m, c->n, c->k);
    int row = c->layout == CLF_ROW_MAJOR;
    /* op(A) is m x k; stored it is (outer x inner) with ld between rows (row-major) or columns. */
    int a_mk = (c->ta == CLF_NO_TRANS) == row;          /* stored outer = m, inner = k */
    int b_kn = (c->tb == CLF_NO_TRANS) == row;          /* stored outer = k, inner = n */
    size_t esz = clf__dtype_size(c->dtype), one_a, one_b, one_c;
    size_t ka = c->m && c->n ? c->k : 0;                /* A and B are not read when C is empty */
    clf_status s;
    s = check_operand("A", "lda", "stride_a", c->a, c->a_off, a_mk ? c->m : ka, a_mk ? ka : c->m, c->lda,
                      c->stride_a, c->batch, esz, &one_a);
    if (s)
        return s;
    s = check_operand("B", "ldb", "stride_b", c->b, c->b_off, b_kn ? ka : c->n, b_kn ? c->n : ka, c->ldb,
                      c->stride_b, c->batch, esz, &one_b);
    if (s)
        return s;
    s = check_operand("C", "ldc", "stride_c", c->c, c->c_off, row ? c->m : c->n, row ? c->n : c->m, c->ldc,
                      c->stride_c, c->batch, esz, &one_c);
    if (s)
        return s;
    /* Batches of C must not overlap, or work-groups of different batches would race. */
    if (c->batch > 1 && one_c > 0 && c->stride_c < one_c)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: stride_c = %zu is smaller than one C matrix (%zu elements)",
                         c->stride_c, one_c);
    return CLF_SUCCESS;
}

/* ---- configuration -------------------------------------------------------------------------- */

clf_status clf__gemm_config(clf_context *ctx, clf_dtype dt, const char *bucket, clf__config *out)
{
    return clf__config_resolve(ctx, &clf__family_gemm, dt, bucket, out, NULL);
}

/* ---- public entry points ------------------------------------------------------------------ */

static clf_status gemm_public(clf_context *ctx, const clf__gemm_call *call, cl_event *done)
{
    if (done)
        *done = NULL;
    clf_status s = clf__gemm_check(ctx, call);
    if (s)
        return s;
    return clf__gemm_run(ctx, call, NULL, CLF__GEMM_AUTO, NULL, done);
}

#define GEMM_CALL(dt, batch_, sa, sb, sc)                                                              \
    clf__gemm_call call = {dt, layout, ta, tb, m, n, k, alpha, beta, a, a_off, lda, sa, b, b_off, ldb, sb, \
                           c, c_off, ldc, sc, batch_, 0, 0}

CLF_API clf_status clf_sgemm(clf_context *ctx, clf_layout layout, clf_transpose ta, clf_transpose tb,
                             size_t m, size_t n, size_t k, float alpha,
                             cl_mem a, size_t a_off, size_t lda, cl_mem b, size_t b_off, size_t ldb,
                             float beta, cl_mem c, size_t c_off, size_t ldc, cl_event *done)
{
    GEMM_CALL(CLF_F32, 1, 0, 0, 0);
    return gemm_public(ctx, &call, done);
}

CLF_API clf_status clf_dgemm(clf_context *ctx, clf_layout layout, clf_transpose ta, clf_transpose tb,
                             size_t m, size_t n, size_t k, double alpha,
                             cl_mem a, size_t a_off, size_t lda, cl_mem b, size_t b_off, size_t ldb,
                             double beta, cl_mem c, size_t c_off, size_t ldc, cl_event *done)
{
    GEMM_CALL(CLF_F64, 1, 0, 0, 0);
    return gemm_public(ctx, &call, done);
}

CLF_API clf_status clf_sgemm_batched_strided(clf_context *ctx, clf_layout layout, clf_transpose ta,
                                             clf_transpose tb, size_t m, size_t n, size_t k, float alpha,
                                             cl_mem a, size_t a_off, size_t lda, size_t stride_a,
                                             cl_mem b, size_t b_off, size_t ldb, size_t stride_b,
                                             float beta, cl_mem c, size_t c_off, size_t ldc, size_t stride_c,
                                             size_t batch_count, cl_event *done)
{
    GEMM_CALL(CLF_F32, batch_count, stride_a, stride_b, stride_c);
    return gemm_public(ctx, &call, done);
}

CLF_API clf_status clf_dgemm_batched_strided(clf_context *ctx, clf_layout layout, clf_transpose ta,
                                             clf_transpose tb, size_t m, size_t n, size_t k, double alpha,
                                             cl_mem a, size_t a_off, size_t lda, size_t stride_a,
                                             cl_mem b, size_t b_off, size_t ldb, size_t stride_b,
                                             double beta, cl_mem c, size_t c_off, size_t ldc, size_t stride_c,
                                             size_t batch_count, cl_event *done)
{
    GEMM_CALL(CLF_F64, batch_count, stride_a, stride_b, stride_c);
    return gemm_public(ctx, &call, done);
}
