/* testutil.c — helpers shared by the Check suites (see testutil.h). */
#include "testutil.h"

#include "autotune.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int clf_test_case_count(const char *env, int fallback)
{
    const char *v = getenv(env);
    int n = v ? atoi(v) : 0;
    return n > 0 ? n : fallback;
}

const char *clf_test_tmpdir(void)
{
    static char dir[1024];
    if (!dir[0]) {
        const char *env = getenv("CLFORGE_TEST_TMP");
        if (env && *env) snprintf(dir, sizeof dir, "%s", env);
        else snprintf(dir, sizeof dir, "/tmp/clforge-test-%ld", (long)getpid());
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
        if (system(cmd) != 0) fprintf(stderr, "testutil: cannot create %s\n", dir);
    }
    return dir;
}

int clf_test_contexts(clf_context ***out)
{
    size_t count = 0;
    *out = NULL;
    if (clf_device_list(NULL, 0, &count) != CLF_SUCCESS || count == 0) return 0;
    clf_device_info *devs = calloc(count, sizeof *devs);
    clf_context **ctxs = calloc(count, sizeof *ctxs);
    ck_assert_ptr_nonnull(devs);
    ck_assert_ptr_nonnull(ctxs);
    ck_assert_int_eq(clf_device_list(devs, count, &count), CLF_SUCCESS);
    char cache[1100];
    snprintf(cache, sizeof cache, "%s/cache", clf_test_tmpdir());
    /* CLFORGE_TEST_DEVICES="0:0,1:0" limits the suites to some devices (scripts/test.sh's sanitizer pass
     * uses it: sanitizers check host code, which is the same on every device). */
    const char *only = getenv("CLFORGE_TEST_DEVICES");
    int n = 0;
    for (size_t i = 0; i < count; i++) {
        char sel[32], padded[40], list[1024];
        snprintf(sel, sizeof sel, "%d:%d", devs[i].platform_index, devs[i].device_index);
        if (only && *only) {
            snprintf(padded, sizeof padded, ",%s,", sel);
            snprintf(list, sizeof list, ",%s,", only);
            if (!strstr(list, padded)) continue;
        }
        clf_context_options opt = {.device = sel, .cache_dir = cache};
        clf_status s = clf_context_create(&opt, &ctxs[n]);
        if (s != CLF_SUCCESS) ck_abort_msg("context on %s (%s): %s", sel, devs[i].name, clf_last_error());
        n++;
    }
    free(devs);
    *out = ctxs;
    return n;
}

void clf_test_contexts_free(clf_context **ctxs, int n)
{
    for (int i = 0; i < n; i++) clf_context_destroy(ctxs[i]);
    free(ctxs);
}

uint64_t clf_test_rand_u64(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

double clf_test_rand(uint64_t *state)
{
    return (double)(clf_test_rand_u64(state) >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
}

double clf_test_pick_scalar(uint64_t *state, int is_beta)
{
    static const double a[] = {1.0, -1.0, 0.5, -2.25, 0.0, 3.0};
    static const double b[] = {0.0, 0.0, 1.0, -1.0, 0.5, 2.0};
    unsigned r = (unsigned)(clf_test_rand_u64(state) % 8);
    if (r >= 6)
        return clf_test_rand(state) * 2.0;
    return is_beta ? b[r] : a[r];
}

void clf_test_rand_f32(float *x, size_t n, uint64_t *state)
{
    for (size_t i = 0; i < n; i++) x[i] = (float)clf_test_rand(state);
}

void clf_test_rand_f64(double *x, size_t n, uint64_t *state)
{
    for (size_t i = 0; i < n; i++) x[i] = clf_test_rand(state);
}

TCase *clf_test_tcase(const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 1200);
    return tc;
}

void clf_test_add_alone(Suite *s, const char *name, const TTest *t)
{
    TCase *tc = clf_test_tcase(name);
    tcase_add_test(tc, t);
    suite_add_tcase(s, tc);
}

int clf_test_run(Suite *s)
{
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

cl_mem clf_test_buffer(clf_context *ctx, size_t bytes, const void *host)
{
    cl_int err;
    cl_mem m = clCreateBuffer(clf_context_cl(ctx), CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
    ck_assert_msg(m != NULL, "clCreateBuffer(%zu): %d", bytes, err);
    if (bytes) {
        void *zero = NULL;
        if (!host) host = zero = calloc(1, bytes);
        err = clEnqueueWriteBuffer(clf_context_queue(ctx), m, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
        free(zero);
        ck_assert_msg(err == CL_SUCCESS, "clEnqueueWriteBuffer: %d", err);
    }
    return m;
}

void clf_test_read(clf_context *ctx, cl_mem buf, size_t bytes, void *host)
{
    cl_int err = clEnqueueReadBuffer(clf_context_queue(ctx), buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    ck_assert_msg(err == CL_SUCCESS, "clEnqueueReadBuffer: %d", err);
}

json_t *clf_test_load_tunedb(clf_context *ctx)
{
    json_error_t err;
    json_t *doc = json_load_file(clf__tunedb_path(ctx), 0, &err);
    ck_assert_msg(doc != NULL, "database does not parse: line %d: %s", err.line, err.text);
    ck_assert_int_eq(json_integer_value(json_object_get(doc, "format")), CLF__TUNEDB_FORMAT);
    return doc;
}

int clf_test_capture_begin(const char *file)
{
    fflush(stderr);
    int saved = dup(2), fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    dup2(fd, 2);
    close(fd);
    return saved;
}

char *clf_test_capture_end(int saved, const char *file)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(file, "rb");
    ck_assert_ptr_nonnull(f);
    static char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

int clf_test_devices(clf_device_info **out)
{
    size_t n = 0;
    ck_assert_int_eq(clf_device_list(NULL, 0, &n), CLF_SUCCESS);
    *out = calloc(n, sizeof **out);
    ck_assert_ptr_nonnull(*out);
    ck_assert_int_eq(clf_device_list(*out, n, &n), CLF_SUCCESS);
    const char *only = getenv("CLFORGE_TEST_DEVICES");
    int kept = 0;
    for (size_t i = 0; i < n; i++) {
        char sel[40], list[1024];
        snprintf(sel, sizeof sel, ",%d:%d,", (*out)[i].platform_index, (*out)[i].device_index);
        snprintf(list, sizeof list, ",%s,", only ? only : "");
        if (!only || !*only || strstr(list, sel))
            (*out)[kept++] = (*out)[i];
    }
    ck_assert_int_gt(kept, 0);
    return kept;
}
