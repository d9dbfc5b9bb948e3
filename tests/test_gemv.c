/* test_gemv.c — clf_sgemv/clf_dgemv against a double-precision host reference on random problems (both
 * layouts and transposes, odd sizes, padded lda, offsets, incx/incy > 1, alpha/beta including beta 0 over
 * NaN, fp64 where offered, forced launch parameters and splits), every invalid-argument path with y
 * checked unchanged, and the gemv tuning family: a tuned entry is stored, reloaded and used by clf_sgemv and
 * thin GEMMs; junk entries are ignored with a warning. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune.h"
#include "gemv.h"
#include "testutil.h"

#define POOL (1u << 22)   /* elements per pool buffer: every case fits with its offsets, padding and strides */

typedef struct pool {
    clf_context *ctx;
    cl_mem a, x, y;
    void *ha, *hx, *hy0, *hy;   /* A, x, y as written; y read back */
} pool;

static void pool_init(pool *p, clf_context *ctx)
{
    p->ctx = ctx;
    p->a = clf_test_buffer(ctx, POOL * 8, NULL);
    p->x = clf_test_buffer(ctx, POOL * 8 / 16, NULL);
    p->y = clf_test_buffer(ctx, POOL * 8 / 16, NULL);
    p->ha = malloc(POOL * 8);
    p->hx = malloc(POOL * 8 / 16);
    p->hy0 = malloc(POOL * 8 / 16);
    p->hy = malloc(POOL * 8 / 16);
    ck_assert(p->ha && p->hx && p->hy0 && p->hy);
}

static void pool_free(pool *p)
{
    clReleaseMemObject(p->a);
    clReleaseMemObject(p->x);
    clReleaseMemObject(p->y);
    free(p->ha);
    free(p->hx);
    free(p->hy0);
    free(p->hy);
}

static double get(const void *h, int f64, size_t i) { return f64 ? ((const double *)h)[i] : ((const float *)h)[i]; }

static size_t pick_dim(uint64_t *s)
{
    static const size_t special[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 255, 256, 257,
                                     511, 1000, 1023, 1024, 1025, 2049, 4096, 4097};
    unsigned r = (unsigned)(clf_test_rand_u64(s) % 100);
    if (r < 30)
        return 1 + clf_test_rand_u64(s) % 40;
    if (r < 80)
        return special[clf_test_rand_u64(s) % (sizeof special / sizeof special[0])];
    return 1 + clf_test_rand_u64(s) % 600;
}

/* Launch parameters that exercise every kernel variant: vector widths 1..16, tiny and wide teams, forced
 * splits (including more slices than fit, and one). */
static const clf__gemv_params forced[] = {
    {.wg = 64, .vw = 1, .lu = 1, .cw = 1, .gpb = 1, .split = 3},
    {.wg = 128, .vw = 2, .lu = 3, .cw = 3, .gpb = 4, .team = 8, .tx = 4},
    {.wg = 256, .vw = 4, .lu = 4, .cw = 1, .gpb = 8, .split = 7},
    {.wg = 32, .vw = 8, .lu = 2, .cw = 2, .gpb = 16, .team = 32, .tx = 32, .split = 1},
    {.wg = 16, .vw = 16, .lu = 8, .cw = 1, .gpb = 2, .split = 100},
    {.wg = 256, .vw = 4, .lu = 4, .cw = 1, .gpb = 64},
    {.wg = 64, .vw = 8, .lu = 4, .cw = 4, .gpb = 4, .team = 1, .tx = 1},
    {.wg = 8, .vw = 4, .lu = 2, .cw = 8, .gpb = 2, .team = 2, .tx = 2, .split = 9},
};

typedef struct vcase {
    int f64, nan_y, forced;   /* forced: index into forced[] + 1, or 0 (public entry point) */
    clf_layout layout;
    clf_transpose ta;
    size_t m, n, lda, a_off, x_off, incx, y_off, incy;
    double alpha, beta;
} vcase;

static void make_case(uint64_t *s, int f64, vcase *c)
{
    memset(c, 0, sizeof *c);
    c->f64 = f64;
    c->layout = clf_test_rand_u64(s) & 1 ? CLF_ROW_MAJOR : CLF_COL_MAJOR;
    c->ta = clf_test_rand_u64(s) & 1 ? CLF_TRANS : CLF_NO_TRANS;
    c->m = pick_dim(s);
    c->n = pick_dim(s);
    while (c->m * c->n > 1500000)
        c->m > c->n ? (c->m = c->m / 2 + 1) : (c->n = c->n / 2 + 1);
    size_t inner = c->layout == CLF_ROW_MAJOR ? c->n : c->m;
    c->lda = inner + (clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 9 : 0);
    c->a_off = clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 17 : 0;
    c->x_off = clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 17 : 0;
    c->y_off = clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 17 : 0;
    c->incx = clf_test_rand_u64(s) % 3 == 0 ? 2 + clf_test_rand_u64(s) % 3 : 1;
    c->incy = clf_test_rand_u64(s) % 3 == 0 ? 2 + clf_test_rand_u64(s) % 3 : 1;
    c->alpha = clf_test_pick_scalar(s, 0);
    c->beta = clf_test_pick_scalar(s, 1);
    c->nan_y = c->beta == 0.0 && clf_test_rand_u64(s) % 2;
    c->forced = clf_test_rand_u64(s) % 3 == 0 ? 1 + (int)(clf_test_rand_u64(s) % (sizeof forced / sizeof forced[0])) : 0;
}

static clf_status run_gemv(pool *p, const vcase *c, cl_event *ev)
{
    if (c->forced) {
        /* The internal entry, as clf_sgemv maps the call onto it (gemv.h). */
        int nt = c->ta == CLF_NO_TRANS;
        return clf__gemv_enqueue_with(p->ctx, &forced[c->forced - 1], c->f64 ? CLF_F64 : CLF_F32,
                                      (c->layout == CLF_ROW_MAJOR) == nt, nt ? c->m : c->n, nt ? c->n : c->m,
                                      c->alpha, p->a, c->a_off, c->lda, p->x, c->x_off, c->incx, c->beta, p->y,
                                      c->y_off, c->incy, ev);
    }
    if (c->f64)
        return clf_dgemv(p->ctx, c->layout, c->ta, c->m, c->n, c->alpha, p->a, c->a_off, c->lda, p->x, c->x_off,
                         c->incx, c->beta, p->y, c->y_off, c->incy, ev);
    return clf_sgemv(p->ctx, c->layout, c->ta, c->m, c->n, (float)c->alpha, p->a, c->a_off, c->lda, p->x, c->x_off,
                     c->incx, (float)c->beta, p->y, c->y_off, c->incy, ev);
}

/* Writes random A, x, y (NaN y when asked) and returns the extents of x and y. */
static void fill_inputs(pool *p, const vcase *c, uint64_t *s, size_t *nx_out, size_t *ny_out)
{
    int f64 = c->f64, nt = c->ta == CLF_NO_TRANS;
    size_t esz = f64 ? 8 : 4, outer = c->layout == CLF_ROW_MAJOR ? c->m : c->n;
    size_t na = c->a_off + (outer - 1) * c->lda + (c->layout == CLF_ROW_MAJOR ? c->n : c->m);
    size_t nx = c->x_off + ((nt ? c->n : c->m) - 1) * c->incx + 1 + 3;   /* + a tail that must stay unread */
    size_t ny = c->y_off + ((nt ? c->m : c->n) - 1) * c->incy + 1 + 3;   /* + a tail that must not change */
    ck_assert(na <= POOL && nx <= POOL / 16 && ny <= POOL / 16);
    if (f64) {
        clf_test_rand_f64(p->ha, na, s);
        clf_test_rand_f64(p->hx, nx, s);
        clf_test_rand_f64(p->hy0, ny, s);
    } else {
        clf_test_rand_f32(p->ha, na, s);
        clf_test_rand_f32(p->hx, nx, s);
        clf_test_rand_f32(p->hy0, ny, s);
    }
    if (c->nan_y)
        for (size_t i = 0; i < ny; i++)
            f64 ? (((double *)p->hy0)[i] = NAN) : (((float *)p->hy0)[i] = NAN);
    cl_command_queue q = clf_context_queue(p->ctx);
    ck_assert_int_eq(clEnqueueWriteBuffer(q, p->a, CL_FALSE, 0, na * esz, p->ha, 0, NULL, NULL), 0);
    ck_assert_int_eq(clEnqueueWriteBuffer(q, p->x, CL_FALSE, 0, nx * esz, p->hx, 0, NULL, NULL), 0);
    ck_assert_int_eq(clEnqueueWriteBuffer(q, p->y, CL_TRUE, 0, ny * esz, p->hy0, 0, NULL, NULL), 0);
    *nx_out = nx;
    *ny_out = ny;
}

/* Compares y's whole extent: the strided entries against the reference, everything between unchanged. */
static int compare(const pool *p, const vcase *c, size_t ny)
{
    int f64 = c->f64, nt = c->ta == CLF_NO_TRANS, row = c->layout == CLF_ROW_MAJOR;
    size_t leny = nt ? c->m : c->n, lenx = nt ? c->n : c->m;
    double u = f64 ? 1.11e-16 : 5.97e-8;
    for (size_t i = 0; i < ny; i++) {
        double was = get(p->hy0, f64, i), now = get(p->hy, f64, i);
        size_t r = (i - c->y_off) / c->incy;
        if (i < c->y_off || (i - c->y_off) % c->incy || r >= leny) {
            if (!(was == now || (isnan(was) && isnan(now)))) {
                fprintf(stderr, "y[%zu] outside the vector changed: %g -> %g\n", i, was, now);
                return 1;
            }
            continue;
        }
        double sum = 0, mag = 0;
        for (size_t j = 0; j < lenx; j++) {
            size_t ri = nt ? r : j, ci = nt ? j : r;   /* element (ri, ci) of the stored m x n matrix */
            double v = get(p->ha, f64, c->a_off + (row ? ri * c->lda + ci : ci * c->lda + ri)) *
                       get(p->hx, f64, c->x_off + j * c->incx);
            sum += v;
            mag += fabs(v);
        }
        double want = c->alpha * sum + (c->beta != 0.0 ? c->beta * was : 0.0);
        double scale = fabs(c->alpha) * mag + (c->beta != 0.0 ? fabs(c->beta * was) : 0.0);
        double tol = 2.0 * (double)(lenx + 4) * u * scale;
        if (!(fabs(now - want) <= tol + 1e-300)) {
            fprintf(stderr, "y[%zu] (entry %zu) = %.10g, want %.10g (tol %.3g)\n", i, r, now, want, tol);
            return 1;
        }
    }
    return 0;
}

/* Runs one case; returns 0 on success, prints the case on failure. */
static int run_case(pool *p, const vcase *c, uint64_t *s)
{
    size_t nx, ny;
    fill_inputs(p, c, s, &nx, &ny);
    cl_event ev = NULL;
    clf_status st = run_gemv(p, c, &ev);
    int bad = 0;
    if (st != CLF_SUCCESS) {
        fprintf(stderr, "gemv failed: %s\n", clf_last_error());
        bad = 1;
    } else {
        ck_assert_msg(ev != NULL, "no event returned");
        ck_assert_int_eq(clWaitForEvents(1, &ev), 0);
        clReleaseEvent(ev);
        clf_test_read(p->ctx, p->y, ny * (c->f64 ? 8 : 4), p->hy);
        bad = compare(p, c, ny);
    }
    if (bad)
        fprintf(stderr, "case: %s %s layout=%d ta=%d m=%zu n=%zu lda=%zu alpha=%g beta=%g off=%zu/%zu/%zu "
                "inc=%zu/%zu nan_y=%d forced=%d\n", c->f64 ? "f64" : "f32", clf_context_device(p->ctx)->name,
                c->layout, c->ta, c->m, c->n, c->lda, c->alpha, c->beta, c->a_off, c->x_off, c->y_off, c->incx,
                c->incy, c->nan_y, c->forced);
    return bad;
}

static int cases_for(clf_context *ctx)
{
    return clf_test_case_count("CLFORGE_GEMV_TEST_CASES",
                               strstr(clf_context_device(ctx)->platform, "Portable") ? 600 : 250);
}

START_TEST(random_cases)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    int failures = 0;
    for (int d = 0; d < nctx; d++) {
        pool p;
        pool_init(&p, ctxs[d]);
        uint64_t seed = (uint64_t)0x452821e638d01377 ^ (uint64_t)d;
        int fp64 = clf_context_device(ctxs[d])->fp64, n = cases_for(ctxs[d]), before = failures;
        for (int t = 0; t < n && failures < 5; t++) {
            vcase c;
            make_case(&seed, fp64 && t % 4 == 3, &c);
            failures += run_case(&p, &c, &seed);
        }
        fprintf(stderr, "gemv: %d random cases on %s, %d failed\n", n, clf_context_device(ctxs[d])->name,
                failures - before);
        pool_free(&p);
    }
    clf_test_contexts_free(ctxs, nctx);
    ck_assert_int_eq(failures, 0);
}
END_TEST

/* The shapes of the issue and their neighbours, through the public entry points, every orientation:
 * one output, one input, long and short vectors, the thin products (m or n <= 16). */
START_TEST(named_shapes)
{
    static const size_t shapes[][2] = {{1, 1}, {1, 4096}, {4096, 1}, {3, 4097}, {4097, 3}, {16, 2049},
                                       {2049, 16}, {1000, 1000}, {17, 1}, {1, 17}};
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    int failures = 0;
    for (int d = 0; d < nctx; d++) {
        pool p;
        pool_init(&p, ctxs[d]);
        uint64_t seed = 99 + (uint64_t)d;
        int fp64 = clf_context_device(ctxs[d])->fp64;
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int o = 0; o < (fp64 ? 8 : 4); o++) {
                vcase c = {.f64 = o >= 4, .layout = o & 1 ? CLF_COL_MAJOR : CLF_ROW_MAJOR,
                           .ta = o & 2 ? CLF_TRANS : CLF_NO_TRANS, .m = shapes[i][0], .n = shapes[i][1],
                           .incx = 1, .incy = 1, .alpha = 1.5, .beta = i % 2 ? 0.0 : -0.5, .nan_y = i % 2};
                c.lda = c.layout == CLF_ROW_MAJOR ? c.n : c.m;
                failures += run_case(&p, &c, &seed);
            }
        pool_free(&p);
    }
    clf_test_contexts_free(ctxs, nctx);
    ck_assert_int_eq(failures, 0);
}
END_TEST

/* ---- thin and tiny GEMMs: the planner sends them to these kernels (NV vectors, batches) --------- */

/* Overrides cycled through the thin cases: every kernel variant with several vectors at once (vector widths,
 * teams, CW, forced splits, the tiny path switched off so that small shapes split and reduce too). THIN=32
 * everywhere but the first: CPU devices keep thin products on the GEMM path by default. */
static const char *const thin_configs[] = {
    NULL, "THIN=32", "THIN=32 TINY=0", "THIN=32 WG=64 VW=1 LU=1 SPLIT=3 TINY=0",
    "THIN=32 WG=128 VW=2 LU=3 CW=3 TEAM=8 TX=4 TINY=0", "THIN=32 WG=32 VW=8 LU=2 CW=2 TEAM=32 TX=32 SPLIT=1",
    "THIN=32 WG=16 VW=16 LU=8 TX=0 SPLIT=100 TINY=0", "THIN=32 WG=64 VW=8 LU=4 CW=4 TEAM=1 TX=1 TINY=0",
    "THIN=32 WG=8 VW=4 LU=2 CW=8 TEAM=2 TX=2 SPLIT=9 TINY=0", "THIN=32 RPT=3 TINY=0",
    "THIN=32 WG=64 VW=2 RPT=4 TEAM=4 LU=3 SPLIT=2 TINY=0", "THIN=32 WG=32 VW=8 RPT=8 TEAM=32 TINY=0",
    /* vectors staged in local memory: runs of one unit, of a few, across slices, and wide */
    "THIN=32 XL=1 WG=32 VW=8 TEAM=8 TX=8 TINY=0", "THIN=32 XL=24 WG=64 VW=2 LU=3 TEAM=4 RPT=2 SPLIT=2 TINY=0",
    "THIN=32 XL=40 WG=16 VW=16 LU=8 TX=0 SPLIT=100 TINY=0", "THIN=32 XL=256 TINY=0",
    "THIN=32 XL=7 WG=64 VW=1 LU=1 CW=3 TEAM=2 TX=4 RPT=3 TINY=0",
    /* gemv_tile: outputs a work-item, blocks, splits, vector widths, groups of one to eight rows of work-items */
    "THIN=32 TM=1 TINY=0", "THIN=32 TM=2 BK=16 WG=64 SPLIT=3 TINY=0", "THIN=32 TM=4 BK=64 WG=128 TINY=0",
    "THIN=32 TM=4 VW=1 SPLIT=2 TINY=0", "THIN=32 TM=2 VW=8 BK=16 WG=32 SPLIT=100 TINY=0", "THIN=32 TM=4 TINY=0",
    "THIN=32 TM=8 WG=64 TINY=0",
};

typedef struct tcase {
    int f64, nan_c, config;
    clf_layout layout;
    clf_transpose ta, tb;
    size_t m, n, k, batch, lda, ldb, ldc, a_off, b_off, c_off, sa, sb, sc;
    double alpha, beta;
} tcase;

/* Stored rows x cols of an operand in the case's layout, and its element (r, c) index. */
static size_t t_at(const tcase *c, size_t ld, size_t r, size_t col)
{
    return c->layout == CLF_ROW_MAJOR ? r * ld + col : col * ld + r;
}

static size_t t_span(const tcase *c, size_t rows, size_t cols, size_t ld)
{
    return c->layout == CLF_ROW_MAJOR ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
}

static size_t t_ld(const tcase *c, uint64_t *s, size_t rows, size_t cols)
{
    size_t inner = c->layout == CLF_ROW_MAJOR ? cols : rows;
    return inner + (clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 7 : 0);
}

static void make_thin(uint64_t *s, int f64, tcase *c)
{
    memset(c, 0, sizeof *c);
    c->f64 = f64;
    c->layout = clf_test_rand_u64(s) & 1 ? CLF_ROW_MAJOR : CLF_COL_MAJOR;
    c->ta = clf_test_rand_u64(s) & 1 ? CLF_TRANS : CLF_NO_TRANS;
    c->tb = clf_test_rand_u64(s) & 1 ? CLF_TRANS : CLF_NO_TRANS;
    size_t few = 1 + clf_test_rand_u64(s) % 32, big = pick_dim(s);
    int tiny = clf_test_rand_u64(s) % 5 == 0;   /* both sides small: the tiny path */
    if (tiny)
        big = 1 + clf_test_rand_u64(s) % 33;
    c->m = clf_test_rand_u64(s) & 1 ? few : big;
    c->n = c->m == few ? big : few;
    if (tiny)   /* both sides up to 33: up to 32 vectors in one launch */
        c->m = 1 + clf_test_rand_u64(s) % 33;
    c->k = tiny ? 1 + clf_test_rand_u64(s) % 33 : pick_dim(s);
    while (big * c->k > 600000)
        c->k = c->k / 2 + 1;
    c->batch = clf_test_rand_u64(s) % 4 == 0 ? 2 + clf_test_rand_u64(s) % 2 : 1;
    size_t ar = c->ta == CLF_NO_TRANS ? c->m : c->k, ac = c->ta == CLF_NO_TRANS ? c->k : c->m;
    size_t br = c->tb == CLF_NO_TRANS ? c->k : c->n, bc = c->tb == CLF_NO_TRANS ? c->n : c->k;
    c->lda = t_ld(c, s, ar, ac);
    c->ldb = t_ld(c, s, br, bc);
    c->ldc = t_ld(c, s, c->m, c->n);
    c->a_off = clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 17 : 0;
    c->b_off = clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 17 : 0;
    c->c_off = clf_test_rand_u64(s) % 3 == 0 ? clf_test_rand_u64(s) % 17 : 0;
    c->sa = t_span(c, ar, ac, c->lda) + clf_test_rand_u64(s) % 5;
    c->sb = t_span(c, br, bc, c->ldb) + clf_test_rand_u64(s) % 5;
    c->sc = t_span(c, c->m, c->n, c->ldc) + clf_test_rand_u64(s) % 5;
    c->alpha = clf_test_pick_scalar(s, 0);
    if (c->alpha == 0.0)
        c->alpha = -1.25;   /* alpha 0 never reaches the kernels: the plain gemv cases cover it */
    c->beta = clf_test_pick_scalar(s, 1);
    c->nan_c = c->beta == 0.0 && clf_test_rand_u64(s) % 2;
    c->config = (int)(clf_test_rand_u64(s) % (sizeof thin_configs / sizeof thin_configs[0]));
}

static clf_status run_thin(clf_context *ctx, const tcase *c, cl_mem a, cl_mem b, cl_mem cc, cl_event *ev)
{
    if (c->f64)
        return clf_dgemm_batched_strided(ctx, c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, a, c->a_off, c->lda,
                                         c->sa, b, c->b_off, c->ldb, c->sb, c->beta, cc, c->c_off, c->ldc, c->sc,
                                         c->batch, ev);
    if (c->batch == 1)
        return clf_sgemm(ctx, c->layout, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, a, c->a_off, c->lda, b,
                         c->b_off, c->ldb, (float)c->beta, cc, c->c_off, c->ldc, ev);
    return clf_sgemm_batched_strided(ctx, c->layout, c->ta, c->tb, c->m, c->n, c->k, (float)c->alpha, a, c->a_off,
                                     c->lda, c->sa, b, c->b_off, c->ldb, c->sb, (float)c->beta, cc, c->c_off, c->ldc,
                                     c->sc, c->batch, ev);
}

/* Element (i, j) of op(A) and op(B) of matrix q, from the host copies. */
static double op_a(const tcase *c, const void *h, size_t q, size_t i, size_t j)
{
    size_t r = c->ta == CLF_NO_TRANS ? i : j, col = c->ta == CLF_NO_TRANS ? j : i;
    return get(h, c->f64, c->a_off + q * c->sa + t_at(c, c->lda, r, col));
}

static double op_b(const tcase *c, const void *h, size_t q, size_t i, size_t j)
{
    size_t r = c->tb == CLF_NO_TRANS ? i : j, col = c->tb == CLF_NO_TRANS ? j : i;
    return get(h, c->f64, c->b_off + q * c->sb + t_at(c, c->ldb, r, col));
}

/* C's whole extent: every element of every matrix against the reference, everything between unchanged. */
static int thin_compare(const tcase *c, const void *ha, const void *hb, const void *c0, const void *c1, size_t nc)
{
    double u = c->f64 ? 1.11e-16 : 5.97e-8;
    char *mine = calloc(nc, 1);
    ck_assert_ptr_nonnull(mine);
    int bad = 0;
    for (size_t q = 0; q < c->batch && !bad; q++)
        for (size_t i = 0; i < c->m && !bad; i++)
            for (size_t j = 0; j < c->n && !bad; j++) {
                size_t at = c->c_off + q * c->sc + t_at(c, c->ldc, i, j);
                double sum = 0, mag = 0, was = get(c0, c->f64, at), now = get(c1, c->f64, at);
                for (size_t l = 0; l < c->k; l++) {
                    double v = op_a(c, ha, q, i, l) * op_b(c, hb, q, l, j);
                    sum += v;
                    mag += fabs(v);
                }
                double want = c->alpha * sum + (c->beta != 0.0 ? c->beta * was : 0.0);
                double old = c->beta != 0.0 ? fabs(c->beta * was) : 0.0;   /* beta 0: NaN there is not read */
                double tol = 2.0 * (double)(c->k + 4) * u * (fabs(c->alpha) * mag + old);
                mine[at] = 1;
                if (!(fabs(now - want) <= tol + 1e-300)) {
                    fprintf(stderr, "C[%zu] (matrix %zu, %zu, %zu) = %.10g, want %.10g\n", at, q, i, j, now, want);
                    bad = 1;
                }
            }
    for (size_t i = 0; i < nc && !bad; i++) {
        double was = get(c0, c->f64, i), now = get(c1, c->f64, i);
        if (!mine[i] && !(was == now || (isnan(was) && isnan(now)))) {
            fprintf(stderr, "C[%zu] outside every matrix changed: %g -> %g\n", i, was, now);
            bad = 1;
        }
    }
    free(mine);
    return bad;
}

static int thin_case(clf_context *ctx, const tcase *c, uint64_t *s)
{
    size_t esz = c->f64 ? 8 : 4, na = c->a_off + c->batch * c->sa, nb = c->b_off + c->batch * c->sb;
    size_t nc = c->c_off + c->batch * c->sc + 3;
    void *ha = malloc(na * esz), *hb = malloc(nb * esz), *c0 = malloc(nc * esz), *c1 = malloc(nc * esz);
    ck_assert(ha && hb && c0 && c1);
    c->f64 ? clf_test_rand_f64(ha, na, s) : clf_test_rand_f32(ha, na, s);
    c->f64 ? clf_test_rand_f64(hb, nb, s) : clf_test_rand_f32(hb, nb, s);
    c->f64 ? clf_test_rand_f64(c0, nc, s) : clf_test_rand_f32(c0, nc, s);
    for (size_t i = 0; c->nan_c && i < nc; i++)
        c->f64 ? (((double *)c0)[i] = NAN) : (((float *)c0)[i] = NAN);
    cl_mem a = clf_test_buffer(ctx, na * esz, ha), b = clf_test_buffer(ctx, nb * esz, hb);
    cl_mem cc = clf_test_buffer(ctx, nc * esz, c0);
    if (thin_configs[c->config])
        setenv("CLFORGE_GEMV_CONFIG", thin_configs[c->config], 1);
    clf_status st = run_thin(ctx, c, a, b, cc, NULL);
    unsetenv("CLFORGE_GEMV_CONFIG");
    int bad = st != CLF_SUCCESS;
    if (bad)
        fprintf(stderr, "thin gemm failed: %s\n", clf_last_error());
    else {
        clf_test_read(ctx, cc, nc * esz, c1);
        bad = thin_compare(c, ha, hb, c0, c1, nc);
    }
    if (bad)
        fprintf(stderr, "thin case: %s %s layout=%d ta=%d tb=%d m=%zu n=%zu k=%zu batch=%zu ld=%zu/%zu/%zu "
                "off=%zu/%zu/%zu alpha=%g beta=%g nan_c=%d config=\"%s\"\n", c->f64 ? "f64" : "f32",
                clf_context_device(ctx)->name, c->layout, c->ta, c->tb, c->m, c->n, c->k, c->batch, c->lda, c->ldb,
                c->ldc, c->a_off, c->b_off, c->c_off, c->alpha, c->beta, c->nan_c,
                thin_configs[c->config] ? thin_configs[c->config] : "");
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(cc);
    free(ha), free(hb), free(c0), free(c1);
    return bad;
}

START_TEST(thin_gemm)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    int failures = 0;
    for (int d = 0; d < nctx; d++) {
        uint64_t seed = (uint64_t)0x9e3779b97f4a7c15 ^ (uint64_t)d;
        int fp64 = clf_context_device(ctxs[d])->fp64, n = cases_for(ctxs[d]) / 4, before = failures;
        for (int t = 0; t < n && failures < 5; t++) {
            tcase c;
            make_thin(&seed, fp64 && t % 4 == 3, &c);
            failures += thin_case(ctxs[d], &c, &seed);
        }
        fprintf(stderr, "thin gemm: %d random cases on %s, %d failed\n", n, clf_context_device(ctxs[d])->name,
                failures - before);
    }
    clf_test_contexts_free(ctxs, nctx);
    ck_assert_int_eq(failures, 0);
}
END_TEST

/* gemv_tile under each of its configurations in thin_configs (those naming TM), on random thin products of
 * 1 to 32 vectors in every layout, transposition, batch and offset. */
START_TEST(thin_tile)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    int failures = 0, nconf = (int)(sizeof thin_configs / sizeof thin_configs[0]), tiled = 0;
    for (int d = 0; d < nctx; d++) {
        uint64_t seed = (uint64_t)0x3c6ef372fe94f82b ^ (uint64_t)d;
        int fp64 = clf_context_device(ctxs[d])->fp64, n = cases_for(ctxs[d]) / 100 + 1, before = failures;
        for (int cf = 0; cf < nconf; cf++) {
            if (!thin_configs[cf] || !strstr(thin_configs[cf], "TM="))
                continue;
            tiled++;
            for (int t = 0; t < n && failures < 5; t++) {
                tcase c;
                make_thin(&seed, fp64 && t % 4 == 3, &c);
                c.config = cf;
                failures += thin_case(ctxs[d], &c, &seed);
            }
        }
        fprintf(stderr, "thin tile: %d random cases a configuration on %s, %d failed\n", n,
                clf_context_device(ctxs[d])->name, failures - before);
    }
    clf_test_contexts_free(ctxs, nctx);
    ck_assert_int_gt(tiled, 0);
    ck_assert_int_eq(failures, 0);
}
END_TEST

/* ---- invalid arguments: each returns the expected status and leaves y untouched ------------- */

#define SMALL 64   /* elements in the small buffers below */

typedef struct argenv {
    clf_context *ctx;
    cl_mem a, x, y, big;
    float y0[SMALL];
} argenv;

static void expect_unchanged(argenv *e, clf_status got, clf_status want, const char *what)
{
    ck_assert_msg(got == want, "%s: status %d (%s), want %d", what, got, clf_last_error(), want);
    if (want != CLF_SUCCESS)
        ck_assert_msg(strlen(clf_last_error()) > 0, "%s: no message", what);
    clf_finish(e->ctx);
    float now[SMALL];
    clf_test_read(e->ctx, e->y, sizeof now, now);
    ck_assert_msg(memcmp(now, e->y0, sizeof now) == 0, "%s: y changed", what);
}

#define R CLF_ROW_MAJOR
#define CM CLF_COL_MAJOR
#define N CLF_NO_TRANS
#define T CLF_TRANS
#define BAD CLF_ERR_INVALID_ARG

static void bad_shapes(argenv *e)
{
    clf_context *x = e->ctx;
    const size_t H = (size_t)1 << 62;
    cl_event ev = (cl_event)1;
    expect_unchanged(e, clf_sgemv(NULL, R, N, 8, 8, 1, e->a, 0, 8, e->x, 0, 1, 0, e->y, 0, 1, &ev), BAD, "ctx NULL");
    ck_assert_ptr_null(ev);
    expect_unchanged(e, clf_sgemv(x, (clf_layout)7, N, 8, 8, 1, e->a, 0, 8, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD,
                     "layout");
    expect_unchanged(e, clf_sgemv(x, R, (clf_transpose)7, 8, 8, 1, e->a, 0, 8, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD,
                     "ta");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 7, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD, "row lda < n");
    expect_unchanged(e, clf_sgemv(x, CM, N, 8, 8, 1, e->a, 0, 7, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD, "col lda < m");
    expect_unchanged(e, clf_sgemv(x, R, N, 0, 8, 1, NULL, 0, 0, NULL, 0, 1, 0, NULL, 0, 1, NULL), BAD,
                     "lda 0 with m 0");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, e->x, 0, 0, 0, e->y, 0, 1, NULL), BAD, "incx 0");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, e->x, 0, 1, 0, e->y, 0, 0, NULL), BAD, "incy 0");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, e->x, 0, (size_t)-1, 0, e->y, 0, 1, NULL), BAD,
                     "incx -1");
    ck_assert_ptr_nonnull(strstr(clf_last_error(), "positive"));
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, e->x, 0, 1, 0, e->y, 0, (size_t)-2, NULL), BAD,
                     "incy -2");
    expect_unchanged(e, clf_sgemv(x, R, N, 9, 8, 1, e->big, 0, 8, e->x, 0, 1, 0, e->y, 0, 8, NULL), BAD,
                     "y too long (m 9, incy 8)");
    expect_unchanged(e, clf_sgemv(x, R, T, 8, 9, 1, e->big, 0, 9, e->x, 0, 10, 0, e->y, 0, 1, NULL), BAD,
                     "x too long (m 8, incx 10)");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 1, 8, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD,
                     "A offset out of buffer");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 9, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD,
                     "padded lda beyond A");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, e->x, SMALL - 7, 1, 0, e->y, 0, 1, NULL), BAD,
                     "x offset");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, e->x, 0, 1, 0, e->y, SMALL - 7, 1, NULL), BAD,
                     "y offset");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, H, 8, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD,
                     "A offset overflow");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, H, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD, "lda overflow");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, e->x, 0, H, 0, e->y, 0, 1, NULL), BAD, "incx overflow");
    expect_unchanged(e, clf_sgemv(x, R, N, H, 8, 1, e->a, 0, 8, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD, "m huge");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, (size_t)1 << 31, 1, e->a, 0, (size_t)1 << 31, e->x, 0, 1, 0, e->y, 0,
                     1, NULL), BAD, "n huge");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, NULL, 0, 8, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD, "A NULL");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, NULL, 0, 1, 0, e->y, 0, 1, NULL), BAD, "x NULL");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, e->x, 0, 1, 0, NULL, 0, 1, NULL), BAD, "y NULL");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 0, NULL, 0, 8, NULL, 0, 1, 0, NULL, 0, 1, NULL), BAD,
                     "alpha 0: y NULL");
    if (!clf_context_device(x)->fp64)
        expect_unchanged(e, clf_dgemv(x, R, N, 4, 4, 1, e->a, 0, 4, e->x, 0, 1, 0, e->y, 0, 1, NULL),
                         CLF_ERR_UNSUPPORTED, "dgemv without fp64");
    else
        expect_unchanged(e, clf_dgemv(x, R, N, 8, 8, 1, e->a, 0, 8, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD,
                         "dgemv: A too small for doubles");
    setenv("CLFORGE_GEMV_CONFIG", "WG=48", 1);
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD, "override WG");
    setenv("CLFORGE_GEMV_CONFIG", "VW=4 FOO=1", 1);
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD, "override name");
    unsetenv("CLFORGE_GEMV_CONFIG");
}

static void bad_buffers(argenv *e)
{
    clf_context *x = e->ctx;
    /* y overlapping A or x (same buffer, or sub-buffers of one), a read-only y, another context's buffers. */
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->y, 0, 8, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD, "y inside A");
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, e->y, 0, 1, 0, e->y, 4, 1, NULL), BAD, "y overlaps x");
    expect_unchanged(e, clf_sgemv(x, R, N, 4, 4, 1, e->big, 0, 4, e->x, 0, 1, 0, e->big, 15, 1, NULL), BAD,
                     "y overlaps A's end");
    cl_int err;
    cl_buffer_region r1 = {0, 8192}, r2 = {4096, 8192};
    cl_mem s1 = clCreateSubBuffer(e->big, 0, CL_BUFFER_CREATE_TYPE_REGION, &r1, &err);
    cl_mem s2 = s1 ? clCreateSubBuffer(e->big, 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err) : NULL;
    if (s1 && s2)   /* a device whose sub-buffer alignment exceeds 4096 bytes skips this one */
        expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, s1, 1025, 1, 0, s2, 0, 1, NULL), BAD,
                         "y overlaps x through sub-buffers");
    if (s2)
        clReleaseMemObject(s2);
    if (s1)
        clReleaseMemObject(s1);
    cl_mem ro = clCreateBuffer(clf_context_cl(x), CL_MEM_READ_ONLY, sizeof e->y0, NULL, &err);
    ck_assert_ptr_nonnull(ro);
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, e->x, 0, 1, 0, ro, 0, 1, NULL), BAD, "read-only y");
    clReleaseMemObject(ro);
    cl_device_id dev;
    ck_assert_int_eq(clGetContextInfo(clf_context_cl(x), CL_CONTEXT_DEVICES, sizeof dev, &dev, NULL), CL_SUCCESS);
    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    ck_assert_ptr_nonnull(other);
    cl_mem fa = clCreateBuffer(other, CL_MEM_READ_WRITE, sizeof e->y0, NULL, &err);
    ck_assert_ptr_nonnull(fa);
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, fa, 0, 8, e->x, 0, 1, 0, e->y, 0, 1, NULL), BAD,
                     "A of another context");
    ck_assert_ptr_nonnull(strstr(clf_last_error(), "another OpenCL context"));
    expect_unchanged(e, clf_sgemv(x, R, N, 8, 8, 1, e->a, 0, 8, fa, 0, 1, 0, e->y, 0, 1, NULL), BAD,
                     "x of another context");
    clReleaseMemObject(fa);
    clReleaseContext(other);
}

/* Valid corner cases: nothing to do (an event still comes back), and y = beta*y without reading A or x. */
static void corner_cases(argenv *e)
{
    clf_context *x = e->ctx;
    cl_event ev = NULL;
    expect_unchanged(e, clf_sgemv(x, R, N, 0, 8, 1, NULL, 0, 8, NULL, 0, 1, 0, NULL, 0, 1, &ev), CLF_SUCCESS, "m = 0");
    ck_assert_ptr_nonnull(ev);
    clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
    expect_unchanged(e, clf_sgemv(x, CM, N, 8, 0, 1, NULL, 0, 8, NULL, 0, 1, 0, e->y, 0, 1, NULL), CLF_SUCCESS,
                     "n = 0 leaves y (length m) alone");
    expect_unchanged(e, clf_sgemv(x, R, T, 8, 8, 0, NULL, 0, 8, NULL, 0, 1, 1, NULL, 0, 1, NULL), CLF_SUCCESS,
                     "alpha 0, beta 1: nothing referenced");
    float nan_a[SMALL], now[SMALL];
    for (int i = 0; i < SMALL; i++)
        nan_a[i] = NAN;
    cl_mem an = clf_test_buffer(x, sizeof nan_a, nan_a);
    ck_assert_int_eq(clf_sgemv(x, R, N, 8, 8, 0, an, 0, 8, an, 0, 1, -2, e->y, 0, 1, NULL), CLF_SUCCESS);
    clf_test_read(x, e->y, sizeof now, now);
    for (int i = 0; i < SMALL; i++) {
        float want = i < 8 ? -2 * e->y0[i] : e->y0[i];
        ck_assert_msg(now[i] == want, "alpha 0: y[%d] = %g, want %g", i, now[i], want);
    }
    clf_test_read(x, e->y, sizeof e->y0, e->y0);
    ck_assert_int_eq(clf_sgemv(x, CM, T, 8, 8, 0, NULL, 0, 8, NULL, 0, 1, 0, e->y, 1, 3, NULL), CLF_SUCCESS);
    clf_test_read(x, e->y, sizeof now, now);
    for (int i = 0; i < SMALL; i++) {
        float want = i >= 1 && i <= 22 && (i - 1) % 3 == 0 ? 0.0f : e->y0[i];
        ck_assert_msg(now[i] == want, "alpha 0, beta 0, incy 3: y[%d] = %g, want %g", i, now[i], want);
    }
    clReleaseMemObject(an);
}

START_TEST(invalid_arguments)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    for (int d = 0; d < nctx; d++) {
        argenv e = {.ctx = ctxs[d]};
        uint64_t seed = 7;
        clf_test_rand_f32(e.y0, SMALL, &seed);
        float ax[SMALL];
        clf_test_rand_f32(ax, SMALL, &seed);
        e.a = clf_test_buffer(e.ctx, sizeof ax, ax);
        e.x = clf_test_buffer(e.ctx, sizeof ax, ax);
        e.y = clf_test_buffer(e.ctx, sizeof e.y0, e.y0);
        e.big = clf_test_buffer(e.ctx, 16384, NULL);
        bad_shapes(&e);
        bad_buffers(&e);
        corner_cases(&e);
        clReleaseMemObject(e.a);
        clReleaseMemObject(e.x);
        clReleaseMemObject(e.y);
        clReleaseMemObject(e.big);
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* Launch parameters: the defaults by device type and precision, the CLFORGE_GEMV_CONFIG override and
 * its validation. */
START_TEST(params_and_plans)
{
    clf_device_info gpu = {.type = CL_DEVICE_TYPE_GPU, .max_work_group = 1024, .local_mem = 49152,
                           .compute_units = 132};
    clf__gemv_params p;
    ck_assert_int_eq(clf__gemv_params_get(&gpu, CLF_F32, &p), CLF_SUCCESS);
    ck_assert_int_eq(p.wg, 256);
    ck_assert_int_eq(p.vw, 4);
    ck_assert_int_eq(clf__gemv_params_get(&gpu, CLF_F64, &p), CLF_SUCCESS);
    ck_assert_int_eq(p.vw, 2);
    /* Buckets by the number of vectors: 1, 2..8, 9 and more; the wide rows share loads over more lines. */
    ck_assert_str_eq(clf__gemv_bucket(1, 1), "rows");
    ck_assert_str_eq(clf__gemv_bucket(0, 1), "cols");
    ck_assert_str_eq(clf__gemv_bucket(1, 2), "thin_rows");
    ck_assert_str_eq(clf__gemv_bucket(0, 8), "thin_cols");
    ck_assert_str_eq(clf__gemv_bucket(1, 9), "wide_rows");
    ck_assert_str_eq(clf__gemv_bucket(0, 32), "wide_cols");
    clf__config thin_h, wide_h;
    clf__family_gemv.default_config(&gpu, CLF_F32, "thin_rows", &thin_h);
    clf__family_gemv.default_config(&gpu, CLF_F32, "wide_rows", &wide_h);
    ck_assert_int_eq(thin_h.v[CLF__GV_RPT], 2);
    ck_assert_int_eq(wide_h.v[CLF__GV_RPT], 4);
    /* Several vectors on GPUs run gemv_tile (TM 2, 128 work-items); one vector, and CPUs, the other kernels. */
    clf__config one_h, cols_h, cpu_h;
    clf__family_gemv.default_config(&gpu, CLF_F32, "rows", &one_h);
    clf__family_gemv.default_config(&gpu, CLF_F64, "wide_cols", &cols_h);
    ck_assert(thin_h.v[CLF__GV_TM] == 2 && thin_h.v[CLF__GV_WG] == 128 && cols_h.v[CLF__GV_TM] == 2);
    ck_assert_int_eq(one_h.v[CLF__GV_TM], 0);
    setenv("CLFORGE_GEMV_CONFIG", "WG=128 VW=8 LU=2 CW=3 SPLIT=5", 1);
    ck_assert_int_eq(clf__gemv_params_get(&gpu, CLF_F32, &p), CLF_SUCCESS);
    ck_assert(p.wg == 128 && p.vw == 8 && p.lu == 2 && p.cw == 3 && p.split == 5);
    clf_device_info cpu = {.type = CL_DEVICE_TYPE_CPU, .max_work_group = 4096, .local_mem = 65536, .compute_units = 2};
    unsetenv("CLFORGE_GEMV_CONFIG");
    ck_assert_int_eq(clf__gemv_params_get(&cpu, CLF_F64, &p), CLF_SUCCESS);
    ck_assert(p.team == 1 && p.tx == 1 && p.vw == 4);
    clf__family_gemv.default_config(&cpu, CLF_F32, "wide_rows", &cpu_h);
    ck_assert_int_eq(cpu_h.v[CLF__GV_TM], 0);
    const char *bad_tile[] = {"TM=3", "TM=16", "TM=-1", "BK=48", "BK=8", "BK=128"};
    for (size_t i = 0; i < sizeof bad_tile / sizeof bad_tile[0]; i++) {
        setenv("CLFORGE_GEMV_CONFIG", bad_tile[i], 1);
        ck_assert_msg(clf__gemv_params_get(&gpu, CLF_F32, &p) == CLF_ERR_INVALID_ARG, "%s accepted", bad_tile[i]);
    }
    setenv("CLFORGE_GEMV_CONFIG", "TM=8 BK=64", 1);
    ck_assert_int_eq(clf__gemv_params_get(&gpu, CLF_F32, &p), CLF_SUCCESS);
    ck_assert(p.tm == 8 && p.bk == 64);
    setenv("CLFORGE_GEMV_CONFIG", "CW=65", 1);
    ck_assert_int_eq(clf__gemv_params_get(&gpu, CLF_F32, &p), CLF_ERR_INVALID_ARG);
    setenv("CLFORGE_GEMV_CONFIG", "WG=2048", 1);
    ck_assert_int_eq(clf__gemv_params_get(&gpu, CLF_F32, &p), CLF_ERR_INVALID_ARG);
    setenv("CLFORGE_GEMV_CONFIG", "VW=3", 1);
    ck_assert_int_eq(clf__gemv_params_get(&gpu, CLF_F32, &p), CLF_ERR_INVALID_ARG);
    setenv("CLFORGE_GEMV_CONFIG", "XL=4097", 1);   /* the staging length: 0..4096 */
    ck_assert_int_eq(clf__gemv_params_get(&gpu, CLF_F32, &p), CLF_ERR_INVALID_ARG);
    setenv("CLFORGE_GEMV_CONFIG", "XL=-1", 1);
    ck_assert_int_eq(clf__gemv_params_get(&gpu, CLF_F32, &p), CLF_ERR_INVALID_ARG);
    setenv("CLFORGE_GEMV_CONFIG", "XL=100", 1);
    ck_assert_int_eq(clf__gemv_params_get(&gpu, CLF_F32, &p), CLF_SUCCESS);
    ck_assert_int_eq(p.xl, 100);
    unsetenv("CLFORGE_GEMV_CONFIG");
}
END_TEST

/* ---- the gemv tuning family ------------------------------------------------------------------ */

/* A context on d with the cache directory dir (emptied first when fresh). */
static clf_context *ctx_in(const clf_device_info *d, const char *dir, int fresh)
{
    char sel[32], cmd[2600];
    snprintf(sel, sizeof sel, "%d:%d", d->platform_index, d->device_index);
    if (fresh)
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    else
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    clf_context_options opt = {.device = sel, .cache_dir = dir};
    clf_context *ctx = NULL;
    ck_assert_msg(clf_context_create(&opt, &ctx) == CLF_SUCCESS, "%s", clf_last_error());
    return ctx;
}

/* Programs this context did not find in its memory cache: a new set of kernel options shows up here. */
static unsigned long misses(clf_context *ctx)
{
    clf_cache_stats st;
    ck_assert_int_eq(clf_context_cache_stats(ctx, &st), CLF_SUCCESS);
    return st.compiles + st.disk_hits;
}

/* "WG=.. VW=.. ..." of p's tuned parameters: as CLFORGE_GEMV_CONFIG, it pins the kernels to p. */
static void params_text(const clf__gemv_params *p, char *out, size_t cap)
{
    snprintf(out, cap, "WG=%d VW=%d LU=%d GPB=%d TEAM=%d TX=%d CW=%d RPT=%d XL=%d", p->wg, p->vw, p->lu, p->gpb,
             p->team, p->tx, p->cw, p->rpt, p->xl);
}

static void store_entry(clf_context *ctx, const char *bucket, json_t *entry)
{
    char section[160];
    clf__tunedb_entry_path("gemv", "f32", bucket, section, sizeof section);
    ck_assert_msg(clf__tunedb_store(ctx, section, entry) == CLF_SUCCESS, "%s", clf_last_error());
}

/* y = A x for A rows x cols row-major (NoTrans: the rows bucket), checked against the host. */
static void sgemv_checked(clf_context *ctx, size_t rows, size_t cols)
{
    float *a = malloc(rows * cols * sizeof *a), *x = malloc(cols * sizeof *x), *y = malloc(rows * sizeof *y);
    ck_assert(a && x && y);
    uint64_t seed = 11;
    clf_test_rand_f32(a, rows * cols, &seed);
    clf_test_rand_f32(x, cols, &seed);
    cl_mem da = clf_test_buffer(ctx, rows * cols * sizeof *a, a), dx = clf_test_buffer(ctx, cols * sizeof *x, x);
    cl_mem dy = clf_test_buffer(ctx, rows * sizeof *y, NULL);
    ck_assert_msg(clf_sgemv(ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, rows, cols, 1.0f, da, 0, cols, dx, 0, 1, 0.0f, dy, 0, 1,
                            NULL) == CLF_SUCCESS, "%s", clf_last_error());
    clf_test_read(ctx, dy, rows * sizeof *y, y);
    for (size_t i = 0; i < rows; i++) {
        double ref = 0, mag = 0;
        for (size_t j = 0; j < cols; j++) {
            ref += (double)a[i * cols + j] * x[j];
            mag += fabs((double)a[i * cols + j] * x[j]);
        }
        ck_assert_msg(fabs(y[i] - ref) <= 1e-5 * mag + 1e-6, "y[%zu] = %g, expected %g", i, y[i], ref);
    }
    clReleaseMemObject(da), clReleaseMemObject(dx), clReleaseMemObject(dy);
    free(a), free(x), free(y);
}

/* A tiny 64 x 4 x 64 product (on the gemv kernels on every device: thin_rows, 4 vectors). */
static void tiny_sgemm(clf_context *ctx)
{
    enum { TM = 64, TN = 4, TK = 64 };
    float a[TM * TK], b[TK * TN], c[TM * TN];
    uint64_t seed = 5;
    clf_test_rand_f32(a, TM * TK, &seed);
    clf_test_rand_f32(b, TK * TN, &seed);
    cl_mem da = clf_test_buffer(ctx, sizeof a, a), db = clf_test_buffer(ctx, sizeof b, b);
    cl_mem dc = clf_test_buffer(ctx, sizeof c, NULL);
    ck_assert_msg(clf_sgemm(ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, TM, TN, TK, 1.0f, da, 0, TK, db, 0, TN,
                            0.0f, dc, 0, TN, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    clf_test_read(ctx, dc, sizeof c, c);
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++) {
            double ref = 0;
            for (int p = 0; p < TK; p++)
                ref += (double)a[i * TK + p] * b[p * TN + j];
            ck_assert_msg(fabs(c[i * TN + j] - ref) <= 1e-4, "C[%d][%d] = %g, expected %g", i, j, c[i * TN + j], ref);
        }
    clReleaseMemObject(da), clReleaseMemObject(db), clReleaseMemObject(dc);
}

/* run(ctx) builds nothing new when CLFORGE_GEMV_CONFIG pins the kernels to `want`, and builds a new program when
 * it pins them to the heuristic: so the call before ran with `want`. */
static void ran_with(clf_context *ctx, const clf__gemv_params *want, void (*run)(clf_context *), const char *what)
{
    char text[160];
    params_text(want, text, sizeof text);
    setenv("CLFORGE_GEMV_CONFIG", text, 1);
    unsigned long before = misses(ctx);
    run(ctx);
    ck_assert_msg(misses(ctx) == before, "%s did not run with the tuned configuration (%s): pinning it built a "
                  "new program", what, text);
    clf__gemv_params def;
    unsetenv("CLFORGE_GEMV_CONFIG");
    ck_assert_int_eq(clf__gemv_params_get(clf_context_device(ctx), CLF_F32, &def), CLF_SUCCESS);
    params_text(&def, text, sizeof text);
    setenv("CLFORGE_GEMV_CONFIG", text, 1);
    run(ctx);
    ck_assert_msg(misses(ctx) > before, "%s: the heuristic's configuration (%s) built nothing new; the check "
                  "cannot tell configurations apart", what, text);
    unsetenv("CLFORGE_GEMV_CONFIG");
}

static void sgemv_300x1000(clf_context *ctx) { sgemv_checked(ctx, 300, 1000); }

/* The tuner stores a verified winner per bucket; the entry survives a new context; clf_sgemv and a thin GEMM
 * run with the tuned configuration of their bucket. */
START_TEST(tuned_entry_is_stored_and_used)
{
    clf_device_info *devs;
    int nd = clf_test_devices(&devs);
    unsetenv("CLFORGE_GEMV_CONFIG");
    for (int d = 0; d < nd; d++) {
        char cache[1200];
        snprintf(cache, sizeof cache, "%s/gemv-tune-%d", clf_test_tmpdir(), d);
        clf_context *ctx = ctx_in(&devs[d], cache, 1);
        const clf__family *fams[] = {&clf__family_gemv, NULL};
        clf_dtype f32 = CLF_F32;
        clf_tune_options o = {.budget_seconds = 0.5, .quiet = 1};
        clf_tune_report *r = calloc(1, sizeof *r);
        ck_assert_msg(clf__tune_families(ctx, fams, &f32, 1, "rows,thin_cols", &o, r) == CLF_SUCCESS, "%s",
                      clf_last_error());
        ck_assert_int_eq(r->count, 2);
        json_t *db = clf_test_load_tunedb(ctx);
        for (int i = 0; i < r->count; i++) {
            char cfg[256], origin[16], section[160];
            ck_assert_msg(r->entries[i].config[0], "%s: nothing found for %s", devs[d].name, r->entries[i].bucket);
            clf__tunedb_entry_path("gemv", "f32", r->entries[i].bucket, section, sizeof section);
            json_t *e = json_object_get(clf__tunedb_get(db, section), "config");
            ck_assert_msg(json_is_string(e), "no database entry %s", section);
            ck_assert_str_eq(json_string_value(e), r->entries[i].config);
            ck_assert_int_eq(clf_config_in_use(ctx, "gemv", "f32", r->entries[i].bucket, cfg, sizeof cfg, origin,
                                               sizeof origin), CLF_SUCCESS);
            ck_assert_str_eq(origin, "tuned");
            ck_assert_str_eq(cfg, r->entries[i].config);
        }
        json_decref(db);
        free(r);
        /* Entries no heuristic would choose, so that using them is visible. */
        store_entry(ctx, "rows", json_pack("{s:s}", "config", "WG=32 VW=1 LU=3 GPB=2 TEAM=8 TX=0 CW=3 RPT=2"));
        store_entry(ctx, "thin_rows", json_pack("{s:s}", "config", "WG=32 VW=2 LU=6 GPB=1 TEAM=4 TX=2 CW=1 RPT=2"));
        clf_context_destroy(ctx);
        ctx = ctx_in(&devs[d], cache, 0);   /* reloaded from the file */
        clf__gemv_params p, q;
        const char *origin = NULL;
        ck_assert_int_eq(clf__gemv_params_for(ctx, CLF_F32, "rows", &p, &origin), CLF_SUCCESS);
        ck_assert_str_eq(origin, "tuned");
        ck_assert(p.wg == 32 && p.vw == 1 && p.lu == 3 && p.gpb == 2 && p.team == 8 && p.cw == 3 && p.rpt == 2);
        ck_assert_int_eq(clf__gemv_params_for(ctx, CLF_F32, "thin_rows", &q, &origin), CLF_SUCCESS);
        ck_assert(q.vw == 2 && q.lu == 6 && q.team == 4);
        sgemv_300x1000(ctx);
        ran_with(ctx, &p, sgemv_300x1000, "clf_sgemv");
        tiny_sgemm(ctx);
        ran_with(ctx, &q, tiny_sgemm, "a thin clf_sgemm");
        /* the variable still overrides the database */
        setenv("CLFORGE_GEMV_CONFIG", "VW=4 SPLIT=3", 1);
        ck_assert_int_eq(clf__gemv_params_for(ctx, CLF_F32, "rows", &p, &origin), CLF_SUCCESS);
        ck_assert_str_eq(origin, "override");
        ck_assert(p.vw == 4 && p.split == 3 && p.lu == 3);
        unsetenv("CLFORGE_GEMV_CONFIG");
        clf_context_destroy(ctx);
    }
    free(devs);
}
END_TEST

/* Junk in place of the rows entry: each is ignored (the heuristic runs, correctly), the first with a warning;
 * a database without gemv entries (written before the family existed) loads and serves the heuristic. */
START_TEST(junk_entries_are_ignored)
{
    clf_device_info *devs;
    int nd = clf_test_devices(&devs);
    unsetenv("CLFORGE_GEMV_CONFIG");
    setenv("CLFORGE_SHIPPED", "off", 1);
    char *huge = malloc(20001);
    memset(huge, 'W', 20000);
    huge[20000] = '\0';
    json_t *junk[] = {json_pack("{s:s}", "config", "WG=48 VW=4 LU=4 GPB=8 TEAM=0 TX=0 CW=1 RPT=0"),
                      json_pack("{s:s}", "config", "WG=16 VW=4 LU=4 GPB=8 TEAM=64 TX=0 CW=1 RPT=0"),
                      json_pack("{s:s}", "config", "WG=16"),
                      json_pack("{s:s}", "config", "WG=16 VW=4 LU=4 GPB=8 TEAM=0 TX=0 CW=1 RPT=0 NOPE=1"),
                      json_pack("{s:s}", "config", "WG=99999999999999999999 VW=\x1b[31m"),
                      json_pack("{s:s}", "config", huge),
                      json_pack("{s:i}", "config", 42),
                      json_pack("[i,i]", 1, 2),
                      json_string("WG=16")};
    free(huge);
    for (int d = 0; d < nd; d++) {
        char cache[1200], log[1300];
        snprintf(cache, sizeof cache, "%s/gemv-junk-%d", clf_test_tmpdir(), d);
        snprintf(log, sizeof log, "%s/gemv-junk-%d.log", clf_test_tmpdir(), d);
        clf_context *ctx = ctx_in(&devs[d], cache, 1);
        /* an older database: other sections, no gemv */
        ck_assert_int_eq(clf__tunedb_store(ctx, "hostile", json_pack("{s:i}", "v", 1)), CLF_SUCCESS);
        clf_context_destroy(ctx);
        ctx = ctx_in(&devs[d], cache, 0);
        clf__gemv_params want, got;
        const char *origin;
        ck_assert_int_eq(clf__gemv_params_get(clf_context_device(ctx), CLF_F32, &want), CLF_SUCCESS);
        ck_assert_int_eq(clf__gemv_params_for(ctx, CLF_F32, "rows", &got, &origin), CLF_SUCCESS);
        ck_assert_str_eq(origin, "default");
        ck_assert_int_eq(memcmp(&got, &want, sizeof got), 0);
        json_t *v = NULL;
        ck_assert_int_eq(clf__tunedb_fetch(ctx, "hostile/v", &v), CLF_SUCCESS);
        ck_assert_int_eq(json_integer_value(v), 1);
        json_decref(v);
        for (size_t j = 0; j < sizeof junk / sizeof junk[0]; j++) {
            store_entry(ctx, "rows", json_incref(junk[j]));
            int saved = d == 0 && j == 0 ? clf_test_capture_begin(log) : -1;
            ck_assert_int_eq(clf__gemv_params_for(ctx, CLF_F32, "rows", &got, &origin), CLF_SUCCESS);
            if (saved >= 0) {
                const char *text = clf_test_capture_end(saved, log);
                ck_assert_msg(strstr(text, "warning") && strstr(text, "gemv") && strstr(text, "ignored"),
                              "no warning for a junk gemv entry: \"%s\"", text);
            }
            ck_assert_msg(!strcmp(origin, "default"), "junk entry %zu used (origin %s)", j, origin);
            ck_assert_int_eq(memcmp(&got, &want, sizeof got), 0);
        }
        /* the family's whole section replaced by junk */
        ck_assert_int_eq(clf__tunedb_store(ctx, "tuned/gemv", json_string("\x1b[2J")), CLF_SUCCESS);
        ck_assert_int_eq(clf__gemv_params_for(ctx, CLF_F32, "thin_cols", &got, &origin), CLF_SUCCESS);
        ck_assert_str_eq(origin, "default");
        sgemv_checked(ctx, 129, 257);
        /* a good entry after the junk is used: nothing was remembered wrongly */
        store_entry(ctx, "rows", json_pack("{s:s}", "config", "WG=16 VW=2 LU=2 GPB=1 TEAM=4 TX=0 CW=1 RPT=1"));
        ck_assert_int_eq(clf__gemv_params_for(ctx, CLF_F32, "rows", &got, &origin), CLF_SUCCESS);
        ck_assert_str_eq(origin, "tuned");
        ck_assert(got.vw == 2 && got.team == 4);
        clf_context_destroy(ctx);
    }
    for (size_t j = 0; j < sizeof junk / sizeof junk[0]; j++)
        json_decref(junk[j]);
    unsetenv("CLFORGE_SHIPPED");
    free(devs);
}
END_TEST

/* The tuner's check refuses an output no run wrote (NaN), and accepts a run's; the family's heuristic is
 * valid on every device, and its space holds what the old defaults were. */
START_TEST(bench_check_refuses_unwritten)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    const clf__family *f = &clf__family_gemv;
    ck_assert_int_eq(f->nbuckets, 6);
    for (int d = 0; d < nctx; d++) {
        const clf_device_info *dev = clf_context_device(ctxs[d]);
        for (int b = 0; b < f->nbuckets; b++) {
            const char *const *buckets = f->buckets;
            clf__config c;
            f->default_config(dev, CLF_F32, buckets[b], &c);
            ck_assert(clf__space_contains(f, &c) && f->valid(&c, dev, CLF_F32));
            void *st = NULL;
            ck_assert_msg(f->bench_create(ctxs[d], CLF_F32, buckets[b], &st) == CLF_SUCCESS, "%s", clf_last_error());
            ck_assert_int_eq(f->bench_check(st), CLF_ERR_VERIFY);
            cl_event ev = NULL;
            ck_assert_msg(f->bench_run(st, &c, &ev) == CLF_SUCCESS, "%s", clf_last_error());
            if (ev)
                clReleaseEvent(ev);
            ck_assert_msg(f->bench_check(st) == CLF_SUCCESS, "%s %s: %s", dev->name, buckets[b], clf_last_error());
            f->bench_destroy(st);
        }
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gemv");
    TCase *tc = clf_test_tcase("random");
    tcase_add_test(tc, random_cases);
    tcase_add_test(tc, named_shapes);
    tcase_add_test(tc, thin_gemm);
    suite_add_tcase(s, tc);
    TCase *tl = clf_test_tcase("tile");
    tcase_add_test(tl, thin_tile);
    suite_add_tcase(s, tl);
    TCase *ta = clf_test_tcase("arguments");
    tcase_add_test(ta, invalid_arguments);
    tcase_add_test(ta, params_and_plans);
    suite_add_tcase(s, ta);
    TCase *tt = clf_test_tcase("tuning");
    tcase_add_test(tt, tuned_entry_is_stored_and_used);
    tcase_add_test(tt, junk_entries_are_ignored);
    tcase_add_test(tt, bench_check_refuses_unwritten);
    suite_add_tcase(s, tt);
    return clf_test_run(s);
}
