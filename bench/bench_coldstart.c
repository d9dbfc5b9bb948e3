/* bench_coldstart.c — first-call latency of a new process: context creation, the first SGEMM and the first
 * map, each to completion, measured in fresh child processes of this program with
 *   cold:   an empty cache directory, for clforge and for the driver's own cache (every kernel compiled),
 *   warm:   the cache the cold run left (binaries loaded from disk),
 *   warmup: another empty cache filled first by clf_warmup (gemm and copy, f32) in a process of its own, as
 *           `clforge warmup --family gemm,copy --precision f32` would (map kernels are made per expression
 *           and still compile once).
 * usage: bench_coldstart [--size N] [--runs R] [--device SEL] [--json FILE]
 * Each row: min / median / max over R runs of the phases, in milliseconds, and what the program cache did.
 * "in_process" is context + upload + first sgemm + first map; "process" the child's whole life as its parent
 * sees it (loading the libraries and the OpenCL drivers, exit). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "clforge/clforge.h"

#define MAX_RUNS 32
enum { P_CREATE, P_UPLOAD, P_GEMM, P_GEMM2, P_MAP, P_TOTAL, P_PROCESS, NPHASES };
static const char *const phase_names[NPHASES] = {"context", "upload", "sgemm", "sgemm_again", "map", "in_process",
                                                 "process"};

typedef struct sample {
    double ms[NPHASES];
    unsigned long compiles, disk_hits;
} sample;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int fail(const char *what)
{
    fprintf(stderr, "bench_coldstart: %s: %s\n", what, clf_last_error());
    return 1;
}

/* The measured work of one new process: prints "create upload gemm gemm2 map total compiles disk_hits"; a
 * second identical SGEMM (not in the total) shows what the first one paid beyond the product itself. */
static int child(size_t n, const char *device)
{
    double t0 = now_ms();
    clf_context *ctx;
    clf_context_options o = {.device = device};
    if (clf_context_create(&o, &ctx) != CLF_SUCCESS) return fail("context");
    double t1 = now_ms();
    size_t bytes = n * n * sizeof(float);
    float *h = malloc(bytes);
    if (!h) return 1;
    for (size_t i = 0; i < n * n; i++) h[i] = (float)(i % 7) * 0.25f;
    cl_int e;
    cl_context cl = clf_context_cl(ctx);
    cl_mem a = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, h, &e);
    cl_mem b = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, h, &e);
    cl_mem c = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (!a || !b || !c || clFinish(clf_context_queue(ctx)) != CL_SUCCESS) return fail("buffers");
    double t2 = now_ms();
    if (clf_sgemm(ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, n, n, n, 1.0f, a, 0, n, b, 0, n, 0.0f, c, 0, n,
                  NULL) != CLF_SUCCESS || clf_finish(ctx) != CLF_SUCCESS)
        return fail("sgemm");
    double t3 = now_ms();
    if (clf_sgemm(ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, n, n, n, 1.0f, a, 0, n, b, 0, n, 0.0f, c, 0, n,
                  NULL) != CLF_SUCCESS || clf_finish(ctx) != CLF_SUCCESS)
        return fail("sgemm");
    double t3b = now_ms();
    clf_map_arg args[] = {{.name = "y", .kind = CLF_ARG_BUFFER, .dtype = CLF_F32, .buffer = c},
                          {.name = "x", .kind = CLF_ARG_BUFFER, .dtype = CLF_F32, .buffer = a},
                          {.name = "s", .kind = CLF_ARG_SCALAR, .value = 0.5}};
    if (clf_map(ctx, "y = relu(s*x + y)", n * n, args, 3, NULL) != CLF_SUCCESS || clf_finish(ctx) != CLF_SUCCESS)
        return fail("map");
    double t4 = now_ms();
    clf_cache_stats st;
    clf_context_cache_stats(ctx, &st);
    printf("%.3f %.3f %.3f %.3f %.3f %.3f %lu %lu\n", t1 - t0, t2 - t1, t3 - t2, t3b - t3, t4 - t3b,
           t4 - t0 - (t3b - t3), st.compiles, st.disk_hits);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    free(h);
    clf_context_destroy(ctx);
    return 0;
}

static int warmup_child(const char *device)
{
    clf_context *ctx;
    clf_context_options o = {.device = device};
    if (clf_context_create(&o, &ctx) != CLF_SUCCESS) return fail("context");
    /* What the measured calls use: `clforge warmup --family gemm,copy --precision f32`. */
    clf_warmup_options wo = {.families = "gemm,copy", .precisions = "f32"};
    clf_status s = clf_warmup(ctx, &wo);
    clf_context_destroy(ctx);
    return s == CLF_SUCCESS ? 0 : fail("clf_warmup");
}

/* Runs this program again with args and CLFORGE_CACHE_DIR=cache; its stdout into out (may be NULL). */
static int spawn(char *const *args, const char *cache, char *out, size_t cap, double *wall_ms)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        /* The drivers' own caches live with ours, so that "cold" is cold for them too: PoCL keeps compiled
         * kernels (POCL_CACHE_DIR), NVIDIA the machine code it made from a program's PTX (CUDA_CACHE_PATH). */
        char sub[1100];
        setenv("CLFORGE_CACHE_DIR", cache, 1);
        snprintf(sub, sizeof sub, "%s/pocl", cache);
        setenv("POCL_CACHE_DIR", sub, 1);
        snprintf(sub, sizeof sub, "%s/nv", cache);
        setenv("CUDA_CACHE_PATH", sub, 1);
        execv("/proc/self/exe", args);
        _exit(127);
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t r;
    while (pid > 0 && (r = read(fd[0], out + got, cap - 1 - got)) > 0) got += (size_t)r;
    out[got] = '\0';
    close(fd[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return -1;
    *wall_ms = now_ms() - t0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* min, median, max of phase p over n samples. */
static void stats(const sample *s, int n, int p, double out[3])
{
    double v[MAX_RUNS];
    for (int i = 0; i < n; i++) v[i] = s[i].ms[p];
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    out[0] = v[0];
    out[1] = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    out[2] = v[n - 1];
}

/* runs timed child processes on cache; 0 on success. */
static int measure(char *self, const char *size, const char *device, const char *cache, int runs, sample *s)
{
    char *args[] = {self, "--child", "--size", (char *)size, device ? "--device" : NULL, (char *)device, NULL};
    for (int i = 0; i < runs; i++) {
        char out[512];
        double wall;
        int rc = spawn(args, cache, out, sizeof out, &wall);
        if (rc != 0 || sscanf(out, "%lf %lf %lf %lf %lf %lf %lu %lu", &s[i].ms[P_CREATE], &s[i].ms[P_UPLOAD],
                              &s[i].ms[P_GEMM], &s[i].ms[P_GEMM2], &s[i].ms[P_MAP], &s[i].ms[P_TOTAL],
                              &s[i].compiles, &s[i].disk_hits) != 8) {
            fprintf(stderr, "bench_coldstart: child run failed (exit %d)\n", rc);
            return 1;
        }
        s[i].ms[P_PROCESS] = wall;
    }
    return 0;
}

static void print_row(FILE *f, const char *mode, const sample *s, int n)
{
    fprintf(f, "%-7s", mode);
    for (int p = 0; p < NPHASES; p++) {
        double st[3];
        stats(s, n, p, st);
        fprintf(f, "  %8.1f %8.1f %8.1f", st[0], st[1], st[2]);
    }
    fprintf(f, "  %8lu %8lu\n", s[0].compiles, s[0].disk_hits);
}

static json_t *json_row(const char *mode, const sample *s, int n)
{
    json_t *phases = json_object();
    for (int p = 0; p < NPHASES; p++) {
        double st[3];
        stats(s, n, p, st);
        json_object_set_new(phases, phase_names[p], json_pack("{s:f, s:f, s:f, s:s}", "min", st[0], "median", st[1],
                                                              "max", st[2], "unit", "ms"));
    }
    return json_pack("{s:s, s:i, s:I, s:I, s:o}", "mode", mode, "runs", n, "compiles", (json_int_t)s[0].compiles,
                     "disk_hits", (json_int_t)s[0].disk_hits, "phases", phases);
}

static int write_json(const char *path, const clf_device_info *dev, long size, double warmup_ms, const sample *cold,
                      const sample *warm, const sample *pre, int runs)
{
    json_t *rows = json_pack("[o, o, o]", json_row("cold", cold, 1), json_row("warm", warm, runs),
                             json_row("warmup", pre, runs));
    json_t *root = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:I, s:{s:f, s:s}, s:o}", "format", "clforge-coldstart/1",
                             "clforge_version", clf_version(), "device", "name", dev->name, "driver", dev->driver, "id",
                             dev->id, "size", (json_int_t)size, "warmup", "value", warmup_ms, "unit", "ms", "rows", rows);
    int ok = root && (strcmp(path, "-") ? json_dump_file(root, path, JSON_INDENT(1) | JSON_REAL_PRECISION(6)) == 0
                                        : json_dumpf(root, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(6)) == 0);
    json_decref(root);
    if (!ok) fprintf(stderr, "bench_coldstart: cannot write %s\n", path);
    return ok ? 0 : 1;
}

static void remove_tree(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);   /* our own mkdtemp directories: no quotes inside */
    if (system(cmd) != 0) fprintf(stderr, "bench_coldstart: could not remove %s\n", dir);
}

static int parse(int argc, char **argv, const char **size, int *runs, const char **device, const char **json,
                 int *is_child, int *is_warmup)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--child")) *is_child = 1;
        else if (!strcmp(a, "--warmup-child")) *is_warmup = 1;
        else if (!strcmp(a, "--size") && more) *size = argv[++i];
        else if (!strcmp(a, "--runs") && more) *runs = atoi(argv[++i]);
        else if (!strcmp(a, "--device") && more) *device = argv[++i];
        else if (!strcmp(a, "--json") && more) *json = argv[++i];
        else {
            fprintf(stderr, "usage: bench_coldstart [--size N] [--runs R] [--device SEL] [--json FILE]\n");
            return 2;
        }
    }
    if (*runs < 1 || *runs > MAX_RUNS || atol(*size) < 1 || atol(*size) > 16384) {
        fprintf(stderr, "bench_coldstart: --runs must be 1..%d and --size 1..16384\n", MAX_RUNS);
        return 2;
    }
    return -1;
}

int main(int argc, char **argv)
{
    const char *size = "256", *device = NULL, *json = NULL;
    int runs = 5, is_child = 0, is_warmup = 0;
    int code = parse(argc, argv, &size, &runs, &device, &json, &is_child, &is_warmup);
    if (code >= 0) return code;
    if (is_child) return child((size_t)atol(size), device);
    if (is_warmup) return warmup_child(device);
    clf_device_info dev;
    if (clf_device_select(device, &dev) != CLF_SUCCESS) return fail("device");
    char base[] = "/tmp/clf-coldstart-XXXXXX", cold[64], pre[64];
    if (!mkdtemp(base)) {
        fprintf(stderr, "bench_coldstart: mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    snprintf(cold, sizeof cold, "%s/cold", base);
    snprintf(pre, sizeof pre, "%s/warmup", base);
    static sample s_cold[1], s_warm[MAX_RUNS], s_pre[MAX_RUNS];
    char *wargs[] = {argv[0], "--warmup-child", device ? "--device" : NULL, (char *)device, NULL};
    char out[64];
    double wall_warmup = 0;
    int rc = measure(argv[0], size, device, cold, 1, s_cold) || measure(argv[0], size, device, cold, runs, s_warm) ||
             spawn(wargs, pre, out, sizeof out, &wall_warmup) != 0 || measure(argv[0], size, device, pre, runs, s_pre);
    remove_tree(base);
    if (rc) return 1;
    FILE *t = json && !strcmp(json, "-") ? stderr : stdout;   /* the JSON alone on stdout */
    fprintf(t, "%s, sgemm %s^3 and a 3-operand map of %s^2 elements in a new process; ms (min median max); "
            "clf_warmup took %.0f ms\n", dev.name, size, size, wall_warmup);
    fprintf(t, "%-7s", "mode");
    for (int p = 0; p < NPHASES; p++) fprintf(t, "  %-26s", phase_names[p]);
    fprintf(t, "  %8s %8s\n", "compiles", "loaded");
    print_row(t, "cold", s_cold, 1);
    print_row(t, "warm", s_warm, runs);
    print_row(t, "warmup", s_pre, runs);
    if (json) return write_json(json, &dev, atol(size), wall_warmup, s_cold, s_warm, s_pre, runs);
    return 0;
}
