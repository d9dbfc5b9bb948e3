/* timer.c — what the bench programs share: timing by the runtime's one policy (clf__time_runs) behind an int-returning
 * run callback, and buffer creation that exits on failure. */
#include "timer.h"

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct bench_run {
    int (*run)(void *arg);
    void *arg;
} bench_run;

/* The ops are called without events, so every sample is timed on the host around clFinish. */
static clf_status call_run(void *arg, cl_event *ev)
{
    bench_run *b = arg;
    (void)ev;
    if (b->run(b->arg))
        return CLF_SUCCESS;
    char why[512];   /* the library's own message, which clf__fail would overwrite */
    snprintf(why, sizeof why, "%s", clf_last_error());
    return clf__fail(CLF_ERR_INTERNAL, "bench: a run failed: %s", why);
}

double clf_bench_time(clf_context *ctx, int (*run)(void *arg), void *arg, int reps, int max_group)
{
    bench_run b = {run, arg};
    clf__timing how = {.warmup = 2, .reps = reps > 64 ? 64 : reps, .group = 0, .group_seconds = 0.02,
                       .max_group = max_group};
    double seconds;
    return clf__time_runs(ctx, call_run, &b, &how, &seconds, NULL) == CLF_SUCCESS ? seconds : -1;
}

cl_mem clf_bench_buffer(clf_context *ctx, size_t bytes, const void *host)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clf_context_cl(ctx), CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)host, &e);
    if (!m) {
        fprintf(stderr, "bench: clCreateBuffer(%zu bytes) failed: %s\n", bytes, clf_status_name(e));
        exit(1);
    }
    return m;
}
