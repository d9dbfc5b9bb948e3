/* test_kernelpool.c — the per-context kernel pool: repeated ops reuse one kernel object, threads sharing a
 * context never share a borrowed kernel (each thread's map and GEMM results are checked against the CPU),
 * the pool stays bounded (free entries replaced when full), and kernels outside it are released when given
 * back. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

#define THREADS 4
#define ROUNDS 40
#define N 1000   /* not a multiple of any vector width or work-group */
#define M 13     /* GEMM M = N = K: no tile divides it */

typedef struct job {
    clf_context *ctx;
    int id;
    int failures;
} job;

/* y = a*x + y with a thread- and round-specific a, and C = A*B, each checked on the host every round. */
static void *worker(void *arg)
{
    job *j = arg;
    uint64_t rng = 100 + (uint64_t)j->id;
    float x[N], y[N], got[N], a[M * M], b[M * M], c[M * M];
    clf_test_rand_f32(x, N, &rng);
    clf_test_rand_f32(a, M * M, &rng);
    clf_test_rand_f32(b, M * M, &rng);
    cl_mem bx = clf_test_buffer(j->ctx, sizeof x, x), by = clf_test_buffer(j->ctx, sizeof y, NULL);
    cl_mem ba = clf_test_buffer(j->ctx, sizeof a, a), bb = clf_test_buffer(j->ctx, sizeof b, b);
    cl_mem bc = clf_test_buffer(j->ctx, sizeof c, NULL);
    for (int r = 0; r < ROUNDS; r++) {
        double s = 0.25 * j->id + 0.01 * r;
        clf_test_rand_f32(y, N, &rng);
        clf_map_arg args[3] = {{.name = "x", .kind = CLF_ARG_BUFFER, .dtype = CLF_F32, .buffer = bx},
                               {.name = "a", .kind = CLF_ARG_SCALAR, .value = s},
                               {.name = "y", .kind = CLF_ARG_BUFFER, .dtype = CLF_F32, .buffer = by}};
        if (clf_upload(j->ctx, by, 0, y, sizeof y) != CLF_SUCCESS ||
            clf_map(j->ctx, "y = a*x + y", N, args, 3, NULL) != CLF_SUCCESS ||
            clf_sgemm(j->ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, M, M, M, (float)(1 + j->id), ba, 0, M, bb, 0,
                      M, 0.0f, bc, 0, M, NULL) != CLF_SUCCESS ||
            clf_download(j->ctx, by, 0, got, sizeof got) != CLF_SUCCESS ||
            clf_download(j->ctx, bc, 0, c, sizeof c) != CLF_SUCCESS) {
            j->failures++;
            continue;
        }
        for (int i = 0; i < N; i++)
            if (fabsf(got[i] - (float)(s * x[i] + y[i])) > 1e-5f * (1 + fabsf(got[i]))) {
                j->failures++;
                break;
            }
        for (int i = 0; i < M; i++)
            for (int k = 0; k < M; k++) {
                double ref = 0;
                for (int t = 0; t < M; t++) ref += (double)a[i * M + t] * b[t * M + k];
                ref *= 1 + j->id;
                if (fabs(c[i * M + k] - ref) > 1e-4 * (1 + fabs(ref))) j->failures++;
            }
    }
    clReleaseMemObject(bx), clReleaseMemObject(by), clReleaseMemObject(ba), clReleaseMemObject(bb);
    clReleaseMemObject(bc);
    return NULL;
}

START_TEST(threads_share_a_context)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nc, 0);
    for (int d = 0; d < nc; d++) {
        job jobs[THREADS];
        pthread_t t[THREADS];
        for (int i = 0; i < THREADS; i++) {
            jobs[i] = (job){.ctx = ctxs[d], .id = i};
            ck_assert_int_eq(pthread_create(&t[i], NULL, worker, &jobs[i]), 0);
        }
        for (int i = 0; i < THREADS; i++) {
            pthread_join(t[i], NULL);
            ck_assert_msg(jobs[i].failures == 0, "thread %d: %d failures (%s)", i, jobs[i].failures,
                          clf_last_error());
        }
        /* At most one kernel per (program, name) per thread that held it at once; never per call. */
        int size = clf__kernelpool_size(ctxs[d]);
        ck_assert_int_gt(size, 0);
        ck_assert_int_le(size, THREADS * 8);
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

START_TEST(reuse_and_foreign)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    const char *src = "__kernel void k(__global float *x, float v) { x[get_global_id(0)] = v; }";
    for (int d = 0; d < nc; d++) {
        clf_context *ctx = ctxs[d];
        int before = clf__kernelpool_size(ctx);
        cl_kernel k1, k2, k3;
        ck_assert_int_eq(clf__kernel_take(ctx, src, "", "k", &k1), CLF_SUCCESS);
        ck_assert_int_eq(clf__kernel_take(ctx, src, "", "k", &k2), CLF_SUCCESS);
        ck_assert_ptr_ne(k1, k2);   /* both borrowed: never the same object twice */
        clf__kernel_give(ctx, k1);
        ck_assert_int_eq(clf__kernel_take(ctx, src, "", "k", &k3), CLF_SUCCESS);
        ck_assert_ptr_eq(k3, k1);   /* handed back, then reused */
        clf__kernel_give(ctx, k3);
        clf__kernel_give(ctx, k2);
        ck_assert_int_eq(clf__kernelpool_size(ctx), before + 2);
        /* A name the program lacks fails cleanly and pools nothing. */
        cl_kernel bad = (cl_kernel)1;
        ck_assert_int_ne(clf__kernel_take(ctx, src, "", "nope", &bad), CLF_SUCCESS);
        ck_assert_ptr_null(bad);
        ck_assert_int_eq(clf__kernelpool_size(ctx), before + 2);
        /* A kernel the pool never made is released when given (no leak, no double release). */
        cl_kernel own;
        ck_assert_int_eq(clf_build_kernel(ctx, src, "", "k", &own), CLF_SUCCESS);
        clf__kernel_give(ctx, own);
        clf__kernel_give(ctx, NULL);
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* More distinct kernels than the pool holds: free entries are replaced, borrowed ones never are, and a kernel
 * that finds every entry borrowed is released when given back. */
START_TEST(full_pool)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    enum { K = 300 };
    char *src = malloc((size_t)K * 64), name[16];
    size_t len = 0;
    for (int i = 0; i < K; i++)
        len += (size_t)snprintf(src + len, 64, "__kernel void k%d(__global int *x) { x[0] = %d; }\n", i, i);
    for (int d = 0; d < nc; d++) {
        clf_context *ctx = ctxs[d];
        static cl_kernel held[K];
        for (int i = 0; i < K; i++) {
            snprintf(name, sizeof name, "k%d", i);
            ck_assert_int_eq(clf__kernel_take(ctx, src, "", name, &held[i]), CLF_SUCCESS);
        }
        for (int i = 0; i < K; i++)
            for (int j = 0; j < i; j++) ck_assert_ptr_ne(held[i], held[j]);
        ck_assert_int_le(clf__kernelpool_size(ctx), 256);
        for (int i = 0; i < K; i++) clf__kernel_give(ctx, held[i]);
        /* Cycling through all of them again replaces free entries; each kernel still runs. */
        cl_mem out = clf_test_buffer(ctx, sizeof(cl_int), NULL);
        for (int i = K - 1; i >= 0; i -= 7) {
            snprintf(name, sizeof name, "k%d", i);
            cl_kernel k;
            ck_assert_int_eq(clf__kernel_take(ctx, src, "", name, &k), CLF_SUCCESS);
            ck_assert_int_eq(clSetKernelArg(k, 0, sizeof out, &out), CL_SUCCESS);
            size_t one = 1;
            ck_assert_int_eq(clf__enqueue(ctx, k, 1, &one, NULL, NULL, NULL), CLF_SUCCESS);
            clf__kernel_give(ctx, k);
            cl_int got = -1;
            clf_test_read(ctx, out, sizeof got, &got);
            ck_assert_int_eq(got, i);
        }
        ck_assert_int_le(clf__kernelpool_size(ctx), 256);
        clReleaseMemObject(out);
    }
    free(src);
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernelpool");
    CLF_TEST_ALONE(s, reuse_and_foreign);
    CLF_TEST_ALONE(s, threads_share_a_context);
    CLF_TEST_ALONE(s, full_pool);
    return clf_test_run(s);
}
