/* test_tune.c — the autotuner: wrong results and unlaunchable candidates are rejected and counted,
 * budgets and interruption hold, and a tuned GEMM is what clf_sgemm then uses. The CLI's tests
 * (concurrent tuners, Ctrl-C) are test_tune_cli.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune.h"
#include "gemm.h"
#include "testutil.h"

/* ---- a small family of our own: y = 2x + 1 with planted faults ----------------------------------
 * BUG=1 computes y = x (cheaper, so it would win if it were not verified); WG=8192 exceeds every
 * device's work-group limit, though the validity predicate lets it through on purpose: the tuner must
 * survive the failed launch (CL_INVALID_WORK_GROUP_SIZE). */
static const char scale_src[] =
    "__kernel void scale(__global const float *x, __global float *y, uint n) {\n"
    "    size_t i = get_global_id(0) * VW;\n"
    "    for (int j = 0; j < VW; j++)\n"
    "        if (i + j < n)\n"
    "            y[i + j] = BUG ? x[i + j] : 2.0f * x[i + j] + 1.0f;\n"
    "}\n";

enum { P_WG, P_VW, P_BUG };
#define SCALE_N 100003   /* a prime: no work-group size or vector width divides it */

static const clf__family fam_scale;

typedef struct scale_state {
    clf_context *ctx;
    cl_mem x, y;
    float *hx, *hy;
} scale_state;

static void scale_default(const clf_device_info *d, clf_dtype dt, const char *bucket, clf__config *out)
{
    out->v[P_WG] = 16;
    out->v[P_VW] = 1;
    out->v[P_BUG] = 0;
}

static int scale_valid(const clf__config *c, const clf_device_info *d, clf_dtype dt)
{
    return dt == CLF_F32;
}

static void scale_destroy(void *p)
{
    scale_state *st = p;
    if (!st)
        return;
    if (st->x)
        clReleaseMemObject(st->x);
    if (st->y)
        clReleaseMemObject(st->y);
    free(st->hx);
    free(st->hy);
    free(st);
}

static clf_status scale_create(clf_context *ctx, clf_dtype dt, const char *bucket, void **state)
{
    if (dt != CLF_F32)
        return clf__fail(CLF_ERR_UNSUPPORTED, "scale: f32 only");
    scale_state *st = calloc(1, sizeof *st);
    st->ctx = ctx;
    st->hx = malloc(SCALE_N * sizeof(float));
    st->hy = malloc(SCALE_N * sizeof(float));
    uint64_t seed = 42;
    clf_test_rand_f32(st->hx, SCALE_N, &seed);
    cl_int e;
    st->x = clCreateBuffer(clf_context_cl(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, SCALE_N * sizeof(float),
                           st->hx, &e);
    st->y = clCreateBuffer(clf_context_cl(ctx), CL_MEM_READ_WRITE, SCALE_N * sizeof(float), NULL, &e);
    *state = st;
    return CLF_SUCCESS;
}

static clf_status scale_run(void *p, const clf__config *cfg, cl_event *ev)
{
    scale_state *st = p;
    char opts[256] = "";
    clf_status s = clf__config_options(&fam_scale, cfg, opts, sizeof opts);
    cl_kernel k;
    if (s == CLF_SUCCESS)
        s = clf__kernel(st->ctx, scale_src, opts, "scale", &k);
    if (s != CLF_SUCCESS)
        return s;
    cl_uint n = SCALE_N;
    clSetKernelArg(k, 0, sizeof(cl_mem), &st->x);
    clSetKernelArg(k, 1, sizeof(cl_mem), &st->y);
    clSetKernelArg(k, 2, sizeof n, &n);
    /* Configuration values are positive: the tuning space holds no zero or negative width. */
    size_t wg = (size_t)cfg->v[P_WG], vw = (size_t)cfg->v[P_VW], items = (SCALE_N + vw - 1) / vw;
    size_t global = (items + wg - 1) / wg * wg;
    s = clf__enqueue(st->ctx, k, 1, &global, &wg, NULL, ev);
    clReleaseKernel(k);
    return s;
}

static clf_status scale_check(void *p)
{
    scale_state *st = p;
    clf_test_read(st->ctx, st->y, SCALE_N * sizeof(float), st->hy);
    clf_status s = CLF_SUCCESS;
    for (size_t i = 0; i < SCALE_N && s == CLF_SUCCESS; i++)
        if (st->hy[i] != 2.0f * st->hx[i] + 1.0f)
            s = clf__fail(CLF_ERR_VERIFY, "scale: y[%zu] = %g, expected %g", i, st->hy[i], 2.0f * st->hx[i] + 1.0f);
    /* poison the output so that a later candidate cannot pass on this one's results */
    float nan = NAN;
    clEnqueueFillBuffer(clf_context_queue(st->ctx), st->y, &nan, sizeof nan, 0, SCALE_N * sizeof(float), 0, NULL,
                        NULL);
    return s;
}

static volatile int scale_builds;   /* bench_build calls, from the tuner's builder threads */

static clf_status scale_build(void *p, const clf__config *cfg)
{
    scale_state *st = p;
    char opts[256] = "";
    clf_status s = clf__config_options(&fam_scale, cfg, opts, sizeof opts);
    cl_kernel k;
    if (s == CLF_SUCCESS && (s = clf__kernel(st->ctx, scale_src, opts, "scale", &k)) == CLF_SUCCESS)
        clReleaseKernel(k);
    __atomic_add_fetch(&scale_builds, 1, __ATOMIC_RELAXED);
    return s;
}

static double scale_work(void *p)
{
    return 2.0 * SCALE_N * sizeof(float);
}

static const clf__family fam_scale = {
    .name = "testscale",
    .nparams = 3,
    .params = {{"WG", 3, {16, 64, 8192}}, {"VW", 3, {1, 2, 4}}, {"BUG", 2, {0, 1}}},
    .nbuckets = 1,
    .buckets = {"all"},
    .unit = "GB/s",
    .default_config = scale_default,
    .valid = scale_valid,
    .bench_create = scale_create,
    .bench_run = scale_run,
    .bench_check = scale_check,
    .bench_work = scale_work,
    .bench_destroy = scale_destroy,
};


static clf_context *ctx_on(const clf_device_info *d, const char *cache)
{
    char sel[32], cmd[2600];
    snprintf(sel, sizeof sel, "%d:%d", d->platform_index, d->device_index);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", cache, cache);
    ck_assert_int_eq(system(cmd), 0);
    clf_context_options opt = {.device = sel, .cache_dir = cache};
    clf_context *ctx = NULL;
    ck_assert_msg(clf_context_create(&opt, &ctx) == CLF_SUCCESS, "%s", clf_last_error());
    return ctx;
}

START_TEST(exhaustive_rejects_wrong_and_unlaunchable)
{
    clf_device_info *devs;
    int nd = clf_test_devices(&devs);
    for (int d = 0; d < nd; d++) {
        char cache[1200];
        snprintf(cache, sizeof cache, "%s/exh-%d", clf_test_tmpdir(), d);
        clf_context *ctx = ctx_on(&devs[d], cache);
        const clf__family *fams[] = {&fam_scale, NULL};
        clf_dtype f32 = CLF_F32;
        clf_tune_options o = {.budget_seconds = 300, .exhaustive = 1, .quiet = 1};
        clf_tune_report *r = calloc(1, sizeof *r);
        ck_assert_int_eq(clf__tune_families(ctx, fams, &f32, 1, NULL, &o, r), CLF_SUCCESS);
        ck_assert_int_eq(r->count, 1);
        clf_tune_entry *e = &r->entries[0];
        /* every one of the 18 configurations was tried, and exactly the planted faults failed */
        int expect_fail = 0;
        clf__config c;
        clf__space_first(&fam_scale, &c);
        do
            expect_fail += c.v[P_BUG] || (size_t)c.v[P_WG] > devs[d].max_work_group;
        while (clf__space_next(&fam_scale, &c));
        ck_assert_int_eq(e->evaluations, 18);
        ck_assert_msg(e->failed == expect_fail, "%s: %d failed, expected %d", devs[d].name, e->failed, expect_fail);
        clf__config best;
        ck_assert_int_eq(clf__config_parse(&fam_scale, e->config, &best), CLF_SUCCESS);
        ck_assert_int_eq(best.v[P_BUG], 0);
        ck_assert_int_le(best.v[P_WG], (int)devs[d].max_work_group);
        /* a plausible speed: drivers whose events report nonsense (1 ns) are timed on the host */
        ck_assert_msg(e->rate > 0 && e->rate < 20000, "%s: %.1f GB/s", devs[d].name, e->rate);
        /* the database holds it and the ops would use it */
        const char *origin;
        ck_assert_int_eq(clf__config_select(ctx, &fam_scale, CLF_F32, "all", &c, &origin), CLF_SUCCESS);
        ck_assert_str_eq(origin, "tuned");
        ck_assert_int_eq(memcmp(&c, &best, sizeof c), 0);
        json_t *run = NULL;
        ck_assert_int_eq(clf__tunedb_fetch(ctx, "runs", &run), CLF_SUCCESS);
        ck_assert_uint_eq(json_array_size(run), 1);
        json_decref(run);
        free(r);
        clf_context_destroy(ctx);
    }
    free(devs);
}
END_TEST


/* Builder threads (forced on here; by default they run on GPUs only) change nothing in the outcome:
 * every configuration is still run, checked and counted once. */
START_TEST(prebuild_threads)
{
    clf_device_info *devs;
    clf_test_devices(&devs);
    char cache[1200];
    snprintf(cache, sizeof cache, "%s/prebuild", clf_test_tmpdir());
    clf_context *ctx = ctx_on(&devs[0], cache);
    /* The same family with a bench_build hook, so that builder threads compile ahead of the search. */
    clf__family fam_scale_prebuilt = fam_scale;
    fam_scale_prebuilt.bench_build = scale_build;
    const clf__family *fams[] = {&fam_scale_prebuilt, NULL};
    clf_dtype f32 = CLF_F32;
    clf_tune_options o = {.budget_seconds = 300, .exhaustive = 1, .quiet = 1};
    clf_tune_report *r = calloc(1, sizeof *r);
    setenv("CLFORGE_TUNE_THREADS", "3", 1);
    scale_builds = 0;
    ck_assert_int_eq(clf__tune_families(ctx, fams, &f32, 1, NULL, &o, r), CLF_SUCCESS);
    unsetenv("CLFORGE_TUNE_THREADS");
    ck_assert_int_gt(__atomic_load_n(&scale_builds, __ATOMIC_RELAXED), 0);
    ck_assert_int_eq(r->entries[0].evaluations, 18);
    int expect_fail = 9 + ((size_t)8192 > devs[0].max_work_group ? 3 : 0);
    ck_assert_int_eq(r->entries[0].failed, expect_fail);
    clf__config best;
    ck_assert_int_eq(clf__config_parse(&fam_scale, r->entries[0].config, &best), CLF_SUCCESS);
    ck_assert_int_eq(best.v[P_BUG], 0);
    free(r);
    clf_context_destroy(ctx);
    free(devs);
}
END_TEST

/* The default search with a small budget: stays near its budget and never picks a faulty config. */
START_TEST(sampled_within_budget)
{
    clf_device_info *devs;
    int nd = clf_test_devices(&devs);
    for (int d = 0; d < nd; d++) {
        char cache[1200];
        snprintf(cache, sizeof cache, "%s/sampled-%d", clf_test_tmpdir(), d);
        clf_context *ctx = ctx_on(&devs[d], cache);
        const clf__family *fams[] = {&fam_scale, NULL};
        clf_dtype f32 = CLF_F32;
        clf_tune_options o = {.budget_seconds = 1.5, .quiet = 1};
        clf_tune_report *r = calloc(1, sizeof *r);
        double t0 = clf__now();
        ck_assert_int_eq(clf__tune_families(ctx, fams, &f32, 1, NULL, &o, r), CLF_SUCCESS);
        double wall = clf__now() - t0;
        ck_assert_msg(wall < 1.5 + 3.0, "took %.1f s for a 1.5 s budget", wall);
        ck_assert_int_eq(r->count, 1);
        ck_assert_int_ge(r->entries[0].evaluations, 1);
        clf__config best;
        ck_assert_int_eq(clf__config_parse(&fam_scale, r->entries[0].config, &best), CLF_SUCCESS);
        ck_assert_int_eq(best.v[P_BUG], 0);
        ck_assert_int_le(best.v[P_WG], (int)devs[d].max_work_group);
        free(r);
        clf_context_destroy(ctx);
    }
    free(devs);
}
END_TEST

/* A family's in_bucket hook keeps configurations out of the search, exhaustive and sampled: here it refuses the
 * planted fault (BUG=1), so the trace holds none, and the exhaustive search counts the other nine. */
static int no_bug(const clf__config *c, const char *bucket) { return strcmp(bucket, "all") == 0 && !c->v[P_BUG]; }

START_TEST(in_bucket_skips_configurations)
{
    clf_device_info *devs;
    int nd = clf_test_devices(&devs);
    clf__family fam = fam_scale;
    fam.in_bucket = no_bug;
    const clf__family *fams[] = {&fam, NULL};
    for (int d = 0; d < nd; d++) {
        for (int exhaustive = 0; exhaustive < 2; exhaustive++) {
            char cache[1200], trace[1300];
            snprintf(cache, sizeof cache, "%s/inb-%d-%d", clf_test_tmpdir(), d, exhaustive);
            snprintf(trace, sizeof trace, "%s/inb-trace-%d-%d.jsonl", clf_test_tmpdir(), d, exhaustive);
            remove(trace);
            setenv("CLFORGE_TUNE_TRACE", trace, 1);
            clf_context *ctx = ctx_on(&devs[d], cache);
            clf_dtype f32 = CLF_F32;
            clf_tune_options o = {.budget_seconds = exhaustive ? 300 : 1.0, .exhaustive = exhaustive, .quiet = 1};
            clf_tune_report *r = calloc(1, sizeof *r);
            ck_assert_int_eq(clf__tune_families(ctx, fams, &f32, 1, NULL, &o, r), CLF_SUCCESS);
            unsetenv("CLFORGE_TUNE_TRACE");
            if (exhaustive)
                ck_assert_int_eq(r->entries[0].evaluations, 9);
            FILE *f = fopen(trace, "r");
            ck_assert_msg(f, "no trace at %s", trace);
            char line[1024];
            int lines = 0;
            while (fgets(line, sizeof line, f)) {
                lines++;
                ck_assert_msg(!strstr(line, "BUG=1"), "%s", line);
            }
            fclose(f);
            ck_assert_int_ge(lines, 1);
            free(r);
            clf_context_destroy(ctx);
        }
    }
    free(devs);
}
END_TEST

/* A stop request (Ctrl-C) ends the search after the candidate in flight and keeps what was found. */
START_TEST(stop_keeps_best)
{
    clf_device_info *devs;
    clf_test_devices(&devs);
    char cache[1200];
    snprintf(cache, sizeof cache, "%s/stop", clf_test_tmpdir());
    clf_context *ctx = ctx_on(&devs[0], cache);
    const clf__family *fams[] = {&fam_scale, NULL};
    clf_dtype f32 = CLF_F32;
    volatile int stop = 1;
    clf_tune_options o = {.budget_seconds = 60, .quiet = 1, .stop = &stop};
    clf_tune_report *r = calloc(1, sizeof *r);
    double t0 = clf__now();
    ck_assert_int_eq(clf__tune_families(ctx, fams, &f32, 1, NULL, &o, r), CLF_ERR_INTERRUPTED);
    ck_assert(clf__now() - t0 < 10);
    ck_assert_int_le(r->entries[0].evaluations, 1);
    free(r);
    clf_context_destroy(ctx);
    free(devs);
}
END_TEST

/* The space helpers: the permutation visits each index once, decode agrees with odometer order, and
 * neighbours are valid, distinct and differ from their centre. */
START_TEST(space_walks)
{
    clf__rng rng = {12345};
    static const uint64_t sizes[] = {1, 2, 7, 64, 1000, 4097};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        clf__perm p;
        clf__perm_init(&p, sizes[si], &rng);
        unsigned char *seen = calloc(sizes[si], 1);
        uint64_t idx, count = 0;
        while (clf__perm_next(&p, &idx)) {
            ck_assert_uint_lt(idx, sizes[si]);
            ck_assert_int_eq(seen[idx], 0);
            seen[idx] = 1;
            count++;
        }
        ck_assert_uint_eq(count, sizes[si]);
        free(seen);
    }
    clf__config c, d;
    clf__space_first(&fam_scale, &c);
    uint64_t i = 0;
    do {
        clf__space_decode(&fam_scale, i++, &d);
        ck_assert_int_eq(memcmp(&c, &d, sizeof c), 0);
    } while (clf__space_next(&fam_scale, &c));
    ck_assert_uint_eq(i, (uint64_t)clf__space_size(&fam_scale));

    clf_device_info dev;
    ck_assert_int_eq(clf_device_select(NULL, &dev), CLF_SUCCESS);
    clf__config nb[512];
    ck_assert(clf__space_random(&clf__family_gemm, &dev, CLF_F32, &rng, 100000, &c));
    int n = clf__space_neighbors(&clf__family_gemm, &dev, CLF_F32, &c, &rng, nb, 512);
    for (int a = 0; a < n; a++) {
        ck_assert(clf__family_gemm.valid(&nb[a], &dev, CLF_F32));
        ck_assert(clf__space_contains(&clf__family_gemm, &nb[a]));
        ck_assert_int_ne(memcmp(&nb[a], &c, sizeof c), 0);
        for (int b = a + 1; b < n; b++)
            ck_assert_int_ne(memcmp(&nb[a], &nb[b], sizeof c), 0);
    }
    double t0 = clf__now();
    long valid = clf__space_count_valid(&clf__family_gemm, &dev, CLF_F32, NULL, 100000000);
    ck_assert_int_gt(valid, 0);
    ck_assert_msg(clf__now() - t0 < 5, "counting the gemm space took %.1f s", clf__now() - t0);
}
END_TEST

/* Without a cache directory the search still reports what it found, and says it could not store it. */
START_TEST(no_cache_dir_reports_io)
{
    clf_context_options opt = {.no_disk_cache = 1, .cache_dir = ""};
    clf_context *ctx = NULL;
    ck_assert_int_eq(clf_context_create(&opt, &ctx), CLF_SUCCESS);
    if (clf_context_cache_dir(ctx)[0] == '\0') {
        const clf__family *fams[] = {&fam_scale, NULL};
        clf_dtype f32 = CLF_F32;
        clf_tune_options o = {.budget_seconds = 0.2, .quiet = 1};
        clf_tune_report *r = calloc(1, sizeof *r);
        ck_assert_int_eq(clf__tune_families(ctx, fams, &f32, 1, NULL, &o, r), CLF_ERR_IO);
        ck_assert_int_eq(r->count, 1);
        ck_assert(r->entries[0].config[0] != '\0');
        free(r);
    }
    clf_context_destroy(ctx);
}
END_TEST

START_TEST(bad_arguments)
{
    clf_device_info *devs;
    clf_test_devices(&devs);
    char cache[1200];
    snprintf(cache, sizeof cache, "%s/bad", clf_test_tmpdir());
    clf_context *ctx = ctx_on(&devs[0], cache);
    clf_tune_report *r = calloc(1, sizeof *r);
    clf_tune_options o = {.families = "gemm,nosuch", .budget_seconds = 1, .quiet = 1};
    ck_assert_int_eq(clf_tune(ctx, &o, r), CLF_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(clf_last_error(), "nosuch"));
    ck_assert_int_eq(clf_tune(NULL, &o, r), CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf_tune(ctx, &o, NULL), CLF_ERR_INVALID_ARG);
    char cfg[256], origin[16];
    ck_assert_int_eq(clf_config_in_use(ctx, "nosuch", "f32", NULL, cfg, sizeof cfg, origin, sizeof origin),
                     CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf_config_in_use(ctx, "gemm", "f17", NULL, cfg, sizeof cfg, origin, sizeof origin),
                     CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf_config_in_use(ctx, "gemm", "f32", "huge", cfg, sizeof cfg, origin, sizeof origin),
                     CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf_config_in_use(ctx, "gemm", "f32", "large", cfg, sizeof cfg, origin, sizeof origin),
                     CLF_SUCCESS);
    /* nothing was written */
    ck_assert_int_ne(access(clf__tunedb_path(ctx), F_OK), 0);
    free(r);
    clf_context_destroy(ctx);
    free(devs);
}
END_TEST

/* A tune with a tiny budget writes a database that clf_sgemm then uses: clf_config_in_use reports
 * "tuned" with the tuner's configuration, and the product at a size no tile divides is correct. */
START_TEST(tiny_gemm_tune_is_used)
{
    clf_device_info *devs;
    int nd = clf_test_devices(&devs);
    unsetenv("CLFORGE_GEMM_CONFIG");
    for (int d = 0; d < nd; d++) {
        char cache[1200];
        snprintf(cache, sizeof cache, "%s/gemm-%d", clf_test_tmpdir(), d);
        clf_context *ctx = ctx_on(&devs[d], cache);
        const clf__family *fams[] = {&clf__family_gemm, NULL};
        clf_dtype f32 = CLF_F32;
        clf_tune_options o = {.budget_seconds = 0.5, .quiet = 1};
        clf_tune_report *r = calloc(1, sizeof *r);
        size_t m = 521, n = 530, k = 499;   /* no tile size divides these */
        const char *bucket = clf__gemm_bucket(clf_context_device(ctx), m, n, k);
        ck_assert_int_eq(clf__tune_families(ctx, fams, &f32, 1, bucket, &o, r), CLF_SUCCESS);
        ck_assert_int_eq(r->count, 1);
        ck_assert_str_eq(r->entries[0].bucket, bucket);
        for (int i = 0; i < r->count; i++) {
            char cfg[256], origin[16];
            ck_assert_msg(r->entries[i].config[0], "%s: nothing found for %s", devs[d].name, r->entries[i].bucket);
            ck_assert_int_eq(clf_config_in_use(ctx, "gemm", "f32", r->entries[i].bucket, cfg, sizeof cfg, origin,
                                               sizeof origin), CLF_SUCCESS);
            ck_assert_str_eq(origin, "tuned");
            ck_assert_str_eq(cfg, r->entries[i].config);
        }
        json_decref(clf_test_load_tunedb(ctx));

        float *a = malloc(m * k * sizeof *a), *b = malloc(k * n * sizeof *b), *c = malloc(m * n * sizeof *c);
        uint64_t seed = 7;
        clf_test_rand_f32(a, m * k, &seed);
        clf_test_rand_f32(b, k * n, &seed);
        cl_mem da = clf_test_buffer(ctx, m * k * sizeof *a, a), db = clf_test_buffer(ctx, k * n * sizeof *b, b);
        cl_mem dc = clf_test_buffer(ctx, m * n * sizeof *c, NULL);
        ck_assert_msg(clf_sgemm(ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, m, n, k, 1.0f, da, 0, k, db, 0, n,
                                0.0f, dc, 0, n, NULL) == CLF_SUCCESS, "%s", clf_last_error());
        clf_test_read(ctx, dc, m * n * sizeof *c, c);
        for (size_t i = 0; i < m; i += 7)
            for (size_t j = 0; j < n; j++) {
                double ref = 0, mag = 0;
                for (size_t p = 0; p < k; p++) {
                    ref += (double)a[i * k + p] * b[p * n + j];
                    mag += fabs((double)a[i * k + p] * b[p * n + j]);
                }
                ck_assert_msg(fabs(c[i * n + j] - ref) <= 1e-5 * mag + 1e-6, "C[%zu][%zu] = %g, expected %g", i, j,
                              c[i * n + j], ref);
            }
        clReleaseMemObject(da);
        clReleaseMemObject(db);
        clReleaseMemObject(dc);
        free(a);
        free(b);
        free(c);
        free(r);
        clf_context_destroy(ctx);
    }
    free(devs);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tune");
    /* one case per test, so that CK_RUN_CASE can pick one */
    CLF_TEST_ALONE(s, prebuild_threads);
    CLF_TEST_ALONE(s, space_walks);
    CLF_TEST_ALONE(s, no_cache_dir_reports_io);
    CLF_TEST_ALONE(s, bad_arguments);
    CLF_TEST_ALONE(s, stop_keeps_best);
    CLF_TEST_ALONE(s, exhaustive_rejects_wrong_and_unlaunchable);
    CLF_TEST_ALONE(s, sampled_within_budget);
    CLF_TEST_ALONE(s, in_bucket_skips_configurations);
    CLF_TEST_ALONE(s, tiny_gemm_tune_is_used);
    return clf_test_run(s);
}
