/* timer.c — the timing loop the bench programs share (see timer.h). */
#include "timer.h"

#include "internal.h"

double clf_bench_time(clf_context *ctx, int (*run)(void *arg), void *arg, int reps, int max_group)
{
    for (int i = 0; i < 2; i++)   /* warm-up: compilation, caches, clocks */
        if (!run(arg))
            return -1;
    clf_finish(ctx);
    double t0 = clf__now();
    if (!run(arg))
        return -1;
    clf_finish(ctx);
    double one = clf__now() - t0;
    int group = one > 0.02 ? 1 : (int)(0.02 / (one > 1e-6 ? one : 1e-6)) + 1;
    if (group > max_group)
        group = max_group;
    double t[64];
    if (reps > 64)
        reps = 64;
    if (reps < 1)
        reps = 1;
    for (int r = 0; r < reps; r++) {
        t0 = clf__now();
        for (int g = 0; g < group; g++)
            if (!run(arg))
                return -1;
        clf_finish(ctx);
        t[r] = (clf__now() - t0) / group;
    }
    for (int i = 1; i < reps; i++)   /* insertion sort: reps is small */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return t[reps / 2];
}
