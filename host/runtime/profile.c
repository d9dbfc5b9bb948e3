/* profile.c — the built-in profiler: with CLFORGE_PROFILE=1 every launch's event is kept and, at context
 * destruction or on clf_profile_report(), summarised per kernel against a roofline the caller supplies (the
 * runtime does not measure one: host/api/context.c decides when that may happen). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct clf__launch {
    const char *name;   /* static strings from the ops */
    double flops, bytes;
    cl_event ev;
} clf__launch;

struct clf__profile {
    pthread_mutex_t lock;
    clf__launch *launches;
    size_t count, cap;
};

struct clf__profile *clf__profile_create(void)
{
    struct clf__profile *p = calloc(1, sizeof *p);
    if (p) pthread_mutex_init(&p->lock, NULL);
    return p;
}

void clf__profile_destroy(struct clf__profile *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->count; i++) clReleaseEvent(p->launches[i].ev);
    free(p->launches);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

void clf__profile_record(clf_context *ctx, const clf__work *work, cl_event ev)
{
    struct clf__profile *p = ctx->profile;
    if (!p || !ev) return;
    pthread_mutex_lock(&p->lock);
    if (p->count == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        clf__launch *l = realloc(p->launches, cap * sizeof *l);
        if (!l) { pthread_mutex_unlock(&p->lock); return; }   /* profiling is best effort */
        p->launches = l;
        p->cap = cap;
    }
    clRetainEvent(ev);
    p->launches[p->count++] = (clf__launch){work->name, work->flops, work->bytes, ev};
    pthread_mutex_unlock(&p->lock);
}

clf_status clf__profile_totals(clf_context *ctx, const char *name, unsigned long *calls, double *flops, double *bytes)
{
    if (!ctx || !name || !calls || !flops || !bytes)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf__profile_totals: NULL argument");
    *calls = 0, *flops = 0, *bytes = 0;
    struct clf__profile *p = ctx->profile;
    if (!p) return clf__fail(CLF_ERR_INVALID_ARG, "profiling is off (CLFORGE_PROFILE=1 at context creation)");
    pthread_mutex_lock(&p->lock);
    for (size_t i = 0; i < p->count; i++)
        if (strcmp(p->launches[i].name, name) == 0) {
            ++*calls;
            *flops += p->launches[i].flops;
            *bytes += p->launches[i].bytes;
        }
    pthread_mutex_unlock(&p->lock);
    return CLF_SUCCESS;
}

typedef struct {
    const char *name;
    unsigned long calls, timed;   /* timed: calls whose event gave a duration */
    double seconds, flops, bytes; /* flops and bytes of the timed calls only, so rates stay honest */
} clf__row;

/* Where a kernel sits on the roofline: the attainable rate at its arithmetic intensity, the fraction of it
 * reached, and which roof limits it. Kernels without FLOPs (copies, packing) are measured against bandwidth. */
static void clf__row_roof(const clf__row *r, const clf_roofline *roof, double *fraction, const char **bound)
{
    double bw = roof->copy_gbs > roof->triad_gbs ? roof->copy_gbs : roof->triad_gbs;
    /* The ops name double-precision kernels "d...": "dgemm", "dgemm_pack". */
    double peak = r->name[0] == 'd' && roof->fp64_gflops > 0 ? roof->fp64_gflops : roof->fp32_gflops;
    *fraction = -1;
    *bound = "?";
    if (r->seconds <= 0 || r->bytes <= 0 || bw <= 0) return;
    double gbs = r->bytes / r->seconds / 1e9;
    if (r->flops <= 0 || peak <= 0) {
        *fraction = gbs / bw;
        *bound = "memory";
        return;
    }
    double intensity = r->flops / r->bytes, mem_roof = intensity * bw;
    double attainable = mem_roof < peak ? mem_roof : peak;
    *fraction = r->flops / r->seconds / 1e9 / attainable;
    *bound = mem_roof < peak ? "memory" : "compute";
}

clf_status clf__profile_print(clf_context *ctx, FILE *out, const clf_roofline *roof_in)
{
    struct clf__profile *p = ctx->profile;
    if (!p) {
        fprintf(out, "clforge profile: off (set CLFORGE_PROFILE=1 before creating the context)\n");
        return CLF_SUCCESS;
    }
    clFinish(ctx->queue);
    pthread_mutex_lock(&p->lock);
    clf__row rows[64];
    size_t nrows = 0, dropped = 0;
    for (size_t i = 0; i < p->count; i++) {
        clf__launch *l = &p->launches[i];
        size_t r;
        for (r = 0; r < nrows && strcmp(rows[r].name, l->name) != 0; r++) {}
        if (r == nrows) {
            if (nrows == 64) { dropped++; continue; }
            rows[nrows++] = (clf__row){l->name, 0, 0, 0, 0, 0};
        }
        /* Durations under 100 ns are not real (rusticl 22.3 reports 1 ns for everything); nor are any once
         * timing found this driver's events insane. */
        double t = clf__event_timing(ctx) == 0 ? -1 : clf__event_seconds(l->ev);
        rows[r].calls++;
        if (t > 1e-7) {
            rows[r].timed++;
            rows[r].seconds += t;
            rows[r].flops += l->flops;
            rows[r].bytes += l->bytes;
        }
    }
    pthread_mutex_unlock(&p->lock);

    clf_roofline roof;
    int have_roof = nrows > 0 && roof_in;
    if (have_roof) roof = *roof_in;
    fprintf(out, "clforge profile: %s\n", ctx->info.name);
    if (have_roof)
        fprintf(out, "roofline: %.1f GB/s, fp32 %.1f GFLOP/s, fp64 %.1f GFLOP/s (measured %s)\n",
                roof.copy_gbs > roof.triad_gbs ? roof.copy_gbs : roof.triad_gbs, roof.fp32_gflops, roof.fp64_gflops,
                roof.date);
    fprintf(out, "%-16s %8s %12s %12s %10s %10s %6s %-8s\n", "kernel", "calls", "total ms", "mean us", "GB/s",
            "GFLOP/s", "roof", "bound");
    int untimed = 0;
    for (size_t r = 0; r < nrows; r++) {
        const clf__row *w = &rows[r];
        if (!w->timed) {
            fprintf(out, "%-16s %8lu %12s %12s %10s %10s %6s %-8s\n", w->name, w->calls, "-", "-", "-", "-", "-", "-");
            untimed = 1;
            continue;
        }
        double s = w->seconds, fraction = -1;
        const char *bound = "?";
        if (have_roof) clf__row_roof(w, &roof, &fraction, &bound);
        char frac[16] = "-";
        if (fraction >= 0) snprintf(frac, sizeof frac, "%.2f", fraction);
        fprintf(out, "%-16s %8lu %12.3f %12.2f %10.1f %10.1f %6s %-8s\n", w->name, w->calls, 1e3 * s,
                1e6 * s / (double)w->timed, w->bytes / s / 1e9, w->flops / s / 1e9, frac, bound);
        if (w->timed < w->calls) untimed = 1;
    }
    if (untimed)
        fprintf(out, "(some launches have no device duration: this driver's profiling events report none)\n");
    if (dropped) fprintf(out, "(%zu launches of further kernels not shown: more than 64 kernel names)\n", dropped);
    return CLF_SUCCESS;
}
