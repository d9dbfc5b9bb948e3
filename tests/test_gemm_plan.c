/* test_gemm_plan.c — the GEMM planner and the configuration layer under it: configurations resolved once
 * per call and kept by split-K slices, the memo and its invalidation, one override rule for every family,
 * the fallback when a configured kernel does not build, clf_last_error() surviving successful calls, and
 * a context destroyed with profiling on measuring nothing. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gemm_mma.h"
#include "gemm_plan.h"
#include "gemm_waves.h"
#include "testutil.h"

/* One context on the first test device, with a cache directory of its own (tests must not see each
 * other's tuning results). */
static clf_context *first_context(const char *cache)
{
    clf_context **ctxs;
    int n = clf_test_contexts(&ctxs);
    ck_assert_int_ge(n, 1);
    char sel[32], dir[1024];
    const clf_device_info *d = clf_context_device(ctxs[0]);
    snprintf(sel, sizeof sel, "%d:%d", d->platform_index, d->device_index);
    clf_test_contexts_free(ctxs, n);
    snprintf(dir, sizeof dir, "%s/%s-%d", clf_test_tmpdir(), cache, (int)getpid());
    clf_context_options opt = {.device = sel, .cache_dir = dir};
    clf_context *ctx;
    ck_assert_msg(clf_context_create(&opt, &ctx) == CLF_SUCCESS, "%s", clf_last_error());
    return ctx;
}

/* A tuning entry for bucket, with the work-groups per compute unit the tuner measured (0: none). */
static void store_config_wg(clf_context *ctx, const char *bucket, const char *text, int wg_per_cu)
{
    char section[128];
    clf__tunedb_entry_path("gemm", "f32", bucket, section, sizeof section);
    json_t *e = json_pack("{s:s, s:f}", "config", text, "gflops", 1.0);
    if (wg_per_cu)
        json_object_set_new(e, "wg_per_cu", json_integer(wg_per_cu));
    ck_assert_msg(clf__tunedb_store(ctx, section, e) == CLF_SUCCESS, "%s", clf_last_error());
}

static void store_config(clf_context *ctx, const char *bucket, const char *text)
{
    store_config_wg(ctx, bucket, text, 0);
}

/* A context on the first test device made to look like an H200-class GPU to the planner (132 compute units,
 * 48 KiB of local memory): planning launches nothing, so a CPU context stands in. *saved gets the real
 * description back for pretend_end. */
static clf_context *pretend_gpu(const char *cache, clf_device_info *saved)
{
    clf_context *ctx = first_context(cache);
    *saved = ctx->info;
    ctx->info.type = CL_DEVICE_TYPE_GPU;
    ctx->info.compute_units = 132;
    ctx->info.max_alloc = (size_t)1 << 34;
    ctx->info.max_work_group = 1024;
    ctx->info.local_mem = 49152;
    return ctx;
}

static void pretend_end(clf_context *ctx, const clf_device_info *saved)
{
    ctx->info = *saved;
    clf_context_destroy(ctx);
}

/* Steps of the given kind in a plan. */
/* Steps of a kind; for CLF__STEP_PACK the operands packed (one launch packs one or both). */
static int steps_of(const clf__gemm_plan *plan, clf__step_kind kind)
{
    int n = 0;
    for (int j = 0; j < plan->nsteps; j++)
        if (plan->steps[j].kind == kind)
            n += kind == CLF__STEP_PACK ? plan->steps[j].u.pack.count : 1;
    return n;
}

/* Plans call on ctx with the planner's own choices (no configuration or path forced); the plan must succeed. */
static void plan_auto(clf_context *ctx, const clf__gemm_call *call, clf__gemm_plan *plan)
{
    ck_assert_msg(clf__gemm_plan_make(ctx, call, NULL, CLF__GEMM_AUTO, plan) == CLF_SUCCESS, "%s", clf_last_error());
}

static clf__gemm_call nn_call(size_t m, size_t n, size_t k)
{
    return (clf__gemm_call){.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_NO_TRANS,
                            .m = m, .n = n, .k = k, .alpha = 1.0, .lda = k, .ldb = n, .ldc = n, .batch = 1};
}

#define THIN_CFG "MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=8 VWM=4 VWN=2 KWI=8 PADA=4 PADB=0 DBUF=1"

/* A thin product on a GPU splits along K, and every slice runs the thin bucket's configuration (slices
 * were once re-planned on their own and landed in "medium"). Planning launches nothing, so a CPU context
 * stands in for a 132-unit GPU. */
START_TEST(thin_slices_keep_the_thin_configuration)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("thin", &saved);
    store_config(ctx, "thin", THIN_CFG);
    clf__config want;
    ck_assert_int_eq(clf__config_parse(&clf__family_gemm, THIN_CFG, &want), CLF_SUCCESS);
    if (!clf__family_gemm.valid(&want, &ctx->info, CLF_F32)) {
        pretend_end(ctx, &saved);
        return;   /* this device's limits reject the configuration: nothing to check here */
    }
    clf__gemm_call call = nn_call(256, 4096, 4096);
    ck_assert_str_eq(clf__gemm_bucket(&ctx->info, 256, 4096, 4096), "thin");
    clf__gemm_plan plan;
    plan_auto(ctx, &call, &plan);
    ck_assert_str_eq(plan.path, "split-k");
    ck_assert_str_eq(plan.bucket, "thin");
    ck_assert_str_eq(plan.origin_main, "tuned");
    int mains = 0, reduces = 0;
    for (int i = 0; i < plan.nsteps; i++) {
        if (plan.steps[i].kind == CLF__STEP_REDUCE)
            reduces++;
        if (plan.steps[i].kind != CLF__STEP_MAIN)
            continue;
        mains++;
        ck_assert_msg(memcmp(plan.steps[i].u.main.cfg, &want, sizeof want) == 0, "step %d runs another configuration", i);
        ck_assert_uint_eq(plan.steps[i].u.main.k_flops % 256, 0);
    }
    ck_assert_int_ge(mains, 1);
    ck_assert_int_eq(reduces, 1);
    ck_assert_uint_gt(plan.partial_bytes, 0);
    pretend_end(ctx, &saved);
}
END_TEST

/* The memo answers without the file; a stored tuning result is seen by the next call. */
START_TEST(memo_sees_stored_results)
{
    clf_context *ctx = first_context("memo");
    clf__config a, b;
    const char *origin;
    ck_assert_int_eq(clf__config_resolve(ctx, &clf__family_gemm, CLF_F32, "large", &a, &origin), CLF_SUCCESS);
    ck_assert_str_ne(origin, "tuned");
    const char *text = "MWG=32 NWG=32 KWG=16 MDIMC=8 NDIMC=8 VWM=2 VWN=2 KWI=2 PADA=0 PADB=0 DBUF=0";
    store_config(ctx, "large", text);
    ck_assert_int_eq(clf__config_resolve(ctx, &clf__family_gemm, CLF_F32, "large", &b, &origin), CLF_SUCCESS);
    ck_assert_str_eq(origin, "tuned");
    char got[256];
    clf__config_format(&clf__family_gemm, &b, got, sizeof got);
    ck_assert_str_eq(got, text);
    clf_context_destroy(ctx);
}
END_TEST

/* clf_config_in_use names what runs, override included; a bad override fails the call for gemm, map and
 * copy alike, and names the variable. */
START_TEST(one_override_rule)
{
    clf_context *ctx = first_context("override");
    char cfg[256], origin[32];
    setenv("CLFORGE_GEMM_CONFIG", "KWI=1", 1);
    ck_assert_int_eq(clf_config_in_use(ctx, "gemm", "f32", "medium", cfg, sizeof cfg, origin, sizeof origin),
                     CLF_SUCCESS);
    ck_assert_ptr_nonnull(strstr(cfg, "KWI=1"));
    ck_assert_str_eq(origin, "override");
    unsetenv("CLFORGE_GEMM_CONFIG");
    ck_assert_int_eq(clf_config_in_use(ctx, "gemm", "f32", "medium", cfg, sizeof cfg, origin, sizeof origin),
                     CLF_SUCCESS);
    ck_assert_str_ne(origin, "override");

    cl_mem x = clf_test_buffer(ctx, 64 * sizeof(float), NULL), y = clf_test_buffer(ctx, 64 * sizeof(float), NULL);
    setenv("CLFORGE_MAP_CONFIG", "VW=3", 1);
    clf_map_arg args[] = {{.name = "x", .kind = CLF_ARG_BUFFER, .dtype = CLF_F32, .buffer = x},
                          {.name = "y", .kind = CLF_ARG_BUFFER, .dtype = CLF_F32, .buffer = y}};
    ck_assert_int_eq(clf_map(ctx, "y = x + 1", 64, args, 2, NULL), CLF_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(clf_last_error(), "CLFORGE_MAP_CONFIG"));
    unsetenv("CLFORGE_MAP_CONFIG");
    setenv("CLFORGE_COPY_CONFIG", "WG=7", 1);
    ck_assert_int_eq(clf_copy(ctx, x, 0, y, 0, 64 * sizeof(float), NULL), CLF_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(clf_last_error(), "CLFORGE_COPY_CONFIG"));
    unsetenv("CLFORGE_COPY_CONFIG");
    setenv("CLFORGE_GEMM_CONFIG", "MWG=33", 1);
    setenv("CLFORGE_GEMV_CONFIG", "THIN=1 TINY=0", 1);   /* a 4 x 4 product on the tiled kernels */
    ck_assert_int_eq(clf_sgemm(ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, 4, 4, 4, 1.0f, x, 0, 4, y, 0, 4, 0.0f,
                               x, 32, 4, NULL),
                     CLF_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(clf_last_error(), "CLFORGE_GEMM_CONFIG"));
    unsetenv("CLFORGE_GEMM_CONFIG");
    unsetenv("CLFORGE_GEMV_CONFIG");
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    clf_context_destroy(ctx);
}
END_TEST

/* A failed call's message survives later successful calls (lookups that fall back set none). */
START_TEST(last_error_survives_success)
{
    clf_context *ctx = first_context("lasterr");
    cl_mem a = clf_test_buffer(ctx, 256 * sizeof(float), NULL);
    ck_assert_int_eq(clf_sgemm(ctx, (clf_layout)7, CLF_NO_TRANS, CLF_NO_TRANS, 4, 4, 4, 1.0f, a, 0, 4, a, 16, 4,
                               0.0f, a, 64, 4, NULL),
                     CLF_ERR_INVALID_ARG);
    char before[512];
    snprintf(before, sizeof before, "%s", clf_last_error());
    ck_assert_ptr_nonnull(strstr(before, "layout"));
    ck_assert_int_eq(clf_sgemm(ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, 8, 8, 8, 1.0f, a, 0, 8, a, 64, 8,
                               0.0f, a, 128, 8, NULL),
                     CLF_SUCCESS);
    ck_assert_int_eq(clf_finish(ctx), CLF_SUCCESS);
    ck_assert_str_eq(clf_last_error(), before);
    clReleaseMemObject(a);
    clf_context_destroy(ctx);
}
END_TEST

/* Destroying a profiling context reports, but measures and writes nothing. */
START_TEST(destroy_measures_nothing)
{
    setenv("CLFORGE_PROFILE", "1", 1);
    clf_context *ctx = first_context("destroy");
    unsetenv("CLFORGE_PROFILE");
    char path[1200];
    snprintf(path, sizeof path, "%s", clf__tunedb_path(ctx));
    cl_mem x = clf_test_buffer(ctx, 1024, NULL), y = clf_test_buffer(ctx, 1024, NULL);
    ck_assert_int_eq(clf_copy(ctx, x, 0, y, 0, 1024, NULL), CLF_SUCCESS);
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    clf_context_destroy(ctx);
    struct stat st;
    ck_assert_msg(stat(path, &st) != 0, "destroy wrote the tuning database %s", path);
}
END_TEST

/* Reads cl/<name> from the source tree. */
static char *read_source(const char *name)
{
    const char *root = getenv("CLFORGE_SOURCE_DIR");
    ck_assert_ptr_nonnull(root);
    char path[1024];
    snprintf(path, sizeof path, "%s/cl/%s", root, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = calloc(1, (size_t)n + 1);
    ck_assert_uint_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return text;
}

#define POISON_CFG "MWG=16 NWG=16 KWG=16 MDIMC=8 NDIMC=8 VWM=1 VWN=1 KWI=2 PADA=0 PADB=0 DBUF=0"
#define POISON_IF "#if MWG == 16 && NWG == 16 && KWI == 2 && DBUF == 0 && VWM == 1\n"

/* A kernel folder: every file of cl/ (a kernel that includes another finds it), with `extra` appended to file
 * `name` (or prepended when `before`). */
static void kernel_dir(const char *sub, const char *name, const char *extra, int before, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", clf_test_tmpdir(), sub);
    mkdir(out, 0700);
    char src[1024];
    snprintf(src, sizeof src, "%s/cl", getenv("CLFORGE_SOURCE_DIR"));
    DIR *dir = opendir(src);
    ck_assert_ptr_nonnull(dir);
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".cl") != 0)
            continue;
        char *text = read_source(e->d_name), path[1400];
        if (!text)
            continue;
        snprintf(path, sizeof path, "%s/%s", out, e->d_name);
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        int hit = strcmp(e->d_name, name) == 0;
        if (hit && before)
            fputs(extra, f);
        fputs(text, f);
        if (hit && !before)
            fputs(extra, f);
        fclose(f);
        free(text);
    }
    closedir(dir);
}

/* A 24^3 product through clf_sgemm, checked against the host. */
static void check_small_sgemm(clf_context *ctx)
{
    enum { N = 24 };
    float ha[N * N], hb[N * N], hc[N * N];
    uint64_t seed = 7;
    clf_test_rand_f32(ha, N * N, &seed);
    clf_test_rand_f32(hb, N * N, &seed);
    cl_mem a = clf_test_buffer(ctx, sizeof ha, ha), b = clf_test_buffer(ctx, sizeof hb, hb);
    cl_mem c = clf_test_buffer(ctx, sizeof hc, NULL);
    ck_assert_str_eq(clf__gemm_bucket(&ctx->info, N, N, N), "small");
    setenv("CLFORGE_GEMV_CONFIG", "TINY=0 THIN=0", 1);   /* else a product this small runs on the gemv kernels */
    clf_status s = clf_sgemm(ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, N, N, N, 1.0f, a, 0, N, b, 0, N, 0.0f,
                             c, 0, N, NULL);
    unsetenv("CLFORGE_GEMV_CONFIG");
    ck_assert_msg(s == CLF_SUCCESS, "%s", clf_last_error());
    clf_test_read(ctx, c, sizeof hc, hc);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double ref = 0;
            for (int p = 0; p < N; p++)
                ref += (double)ha[i * N + p] * hb[p * N + j];
            ck_assert_msg(fabs(hc[i * N + j] - ref) < 1e-4, "C[%d][%d] = %g, want %g", i, j, hc[i * N + j], ref);
        }
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
}

/* A configuration of another driver's tuning file that builds but computes wrong results here is caught by
 * its first-use check and set aside; the call answers correctly. */
START_TEST(stale_config_checked_on_first_use)
{
    char kdir[1024];
    kernel_dir("kernels-wrong", "common.cl", POISON_IF "#undef MAD\n#define MAD(a, b, c) ((a) * (b) + (c) + (real)1)\n#endif\n",
               0, kdir, sizeof kdir);
    setenv("CLFORGE_KERNEL_DIR", kdir, 1);
    clf_context *ctx = first_context("stale");
    store_config(ctx, "small", POISON_CFG);
    /* The file becomes another driver's: another id, key and driver. */
    char cache[1024], oldpath[1300];
    snprintf(cache, sizeof cache, "%s", clf_context_cache_dir(ctx));
    snprintf(oldpath, sizeof oldpath, "%s/tuning/00000000deadbeef.json", cache);
    json_error_t err;
    json_t *doc = json_load_file(clf__tunedb_path(ctx), 0, &err);
    ck_assert_ptr_nonnull(doc);
    json_t *dev = json_object_get(doc, "device");
    json_object_set_new(dev, "key", json_string("old driver key"));
    json_object_set_new(dev, "driver", json_string("0.0-old"));
    ck_assert_int_eq(json_dump_file(doc, oldpath, 0), 0);
    json_decref(doc);
    ck_assert_int_eq(unlink(clf__tunedb_path(ctx)), 0);
    char sel[32];
    snprintf(sel, sizeof sel, "%d:%d", ctx->info.platform_index, ctx->info.device_index);
    clf_context_destroy(ctx);
    clf_context_options opt = {.device = sel, .cache_dir = cache};
    ck_assert_int_eq(clf_context_create(&opt, &ctx), CLF_SUCCESS);
    char cfg[256], origin[32];
    ck_assert_int_eq(clf_config_in_use(ctx, "gemm", "f32", "small", cfg, sizeof cfg, origin, sizeof origin),
                     CLF_SUCCESS);
    ck_assert_str_eq(origin, "stale");
    check_small_sgemm(ctx);
    ck_assert_int_eq(clf_config_in_use(ctx, "gemm", "f32", "small", cfg, sizeof cfg, origin, sizeof origin),
                     CLF_SUCCESS);
    ck_assert_str_ne(origin, "stale");
    clf_context_destroy(ctx);
    unsetenv("CLFORGE_KERNEL_DIR");
}
END_TEST

START_TEST(unbuildable_tuned_config_falls_back)
{
    char kdir[1024];
    kernel_dir("kernels-broken", "gemm.cl", POISON_IF "#error poisoned by a test\n#endif\n", 1, kdir, sizeof kdir);
    setenv("CLFORGE_KERNEL_DIR", kdir, 1);
    clf_context *ctx = first_context("fallback");
    clf__config poison;
    ck_assert_int_eq(clf__config_parse(&clf__family_gemm, POISON_CFG, &poison), CLF_SUCCESS);
    ck_assert(clf__family_gemm.valid(&poison, &ctx->info, CLF_F32));
    store_config(ctx, "small", POISON_CFG);
    check_small_sgemm(ctx);
    char cfg[256], origin[32];
    ck_assert_int_eq(clf_config_in_use(ctx, "gemm", "f32", "small", cfg, sizeof cfg, origin, sizeof origin),
                     CLF_SUCCESS);
    ck_assert_str_ne(origin, "tuned");
    ck_assert_str_ne(cfg, POISON_CFG);
    /* A configuration the caller forces gets the build error, not a substitute. */
    cl_mem x = clf_test_buffer(ctx, 4096, NULL);
    clf__gemm_call call = {.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_NO_TRANS,
                           .m = 8, .n = 8, .k = 8, .alpha = 1.0, .a = x, .lda = 8, .b = x, .b_off = 64, .ldb = 8,
                           .c = x, .c_off = 128, .ldc = 8, .batch = 1};
    ck_assert_int_eq(clf__gemm_run(ctx, &call, &poison, CLF__GEMM_DIRECT, NULL, NULL), CLF_ERR_BUILD);
    clReleaseMemObject(x);
    clf_context_destroy(ctx);
    unsetenv("CLFORGE_KERNEL_DIR");
}
END_TEST

/* One row or one column of C: the planner takes the matrix-vector path, and every layout and transpose
 * gives the product (ld padded, offsets, beta with a C of its own). */
START_TEST(matrix_vector_products)
{
    clf_context *ctx = first_context("gemv");
    uint64_t seed = 3;
    size_t shapes[][3] = {{1, 300, 257}, {300, 1, 257}, {1, 1, 1000}, {1, 4097, 33}, {65, 1, 4097}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int v = 0; v < 8; v++) {
            size_t m = shapes[si][0], n = shapes[si][1], k = shapes[si][2];
            clf_layout lay = v & 1 ? CLF_COL_MAJOR : CLF_ROW_MAJOR;
            clf_transpose ta = v & 2 ? CLF_TRANS : CLF_NO_TRANS, tb = v & 4 ? CLF_TRANS : CLF_NO_TRANS;
            int row = lay == CLF_ROW_MAJOR;
            size_t ar = (ta == CLF_NO_TRANS) == row ? m : k, ac = (ta == CLF_NO_TRANS) == row ? k : m;
            size_t br = (tb == CLF_NO_TRANS) == row ? k : n, bc = (tb == CLF_NO_TRANS) == row ? n : k;
            size_t cr = row ? m : n, cc = row ? n : m, lda = ac + 3, ldb = bc + 1, ldc = cc + 2, off = 5;
            size_t na = off + ar * lda, nb = off + br * ldb, nc = off + cr * ldc;
            float *ha = malloc(na * 4), *hb = malloc(nb * 4), *hc = malloc(nc * 4), *out = malloc(nc * 4);
            ck_assert(ha && hb && hc && out);
            clf_test_rand_f32(ha, na, &seed);
            clf_test_rand_f32(hb, nb, &seed);
            clf_test_rand_f32(hc, nc, &seed);
            cl_mem a = clf_test_buffer(ctx, na * 4, ha), b = clf_test_buffer(ctx, nb * 4, hb);
            cl_mem c = clf_test_buffer(ctx, nc * 4, hc);
            clf__gemm_call call = {.dtype = CLF_F32, .layout = lay, .ta = ta, .tb = tb, .m = m, .n = n, .k = k,
                                   .alpha = 0.5, .beta = -1.0, .a = a, .a_off = off, .lda = lda, .b = b,
                                   .b_off = off, .ldb = ldb, .c = c, .c_off = off, .ldc = ldc, .batch = 1};
            clf__gemm_plan plan;
            ck_assert_int_eq(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_AUTO, &plan), CLF_SUCCESS);
            ck_assert_str_eq(plan.path, "gemv");
            ck_assert_int_eq(clf_sgemm(ctx, lay, ta, tb, m, n, k, 0.5f, a, off, lda, b, off, ldb, -1.0f, c, off, ldc,
                                       NULL), CLF_SUCCESS);
            clf_test_read(ctx, c, nc * 4, out);
            for (size_t i = 0; i < m; i++)
                for (size_t j = 0; j < n; j++) {
                    double ref = 0, mag = 0;
                    for (size_t q = 0; q < k; q++) {
                        size_t ia = (ta == CLF_NO_TRANS) == row ? i * lda + q : q * lda + i;
                        size_t ib = (tb == CLF_NO_TRANS) == row ? q * ldb + j : j * ldb + q;
                        ref += (double)ha[off + ia] * hb[off + ib];
                        mag += fabs((double)ha[off + ia] * hb[off + ib]);
                    }
                    size_t ic = off + (row ? i * ldc + j : j * ldc + i);
                    ref = 0.5 * ref - hc[ic];
                    ck_assert_msg(fabs(out[ic] - ref) <= 1e-6 * (double)k * (mag + 1), "%zux%zux%zu v%d C[%zu][%zu] = %g, "
                                  "want %g", m, n, k, v, i, j, out[ic], ref);
                }
            clReleaseMemObject(a);
            clReleaseMemObject(b);
            clReleaseMemObject(c);
            free(ha), free(hb), free(hc), free(out);
        }
    clf_context_destroy(ctx);
}
END_TEST

/* A pretended GPU of compute capability 9.0 (planning launches nothing), planned with the family defaults (no
 * shipped entries, no forced matrix-unit configuration). */
static clf_context *pretend_cc90(const char *name, clf_device_info *saved)
{
    clf_context *ctx = pretend_gpu(name, saved);
    ctx->info.nv_cc = 90;
    setenv("CLFORGE_SHIPPED", "off", 1);
    unsetenv("CLFORGE_GEMM_MMA_CONFIG");
    return ctx;
}

/* A typed row-major product (batch strided), B stored N x K, for the matrix units; planning reads no buffer. */
static clf__gemm_call typed_bt_call(size_t m, size_t n, size_t k, size_t batch, clf_dtype in, clf_dtype c_type,
                                    clf_compute mode)
{
    return (clf__gemm_call){.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_TRANS,
                            .m = m, .n = n, .k = k, .alpha = 1.0, .lda = k, .ldb = k, .ldc = n,
                            .stride_a = m * k, .stride_b = n * k, .stride_c = m * n, .batch = batch,
                            .typed = 1, .a_type = in, .b_type = in, .c_type = c_type, .compute = mode, .mma = 1};
}

/* On a compute-capability-9.0 GPU (pretended: planning launches nothing) f16 products get the wgmma
 * configuration; it keeps its 128-wide tiles where they fill the device, and narrows them to 64 columns where
 * C has at most half a tile of columns or the tiles are fewer than the compute units. A forced configuration
 * is kept as it is. */
START_TEST(wgmma_tiles_narrow_for_small_products)
{
    clf_device_info saved;
    clf_context *ctx = pretend_cc90("narrow", &saved);
    const struct { size_t m, n, k, batch; int bn; } cases[] = {
        {8192, 8192, 8192, 1, 128}, {2048, 2048, 2048, 1, 128}, {896, 1664, 1024, 1, 64},
        {128, 64, 128, 512, 64}, {128, 128, 64, 512, 128}, {896, 1664, 1024, 1, 128}};
    for (int i = 0; i < 6; i++) {
        if (i == 5)
            setenv("CLFORGE_GEMM_MMA_CONFIG", "BN=128 WN=128", 1);
        size_t m = cases[i].m, n = cases[i].n, k = cases[i].k;
        clf__gemm_call call = typed_bt_call(m, n, k, cases[i].batch, CLF_F16, CLF_F32, CLF_COMPUTE_EXACT);
        clf__gemm_plan plan;
        plan_auto(ctx, &call, &plan);
        const clf__config *cfg = NULL;
        for (int j = 0; j < plan.nsteps; j++)
            if (plan.steps[j].kind == CLF__STEP_MMA)
                cfg = plan.steps[j].u.mma.cfg;
        ck_assert_msg(cfg && cfg->v[CLF__MMA_WGMMA] == 1, "case %d: no wgmma step", i);
        ck_assert_msg(cfg->v[CLF__MMA_BN] == cases[i].bn && cfg->v[CLF__MMA_WN] == cases[i].bn,
                      "case %d (%zux%zux%zu x %zu): BN %d, want %d", i, m, n, k, cases[i].batch, cfg->v[CLF__MMA_BN],
                      cases[i].bn);
    }
    unsetenv("CLFORGE_GEMM_MMA_CONFIG");
    unsetenv("CLFORGE_SHIPPED");
    pretend_end(ctx, &saved);
}
END_TEST

/* On a compute-capability-9.0 GPU (pretended) f16 and tf32 products of a few hundred rows take the tiles that balance
 * them over the compute units (reshape_wgmma), batches counted whole: 64 x 128 or 64 x 64, unsplit; products the
 * entry's tiles fill, a forced configuration and CLFORGE_GEMM_MMA_TILES=entry keep what the narrowing rule gives. */
START_TEST(wgmma_tiles_for_mid_size_products)
{
    clf_device_info saved;
    clf_context *ctx = pretend_cc90("midsize", &saved);
    const struct { size_t m, n, k, batch; int bm, bn; const char *env, *forced; } cases[] = {
        {300, 12288, 4096, 1, 64, 128, NULL, NULL},      /* 288 entry tiles, C covers 78% of them */
        {832, 5120, 4096, 1, 64, 128, NULL, NULL},
        {112, 7168, 4096, 1, 64, 64, NULL, NULL},        /* 56 entry tiles; 64 x 128 would give 112 */
        {8192, 8192, 8192, 1, 128, 128, NULL, NULL},     /* fills the device */
        {512, 8192, 8192, 1, 128, 128, NULL, NULL},      /* 256 tiles, two rounds of whole tiles */
        {256, 8192, 8192, 1, 128, 64, NULL, NULL},       /* narrowed, and the model agrees */
        {300, 12288, 4096, 2, 128, 128, NULL, NULL},     /* a batch of two fills the units well enough */
        {832, 2560, 4096, 2, 64, 128, NULL, NULL},       /* two of them: 64 x 128 balances the batch */
        {300, 12288, 4096, 1, 128, 128, "entry", NULL},
        {300, 12288, 4096, 1, 128, 128, NULL, "BM=128"}, /* forced: kept as it is */
        {300, 12288, 4096, 1, 64, 128, NULL, NULL},      /* tf32 (below): the same tiles, the entry's 16-deep stages */
        {112, 7168, 4096, 1, 64, 64, NULL, NULL},        /* tf32: 32-deep stages */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].env)
            setenv("CLFORGE_GEMM_MMA_TILES", cases[i].env, 1);
        if (cases[i].forced)
            setenv("CLFORGE_GEMM_MMA_CONFIG", cases[i].forced, 1);
        size_t m = cases[i].m, n = cases[i].n, k = cases[i].k;
        int tf32 = i >= 10;
        clf__gemm_call call = tf32 ? typed_bt_call(m, n, k, cases[i].batch, CLF_F32, CLF_F32, CLF_COMPUTE_TF32)
                                   : typed_bt_call(m, n, k, cases[i].batch, CLF_F16, CLF_F16, CLF_COMPUTE_EXACT);
        clf__gemm_plan plan;
        plan_auto(ctx, &call, &plan);
        unsetenv("CLFORGE_GEMM_MMA_TILES");
        unsetenv("CLFORGE_GEMM_MMA_CONFIG");
        int mma_steps = 0;
        const clf__config *cfg = NULL;
        for (int j = 0; j < plan.nsteps; j++)
            if (plan.steps[j].kind == CLF__STEP_MMA)
                cfg = plan.steps[j].u.mma.cfg, mma_steps++;
        ck_assert_msg(cfg && cfg->v[CLF__MMA_WGMMA] == 1, "case %zu: no wgmma step", i);
        ck_assert_msg(cfg->v[CLF__MMA_BM] == cases[i].bm && cfg->v[CLF__MMA_BN] == cases[i].bn &&
                          cfg->v[CLF__MMA_WN] == cases[i].bn && cfg->v[CLF__MMA_WM] == 64,
                      "case %zu (%zux%zux%zu x %zu): %d x %d tiles, want %d x %d", i, m, n, k, cases[i].batch,
                      cfg->v[CLF__MMA_BM], cfg->v[CLF__MMA_BN], cases[i].bm, cases[i].bn);
        if (cases[i].bm == 64)   /* the model's tiles run unsplit: one launch of the product */
            ck_assert_msg(mma_steps == 1, "case %zu: %d matrix-unit steps", i, mma_steps);
        if (tf32)
            ck_assert_int_eq(cfg->v[CLF__MMA_BK], cases[i].bn == 64 ? 32 : 16);
    }
    unsetenv("CLFORGE_SHIPPED");
    pretend_end(ctx, &saved);
}
END_TEST

/* On a compute-capability-9.0 GPU (pretended) operands whose rows cp.async cannot copy (an odd K, an odd leading
 * dimension, an offset off 16 bytes) are gathered by the kernel in small products, offsets and leading dimensions kept
 * in elements, with no packing launch; large products and CLFORGE_GEMM_MMA_GATHER=pack pack them; =always gathers
 * in large ones too. Split slices step along K in elements. */
START_TEST(unaligned_rows_gathered_in_small_products)
{
    clf_device_info saved;
    clf_context *ctx = pretend_cc90("gather", &saved);
    const struct { size_t m, n, k, lda, a_off; const char *env; int ga, gb, converts; } cases[] = {
        {777, 1555, 999, 999, 0, NULL, 1, 1, 0},        /* odd K: both rows odd */
        {1000, 1000, 1000, 1001, 0, NULL, 1, 0, 0},     /* A's leading dimension alone */
        {1000, 1000, 1000, 1000, 3, NULL, 1, 0, 0},     /* A's offset alone */
        {1024, 1024, 1024, 1024, 0, NULL, 0, 0, 0},     /* aligned: read in place by cp.async */
        {4097, 4097, 4097, 4097, 0, NULL, 0, 0, 2},     /* large: packed */
        {777, 1555, 999, 999, 0, "pack", 0, 0, 2},
        {4097, 4097, 4097, 4097, 0, "always", 1, 1, 0},
        {300, 300, 20001, 20001, 0, NULL, 1, 1, 0},     /* split along K (forced below) */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].env)
            setenv("CLFORGE_GEMM_MMA_GATHER", cases[i].env, 1);
        if (i == 7)
            setenv("CLFORGE_GEMM_SPLIT_K", "3", 1);
        clf__gemm_call call = typed_bt_call(cases[i].m, cases[i].n, cases[i].k, 1, CLF_F16, CLF_F16, CLF_COMPUTE_EXACT);
        call.lda = cases[i].lda;
        call.a_off = cases[i].a_off;
        clf__gemm_plan plan;
        plan_auto(ctx, &call, &plan);
        unsetenv("CLFORGE_GEMM_MMA_GATHER");
        unsetenv("CLFORGE_GEMM_SPLIT_K");
        int mma = 0, slices = 0;
        for (int j = 0; j < plan.nsteps; j++) {
            const clf__mma_step *m = &plan.steps[j].u.mma;
            if (plan.steps[j].kind != CLF__STEP_MMA)
                continue;
            mma++;
            ck_assert_msg(m->a_gather == cases[i].ga && m->b_gather == cases[i].gb, "case %zu: gather A %d B %d", i,
                          m->a_gather, m->b_gather);
            if (m->a_gather && m->batch == 1 && m->kv == cases[i].k) {   /* the whole product: elements */
                ck_assert_uint_eq(m->a.off, cases[i].a_off);
                ck_assert_uint_eq(m->a.ld, cases[i].lda);
            }
            if (m->a_gather && m->batch > 1) {   /* K slices: each starts kw words (2 kw elements) further */
                ck_assert_uint_eq(m->a.stride, 2 * m->kw);
                slices++;
            }
        }
        ck_assert_msg(mma >= 1, "case %zu: no matrix-unit step", i);
        ck_assert_msg(steps_of(&plan, CLF__STEP_CONVERT) == cases[i].converts, "case %zu: %d packing launches", i,
                      steps_of(&plan, CLF__STEP_CONVERT));
        if (i == 7)
            ck_assert_msg(slices == 1, "case %zu: not split along K", i);
    }
    unsetenv("CLFORGE_SHIPPED");
    pretend_end(ctx, &saved);
}
END_TEST

/* On a compute-capability-9.0 GPU (pretended) a 3xTF32 product runs on wgmma over operands split by the packing
 * pass: A as lo, hi, hi runs of K and B as hi, lo, hi, rows of three padded Ks, and a product three times as deep;
 * with wgmma off, or where the split copies would not fit one allocation, it runs on mma.sync over the operands
 * as they are. */
START_TEST(threex_on_wgmma_splits_its_operands)
{
    clf_device_info saved;
    clf_context *ctx = pretend_cc90("split3", &saved);
    size_t max_alloc = ctx->info.max_alloc;
    for (int off = 0; off < 3; off++) {
        if (off == 1)
            setenv("CLFORGE_WGMMA", "off", 1);
        if (off == 2) {   /* room for the operands packed (about 2.6 MB), not split (three times that) */
            unsetenv("CLFORGE_WGMMA");
            ctx->info.max_alloc = 4u << 20;
        }
        size_t m = 1000, n = 700, k = 333;
        clf__gemm_call call = {.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_NO_TRANS,
                               .m = m, .n = n, .k = k, .alpha = 1.0, .lda = k, .ldb = n, .ldc = n,
                               .stride_a = m * k, .stride_b = n * k, .stride_c = m * n, .batch = 1,
                               .typed = 1, .a_type = CLF_F32, .b_type = CLF_F32, .c_type = CLF_F32,
                               .compute = CLF_COMPUTE_3XTF32, .mma = 1};
        clf__gemm_plan plan;
        plan_auto(ctx, &call, &plan);
        int splits[3] = {0, 0, 0};
        const clf__mma_step *mma = NULL;
        for (int j = 0; j < plan.nsteps; j++) {
            const clf__gemm_step *st = &plan.steps[j];
            if (st->kind == CLF__STEP_CONVERT) {
                splits[st->u.convert.split3]++;
                if (st->u.convert.split3)
                    ck_assert_uint_eq(st->u.convert.dst.ld, 3 * st->u.convert.cols_pad);
            }
            if (st->kind == CLF__STEP_MMA && !mma)
                mma = &st->u.mma;
        }
        ck_assert_msg(mma, "no matrix-unit step");
        size_t bk = (size_t)mma->cfg->v[CLF__MMA_BK], kp = (k + bk - 1) / bk * bk;
        if (!off) {
            ck_assert_int_eq(mma->cfg->v[CLF__MMA_WGMMA], 1);
            ck_assert_int_eq(mma->split3, 1);
            ck_assert_msg(splits[1] == 1 && splits[2] == 1, "split packs: A %d, B %d", splits[1], splits[2]);
            ck_assert_uint_eq(mma->a.ld, 3 * kp);
            ck_assert_uint_eq(mma->b.ld, 3 * kp);
            ck_assert_uint_eq(mma->kv, 3 * kp);
        } else {
            ck_assert_int_eq(mma->cfg->v[CLF__MMA_WGMMA], 0);
            ck_assert_int_eq(mma->split3, 0);
            ck_assert_int_eq(splits[1] + splits[2], 0);
            ck_assert_uint_eq(mma->kv, k);
        }
    }
    ctx->info.max_alloc = max_alloc;
    unsetenv("CLFORGE_WGMMA");
    unsetenv("CLFORGE_SHIPPED");
    pretend_end(ctx, &saved);
}
END_TEST

/* The fp32-accurate modes run as exact fp32 where the split costs more than it gains, and 3xF16 of short K as
 * 3xTF32: the classes of the measurement behind the rule (an H200's 132 compute units), and a device twice as
 * wide needing twice the tiles; CLFORGE_GEMM_SPLIT_RULE=off keeps the mode, other modes are never changed. */
START_TEST(split_rule_classes)
{
    const clf__mma_mode X16 = CLF__MMA_3XF16, X32 = CLF__MMA_3XTF32, EXACT = CLF__MMA_NONE;
    static const struct {
        size_t m, n, k, batch;
        clf__mma_mode want16, want32;
    } cases[] = {
        {128, 128, 128, 1, EXACT, EXACT},           {768, 768, 768, 1, EXACT, EXACT},
        {1024, 1024, 1024, 1, EXACT, EXACT},        {1280, 1280, 1280, 1, X16, X32},
        {256, 4096, 4096, 1, EXACT, EXACT},         {4096, 256, 4096, 1, EXACT, EXACT},
        {384, 4096, 4096, 1, X16, X32},             {4096, 4096, 128, 1, EXACT, EXACT},
        {4096, 4096, 256, 1, X32, X32},             {4096, 4096, 512, 1, X16, X32},
        {2048, 2048, 256, 1, EXACT, EXACT},         {2048, 1024, 512, 1, EXACT, EXACT},
        {256, 256, 256, 64, EXACT, EXACT},          {512, 512, 512, 16, EXACT, EXACT},
        {1024, 1024, 1024, 8, X16, X32},            {1024, 1024, 8192, 1, X16, X32},
        {777, 1555, 999, 1, X16, X32},              {8192, 8192, 8192, 1, X16, X32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_msg(clf__gemm_split_choice(cases[i].m, cases[i].n, cases[i].k, cases[i].batch, 132, X16) ==
                          cases[i].want16, "case %zu (3xF16)", i);
        ck_assert_msg(clf__gemm_split_choice(cases[i].m, cases[i].n, cases[i].k, cases[i].batch, 132, X32) ==
                          cases[i].want32, "case %zu (3xTF32)", i);
    }
    ck_assert_int_eq(clf__gemm_split_choice(1280, 1280, 1280, 1, 264, X16), EXACT);
    ck_assert_int_eq(clf__gemm_split_choice(128, 128, 128, 1, 132, CLF__MMA_TF32), CLF__MMA_TF32);
    ck_assert_int_eq(clf__gemm_split_choice(128, 128, 128, 1, 132, CLF__MMA_F16), CLF__MMA_F16);
    setenv("CLFORGE_GEMM_SPLIT_RULE", "sometimes", 1);   /* not understood: a warning, and the rule stays on */
    ck_assert_int_eq(clf__gemm_split_choice(128, 128, 128, 1, 132, X16), EXACT);
    setenv("CLFORGE_GEMM_SPLIT_RULE", "off", 1);
    ck_assert_int_eq(clf__gemm_split_choice(128, 128, 128, 1, 132, X16), X16);
    ck_assert_int_eq(clf__gemm_split_choice(4096, 4096, 256, 1, 132, X16), X16);
    unsetenv("CLFORGE_GEMM_SPLIT_RULE");
}
END_TEST

/* The tuner times PARTS (and FPIPE with one part) only where the kernel uses them: 3xTF32 on wgmma. */
START_TEST(parts_tuned_only_for_3x)
{
    const char *w = "BM=128 BN=128 BK=16 WM=64 WN=128 LDSM=0 STAGES=3 ASYNC=1 SWZ=1 DK=4 WGMMA=1";
    const struct { const char *extra, *bucket; int want; } cases[] = {
        {"FPIPE=0 PARTS=2", "3x", 1}, {"FPIPE=1 PARTS=2", "3x", 1}, {"FPIPE=0 PARTS=1", "3x", 1},
        {"FPIPE=1 PARTS=1", "3x", 0}, {"FPIPE=0 PARTS=2", "all", 0}, {"FPIPE=1 PARTS=1", "all", 1},
        {"FPIPE=0 PARTS=1", "all", 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "%s %s", w, cases[i].extra);
        clf__config c;
        ck_assert_int_eq(clf__config_parse(&clf__family_gemm_mma, text, &c), CLF_SUCCESS);
        ck_assert_msg(clf__family_gemm_mma.in_bucket(&c, cases[i].bucket) == cases[i].want, "%s in %s: want %d",
                      cases[i].extra, cases[i].bucket, cases[i].want);
    }
    clf__config s;   /* mma.sync: one part only */
    ck_assert_int_eq(clf__config_parse(&clf__family_gemm_mma, "BM=128 BN=128 BK=32 WM=32 WN=64 LDSM=2 STAGES=1 FPIPE=1 "
                                       "PARTS=2", &s), CLF_SUCCESS);
    ck_assert_int_eq(clf__family_gemm_mma.in_bucket(&s, "3x"), 0);
}
END_TEST

#define MEDIUM_CFG "MWG=64 NWG=128 KWG=16 MDIMC=8 NDIMC=32 VWM=4 VWN=4 KWI=16 PADA=4 PADB=0 DBUF=1"
#define SKINNY_CFG "MWG=64 NWG=64 KWG=32 MDIMC=8 NDIMC=16 VWM=2 VWN=4 KWI=16 PADA=2 PADB=0 DBUF=1"

/* On a 132-unit GPU (pretended) a medium product whose 64 x 128 tiles balance poorly over the units runs the
 * skinny bucket's 64 x 64 tiles; one that balances well, a forced configuration, and CLFORGE_GEMM_FILL=off
 * keep the bucket's. */
START_TEST(poorly_filled_products_take_smaller_tiles)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("fill", &saved);
    setenv("CLFORGE_GEMM_TILES", "bucket", 1);   /* the fill rule alone (an H200's shipped entries carry times) */
    store_config(ctx, "medium", MEDIUM_CFG);
    store_config(ctx, "skinny", SKINNY_CFG);
    const struct { size_t m, n, k; const char *env, *bucket, *cfg; } cases[] = {
        {1500, 700, 900, NULL, "skinny", SKINNY_CFG},    /* 144 tiles of 64 x 128: 0.55 filled; 264 of 64 x 64: 1.0 */
        {777, 1555, 999, NULL, "skinny", SKINNY_CFG},    /* 169: 0.64; 325: 0.82 */
        {1000, 1000, 1000, NULL, "medium", MEDIUM_CFG},  /* 128: 0.97 */
        {1500, 700, 900, "off", "medium", MEDIUM_CFG},
    };
    for (int i = 0; i < 4; i++) {
        if (cases[i].env)
            setenv("CLFORGE_GEMM_FILL", cases[i].env, 1);
        clf__gemm_call call = nn_call(cases[i].m, cases[i].n, cases[i].k);
        clf__gemm_plan plan;
        plan_auto(ctx, &call, &plan);
        ck_assert_msg(strcmp(plan.bucket, cases[i].bucket) == 0, "case %d: bucket %s, want %s", i, plan.bucket,
                      cases[i].bucket);
        char got[256];
        clf__config_format(&clf__family_gemm, &plan.cfg_main, got, sizeof got);
        ck_assert_msg(strcmp(got, cases[i].cfg) == 0, "case %d: runs %s", i, got);
        unsetenv("CLFORGE_GEMM_FILL");
    }
    /* Another value of the variable warns once, naming it, and leaves the rule on. */
    char log[1024];
    snprintf(log, sizeof log, "%s/fill-env.log", clf_test_tmpdir());
    int saved_err = clf_test_capture_begin(log);
    setenv("CLFORGE_GEMM_FILL", "of", 1);
    clf__gemm_call bad = nn_call(1500, 700, 900);
    clf__gemm_plan bad_plan;
    clf_status bs = clf__gemm_plan_make(ctx, &bad, NULL, CLF__GEMM_AUTO, &bad_plan);
    unsetenv("CLFORGE_GEMM_FILL");
    char *said = clf_test_capture_end(saved_err, log);
    ck_assert_msg(bs == CLF_SUCCESS, "%s", clf_last_error());
    ck_assert_str_eq(bad_plan.bucket, "skinny");
    ck_assert_msg(strstr(said, "CLFORGE_GEMM_FILL=of"), "no warning: %s", said);
    setenv("CLFORGE_GEMM_CONFIG", "KWI=8", 1);   /* an override is the caller's choice: kept */
    clf__gemm_call call = nn_call(1500, 700, 900);
    clf__gemm_plan plan;
    plan_auto(ctx, &call, &plan);
    ck_assert_str_eq(plan.bucket, "medium");
    unsetenv("CLFORGE_GEMM_CONFIG");
    unsetenv("CLFORGE_GEMM_TILES");
    pretend_end(ctx, &saved);
}
END_TEST

/* A tuning entry for bucket with the probe's measurements: wg_per_cu and tile_ns (n values; 16 are the real form). */
static void store_config_times(clf_context *ctx, const char *bucket, const char *text, int wg_per_cu,
                               const int *ns, int n)
{
    char section[128];
    clf__tunedb_entry_path("gemm", "f32", bucket, section, sizeof section);
    json_t *e = json_pack("{s:s, s:f, s:i}", "config", text, "gflops", 1.0, "wg_per_cu", wg_per_cu);
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(ns[i]));
    json_object_set_new(e, "tile_ns", a);
    ck_assert_msg(clf__tunedb_store(ctx, section, e) == CLF_SUCCESS, "%s", clf_last_error());
}

/* The H200's probe times (ns) of 1..8 tiles per compute unit at K = 512, then 2048, rounded. */
static const int MEDIUM_NS[16] = {39000, 58000, 107000, 112000, 158000, 163000, 210000, 212000,
                                  109000, 210000, 346000, 411000, 547000, 610000, 750000, 820000};
static const int LARGE_NS[16] = {61000, 100000, 190000, 192000, 283000, 285000, 376000, 377000,
                                 209000, 362000, 723000, 724000, 1079000, 1083000, 1440000, 1445000};
static const int SKINNY_NS[16] = {23000, 35000, 48000, 61000, 87000, 88000, 101000, 114000,
                                  68000, 115000, 167000, 219000, 326000, 323000, 380000, 430000};

/* The bucket plan runs m x n x k in. */
static const char *bucket_of(clf_context *ctx, size_t m, size_t n, size_t k)
{
    clf__gemm_call call = nn_call(m, n, k);
    clf__gemm_plan plan;
    plan_auto(ctx, &call, &plan);
    return plan.bucket;
}

/* The model of a compute unit's time: the probe's times at K = 512 and 2048 and linear in K between and beyond
 * them; past 8 tiles each further wave costs what the last measured one did. */
START_TEST(tile_time_model)
{
    ck_assert(fabs(clf__gemm_tile_time(MEDIUM_NS, 2, 3, 512) - 107e-6) < 1e-12);
    ck_assert(fabs(clf__gemm_tile_time(MEDIUM_NS, 2, 3, 2048) - 346e-6) < 1e-12);
    ck_assert(fabs(clf__gemm_tile_time(MEDIUM_NS, 2, 3, 1280) - 226.5e-6) < 1e-12);
    ck_assert(fabs(clf__gemm_tile_time(MEDIUM_NS, 2, 1, 3584) - 179e-6) < 1e-12);
    /* 10 tiles on two work-groups a unit: 8 tiles, then one more wave of (t(8) - t(6)) */
    ck_assert(fabs(clf__gemm_tile_time(MEDIUM_NS, 2, 10, 512) - (212000 + 49000) * 1e-9) < 1e-12);
    ck_assert(fabs(clf__gemm_tile_time(SKINNY_NS, 4, 12, 2048) - (430000 + (430000 - 219000)) * 1e-9) < 1e-12);
    /* never under a quarter of the shallow time, however short K */
    ck_assert(fabs(clf__gemm_tile_time(LARGE_NS, 2, 1, 0) - 0.25 * 61e-6) < 1e-12);
    ck_assert(clf__gemm_tile_time(LARGE_NS, 2, 0, 512) == 0);
}
END_TEST

/* On a 132-unit GPU (pretended) whose medium, large and skinny entries carry the probe's times, a product that those
 * buckets' rules leave unsplit runs the tiles the model finds fastest, unsplit, within the probe's 8 tiles a unit;
 * the split rules' products keep theirs; CLFORGE_GEMM_TILES=bucket, or an entry without times (or with malformed ones), leaves the choice to the
 * wave-fill rule. */
START_TEST(tiles_chosen_by_measured_times)
{
    clf_device_info saved;
    setenv("CLFORGE_SHIPPED", "off", 1);   /* only the entries stored here (an H200's shipped ones carry times too) */
    clf_context *ctx = pretend_gpu("retile", &saved);
    store_config_times(ctx, "medium", MEDIUM_CFG, 2, MEDIUM_NS, 16);
    store_config_times(ctx, "large", THIN_CFG, 2, LARGE_NS, 16);
    store_config_times(ctx, "skinny", SKINNY_CFG, 4, SKINNY_NS, 16);
    /* 198 tiles of 64 x 128, 1.5 a unit: modelled 29.5 TFLOP/s; 396 of 64 x 64, 3 a unit in one round: 37.1 */
    clf__gemm_call call = nn_call(1126, 1346, 1954);
    clf__gemm_plan plan;
    plan_auto(ctx, &call, &plan);
    ck_assert_str_eq(plan.bucket, "skinny");
    ck_assert_int_eq(steps_of(&plan, CLF__STEP_REDUCE), 0);
    ck_assert_str_eq(bucket_of(ctx, 4096, 4096, 4096), "large");     /* 128 x 128 tiles are the fastest */
    ck_assert_str_eq(bucket_of(ctx, 1126, 1346, 700), "medium");     /* K under RETILE_MIN_K: not modelled */
    ck_assert_str_eq(bucket_of(ctx, 1000, 1000, 1000), "medium");    /* 128 tiles: fewer than units, fill 0.97 */
    ck_assert_str_eq(bucket_of(ctx, 1500, 700, 900), "skinny");      /* 144 tiles of 64 x 128 against 264 */
    setenv("CLFORGE_GEMM_TILES", "bucket", 1);
    ck_assert_str_eq(bucket_of(ctx, 1126, 1346, 1954), "medium");    /* fill 0.75: the fill rule keeps it */
    ck_assert_str_eq(bucket_of(ctx, 1500, 700, 900), "skinny");      /* fill 0.55: the fill rule moves it */
    /* Another value warns once, naming the variable, and leaves the rule on. */
    char log[1024];
    snprintf(log, sizeof log, "%s/tiles-env.log", clf_test_tmpdir());
    int saved_err = clf_test_capture_begin(log);
    setenv("CLFORGE_GEMM_TILES", "buckets", 1);
    const char *with_bad = bucket_of(ctx, 1126, 1346, 1954);
    char *said = clf_test_capture_end(saved_err, log);
    ck_assert_str_eq(with_bad, "skinny");
    ck_assert_msg(strstr(said, "CLFORGE_GEMM_TILES=buckets"), "no warning: %s", said);
    unsetenv("CLFORGE_GEMM_TILES");
    pretend_end(ctx, &saved);
    /* The model is not extrapolated past the probe's 8 tiles a unit: with medium's times made four times faster,
     * 3072 x 2816 (1056 tiles of 64 x 128: 8 a unit) takes them, 4608 x 2816 (1584: 12 a unit) keeps large's
     * 792 tiles (three whole waves, unsplit). */
    int fast[16];
    for (int i = 0; i < 16; i++)
        fast[i] = MEDIUM_NS[i] / 4;
    ctx = pretend_gpu("retile-range", &saved);
    store_config_times(ctx, "medium", MEDIUM_CFG, 2, fast, 16);
    store_config_times(ctx, "large", THIN_CFG, 2, LARGE_NS, 16);
    store_config_times(ctx, "skinny", SKINNY_CFG, 4, SKINNY_NS, 16);
    ck_assert_str_eq(bucket_of(ctx, 3072, 2816, 1024), "medium");
    ck_assert_str_eq(bucket_of(ctx, 4608, 2816, 1024), "large");
    pretend_end(ctx, &saved);
    int bad[16];
    memcpy(bad, SKINNY_NS, sizeof bad);
    bad[3] = -5;
    const struct { const int *ns; int n; } broken[] = {{SKINNY_NS, 0}, {SKINNY_NS, 15}, {bad, 16}};
    for (int i = 0; i < 3; i++) {   /* a fresh database each: a store merges into the entry */
        char name[32];
        snprintf(name, sizeof name, "retile-broken%d", i);
        ctx = pretend_gpu(name, &saved);
        store_config_times(ctx, "medium", MEDIUM_CFG, 2, MEDIUM_NS, 16);
        store_config_times(ctx, "large", THIN_CFG, 2, LARGE_NS, 16);
        if (broken[i].n)
            store_config_times(ctx, "skinny", SKINNY_CFG, 4, broken[i].ns, broken[i].n);
        else
            store_config_wg(ctx, "skinny", SKINNY_CFG, 4);
        const char *got = bucket_of(ctx, 1126, 1346, 1954);
        ck_assert_msg(strcmp(got, "medium") == 0, "broken times %d used: %s", i, got);
        ck_assert_str_eq(bucket_of(ctx, 1500, 700, 900), "skinny");
        pretend_end(ctx, &saved);
    }
    unsetenv("CLFORGE_SHIPPED");
}
END_TEST

/* On a GPU (pretended) a B stored N x K is packed K-major first when C has 512 rows or more, and read in
 * place below that (attention's batched A B^T), unless CLFORGE_GEMM_NT_PACK says otherwise. */
START_TEST(transposed_b_packed_only_for_tall_products)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("ntpack", &saved);
    const struct { size_t m, n, k, batch; const char *env; int packs; } cases[] = {
        {4096, 4096, 4096, 1, NULL, 1}, {1024, 1024, 1024, 1, NULL, 1}, {128, 128, 64, 512, NULL, 0},
        {256, 256, 256, 64, NULL, 0}, {128, 128, 64, 512, "1", 1}, {4096, 4096, 4096, 1, "0", 0}};
    for (int i = 0; i < 6; i++) {
        if (cases[i].env)
            setenv("CLFORGE_GEMM_NT_PACK", cases[i].env, 1);
        size_t m = cases[i].m, n = cases[i].n, k = cases[i].k;
        clf__gemm_call call = {.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_TRANS,
                               .m = m, .n = n, .k = k, .alpha = 1.0, .lda = k, .ldb = k, .ldc = n,
                               .stride_a = m * k, .stride_b = n * k, .stride_c = m * n, .batch = cases[i].batch};
        clf__gemm_plan plan;
        ck_assert_msg(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_FAST, &plan) == CLF_SUCCESS, "%s",
                      clf_last_error());
        int packs = steps_of(&plan, CLF__STEP_PACK);
        ck_assert_msg(packs == cases[i].packs, "case %d (%zux%zux%zu x %zu): %d packs, want %d", i, m, n, k,
                      cases[i].batch, packs, cases[i].packs);
        unsetenv("CLFORGE_GEMM_NT_PACK");
    }
    /* Another value warns once, naming the variable, and the rule decides (a short product: in place). */
    char log[1024];
    snprintf(log, sizeof log, "%s/ntpack-env.log", clf_test_tmpdir());
    int saved_err = clf_test_capture_begin(log);
    setenv("CLFORGE_GEMM_NT_PACK", "yes", 1);
    clf__gemm_call bad = {.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_TRANS, .m = 128,
                          .n = 128, .k = 64, .alpha = 1.0, .lda = 64, .ldb = 64, .ldc = 128, .stride_a = 128 * 64,
                          .stride_b = 128 * 64, .stride_c = 128 * 128, .batch = 512};
    clf__gemm_plan plan;
    clf_status bs = clf__gemm_plan_make(ctx, &bad, NULL, CLF__GEMM_FAST, &plan);
    unsetenv("CLFORGE_GEMM_NT_PACK");
    char *said = clf_test_capture_end(saved_err, log);
    ck_assert_msg(bs == CLF_SUCCESS, "%s", clf_last_error());
    int packs = steps_of(&plan, CLF__STEP_PACK);
    ck_assert_int_eq(packs, 0);
    ck_assert_msg(strstr(said, "CLFORGE_GEMM_NT_PACK=yes"), "no warning: %s", said);
    pretend_end(ctx, &saved);
}
END_TEST

/* On a GPU (pretended) a thin product keeps the thin bucket's 128 x 128 tiles only when C covers most of their area
 * and, split along K, they reach every compute unit; otherwise the medium or large bucket's tiles (which the
 * wave-fill rule may narrow) run it. A forced configuration stays. */
START_TEST(poorly_covered_thin_products_leave_the_thin_bucket)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("unthin", &saved);
    store_config(ctx, "thin", THIN_CFG);
    store_config(ctx, "medium", MEDIUM_CFG);
    store_config(ctx, "skinny", SKINNY_CFG);
    const struct { size_t m, n, k; const char *bucket; } cases[] = {
        {256, 4096, 4096, "thin"},     /* 64 tiles in 4 slices, all covered */
        {384, 8192, 3000, "thin"},
        {900, 500, 3000, "skinny"},    /* 32 tiles in 2 slices: too few; medium's 60 tiles then narrow */
        {200, 5000, 3000, "skinny"},   /* C covers 78% of the tiles */
        {6159, 188, 3555, "medium"},   /* 73% */
    };
    for (int i = 0; i < 5; i++) {
        ck_assert_str_eq(clf__gemm_bucket(&ctx->info, cases[i].m, cases[i].n, cases[i].k), "thin");
        clf__gemm_call call = nn_call(cases[i].m, cases[i].n, cases[i].k);
        clf__gemm_plan plan;
        plan_auto(ctx, &call, &plan);
        ck_assert_msg(strcmp(plan.bucket, cases[i].bucket) == 0, "case %d: bucket %s, want %s", i, plan.bucket,
                      cases[i].bucket);
    }
    setenv("CLFORGE_GEMM_CONFIG", "KWI=8", 1);   /* an override is the caller's choice: kept */
    clf__gemm_call call = nn_call(900, 500, 3000);
    clf__gemm_plan plan;
    plan_auto(ctx, &call, &plan);
    ck_assert_str_eq(plan.bucket, "thin");
    unsetenv("CLFORGE_GEMM_CONFIG");
    pretend_end(ctx, &saved);
}
END_TEST

/* On a GPU (pretended) a product with more tiles than compute units, a long K and tiles that fill under 3/4 of
 * the work-groups the device holds at once (the tuning entry's wg_per_cu) splits along K; the same product
 * whose tiles fill the slots, or without a measured wg_per_cu, does not; nor does a short K. */
START_TEST(products_that_leave_slots_empty_split)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("slots", &saved);
    const struct { int wg_per_cu; size_t m, n, k; int split; } cases[] = {
        {4, 5300, 120, 4400, 1},   /* 166 tiles of 64 x 64, 528 slots */
        {4, 4485, 89, 6813, 1},    /* 142 */
        {4, 5300, 120, 1500, 0},   /* K under two slices of 1024 */
        {1, 5300, 120, 4400, 0},   /* 132 slots (the last-wave rule takes it) */
        {0, 5300, 120, 4400, 0},   /* not measured */
    };
    for (int i = 0; i < 5; i++) {
        store_config_wg(ctx, "skinny", SKINNY_CFG, cases[i].wg_per_cu);
        clf__gemm_call call = nn_call(cases[i].m, cases[i].n, cases[i].k);
        clf__gemm_plan plan;
        plan_auto(ctx, &call, &plan);
        ck_assert_str_eq(plan.bucket, "skinny");
        ck_assert_msg((strcmp(plan.path, "split-k") == 0) == cases[i].split, "case %d: path %s", i, plan.path);
        if (cases[i].split)
            ck_assert_int_eq(steps_of(&plan, CLF__STEP_REDUCE), 1);
    }
    pretend_end(ctx, &saved);
}
END_TEST

/* The partial planes a plan's reduction sums (0: none). */
static size_t planes_of(const clf__gemm_plan *plan)
{
    for (int j = 0; j < plan->nsteps; j++)
        if (plan->steps[j].kind == CLF__STEP_REDUCE)
            return plan->steps[j].u.reduce.planes;
    return 0;
}

/* On a GPU (pretended) a single fp32 product with a K of 1280 to 2047 whose tiles leave over a quarter of the
 * compute units without one splits K into slices of 256, also where the direct kernel would have taken it; one
 * whose tiles reach every unit, a K under five slices, a forced configuration or CLFORGE_GEMM_SPLIT_K=1
 * does not split, and a product whose tiles would still leave units idle runs the small bucket's tiles, split
 * (small_split). */
START_TEST(short_k_products_split_when_units_idle)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("short", &saved);
    store_config(ctx, "medium", MEDIUM_CFG);
    store_config(ctx, "skinny", SKINNY_CFG);
    const struct { size_t m, n, k; const char *env, *path; size_t slices; } cases[] = {
        {404, 580, 1488, NULL, "split-k", 6},  /* 70 tiles of 64 x 64: 5 slices of 256 and a shorter one */
        {530, 410, 1700, NULL, "split-k", 7},  /* 63: the direct kernel's until now */
        {820, 760, 1300, NULL, "split-k", 6},  /* 78 of 64 x 128 */
        {672, 648, 1758, NULL, "packed", 0},   /* 121: every unit has a tile */
        {430, 770, 1650, NULL, "split-k", 7},  /* 91: 0.69 a unit */
        {610, 610, 1280, NULL, "packed", 0},   /* 100: 0.76 a unit */
        {1500, 700, 900, NULL, "packed", 0},   /* 264 of 64 x 64 */
        {1250, 500, 1000, NULL, "packed", 0},  /* 80 tiles of 64 x 128, K under five slices */
        {380, 380, 1024, NULL, "split-k", 4},  /* 18 tiles of 64 x 128: the small bucket's 144, in 4 (small_split) */
        {404, 580, 1488, "1", "packed", 0},    /* CLFORGE_GEMM_SPLIT_K=1: never split */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].env)
            setenv("CLFORGE_GEMM_SPLIT_K", cases[i].env, 1);
        clf__gemm_call call = nn_call(cases[i].m, cases[i].n, cases[i].k);
        clf__gemm_plan plan;
        plan_auto(ctx, &call, &plan);
        unsetenv("CLFORGE_GEMM_SPLIT_K");
        ck_assert_msg(strcmp(plan.path, cases[i].path) == 0, "case %zu: path %s, want %s", i, plan.path, cases[i].path);
        if (!cases[i].slices)
            continue;
        ck_assert_int_eq(steps_of(&plan, CLF__STEP_REDUCE), 1);
        const clf__gemm_step *first = NULL;
        for (int j = 0; j < plan.nsteps && !first; j++)
            first = plan.steps[j].kind == CLF__STEP_MAIN ? &plan.steps[j] : NULL;
        ck_assert_ptr_nonnull(first);
        ck_assert_uint_le(first->u.main.k_flops, 256);
        ck_assert_uint_eq(first->u.main.batch, cases[i].slices);
    }
    /* The last slice (1488 - 5 * 256 = 208 deep) is read in place with edge checks in the slices' launch: nothing
     * packed. */
    clf__gemm_call call = nn_call(404, 580, 1488);
    clf__gemm_plan plan;
    plan_auto(ctx, &call, &plan);
    ck_assert_int_eq(steps_of(&plan, CLF__STEP_PACK), 0);
    const clf__main_step *slices = &plan.steps[plan.nsteps - 2].u.main;
    ck_assert_int_eq(plan.steps[plan.nsteps - 2].kind, CLF__STEP_MAIN);
    ck_assert_uint_eq(slices->k_last, 208);
    ck_assert_uint_eq(slices->batch, 6);
    ck_assert(slices->edge_a || slices->edge_b);
    /* A configuration forced through the environment keeps the rule it was measured with: no split. */
    setenv("CLFORGE_GEMM_CONFIG", SKINNY_CFG, 1);
    plan_auto(ctx, &call, &plan);
    unsetenv("CLFORGE_GEMM_CONFIG");
    ck_assert_str_eq(plan.path, "packed");
    pretend_end(ctx, &saved);
}
END_TEST

/* A pretended GPU whose large, medium and skinny buckets are tuned, with the work-groups a compute unit holds. */
static clf_context *pretend_tuned_gpu(const char *cache, clf_device_info *saved)
{
    clf_context *ctx = pretend_gpu(cache, saved);
    store_config_wg(ctx, "large", THIN_CFG, 2);
    store_config_wg(ctx, "medium", MEDIUM_CFG, 2);
    store_config_wg(ctx, "skinny", SKINNY_CFG, 4);
    return ctx;
}

/* On a GPU (pretended), a split product's slices keep their partial edge tiles: the edge strips that a whole
 * product sends to the direct kernel would be batched over the slices and not split further. The slices are one
 * launch, the last one shorter. */
START_TEST(split_products_keep_edge_tiles)
{
    clf_device_info saved;
    clf_context *ctx = pretend_tuned_gpu("splitedges", &saved);
    const struct { size_t m, n, k; } cases[] = {
        {1300, 900, 2600},   /* 20 rows and 4 columns past the last whole 64 x 64 tiles */
        {3010, 260, 4800},   /* 2 rows and 4 columns */
        {211, 5800, 5100},   /* 19 rows */
        {1310, 1090, 2400},  /* 30 rows, 2 columns; A packed */
    };
    for (int i = 0; i < 4; i++) {
        clf__gemm_call call = nn_call(cases[i].m, cases[i].n, cases[i].k);
        clf__gemm_plan plan;
        plan_auto(ctx, &call, &plan);
        ck_assert_msg(strcmp(plan.path, "split-k") == 0, "case %d: path %s", i, plan.path);
        int mains = 0;
        const clf__main_step *slices = NULL;
        for (int j = 0; j < plan.nsteps; j++) {
            if (plan.steps[j].kind != CLF__STEP_MAIN)
                continue;
            const clf__main_step *m = &plan.steps[j].u.main;
            ck_assert_msg(!m->direct && m->m == cases[i].m && m->n == cases[i].n, "case %d: step %d is %zu x %zu%s", i,
                          j, m->m, m->n, m->direct ? " on the direct kernel" : "");
            mains++;
            slices = m;
        }
        ck_assert_int_eq(mains, 1);
        ck_assert_uint_eq(slices->batch, planes_of(&plan));
        ck_assert_uint_eq((slices->batch - 1) * slices->k_flops + (slices->k_last ? slices->k_last : slices->k_flops),
                          cases[i].k);
        ck_assert_int_eq(steps_of(&plan, CLF__STEP_REDUCE), 1);
    }
    pretend_end(ctx, &saved);
}
END_TEST

#define BATCHED_CFG "MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=8 VWM=4 VWN=2 KWI=8 PADA=4 PADB=0 DBUF=1"

/* On a GPU (pretended) an fp32 batch that the packing pass would pad runs the direct kernel with the batch bucket's
 * configuration, reading the matrices in place, B stored N x K too (with the direct layout); aligned batches and fp64
 * batches keep the packed kernel, and under CLFORGE_GEMM_DIRECT_LAYOUT=0 batches with B stored N x K as well. */
START_TEST(padded_nn_batches_read_in_place)
{
    clf_device_info saved;
    setenv("CLFORGE_GEMM_TILES", "bucket", 1);   /* the batch bucket's tiles (batch_tiles is tested below) */
    clf_context *ctx = pretend_gpu("batchinplace", &saved);
    store_config(ctx, "batched", BATCHED_CFG);
    clf__config want;
    ck_assert_int_eq(clf__config_parse(&clf__family_gemm, BATCHED_CFG, &want), CLF_SUCCESS);
    const struct { size_t m, n, k, batch; int tb; clf_dtype dt; int direct; } cases[] = {
        {308, 103, 430, 152, 0, CLF_F32, 1}, {298, 423, 47, 360, 0, CLF_F32, 1}, {256, 256, 256, 64, 0, CLF_F32, 0},
        {308, 103, 430, 152, 1, CLF_F32, 1}, {308, 103, 430, 152, 0, CLF_F64, 0}, {308, 103, 430, 152, 1, CLF_F32, 0},
    };
    for (int i = 0; i < 6; i++) {
        size_t m = cases[i].m, n = cases[i].n, k = cases[i].k;
        clf__gemm_call call = {.dtype = cases[i].dt, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS,
                               .tb = cases[i].tb ? CLF_TRANS : CLF_NO_TRANS, .m = m, .n = n, .k = k, .alpha = 1.0,
                               .lda = k, .ldb = cases[i].tb ? k : n, .ldc = n, .stride_a = m * k, .stride_b = n * k,
                               .stride_c = m * n, .batch = cases[i].batch};
        clf__gemm_plan plan;
        if (i == 5)   /* B stored N x K without the direct layout: packed, as before it */
            setenv("CLFORGE_GEMM_DIRECT_LAYOUT", "0", 1);
        plan_auto(ctx, &call, &plan);
        unsetenv("CLFORGE_GEMM_DIRECT_LAYOUT");
        int packs = steps_of(&plan, CLF__STEP_PACK), direct = 0, mains = 0;
        for (int j = 0; j < plan.nsteps; j++) {
            if (plan.steps[j].kind == CLF__STEP_MAIN) {
                mains++;
                direct += plan.steps[j].u.main.direct;
                if (cases[i].dt == CLF_F32)
                    ck_assert_msg(memcmp(plan.steps[j].u.main.cfg, &want, sizeof want) == 0,
                                  "case %d: step %d runs another configuration", i, j);
            }
        }
        if (cases[i].dt == CLF_F64) {   /* on NVIDIA devices with DMMA the matrix units take it */
            ck_assert_int_eq(direct, 0);
            continue;
        }
        ck_assert_str_eq(plan.bucket, "batched");
        ck_assert_int_eq(mains, 1);
        ck_assert_msg(direct == cases[i].direct && (cases[i].direct ? packs == 0 : 1),
                      "case %d: direct %d, packs %d (path %s)", i, direct, packs, plan.path);
        if (cases[i].direct)
            ck_assert_str_eq(plan.path, "direct");
    }
    unsetenv("CLFORGE_GEMM_TILES");
    pretend_end(ctx, &saved);
}
END_TEST

#define BSMALL_CFG "MWG=64 NWG=32 KWG=16 MDIMC=8 NDIMC=8 VWM=2 VWN=4 KWI=16 PADA=2 PADB=4 DBUF=1"

/* A strided batch of m x n x k, B stored N x K when tb, planned on ctx with the planner's own choices. */
static clf__gemm_plan batch_plan(clf_context *ctx, size_t batch, size_t m, size_t n, size_t k, int tb, clf_dtype dt)
{
    clf__gemm_call call = {.dtype = dt, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = tb ? CLF_TRANS : CLF_NO_TRANS,
                           .m = m, .n = n, .k = k, .alpha = 1.0, .lda = k, .ldb = tb ? k : n, .ldc = n,
                           .stride_a = m * k, .stride_b = n * k, .stride_c = m * n, .batch = batch};
    clf__gemm_plan plan;
    plan_auto(ctx, &call, &plan);
    return plan;
}

/* On a GPU (pretended) an fp32 batch of the batched bucket runs the tiles, among the batched, medium, skinny and
 * batched_small entries', that C covers best, when they cover at least 1.15 times more (ties: the larger tiles);
 * the read path follows the chosen tiles (a padded NN batch reads in place on the direct kernel, but never in the
 * batched_small entry's tiles). fp64 batches,
 * single products, a forced configuration and CLFORGE_GEMM_TILES=bucket keep the bucket's tiles. */
START_TEST(batches_take_the_tiles_c_covers_best)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("batchtiles", &saved);
    store_config(ctx, "batched", BATCHED_CFG);
    store_config(ctx, "medium", MEDIUM_CFG);
    store_config(ctx, "skinny", SKINNY_CFG);
    store_config(ctx, "batched_small", BSMALL_CFG);
    const struct { size_t batch, m, n, k; int tb; const char *bucket; int direct, packs; } cases[] = {
        {576, 52, 447, 159, 0, "skinny", 1, 0},      /* 128 x 128 tiles 35% covered; 64 x 64 and 64 x 32 81%: the larger */
        {264, 243, 218, 150, 0, "batched", 1, 0},    /* 81% against 92%: under the 1.15 gain */
        {56, 133, 509, 499, 1, "medium", 1, 0},      /* 52% against 69% (64 x 128 and 64 x 64: the larger) */
        {208, 418, 211, 117, 1, "batched", 1, 0},   /* 67% against 88%, but read in place: not in those tiles */
        {64, 256, 256, 256, 0, "batched", 0, 0},     /* whole tiles */
        {72, 434, 270, 233, 0, "skinny", 1, 0},      /* 64 x 32 (91%) would run on the direct kernel: not a candidate */
    };
    for (int i = 0; i < 6; i++) {
        clf__gemm_plan plan = batch_plan(ctx, cases[i].batch, cases[i].m, cases[i].n, cases[i].k, cases[i].tb, CLF_F32);
        int direct = 0;
        for (int j = 0; j < plan.nsteps; j++)
            direct |= plan.steps[j].kind == CLF__STEP_MAIN && plan.steps[j].u.main.direct;
        ck_assert_msg(strcmp(plan.bucket, cases[i].bucket) == 0 && direct == cases[i].direct &&
                          steps_of(&plan, CLF__STEP_PACK) == cases[i].packs,
                      "case %d: bucket %s, direct %d, packs %d", i, plan.bucket, direct, steps_of(&plan, CLF__STEP_PACK));
    }
    const char *f64 = batch_plan(ctx, 576, 52, 447, 159, 0, CLF_F64).bucket;   /* NULL: fp64 matrix units (an H200) */
    ck_assert_msg(!f64 || strcmp(f64, "batched") == 0, "fp64 batch in %s", f64);
    ck_assert_str_eq(bucket_of(ctx, 1500, 700, 900), "skinny");   /* single products: the rules before */
    setenv("CLFORGE_GEMM_TILES", "bucket", 1);
    ck_assert_str_eq(batch_plan(ctx, 576, 52, 447, 159, 0, CLF_F32).bucket, "batched");
    unsetenv("CLFORGE_GEMM_TILES");
    setenv("CLFORGE_GEMM_CONFIG", "KWI=8", 1);
    clf__gemm_plan forced = batch_plan(ctx, 576, 52, 447, 159, 0, CLF_F32);
    unsetenv("CLFORGE_GEMM_CONFIG");
    ck_assert_str_eq(forced.bucket, "batched");
    ck_assert_int_eq(forced.cfg_main.v[CLF__GEMM_MWG], 128);
    pretend_end(ctx, &saved);
}
END_TEST

/* On a GPU (pretended) a single fp32 product of fewer than 128 rows whose B the fast kernel would pack runs the
 * direct kernel over B in place (split along K as before, every slice so), B stored N x K too (with the direct
 * layout, tested below); few columns, 128 rows or more, a B that needs no pack and CLFORGE_GEMM_PACK=always keep the
 * packed kernel. */
/* The plan of a row-major m x n x k product (B stored N x K when tb) with $var set to value (NULL: unset). */
static void plan_under_env(clf_context *ctx, const char *var, const char *value, size_t m, size_t n, size_t k, int tb,
                           clf__gemm_plan *plan)
{
    if (value)
        setenv(var, value, 1);
    clf__gemm_call call = nn_call(m, n, k);
    if (tb) {
        call.tb = CLF_TRANS;
        call.ldb = call.k;
    }
    plan_auto(ctx, &call, plan);
    unsetenv(var);
}

START_TEST(few_row_products_read_b_in_place)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("fewrows", &saved);
    store_config(ctx, "skinny", SKINNY_CFG);
    store_config(ctx, "medium", MEDIUM_CFG);
    const struct { size_t m, n, k; int tb; const char *env; int in_place; } cases[] = {
        {33, 6623, 2488, 0, NULL, 1},   {82, 7362, 7662, 0, NULL, 1},  {127, 3001, 1500, 0, NULL, 1},
        {47, 6814, 2270, 1, NULL, 1},   {6782, 175, 2487, 0, NULL, 0}, {128, 3001, 3000, 0, NULL, 0},
        {40, 4096, 4096, 0, NULL, 0},   {33, 6623, 2488, 0, "always", 0},
    };
    for (int i = 0; i < 8; i++) {
        clf__gemm_plan plan;
        plan_under_env(ctx, "CLFORGE_GEMM_PACK", cases[i].env, cases[i].m, cases[i].n, cases[i].k, cases[i].tb, &plan);
        int mains = 0, direct = 0, packed_b = 0;
        for (int j = 0; j < plan.nsteps; j++) {
            const clf__gemm_step *st = &plan.steps[j];
            mains += st->kind == CLF__STEP_MAIN;
            direct += st->kind == CLF__STEP_MAIN && st->u.main.direct;
            for (int q = 0; st->kind == CLF__STEP_PACK && q < st->u.pack.count; q++)
                packed_b |= st->u.pack.op[q].cols == cases[i].n;
        }
        if (cases[i].in_place)
            ck_assert_msg(direct == mains && steps_of(&plan, CLF__STEP_PACK) == 0, "case %d: %d of %d mains direct, %d packs",
                          i, direct, mains, steps_of(&plan, CLF__STEP_PACK));
        else
            ck_assert_msg(direct < mains, "case %d: every main step direct (path %s)", i, plan.path);
        if (i == 0)
            ck_assert_int_ge(steps_of(&plan, CLF__STEP_REDUCE), 1);   /* still split along K */
        if (i == 6)
            ck_assert_int_eq(packed_b, 0);   /* 4096 columns: B read in place by the fast kernel */
    }
    pretend_end(ctx, &saved);
}
END_TEST

/* Main steps of a plan and the deepest K among them (the slices' length when split). */
static int main_steps(const clf__gemm_plan *plan, size_t *longest_k)
{
    int n = 0;
    *longest_k = 0;
    for (int j = 0; j < plan->nsteps; j++)
        if (plan->steps[j].kind == CLF__STEP_MAIN) {
            n++;
            if (plan->steps[j].u.main.k > *longest_k)
                *longest_k = plan->steps[j].u.main.k;
        }
    return n;
}

/* Direct main steps of a plan, and those with the direct layout, whose laid-out operands (stored with K contiguous)
 * have padded local rows of g modulo 2g elements (g: the vector width, at least 4 fp32 elements), the others none. */
static void direct_layout_steps(const clf__gemm_plan *plan, int *direct, int *laid_out)
{
    *direct = *laid_out = 0;
    for (int j = 0; j < plan->nsteps; j++) {
        const clf__main_step *m = &plan->steps[j].u.main;
        if (plan->steps[j].kind != CLF__STEP_MAIN || !m->direct)
            continue;
        (*direct)++;
        const int *v = m->cfg->v;
        int ga = v[CLF__GEMM_VWM] > 4 ? v[CLF__GEMM_VWM] : 4, gb = v[CLF__GEMM_VWN] > 4 ? v[CLF__GEMM_VWN] : 4;
        int sa = v[CLF__GEMM_MWG] + v[CLF__GEMM_PADA] + m->dpad_a, sb = v[CLF__GEMM_NWG] + v[CLF__GEMM_PADB] + m->dpad_b;
        ck_assert(!(m->dlay & 1) || (!m->a_kmajor && sa % (2 * ga) == ga));
        ck_assert(!(m->dlay & 2) || (!m->b_kmajor && sb % (2 * gb) == gb));
        ck_assert_int_eq(m->dlay & 1 ? 0 : m->dpad_a, 0);
        ck_assert_int_eq(m->dlay & 2 ? 0 : m->dpad_b, 0);
        ck_assert(m->dpad_a % v[CLF__GEMM_VWM] == 0 && m->dpad_b % v[CLF__GEMM_VWN] == 0);
        *laid_out += m->dlay != 0;
    }
}

/* The direct layout (pretended GPU). Unset (auto), or another value: the operands whose plain store would be at least
 * 8-way bank-conflicted get it — B stored N x K in the skinny tiles (rows of 64, KWG 32: 32-way), not A stored M x K
 * (rows of 66: 2-way) — and few-row products read a B stored N x K in place on the direct kernel where they would
 * pack it; "1": every K-contiguous operand; "0": none, and such a B is packed as before. A device whose local memory
 * cannot hold the padding keeps the plain layout. */
START_TEST(direct_layout_pads_rows)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("dlayout", &saved);
    store_config(ctx, "skinny", SKINNY_CFG);
    store_config(ctx, "medium", MEDIUM_CFG);
    store_config(ctx, "small", "MWG=32 NWG=32 KWG=32 MDIMC=8 NDIMC=8 VWM=4 VWN=4 KWI=8 PADA=4 PADB=4 DBUF=1");   /* GPUs' */
    const struct { size_t m, n, k; int tb; const char *env; int all_direct, laid_out; } cases[] = {
        {47, 6814, 2270, 1, NULL, 1, 1},   {47, 6814, 2270, 1, "0", 0, 0},   {47, 6814, 2270, 1, "yes", 1, 1},
        {47, 6814, 2270, 1, "1", 1, 1},    {33, 6623, 2488, 0, "1", 1, 1},   {33, 6623, 2488, 0, NULL, 1, 0},
        {47, 6814, 2272, 1, "1", 0, 1},    /* K a multiple of 4: the fast kernel reads B in place, as before */
        {33, 6623, 2488, 0, "0", 1, 0},    {47, 6814, 2270, 1, "auto", 1, 1},
        {251, 259, 605, 1, NULL, 1, 0},    /* the small bucket's 36-wide rows: 4-way, the plain layout */
        {251, 259, 605, 1, "1", 1, 1},
    };
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        clf__gemm_plan plan;
        plan_under_env(ctx, "CLFORGE_GEMM_DIRECT_LAYOUT", cases[i].env, cases[i].m, cases[i].n, cases[i].k, cases[i].tb,
                       &plan);
        int direct, laid_out;
        size_t deepest;
        int mains = main_steps(&plan, &deepest);
        direct_layout_steps(&plan, &direct, &laid_out);
        ck_assert_msg(cases[i].all_direct ? direct == mains && steps_of(&plan, CLF__STEP_PACK) == 0 : direct < mains,
                      "case %d: %d of %d main steps direct, %d packs", i, direct, mains, steps_of(&plan, CLF__STEP_PACK));
        ck_assert_msg(laid_out == (cases[i].laid_out ? direct : 0), "case %d: %d of %d direct steps laid out", i,
                      laid_out, direct);
        if (cases[i].laid_out && cases[i].tb && !cases[i].env)   /* auto: B laid out, A (2-way) not */
            for (int j = 0; j < plan.nsteps; j++)
                if (plan.steps[j].kind == CLF__STEP_MAIN && plan.steps[j].u.main.direct)
                    ck_assert_int_eq(plan.steps[j].u.main.dlay, 2);
        if (i == 4) {   /* too little local memory for the padded rows: the plain layout */
            ctx->info.local_mem = 2 * 32 * (64 + 2 + 64) * 4;   /* the skinny tiles unpadded, double-buffered */
            plan_under_env(ctx, "CLFORGE_GEMM_DIRECT_LAYOUT", "1", cases[i].m, cases[i].n, cases[i].k, 0, &plan);
            direct_layout_steps(&plan, &direct, &laid_out);
            ck_assert_int_eq(laid_out, 0);
            ctx->info.local_mem = 49152;
        }
    }
    pretend_end(ctx, &saved);
}
END_TEST

/* On a pretended GPU of 132 units a product of under 128 rows and fewer tiles than units is cut into slices in units
 * of 512 along K instead of 1024 (more of them; as many as 512-deep slices and a rest make, evened out: 384-767
 * deep), unset or with another value than off; under CLFORGE_GEMM_FEW_TILES_SLICES=off, with more tiles, or with few
 * columns instead of few rows it keeps slices in units of 1024 (768 deep or more). */
START_TEST(few_tiles_take_shorter_slices)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("fewtiles", &saved);
    store_config(ctx, "skinny", SKINNY_CFG);
    const struct { size_t m, n, k; const char *env; size_t slice_lo, slice_hi; } cases[] = {
        {34, 4170, 3268, NULL, 384, 767},    {34, 4170, 3268, "off", 768, 3268}, {34, 4170, 3268, "yes", 384, 767},
        {58, 4157, 2710, NULL, 384, 767},
        {115, 6000, 3000, NULL, 768, 3000},  /* 188 tiles of 64 x 64: more than the units, no short slices */
        {4170, 34, 3268, NULL, 768, 3268},   /* few columns: the longer slices */
    };
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        clf__gemm_plan plan;
        plan_under_env(ctx, "CLFORGE_GEMM_FEW_TILES_SLICES", cases[i].env, cases[i].m, cases[i].n, cases[i].k, 0, &plan);
        size_t slice;
        int mains = main_steps(&plan, &slice);
        if (cases[i].slice_lo < 768)   /* the others may run whole */
            ck_assert_msg(mains >= 1 && planes_of(&plan) >= 2, "case %d: %d main steps", i, mains);
        ck_assert_msg(slice >= cases[i].slice_lo && slice <= cases[i].slice_hi, "case %d: slices of %zu", i, slice);
    }
    pretend_end(ctx, &saved);
}
END_TEST

/* Under CLFORGE_GEMM_SPLIT_SUM=fused a split product has no reduction step: its slices' main step sums them (sum),
 * stores the whole product's C with its alpha, beta and epilogue, and takes a flag a tile from the split_flags
 * scratch. Unset, "launch" or another value: the reduction launch as before. */
START_TEST(split_products_summed_in_their_launch)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("splitsum", &saved);
    store_config(ctx, "skinny", SKINNY_CFG);
    const char *values[] = {"fused", NULL, "launch", "yes"};
    for (int v = 0; v < 4; v++) {
        clf__gemm_plan plan;
        plan_under_env(ctx, "CLFORGE_GEMM_SPLIT_SUM", values[v], 337, 468, 2965, 0, &plan);
        int fused = v == 0, sums = 0;
        for (int j = 0; j < plan.nsteps; j++) {
            const clf__main_step *m = &plan.steps[j].u.main;
            if (plan.steps[j].kind != CLF__STEP_MAIN || !m->sum)
                continue;
            sums++;
            ck_assert(m->c.kind == CLF__BUF_USER && m->partial.kind == CLF__BUF_PARTIAL && m->c.stride == 0);
            ck_assert(m->alpha == 1.0 && m->batch >= 2);
            size_t tiles = (m->m + (size_t)m->cfg->v[CLF__GEMM_MWG] - 1) / (size_t)m->cfg->v[CLF__GEMM_MWG] *
                           ((m->n + (size_t)m->cfg->v[CLF__GEMM_NWG] - 1) / (size_t)m->cfg->v[CLF__GEMM_NWG]);
            ck_assert_uint_eq(plan.flag_bytes, 4 * (m->flag_off + tiles));
        }
        ck_assert_msg(sums == fused && steps_of(&plan, CLF__STEP_REDUCE) == !fused && (plan.flag_bytes > 0) == fused,
                      "value %s: %d summing steps, %d reductions", values[v] ? values[v] : "unset", sums,
                      steps_of(&plan, CLF__STEP_REDUCE));
    }
    pretend_end(ctx, &saved);
}
END_TEST

/* On a GPU (pretended, 132 units) a product of at least 128 rows and columns and a K of 2048 or more whose tiles
 * leave over a quarter of the units idle is cut into slices in units of 256 (medium_split), where slices of 1024
 * gave it two or three; one whose tiles reach three quarters of the units keeps them, as do few-row products (their
 * own rule), a forced split and CLFORGE_GEMM_MEDIUM_SPLIT=off (another value is warned of and ignored). */
START_TEST(medium_products_of_few_tiles_take_short_slices)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("medsplit", &saved);
    store_config(ctx, "skinny", SKINNY_CFG);
    store_config(ctx, "medium", MEDIUM_CFG);
    const struct { size_t m, n, k; const char *split; size_t planes_lo, planes_hi, slice_hi; } cases[] = {
        {337, 468, 2965, NULL, 8, 12, 384},     /* 48 tiles of 64 x 64 */
        {516, 340, 2999, NULL, 8, 12, 384},     /* 54 */
        {900, 500, 3000, NULL, 2, 3, 1536},     /* 120 tiles: slices of 1024 or more */
        {337, 468, 2965, "2", 2, 3, 1536},      /* forced */
        {100, 4000, 3000, NULL, 2, 6, 1536},    /* few rows: slices of 512 or more (few_tiles_take_shorter_slices) */
    };
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        clf__gemm_plan plan;
        plan_under_env(ctx, "CLFORGE_GEMM_SPLIT_K", cases[i].split, cases[i].m, cases[i].n, cases[i].k, 0, &plan);
        size_t slice, planes = planes_of(&plan);
        main_steps(&plan, &slice);
        ck_assert_msg(planes >= cases[i].planes_lo && planes <= cases[i].planes_hi && slice <= cases[i].slice_hi,
                      "case %d: %zu slices of %zu (bucket %s)", i, planes, slice, plan.bucket);
    }
    clf__gemm_plan plan;
    plan_under_env(ctx, "CLFORGE_GEMM_MEDIUM_SPLIT", "off", 337, 468, 2965, 0, &plan);
    size_t slice, planes = planes_of(&plan);
    main_steps(&plan, &slice);
    ck_assert_msg(planes >= 2 && planes <= 3 && slice > 900, "rule off: %zu slices of %zu", planes, slice);   /* K spread evenly */
    plan_under_env(ctx, "CLFORGE_GEMM_MEDIUM_SPLIT", "yes", 337, 468, 2965, 0, &plan);   /* warned, ignored: on */
    ck_assert_uint_ge(planes_of(&plan), 8);
    pretend_end(ctx, &saved);
}
END_TEST

/* On a GPU (pretended, 132 units) a product of the small bucket with fewer 32 x 32 tiles than two a unit and a K
 * of 1024 or more is cut into slices of K in units of 256 (192 deep or more), and runs whole under
 * CLFORGE_GEMM_SMALL_SPLIT=off; a shorter K, more tiles, or C of under 128 rows or columns runs whole either way.
 * A longer product whose bucket's tiles leave three quarters of the units idle runs there too, in the small
 * bucket's tiles, split; under =off in its bucket's, as under a forced CLFORGE_GEMM_SPLIT_K. */
START_TEST(small_products_split_when_their_tiles_leave_units_idle)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("smallsplit", &saved);
    const struct { size_t m, n, k; const char *env; int split; } cases[] = {
        {209, 374, 1136, NULL, 1},  {209, 374, 1136, "off", 0}, {209, 374, 1136, "yes", 1},
        {64, 64, 1024, NULL, 1},    {306, 521, 431, NULL, 0},   {300, 300, 1000, NULL, 0},   /* K under 1024 */
        {300, 300, 1400, NULL, 1},                                                            /* 100 tiles */
        {640, 448, 448, NULL, 0},   /* 280 tiles, two a unit or more */
        {1000, 100, 1300, NULL, 0}, /* 100 columns: under 128, the few-row rules' (none splits this one) */
        {300, 179, 2571, NULL, 1},  {263, 250, 4798, NULL, 1},  /* long K, 15 and 20 tiles of 64 x 64 */
        {263, 250, 4798, "off", 0},
    };
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        clf__gemm_plan plan;
        plan_under_env(ctx, "CLFORGE_GEMM_SMALL_SPLIT", cases[i].env, cases[i].m, cases[i].n, cases[i].k, 0, &plan);
        int small = strcmp(plan.bucket, "small") == 0;
        if (cases[i].k >= 2048) {   /* long K: the small bucket only under the rule */
            ck_assert_msg(small == cases[i].split, "case %d: bucket %s", i, plan.bucket);
            if (!small)
                continue;
        }
        ck_assert_msg(small, "case %d: bucket %s", i, plan.bucket);
        size_t slice;
        int mains = main_steps(&plan, &slice);
        if (cases[i].split) {
            ck_assert_msg(mains >= 1 && steps_of(&plan, CLF__STEP_REDUCE) == 1, "case %d: %d main steps", i, mains);
            ck_assert_msg(slice >= 192 && slice < cases[i].k, "case %d: slices of %zu", i, slice);
        } else {
            ck_assert_msg(mains == 1 && steps_of(&plan, CLF__STEP_REDUCE) == 0 && slice == cases[i].k,
                          "case %d: split (%d main steps, slices of %zu)", i, mains, slice);
        }
    }
    /* A forced split cuts a long-K product in its bucket's tiles, as before these rules. */
    clf__gemm_plan forced;
    plan_under_env(ctx, "CLFORGE_GEMM_SPLIT_K", "4", 263, 250, 4798, 0, &forced);
    ck_assert_msg(strcmp(forced.bucket, "small") != 0 && planes_of(&forced) >= 4, "bucket %s, %zu slices",
                  forced.bucket, planes_of(&forced));
    pretend_end(ctx, &saved);
}
END_TEST

/* A split product (pretended GPU) is one launch of slices of whole K tiles, the last one shorter (k_last), and the
 * reduction, on the direct kernel (the small bucket's tiles, few rows with B stored K x N, a forced split on the
 * direct path) and on the fast one (its operands read with edge checks, or packed with the last slice zero-padded);
 * a K that the slices divide has no shorter one. */
START_TEST(split_products_run_their_last_slice_in_the_same_launch)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("ragged", &saved);
    store_config(ctx, "skinny", SKINNY_CFG);
    const struct {
        size_t m, n, k;
        int tb;
        clf__gemm_path path;
        const char *split;
        int direct, packs, ragged;
    } cases[] = {
        {300, 179, 2571, 0, CLF__GEMM_AUTO, NULL, 1, 0, 1},     /* long K, few tiles: the small bucket's, split */
        {34, 4170, 3268, 0, CLF__GEMM_AUTO, NULL, 1, 0, 1},     /* few rows, B K x N: direct slices */
        {600, 700, 1500, 1, CLF__GEMM_DIRECT, "3", 1, 0, 1},    /* forced */
        {600, 700, 1536, 0, CLF__GEMM_DIRECT, "3", 1, 0, 0},    /* K in three whole slices: none shorter */
        {47, 6814, 2272, 1, CLF__GEMM_AUTO, NULL, 0, 0, 1},     /* the fast kernel, A and B read with edge checks */
        {349, 517, 1502, 0, CLF__GEMM_AUTO, NULL, 0, 1, 1},     /* the fast kernel, B packed (N not in vectors) */
    };
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        if (cases[i].split)
            setenv("CLFORGE_GEMM_SPLIT_K", cases[i].split, 1);
        clf__gemm_call call = nn_call(cases[i].m, cases[i].n, cases[i].k);
        if (cases[i].tb)
            call.tb = CLF_TRANS, call.ldb = cases[i].k;
        clf__gemm_plan plan;
        ck_assert_msg(clf__gemm_plan_make(ctx, &call, NULL, cases[i].path, &plan) == CLF_SUCCESS, "%s",
                      clf_last_error());
        unsetenv("CLFORGE_GEMM_SPLIT_K");
        size_t slice, planes = planes_of(&plan);
        int mains = main_steps(&plan, &slice);
        ck_assert_msg(planes >= 2, "case %d: not split", i);
        const clf__main_step *first = NULL;
        const clf__pack_step *pack = NULL;
        for (int j = 0; j < plan.nsteps; j++) {
            if (plan.steps[j].kind == CLF__STEP_MAIN && !first)
                first = &plan.steps[j].u.main;
            if (plan.steps[j].kind == CLF__STEP_PACK)
                pack = &plan.steps[j].u.pack;
        }
        ck_assert_msg(mains == 1 && first->direct == cases[i].direct && first->batch == planes,
                      "case %d: %d main steps, direct %d", i, mains, first->direct);
        ck_assert_uint_eq(first->k_flops % (size_t)first->cfg->v[CLF__GEMM_KWG], 0);
        ck_assert_int_eq(pack != NULL, cases[i].packs);
        if (cases[i].ragged) {
            ck_assert_msg(first->k_last > 0 && first->k_last < first->k_flops &&
                              (planes - 1) * first->k_flops + first->k_last == cases[i].k,
                          "case %d: %zu slices of %zu, the last %zu", i, planes, first->k_flops, first->k_last);
            ck_assert(!pack || (pack->batch == planes && pack->rows_last == first->k_last));
        } else {
            ck_assert_uint_eq(first->k_last, 0);
            ck_assert_uint_eq(planes * first->k_flops, cases[i].k);
        }
    }
    pretend_end(ctx, &saved);
}
END_TEST

/* On a GPU (pretended) operands of a batch that fit the vector width are read in place with edge checks instead
 * of packed when their sizes are not tile multiples; one that does not fit is packed. Single products are packed,
 * unless CLFORGE_GEMM_PACK=edges; CLFORGE_GEMM_PACK=always packs batches too. */
START_TEST(vector_aligned_operands_read_in_place_with_edges)
{
    clf_device_info saved;
    clf_context *ctx = pretend_gpu("edges", &saved);
    store_config(ctx, "batched", BATCHED_CFG);
    store_config(ctx, "medium", MEDIUM_CFG);
    const struct { size_t m, n, k, batch; const char *env; int packs, edge_a, edge_b; } cases[] = {
        {200, 104, 96, 200, NULL, 0, 1, 1},    /* no size a tile multiple; every size fits the vectors */
        {200, 104, 95, 200, NULL, 1, 0, 1},    /* A's rows (along K) of 95 do not fit: packed */
        {200, 105, 95, 200, NULL, 2, 0, 0},
        {200, 104, 96, 200, "always", 2, 0, 0},
        {1000, 1000, 1000, 1, NULL, 2, 0, 0},  /* a single product: packed */
        {1000, 1000, 1000, 1, "edges", 0, 1, 1},
        {256, 256, 256, 64, NULL, 0, 0, 0},    /* whole tiles: in place without checks */
    };
    for (int i = 0; i < 7; i++) {
        if (cases[i].env)
            setenv("CLFORGE_GEMM_PACK", cases[i].env, 1);
        size_t m = cases[i].m, n = cases[i].n, k = cases[i].k;
        clf__gemm_call call = nn_call(m, n, k);
        call.batch = cases[i].batch;
        call.stride_a = m * k;
        call.stride_b = k * n;
        call.stride_c = m * n;
        clf__gemm_plan plan;
        ck_assert_msg(clf__gemm_plan_make(ctx, &call, NULL, CLF__GEMM_FAST, &plan) == CLF_SUCCESS, "%s",
                      clf_last_error());
        unsetenv("CLFORGE_GEMM_PACK");
        int packs = steps_of(&plan, CLF__STEP_PACK), mains = 0;
        for (int j = 0; j < plan.nsteps; j++) {
            if (plan.steps[j].kind != CLF__STEP_MAIN || plan.steps[j].u.main.direct)
                continue;
            mains++;
            const clf__main_step *ms = &plan.steps[j].u.main;
            ck_assert_msg(ms->edge_a == cases[i].edge_a && ms->edge_b == cases[i].edge_b, "case %d: edges %d %d", i,
                          ms->edge_a, ms->edge_b);
            /* with edge checks the kernel takes the true K; packed operands are padded to whole K tiles */
            size_t kwg = (size_t)ms->cfg->v[CLF__GEMM_KWG];
            ck_assert_uint_eq(ms->k, ms->edge_a || ms->edge_b ? k : (k + kwg - 1) / kwg * kwg);
        }
        ck_assert_int_ge(mains, 1);
        ck_assert_msg(packs == cases[i].packs, "case %d: %d packs, want %d", i, packs, cases[i].packs);
        int launches = 0;   /* both operands in one launch */
        for (int j = 0; j < plan.nsteps; j++)
            launches += plan.steps[j].kind == CLF__STEP_PACK;
        ck_assert_int_eq(launches, cases[i].packs > 0);
    }
    /* Another value of the variable warns once, naming it, and the rule decides (a batch: edge checks). */
    char log[1024];
    snprintf(log, sizeof log, "%s/pack-env.log", clf_test_tmpdir());
    int saved_err = clf_test_capture_begin(log);
    setenv("CLFORGE_GEMM_PACK", "sometimes", 1);
    clf__gemm_call bad = nn_call(200, 104, 96);
    bad.batch = 200;
    bad.stride_a = 200 * 96;
    bad.stride_b = 96 * 104;
    bad.stride_c = 200 * 104;
    clf__gemm_plan bad_plan;
    clf_status bs = clf__gemm_plan_make(ctx, &bad, NULL, CLF__GEMM_FAST, &bad_plan);
    unsetenv("CLFORGE_GEMM_PACK");
    char *said = clf_test_capture_end(saved_err, log);
    ck_assert_msg(bs == CLF_SUCCESS, "%s", clf_last_error());
    ck_assert_int_eq(steps_of(&bad_plan, CLF__STEP_PACK), 0);
    ck_assert_msg(strstr(said, "CLFORGE_GEMM_PACK=sometimes"), "no warning: %s", said);
    pretend_end(ctx, &saved);
}
END_TEST

/* A uniform draw from [0, 1) (clf_test_rand draws from [-1, 1)). */
static double unit_draw(uint64_t *rng) { return (clf_test_rand(rng) + 1.0) / 2.0; }

/* A drawn size from lo to hi, about as often in each octave. */
static size_t drawn_size(uint64_t *rng, size_t lo, size_t hi)
{
    return (size_t)((double)lo * pow((double)hi / (double)lo, unit_draw(rng)));
}

/* Every split in the plans of drawn products on pretended GPUs covers K exactly once: fp32 products (the tuned
 * buckets' tiles, waves measured) and f16, bf16, tf32 and 3xTF32 ones on the matrix units (compute capability 9.0),
 * planned as they come and, a quarter of them, with CLFORGE_GEMM_SPLIT_K forced to 2-9. The slices of a split are one
 * launch into partial planes (or, with the fused sum, into C): all as deep as the first but the last, which is no
 * deeper and not empty, and together K deep (fp32: up to a KWG of padding where the operands are packed; matrix
 * units: the words of K rounded up to a stage, of which exactly K elements exist, or three such runs, all existing,
 * for 3xTF32 on wgmma); the reduction sums as many planes as the launch has slices. The GPU tests run some of these
 * plans; this checks many more of them. */
START_TEST(drawn_splits_cover_k_once)
{
    clf_device_info saved;
    clf_context *ctx = pretend_tuned_gpu("drawn-splits", &saved);
    uint64_t rng = 4242;
    int splits = 0, mma_splits = 0;
    for (int i = 0; i < 1200; i++) {
        int mma = i >= 800;
        if (i == 800) {   /* the matrix units */
            ctx->info.nv_cc = 90;
            setenv("CLFORGE_SHIPPED", "off", 1);
            setenv("CLFORGE_GEMM_WG_PER_CU", "2", 1);
        }
        size_t m = drawn_size(&rng, 8, 5000), n = drawn_size(&rng, 8, 5000), k = drawn_size(&rng, 200, 20000);
        int forced = unit_draw(&rng) < 0.25;
        char parts[16];
        snprintf(parts, sizeof parts, "%d", 2 + (int)(unit_draw(&rng) * 8));
        if (forced)
            setenv("CLFORGE_GEMM_SPLIT_K", parts, 1);
        static const clf_compute modes[] = {CLF_COMPUTE_EXACT, CLF_COMPUTE_EXACT, CLF_COMPUTE_TF32, CLF_COMPUTE_3XTF32};
        clf_compute mode = modes[i % 4];   /* f16, bf16, tf32, 3xTF32 */
        clf_dtype in = mode != CLF_COMPUTE_EXACT ? CLF_F32 : i % 4 ? CLF_BF16 : CLF_F16;
        clf__gemm_call call = mma ? typed_bt_call(m, n, k, 1, in, in, mode) : nn_call(m, n, k);
        if (!mma) {
            call.ta = unit_draw(&rng) < 0.5 ? CLF_TRANS : CLF_NO_TRANS;
            call.tb = unit_draw(&rng) < 0.5 ? CLF_TRANS : CLF_NO_TRANS;
            call.lda = call.ta == CLF_TRANS ? m : k;
            call.ldb = call.tb == CLF_TRANS ? k : n;
        }
        clf__gemm_plan plan;
        plan_auto(ctx, &call, &plan);
        unsetenv("CLFORGE_GEMM_SPLIT_K");
        size_t planes = planes_of(&plan);
        for (int j = 0; j < plan.nsteps; j++) {
            const clf__gemm_step *st = &plan.steps[j];
            if (st->kind == CLF__STEP_MAIN && (st->u.main.c.kind == CLF__BUF_PARTIAL || st->u.main.sum)) {
                const clf__main_step *ms = &st->u.main;
                size_t last = ms->k_last ? ms->k_last : ms->k, kwg = (size_t)ms->cfg->v[CLF__GEMM_KWG];
                size_t deep = (ms->batch - 1) * ms->k + last;
                ck_assert_msg(last > 0 && last <= ms->k && deep >= k && deep < k + kwg,
                              "%zux%zux%zu (ta %d tb %d, %s): %zu slices of %zu, the last %zu", m, n, k, call.ta,
                              call.tb, forced ? parts : "planned", ms->batch, ms->k, last);
                ck_assert_msg(ms->sum || planes == ms->batch, "%zux%zux%zu: %zu planes, %zu slices", m, n, k, planes,
                              ms->batch);
                splits++;
            }
            if (st->kind == CLF__STEP_MMA && st->u.mma.c.kind == CLF__BUF_PARTIAL) {
                const clf__mma_step *ms = &st->u.mma;
                /* elements a word; split operands (3xTF32 on wgmma) are three padded runs of K, all of which exist */
                size_t epw = 4 / clf__dtype_size(in), runs = ms->split3 ? 3 : 1, bk = (size_t)ms->cfg->v[CLF__MMA_BK];
                size_t kw = runs * ((k + bk - 1) / bk * bk) / epw, kv = runs > 1 ? epw * kw : k;
                ck_assert_msg(ms->kw_last > 0 && ms->kw_last <= ms->kw && ms->kv_last > 0 &&
                                  (ms->batch - 1) * ms->kw + ms->kw_last == kw &&
                                  (ms->batch - 1) * ms->kv + ms->kv_last == kv && ms->kv == epw * ms->kw,
                              "%zux%zux%zu mode %d of %d-byte inputs (%s): %zu slices of %zu words, the last %zu (%zu "
                              "elements)", m, n, k, (int)mode, (int)clf__dtype_size(in), forced ? parts : "planned",
                              ms->batch, ms->kw, ms->kw_last, ms->kv_last);
                ck_assert_uint_eq(planes, ms->batch);
                mma_splits++;
            }
        }
    }
    fprintf(stderr, "gemm_plan: %d fp32 and %d matrix-unit splits of 1200 drawn products checked\n", splits,
            mma_splits);
    ck_assert_int_gt(splits, 100);
    ck_assert_int_gt(mma_splits, 50);
    unsetenv("CLFORGE_SHIPPED");
    unsetenv("CLFORGE_GEMM_WG_PER_CU");
    pretend_end(ctx, &saved);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gemm_plan");
    CLF_TEST_ALONE(s, thin_slices_keep_the_thin_configuration);
    CLF_TEST_ALONE(s, memo_sees_stored_results);
    CLF_TEST_ALONE(s, one_override_rule);
    CLF_TEST_ALONE(s, last_error_survives_success);
    CLF_TEST_ALONE(s, destroy_measures_nothing);
    CLF_TEST_ALONE(s, unbuildable_tuned_config_falls_back);
    CLF_TEST_ALONE(s, stale_config_checked_on_first_use);
    CLF_TEST_ALONE(s, matrix_vector_products);
    CLF_TEST_ALONE(s, wgmma_tiles_narrow_for_small_products);
    CLF_TEST_ALONE(s, wgmma_tiles_for_mid_size_products);
    CLF_TEST_ALONE(s, unaligned_rows_gathered_in_small_products);
    CLF_TEST_ALONE(s, threex_on_wgmma_splits_its_operands);
    CLF_TEST_ALONE(s, parts_tuned_only_for_3x);
    CLF_TEST_ALONE(s, poorly_filled_products_take_smaller_tiles);
    CLF_TEST_ALONE(s, tile_time_model);
    CLF_TEST_ALONE(s, tiles_chosen_by_measured_times);
    CLF_TEST_ALONE(s, transposed_b_packed_only_for_tall_products);
    CLF_TEST_ALONE(s, poorly_covered_thin_products_leave_the_thin_bucket);
    CLF_TEST_ALONE(s, products_that_leave_slots_empty_split);
    CLF_TEST_ALONE(s, split_rule_classes);
    CLF_TEST_ALONE(s, short_k_products_split_when_units_idle);
    CLF_TEST_ALONE(s, split_products_keep_edge_tiles);
    CLF_TEST_ALONE(s, padded_nn_batches_read_in_place);
    CLF_TEST_ALONE(s, vector_aligned_operands_read_in_place_with_edges);
    CLF_TEST_ALONE(s, batches_take_the_tiles_c_covers_best);
    CLF_TEST_ALONE(s, few_row_products_read_b_in_place);
    CLF_TEST_ALONE(s, direct_layout_pads_rows);
    CLF_TEST_ALONE(s, few_tiles_take_shorter_slices);
    CLF_TEST_ALONE(s, small_products_split_when_their_tiles_leave_units_idle);
    CLF_TEST_ALONE(s, split_products_run_their_last_slice_in_the_same_launch);
    CLF_TEST_ALONE(s, medium_products_of_few_tiles_take_short_slices);
    CLF_TEST_ALONE(s, split_products_summed_in_their_launch);
    CLF_TEST_ALONE(s, drawn_splits_cover_k_once);
    return clf_test_run(s);
}
