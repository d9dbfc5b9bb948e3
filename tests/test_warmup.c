/* test_warmup.c — clf_warmup: after a warm-up, a new context on the same cache runs GEMMs of the warmed
 * buckets in every transpose, and copies, without compiling anything, and computes them right; bad options
 * are refused by name and build nothing. On every device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

/* A fresh cache directory for device d (its own, so that other suites' binaries do not count). */
static void fresh_cache(const clf_device_info *d, const char *tag, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/warm-%s-%s", clf_test_tmpdir(), tag, d->id);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
}

static clf_context *open_on(const clf_device_info *d, const char *cache)
{
    char sel[32];
    snprintf(sel, sizeof sel, "%d:%d", d->platform_index, d->device_index);
    clf_context_options o = {.device = sel, .cache_dir = cache};
    clf_context *ctx = NULL;
    ck_assert_msg(clf_context_create(&o, &ctx) == CLF_SUCCESS, "%s", clf_last_error());
    return ctx;
}

/* C = op(A) op(B) on the device for one row-major product, checked against the host in double. */
static void check_gemm(clf_context *ctx, size_t m, size_t n, size_t k, clf_transpose ta, clf_transpose tb)
{
    uint64_t seed = m * 131 + n * 7 + k + (size_t)ta * 3 + (size_t)tb;
    float *a = malloc(m * k * sizeof *a), *b = malloc(k * n * sizeof *b), *c = malloc(m * n * sizeof *c);
    ck_assert(a && b && c);
    clf_test_rand_f32(a, m * k, &seed);
    clf_test_rand_f32(b, k * n, &seed);
    size_t lda = ta == CLF_NO_TRANS ? k : m, ldb = tb == CLF_NO_TRANS ? n : k;
    cl_mem da = clf_test_buffer(ctx, m * k * 4, a), db = clf_test_buffer(ctx, k * n * 4, b);
    cl_mem dc = clf_test_buffer(ctx, m * n * 4, NULL);
    ck_assert_msg(clf_sgemm(ctx, CLF_ROW_MAJOR, ta, tb, m, n, k, 1.0f, da, 0, lda, db, 0, ldb, 0.0f, dc, 0, n, NULL) ==
                  CLF_SUCCESS, "%s", clf_last_error());
    clf_test_read(ctx, dc, m * n * 4, c);
    for (size_t i = 0; i < m; i += 7)
        for (size_t j = 0; j < n; j += 5) {
            double ref = 0, mag = 0;
            for (size_t p = 0; p < k; p++) {
                double x = ta == CLF_NO_TRANS ? a[i * k + p] : a[p * m + i];
                double y = tb == CLF_NO_TRANS ? b[p * n + j] : b[j * k + p];
                ref += x * y;
                mag += fabs(x * y);
            }
            ck_assert_msg(fabs(c[i * n + j] - ref) <= 1e-5 * mag + 1e-6, "%zux%zux%zu C[%zu][%zu] = %g, expected %g",
                          m, n, k, i, j, (double)c[i * n + j], ref);
        }
    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
    free(a);
    free(b);
    free(c);
}

START_TEST(warm_then_load)
{
    clf_context **ctxs;
    int n = clf_test_contexts(&ctxs);
    ck_assert_int_gt(n, 0);
    for (int i = 0; i < n; i++) {
        const clf_device_info *d = clf_context_device(ctxs[i]);
        char cache[1100];
        fresh_cache(d, "load", cache, sizeof cache);
        clf_context *w = open_on(d, cache);
        clf_warmup_options o = {.families = "gemm,copy", .precisions = "f32", .buckets = "small,medium", .threads = 2};
        ck_assert_msg(clf_warmup(w, &o) == CLF_SUCCESS, "%s: %s", d->name, clf_last_error());
        clf_cache_stats st;
        clf_context_cache_stats(w, &st);
        ck_assert_msg(st.compiles > 0, "%s: the warm-up compiled nothing", d->name);
        clf_context_destroy(w);

        /* A new context (as a new process would have): everything the calls need is on disk. */
        clf_context *ctx = open_on(d, cache);
        const clf_transpose t[2] = {CLF_NO_TRANS, CLF_TRANS};
        for (int x = 0; x < 4; x++) {
            /* None of them is one of clf_warmup's own shapes; none is tile-aligned. */
            check_gemm(ctx, 37, 29, 41, t[x / 2], t[x % 2]);      /* small */
            check_gemm(ctx, 600, 520, 70, t[x / 2], t[x % 2]);    /* CPUs: medium, operands in place; GPUs: small */
            check_gemm(ctx, 900, 800, 500, t[x / 2], t[x % 2]);   /* medium, packed */
        }
        cl_mem src = clf_test_buffer(ctx, 4096, NULL), dst = clf_test_buffer(ctx, 4096, NULL);
        ck_assert_int_eq(clf_copy(ctx, src, 0, dst, 0, 4096, NULL), CLF_SUCCESS);
        ck_assert_int_eq(clf_finish(ctx), CLF_SUCCESS);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
        clf_context_cache_stats(ctx, &st);
        ck_assert_msg(st.compiles == 0 && st.disk_hits > 0, "%s: after the warm-up %lu programs compiled, %lu loaded",
                      d->name, st.compiles, st.disk_hits);
        clf_context_destroy(ctx);
    }
    clf_test_contexts_free(ctxs, n);
}
END_TEST

START_TEST(bad_options)
{
    clf_context **ctxs;
    int n = clf_test_contexts(&ctxs);
    ck_assert_int_gt(n, 0);
    ck_assert_int_eq(clf_warmup(NULL, NULL), CLF_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(clf_last_error(), "ctx"));
    const clf_device_info *d = clf_context_device(ctxs[0]);
    char cache[1100];
    fresh_cache(d, "bad", cache, sizeof cache);
    clf_context *ctx = open_on(d, cache);
    const struct { clf_warmup_options o; const char *named; } bad[] = {
        {{.families = "gemm,gemmm"}, "gemmm"},
        {{.precisions = "f32,f8"}, "f8"},
        {{.buckets = "huge"}, "huge"},
        {{.families = "gemm", .buckets = "small,mediums"}, "mediums"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(clf_warmup(ctx, &bad[i].o), CLF_ERR_INVALID_ARG);
        ck_assert_msg(strstr(clf_last_error(), bad[i].named), "message \"%s\" does not name %s", clf_last_error(),
                      bad[i].named);
    }
    if (d->type & CL_DEVICE_TYPE_CPU) {   /* CPU devices have no thin bucket: asking for it is an error */
        clf_warmup_options o = {.families = "gemm", .buckets = "thin"};
        ck_assert_int_eq(clf_warmup(ctx, &o), CLF_ERR_INVALID_ARG);
        ck_assert_ptr_nonnull(strstr(clf_last_error(), "thin"));
    }
    clf_cache_stats st;
    clf_context_cache_stats(ctx, &st);
    ck_assert_msg(st.compiles == 0 && st.disk_hits == 0, "a refused warm-up built %lu programs", st.compiles);
    /* "map" is a family, but its kernels come from each expression: nothing to build, no error. */
    clf_warmup_options map = {.families = "map"};
    ck_assert_int_eq(clf_warmup(ctx, &map), CLF_SUCCESS);
    clf_context_destroy(ctx);
    clf_test_contexts_free(ctxs, n);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("warmup");
    TCase *tc = clf_test_tcase("warmup");
    tcase_add_test(tc, warm_then_load);
    tcase_add_test(tc, bad_options);
    suite_add_tcase(s, tc);
    return clf_test_run(s);
}
