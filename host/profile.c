/* profile.c — the built-in profiler: with CLFORGE_PROFILE=1 every launch's event is kept and, at context
 * destruction or on clf_profile_report(), summarised per kernel. */
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

typedef struct { const char *name; unsigned long calls; double seconds, flops, bytes; } clf__row;

clf_status clf_profile_report(clf_context *ctx, FILE *out)
{
    if (!ctx || !out) return clf__fail(CLF_ERR_INVALID_ARG, "clf_profile_report: ctx and out must be non-NULL");
    struct clf__profile *p = ctx->profile;
    if (!p) {
        fprintf(out, "clforge profile: off (set CLFORGE_PROFILE=1 before creating the context)\n");
        return CLF_SUCCESS;
    }
    clFinish(ctx->queue);
    pthread_mutex_lock(&p->lock);
    clf__row rows[64];
    size_t nrows = 0;
    for (size_t i = 0; i < p->count; i++) {
        clf__launch *l = &p->launches[i];
        size_t r;
        for (r = 0; r < nrows && strcmp(rows[r].name, l->name) != 0; r++) {}
        if (r == nrows) {
            if (nrows == 64) continue;
            rows[nrows++] = (clf__row){l->name, 0, 0, 0, 0};
        }
        double t = clf__event_seconds(l->ev);
        rows[r].calls++;
        rows[r].seconds += t > 0 ? t : 0;
        rows[r].flops += l->flops;
        rows[r].bytes += l->bytes;
    }
    pthread_mutex_unlock(&p->lock);
    fprintf(out, "clforge profile: %s\n%-16s %8s %12s %12s %10s %10s\n", ctx->info.name, "kernel", "calls", "total ms",
            "mean us", "GB/s", "GFLOP/s");
    for (size_t r = 0; r < nrows; r++) {
        double s = rows[r].seconds;
        fprintf(out, "%-16s %8lu %12.3f %12.2f %10.1f %10.1f\n", rows[r].name, rows[r].calls, 1e3 * s,
                1e6 * s / (double)rows[r].calls, s > 0 ? rows[r].bytes / s / 1e9 : 0, s > 0 ? rows[r].flops / s / 1e9 : 0);
    }
    return CLF_SUCCESS;
}
