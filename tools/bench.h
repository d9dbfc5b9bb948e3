/* bench.h — what `clforge bench` measures on one device (bench_work.c) and how cmd_bench.c gets it. */
#ifndef CLFORGE_TOOLS_BENCH_H
#define CLFORGE_TOOLS_BENCH_H

#include "clforge/clforge.h"

typedef struct cli_bench_result {
    char workload[16];        /* "sgemm", "dgemm", "gemm_f16", "gemm_bf16", "gemm_tf32", "gemm_3xtf32", "map", "copy" */
    char group[16];           /* "square", "shape", "map", "copy": one table per group in the report */
    char label[64];           /* "1024x1024x1024", "y = relu(a*x + b)", "268435456 B" */
    size_t m, n, k;           /* gemm sizes; map/copy: n = elements or bytes */
    double seconds;           /* median time of one call over the repeats */
    double min_seconds, max_seconds;   /* the fastest and slowest repeat */
    int repeats;              /* timed samples (each a group of calls); 0 when it did not run */
    double flops, bytes;      /* work of one call (bytes: minimum global-memory traffic) */
    double value;             /* in unit */
    const char *unit;         /* "GFLOP/s" or "GB/s" */
    double intensity;         /* flops / bytes */
    double attainable;        /* roofline at this intensity, in unit */
    double fraction;          /* value / attainable */
    const char *bound;        /* "compute" or "memory": which roof limits this intensity */
    int have_base;            /* the CLBlast baseline ran */
    double base_seconds, base_value, ratio;   /* ratio = value / base_value */
    double base_min_seconds, base_max_seconds;
    int base_repeats;
    double others;            /* CPU cores other processes used on average while this row ran; -1 unknown */
    int loaded;               /* others was high enough to distort the figures (cli_load_is_busy) */
    char base_name[16];
    char base_error[160];     /* why the baseline failed, "" when it did not */
    char error[256];          /* why clforge failed, "" when it did not (then value is 0) */
} cli_bench_result;

typedef struct cli_bench_list {
    cli_bench_result *items;
    size_t count, cap;
} cli_bench_list;

/* Progress callback: index (0-based) of the workload about to run, their total, its name. */
typedef void (*cli_bench_progress)(void *arg, size_t index, size_t total, const char *what);

/* Runs every workload that fits ctx's device in the time budget (quick: smaller), or only those named in
 * the comma-separated list only (NULL: all), appending results to list. Failures of single workloads are recorded in their result, not returned. */
clf_status cli_bench_device(clf_context *ctx, const clf_roofline *roof, int quick, const char *only,
                            cli_bench_list *list, cli_bench_progress progress, void *parg);
/* The reference figure timed at the start and at the end of a device's bench: an aligned copy (64 MiB, quick
 * 16 MiB, smaller where the device allows less) in GB/s. Two figures far apart mean the device's speed changed
 * during the run (another process on it, clocks, heat), which /proc/stat cannot see on a GPU. */
clf_status cli_bench_reference(clf_context *ctx, int quick, double *gbs);
/* 1 when every comma-separated name in only is a workload (see cli_bench_result.workload). */
int cli_bench_only_valid(const char *only);
/* The baseline's name ("CLBlast") when its library can be loaded now (dlopen on first use), else NULL with
 * *why (may be NULL) saying what is missing. Only `clforge bench` loads it, and only for its baseline. */
const char *cli_bench_baseline(const char **why);
void cli_bench_list_free(cli_bench_list *list);
/* bench_transfer.c: the "transfer" rows (blocking clf_upload/clf_download, 64 MiB and 1 GiB; quick: 16 MiB). */
clf_status cli_bench_transfer(clf_context *ctx, int quick, cli_bench_list *list, cli_bench_progress progress, void *parg);

/* ---- bench_load.c: other processes' CPU use while the bench runs ---- */
typedef struct cli_load {
    double wall, busy, own;   /* seconds: monotonic clock; CPU time of all processes (-1: unknown); this one */
    double loadavg;           /* 1-minute load average, -1 unknown */
} cli_load;
void cli_load_snapshot(cli_load *l);
/* Cores other processes kept busy on average between two snapshots; -1 when unknown. */
double cli_load_others(const cli_load *a, const cli_load *b);
/* 1 when `others` cores of other work is enough to distort timings: 10% of the cores, at least 0.2 of one. */
int cli_load_is_busy(double others);
int cli_load_cores(void);
/* Sleeps `seconds` and returns the cores other processes used meanwhile (-1 unknown). */
double cli_load_idle_probe(double seconds);

#endif
