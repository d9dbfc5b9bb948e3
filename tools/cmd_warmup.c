/* cmd_warmup.c — `clforge warmup`: compiles a device's configured kernels into the disk cache, so that the
 * first call of a later process loads binaries instead of compiling (clf_warmup). */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: clforge warmup [--device SEL] [--family LIST] [--precision LIST] [--bucket LIST]\n"
            "                      [--threads N] [--quiet]\n"
            "Compiles the kernels the device's ops run with their configured parameters (tuned, shipped or\n"
            "default) into the program cache on disk, several at once, so that a new process's first call\n"
            "loads them instead of compiling. Run it after `clforge tune` and after a driver update.\n"
            "--family: gemm, gemm_mma, copy (default: all; map kernels depend on each expression and are\n"
            "not built); --precision: f32, f64, f16, bf16 (default: f32, and f64 where the device has it;\n"
            "gemm_mma: every mode its matrix units run); --bucket: GEMM shape buckets (default: all the\n"
            "device has); --threads: programs compiled at once (default: one per core; at most 16).\n"
            "--quiet prints nothing but errors.\n");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Parses the options into o, *device and *quiet; returns -1 to go on, else the exit code. */
static int parse(int argc, char **argv, clf_warmup_options *o, const char **device, int *quiet)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if ((r = cli_flag("warmup", a, "--quiet")) != 0) {
            if (r < 0) return 2;
            *quiet = 1;
            continue;
        }
        static const char *const names[] = {"--device", "--family", "--precision", "--bucket", "--threads"};
        int which = -1;
        for (int k = 0; k < 5 && which < 0; k++)
            if ((r = cli_opt("warmup", argc, argv, &i, names[k], &v)) != 0)
                which = k;
        if (which < 0) {
            fprintf(stderr, "clforge warmup: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (r < 0) return 2;
        if (which == 0) *device = v;
        else if (which == 1) o->families = v;
        else if (which == 2) o->precisions = v;
        else if (which == 3) o->buckets = v;
        else {
            char *end;
            long n = strtol(v, &end, 10);
            if (end == v || *end || n < 1 || n > 1024) {
                fprintf(stderr, "clforge warmup: --threads needs a whole number from 1 to 1024 (got '%s')\n", v);
                return 2;
            }
            o->threads = (int)n;
        }
    }
    return -1;
}

int cli_cmd_warmup(int argc, char **argv)
{
    clf_warmup_options o = {0};
    const char *device = NULL;
    int quiet = 0;
    int code = parse(argc, argv, &o, &device, &quiet);
    if (code >= 0) return code;
    clf_context_options co = {.device = device};
    clf_context *ctx = NULL;
    if (clf_context_create(&co, &ctx) != CLF_SUCCESS) {
        fprintf(stderr, "clforge warmup: %s\n", clf_last_error());
        return 1;
    }
    const char *dir = clf_context_cache_dir(ctx);
    if (!*dir && !quiet)
        fprintf(stderr, "clforge warmup: the disk cache is off: kernels are compiled for this process only\n");
    double t0 = now_s();
    clf_status s = clf_warmup(ctx, &o);
    double dt = now_s() - t0;
    clf_cache_stats st = {0};
    clf_context_cache_stats(ctx, &st);
    if (s != CLF_SUCCESS) {
        fprintf(stderr, "clforge warmup: %s\n", clf_last_error());
        code = s == CLF_ERR_INVALID_ARG ? 2 : 1;
    } else {
        code = 0;
        if (!quiet)
            printf("%s: %lu programs compiled, %lu already in the disk cache, in %.1f s (%s)\n",
                   clf_context_device(ctx)->name, st.compiles, st.disk_hits, dt, *dir ? dir : "no disk cache");
    }
    clf_context_destroy(ctx);
    return code;
}
