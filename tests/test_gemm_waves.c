/* test_gemm_waves.c — the wave rule of the GEMM planner: a product whose last wave of tiles would leave the
 * device mostly idle runs its whole waves, then its leftover rows of tiles split along K. Planning is checked
 * against a pretend 132-unit GPU with a measured "wg_per_cu" in the tuning entry; the numbers are checked on
 * every device with the rule forced (CLFORGE_GEMM_WG_PER_CU), over transposes, layouts, offsets, odd sizes
 * and beta. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gemm_cpu.h"
#include "gemm_plan.h"
#include "gemm_waves.h"
#include "testutil.h"

#define LARGE_CFG "MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=8 VWM=4 VWN=2 KWI=8 PADA=4 PADB=0 DBUF=1"
#define SMALL_CFG "MWG=32 NWG=32 KWG=16 MDIMC=8 NDIMC=8 VWM=2 VWN=2 KWI=2 PADA=0 PADB=0 DBUF=1"

static clf_context *own_context(const clf_device_info *d, const char *cache)
{
    char sel[32], dir[1024];
    snprintf(sel, sizeof sel, "%d:%d", d->platform_index, d->device_index);
    snprintf(dir, sizeof dir, "%s/%s-%d", clf_test_tmpdir(), cache, (int)getpid());
    clf_context_options opt = {.device = sel, .cache_dir = dir};
    clf_context *ctx;
    ck_assert_msg(clf_context_create(&opt, &ctx) == CLF_SUCCESS, "%s", clf_last_error());
    return ctx;
}

/* A context of the first device that plans as a 132-unit GPU would (planning launches nothing); *saved gets
 * the device's own description, to put back before the context is destroyed. */
static clf_context *pretend_gpu(const char *cache, clf_device_info *saved)
{
    clf_context **ctxs;
    int n = clf_test_contexts(&ctxs);
    ck_assert_int_ge(n, 1);
    clf_context *ctx = own_context(clf_context_device(ctxs[0]), cache);
    clf_test_contexts_free(ctxs, n);
    *saved = ctx->info;
    ctx->info.type = CL_DEVICE_TYPE_GPU;
    ctx->info.compute_units = 132;
    ctx->info.max_alloc = (size_t)1 << 32;
    return ctx;
}

static clf__gemm_call nn_call(size_t m, size_t n, size_t k)
{
    return (clf__gemm_call){.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_NO_TRANS,
                            .m = m, .n = n, .k = k, .alpha = 1.0, .lda = k, .ldb = n, .ldc = n, .batch = 1};
}

static void plan_of(clf_context *ctx, size_t m, size_t n, size_t k, clf__gemm_plan *plan)
{
    clf__gemm_call call = nn_call(m, n, k);
    ck_assert_msg(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_AUTO, plan) == CLF_SUCCESS, "%s", clf_last_error());
}

/* 3072^3 in 128 x 128 tiles on 132 units of two work-groups: 576 tiles, 2.2 waves. The whole waves keep the
 * large configuration, the last rows of tiles split along K; 4096^3 (3.9 waves) and an entry measured for
 * another configuration stay as they were. Planning launches nothing: a CPU context stands in. */
START_TEST(last_wave_splits_where_measured)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("waves-plan", &saved);
    unsetenv("CLFORGE_GEMM_WG_PER_CU");
    clf__config want;
    ck_assert_int_eq(clf__config_parse(&clf__family_gemm, LARGE_CFG, &want), CLF_SUCCESS);
    if (!clf__family_gemm.valid(&want, &ctx->info, CLF_F32) || clf__gemm_cpu_wanted(ctx)) {
        ctx->info = saved;
        clf_context_destroy(ctx);
        return;   /* this device rejects the configuration or plans its own CPU path */
    }
    setenv("CLFORGE_SHIPPED", "off", 1);   /* only the entries stored here count (the H200's ship LARGE_CFG) */
    char section[128];
    clf__tunedb_entry_path("gemm", "f32", "large", section, sizeof section);
    ck_assert_int_eq(clf__tunedb_store(ctx, section, json_pack("{s:s, s:f, s:i}", "config", LARGE_CFG, "speed", 1.0,
                                                               "wg_per_cu", 2)), CLF_SUCCESS);
    ck_assert_uint_eq(clf__gemm_wave_slots(ctx, &clf__family_gemm, CLF_F32, "large", &want), 264);
    clf__gemm_plan plan;
    plan_of(ctx, 3072, 3072, 3072, &plan);
    ck_assert_str_eq(plan.bucket, "large");
    ck_assert_str_eq(plan.path, "waves");
    size_t rows = 0, reduces = 0;
    for (int i = 0; i < plan.nsteps; i++) {
        reduces += plan.steps[i].kind == CLF__STEP_REDUCE;
        if (plan.steps[i].kind == CLF__STEP_MAIN) {
            ck_assert_msg(memcmp(plan.steps[i].u.main.cfg, &want, sizeof want) == 0, "step %d: another configuration", i);
            if (plan.steps[i].u.main.c.kind == CLF__BUF_USER)
                rows += plan.steps[i].u.main.m;   /* the whole waves */
        }
    }
    ck_assert_uint_eq(rows, 2816);   /* 22 rows of 24 tiles: two waves of 264 */
    ck_assert_uint_eq(reduces, 1);
    plan_of(ctx, 4096, 4096, 4096, &plan);
    ck_assert_str_eq(plan.path, "packed");
    ck_assert_int_eq(clf__tunedb_store(ctx, section, json_pack("{s:s, s:f, s:i}", "config", SMALL_CFG, "speed", 1.0,
                                                               "wg_per_cu", 2)), CLF_SUCCESS);
    clf__config_forget(ctx);
    clf__config other;
    ck_assert_int_eq(clf__config_parse(&clf__family_gemm, SMALL_CFG, &other), CLF_SUCCESS);
    ck_assert_uint_eq(clf__gemm_wave_slots(ctx, &clf__family_gemm, CLF_F32, "large", &want), 0);   /* measured for another one */
    ck_assert_uint_eq(clf__gemm_wave_slots(ctx, &clf__family_gemm, CLF_F32, "large", &other), 264);
    /* Hostile values in the entry or the variable turn the rule off; nothing else changes. */
    json_t *bad[] = {json_integer(-3), json_integer(1000000000), json_string("2"), json_real(2.0), json_integer(65)};
    for (int i = 0; i < 5; i++) {
        json_t *e = json_pack("{s:s, s:f}", "config", SMALL_CFG, "speed", 1.0);
        json_object_set_new(e, "wg_per_cu", bad[i]);
        ck_assert_int_eq(clf__tunedb_store(ctx, section, e), CLF_SUCCESS);
        ck_assert_uint_eq(clf__gemm_wave_slots(ctx, &clf__family_gemm, CLF_F32, "large", &other), 0);
    }
    const char *bad_env[] = {"x", "3x", "0", "-2", "65", ""};
    for (int i = 0; i < 6; i++) {
        setenv("CLFORGE_GEMM_WG_PER_CU", bad_env[i], 1);
        ck_assert_msg(clf__gemm_wave_slots(ctx, &clf__family_gemm, CLF_F32, "large", &other) == 0, "CLFORGE_GEMM_WG_PER_CU=%s", bad_env[i]);
    }
    setenv("CLFORGE_GEMM_WG_PER_CU", "3", 1);
    ck_assert_uint_eq(clf__gemm_wave_slots(ctx, &clf__family_gemm, CLF_F32, "large", &other), 396);
    unsetenv("CLFORGE_GEMM_WG_PER_CU");
    unsetenv("CLFORGE_SHIPPED");
    ctx->info = saved;
    clf_context_destroy(ctx);
}
END_TEST

/* The same rule on the matrix units (a pretend compute-capability-9.0 GPU of 132 units, two work-groups each):
 * 4097^3 in f16 has 33 x 33 tiles of 128 x 128, four whole waves and one row of tiles. The whole waves run as
 * one product into C, the last row as K slices into partial planes, then one reduction stores C from row 4096.
 * 4096^3 (3.9 waves) stays one launch; 512 x 512 x 8192 (32 tiles) splits along K as a whole, 1024^3 does not
 * (short slices: their partial sums would cost more than the fill gains); a batch never splits. Operands
 * with aligned rows are read in place although their tiles are partial. */
static clf__gemm_call f16_call(size_t m, size_t n, size_t k, size_t batch)
{
    return (clf__gemm_call){.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_TRANS, .m = m,
                            .n = n, .k = k, .alpha = 1.0, .lda = k, .ldb = k, .ldc = n, .batch = batch, .typed = 1,
                            .a_type = CLF_F16, .b_type = CLF_F16, .c_type = CLF_F16, .mma = 1};
}

/* A split product's K slices (k elements of f16 deep in all; three padded runs of them for 3xF16) are one launch into
 * partial planes, its last matrix the shorter slice that holds K's end (kw_last words, kv_last elements that exist),
 * and one reduction sums the planes. */
static void slices_in_runs(const clf__gemm_plan *plan, size_t k, size_t runs)
{
    const clf__mma_step *sl = NULL;
    int launches = 0;
    size_t planes = 0;
    for (int i = 0; i < plan->nsteps; i++) {
        const clf__gemm_step *st = &plan->steps[i];
        if (st->kind == CLF__STEP_MMA && st->u.mma.c.kind == CLF__BUF_PARTIAL)
            sl = &st->u.mma, launches++;
        if (st->kind == CLF__STEP_REDUCE)
            planes = st->u.reduce.planes;
    }
    ck_assert_int_eq(launches, 1);
    size_t bk = (size_t)sl->cfg->v[CLF__MMA_BK], kw = runs * ((k + bk - 1) / bk * bk / 2);   /* two f16 a word */
    if (runs > 1)
        k = 2 * kw;   /* the padding of each run exists (zeros) */
    ck_assert_uint_eq(planes, sl->batch);
    ck_assert_uint_gt(sl->batch, 1);
    ck_assert_uint_eq(sl->kv, 2 * sl->kw);
    ck_assert_msg(sl->kw_last > 0 && sl->kw_last <= sl->kw, "last slice %zu words, others %zu", sl->kw_last, sl->kw);
    ck_assert_uint_eq((sl->batch - 1) * sl->kw + sl->kw_last, kw);
    ck_assert_uint_eq((sl->batch - 1) * sl->kv + sl->kv_last, k);
    ck_assert_uint_eq(sl->a.stride, (sl->a_gather ? 2 : 1) * sl->kw);   /* gathered: offsets in elements */
    ck_assert_uint_eq(sl->b.stride, (sl->b_gather ? 2 : 1) * sl->kw);
}

static void slices_in_one_launch(const clf__gemm_plan *plan, size_t k) { slices_in_runs(plan, k, 1); }

START_TEST(mma_last_wave_splits)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("waves-mma", &saved);
    ctx->info.nv_cc = 90;
    ctx->info.local_mem = 48 * 1024;
    ctx->info.max_work_group = 1024;
    setenv("CLFORGE_SHIPPED", "off", 1);
    setenv("CLFORGE_GEMM_WG_PER_CU", "2", 1);
    unsetenv("CLFORGE_GEMM_SPLIT_K");
    clf__gemm_plan plan;
    clf__gemm_call call = f16_call(4097, 4097, 4097, 1);
    ck_assert_msg(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_AUTO, &plan) == CLF_SUCCESS, "%s", clf_last_error());
    ck_assert_str_eq(plan.path, "mma-waves");
    size_t user_rows = 0, slices = 0, reduces = 0;
    for (int i = 0; i < plan.nsteps; i++) {
        const clf__gemm_step *st = &plan.steps[i];
        if (st->kind == CLF__STEP_MMA && st->u.mma.c.kind == CLF__BUF_USER) {
            user_rows += st->u.mma.m;
            ck_assert_int_eq(st->u.mma.c_type, CLF_F16);
        } else if (st->kind == CLF__STEP_MMA) {
            ck_assert_uint_eq(st->u.mma.m, 1);
            ck_assert_int_eq(st->u.mma.c_type, CLF_F32);   /* partial sums */
            ck_assert(st->u.mma.alpha == 1.0 && st->u.mma.beta == 0.0);
            slices += st->u.mma.batch;
        } else if (st->kind == CLF__STEP_REDUCE) {
            reduces++;
            ck_assert_uint_eq(st->u.reduce.r0, 4096);
            ck_assert_uint_eq(st->u.reduce.c.off, 4096 * 4097);
            ck_assert_int_eq(st->u.reduce.c_type, CLF_F16);
            ck_assert_uint_eq(st->u.reduce.planes, slices);   /* one plane per slice, the remainder included */
        }
    }
    ck_assert_uint_eq(user_rows, 4096);   /* 32 rows of 33 tiles: four waves of 264 */
    ck_assert_uint_ge(slices, 4);
    ck_assert_uint_eq(reduces, 1);
    slices_in_one_launch(&plan, 4097);
    call = f16_call(4096, 4096, 4096, 1);
    ck_assert_int_eq(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_AUTO, &plan), CLF_SUCCESS);
    ck_assert_str_eq(plan.path, "mma");
    ck_assert_int_eq(plan.nsteps, 1);
    call = f16_call(512, 512, 8192, 1);   /* 32 tiles, long K: slices fill the device */
    ck_assert_int_eq(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_AUTO, &plan), CLF_SUCCESS);
    ck_assert_str_eq(plan.path, "mma-split");
    slices_in_one_launch(&plan, 8192);
    static const size_t forced_k[] = {8195, 1000, 4100};   /* K's end inside a stage; a slice's depth not a stage's */
    for (int i = 0; i < 3; i++) {
        setenv("CLFORGE_GEMM_SPLIT_K", i == 2 ? "7" : "3", 1);
        call = f16_call(512, 512, forced_k[i], 1);
        ck_assert_int_eq(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_AUTO, &plan), CLF_SUCCESS);
        ck_assert_str_eq(plan.path, "mma-split");
        slices_in_one_launch(&plan, forced_k[i]);
    }
    call = f16_call(512, 512, 3001, 1);   /* 3xF16: fp32 operands split into three runs of f16 */
    call.a_type = call.b_type = call.c_type = CLF_F32;
    call.compute = CLF_COMPUTE_3XF16;
    ck_assert_int_eq(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_AUTO, &plan), CLF_SUCCESS);
    slices_in_runs(&plan, 3001, 3);
    unsetenv("CLFORGE_GEMM_SPLIT_K");
    call = f16_call(1024, 1024, 1024, 1);   /* short K: the partial sums would cost more than the fill gains */
    ck_assert_int_eq(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_AUTO, &plan), CLF_SUCCESS);
    ck_assert_str_eq(plan.path, "mma");
    call = f16_call(512, 512, 8192, 3);
    ck_assert_int_eq(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_AUTO, &plan), CLF_SUCCESS);
    ck_assert_str_eq(plan.path, "mma");
    unsetenv("CLFORGE_GEMM_WG_PER_CU");   /* not measured: no split */
    call = f16_call(4097, 4097, 4097, 1);
    ck_assert_int_eq(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_AUTO, &plan), CLF_SUCCESS);
    ck_assert_str_eq(plan.path, "mma");
    ck_assert_int_eq(plan.nsteps, 3);   /* 4097-element rows are not aligned: both operands are packed */
    /* Aligned rows are read in place with partial tiles (EDGE): 32-byte rows always, 16-byte rows (1000 f16)
     * in small products only. */
    static const struct { size_t m, n, k; int converts, edge; } in_place[] = {
        {4097, 4096, 4096, 0, 1}, {1000, 1000, 1000, 0, 1}, {3000, 3000, 3000, 2, 0}, {4096, 4096, 4096, 0, 0}};
    for (int i = 0; i < 4; i++) {
        call = f16_call(in_place[i].m, in_place[i].n, in_place[i].k, 1);
        ck_assert_int_eq(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_AUTO, &plan), CLF_SUCCESS);
        int converts = 0, edge = -1;
        for (int j = 0; j < plan.nsteps; j++) {
            converts += plan.steps[j].kind == CLF__STEP_CONVERT;
            if (plan.steps[j].kind == CLF__STEP_MMA)
                edge = plan.steps[j].u.mma.edge;
        }
        ck_assert_msg(converts == in_place[i].converts && edge == in_place[i].edge, "%zux%zux%zu: %d conversions, edge %d",
                      in_place[i].m, in_place[i].n, in_place[i].k, converts, edge);
    }
    unsetenv("CLFORGE_SHIPPED");
    ctx->info = saved;
    clf_context_destroy(ctx);
}
END_TEST

/* C = alpha op(A) op(B) + beta C through the wave rule (forced: four work-groups per unit), against a double
 * reference, on every device. The row-major product the planner sees has 4 columns of tiles and 2 waves plus
 * one row of them (the last partly filled). */
static void check_case(clf_context *ctx, const clf__config *cfg, int row, int ta, int tb, size_t off,
                       uint64_t *rng)
{
    size_t cu = clf_context_device(ctx)->compute_units, slots = 4 * cu;
    size_t tn = 4, big = 32 * (2 * slots / tn + 1) - 5, small = 32 * tn - 3, k = 2048 + (size_t)(*rng % 64);
    size_t m = row ? big : small, n = row ? small : big;
    size_t rm = row ? m : n, rn = row ? n : m;   /* C's stored rows and columns */
    size_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;   /* stored A and B: rows x cols */
    size_t lda = (row ? ac : ar) + 3, ldb = (row ? bc : br) + 1, ldc = rn + 2;
    size_t sa = off + lda * (row ? ar : ac), sb = off + ldb * (row ? br : bc), sc = off + ldc * rm;
    float *ha = malloc(sa * 4), *hb = malloc(sb * 4), *hc = malloc(sc * 4), *out = malloc(sc * 4);
    clf_test_rand_f32(ha, sa, rng);
    clf_test_rand_f32(hb, sb, rng);
    clf_test_rand_f32(hc, sc, rng);
    cl_mem a = clf_test_buffer(ctx, sa * 4, ha), b = clf_test_buffer(ctx, sb * 4, hb), c = clf_test_buffer(ctx, sc * 4, hc);
    clf__gemm_call call = {.dtype = CLF_F32, .layout = row ? CLF_ROW_MAJOR : CLF_COL_MAJOR,
                           .ta = ta ? CLF_TRANS : CLF_NO_TRANS, .tb = tb ? CLF_TRANS : CLF_NO_TRANS, .m = m, .n = n,
                           .k = k, .alpha = 0.75, .beta = -0.5, .a = a, .a_off = off, .lda = lda, .b = b, .b_off = off,
                           .ldb = ldb, .c = c, .c_off = off, .ldc = ldc, .batch = 1};
    clf__gemm_plan plan;
    ck_assert_msg(clf__gemm_plan_make(ctx, &call, cfg, CLF__GEMM_FAST, &plan) == CLF_SUCCESS, "%s", clf_last_error());
    ck_assert_str_eq(plan.path, "waves");
    ck_assert_msg(clf__gemm_run(ctx, &call, cfg, CLF__GEMM_FAST, NULL, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    clf_test_read(ctx, c, sc * 4, out);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double ref = 0, mag = 0;
            for (size_t p = 0; p < k; p++) {
                /* element (i, p) of op(A) and (p, j) of op(B); (r, c) of a stored matrix is at r*ld + c or c*ld + r */
                size_t r = ta ? p : i, q = ta ? i : p;
                size_t ia = row ? r * lda + q : q * lda + r;
                r = tb ? j : p, q = tb ? p : j;
                size_t ib = row ? r * ldb + q : q * ldb + r;
                double v = (double)ha[off + ia] * hb[off + ib];
                ref += v;
                mag += fabs(v);
            }
            size_t ic = off + (row ? i * ldc + j : j * ldc + i);
            ref = 0.75 * ref - 0.5 * hc[ic];
            ck_assert_msg(fabs(out[ic] - ref) <= 2e-6 * (double)k * (mag + 1), "%s ta%d tb%d %zux%zux%zu C[%zu][%zu] = %g, "
                          "want %g", row ? "row" : "col", ta, tb, m, n, k, i, j, out[ic], ref);
        }
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    free(ha), free(hb), free(hc), free(out);
}

START_TEST(waves_compute_the_product)
{
    setenv("CLFORGE_GEMM_WG_PER_CU", "4", 1);
    clf_context **ctxs;
    int n = clf_test_contexts(&ctxs);
    uint64_t rng = 0x5eed0fa11ull;
    clf__config cfg;
    ck_assert_int_eq(clf__config_parse(&clf__family_gemm, SMALL_CFG, &cfg), CLF_SUCCESS);
    for (int d = 0; d < n; d++) {
        if (!clf__family_gemm.valid(&cfg, clf_context_device(ctxs[d]), CLF_F32))
            continue;
        for (int v = 0; v < 8; v++)
            check_case(ctxs[d], &cfg, v & 1, (v >> 1) & 1, (v >> 2) & 1, v == 5 ? 7 : 0, &rng);
    }
    clf_test_contexts_free(ctxs, n);
    unsetenv("CLFORGE_GEMM_WG_PER_CU");
}
END_TEST

/* "tile_ns" as the planner reads it: sixteen positive integers, else nothing (hostile values in the entry change
 * nothing but turn the model off for it); the probes refuse CPUs and NULL arguments with an error. */
START_TEST(tile_times_read_and_refused)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("tile-ns", &saved);
    setenv("CLFORGE_SHIPPED", "off", 1);
    char section[128];
    clf__tunedb_entry_path("gemm", "f32", "large", section, sizeof section);
    clf__config cfg;
    ck_assert_int_eq(clf__config_parse(&clf__family_gemm, LARGE_CFG, &cfg), CLF_SUCCESS);
    int got[CLF__ENTRY_INTS_MAX];
    json_t *good = json_array();
    for (int i = 0; i < 16; i++)
        json_array_append_new(good, json_integer(1000 * (i + 1)));
    json_t *e = json_pack("{s:s, s:f, s:i, s:o}", "config", LARGE_CFG, "speed", 1.0, "wg_per_cu", 2, "tile_ns", good);
    ck_assert_int_eq(clf__tunedb_store(ctx, section, e), CLF_SUCCESS);
    ck_assert_int_eq(clf__config_entry_ints(ctx, &clf__family_gemm, CLF_F32, "large", &cfg, "tile_ns", got, 16), 16);
    ck_assert_int_eq(got[0], 1000);
    ck_assert_int_eq(got[15], 16000);
    ck_assert_int_eq(clf__config_entry_ints(ctx, &clf__family_gemm, CLF_F32, "large", &cfg, "tile_ns", got, 4), 4);
    ck_assert_int_eq(clf__config_entry_int(ctx, &clf__family_gemm, CLF_F32, "large", &cfg, "tile_ns"), 0);
    ck_assert_int_eq(clf__config_entry_int(ctx, &clf__family_gemm, CLF_F32, "large", &cfg, "wg_per_cu"), 2);
    json_t *bad[] = {json_string("1 2 3"), json_pack("[i, s]", 5, "6"), json_pack("[i, f]", 5, 6.0),
                     json_pack("[i, i]", 5, -6), json_pack("[i, [i]]", 5, 6), json_array(), json_null()};
    json_t *many = json_array();
    for (int i = 0; i < 17; i++)
        json_array_append_new(many, json_integer(7));
    for (int i = 0; i < 8; i++) {
        e = json_pack("{s:s, s:f}", "config", LARGE_CFG, "speed", 1.0);
        json_object_set_new(e, "tile_ns", i < 7 ? bad[i] : many);
        ck_assert_int_eq(clf__tunedb_store(ctx, section, e), CLF_SUCCESS);
        ck_assert_msg(clf__config_entry_ints(ctx, &clf__family_gemm, CLF_F32, "large", &cfg, "tile_ns", got, 16) == 0,
                      "hostile tile_ns %d read", i);
    }
    unsetenv("CLFORGE_SHIPPED");
    int ns[16];
    ck_assert_int_eq(clf__gemm_measure_tile_ns(ctx, &clf__family_gemm, CLF_F32, "large", &cfg, NULL, NULL),
                     CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf__gemm_measure_tile_ns(ctx, &clf__family_gemm, CLF_F32, "large", NULL, ns, NULL),
                     CLF_ERR_INVALID_ARG);
    ctx->info = saved;
    if (saved.type & CL_DEVICE_TYPE_CPU)
        ck_assert_int_eq(clf__gemm_measure_tile_ns(ctx, &clf__family_gemm, CLF_F32, "large", &cfg, ns, NULL),
                         CLF_ERR_UNSUPPORTED);
    clf_context_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gemm_waves");
    CLF_TEST_ALONE(s, last_wave_splits_where_measured);
    CLF_TEST_ALONE(s, mma_last_wave_splits);
    CLF_TEST_ALONE(s, waves_compute_the_product);
    CLF_TEST_ALONE(s, tile_times_read_and_refused);
    return clf_test_run(s);
}
