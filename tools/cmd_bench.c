/* cmd_bench.c — `clforge bench`: calibrates each device's roofline, times GEMM, maps and copies against
 * CLBlast, prints a table per device and optionally writes every figure as JSON (input of `clforge report`). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "clforge/clforge.h"
#include "internal.h"

typedef struct progress_state {
    const char *device;
    int tty;
} progress_state;

static void bench_usage(FILE *f)
{
    fprintf(f,
            "usage: clforge bench [--device SEL | --all] [--quick] [--only LIST] [--json FILE]\n"
            "  --device SEL  one device (index \"P:D\", \"gpu\", \"cpu\" or a name substring; default: $CLFORGE_DEVICE)\n"
            "  --all         every OpenCL device present\n"
            "  --quick       smaller buffers, fewer sizes and repeats (about a minute on a CPU)\n"
            "  --only LIST   comma-separated workloads among sgemm, dgemm, gemm_f16, gemm_bf16, gemm_tf32,\n"
            "                gemm_3xtf32, map, copy (default: all)\n"
            "  --json FILE   write device identity, roofline and every figure to FILE\n");
}

static void on_progress(void *arg, size_t i, size_t total, const char *what)
{
    progress_state *p = arg;
    /* On a terminal the line rewrites itself; in a log each step is its own line. */
    if (p->tty) fprintf(stderr, "\r\033[K[%s %zu/%zu] %s", p->device, i + 1, total, what);
    else fprintf(stderr, "[%s %zu/%zu] %s\n", p->device, i + 1, total, what);
    fflush(stderr);
}

static json_t *device_json(const clf_device_info *d)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:b, s:s, s:s}", "name", d->name,
                     "vendor", d->vendor, "platform", d->platform, "version", d->version, "driver", d->driver,
                     "opencl_c", d->opencl_c, "type", clf__device_type_name(d->type), "compute_units", (json_int_t)d->compute_units,
                     "clock_mhz", (json_int_t)d->clock_mhz, "global_mem", (json_int_t)d->global_mem, "max_alloc",
                     (json_int_t)d->max_alloc, "fp64", d->fp64, "key", d->key, "id", d->id);
}

static json_t *result_json(const cli_bench_result *r)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s}", "workload",
                          r->workload, "group", r->group, "label", r->label, "m", (json_int_t)r->m, "n",
                          (json_int_t)r->n, "k", (json_int_t)r->k, "unit", r->unit, "value", r->value, "seconds",
                          r->seconds, "flops", r->flops, "bytes", r->bytes, "intensity", r->intensity, "attainable",
                          r->attainable, "fraction", r->fraction, "bound", r->bound);
    if (!j) return NULL;
    if (r->error[0]) json_object_set_new(j, "error", json_string(r->error));
    if (r->have_base)
        json_object_set_new(j, "baseline", json_pack("{s:s, s:f, s:f, s:f}", "name", r->base_name, "value",
                                                     r->base_value, "seconds", r->base_seconds, "ratio", r->ratio));
    else if (r->base_error[0])
        json_object_set_new(j, "baseline", json_pack("{s:s, s:s}", "name", r->base_name, "error", r->base_error));
    return j;
}

static void print_device(FILE *f, const clf_device_info *d, const clf_roofline *roof, const cli_bench_list *l,
                         size_t first)
{
    const char *base = cli_bench_baseline();
    fprintf(f, "\n%s (%s, driver %s), id %s\n", d->name, d->platform, d->driver, d->id);
    fprintf(f, "roofline: copy %.1f GB/s, triad %.1f GB/s, fp32 %.1f GFLOP/s", roof->copy_gbs, roof->triad_gbs,
            roof->fp32_gflops);
    if (roof->fp64_gflops > 0) fprintf(f, ", fp64 %.1f GFLOP/s", roof->fp64_gflops);
    fprintf(f, "\n%-11s %-32s %12s %-8s %6s %-8s", "op", "size", "clforge", "unit", "roof", "bound");
    if (base) fprintf(f, " %12s %6s", base, "ratio");
    fputc('\n', f);
    for (size_t i = first; i < l->count; i++) {
        const cli_bench_result *r = &l->items[i];
        if (r->error[0]) {
            fprintf(f, "%-11s %-32s failed: %s\n", r->workload, r->label, r->error);
            continue;
        }
        char frac[16] = "-";   /* no measured roof (matrix units): unknown, not zero */
        if (r->attainable > 0)
            snprintf(frac, sizeof frac, "%.2f", r->fraction);
        fprintf(f, "%-11s %-32s %12.1f %-8s %6s %-8s", r->workload, r->label, r->value, r->unit, frac, r->bound);
        if (r->have_base) fprintf(f, " %12.1f %6.2f", r->base_value, r->ratio);
        else if (base) fprintf(f, " %12s %6s", r->base_error[0] ? "failed" : "-", "-");
        fputc('\n', f);
    }
}

/* Calibrates and benches one device; appends its JSON object to devices. Returns 0 or 1 (failure). */
static int bench_one(const char *selector, int quick, const char *only, json_t *devices, int tty)
{
    clf_context_options opt = {0};
    opt.device = selector;
    clf_context *ctx = NULL;
    clf_status s = clf_context_create(&opt, &ctx);
    if (s) {
        fprintf(stderr, "clforge bench: %s: %s\n", clf_status_string(s), clf_last_error());
        return 1;
    }
    const clf_device_info *d = clf_context_device(ctx);
    progress_state ps = {d->name, tty};
    on_progress(&ps, 0, 1, quick ? "calibrating roofline (quick)" : "calibrating roofline");
    clf_roofline roof;
    double t0 = (double)time(NULL);
    if ((s = clf_roofline_get(ctx, quick, 1, &roof))) {   /* measured afresh: the figures are compared with it */
        if (tty) fputc('\n', stderr);
        fprintf(stderr, "clforge bench: %s: roofline: %s: %s\n", d->name, clf_status_string(s), clf_last_error());
        clf_context_destroy(ctx);
        return 1;
    }
    cli_bench_list list = {0};
    s = cli_bench_device(ctx, &roof, quick, only, &list, on_progress, &ps);
    if (tty) fputc('\n', stderr);
    int failed = s != CLF_SUCCESS;
    if (s) fprintf(stderr, "clforge bench: %s: %s\n", d->name, clf_last_error());
    print_device(stdout, d, &roof, &list, 0);
    fflush(stdout);
    json_t *res = json_array();
    for (size_t i = 0; i < list.count; i++) {
        json_array_append_new(res, result_json(&list.items[i]));
        if (list.items[i].error[0]) failed = 1;
    }
    json_t *dj = json_pack("{s:o, s:{s:f, s:f, s:f, s:f, s:s}, s:o, s:f}", "device", device_json(d), "roofline",
                           "copy_gbs", roof.copy_gbs, "triad_gbs", roof.triad_gbs, "fp32_gflops", roof.fp32_gflops,
                           "fp64_gflops", roof.fp64_gflops, "date", roof.date, "results", res, "seconds",
                           (double)time(NULL) - t0);
    if (dj) json_array_append_new(devices, dj);
    cli_bench_list_free(&list);
    clf_context_destroy(ctx);
    return failed;
}

static int write_json(const char *path, json_t *devices, int argc, char **argv, int quick)
{
    size_t n = sizeof "clforge";
    for (int i = 0; i < argc; i++) n += strlen(argv[i]) + 1;
    char *cmd = malloc(n);   /* the whole command line: a fixed buffer cut it silently */
    if (!cmd) {
        fprintf(stderr, "clforge bench: out of memory\n");
        return 1;
    }
    strcpy(cmd, "clforge");
    for (int i = 0; i < argc; i++) strcat(strcat(cmd, " "), argv[i]);
    char date[32], host[256] = "";
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    gethostname(host, sizeof host - 1);
    const char *base = cli_bench_baseline();
    json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:o, s:O}", "format", "clforge-bench-1",
                             "clforge_version", clf_version(), "date", date, "command", cmd, "host", host, "quick",
                             quick, "baseline", base ? json_string(base) : json_null(), "devices", devices);
    free(cmd);
    FILE *fp = root ? fopen(path, "w") : NULL;
    int e = fp ? 0 : root ? errno : ENOMEM;
    if (fp) {
        errno = 0;
        if (json_dumpf(root, fp, JSON_INDENT(1) | JSON_REAL_PRECISION(6)) != 0 || fflush(fp) != 0)
            e = errno ? errno : EIO;
        if (fclose(fp) != 0 && !e)
            e = errno;
    }
    if (e) {
        fprintf(stderr, "clforge bench: cannot write %s: %s\n", path, strerror(e));
        json_decref(root);
        return 1;
    }
    json_decref(root);
    fprintf(stderr, "clforge bench: wrote %s\n", path);
    return 0;
}

int cli_cmd_bench(int argc, char **argv)
{
    const char *device = NULL, *json = NULL, *only = NULL;
    int all = 0, quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(argv[i], "--all")) all = 1;
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { bench_usage(stdout); return 0; }
        else {
            fprintf(stderr, "clforge bench: unknown or incomplete argument '%s'\n", argv[i]);
            bench_usage(stderr);
            return 2;
        }
    }
    if (device && all) {
        fprintf(stderr, "clforge bench: --device and --all exclude each other\n");
        return 2;
    }
    if (json && !cli_output_ok("bench", json))
        return 2;   /* before the run, not after it */
    if (only && !cli_bench_only_valid(only)) {
        fprintf(stderr, "clforge bench: --only takes workloads among sgemm, dgemm, gemm_f16, gemm_bf16, gemm_tf32, "
                        "gemm_3xtf32, map, copy (got '%s')\n", only);
        return 2;
    }
    json_t *devices = json_array();
    int tty = isatty(2), failed = 0;
    if (all) {
        clf_device_info infos[32];
        size_t count = 0;
        clf_status s = clf_device_list(infos, 32, &count);
        if (s) {
            fprintf(stderr, "clforge bench: %s: %s\n", clf_status_string(s), clf_last_error());
            json_decref(devices);
            return 1;
        }
        for (size_t i = 0; i < count && i < 32; i++) {
            char sel[32];
            snprintf(sel, sizeof sel, "%d:%d", infos[i].platform_index, infos[i].device_index);
            failed |= bench_one(sel, quick, only, devices, tty);
        }
    } else {
        failed = bench_one(device, quick, only, devices, tty);
    }
    if (json && json_array_size(devices) > 0) failed |= write_json(json, devices, argc, argv, quick);
    json_decref(devices);
    return failed ? 1 : 0;
}
