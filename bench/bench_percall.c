/* bench_percall.c — the host cost of one call of a tiny op: sgemm 8^3, 16^3 and 32^3 and a map over 256
 * floats, against CLBlast's sgemm on the same queue where built with it. "enqueue" is the time per call of many
 * calls followed by one finish (argument checks, kernel lookup, argument setting and the driver's enqueue),
 * "sync" one call plus a finish. Median of 7 samples, in microseconds.
 *   bench_percall [--calls N] [--json FILE]      device: $CLFORGE_DEVICE */
#include "clforge/clforge.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef CLF_HAVE_CLBLAST
#include <clblast_c.h>
#endif

typedef struct op {
    clf_context *ctx;
    size_t n;
    cl_mem a, b, c;
} op;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int run_sgemm(op *o)
{
    return clf_sgemm(o->ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, o->n, o->n, o->n, 1.0f, o->a, 0, o->n, o->b,
                     0, o->n, 0.0f, o->c, 0, o->n, NULL) == CLF_SUCCESS;
}

static int run_map(op *o)
{
    clf_map_arg args[3] = {{.name = "x", .kind = CLF_ARG_BUFFER, .dtype = CLF_F32, .buffer = o->a},
                           {.name = "a", .kind = CLF_ARG_SCALAR, .value = 0.5},
                           {.name = "y", .kind = CLF_ARG_BUFFER, .dtype = CLF_F32, .buffer = o->c}};
    return clf_map(o->ctx, "y = a*x + y", o->n, args, 3, NULL) == CLF_SUCCESS;
}

#ifdef CLF_HAVE_CLBLAST
static int run_clblast(op *o)
{
    cl_command_queue q = clf_context_queue(o->ctx);
    return CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, o->n, o->n, o->n, 1.0f, o->a, 0,
                        o->n, o->b, 0, o->n, 0.0f, o->c, 0, o->n, &q, NULL) == CLBlastSuccess;
}
#endif

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median seconds per call over 7 samples of `calls` calls; sync: a finish after every call. */
static double per_call(op *o, int (*run)(op *), int calls, int sync)
{
    double t[7];
    if (!run(o) || clf_finish(o->ctx) != CLF_SUCCESS) return -1;
    for (int s = 0; s < 7; s++) {
        double t0 = now();
        for (int i = 0; i < calls; i++) {
            if (!run(o)) return -1;
            if (sync) clf_finish(o->ctx);
        }
        clf_finish(o->ctx);
        t[s] = (now() - t0) / calls;
    }
    qsort(t, 7, sizeof *t, cmp);
    return t[3];
}

static void row(json_t *rows, op *o, const char *name, const char *lib, int (*run)(op *), int calls)
{
    double enq = per_call(o, run, calls, 0), syn = per_call(o, run, calls / 4 > 20 ? calls / 4 : 20, 1);
    if (enq < 0 || syn < 0) {
        fprintf(stderr, "bench_percall: %s %s failed: %s\n", name, lib, clf_last_error());
        return;
    }
    printf("%-10s %-8s %9.1f %9.1f\n", name, lib, enq * 1e6, syn * 1e6);
    json_array_append_new(rows, json_pack("{s:s, s:s, s:f, s:f}", "op", name, "library", lib, "enqueue_us",
                                          enq * 1e6, "sync_us", syn * 1e6));
}

int main(int argc, char **argv)
{
    int calls = 2000;
    const char *json_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--calls") && i + 1 < argc) calls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
        else { fprintf(stderr, "usage: bench_percall [--calls N] [--json FILE]\n"); return 2; }
    }
    if (calls < 1) calls = 1;
    op o = {0};
    if (clf_context_create(NULL, &o.ctx) != CLF_SUCCESS) {
        fprintf(stderr, "bench_percall: %s\n", clf_last_error());
        return 1;
    }
    float *h = calloc(32 * 32, sizeof *h);
    for (int i = 0; i < 32 * 32; i++) h[i] = (float)(i % 7) * 0.25f;
    if (!h || clf_buffer_create(o.ctx, 32 * 32 * 4, &o.a) || clf_buffer_create(o.ctx, 32 * 32 * 4, &o.b) ||
        clf_buffer_create(o.ctx, 32 * 32 * 4, &o.c) || clf_upload(o.ctx, o.a, 0, h, 32 * 32 * 4) ||
        clf_upload(o.ctx, o.b, 0, h, 32 * 32 * 4) || clf_upload(o.ctx, o.c, 0, h, 32 * 32 * 4)) {
        fprintf(stderr, "bench_percall: %s\n", clf_last_error());
        return 1;
    }
    json_t *rows = json_array();
    printf("%s: per call, microseconds\n%-10s %-8s %9s %9s\n", clf_context_device(o.ctx)->name, "op", "library",
           "enqueue", "sync");
    const size_t sizes[3] = {8, 16, 32};
    for (int s = 0; s < 3; s++) {
        char name[32];
        o.n = sizes[s];
        snprintf(name, sizeof name, "sgemm%zu", o.n);
        row(rows, &o, name, "clforge", run_sgemm, calls);
#ifdef CLF_HAVE_CLBLAST
        row(rows, &o, name, "clblast", run_clblast, calls);
#endif
    }
    o.n = 256;
    row(rows, &o, "map256", "clforge", run_map, calls);
    if (json_path) {
        json_t *doc = json_pack("{s:s, s:s, s:o}", "format", "clforge-percall/1", "device",
                                clf_context_device(o.ctx)->name, "rows", rows);
        json_dump_file(doc, json_path, JSON_INDENT(1));
        json_decref(doc);
    } else {
        json_decref(rows);
    }
    clReleaseMemObject(o.a);
    clReleaseMemObject(o.b);
    clReleaseMemObject(o.c);
    clf_context_destroy(o.ctx);
    free(h);
    return 0;
}
