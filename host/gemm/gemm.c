/* gemm.c — the GEMM op: argument checks, running a checked call as a plan (gemm_plan.c chooses the path,
 * gemm_exec.c enqueues it) with the fallback for configured kernels that do not build, and the public
 * clf_[sd]gemm[_batched_strided] entry points. */
#include "gemm_plan.h"
#include "gemm_epilogue.h"
#include "gemm_mma.h"

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

clf_dtype clf__gemm_a_type(const clf__gemm_call *c) { return c->typed ? c->a_type : c->dtype; }
clf_dtype clf__gemm_b_type(const clf__gemm_call *c) { return c->typed ? c->b_type : c->dtype; }
clf_dtype clf__gemm_c_type(const clf__gemm_call *c) { return c->typed ? c->c_type : c->dtype; }

static clf_status check_operand(clf_context *ctx, const char *name, const char *ldname, const char *stname,
                                cl_mem buf, size_t off, size_t outer, size_t inner, size_t ld, size_t stride,
                                size_t batch, size_t esz, size_t *one_out, clf__span *sp)
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
    /* all == 0: not referenced, may be NULL (BLAS: A and B when alpha or k is 0) */
    return clf__check_operand_buffer(ctx, "gemm", name, buf, off, all, esz, sp);
}

/* C is written: it must be writable and must not overlap what is read (BLAS leaves that undefined; a
 * library that knows the buffers can refuse it). */
static clf_status check_c(const clf__gemm_call *c, const clf__span *sa, const clf__span *sb, const clf__span *sc)
{
    if (!sc->root)
        return CLF_SUCCESS;
    cl_mem_flags flags = 0;
    if (clGetMemObjectInfo(c->c, CL_MEM_FLAGS, sizeof flags, &flags, NULL) == CL_SUCCESS &&
        (flags & CL_MEM_READ_ONLY))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: C is a CL_MEM_READ_ONLY buffer");
    if (clf__spans_overlap(sc, sa))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: C (bytes %zu..%zu) overlaps A (bytes %zu..%zu) in the same buffer",
                         sc->lo, sc->hi - 1, sa->lo, sa->hi - 1);
    if (clf__spans_overlap(sc, sb))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: C (bytes %zu..%zu) overlaps B (bytes %zu..%zu) in the same buffer",
                         sc->lo, sc->hi - 1, sb->lo, sb->hi - 1);
    return CLF_SUCCESS;
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
    if (c->typed) {
        const char *names[] = {"A", "B", "C"};
        clf_dtype t[] = {c->a_type, c->b_type, c->c_type};
        for (int i = 0; i < 3; i++)
            if (t[i] != CLF_F16 && t[i] != CLF_BF16 && t[i] != CLF_F32)
                return clf__fail(CLF_ERR_INVALID_ARG, "gemm: type of %s is %d; it must be CLF_F16, CLF_BF16 or CLF_F32",
                                 names[i], (int)t[i]);
        if (c->compute != CLF_COMPUTE_EXACT && c->compute != CLF_COMPUTE_TF32 && c->compute != CLF_COMPUTE_3XTF32 &&
            c->compute != CLF_COMPUTE_3XF16)
            return clf__fail(CLF_ERR_INVALID_ARG, "gemm: compute %d is not a clf_compute value", (int)c->compute);
    }
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
    size_t one_a, one_b, one_c;
    /* A and B are not read when C is empty, or when alpha is 0 (C = beta*C): they may be NULL then. A
     * leading dimension still has to be well formed, as BLAS requires. */
    size_t ka = c->m && c->n && c->alpha != 0.0 ? c->k : 0;
    clf__span sa, sb, sc;
    clf_status s;
    s = check_operand(ctx, "A", "lda", "stride_a", c->a, c->a_off, a_mk ? c->m : ka, a_mk ? ka : c->m, c->lda,
                      c->stride_a, c->batch, clf__dtype_size(clf__gemm_a_type(c)), &one_a, &sa);
    if (s)
        return s;
    s = check_operand(ctx, "B", "ldb", "stride_b", c->b, c->b_off, b_kn ? ka : c->n, b_kn ? c->n : ka, c->ldb,
                      c->stride_b, c->batch, clf__dtype_size(clf__gemm_b_type(c)), &one_b, &sb);
    if (s)
        return s;
    /* C = 1*C: nothing is written, unless an epilogue runs */
    int c_used = c->epi || !((c->alpha == 0.0 || c->k == 0) && c->beta == 1.0);
    s = check_operand(ctx, "C", "ldc", "stride_c", c->c, c->c_off, row ? c->m : c->n, row ? c->n : c->m, c->ldc,
                      c->stride_c, c_used ? c->batch : 0, clf__dtype_size(clf__gemm_c_type(c)), &one_c, &sc);
    if (s)
        return s;
    if ((s = check_c(c, &sa, &sb, &sc)) != CLF_SUCCESS)
        return s;
    /* Batches of C must not overlap, or work-groups of different batches would race. */
    if (c->batch > 1 && one_c > 0 && c->stride_c < one_c)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: stride_c = %zu is smaller than one C matrix (%zu elements)",
                         c->stride_c, one_c);
    return c->epi ? clf__epi_check(ctx, c->epi, c, &sa, &sb, &sc) : CLF_SUCCESS;
}

/* ---- running: plan, then execute --------------------------------------------------------- */

/* A resolved configuration whose kernel does not build on this driver is set aside (one warning) and
 * the call is planned again with the next source of the chain; only the heuristic has nothing behind
 * it. A driver upgrade never turns a working program into a failing one. */
static int set_aside(clf_context *ctx, const clf__gemm_plan *plan, const clf__config *bad)
{
    if (bad == &plan->cfg_mma) {
        if (!plan->origin_mma || strcmp(plan->origin_mma, "default") == 0 || strcmp(plan->origin_mma, "override") == 0 ||
            strcmp(plan->origin_mma, "caller") == 0)
            return 0;
        clf__mma_mode mode = (clf__mma_mode)plan->mma_mode;
        return clf__config_set_aside(ctx, &clf__family_gemm_mma, clf__mma_precision(mode), clf__mma_bucket(mode), bad,
                                     plan->origin_mma);
    }
    int is_main = bad == &plan->cfg_main;
    const char *origin = is_main ? plan->origin_main : plan->origin_direct;
    const char *bucket = is_main ? plan->bucket : "small";
    if (!origin || strcmp(origin, "default") == 0 || strcmp(origin, "override") == 0 ||
        strcmp(origin, "caller") == 0)
        return 0;
    return clf__config_set_aside(ctx, &clf__family_gemm, plan->dtype, bucket, bad, origin);
}

/* A known product (67 x 45 x 37: partial tiles everywhere) run with cfg forced on one path, compared with
 * the host's: CLF_ERR_VERIFY when the kernel builds but computes something else. */
static clf_status check_config(clf_context *ctx, clf_dtype dt, const clf__config *cfg, clf__gemm_path path)
{
    enum { M = 67, N = 45, K = 37 };
    /* On the heap: the caller's thread may have a small stack. */
    struct host { double ha[M * K], hb[K * N], hc[M * N]; float fa[M * K], fb[K * N], fc[M * N]; } *h = malloc(sizeof *h);
    if (!h)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "configuration check");
    double *ha = h->ha, *hb = h->hb, *hc = h->hc;
    float *fa = h->fa, *fb = h->fb, *fc = h->fc;
    for (int i = 0; i < M * K; i++)
        ha[i] = fa[i] = (float)((i * 7 + 3) % 11 - 5) / 4;
    for (int i = 0; i < K * N; i++)
        hb[i] = fb[i] = (float)((i * 5 + 1) % 9 - 4) / 2;
    int f64 = dt == CLF_F64;
    size_t esz = f64 ? 8 : 4;
    cl_int e = CL_SUCCESS;
    cl_mem a = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, M * K * esz, f64 ? (void *)ha : fa, &e);
    cl_mem b = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, K * N * esz, f64 ? (void *)hb : fb, &e);
    cl_mem c = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, M * N * esz, NULL, &e);
    clf_status s = a && b && c ? CLF_SUCCESS : clf__fail_cl(e, "clCreateBuffer", "configuration check");
    clf__gemm_call call = {.dtype = dt, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_NO_TRANS, .m = M,
                           .n = N, .k = K, .alpha = 1.0, .a = a, .lda = K, .b = b, .ldb = N, .c = c, .ldc = N,
                           .batch = 1, .mma = -1};
    if (s == CLF_SUCCESS)
        s = clf__gemm_run(ctx, &call, cfg, path, NULL, NULL);
    if (s == CLF_SUCCESS && (e = clEnqueueReadBuffer(ctx->queue, c, CL_TRUE, 0, M * N * esz, f64 ? (void *)hc : fc,
                                                     0, NULL, NULL)) != CL_SUCCESS)
        s = clf__fail_cl(e, "clEnqueueReadBuffer", "configuration check");
    for (int i = 0; i < M && s == CLF_SUCCESS; i++)
        for (int j = 0; j < N && s == CLF_SUCCESS; j++) {
            double ref = 0, got = f64 ? hc[i * N + j] : fc[i * N + j];
            for (int p = 0; p < K; p++)
                ref += ha[i * K + p] * hb[p * N + j];
            if (got != ref)   /* quarters and halves: exact in fp32 and fp64 */
                s = clf__fail(CLF_ERR_VERIFY, "C[%d][%d] = %g, expected %g", i, j, got, ref);
        }
    cl_mem all[] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (all[i])
            clReleaseMemObject(all[i]);
    free(h);
    return s;
}

/* Configurations from another driver's tuning ("stale") prove themselves on first use: one that computes
 * a wrong result is set aside like one that does not build. 1 when one was set aside. */
static int check_stale(clf_context *ctx, const clf__gemm_plan *plan)
{
    const clf__config *cfgs[2] = {&plan->cfg_main, plan->have_direct ? &plan->cfg_direct : NULL};
    const char *origins[2] = {plan->origin_main, plan->origin_direct};
    const char *buckets[2] = {plan->bucket, "small"};
    for (int i = 0; i < 2; i++) {
        if (!cfgs[i] || !origins[i] || strcmp(origins[i], "stale") != 0 ||
            !clf__config_first_use(ctx, &clf__family_gemm, plan->dtype, buckets[i], cfgs[i]))
            continue;
        clf__quiet_begin();
        clf__gemm_path path = strcmp(buckets[i], "small") == 0 ? CLF__GEMM_DIRECT : CLF__GEMM_FAST;
        clf_status s = check_config(ctx, plan->dtype, cfgs[i], path);
        clf__quiet_end();
        if (s == CLF_ERR_VERIFY && clf__config_set_aside(ctx, &clf__family_gemm, plan->dtype, buckets[i], cfgs[i],
                                                         "stale"))
            return 1;
    }
    return 0;
}

clf_status clf__gemm_run(clf_context *ctx, const clf__gemm_call *call, const clf__config *cfg,
                         clf__gemm_path path, int *launches, cl_event *done)
{
    if (launches)
        *launches = 0;
    clf__gemm_plan plan;
    clf_status s = CLF_SUCCESS;
    for (int attempt = 0; attempt < 4; attempt++) {
        if ((s = clf__gemm_plan_make(ctx, call, cfg, path, &plan)) != CLF_SUCCESS)
            return s;
        if (!cfg && !plan.empty && check_stale(ctx, &plan))
            continue;
        const clf__config *bad = NULL;
        s = clf__gemm_exec(ctx, &plan, call->build_only, done, &bad);
        if (s != CLF_ERR_BUILD || !bad || cfg || !set_aside(ctx, &plan, bad))
            break;
    }
    if (s == CLF_SUCCESS && launches)
        *launches = clf__gemm_plan_launches(&plan);
    return s;
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
    clf__gemm_call call = {.dtype = dt, .layout = layout, .ta = ta, .tb = tb, .m = m, .n = n, .k = k,        \
                           .alpha = alpha, .beta = beta, .a = a, .a_off = a_off, .lda = lda, .stride_a = sa,  \
                           .b = b, .b_off = b_off, .ldb = ldb, .stride_b = sb, .c = c, .c_off = c_off,       \
                           .ldc = ldc, .stride_c = sc, .batch = batch_}

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

#define TYPED_CALL(batch_, sa, sb, sc)                                                                     \
    if (done)                                                                                            \
        *done = NULL;                                                                                    \
    if (!types)                                                                                          \
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_gemm: types is NULL");                                \
    clf__gemm_call call = {.dtype = CLF_F32, .layout = layout, .ta = ta, .tb = tb, .m = m, .n = n, .k = k,   \
                           .alpha = alpha, .beta = beta, .a = a, .a_off = a_off, .lda = lda, .stride_a = sa,  \
                           .b = b, .b_off = b_off, .ldb = ldb, .stride_b = sb, .c = c, .c_off = c_off,       \
                           .ldc = ldc, .stride_c = sc, .batch = batch_, .typed = 1, .a_type = types->a,       \
                           .b_type = types->b, .c_type = types->c, .compute = types->compute}

CLF_API clf_status clf_gemm(clf_context *ctx, const clf_gemm_types *types, clf_layout layout, clf_transpose ta,
                            clf_transpose tb, size_t m, size_t n, size_t k, float alpha,
                            cl_mem a, size_t a_off, size_t lda, cl_mem b, size_t b_off, size_t ldb,
                            float beta, cl_mem c, size_t c_off, size_t ldc, cl_event *done)
{
    TYPED_CALL(1, 0, 0, 0);
    return gemm_public(ctx, &call, done);
}

CLF_API clf_status clf_gemm_batched_strided(clf_context *ctx, const clf_gemm_types *types, clf_layout layout,
                                            clf_transpose ta, clf_transpose tb, size_t m, size_t n, size_t k,
                                            float alpha, cl_mem a, size_t a_off, size_t lda, size_t stride_a,
                                            cl_mem b, size_t b_off, size_t ldb, size_t stride_b,
                                            float beta, cl_mem c, size_t c_off, size_t ldc, size_t stride_c,
                                            size_t batch_count, cl_event *done)
{
    TYPED_CALL(batch_count, stride_a, stride_b, stride_c);
    return gemm_public(ctx, &call, done);
}

/* types NULL: fp32 (clf_sgemm); all three f64: clf_dgemm; else clf_gemm's typed call. */
CLF_API clf_status clf_gemm_epilogue(clf_context *ctx, const clf_gemm_types *types, clf_layout layout,
                                     clf_transpose ta, clf_transpose tb, size_t m, size_t n, size_t k, double alpha,
                                     cl_mem a, size_t a_off, size_t lda, size_t stride_a,
                                     cl_mem b, size_t b_off, size_t ldb, size_t stride_b,
                                     double beta, cl_mem c, size_t c_off, size_t ldc, size_t stride_c,
                                     size_t batch_count, const clf_epilogue *epi, cl_event *done)
{
    int f64 = types && types->a == CLF_F64 && types->b == CLF_F64 && types->c == CLF_F64;
    GEMM_CALL(f64 ? CLF_F64 : CLF_F32, batch_count, stride_a, stride_b, stride_c);
    if (!f64)   /* fp32 calls take fp32 alpha and beta, as clf_sgemm and clf_gemm */
        call.alpha = (float)alpha, call.beta = (float)beta;
    if (types && !f64) {
        call.typed = 1;
        call.a_type = types->a, call.b_type = types->b, call.c_type = types->c, call.compute = types->compute;
    }
    if (!epi)
        return gemm_public(ctx, &call, done);
    if (done)
        *done = NULL;
    if (!ctx)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: ctx is NULL");
    clf__epi e;
    clf_status s = clf__epi_make(ctx, epi, &call, &e);
    if (s != CLF_SUCCESS)
        return s;
    call.epi = &e;
    s = gemm_public(ctx, &call, done);
    clf__epi_free(&e);
    return s;
}
