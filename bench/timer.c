/* timer.c — the bench programs' timing: the runtime's one policy (clf__time_runs) behind an int-returning
 * run callback. */
#include "timer.h"

#include "internal.h"

typedef struct bench_run {
    int (*run)(void *arg);
    void *arg;
} bench_run;

/* The ops are called without events, so every sample is timed on the host around clFinish. */
static clf_status call_run(void *arg, cl_event *ev)
{
    bench_run *b = arg;
    (void)ev;
    return b->run(b->arg) ? CLF_SUCCESS : clf__fail(CLF_ERR_INTERNAL, "bench: a run failed");
}

double clf_bench_time(clf_context *ctx, int (*run)(void *arg), void *arg, int reps, int max_group)
{
    bench_run b = {run, arg};
    clf__timing how = {.warmup = 2, .reps = reps > 64 ? 64 : reps, .group = 0, .group_seconds = 0.02,
                       .max_group = max_group};
    double seconds;
    return clf__time_runs(ctx, call_run, &b, &how, &seconds, NULL) == CLF_SUCCESS ? seconds : -1;
}
