/* test_gemm_cpu.c — the CPU GEMM path (register micro-kernel over packed panels or operands read in place,
 * cl/gemm_cpu.cl) against a double-precision CPU reference on every device, forced where the planner would not
 * choose it (so that rusticl runs it too): odd sizes, both operand orders, padded leading dimensions, offsets, batches,
 * alpha/beta (with NaN in C when beta is 0), configurations at the corners of the space; the planner's choice
 * through the public API; every default valid; an invalid configuration refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_cpu.h"
#include "gemm_plan.h"
#include "testutil.h"

typedef struct prob {
    size_t m, n, k, batch, lda, ldb, ldc, offa, offb, offc;
    int a_kmajor, b_kmajor;
    double alpha, beta;
    int pack;   /* 1 packed, 0 read in place (a K-major B only), 2 A packed and B copied by the kernel, 3 B packed
                 * and A copied by the kernel, -1 as the planner decides */
} prob;

static size_t a_rows(const prob *p) { return p->a_kmajor ? p->k : p->m; }
static size_t b_rows(const prob *p) { return p->b_kmajor ? p->k : p->n; }
static size_t span(size_t rows, size_t ld) { return rows * ld; }

static double elem(const void *h, int f64, size_t i) { return f64 ? ((const double *)h)[i] : ((const float *)h)[i]; }

/* Runs p on the CPU path with cfg (NULL: resolved) and checks every element of every matrix of C. */
static void check_one(clf_context *ctx, clf_dtype dt, const prob *p, const clf__config *cfg, uint64_t *seed)
{
    int f64 = dt == CLF_F64;
    size_t esz = f64 ? 8 : 4;
    size_t sa = span(a_rows(p), p->lda), sb = span(b_rows(p), p->ldb), sc = span(p->m, p->ldc);
    size_t na = p->offa + sa * p->batch, nb = p->offb + sb * p->batch, nc = p->offc + sc * p->batch;
    double *ha = malloc(na * 8), *hb = malloc(nb * 8), *hc = malloc(nc * 8), *got = malloc(nc * 8);
    ck_assert(ha && hb && hc && got);
    clf_test_rand_f64(ha, na, seed);
    clf_test_rand_f64(hb, nb, seed);
    clf_test_rand_f64(hc, nc, seed);
    if (p->beta == 0.0)
        for (size_t i = 0; i < nc; i++)
            hc[i] = NAN;   /* beta 0: C must not be read */
    void *da = malloc(na * esz), *db = malloc(nb * esz), *dc = malloc(nc * esz);
    ck_assert(da && db && dc);
    for (size_t i = 0; i < na; i++) f64 ? (((double *)da)[i] = ha[i]) : (((float *)da)[i] = (float)ha[i], ha[i] = ((float *)da)[i]);
    for (size_t i = 0; i < nb; i++) f64 ? (((double *)db)[i] = hb[i]) : (((float *)db)[i] = (float)hb[i], hb[i] = ((float *)db)[i]);
    for (size_t i = 0; i < nc; i++) f64 ? (((double *)dc)[i] = hc[i]) : (((float *)dc)[i] = (float)hc[i], hc[i] = ((float *)dc)[i]);
    cl_mem a = clf_test_buffer(ctx, na * esz, da), b = clf_test_buffer(ctx, nb * esz, db);
    cl_mem c = clf_test_buffer(ctx, nc * esz, dc);
    clf__gemm_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.dtype = dt;
    clf__cpu_product cp = {p->m, p->n, p->k, p->batch, p->a_kmajor, p->b_kmajor, p->alpha, p->beta,
                           {CLF__BUF_USER, a, p->offa, p->lda, sa}, {CLF__BUF_USER, b, p->offb, p->ldb, sb},
                           {CLF__BUF_USER, c, p->offc, p->ldc, sc}, p->pack, 0, 0, 0, dt, dt};
    int planned = 0;
    ck_assert_msg(clf__gemm_cpu_plan(ctx, &plan, &cp, cfg, &planned) == CLF_SUCCESS, "%s", clf_last_error());
    /* Both packs and the kernel; one pack and the kernel, which copies the other operand; or the kernel alone on
     * operands read in place. The planner's rule (gemm_cpu.c use_packs): a K-major B is read in place up to 2^25
     * multiply-adds, or with at most 32 rows of C, or at most 32 columns in whole vectors; else B is copied by the
     * kernel when C's rows fit one row block, A (K contiguous) when C's columns fit one column block; else packed. */
    const int *pv = plan.cfg_cpu.v;
    size_t vw = (size_t)pv[CLF__CPU_VW], block_rows = (size_t)(pv[CLF__CPU_MR] * pv[CLF__CPU_MI]);
    size_t block_cols = vw * (size_t)(pv[CLF__CPU_NV] * pv[CLF__CPU_NI]);
    int work = (double)p->m * (double)p->n * (double)p->k > 33554432.0;
    int one_col = work && p->n > 32 && p->n <= block_cols && p->m > block_rows;
    int few = p->m <= 32 || (p->n <= 32 && p->n % vw == 0);
    int mode = p->pack >= 0 ? (!p->b_kmajor && p->pack == 0 ? 1 : p->pack)
               : !p->b_kmajor ? (work && p->m <= block_rows ? 2 : one_col ? 3 : 1)
               : few || !work ? 0 : p->m <= block_rows ? 2 : one_col ? 3 : 1;
    double local = (double)clf_context_device(ctx)->local_mem;
    if (mode == 2)   /* B stored N x K is copied by columns (5); a copy that does not fit: packed */
        mode = (double)(pv[CLF__CPU_NI] * pv[CLF__CPU_KC] * pv[CLF__CPU_VW] * pv[CLF__CPU_NV]) * (double)esz > local ? 1
               : p->b_kmajor ? 2 : 5;
    if (mode == 3) {   /* A stored K-major is copied into micro-panels (4); a copy that does not fit: packed */
        int pad = p->a_kmajor ? 0 : pv[CLF__CPU_VW];
        mode = (double)(pv[CLF__CPU_MI] * pv[CLF__CPU_MR] * (pv[CLF__CPU_KC] + pad)) * (double)esz > local ? 1
               : p->a_kmajor ? 4 : 3;
    }
    ck_assert_int_eq(planned, 1);
    ck_assert_int_eq(plan.nsteps, mode == 1 ? 3 : mode ? 2 : 1);   /* 2, 3, 4: one pack */
    ck_assert_int_eq(plan.steps[plan.nsteps - 1].u.cpu.packed, mode);
    ck_assert_msg(clf__gemm_exec(ctx, &plan, 0, NULL, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    clf_test_read(ctx, c, nc * esz, dc);
    double eps = f64 ? 1.2e-16 : 6e-8;
    for (size_t q = 0; q < p->batch; q++)
        for (size_t i = 0; i < p->m; i++)
            for (size_t j = 0; j < p->n; j++) {
                const double *A = ha + p->offa + q * sa, *B = hb + p->offb + q * sb;
                double sum = 0, mag = 0;
                for (size_t l = 0; l < p->k; l++) {
                    double x = A[p->a_kmajor ? l * p->lda + i : i * p->lda + l];
                    double y = B[p->b_kmajor ? l * p->ldb + j : j * p->ldb + l];
                    sum += x * y, mag += fabs(x * y);
                }
                size_t ci = p->offc + q * sc + i * p->ldc + j;
                double c0 = p->beta == 0.0 ? 0.0 : p->beta * hc[ci];
                double ref = p->alpha * sum + c0, v = elem(dc, f64, ci);
                double tol = 4.0 * (double)(p->k + 4) * eps * (fabs(p->alpha) * mag + fabs(c0)) + 1e-300;
                ck_assert_msg(fabs(v - ref) <= tol, "%s %zux%zux%zu batch %zu ka %d kb %d: C[%zu][%zu][%zu] = %.10g, "
                              "expected %.10g", f64 ? "f64" : "f32", p->m, p->n, p->k, p->batch, p->a_kmajor,
                              p->b_kmajor, q, i, j, v, ref);
            }
    /* Outside the matrices (padding of ldc, the offset): untouched. */
    for (size_t i = 0; i < p->offc; i++)
        ck_assert(isnan(hc[i]) ? isnan(elem(dc, f64, i)) : elem(dc, f64, i) == hc[i]);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    free(ha), free(hb), free(hc), free(got), free(da), free(db), free(dc);
}

static size_t dim(uint64_t *s)
{
    static const size_t odd[] = {1, 2, 3, 5, 7, 13, 17, 31, 33, 47, 63, 65, 97, 129, 131};
    return clf_test_rand_u64(s) % 3 ? odd[clf_test_rand_u64(s) % (sizeof odd / sizeof odd[0])]
                                    : 1 + clf_test_rand_u64(s) % 160;
}

static prob random_prob(uint64_t *s)
{
    prob p;
    memset(&p, 0, sizeof p);
    p.m = dim(s), p.n = dim(s), p.k = dim(s);
    p.batch = clf_test_rand_u64(s) % 4 == 0 ? 1 + clf_test_rand_u64(s) % 3 : 1;
    p.a_kmajor = (int)(clf_test_rand_u64(s) & 1), p.b_kmajor = (int)(clf_test_rand_u64(s) & 1);
    p.lda = (p.a_kmajor ? p.m : p.k) + clf_test_rand_u64(s) % 3;
    p.ldb = (p.b_kmajor ? p.n : p.k) + clf_test_rand_u64(s) % 3;
    p.ldc = p.n + clf_test_rand_u64(s) % 3;
    p.offa = clf_test_rand_u64(s) % 5, p.offb = clf_test_rand_u64(s) % 5, p.offc = clf_test_rand_u64(s) % 5;
    p.alpha = clf_test_pick_scalar(s, 0);
    if (p.alpha == 0.0)
        p.alpha = 0.5;   /* alpha 0 never reaches the CPU path */
    p.beta = clf_test_pick_scalar(s, 1);
    p.pack = (int)(clf_test_rand_u64(s) % 5) - 1;
    return p;
}

/* Configurations at the corners of the space (kept when valid on the device), then the default. */
static int corner_configs(clf_context *ctx, clf_dtype dt, clf__config *out)
{
    static const int corners[][CLF__CPU_NPARAMS] = {
        {4, 4, 1, 1, 1, 64, 1},  {6, 8, 2, 8, 4, 256, 0},  {16, 4, 1, 2, 8, 1024, 1},
        {8, 16, 1, 16, 1, 128, 0}, {12, 16, 2, 4, 2, 512, 1}, {14, 8, 1, 1, 2, 64, 0},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof corners / sizeof corners[0]; i++) {
        memset(&out[n], 0, sizeof out[n]);
        memcpy(out[n].v, corners[i], sizeof corners[i]);
        if (clf__family_gemm_cpu.valid(&out[n], clf_context_device(ctx), dt))
            n++;
    }
    clf__family_gemm_cpu.default_config(clf_context_device(ctx), dt, NULL, &out[n++]);
    return n;
}

START_TEST(forced_on_every_device_matches_reference)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    uint64_t seed = 0x1234567ull;
    for (int d = 0; d < nctx; d++)
        for (int f = 0; f < 2; f++) {
            clf_dtype dt = f ? CLF_F64 : CLF_F32;
            if (f && !clf_context_device(ctxs[d])->fp64)
                continue;
            clf__config cfgs[8];
            int nc = corner_configs(ctxs[d], dt, cfgs);
            ck_assert_int_ge(nc, 2);
            for (int t = 0; t < 24; t++) {
                prob p = random_prob(&seed);
                check_one(ctxs[d], dt, &p, &cfgs[t % nc], &seed);
            }
        }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* K longer than several K blocks, with edges in every direction: the partial sums between blocks. */
START_TEST(long_k_and_edges)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    uint64_t seed = 99;
    for (int d = 0; d < nctx; d++) {
        clf__config c;
        clf__family_gemm_cpu.default_config(clf_context_device(ctxs[d]), CLF_F32, NULL, &c);
        c.v[CLF__CPU_KC] = 64;
        for (int pack = 0; pack < 4; pack++) {
            prob p = {77, 85, 333, 2, 333, 85, 90, 3, 1, 2, 0, 1, 1.5, -0.5, pack};
            check_one(ctxs[d], CLF_F32, &p, &c, &seed);
            prob q = {301, 257, 200, 1, 301, 200, 257, 0, 0, 0, 1, 0, -1.0, 0.0, pack};
            check_one(ctxs[d], CLF_F32, &q, NULL, &seed);
        }
        /* Past 2^25 multiply-adds with C's 40 rows in one row block: the planner has the kernel copy B, stored
         * either way. */
        prob rt = {40, 901, 1001, 1, 1003, 1004, 905, 1, 2, 3, 0, 0, 0.75, 0.5, -1};
        check_one(ctxs[d], CLF_F32, &rt, NULL, &seed);
        prob r = {40, 901, 1001, 1, 1003, 904, 905, 1, 2, 3, 0, 1, 0.75, 0.5, -1};
        check_one(ctxs[d], CLF_F32, &r, NULL, &seed);
        if (clf_context_device(ctxs[d])->fp64)
            check_one(ctxs[d], CLF_F64, &r, NULL, &seed);
        /* C's 50 columns in one column block, B stored either way: the planner has the kernel copy A. */
        prob f = {700, 50, 1100, 1, 1101, 52, 53, 2, 1, 0, 0, 1, 1.0, 0.25, -1};
        check_one(ctxs[d], CLF_F32, &f, NULL, &seed);
        prob g = {700, 50, 1100, 1, 1101, 1103, 50, 0, 3, 1, 0, 0, -0.5, 0.0, -1};
        check_one(ctxs[d], CLF_F32, &g, NULL, &seed);
        /* and A stored K x M (its copy in micro-panels), with C's last micro-tile of rows partial */
        prob h = {701, 50, 1100, 1, 703, 52, 50, 1, 0, 2, 1, 1, 1.0, 1.0, -1};
        check_one(ctxs[d], CLF_F32, &h, NULL, &seed);
        if (clf_context_device(ctxs[d])->fp64)
            check_one(ctxs[d], CLF_F64, &h, NULL, &seed);
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* C of 150 rows, past 2^25 multiply-adds, with columns enough for every core: the planner widens the row block to
 * hold all rows where the family's 16 micro-tiles can, and then has the kernel copy B; likewise C of 100 columns
 * gets a column block that holds them, and the kernel copies A. */
START_TEST(few_rows_in_one_row_block)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    uint64_t seed = 150;
    for (int d = 0; d < nctx; d++) {
        clf_context *ctx = ctxs[d];
        if (!clf__gemm_cpu_wanted(ctx))
            continue;
        clf__config c;
        const char *origin;
        ck_assert(clf__config_resolve(ctx, &clf__family_gemm_cpu, CLF_F32, NULL, &c, &origin) == CLF_SUCCESS);
        cl_mem buf = clf_test_buffer(ctx, 4, NULL);
        clf__gemm_plan plan;
        memset(&plan, 0, sizeof plan);
        plan.dtype = CLF_F32;
        clf__cpu_product cp = {150, 4000, 300, 1, 0, 1, 1.0, 0.0, {CLF__BUF_USER, buf, 0, 300, 0},
                               {CLF__BUF_USER, buf, 0, 4000, 0}, {CLF__BUF_USER, buf, 0, 4000, 0}, -1, 0, 0, 0,
                               CLF_F32, CLF_F32};
        int planned = 0;
        ck_assert(clf__gemm_cpu_plan(ctx, &plan, &cp, NULL, &planned) == CLF_SUCCESS && planned);
        const int *v = plan.cfg_cpu.v;
        if ((150 + c.v[CLF__CPU_MR] - 1) / c.v[CLF__CPU_MR] <= 16 && strcmp(origin, "override") != 0) {
            ck_assert_msg(v[CLF__CPU_MR] * v[CLF__CPU_MI] >= 150, "MR %d MI %d", v[CLF__CPU_MR], v[CLF__CPU_MI]);
            ck_assert_int_eq(plan.steps[plan.nsteps - 1].u.cpu.packed,
                             (double)(v[CLF__CPU_NI] * v[CLF__CPU_KC] * v[CLF__CPU_VW] * v[CLF__CPU_NV]) * 4.0 <=
                                     (double)clf_context_device(ctx)->local_mem ? 2 : 1);
        }
        /* Few columns (100 of 3000 x 100, B stored N x K): the column block widened to hold them, A copied. */
        memset(&plan, 0, sizeof plan);
        plan.dtype = CLF_F32;
        clf__cpu_product cq = {3000, 100, 400, 1, 0, 0, 1.0, 0.0, {CLF__BUF_USER, buf, 0, 400, 0},
                               {CLF__BUF_USER, buf, 0, 400, 0}, {CLF__BUF_USER, buf, 0, 100, 0}, -1, 0, 0, 0,
                               CLF_F32, CLF_F32};
        ck_assert(clf__gemm_cpu_plan(ctx, &plan, &cq, NULL, &planned) == CLF_SUCCESS && planned);
        size_t nr = (size_t)(c.v[CLF__CPU_VW] * c.v[CLF__CPU_NV]);
        if ((100 + nr - 1) / nr <= 8 && strcmp(origin, "override") != 0) {
            ck_assert_msg((size_t)(v[CLF__CPU_VW] * v[CLF__CPU_NV] * v[CLF__CPU_NI]) >= 100, "NR %d NI %d",
                          v[CLF__CPU_VW] * v[CLF__CPU_NV], v[CLF__CPU_NI]);
            ck_assert_int_eq(plan.steps[plan.nsteps - 1].u.cpu.packed,
                             (double)(v[CLF__CPU_MI] * v[CLF__CPU_MR] * (v[CLF__CPU_KC] + v[CLF__CPU_VW])) * 4.0 <=
                                     (double)clf_context_device(ctx)->local_mem ? 3 : 1);
        }
        clReleaseMemObject(buf);
        /* and the products themselves, with offsets and padded leading dimensions */
        prob w = {150, 1500, 300, 1, 301, 1502, 1503, 1, 2, 3, 0, 1, 1.25, -0.5, -1};
        check_one(ctx, CLF_F32, &w, NULL, &seed);
        prob x = {1500, 100, 300, 1, 301, 303, 101, 2, 1, 0, 0, 0, 0.5, 1.0, -1};
        check_one(ctx, CLF_F32, &x, NULL, &seed);
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* Through clf_sgemm/clf_dgemm: the planner takes the CPU path where the device wants it, and the column-major
 * call with both transposes is right. */
START_TEST(public_api_on_cpu_path)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    uint64_t seed = 7;
    for (int d = 0; d < nctx; d++) {
        clf_context *ctx = ctxs[d];
        enum { M = 70, N = 45, K = 133 };
        double ha[M * K], hb[K * N], hc[M * N], out[M * N];
        clf_test_rand_f64(ha, M * K, &seed);
        clf_test_rand_f64(hb, K * N, &seed);
        clf_test_rand_f64(hc, M * N, &seed);
        int f64 = clf_context_device(ctx)->fp64;
        size_t esz = f64 ? 8 : 4;
        float fa[M * K], fb[K * N], fc[M * N];
        for (int i = 0; i < M * K; i++) fa[i] = (float)ha[i], ha[i] = f64 ? ha[i] : fa[i];
        for (int i = 0; i < K * N; i++) fb[i] = (float)hb[i], hb[i] = f64 ? hb[i] : fb[i];
        for (int i = 0; i < M * N; i++) fc[i] = (float)hc[i], hc[i] = f64 ? hc[i] : fc[i];
        cl_mem a = clf_test_buffer(ctx, M * K * esz, f64 ? (void *)ha : fa);
        cl_mem b = clf_test_buffer(ctx, K * N * esz, f64 ? (void *)hb : fb);
        cl_mem c = clf_test_buffer(ctx, M * N * esz, f64 ? (void *)hc : fc);
        /* Column-major: op(A) = A^T with A stored K x M (lda K), op(B) = B^T with B stored N x K (ldb N). */
        clf_status s = f64 ? clf_dgemm(ctx, CLF_COL_MAJOR, CLF_TRANS, CLF_TRANS, M, N, K, 0.75, a, 0, K, b, 0, N, 0.25, c,
                                       0, M, NULL)
                           : clf_sgemm(ctx, CLF_COL_MAJOR, CLF_TRANS, CLF_TRANS, M, N, K, 0.75f, a, 0, K, b, 0, N, 0.25f,
                                       c, 0, M, NULL);
        ck_assert_msg(s == CLF_SUCCESS, "%s", clf_last_error());
        clf_test_read(ctx, c, M * N * esz, f64 ? (void *)out : fc);
        for (int j = 0; j < N; j++)
            for (int i = 0; i < M; i++) {
                double sum = 0;
                for (int l = 0; l < K; l++)
                    sum += ha[i * K + l] * hb[l * N + j];
                double ref = 0.75 * sum + 0.25 * hc[j * M + i], v = f64 ? out[j * M + i] : fc[j * M + i];
                ck_assert_msg(fabs(v - ref) < (f64 ? 1e-12 : 1e-4), "C(%d,%d) = %g, expected %g", i, j, v, ref);
            }
        /* Which path the planner took. */
        clf__gemm_call call = {.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_NO_TRANS,
                               .m = 300, .n = 300, .k = 300, .alpha = 1, .lda = 300, .ldb = 300, .ldc = 300, .batch = 1,
                               .a = a, .b = a, .c = a};
        clf__gemm_plan plan;
        ck_assert(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_AUTO, &plan) == CLF_SUCCESS);
        int cpu = (clf_context_device(ctx)->type & CL_DEVICE_TYPE_CPU) && clf__gemm_cpu_wanted(ctx);
        if (cpu)
            ck_assert_str_eq(plan.path, "cpu");
        else
            ck_assert_str_ne(plan.path, "cpu");
        clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(c);
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

START_TEST(defaults_valid_and_bad_config_refused)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    for (int d = 0; d < nctx; d++) {
        const clf_device_info *dev = clf_context_device(ctxs[d]);
        for (int f = 0; f < 2; f++) {
            clf_dtype dt = f ? CLF_F64 : CLF_F32;
            clf__config c;
            clf__family_gemm_cpu.default_config(dev, dt, NULL, &c);
            ck_assert_int_eq(clf__family_gemm_cpu.valid(&c, dev, dt), !f || dev->fp64);
        }
        clf__config bad = {{16, 16, 4, 1, 1, 64, 0}};   /* 64+ accumulators: more than any register file */
        ck_assert(!clf__family_gemm_cpu.valid(&bad, dev, CLF_F32));
        clf__gemm_plan plan;
        memset(&plan, 0, sizeof plan);
        plan.dtype = CLF_F32;
        clf__cpu_product cp = {8, 8, 8, 1, 0, 1, 1.0, 0.0, {CLF__BUF_USER, NULL, 0, 8, 0},
                               {CLF__BUF_USER, NULL, 0, 8, 0}, {CLF__BUF_USER, NULL, 0, 8, 0}, -1, 0, 0, 0,
                               CLF_F32, CLF_F32};
        int planned = 1;
        ck_assert_int_eq(clf__gemm_cpu_plan(ctxs[d], &plan, &cp, &bad, &planned), CLF_ERR_INVALID_ARG);
        ck_assert(!planned && plan.nsteps == 0);
        ck_assert_ptr_nonnull(strstr(clf_last_error(), "gemm_cpu"));
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* The portable mixed-precision path on the CPU kernel: f16 and bf16 operands are widened by the packs (no
 * conversion step), and a product too small for the CPU kernel converts them first. Results are checked by
 * test_gemm_mixed; this checks the plans. */
START_TEST(typed_operands_widened_by_the_packs)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    for (int d = 0; d < nctx; d++) {
        clf_context *ctx = ctxs[d];
        cl_mem buf = clf_test_buffer(ctx, 300 * 300 * 4, NULL);
        const struct { size_t m, n, k; int converts, packs16; } cases[] = {{300, 260, 200, 0, 2}, {40, 40, 40, 2, 0}};
        for (int i = 0; i < 2; i++) {
            size_t m = cases[i].m, n = cases[i].n, k = cases[i].k;
            clf__gemm_call call = {.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_TRANS,
                                   .m = m, .n = n, .k = k, .alpha = 1, .lda = k, .ldb = k, .ldc = n, .batch = 1,
                                   .a = buf, .b = buf, .c = buf, .typed = 1, .a_type = CLF_F16, .b_type = CLF_BF16,
                                   .c_type = CLF_F32, .compute = CLF_COMPUTE_EXACT};
            clf__gemm_plan plan;
            ck_assert_msg(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_AUTO, &plan) == CLF_SUCCESS, "%s",
                          clf_last_error());
            if (strcmp(plan.path, "cpu") != 0 && cases[i].packs16)
                continue;   /* not the CPU kernel on this device */
            int converts = 0, src16 = 0;
            for (int j = 0; j < plan.nsteps; j++) {
                converts += plan.steps[j].kind == CLF__STEP_CONVERT;
                if (plan.steps[j].kind == CLF__STEP_CPU_PACK)
                    src16 |= 1 << plan.steps[j].u.cpu_pack.src16;
            }
            ck_assert_msg(converts == cases[i].converts, "case %d: %d conversion steps", i, converts);
            if (cases[i].packs16)
                ck_assert_msg(src16 == (1 << 1 | 1 << 2), "case %d: the packs widen %x", i, src16);
        }
        clReleaseMemObject(buf);
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gemm_cpu");
    CLF_TEST_ALONE(s, forced_on_every_device_matches_reference);
    CLF_TEST_ALONE(s, long_k_and_edges);
    CLF_TEST_ALONE(s, few_rows_in_one_row_block);
    CLF_TEST_ALONE(s, public_api_on_cpu_path);
    CLF_TEST_ALONE(s, defaults_valid_and_bad_config_refused);
    CLF_TEST_ALONE(s, typed_operands_widened_by_the_packs);
    return clf_test_run(s);
}
