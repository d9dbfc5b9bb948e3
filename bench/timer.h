/* timer.h — the bench programs' timing: the runtime's one policy (clf__time_runs in launch.c). */
#ifndef CLFORGE_BENCH_TIMER_H
#define CLFORGE_BENCH_TIMER_H

#include "clforge/clforge.h"

/* Seconds per run: the median over reps (at most 64) samples of a back-to-back group of runs between
 * clFinish calls, after two warm-up runs; the group is sized from one more run to last about 20 ms (at
 * most max_group runs) so that launch latency does not dominate small sizes. run returns 0 on failure;
 * then -1. */
double clf_bench_time(clf_context *ctx, int (*run)(void *arg), void *arg, int reps, int max_group);

/* A read-write buffer of the context, initialised from host when host is not NULL; a bench cannot go on
 * without it, so a failure prints the OpenCL error and exits. */
cl_mem clf_bench_buffer(clf_context *ctx, size_t bytes, const void *host);

#endif
