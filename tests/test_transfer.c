/* test_transfer.c — clf_buffer_create, clf_upload/clf_download (direct and through pinned staging) and
 * their asynchronous forms: odd sizes and offsets, the bytes around a transfer untouched, both sides of the
 * staging threshold and of chunk boundaries, events, several threads on one context, and bad input. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

#define BUF 70000

static void fill_random(unsigned char *p, size_t n, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(clf_test_rand_u64(rng) >> 56);
}

/* Small staging threshold and chunk so that a test's sizes cross both (read when the staging is created). */
static void small_staging(void)
{
    setenv("CLFORGE_STAGING_THRESHOLD", "3000", 1);
    setenv("CLFORGE_STAGING_CHUNK", "4096", 1);
}

/* Uploads and downloads of sizes below, at and above the threshold and around chunk multiples, at odd
 * offsets; the whole buffer is compared after each, so writes outside the range would show. */
static void round_trips(clf_context *ctx, uint64_t *rng)
{
    static const size_t sizes[] = {1, 3, 17, 1000, 2999, 3000, 3001, 4095, 4096, 4097, 8192, 12301, 65536, 69000};
    static const size_t offs[] = {0, 1, 7, 333};
    unsigned char *host = malloc(BUF), *model = malloc(BUF), *got = malloc(BUF);
    fill_random(model, BUF, rng);
    cl_mem buf = clf_test_buffer(ctx, BUF, model);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t oi = 0; oi < sizeof offs / sizeof offs[0]; oi++) {
            size_t n = sizes[si], off = offs[oi];
            if (off + n > BUF) continue;
            fill_random(host, n, rng);
            ck_assert_msg(clf_upload(ctx, buf, off, host, n) == CLF_SUCCESS, "upload %zu at %zu: %s", n, off,
                          clf_last_error());
            memcpy(model + off, host, n);
            clf_test_read(ctx, buf, BUF, got);
            ck_assert_msg(memcmp(got, model, BUF) == 0, "upload of %zu bytes at %zu is wrong", n, off);
            /* Download a different range into the middle of a host array whose edges must survive. */
            size_t doff = (off * 7 + 11) % (BUF - n + 1);
            memset(host, 0xA5, BUF);
            ck_assert_msg(clf_download(ctx, buf, doff, host + 5, n) == CLF_SUCCESS, "download %zu at %zu: %s", n,
                          doff, clf_last_error());
            ck_assert_msg(memcmp(host + 5, model + doff, n) == 0, "download of %zu bytes at %zu is wrong", n, doff);
            for (size_t i = 0; i < 5; i++) ck_assert_int_eq(host[i], 0xA5);
            if (n + 5 < BUF) ck_assert_int_eq(host[n + 5], 0xA5);
        }
    clReleaseMemObject(buf);
    free(host), free(model), free(got);
}

START_TEST(round_trips_direct)
{
    setenv("CLFORGE_STAGING_THRESHOLD", "1000000000", 1);   /* every size direct, on every device */
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nc, 0);
    uint64_t rng = 5;
    for (int d = 0; d < nc; d++) round_trips(ctxs[d], &rng);
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

START_TEST(round_trips_staged)
{
    small_staging();
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nc, 0);
    uint64_t rng = 9;
    for (int d = 0; d < nc; d++) round_trips(ctxs[d], &rng);
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* A transfer of many chunks (more than the staging slots, and a short last one) with the default chunk
 * size replaced, against the direct path's result. */
START_TEST(staged_many_chunks)
{
    setenv("CLFORGE_STAGING_THRESHOLD", "1", 1);
    setenv("CLFORGE_STAGING_CHUNK", "65536", 1);
    setenv("CLFORGE_STAGING_THREADS", "8", 1);
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    size_t n = (size_t)3 << 20 | 4093;
    unsigned char *a = malloc(n), *got = malloc(n);
    uint64_t rng = 17;
    fill_random(a, n, &rng);
    for (int d = 0; d < nc; d++) {
        cl_mem buf;
        ck_assert_int_eq(clf_buffer_create(ctxs[d], n + 8, &buf), CLF_SUCCESS);
        ck_assert_int_eq(clf_upload(ctxs[d], buf, 8, a, n), CLF_SUCCESS);
        memset(got, 0, n);
        ck_assert_int_eq(clEnqueueReadBuffer(clf_context_queue(ctxs[d]), buf, CL_TRUE, 8, n, got, 0, NULL, NULL),
                         CL_SUCCESS);
        ck_assert(memcmp(got, a, n) == 0);
        memset(got, 0, n);
        ck_assert_int_eq(clf_download(ctxs[d], buf, 8, got, n), CLF_SUCCESS);
        ck_assert(memcmp(got, a, n) == 0);
        setenv("CLFORGE_STAGING_THREADS", "1", 1);   /* fewer threads than the slots made before */
        memset(got, 0, n);
        ck_assert_int_eq(clf_download(ctxs[d], buf, 8, got, n - 5), CLF_SUCCESS);
        ck_assert(memcmp(got, a, n - 5) == 0 && got[n - 5] == 0);
        setenv("CLFORGE_STAGING_THREADS", "8", 1);
        clReleaseMemObject(buf);
    }
    free(a), free(got);
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* The asynchronous forms hand back events that complete when the host memory is done with; an empty
 * transfer still gives a (complete) event; ordering on the queue follows enqueue order. */
START_TEST(async_events)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    size_t n = 100003;
    unsigned char *a = malloc(n), *b = malloc(n), *got = malloc(n);
    uint64_t rng = 21;
    fill_random(a, n, &rng);
    fill_random(b, n, &rng);
    for (int d = 0; d < nc; d++) {
        clf_context *ctx = ctxs[d];
        cl_mem buf;
        ck_assert_int_eq(clf_buffer_create(ctx, n + 3, &buf), CLF_SUCCESS);
        cl_event up = NULL, up2 = NULL, down = NULL, empty = NULL;
        ck_assert_int_eq(clf_upload_async(ctx, buf, 3, a, n, &up), CLF_SUCCESS);
        ck_assert_ptr_nonnull(up);
        /* A second upload over half of it, then a download: in-order, the download sees both. */
        ck_assert_int_eq(clf_upload_async(ctx, buf, 3, b, n / 2, &up2), CLF_SUCCESS);
        ck_assert_int_eq(clf_download_async(ctx, buf, 3, got, n, &down), CLF_SUCCESS);
        cl_event all[3] = {up, up2, down};
        ck_assert_int_eq(clWaitForEvents(3, all), CL_SUCCESS);
        ck_assert(memcmp(got, b, n / 2) == 0 && memcmp(got + n / 2, a + n / 2, n - n / 2) == 0);
        ck_assert_int_eq(clf_upload_async(ctx, buf, 0, NULL, 0, &empty), CLF_SUCCESS);
        ck_assert_ptr_nonnull(empty);
        ck_assert_int_eq(clWaitForEvents(1, &empty), CL_SUCCESS);
        ck_assert_int_eq(clf_download_async(ctx, buf, 0, got, n, NULL), CLF_SUCCESS);
        ck_assert_int_eq(clf_finish(ctx), CLF_SUCCESS);
        ck_assert(memcmp(got + 3, b, n / 2) == 0);
        clReleaseEvent(up), clReleaseEvent(up2), clReleaseEvent(down), clReleaseEvent(empty);
        clReleaseMemObject(buf);
    }
    free(a), free(b), free(got);
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

typedef struct thread_arg {
    clf_context *ctx;
    int id;
    int ok;
} thread_arg;

/* Each thread round-trips its own buffer several times, staged and direct, on the shared context. */
static void *thread_main(void *p)
{
    thread_arg *t = p;
    size_t n = 50000 + (size_t)t->id * 777;
    unsigned char *a = malloc(n), *got = malloc(n);
    uint64_t rng = 100 + (uint64_t)t->id;
    cl_mem buf = NULL;
    t->ok = a && got && clf_buffer_create(t->ctx, n, &buf) == CLF_SUCCESS;
    for (int r = 0; r < 6 && t->ok; r++) {
        size_t len = r % 2 ? n : 2000;   /* staged and direct in turn */
        fill_random(a, len, &rng);
        t->ok = clf_upload(t->ctx, buf, 0, a, len) == CLF_SUCCESS && clf_download(t->ctx, buf, 0, got, len) == CLF_SUCCESS &&
                memcmp(a, got, len) == 0;
    }
    if (buf) clReleaseMemObject(buf);
    free(a), free(got);
    return NULL;
}

START_TEST(concurrent_threads)
{
    small_staging();
    setenv("CLFORGE_STAGING_THREADS", "3", 1);
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    for (int d = 0; d < nc; d++) {
        enum { T = 4 };
        pthread_t tid[T];
        thread_arg args[T];
        for (int i = 0; i < T; i++) {
            args[i] = (thread_arg){ctxs[d], i, 0};
            ck_assert_int_eq(pthread_create(&tid[i], NULL, thread_main, &args[i]), 0);
        }
        for (int i = 0; i < T; i++) pthread_join(tid[i], NULL);
        for (int i = 0; i < T; i++) ck_assert_msg(args[i].ok, "thread %d: wrong data or failure", i);
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* One bad call: it fails with CLF_ERR_INVALID_ARG, its message names `word`, and the buffer is unchanged. */
static void expect_bad(clf_status s, const char *word, clf_context *ctx, cl_mem buf, const unsigned char *model)
{
    ck_assert_int_eq(s, CLF_ERR_INVALID_ARG);
    ck_assert_msg(strstr(clf_last_error(), word), "message '%s' does not name '%s'", clf_last_error(), word);
    unsigned char got[64];
    clf_test_read(ctx, buf, 64, got);
    ck_assert(memcmp(got, model, 64) == 0);
}

START_TEST(errors)
{
    small_staging();
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    unsigned char model[64], host[128];
    uint64_t rng = 1;
    fill_random(model, 64, &rng);
    for (int d = 0; d < nc; d++) {
        clf_context *ctx = ctxs[d];
        cl_mem buf = clf_test_buffer(ctx, 64, model), out = (cl_mem)1;
        expect_bad(clf_upload(NULL, buf, 0, host, 8), "ctx", ctx, buf, model);
        expect_bad(clf_upload(ctx, NULL, 0, host, 8), "dst is NULL", ctx, buf, model);
        expect_bad(clf_upload(ctx, buf, 0, NULL, 8), "src is NULL", ctx, buf, model);
        expect_bad(clf_download(ctx, buf, 0, NULL, 8), "dst is NULL", ctx, buf, model);
        expect_bad(clf_upload(ctx, buf, 60, host, 8), "buffer holds 64", ctx, buf, model);
        expect_bad(clf_download(ctx, buf, 0, host, 65), "buffer holds 64", ctx, buf, model);
        expect_bad(clf_upload_async(ctx, buf, SIZE_MAX - 2, host, 8, NULL), "overflows", ctx, buf, model);
        expect_bad(clf_download_async(ctx, buf, 1, host, SIZE_MAX, NULL), "overflows", ctx, buf, model);
        cl_event ev = (cl_event)1;
        expect_bad(clf_upload_async(ctx, buf, 0, host, 100, &ev), "clf_upload_async", ctx, buf, model);
        ck_assert_ptr_null(ev);
        /* Host access flags and foreign buffers. */
        cl_int e;
        cl_mem noacc = clCreateBuffer(clf_context_cl(ctx), CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS, 64, NULL, &e);
        cl_mem ronly = clCreateBuffer(clf_context_cl(ctx), CL_MEM_READ_WRITE | CL_MEM_HOST_READ_ONLY, 64, NULL, &e);
        expect_bad(clf_upload(ctx, noacc, 0, host, 8), "host write", ctx, buf, model);
        expect_bad(clf_upload(ctx, ronly, 0, host, 8), "host write", ctx, buf, model);
        ck_assert_int_eq(clf_download(ctx, ronly, 0, host, 8), CLF_SUCCESS);
        clReleaseMemObject(noacc), clReleaseMemObject(ronly);
        clf_context *other;
        clf_context_options opt = {.device = clf_context_device(ctx)->name, .no_disk_cache = 1};
        if (clf_context_create(&opt, &other) == CLF_SUCCESS) {
            cl_mem foreign = clf_test_buffer(other, 64, NULL);
            expect_bad(clf_upload(ctx, foreign, 0, host, 8), "another OpenCL context", ctx, buf, model);
            clReleaseMemObject(foreign);
            clf_context_destroy(other);
        }
        /* Empty transfers move nothing and accept NULL host pointers. */
        ck_assert_int_eq(clf_upload(ctx, buf, 64, NULL, 0), CLF_SUCCESS);
        ck_assert_int_eq(clf_download(ctx, NULL, 0, NULL, 0), CLF_SUCCESS);
        /* Buffer creation. */
        ck_assert_int_eq(clf_buffer_create(ctx, 0, &out), CLF_ERR_INVALID_ARG);
        ck_assert_ptr_null(out);
        ck_assert_int_eq(clf_buffer_create(ctx, SIZE_MAX, &out), CLF_ERR_INVALID_ARG);
        ck_assert_ptr_nonnull(strstr(clf_last_error(), "largest allocation"));
        ck_assert_int_eq(clf_buffer_create(NULL, 8, &out), CLF_ERR_INVALID_ARG);
        ck_assert_int_eq(clf_buffer_create(ctx, 8, NULL), CLF_ERR_INVALID_ARG);
        clReleaseMemObject(buf);
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* Pinned allocations: round trips (blocking and asynchronous, at interior offsets) with the staging path
 * armed for small sizes, which pinned memory must skip (no staging slot is ever made); then every bad free. */
START_TEST(pinned_memory)
{
    small_staging();
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    uint64_t rng = 7;
    for (int d = 0; d < nc; d++) {
        clf_context *ctx = ctxs[d];
        clf_context_options opt = {.device = clf_context_device(ctx)->name, .no_disk_cache = 1};
        clf_context *fresh;
        ck_assert_int_eq(clf_context_create(&opt, &fresh), CLF_SUCCESS);
        const size_t n = 100003;   /* many staging chunks, not a multiple of one */
        unsigned char *a, *b, *ref = malloc(n);
        ck_assert_int_eq(clf_host_alloc(fresh, n, (void **)&a), CLF_SUCCESS);
        ck_assert_int_eq(clf_host_alloc(fresh, n, (void **)&b), CLF_SUCCESS);
        fill_random(a, n, &rng);
        memcpy(ref, a, n);
        cl_mem buf = clf_test_buffer(fresh, n, NULL);
        ck_assert_int_eq(clf_upload(fresh, buf, 0, a, n), CLF_SUCCESS);
        memset(b, 0, n);
        ck_assert_int_eq(clf_download(fresh, buf, 0, b, n), CLF_SUCCESS);
        ck_assert(memcmp(b, ref, n) == 0);
        ck_assert_int_eq(fresh->staging.count, 0);
        /* Interior ranges, asynchronously, then a pageable copy of the same range for comparison. */
        memset(b, 0, n);
        cl_event up, down;
        ck_assert_int_eq(clf_upload_async(fresh, buf, 17, a + 5, 60000, &up), CLF_SUCCESS);
        ck_assert_int_eq(clf_download_async(fresh, buf, 17, b + 3, 60000, &down), CLF_SUCCESS);
        ck_assert_int_eq(clWaitForEvents(1, &down), CL_SUCCESS);
        clReleaseEvent(up), clReleaseEvent(down);
        ck_assert(memcmp(b + 3, ref + 5, 60000) == 0);
        /* A range reaching past an allocation's end is not pinned: it stages (and is still right). */
        ck_assert_int_eq(clf_download(fresh, buf, 0, ref, n), CLF_SUCCESS);
        ck_assert(memcmp(ref + 17, a + 5, 60000) == 0);
        /* Bad frees change nothing: the allocation still works afterwards. */
        ck_assert_int_eq(clf_host_free(fresh, a + 1), CLF_ERR_INVALID_ARG);
        ck_assert_ptr_nonnull(strstr(clf_last_error(), "not a pinned allocation"));
        ck_assert_int_eq(clf_host_free(fresh, ref), CLF_ERR_INVALID_ARG);
        ck_assert_int_eq(clf_host_free(ctx, a), CLF_ERR_INVALID_ARG);   /* another context's */
        ck_assert_int_eq(clf_host_free(NULL, a), CLF_ERR_INVALID_ARG);
        ck_assert_int_eq(clf_host_free(fresh, NULL), CLF_SUCCESS);
        void *none = (void *)1;
        ck_assert_int_eq(clf_host_alloc(fresh, 0, &none), CLF_ERR_INVALID_ARG);
        ck_assert_ptr_null(none);
        ck_assert_int_eq(clf_host_alloc(fresh, SIZE_MAX, &none), CLF_ERR_INVALID_ARG);
        ck_assert_ptr_nonnull(strstr(clf_last_error(), "largest allocation"));
        ck_assert_int_eq(clf_host_alloc(NULL, 8, &none), CLF_ERR_INVALID_ARG);
        ck_assert_int_eq(clf_host_alloc(fresh, 8, NULL), CLF_ERR_INVALID_ARG);
        ck_assert_int_eq(clf_upload(fresh, buf, 0, a, n), CLF_SUCCESS);
        ck_assert_int_eq(clf_host_free(fresh, a), CLF_SUCCESS);
        ck_assert_int_eq(clf_host_free(fresh, a), CLF_ERR_INVALID_ARG);   /* twice */
        clReleaseMemObject(buf);
        free(ref);
        clf_context_destroy(fresh);   /* frees b */
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* Threads allocating, using and freeing pinned memory on one context at once. */
static void *pinned_thread(void *arg)
{
    clf_context *ctx = arg;
    long bad = 0;
    for (int r = 0; r < 20; r++) {
        unsigned char *p;
        cl_mem buf;
        size_t n = 4096 + (size_t)r * 777;
        if (clf_host_alloc(ctx, n, (void **)&p) != CLF_SUCCESS) return (void *)1;
        if (clf_buffer_create(ctx, n, &buf) != CLF_SUCCESS) return (void *)1;
        for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 31 + (size_t)r);
        bad += clf_upload(ctx, buf, 0, p, n) != CLF_SUCCESS;
        memset(p, 0, n);
        bad += clf_download(ctx, buf, 0, p, n) != CLF_SUCCESS;
        for (size_t i = 0; i < n; i++) bad += p[i] != (unsigned char)(i * 31 + (size_t)r);
        bad += clf_host_free(ctx, p) != CLF_SUCCESS;
        clReleaseMemObject(buf);
    }
    return (void *)bad;
}

START_TEST(pinned_threads)
{
    small_staging();
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    for (int d = 0; d < nc; d++) {
        pthread_t t[4];
        for (int i = 0; i < 4; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, pinned_thread, ctxs[d]), 0);
        for (int i = 0; i < 4; i++) {
            void *bad;
            pthread_join(t[i], &bad);
            ck_assert_msg(bad == NULL, "thread %d: %ld failures", i, (long)bad);
        }
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("transfer");
    CLF_TEST_ALONE(s, round_trips_direct);
    CLF_TEST_ALONE(s, round_trips_staged);
    CLF_TEST_ALONE(s, staged_many_chunks);
    CLF_TEST_ALONE(s, async_events);
    CLF_TEST_ALONE(s, concurrent_threads);
    CLF_TEST_ALONE(s, errors);
    CLF_TEST_ALONE(s, pinned_memory);
    CLF_TEST_ALONE(s, pinned_threads);
    return clf_test_run(s);
}
