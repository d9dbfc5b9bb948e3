/* test_gemm.c — GEMM against a double-precision CPU reference on random problems (every layout,
 * transpose, padded ld, offset, alpha/beta, NaN in C with beta 0, batches, both kernel paths and
 * several configurations), plus every invalid-argument path with C checked unchanged. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "testutil.h"

#define POOL (1u << 21)   /* elements per pool buffer: every case fits with its offsets and padding */

typedef struct pool {
    clf_context *ctx;
    cl_mem a, b, c;
    void *ha, *hb, *hc, *hc0;   /* host copies: A, B, C as written, C read back */
} pool;

static void pool_init(pool *p, clf_context *ctx)
{
    p->ctx = ctx;
    p->a = clf_test_buffer(ctx, POOL * 8, NULL);
    p->b = clf_test_buffer(ctx, POOL * 8, NULL);
    p->c = clf_test_buffer(ctx, POOL * 8, NULL);
    p->ha = malloc(POOL * 8);
    p->hb = malloc(POOL * 8);
    p->hc = malloc(POOL * 8);
    p->hc0 = malloc(POOL * 8);
    ck_assert(p->ha && p->hb && p->hc && p->hc0);
}

static void pool_free(pool *p)
{
    clReleaseMemObject(p->a);
    clReleaseMemObject(p->b);
    clReleaseMemObject(p->c);
    free(p->ha);
    free(p->hb);
    free(p->hc);
    free(p->hc0);
}

static double get(const void *h, int f64, size_t i) { return f64 ? ((const double *)h)[i] : ((const float *)h)[i]; }

/* Element (r, c) of a stored matrix in the given layout. */
static size_t at(clf_layout lay, size_t ld, size_t r, size_t c) { return lay == CLF_ROW_MAJOR ? r * ld + c : c * ld + r; }

static size_t pick_dim(uint64_t *s)
{
    static const size_t special[] = {1, 2, 3, 5, 7, 13, 17, 31, 32, 33, 61, 63, 64, 65, 97, 127, 128, 129, 191,
                                     251, 256, 257, 293};
    unsigned r = (unsigned)(clf_test_rand_u64(s) % 100);
    if (r < 55)
        return 1 + clf_test_rand_u64(s) % 40;
    if (r < 85)
        return special[clf_test_rand_u64(s) % (sizeof special / sizeof special[0])];
    return 1 + clf_test_rand_u64(s) % 300;
}

/* A handful of fast-path configurations that exercise every parameter (vector widths 1..8,
 * non-square thread grids, padding, single and double buffering, unroll factors). The second stores a B
 * read in place N x K through the local-memory swizzle (BSWZ in cl/gemm.cl: PADB=0, 16 accumulators), the fifth
 * through rows padded by the kernel (BPAD_NK: PADB=0, 64 accumulators, KWG * VWN = 32). */
static const char *const fast_configs[] = {
    "MWG=16 NWG=16 KWG=8 MDIMC=4 NDIMC=4 VWM=1 VWN=1 KWI=1 PADA=1 PADB=2 DBUF=0",
    "MWG=32 NWG=64 KWG=16 MDIMC=8 NDIMC=16 VWM=2 VWN=4 KWI=4 PADA=2 PADB=0 DBUF=1",
    "MWG=64 NWG=32 KWG=8 MDIMC=8 NDIMC=4 VWM=8 VWN=8 KWI=8 PADA=0 PADB=0 DBUF=1",
    "MWG=64 NWG=64 KWG=32 MDIMC=16 NDIMC=8 VWM=4 VWN=1 KWI=2 PADA=4 PADB=1 DBUF=0",
    "MWG=64 NWG=64 KWG=16 MDIMC=8 NDIMC=8 VWM=2 VWN=2 KWI=4 PADA=0 PADB=0 DBUF=1",
};
#define N_FAST_CONFIGS (int)(sizeof fast_configs / sizeof fast_configs[0])

typedef struct gcase {
    int f64, batched;
    clf__gemm_call call;
    clf__gemm_path path;
    int cfg_index;   /* -1: selected configuration */
    int nan_c;
} gcase;

static size_t round8(size_t x) { return (x + 7) / 8 * 8; }

/* min_k > 0: K from min_k to 2*min_k, with m and n shrunk instead (split-K cases). vec8: sizes, leading
 * dimensions, offsets and strides are multiples of 8, so that every operand fits any vector width and the fast
 * kernel reads it in place with edge checks (sizes are rarely multiples of a tile). */
static void make_case(uint64_t *s, int f64, size_t min_k, int vec8, gcase *g)
{
    memset(g, 0, sizeof *g);
    clf__gemm_call *c = &g->call;
    g->f64 = f64;
    c->dtype = f64 ? CLF_F64 : CLF_F32;
    c->layout = clf_test_rand_u64(s) & 1 ? CLF_ROW_MAJOR : CLF_COL_MAJOR;
    c->ta = clf_test_rand_u64(s) & 1 ? CLF_TRANS : CLF_NO_TRANS;
    c->tb = clf_test_rand_u64(s) & 1 ? CLF_TRANS : CLF_NO_TRANS;
    c->m = pick_dim(s);
    c->n = pick_dim(s);
    c->k = clf_test_rand_u64(s) % 25 == 0 ? 0 : pick_dim(s);
    if (clf_test_rand_u64(s) % 8 == 0) {
        /* Tile multiples: the fast path then reads the operands in place, in either orientation. */
        c->m = 64 * (1 + clf_test_rand_u64(s) % 4);
        c->n = 64 * (1 + clf_test_rand_u64(s) % 4);
        c->k = 64 * (1 + clf_test_rand_u64(s) % 4);
    }
    if (min_k)
        c->k = min_k + clf_test_rand_u64(s) % (min_k + 1);
    while (c->m * c->n * c->k > 3000000) {   /* keeps the CPU reference and the device time short */
        if (min_k)
            c->m > c->n ? (c->m = c->m / 2 + 1) : (c->n = c->n / 2 + 1);
        else
            c->k = c->k / 2 + 1;
    }
    c->batch = 1;
    if (clf_test_rand_u64(s) % 8 == 0) {
        g->batched = 1;
        c->batch = 1 + clf_test_rand_u64(s) % 4;
        while (c->batch * c->m * c->n * (c->k + 1) > 3000000)
            c->m = c->m / 2 + 1;
    }
    if (vec8) {
        c->m = round8(c->m);
        c->n = round8(c->n);
        c->k = round8(c->k) - (vec8 == 2 && c->k > 8 ? 2 : 0);   /* 2: K in pairs, not eights */
    }
    c->alpha = clf_test_pick_scalar(s, 0);
    c->beta = clf_test_pick_scalar(s, 1);
    g->nan_c = c->beta == 0.0 && clf_test_rand_u64(s) % 2;
    int row = c->layout == CLF_ROW_MAJOR;
    size_t ia = (c->ta == CLF_NO_TRANS) == row ? c->k : c->m, oa = (c->ta == CLF_NO_TRANS) == row ? c->m : c->k;
    size_t ib = (c->tb == CLF_NO_TRANS) == row ? c->n : c->k, ob = (c->tb == CLF_NO_TRANS) == row ? c->k : c->n;
    size_t ic = row ? c->n : c->m, oc = row ? c->m : c->n;
    size_t step = vec8 ? 8 : 1;   /* padding and offsets in units of this */
    c->lda = (ia ? ia : step) + step * (clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 7 : 0);
    c->ldb = (ib ? ib : step) + step * (clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 7 : 0);
    c->ldc = (ic ? ic : step) + step * (clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 7 : 0);
    c->a_off = step * (clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 17 : 0);
    c->b_off = step * (clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 17 : 0);
    c->c_off = step * (clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 17 : 0);
    size_t ea = oa ? (oa - 1) * c->lda + ia : 0, eb = ob ? (ob - 1) * c->ldb + ib : 0;
    size_t ec = (oc - 1) * c->ldc + ic;
    if (g->batched) {
        c->stride_a = clf_test_rand_u64(s) % 4 == 0 ? 0 : ea + step * (clf_test_rand_u64(s) % 5);   /* 0: shared A */
        c->stride_b = eb + step * (clf_test_rand_u64(s) % 5);
        c->stride_c = ec + step * (clf_test_rand_u64(s) % 5);
        if (vec8) {
            c->stride_a = round8(c->stride_a);
            c->stride_b = round8(c->stride_b);
            c->stride_c = round8(c->stride_c);
        }
    }
    unsigned p = (unsigned)(clf_test_rand_u64(s) % 10);
    g->path = p < 4 ? CLF__GEMM_AUTO : p < 6 ? CLF__GEMM_DIRECT : CLF__GEMM_FAST;
    /* Fixed configurations in f32 only: each is a separate program to compile per orientation. */
    int fixed = !f64 && g->path == CLF__GEMM_FAST && clf_test_rand_u64(s) % 2;
    g->cfg_index = fixed ? (int)(clf_test_rand_u64(s) % N_FAST_CONFIGS) : -1;
}

static size_t extent(size_t outer, size_t inner, size_t ld) { return outer && inner ? (outer - 1) * ld + inner : 0; }

/* Runs one case and compares every element of C's whole extent (the gaps between rows must not
 * change). Returns 0 on success; prints the case on failure. */
static int run_case(pool *p, const gcase *g, uint64_t *s)
{
    const clf__gemm_call *c = &g->call;
    int f64 = g->f64, row = c->layout == CLF_ROW_MAJOR;
    size_t esz = f64 ? 8 : 4;
    size_t oa = (c->ta == CLF_NO_TRANS) == row ? c->m : c->k, ia = (c->ta == CLF_NO_TRANS) == row ? c->k : c->m;
    size_t ob = (c->tb == CLF_NO_TRANS) == row ? c->k : c->n, ib = (c->tb == CLF_NO_TRANS) == row ? c->n : c->k;
    size_t oc = row ? c->m : c->n, ic = row ? c->n : c->m;
    size_t na = c->a_off + (c->batch - 1) * c->stride_a + extent(oa, ia, c->lda);
    size_t nb = c->b_off + (c->batch - 1) * c->stride_b + extent(ob, ib, c->ldb);
    size_t nc = c->c_off + (c->batch - 1) * c->stride_c + extent(oc, ic, c->ldc);
    ck_assert(na <= POOL && nb <= POOL && nc <= POOL);
    if (f64) {
        clf_test_rand_f64(p->ha, na, s);
        clf_test_rand_f64(p->hb, nb, s);
        clf_test_rand_f64(p->hc0, nc, s);
    } else {
        clf_test_rand_f32(p->ha, na, s);
        clf_test_rand_f32(p->hb, nb, s);
        clf_test_rand_f32(p->hc0, nc, s);
    }
    if (g->nan_c)
        for (size_t i = 0; i < nc; i++)
            f64 ? (((double *)p->hc0)[i] = NAN) : (((float *)p->hc0)[i] = NAN);
    cl_command_queue q = clf_context_queue(p->ctx);
    ck_assert_int_eq(clEnqueueWriteBuffer(q, p->a, CL_FALSE, 0, (na ? na : 1) * esz, p->ha, 0, NULL, NULL), 0);
    ck_assert_int_eq(clEnqueueWriteBuffer(q, p->b, CL_FALSE, 0, (nb ? nb : 1) * esz, p->hb, 0, NULL, NULL), 0);
    ck_assert_int_eq(clEnqueueWriteBuffer(q, p->c, CL_TRUE, 0, nc * esz, p->hc0, 0, NULL, NULL), 0);

    clf__gemm_call call = *c;
    call.a = p->a;
    call.b = p->b;
    call.c = p->c;
    clf_status st;
    cl_event ev = NULL;
    if (g->path == CLF__GEMM_AUTO) {
        /* Through the public entry points. */
        if (g->batched && f64)
            st = clf_dgemm_batched_strided(p->ctx, c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, p->a,
                                           c->a_off, c->lda, c->stride_a, p->b, c->b_off, c->ldb, c->stride_b,
                                           c->beta, p->c, c->c_off, c->ldc, c->stride_c, c->batch, &ev);
        else if (g->batched)
            st = clf_sgemm_batched_strided(p->ctx, c->layout, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha,
                                           p->a, c->a_off, c->lda, c->stride_a, p->b, c->b_off, c->ldb,
                                           c->stride_b, (float)c->beta, p->c, c->c_off, c->ldc, c->stride_c,
                                           c->batch, &ev);
        else if (f64)
            st = clf_dgemm(p->ctx, c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, p->a, c->a_off, c->lda,
                           p->b, c->b_off, c->ldb, c->beta, p->c, c->c_off, c->ldc, &ev);
        else
            st = clf_sgemm(p->ctx, c->layout, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, p->a, c->a_off,
                           c->lda, p->b, c->b_off, c->ldb, (float)c->beta, p->c, c->c_off, c->ldc, &ev);
    } else {
        clf__config cfg;
        const clf__config *pc = NULL;
        if (g->cfg_index >= 0) {
            ck_assert_int_eq(clf__config_parse(&clf__family_gemm, fast_configs[g->cfg_index], &cfg), 0);
            if (clf__family_gemm.valid(&cfg, clf_context_device(p->ctx), call.dtype))
                pc = &cfg;
        }
        st = clf__gemm_check(p->ctx, &call);
        if (st == CLF_SUCCESS)
            st = clf__gemm_run(p->ctx, &call, pc, g->path, NULL, &ev);
    }
    if (st != CLF_SUCCESS) {
        fprintf(stderr, "gemm failed: %s\n", clf_last_error());
        return 1;
    }
    ck_assert_msg(ev != NULL, "no event returned");
    ck_assert_int_eq(clWaitForEvents(1, &ev), 0);
    clReleaseEvent(ev);
    ck_assert_int_eq(clEnqueueReadBuffer(q, p->c, CL_TRUE, 0, nc * esz, p->hc, 0, NULL, NULL), 0);

    /* Expected: C0 everywhere, then the product inside each batch's matrix. */
    double u = f64 ? 1.11e-16 : 5.97e-8;
    int bad = 0;
    char *inside = calloc(nc ? nc : 1, 1);
    ck_assert(inside);
    for (size_t bt = 0; bt < c->batch && !bad; bt++) {
        size_t a0 = c->a_off + bt * c->stride_a, b0 = c->b_off + bt * c->stride_b, c0 = c->c_off + bt * c->stride_c;
        for (size_t i = 0; i < c->m && !bad; i++)
            for (size_t j = 0; j < c->n && !bad; j++) {
                double sum = 0, mag = 0;
                for (size_t l = 0; l < c->k; l++) {
                    size_t ai = c->ta == CLF_NO_TRANS ? at(c->layout, c->lda, i, l) : at(c->layout, c->lda, l, i);
                    size_t bi = c->tb == CLF_NO_TRANS ? at(c->layout, c->ldb, l, j) : at(c->layout, c->ldb, j, l);
                    double x = get(p->ha, f64, a0 + ai) * get(p->hb, f64, b0 + bi);
                    sum += x;
                    mag += fabs(x);
                }
                size_t ci = c0 + at(c->layout, c->ldc, i, j);
                double cold = get(p->hc0, f64, ci);
                double want = c->alpha * sum + (c->beta != 0.0 ? c->beta * cold : 0.0);
                double tol = 2.0 * (double)(c->k + 4) * u * (fabs(c->alpha) * mag + (c->beta != 0.0 ? fabs(c->beta * cold) : 0.0)) + 1e-300;
                double got = get(p->hc, f64, ci);
                inside[ci] = 1;
                if (!(fabs(got - want) <= tol)) {
                    fprintf(stderr, "C[%zu](batch %zu, %zu, %zu) = %.10g, want %.10g (tol %.3g)\n", ci, bt, i, j,
                            got, want, tol);
                    bad = 1;
                }
            }
    }
    for (size_t i = 0; i < nc && !bad; i++) {
        if (inside[i])
            continue;
        double was = get(p->hc0, f64, i), now = get(p->hc, f64, i);
        if (!(was == now || (isnan(was) && isnan(now)))) {
            fprintf(stderr, "C[%zu] outside the matrix changed: %g -> %g\n", i, was, now);
            bad = 1;
        }
    }
    free(inside);
    if (bad)
        fprintf(stderr, "case: %s %s layout=%d ta=%d tb=%d m=%zu n=%zu k=%zu alpha=%g beta=%g lda=%zu ldb=%zu "
                "ldc=%zu off=%zu/%zu/%zu batch=%zu strides=%zu/%zu/%zu path=%d cfg=%d nan_c=%d\n",
                f64 ? "f64" : "f32", clf_context_device(p->ctx)->name, c->layout, c->ta, c->tb, c->m, c->n, c->k,
                c->alpha, c->beta, c->lda, c->ldb, c->ldc, c->a_off, c->b_off, c->c_off, c->batch, c->stride_a,
                c->stride_b, c->stride_c, g->path, g->cfg_index, g->nan_c);
    return bad;
}

static int cases_for(clf_context *ctx)
{
    /* 2000 on PoCL (the CI device); other CPU drivers (rusticl) share the time budget. */
    return clf_test_case_count("CLFORGE_GEMM_TEST_CASES",
                               strstr(clf_context_device(ctx)->platform, "Portable") ? 2000 : 500);
}

/* Which random cases a test draws (draw_case). */
typedef enum { RANDOM_CASES, SPLIT_K_CASES, EDGE_CASES } case_kind;

/* Case t of the kind into *g, with the environment it runs under. */
static void draw_case(case_kind kind, uint64_t *seed, int fp64, int t, gcase *g)
{
    unsetenv("CLFORGE_GEMM_SPLIT_K");
    switch (kind) {
    case RANDOM_CASES:
        make_case(seed, fp64 && t % 4 == 3, 0, 0, g);
        break;
    case SPLIT_K_CASES: {
        make_case(seed, fp64 && t % 4 == 3, 512, 0, g);
        char parts[8];
        snprintf(parts, sizeof parts, "%d", 2 + t % 4);
        setenv("CLFORGE_GEMM_SPLIT_K", parts, 1);
        break;
    }
    case EDGE_CASES:
        make_case(seed, fp64 && t % 4 == 3, t % 5 == 4 ? 512 : 0, t % 10 == 9 ? 2 : 1, g);
        if (g->path == CLF__GEMM_DIRECT)
            g->path = CLF__GEMM_FAST;   /* the direct kernel never packs: nothing to check there */
        if (t % 5 == 4)   /* slices with edges, and a remainder (every other time with a K in pairs, as the rest of */
            setenv("CLFORGE_GEMM_SPLIT_K", "3", 1);   /* a short split is on GPUs: host/gemm/gemm_plan.c) */
        break;
    }
}

/* cases_for(device) / per cases of the kind on every test device, from seed0 (per device), stopping at five
 * failures on a device; the failures. *total gets the number of cases run. */
static int run_cases(case_kind kind, uint64_t seed0, int per, const char *label, int *total)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    int failures = 0;
    *total = 0;
    for (int d = 0; d < nctx; d++) {
        pool p;
        pool_init(&p, ctxs[d]);
        uint64_t seed = seed0 ^ (uint64_t)d;
        int fp64 = clf_context_device(ctxs[d])->fp64;
        int n = cases_for(ctxs[d]) / per;
        for (int t = 0; t < n && failures < 5; t++) {
            gcase g;
            draw_case(kind, &seed, fp64, t, &g);
            failures += run_case(&p, &g, &seed);
            ++*total;
        }
        unsetenv("CLFORGE_GEMM_SPLIT_K");
        fprintf(stderr, "gemm: %d %s cases on %s, %d failed\n", n, label, clf_context_device(ctxs[d])->name, failures);
        pool_free(&p);
    }
    clf_test_contexts_free(ctxs, nctx);
    return failures;
}

/* run_cases with the variable var set to value; the failures. */
static int run_cases_under(const char *var, const char *value, case_kind kind, uint64_t seed0, int per,
                           const char *label)
{
    int total;
    setenv(var, value, 1);
    int failures = run_cases(kind, seed0, per, label, &total);
    unsetenv(var);
    return failures;
}

START_TEST(random_cases)
{
    int total;
    ck_assert_int_eq(run_cases(RANDOM_CASES, UINT64_C(0x243f6a8885a308d3), 1, "random", &total), 0);
    ck_assert_int_gt(total, 0);
}
END_TEST

/* ---- invalid arguments: each returns the expected status and leaves C untouched ------------- */

#define SMALL 64   /* elements in the small buffers below */

typedef struct argenv {
    clf_context *ctx;
    cl_mem a, b, c, big;
    float c0[SMALL];
} argenv;

static void expect_unchanged(argenv *e, clf_status got, clf_status want, const char *what)
{
    ck_assert_msg(got == want, "%s: status %d (%s), want %d", what, got, clf_last_error(), want);
    if (want != CLF_SUCCESS)
        ck_assert_msg(strlen(clf_last_error()) > 0, "%s: no message", what);
    float now[SMALL];
    clf_test_read(e->ctx, e->c, sizeof now, now);
    ck_assert_msg(memcmp(now, e->c0, sizeof now) == 0, "%s: C changed", what);
}

START_TEST(invalid_arguments)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    for (int d = 0; d < nctx; d++) {
        argenv e = {.ctx = ctxs[d]};
        uint64_t seed = 7;
        clf_test_rand_f32(e.c0, SMALL, &seed);
        float ab[SMALL];
        clf_test_rand_f32(ab, SMALL, &seed);
        e.a = clf_test_buffer(e.ctx, sizeof ab, ab);
        e.b = clf_test_buffer(e.ctx, sizeof ab, ab);
        e.c = clf_test_buffer(e.ctx, sizeof e.c0, e.c0);
        e.big = clf_test_buffer(e.ctx, 1 << 20, NULL);
        clf_context *x = e.ctx;
        const clf_layout R = CLF_ROW_MAJOR, Cm = CLF_COL_MAJOR;
        const clf_transpose N = CLF_NO_TRANS, T = CLF_TRANS;
        const clf_status BAD = CLF_ERR_INVALID_ARG;
        const size_t H = (size_t)-1 / 2;
        cl_event ev = (cl_event)&e;   /* must be set to NULL on failure */
        /* 8x8 matrices fill the 64-element buffers exactly. */
        ck_assert_int_eq(clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, 0, 8, NULL), CLF_SUCCESS);
        clf_test_read(x, e.c, sizeof e.c0, e.c0);   /* C now holds that result */
        expect_unchanged(&e, clf_sgemm(NULL, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, 0, 8, &ev), BAD, "ctx NULL");
        ck_assert_ptr_null(ev);
        expect_unchanged(&e, clf_sgemm(x, (clf_layout)0, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "layout");
        expect_unchanged(&e, clf_sgemm(x, R, (clf_transpose)0, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "ta");
        expect_unchanged(&e, clf_sgemm(x, R, N, (clf_transpose)113, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "tb");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 7, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "lda < k");
        expect_unchanged(&e, clf_sgemm(x, Cm, N, N, 8, 8, 4, 1, e.a, 0, 7, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "col lda < m");
        expect_unchanged(&e, clf_sgemm(x, R, N, T, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 7, 0, e.c, 0, 8, NULL), BAD, "ldb < k (B^T)");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, 0, 7, NULL), BAD, "ldc < n");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, 0, 0, NULL), BAD, "ldc 0");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 1, 8, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "A offset out of buffer");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 9, 8, 8, 1, e.big, 0, 8, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "C too small (m=9)");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 9, 1, e.big, 0, 9, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "B too small (k=9)");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 1, e.c, 1, 8, NULL), BAD, "C offset out of buffer");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, 0, 9, NULL), BAD, "padded ldc beyond buffer");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, NULL, 0, 8, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "A NULL");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, NULL, 0, 8, NULL), BAD, "C NULL");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, NULL, 0, 8, 0, e.c, 0, 8, NULL), BAD, "B NULL");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 7, 0, e.c, 0, 8, NULL), BAD, "ldb < n");
        expect_unchanged(&e, clf_sgemm(x, Cm, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, 0, 7, NULL), BAD, "col ldc < m");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, H, 8, NULL), BAD, "offset overflow");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, H, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "lda overflow");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, H, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "m huge");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, (size_t)1 << 40, 1, e.a, 0, (size_t)1 << 40, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "k huge");
        expect_unchanged(&e, clf_sgemm_batched_strided(x, R, N, N, 4, 4, 4, 1, e.a, 0, 4, 16, e.b, 0, 4, 16, 0, e.c, 0, 4, 8, 2, NULL), BAD, "stride_c overlaps");
        expect_unchanged(&e, clf_sgemm_batched_strided(x, R, N, N, 4, 4, 4, 1, e.a, 0, 4, 16, e.b, 0, 4, 16, 0, e.c, 0, 4, 16, 5, NULL), BAD, "batch beyond C");
        expect_unchanged(&e, clf_sgemm_batched_strided(x, R, N, N, 4, 4, 4, 1, e.a, 0, 4, H, e.b, 0, 4, 16, 0, e.c, 0, 4, 16, 3, NULL), BAD, "stride overflow");
        expect_unchanged(&e, clf_sgemm_batched_strided(x, R, N, N, 4, 4, 4, 1, e.a, 0, 4, 16, e.b, 0, 4, 32, 0, e.c, 0, 4, 16, 3, NULL), BAD, "batch beyond B");
        if (!clf_context_device(x)->fp64)
            expect_unchanged(&e, clf_dgemm(x, R, N, N, 4, 4, 4, 1, e.a, 0, 4, e.b, 0, 4, 0, e.c, 0, 4, NULL),
                             CLF_ERR_UNSUPPORTED, "dgemm without fp64");
        else
            expect_unchanged(&e, clf_dgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD,
                             "dgemm: A too small for doubles");
        setenv("CLFORGE_GEMV_CONFIG", "THIN=1 TINY=0", 1);   /* else 8^3 runs on the gemv kernels (GPUs: thin) */
        setenv("CLFORGE_GEMM_CONFIG", "MWG=48", 1);
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "override value");
        setenv("CLFORGE_GEMM_CONFIG", "MWG=16 MDIMC=32", 1);
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD, "override invalid");
        unsetenv("CLFORGE_GEMM_CONFIG");
        unsetenv("CLFORGE_GEMV_CONFIG");

        /* What BLAS leaves undefined and a library that knows the buffers refuses: C overlapping A or B
         * (same buffer, or overlapping sub-buffers of one), a read-only C, buffers of another context. */
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, e.a, 0, 8, NULL), BAD, "C is A");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 4, 4, 4, 1, e.big, 0, 4, e.b, 0, 4, 0, e.big, 12, 4, NULL), BAD,
                         "C overlaps A");
        cl_int err;
        cl_buffer_region r1 = {0, 8192}, r2 = {4096, 8192};
        cl_mem s1 = clCreateSubBuffer(e.big, 0, CL_BUFFER_CREATE_TYPE_REGION, &r1, &err);
        cl_mem s2 = s1 ? clCreateSubBuffer(e.big, 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err) : NULL;
        if (s1 && s2)   /* a device whose sub-buffer alignment exceeds 4096 bytes skips this one */
            expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, s1, 1024, 8, 0, s2, 0, 8, NULL), BAD,
                             "C overlaps B through sub-buffers");
        if (s2)
            clReleaseMemObject(s2);
        if (s1)
            clReleaseMemObject(s1);
        cl_mem ro = clCreateBuffer(clf_context_cl(x), CL_MEM_READ_ONLY, sizeof e.c0, NULL, &err);
        ck_assert_ptr_nonnull(ro);
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, e.a, 0, 8, e.b, 0, 8, 0, ro, 0, 8, NULL), BAD, "read-only C");
        clReleaseMemObject(ro);
        cl_device_id dev;
        ck_assert_int_eq(clGetContextInfo(clf_context_cl(x), CL_CONTEXT_DEVICES, sizeof dev, &dev, NULL), CL_SUCCESS);
        cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        ck_assert_ptr_nonnull(other);
        cl_mem fa = clCreateBuffer(other, CL_MEM_READ_WRITE, sizeof e.c0, NULL, &err);
        ck_assert_ptr_nonnull(fa);
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 8, 1, fa, 0, 8, e.b, 0, 8, 0, e.c, 0, 8, NULL), BAD,
                         "A of another context");
        clReleaseMemObject(fa);
        clReleaseContext(other);
        ck_assert_ptr_nonnull(strstr(clf_last_error(), "another OpenCL context"));

        /* Valid corner cases: nothing to do, and C = beta*C without reading A or B. */
        ev = NULL;
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 0, 8, 8, 1, NULL, 0, 8, NULL, 0, 8, 0, e.c, 0, 8, &ev), CLF_SUCCESS, "m = 0");
        ck_assert_ptr_nonnull(ev);
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 0, 8, 1, NULL, 0, 8, NULL, 0, 1, 0, NULL, 0, 1, NULL), CLF_SUCCESS, "n = 0");
        expect_unchanged(&e, clf_sgemm(x, R, N, N, 8, 8, 0, 1, NULL, 0, 1, NULL, 0, 8, 1, e.c, 0, 8, NULL), CLF_SUCCESS, "k = 0, beta 1");
        expect_unchanged(&e, clf_sgemm_batched_strided(x, R, N, N, 4, 4, 4, 1, e.a, 0, 4, 16, e.b, 0, 4, 16, 0, e.c, 0, 4, 16, 0, NULL), CLF_SUCCESS, "batch 0");
        float nan_a[SMALL];
        for (int i = 0; i < SMALL; i++)
            nan_a[i] = NAN;
        cl_mem an = clf_test_buffer(x, sizeof nan_a, nan_a);
        ck_assert_int_eq(clf_sgemm(x, R, N, N, 8, 8, 8, 0, an, 0, 8, an, 0, 8, -2, e.c, 0, 8, NULL), CLF_SUCCESS);
        float now[SMALL];
        clf_test_read(x, e.c, sizeof now, now);
        for (int i = 0; i < SMALL; i++)
            ck_assert_msg(now[i] == -2 * e.c0[i], "alpha 0: C[%d] = %g, want %g", i, now[i], -2 * e.c0[i]);
        /* BLAS: A and B are not referenced when alpha is 0, and may be NULL. */
        clf_test_read(x, e.c, sizeof e.c0, e.c0);
        ck_assert_int_eq(clf_sgemm(x, R, N, N, 8, 8, 8, 0, NULL, 0, 8, NULL, 0, 8, 0.5f, e.c, 0, 8, NULL), CLF_SUCCESS);
        clf_test_read(x, e.c, sizeof now, now);
        for (int i = 0; i < SMALL; i++)
            ck_assert_msg(now[i] == 0.5f * e.c0[i], "alpha 0, A NULL: C[%d] = %g, want %g", i, now[i], 0.5f * e.c0[i]);
        ck_assert_int_eq(clf_sgemm(x, Cm, T, N, 8, 8, 0, 1, NULL, 0, 1, NULL, 0, 1, 0, e.c, 0, 8, NULL), CLF_SUCCESS);
        clf_test_read(x, e.c, sizeof now, now);
        for (int i = 0; i < SMALL; i++)
            ck_assert_msg(now[i] == 0.0f, "k 0, beta 0: C[%d] = %g", i, now[i]);
        clReleaseMemObject(an);
        clReleaseMemObject(e.a);
        clReleaseMemObject(e.b);
        clReleaseMemObject(e.c);
        clReleaseMemObject(e.big);
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

START_TEST(buckets)
{
    ck_assert_str_eq(clf__gemm_bucket(NULL, 1, 1, 1), "small");
    clf_device_info cpu = {.type = CL_DEVICE_TYPE_CPU};
    ck_assert_str_eq(clf__gemm_bucket(&cpu, 64, 64, 64), "small");
    ck_assert_str_eq(clf__gemm_bucket(&cpu, 65, 64, 64), "skinny");
    ck_assert_str_eq(clf__gemm_bucket(&cpu, 512, 512, 512), "medium");
    ck_assert_str_eq(clf__gemm_bucket(NULL, 512, 512, 512), "small");
    ck_assert_str_eq(clf__gemm_bucket(NULL, 513, 512, 512), "medium");
    ck_assert_str_eq(clf__gemm_bucket(NULL, 1024, 2048, 2048), "medium");
    ck_assert_str_eq(clf__gemm_bucket(NULL, 1025, 2048, 2048), "large");
    ck_assert_str_eq(clf__gemm_bucket(NULL, 64, 4096, 4096), "skinny");
    ck_assert_str_eq(clf__gemm_bucket(NULL, 4096, 64, 4096), "skinny");
    ck_assert_str_eq(clf__gemm_bucket(NULL, 4096, 4096, 64), "large");
    ck_assert_str_eq(clf__gemm_bucket(NULL, 127, 4096, 4096), "skinny");
    ck_assert_str_eq(clf__gemm_bucket(NULL, 128, 4096, 4096), "thin");
    ck_assert_str_eq(clf__gemm_bucket(NULL, 511, 4096, 2048), "thin");
    ck_assert_str_eq(clf__gemm_bucket(NULL, 511, 4096, 2047), "medium");
    ck_assert_str_eq(clf__gemm_bucket(NULL, 512, 4096, 4096), "medium");
    ck_assert_str_eq(clf__gemm_bucket(&cpu, 511, 4096, 4096), "skinny");
    clf_device_info gpu = {0};
    gpu.type = CL_DEVICE_TYPE_GPU;
    gpu.compute_units = 132;
    ck_assert_str_eq(clf__gemm_bucket(&gpu, 1000, 3000, 700), "medium");   /* 183 tiles of 128^2 */
    ck_assert_str_eq(clf__gemm_bucket(&gpu, 2048, 2048, 2048), "large");   /* 256 */
    ck_assert_str_eq(clf__gemm_bucket(NULL, (size_t)1 << 40, (size_t)1 << 40, (size_t)1 << 40), "large");
    /* Every bucket's default is valid on every device present, in both precisions it offers. */
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    for (int d = 0; d < nctx; d++) {
        const clf_device_info *dev = clf_context_device(ctxs[d]);
        for (int b = 0; b < clf__family_gemm.nbuckets; b++)
            for (int dt = 0; dt < (dev->fp64 ? 2 : 1); dt++) {
                clf__config c;
                clf__family_gemm.default_config(dev, dt ? CLF_F64 : CLF_F32, clf__family_gemm.buckets[b], &c);
                ck_assert_msg(clf__family_gemm.valid(&c, dev, dt ? CLF_F64 : CLF_F32), "default for %s invalid",
                              clf__family_gemm.buckets[b]);
            }
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST


/* Split-K (forced through CLFORGE_GEMM_SPLIT_K; the automatic rule never splits on CPU devices): K from
 * 512 to 1024, so that there are whole slices and a remainder, over every layout, path and scalar. */
START_TEST(split_k_cases)
{
    int total;
    ck_assert_int_eq(run_cases(SPLIT_K_CASES, UINT64_C(0x13198a2e03707344), 10, "split-K", &total), 0);
}
END_TEST

/* Split-K as above with CLFORGE_GEMM_SPLIT_SUM=fused: the last slice of each tile sums the others' partial tiles and
 * stores C (alpha, beta, NaN in C under beta 0), with no reduction launch; every other case of the kind, each
 * device's flags used again and again (a flag left by one call must not count in the next). */
START_TEST(split_k_summed_in_launch_cases)
{
    ck_assert_int_eq(run_cases_under("CLFORGE_GEMM_SPLIT_SUM", "fused", SPLIT_K_CASES, UINT64_C(0x452821e638d01377), 20,
                                     "split-K summed in the launch"),
                     0);
}
END_TEST

/* The fast kernel reading operands in place past their last whole tile (edge checks; on GPUs the rule, forced on
 * every device here with CLFORGE_GEMM_PACK=edges): sizes, leading dimensions and offsets in multiples of 8 (K, in
 * a tenth of the cases, a multiple of 2 only), every layout, transpose and path, the fixed configurations (vector
 * widths 1 to 8) and the device's own. */
START_TEST(edge_cases)
{
    ck_assert_int_eq(run_cases_under("CLFORGE_GEMM_PACK", "edges", EDGE_CASES, UINT64_C(0xa4093822299f31d0), 8, "edge"),
                     0);
}
END_TEST

/* Every fixed configuration on the fast path over operands in whole tiles, which it reads in place, with B stored
 * both ways (N x K: the transposing store into local memory, swizzled or with padded rows), row- and column-major. */
START_TEST(fixed_configs_read_in_place)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs), failures = 0;
    uint64_t seed = UINT64_C(0x5be0cd19137e2179);
    for (int d = 0; d < nctx; d++) {
        pool p;
        pool_init(&p, ctxs[d]);
        for (int i = 0; i < N_FAST_CONFIGS * 4; i++) {
            gcase g;
            make_case(&seed, 0, 0, 0, &g);
            clf__gemm_call *c = &g.call;
            g.batched = 0;
            g.nan_c = 0;
            g.path = CLF__GEMM_FAST;
            g.cfg_index = i / 4;
            c->layout = i % 2 ? CLF_COL_MAJOR : CLF_ROW_MAJOR;
            c->ta = CLF_NO_TRANS;
            c->tb = i / 2 % 2 ? CLF_TRANS : CLF_NO_TRANS;
            c->m = c->n = c->k = 128;
            c->lda = c->ldb = c->ldc = 128;
            c->a_off = c->b_off = c->c_off = 0;
            c->batch = 1;
            c->stride_a = c->stride_b = c->stride_c = 0;
            failures += run_case(&p, &g, &seed);
        }
        pool_free(&p);
    }
    clf_test_contexts_free(ctxs, nctx);
    ck_assert_int_eq(failures, 0);
}
END_TEST

/* The direct kernel with CLFORGE_GEMM_DIRECT_LAYOUT=1 (operands stored with K contiguous loaded in runs along K into
 * padded local rows), at sizes off every tile: the selected configuration in fp32 and fp64 with A, B or both stored
 * so, and every fixed configuration with two of the three (column-major calls run the same kernels). */
START_TEST(direct_layout_cases)
{
    static const struct { clf_transpose ta, tb; } orient[] = {
        {CLF_NO_TRANS, CLF_TRANS},      /* A and B K-contiguous */
        {CLF_NO_TRANS, CLF_NO_TRANS},   /* A only */
        {CLF_TRANS, CLF_TRANS},         /* B only */
    };
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs), failures = 0;
    uint64_t seed = UINT64_C(0x1f83d9ab5be0cd19);
    setenv("CLFORGE_GEMM_DIRECT_LAYOUT", "1", 1);
    for (int d = 0; d < nctx; d++) {
        pool p;
        pool_init(&p, ctxs[d]);
        for (int i = 0; i < 6 + N_FAST_CONFIGS * 2; i++) {
            /* i < 6: the selected configuration, fp64 then fp32; then fixed configuration j in orientations j, j+1 */
            int j = (i - 6) / 2, o = i < 6 ? i % 3 : (j + (i - 6) % 2) % 3;
            if (i < 3 && !clf_context_device(ctxs[d])->fp64)
                continue;   /* no fp64 on this device (Mesa's llvmpipe) */
            gcase g;
            do
                make_case(&seed, i < 3, 0, 0, &g);
            while (g.call.layout != CLF_ROW_MAJOR || g.call.ta != orient[o].ta || g.call.tb != orient[o].tb ||
                   g.call.k < 9 || g.call.m % 8 == 0 || g.call.n % 8 == 0);
            g.path = CLF__GEMM_DIRECT;
            g.cfg_index = i < 6 ? -1 : j;
            failures += run_case(&p, &g, &seed);
        }
        pool_free(&p);
    }
    unsetenv("CLFORGE_GEMM_DIRECT_LAYOUT");
    clf_test_contexts_free(ctxs, nctx);
    ck_assert_int_eq(failures, 0);
}
END_TEST

/* Threads sharing one context share its GEMM scratch buffer: each call must still read its own packed
 * operands. Sizes are off the tile grid so that every call packs. */
typedef struct { clf_context *ctx; size_t m, n, k; float *a, *b; double err; clf_status s; } thread_case;

static void *gemm_thread(void *arg)
{
    thread_case *t = arg;
    size_t m = t->m, n = t->n, k = t->k;
    cl_int e;
    cl_context cl = clf_context_cl(t->ctx);
    cl_mem a = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, m * k * 4, t->a, &e);
    cl_mem b = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, k * n * 4, t->b, &e);
    cl_mem c = clCreateBuffer(cl, CL_MEM_READ_WRITE, m * n * 4, NULL, &e);
    float *hc = malloc(m * n * 4);
    t->s = CLF_SUCCESS;
    for (int rep = 0; rep < 3 && t->s == CLF_SUCCESS; rep++)
        t->s = clf_sgemm(t->ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, m, n, k, 1.0f, a, 0, k, b, 0, n, 0.0f, c,
                         0, n, NULL);
    if (t->s == CLF_SUCCESS)
        t->s = clEnqueueReadBuffer(clf_context_queue(t->ctx), c, CL_TRUE, 0, m * n * 4, hc, 0, NULL, NULL);
    t->err = 0;
    for (size_t i = 0; i < m && t->s == CLF_SUCCESS; i += 7)
        for (size_t j = 0; j < n; j += 5) {
            double ref = 0;
            for (size_t p = 0; p < k; p++)
                ref += (double)t->a[i * k + p] * t->b[p * n + j];
            double d = fabs(ref - hc[i * n + j]);
            if (d > t->err)
                t->err = d;
        }
    free(hc);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    return NULL;
}

START_TEST(threads_share_scratch)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    for (int d = 0; d < 2 * nctx; d++) {
        /* the second round splits K in half the threads: they take the partial buffer, then the packs */
        thread_case t[4];
        pthread_t th[4];
        uint64_t seed = 77;
        for (int i = 0; i < 4; i++) {
            size_t m = 530 + 37 * (size_t)i, n = 541 + 29 * (size_t)i, k = 519 + 13 * (size_t)i;
            if (d >= nctx && i % 2 == 0) {
                m += 300;   /* K below 512 is one slice only (no split); the larger m keeps it out of "small" */
                k -= 100;
            } else if (d >= nctx) {
                k += 600;
            }
            t[i] = (thread_case){ctxs[d % nctx], m, n, k, NULL, NULL, 0, -1};
            t[i].a = malloc(m * k * 4);
            t[i].b = malloc(k * n * 4);
            clf_test_rand_f32(t[i].a, m * k, &seed);
            clf_test_rand_f32(t[i].b, k * n, &seed);
            ck_assert_str_ne(clf__gemm_bucket(clf_context_device(ctxs[d % nctx]), m, n, k), "small");   /* the packing path */
        }
        if (d >= nctx)
            setenv("CLFORGE_GEMM_SPLIT_K", "2", 1);
        for (int i = 0; i < 4; i++)
            pthread_create(&th[i], NULL, gemm_thread, &t[i]);
        for (int i = 0; i < 4; i++) {
            pthread_join(th[i], NULL);
            ck_assert_msg(t[i].s == CLF_SUCCESS, "thread %d: %s", i, clf_status_name(t[i].s));
            ck_assert_msg(t[i].err < 1e-3 * sqrt((double)t[i].k), "thread %d: error %g", i, t[i].err);
            free(t[i].a);
            free(t[i].b);
        }
        unsetenv("CLFORGE_GEMM_SPLIT_K");
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gemm");
    TCase *tc = clf_test_tcase("random");
    tcase_add_test(tc, random_cases);
    tcase_add_test(tc, split_k_cases);
    tcase_add_test(tc, split_k_summed_in_launch_cases);
    tcase_add_test(tc, edge_cases);
    tcase_add_test(tc, fixed_configs_read_in_place);
    tcase_add_test(tc, direct_layout_cases);
    tcase_add_test(tc, threads_share_scratch);
    suite_add_tcase(s, tc);
    TCase *ta = clf_test_tcase("arguments");
    tcase_add_test(ta, invalid_arguments);
    tcase_add_test(ta, buckets);
    suite_add_tcase(s, ta);
    return clf_test_run(s);
}
