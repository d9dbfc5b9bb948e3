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

static int clf__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

clf_status clf__time_median(clf_context *ctx, clf__run_fn run, void *arg, int warmup, int reps, double *median_seconds)
{
    if (reps < 1) reps = 1;
    double *t = malloc(sizeof *t * (size_t)reps);
    if (!t) return clf__fail(CLF_ERR_OUT_OF_MEMORY, "timing buffer");
    clf_status s = CLF_SUCCESS;
    for (int i = 0; i < warmup + reps && s == CLF_SUCCESS; i++) {
        cl_event ev = NULL;
        cl_int err = clFinish(ctx->queue);
        double t0 = clf__now();
        s = run(arg, &ev);
        if (s == CLF_SUCCESS && (err = clFinish(ctx->queue)) != CL_SUCCESS) s = clf__fail_cl(err, "clFinish", "after a timed run");
        double host = clf__now() - t0;
        double dev = s == CLF_SUCCESS && ev && ctx->queue_profiling && ctx->event_timing != 0 ? clf__event_seconds(ev) : -1;
        if (ev) {
            cl_int st = CL_COMPLETE;
            clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
            if (st < 0 && s == CLF_SUCCESS) s = clf__fail_cl(st, "kernel execution", "a timed run failed on the device");
            clReleaseEvent(ev);
        }
        /* A device duration is sane when positive and not longer than the host saw (plus clock slack).
         * Mesa rusticl 22.3 reports a constant 1 ns (start 2, end 3): sub-microsecond durations of runs the
         * host saw take over a thousand times longer are not believed either. */
        if (ev && ctx->queue_profiling && ctx->event_timing != 0) {
            int sane = dev > 0 && dev <= host * 1.05 + 1e-4 && !(dev < 1e-6 && dev * 1000 < host);
            if (!sane) ctx->event_timing = 0;
            else if (ctx->event_timing < 0) ctx->event_timing = 1;
        }
        if (i >= warmup) t[i - warmup] = dev > 0 && ctx->event_timing != 0 ? dev : host;
    }
    if (s == CLF_SUCCESS) {
        qsort(t, (size_t)reps, sizeof *t, clf__cmp_double);
        *median_seconds = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    }
    free(t);
    return s;
}
