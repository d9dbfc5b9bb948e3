/* cmd_bench.c — `clforge bench`: calibrates each device's roofline, times GEMM, maps and copies against
 * CLBlast (when its library is present), prints a table per device with each figure's spread over the
 * repeats and whether other processes were busy meanwhile, and optionally writes every figure as JSON
 * (format clforge-bench/2, docs/json-schema.md; the input of `clforge report`). */
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

typedef struct bench_opts {
    const char *device, *json, *only;
    int all, quick, quiet;
    FILE *table;       /* where the tables go: stdout, or stderr when the JSON takes stdout; NULL: nowhere */
    int tty;
} bench_opts;

typedef struct progress_state {
    const char *device;
    const bench_opts *o;
} progress_state;

static void bench_usage(FILE *f)
{
    fprintf(f,
            "usage: clforge bench [--device SEL | --all] [--quick] [--only LIST] [--json FILE] [--quiet]\n"
            "  --device SEL  one device (index \"P:D\", \"gpu\", \"cpu\" or a name substring; default: $CLFORGE_DEVICE)\n"
            "  --all         every OpenCL device present\n"
            "  --quick       smaller buffers, fewer sizes and repeats (about a minute on a CPU)\n"
            "  --only LIST   comma-separated workloads among sgemm, dgemm, gemm_f16, gemm_bf16, gemm_tf32,\n"
            "                gemm_3xtf32, gemm_3xf16, map, copy, transfer (default: all)\n"
            "  --json FILE   write device identity, roofline and every figure to FILE (\"-\": stdout, and the\n"
            "                tables go to stderr); format clforge-bench/2, see docs/json-schema.md\n"
            "  --quiet       no progress lines; with --json -, no tables either\n"
            "The CLBlast baseline runs when libclblast.so.1 can be loaded; rows marked * ran while other\n"
            "processes kept the CPU busy, and their figures are not to be trusted.\n");
}

static void on_progress(void *arg, size_t i, size_t total, const char *what)
{
    progress_state *p = arg;
    if (p->o->quiet) return;
    /* On a terminal the line rewrites itself; in a log each step is its own line. */
    if (p->o->tty) fprintf(stderr, "\r\033[K[%s %zu/%zu] %s", p->device, i + 1, total, what);
    else fprintf(stderr, "[%s %zu/%zu] %s\n", p->device, i + 1, total, what);
    fflush(stderr);
}

static json_t *num_or_null(double v, int known)
{
    return known ? json_real(v) : json_null();
}

/* {"min", "median", "max", "repeats"} in the row's unit: the slowest repeat gives the minimum. */
static json_t *spread_json(double numer, double median, double fastest, double slowest, int repeats)
{
    return json_pack("{s:f, s:f, s:f, s:i}", "min", numer / slowest / 1e9, "median", numer / median / 1e9, "max",
                     numer / fastest / 1e9, "repeats", repeats);
}

static json_t *result_json(const cli_bench_result *r)
{
    double numer = strcmp(r->unit, "GB/s") == 0 ? r->bytes : r->flops;
    int ran = !r->error[0] && r->repeats > 0;
    json_t *j = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:s, s:f, s:o, s:f, s:f, s:f, s:f, s:o, s:o, s:s, s:b, s:o}",
                          "workload", r->workload, "group", r->group, "label", r->label, "m", (json_int_t)r->m, "n",
                          (json_int_t)r->n, "k", (json_int_t)r->k, "unit", r->unit, "value", r->value, "spread",
                          ran ? spread_json(numer, r->seconds, r->min_seconds, r->max_seconds, r->repeats)
                              : json_null(),
                          "seconds", r->seconds, "flops", r->flops, "bytes", r->bytes, "intensity", r->intensity,
                          "attainable", num_or_null(r->attainable, r->attainable > 0), "fraction",
                          num_or_null(r->fraction, r->attainable > 0 && ran), "bound", r->bound ? r->bound : "memory",
                          "loaded", r->loaded, "others_cores", num_or_null(r->others, r->others >= 0));
    if (!j) return NULL;
    if (r->error[0]) json_object_set_new(j, "error", json_string(r->error));
    if (r->have_base)
        json_object_set_new(j, "baseline",
                            json_pack("{s:s, s:f, s:f, s:f, s:o}", "name", r->base_name, "value", r->base_value,
                                      "seconds", r->base_seconds, "ratio", r->ratio, "spread",
                                      spread_json(numer, r->base_seconds, r->base_min_seconds, r->base_max_seconds,
                                                  r->base_repeats)));
    else if (r->base_error[0])
        json_object_set_new(j, "baseline", json_pack("{s:s, s:s}", "name", r->base_name, "error", r->base_error));
    return j;
}

/* "±4%": half the spread between the slowest and fastest repeat, relative to the median. */
static void spread_text(char *out, size_t cap, double median, double fastest, double slowest)
{
    if (!(median > 0) || !(fastest > 0)) snprintf(out, cap, "-");
    else snprintf(out, cap, "±%.0f%%", 50.0 * (slowest - fastest) / median);
}

static void print_row(FILE *f, const cli_bench_result *r, const char *base)
{
    if (r->error[0]) {
        fprintf(f, "%-11s %-32s failed: %s\n", r->workload, r->label, r->error);
        return;
    }
    char frac[16] = "-", spr[16];   /* no measured roof (matrix units): unknown, not zero */
    if (r->attainable > 0) snprintf(frac, sizeof frac, "%.2f", r->fraction);
    spread_text(spr, sizeof spr, r->seconds, r->min_seconds, r->max_seconds);
    fprintf(f, "%-11s %-32s %12.1f %-8s %6s %6s %-8s", r->workload, r->label, r->value, r->unit, spr, frac, r->bound);
    if (r->have_base) {
        spread_text(spr, sizeof spr, r->base_seconds, r->base_min_seconds, r->base_max_seconds);
        fprintf(f, " %12.1f %6s %6.2f", r->base_value, spr, r->ratio);
    } else if (base) {
        fprintf(f, " %12s %6s %6s", r->base_error[0] ? "failed" : "-", "", "-");
    }
    fputs(r->loaded ? " *\n" : "\n", f);
}

static void print_device(FILE *f, const clf_device_info *d, const clf_roofline *roof, const cli_bench_list *l)
{
    const char *why, *base = cli_bench_baseline(&why);
    fprintf(f, "\n%s (%s, driver %s), id %s\n", d->name, d->platform, d->driver, d->id);
    fprintf(f, "roofline: copy %.1f GB/s, triad %.1f GB/s, fp32 %.1f GFLOP/s", roof->copy_gbs, roof->triad_gbs,
            roof->fp32_gflops);
    if (roof->fp64_gflops > 0) fprintf(f, ", fp64 %.1f GFLOP/s", roof->fp64_gflops);
    if (roof->fp32_spec_gflops > 0) {
        fprintf(f, "\ntheoretical: fp32 %.1f GFLOP/s", roof->fp32_spec_gflops);
        if (roof->fp64_spec_gflops > 0) fprintf(f, ", fp64 %.1f GFLOP/s", roof->fp64_spec_gflops);
        fprintf(f, " (%s)", roof->spec_basis);
    }
    fprintf(f, "\n%-11s %-32s %12s %-8s %6s %6s %-8s", "op", "size", "clforge", "unit", "spread", "roof", "bound");
    if (base) fprintf(f, " %12s %6s %6s", base, "spread", "ratio");
    fputc('\n', f);
    size_t loaded = 0;
    double worst = 0;
    for (size_t i = 0; i < l->count; i++) {
        print_row(f, &l->items[i], base);
        if (l->items[i].loaded) loaded++;
        if (l->items[i].others > worst) worst = l->items[i].others;
    }
    if (!base) fprintf(f, "no baseline: %s\n", why);
    if (loaded)
        fprintf(f, "* %zu of %zu rows ran while other processes kept up to %.1f of %d CPU cores busy: those figures "
                   "are not to be trusted; run again on a quiet machine\n",
                loaded, l->count, worst, cli_load_cores());
}

/* The reference copy timed before and after the workloads (cli_bench_reference). */
typedef struct reference {
    int ok;
    double start, end;   /* GB/s */
} reference;

#define DRIFT_LIMIT 0.10   /* the two reference figures this far apart (relative to the faster): a changing device */

static double drift(const reference *r)
{
    double hi = r->start > r->end ? r->start : r->end, lo = r->start > r->end ? r->end : r->start;
    return hi > 0 ? (hi - lo) / hi : 0;
}

static void print_reference(FILE *f, const reference *r)
{
    if (!r->ok) {
        fprintf(f, "reference copy: could not be timed; the device's stability is unchecked\n");
        return;
    }
    fprintf(f, "reference copy: %.1f GB/s before the workloads, %.1f GB/s after", r->start, r->end);
    if (drift(r) > DRIFT_LIMIT)
        fprintf(f, " (%.0f%% apart): the device's speed changed during the run; figures are not to be trusted\n",
                100 * drift(r));
    else
        fprintf(f, " (%.0f%% apart)\n", 100 * drift(r));
}

static json_t *roofline_json(const clf_roofline *r)
{
    json_t *j = json_pack("{s:o, s:o, s:o, s:o, s:s}", "copy", cli_rate_json(r->copy_gbs, "GB/s"), "triad",
                          cli_rate_json(r->triad_gbs, "GB/s"), "fp32", cli_rate_json(r->fp32_gflops, "GFLOP/s"),
                          "fp64", r->fp64_gflops > 0 ? cli_rate_json(r->fp64_gflops, "GFLOP/s") : json_null(),
                          "date", r->date);
    /* The peaks the device's properties imply, where they tell (CPU devices): the report shows both when the
     * measured and the theoretical disagree. */
    if (j && r->fp32_spec_gflops > 0) {
        json_object_set_new(j, "fp32_theoretical", cli_rate_json(r->fp32_spec_gflops, "GFLOP/s"));
        if (r->fp64_spec_gflops > 0)
            json_object_set_new(j, "fp64_theoretical", cli_rate_json(r->fp64_spec_gflops, "GFLOP/s"));
        json_object_set_new(j, "theoretical_basis", json_string(r->spec_basis));
    }
    return j;
}

/* Calibrates and benches one device; appends its JSON object to devices. Returns 0 or 1 (failure). */
static int bench_one(const bench_opts *o, const char *selector, json_t *devices)
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
    progress_state ps = {d->name, o};
    on_progress(&ps, 0, 1, o->quick ? "calibrating roofline (quick)" : "calibrating roofline");
    clf_roofline roof;
    double t0 = clf__now();
    if ((s = clf_roofline_get(ctx, o->quick, 1, &roof))) {   /* measured afresh: the figures are compared with it */
        if (o->tty && !o->quiet) fputc('\n', stderr);
        fprintf(stderr, "clforge bench: %s: roofline: %s: %s\n", d->name, clf_status_string(s), clf_last_error());
        clf_context_destroy(ctx);
        return 1;
    }
    cli_bench_list list = {0};
    reference ref = {0, 0, 0};
    on_progress(&ps, 0, 1, "reference copy (start)");
    ref.ok = cli_bench_reference(ctx, o->quick, &ref.start) == CLF_SUCCESS;
    s = cli_bench_device(ctx, &roof, o->quick, o->only, &list, on_progress, &ps);
    on_progress(&ps, 0, 1, "reference copy (end)");
    ref.ok = ref.ok && cli_bench_reference(ctx, o->quick, &ref.end) == CLF_SUCCESS;
    clf__clear_error();   /* a failed reference leaves the figures unchecked, not failed */
    if (o->tty && !o->quiet) fputc('\n', stderr);
    int failed = s != CLF_SUCCESS, loaded = ref.ok && drift(&ref) > DRIFT_LIMIT;
    if (s) fprintf(stderr, "clforge bench: %s: %s\n", d->name, clf_last_error());
    if (o->table) {
        print_device(o->table, d, &roof, &list);
        print_reference(o->table, &ref);
        fflush(o->table);
    }
    json_t *res = json_array();
    for (size_t i = 0; i < list.count; i++) {
        json_array_append_new(res, result_json(&list.items[i]));
        failed |= list.items[i].error[0] != 0;
        loaded |= list.items[i].loaded;
    }
    json_t *rj = ref.ok ? json_pack("{s:s, s:o, s:o, s:f}", "workload", "copy", "start", cli_rate_json(ref.start, "GB/s"),
                                    "end", cli_rate_json(ref.end, "GB/s"), "drift", drift(&ref))
                        : json_null();
    json_t *dj = json_pack("{s:o, s:o, s:o, s:o, s:f, s:b}", "device", cli_device_json(d), "roofline",
                           roofline_json(&roof), "reference", rj, "results", res, "seconds", clf__now() - t0,
                           "loaded", loaded);
    if (dj) json_array_append_new(devices, dj);
    cli_bench_list_free(&list);
    clf_context_destroy(ctx);
    return failed;
}

static json_t *run_json(int argc, char **argv, int quick, const cli_load *start, double idle_others, json_t *devices)
{
    size_t n = sizeof "clforge";
    for (int i = 0; i < argc; i++) n += strlen(argv[i]) + 1;
    char *cmd = malloc(n);   /* the whole command line: a fixed buffer cut it silently */
    if (!cmd) return NULL;
    strcpy(cmd, "clforge");
    for (int i = 0; i < argc; i++) strcat(strcat(cmd, " "), argv[i]);
    char date[32], host[256] = "";
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    gethostname(host, sizeof host - 1);
    cli_load end;
    cli_load_snapshot(&end);
    double during = cli_load_others(start, &end);
    int loaded = cli_load_is_busy(idle_others);
    for (size_t i = 0; i < json_array_size(devices); i++)
        loaded |= json_is_true(json_object_get(json_array_get(devices, i), "loaded"));
    const char *why, *base = cli_bench_baseline(&why);
    json_t *load = json_pack("{s:i, s:o, s:o, s:o, s:o, s:b}", "cores", cli_load_cores(), "others_before",
                             num_or_null(idle_others, idle_others >= 0), "others_during",
                             num_or_null(during, during >= 0), "loadavg_start",
                             num_or_null(start->loadavg, start->loadavg >= 0), "loadavg_end",
                             num_or_null(end.loadavg, end.loadavg >= 0), "loaded", loaded);
    json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:{s:o, s:o}, s:o, s:O}", "format", "clforge-bench/2",
                             "clforge_version", clf_version(), "date", date, "command", cmd, "host", host, "quick",
                             quick, "baseline", "name", base ? json_string(base) : json_null(), "missing",
                             base ? json_null() : json_string(why), "load", load, "devices", devices);
    free(cmd);
    return root;
}

/* Parses the options into o; returns -1 to go on, else the exit code. */
static int parse(int argc, char **argv, bench_opts *o)
{
    for (int i = 1; i < argc; i++) {
        int r;
        if ((r = cli_opt("bench", argc, argv, &i, "--device", &o->device)) ||
            (r = cli_opt("bench", argc, argv, &i, "--json", &o->json)) ||
            (r = cli_opt("bench", argc, argv, &i, "--only", &o->only))) {
            if (r < 0) return 2;
        } else if ((r = cli_flag("bench", argv[i], "--all")) || (r = cli_flag("bench", argv[i], "--quick")) ||
                   (r = cli_flag("bench", argv[i], "--quiet"))) {
            if (r < 0) return 2;
            int *flag = argv[i][2] == 'a' ? &o->all : argv[i][5] == 'c' ? &o->quick : &o->quiet;
            *flag = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            bench_usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "clforge bench: unknown or incomplete argument '%s'\n", argv[i]);
            bench_usage(stderr);
            return 2;
        }
    }
    if (o->device && o->all) {
        fprintf(stderr, "clforge bench: --device and --all exclude each other\n");
        return 2;
    }
    if (o->json && !cli_output_ok("bench", o->json)) return 2;   /* before the run, not after it */
    if (o->only && !cli_bench_only_valid(o->only)) {
        fprintf(stderr, "clforge bench: --only takes workloads among sgemm, dgemm, gemm_f16, gemm_bf16, gemm_tf32, "
                        "gemm_3xtf32, gemm_3xf16, map, copy, transfer (got '%s')\n", o->only);
        return 2;
    }
    int json_stdout = o->json && !strcmp(o->json, "-");
    o->table = !json_stdout ? stdout : o->quiet ? NULL : stderr;
    o->tty = isatty(2);
    return -1;
}

int cli_cmd_bench(int argc, char **argv)
{
    bench_opts o = {0};
    int rc = parse(argc, argv, &o);
    if (rc >= 0) return rc;
    cli_load start;
    double idle_others = cli_load_idle_probe(0.5);   /* others' load before this process adds its own */
    cli_load_snapshot(&start);
    if (cli_load_is_busy(idle_others) && !o.quiet)
        fprintf(stderr, "clforge bench: other processes keep %.1f of %d CPU cores busy: figures will be marked as "
                        "measured on a loaded machine\n", idle_others, cli_load_cores());
    json_t *devices = json_array();
    int failed = 0;
    if (o.all) {
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
            failed |= bench_one(&o, sel, devices);
        }
    } else {
        failed = bench_one(&o, o.device, devices);
    }
    if (o.json && json_array_size(devices) > 0) {
        json_t *root = run_json(argc, argv, o.quick, &start, idle_others, devices);
        failed |= !root || cli_json_write("bench", o.json, root);
        if (root && !o.quiet && strcmp(o.json, "-")) fprintf(stderr, "clforge bench: wrote %s\n", o.json);
        json_decref(root);
    }
    json_decref(devices);
    return failed ? 1 : 0;
}
