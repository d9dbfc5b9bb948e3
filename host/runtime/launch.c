/* launch.c — enqueueing kernels with profiling, and timing: device events where the driver reports sane
 * durations, host timers around clFinish where it does not (Mesa rusticl 22.3 reports zeros). */
#include "internal.h"

#include <stdlib.h>
#include <time.h>

double clf__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

clf_status clf__enqueue(clf_context *ctx, cl_kernel k, cl_uint dims, const size_t *global, const size_t *local,
                        const clf__work *work, cl_event *done)
{
    if (done) *done = NULL;
    for (cl_uint i = 0; i < dims; i++)
        if (global[i] == 0) return CLF_SUCCESS;   /* nothing to do; OpenCL would call it an error */
    cl_event ev = NULL;
    int want_event = done || (work && ctx->profile);
    cl_int err = clEnqueueNDRangeKernel(ctx->queue, k, dims, NULL, global, local, 0, NULL, want_event ? &ev : NULL);
    if (err != CL_SUCCESS) {
        char kname[128] = "?";
        clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof kname, kname, NULL);
        kname[sizeof kname - 1] = '\0';
        return clf__fail_cl(err, "clEnqueueNDRangeKernel", "kernel %s, global %zu x %zu, local %zu x %zu", kname,
                            global[0], dims > 1 ? global[1] : 1, local ? local[0] : 0, local && dims > 1 ? local[1] : 0);
    }
    if (ev && work && ctx->profile) clf__profile_record(ctx, work, ev);
    if (done) *done = ev;
    else if (ev) clReleaseEvent(ev);
    return CLF_SUCCESS;
}

double clf__event_seconds(cl_event ev)
{
    cl_ulong start = 0, end = 0;
    if (!ev || clWaitForEvents(1, &ev) != CL_SUCCESS) return -1;
    if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) != CL_SUCCESS || end <= start)
        return -1;
    return 1e-9 * (double)(end - start);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int clf__time_group(double seconds, double target, int max_group)
{
    if (max_group < 1) max_group = 1;
    if (!(seconds > 0) || seconds >= target) return 1;
    double g = target / (seconds > 1e-7 ? seconds : 1e-7);
    return g >= max_group ? max_group : (int)g + ((double)(int)g < g);
}

/* Believes a device duration when positive and not longer than the host saw (plus clock slack). Mesa
 * rusticl 22.3 reports a constant 1 ns (start 2, end 3): sub-microsecond durations of runs the host saw
 * take over a thousand times longer are not believed either. One bad report switches ctx to host timers. */
static void judge_event(clf_context *ctx, double dev, double host)
{
    int sane = dev > 0 && dev <= host * 1.05 + 1e-4 && !(dev < 1e-6 && dev * 1000 < host);
    if (!sane) clf__set_event_timing(ctx, 0);
    else if (clf__event_timing(ctx) < 0) clf__set_event_timing(ctx, 1);
}

/* One sample: group runs back to back between clFinish calls. *seconds gets the time of one run: the
 * event's duration when a single run handed one back and events are believed here, else host time over
 * the group. *from_event says which. */
static clf_status sample(clf_context *ctx, clf__run_fn run, void *arg, int group, double *seconds, int *from_event)
{
    cl_event ev = NULL;
    clf_status s = CLF_SUCCESS;
    clFinish(ctx->queue);
    double t0 = clf__now();
    for (int g = 0; g < group && s == CLF_SUCCESS; g++) {
        cl_event e = NULL;
        s = run(arg, &e);
        if (group == 1) ev = e;
        else if (e) clReleaseEvent(e);   /* a group is timed on the host */
    }
    cl_int err = s == CLF_SUCCESS ? clFinish(ctx->queue) : CL_SUCCESS;
    if (err != CL_SUCCESS) s = clf__fail_cl(err, "clFinish", "after a timed run");
    double host = clf__now() - t0;
    int use_event = s == CLF_SUCCESS && ev && ctx->queue_profiling && clf__event_timing(ctx) != 0;
    double dev = use_event ? clf__event_seconds(ev) : -1;
    if (ev) {
        cl_int st = CL_COMPLETE;
        clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
        if (st < 0 && s == CLF_SUCCESS) s = clf__fail_cl(st, "kernel execution", "a timed run failed on the device");
        clReleaseEvent(ev);
    }
    if (use_event) judge_event(ctx, dev, host);
    *from_event = dev > 0 && clf__event_timing(ctx) != 0;
    *seconds = *from_event ? dev : host / group;
    return s;
}

/* Median of reps samples into *median; *all_events when every sample was an event's duration, *wall the
 * host time they took together. */
static clf_status samples(clf_context *ctx, clf__run_fn run, void *arg, int group, int reps, double *t,
                          double *median, int *all_events, double *wall)
{
    clf_status s = CLF_SUCCESS;
    double t0 = clf__now();
    *all_events = 1;
    for (int i = 0; i < reps && s == CLF_SUCCESS; i++) {
        int ev;
        s = sample(ctx, run, arg, group, &t[i], &ev);
        *all_events &= ev;
    }
    *wall = clf__now() - t0;
    if (s != CLF_SUCCESS) return s;
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    *median = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    return CLF_SUCCESS;
}

clf_status clf__time_runs(clf_context *ctx, clf__run_fn run, void *arg, const clf__timing *how, double *seconds,
                          int *group_used)
{
    int reps = how->reps < 1 ? 1 : how->reps, group = how->group, ev;
    double one = 0, wall, *t = malloc(sizeof *t * (size_t)reps);
    if (!t) return clf__fail(CLF_ERR_OUT_OF_MEMORY, "timing buffer");
    clf_status s = CLF_SUCCESS;
    for (int i = 0; i < how->warmup && s == CLF_SUCCESS; i++) s = sample(ctx, run, arg, 1, &one, &ev);
    if (s == CLF_SUCCESS && group < 1) {
        s = sample(ctx, run, arg, 1, &one, &ev);
        group = clf__time_group(one, how->group_seconds, how->max_group);
    }
    if (s == CLF_SUCCESS) s = samples(ctx, run, arg, group, reps, t, seconds, &ev, &wall);
    /* Events that passed the per-sample check can still be far off in sum (durations of microseconds
     * for runs of milliseconds): then this context times on the host, starting with these samples. */
    if (s == CLF_SUCCESS && ev && *seconds * reps * 1000 < wall) {
        clf__set_event_timing(ctx, 0);
        s = samples(ctx, run, arg, group, reps, t, seconds, &ev, &wall);
    }
    if (group_used) *group_used = group;
    free(t);
    return s;
}

clf_status clf__time_median(clf_context *ctx, clf__run_fn run, void *arg, int warmup, int reps, double *median_seconds)
{
    clf__timing how = {.warmup = warmup, .reps = reps, .group = 1};
    return clf__time_runs(ctx, run, arg, &how, median_seconds, NULL);
}
