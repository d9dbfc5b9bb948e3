/* bench_transfer.c — the host <-> device rows of `clforge bench`: blocking clf_upload and clf_download
 * from ordinary host memory (the path a program gets: staged through pinned buffers on devices with
 * memory of their own from the staging threshold on), timed by the runtime's policy. bench/bench_transfer
 * measures the whole range and the alternatives. */
#include "bench.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct xfer {
    clf_context *ctx;
    cl_mem dev;
    void *host;
    size_t bytes;
    int up;
} xfer;

static clf_status run_xfer(void *arg, cl_event *ev)
{
    xfer *x = arg;
    (void)ev;   /* blocking: timed on the host */
    return x->up ? clf_upload(x->ctx, x->dev, 0, x->host, x->bytes) : clf_download(x->ctx, x->dev, 0, x->host, x->bytes);
}

static int cmp_seconds(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void init_row(const xfer *x, cli_bench_result *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->workload, sizeof r->workload, "transfer");
    snprintf(r->group, sizeof r->group, "transfer");
    snprintf(r->label, sizeof r->label, "%s %zu MiB", x->up ? "host to device" : "device to host", x->bytes >> 20);
    r->n = x->bytes;
    r->bytes = (double)x->bytes;
    r->unit = "GB/s";
    r->bound = "memory";   /* the link's bandwidth; no roof is measured for it */
}

/* One row: median, fastest and slowest of reps single transfers after a warm-up. */
static void measure_xfer(xfer *x, int quick, cli_bench_result *r)
{
    init_row(x, r);
    enum { MAX_REPS = 7 };
    double t[MAX_REPS];
    int reps = quick ? 3 : MAX_REPS;
    clf__timing how = {.warmup = 1, .reps = 1, .group = 1};
    clf_status s = CLF_SUCCESS;
    for (int i = 0; i < reps && s == CLF_SUCCESS; i++, how.warmup = 0) s = clf__time_runs(x->ctx, run_xfer, x, &how, &t[i], NULL);
    if (s != CLF_SUCCESS) {
        snprintf(r->error, sizeof r->error, "%s: %s", clf_status_name(s), clf_last_error());
        return;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_seconds);
    r->seconds = t[reps / 2], r->min_seconds = t[0], r->max_seconds = t[reps - 1], r->repeats = reps;
    r->value = r->bytes / r->seconds / 1e9;
}

clf_status cli_bench_transfer(clf_context *ctx, int quick, cli_bench_list *list, cli_bench_progress progress,
                              void *parg)
{
    const clf_device_info *d = clf_context_device(ctx);
    size_t sizes[2] = {(size_t)(quick ? 16 : 64) << 20, (size_t)1 << 30}, n = quick ? 1 : 2;
    while (n > 0 && (sizes[n - 1] > d->max_alloc || 4 * sizes[n - 1] > d->global_mem)) n--;
    if (list->count + 2 * n > list->cap) {
        cli_bench_result *p = realloc(list->items, (list->count + 2 * n) * sizeof *p);
        if (!p) return clf__fail(CLF_ERR_OUT_OF_MEMORY, "bench results");
        list->items = p;
        list->cap = list->count + 2 * n;
    }
    for (size_t i = 0; i < n; i++) {
        xfer x = {ctx, NULL, malloc(sizes[i]), sizes[i], 1};
        clf_status s = x.host ? clf_buffer_create(ctx, sizes[i], &x.dev)
                              : clf__fail(CLF_ERR_OUT_OF_MEMORY, "transfer bench: %zu bytes of host memory", sizes[i]);
        if (x.host) memset(x.host, 1, sizes[i]);   /* touched: page faults are not the link's speed */
        for (x.up = 1; x.up >= 0; x.up--) {
            cli_bench_result *r = &list->items[list->count++];
            char what[64];
            snprintf(what, sizeof what, "transfer %s %zu MiB", x.up ? "h2d" : "d2h", sizes[i] >> 20);
            if (progress) progress(parg, 2 * i + (size_t)!x.up, 2 * n, what);
            cli_load before, after;
            cli_load_snapshot(&before);
            if (s == CLF_SUCCESS) measure_xfer(&x, quick, r);
            else init_row(&x, r), snprintf(r->error, sizeof r->error, "%s", clf_last_error());
            cli_load_snapshot(&after);
            r->others = cli_load_others(&before, &after);
            r->loaded = cli_load_is_busy(r->others);
        }
        if (x.dev) clReleaseMemObject(x.dev);
        free(x.host);
    }
    return CLF_SUCCESS;
}
