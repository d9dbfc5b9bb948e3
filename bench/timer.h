/* timer.h — the timing loop the bench programs share. */
#ifndef CLFORGE_BENCH_TIMER_H
#define CLFORGE_BENCH_TIMER_H

#include "clforge/clforge.h"

/* Median over reps (at most 64) of the mean time, in seconds, of a back-to-back group of runs between
 * clFinish calls, after two warm-up runs; the group is sized to last about 20 ms (at most max_group
 * runs) so that launch latency does not dominate small sizes. run returns 0 on failure; then -1. */
double clf_bench_time(clf_context *ctx, int (*run)(void *arg), void *arg, int reps, int max_group);

#endif
