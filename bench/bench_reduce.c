/* bench_reduce.c — on one device: clf_reduce against copy bandwidth on a rows x cols f32 matrix (row sums,
 * column sums, many short rows), and softmax and layer norm of docs/reduce.md, one call (ops lse and
 * moments) and two calls, counted as
 * torch counts them (one read and one write of the matrix); verifies sampled rows against a double
 * reference; prints a table and writes JSON (--json). --sweep also times reduce configurations, --fused-sweep
 * the row kernel's (bucket fused) on the one-call forms, --shapes the one-call forms on other shapes. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "timer.h"

typedef struct bench {
    clf_context *ctx;
    size_t rows, cols, bytes;
    cl_mem x, y, dst, v1, v2, g, b;
    float *hx;
} bench;

static clf_reduce_desc desc(const bench *p, clf_reduce_axis ax, clf_reduce_op op, cl_mem out)
{
    clf_reduce_desc d = {.layout = CLF_ROW_MAJOR, .m = p->rows, .n = p->cols, .axis = ax, .op = op,
                         .x_type = CLF_F32, .x = p->x, .ldx = p->cols, .out_type = CLF_F32, .out = out,
                         .y_type = CLF_F32, .y = p->y, .ldy = p->cols};
    return d;
}

static int run_copy(bench *p) { return clf_copy(p->ctx, p->x, 0, p->dst, 0, p->bytes, NULL) == CLF_SUCCESS; }
static int run_rows(bench *p)
{
    clf_reduce_desc d = desc(p, CLF_REDUCE_ROWS, CLF_REDUCE_SUM, p->v1);
    d.pre = "x*x";
    return clf_reduce(p->ctx, &d, NULL, 0, NULL) == CLF_SUCCESS;
}
static int run_cols(bench *p)
{
    clf_reduce_desc d = desc(p, CLF_REDUCE_COLS, CLF_REDUCE_SUM, p->v1);
    d.pre = "x*x";
    return clf_reduce(p->ctx, &d, NULL, 0, NULL) == CLF_SUCCESS;
}
/* The same bytes as rows x 64: many short rows per work-group. */
static int run_short(bench *p)
{
    clf_reduce_desc d = desc(p, CLF_REDUCE_ROWS, CLF_REDUCE_MAX, p->v1);
    d.m = p->rows * p->cols / 64, d.n = 64, d.ldx = 64;
    return clf_reduce(p->ctx, &d, NULL, 0, NULL) == CLF_SUCCESS;
}
static int run_softmax(bench *p)
{
    clf_reduce_desc d1 = desc(p, CLF_REDUCE_ROWS, CLF_REDUCE_MAX, p->v1);
    clf_reduce_desc d2 = desc(p, CLF_REDUCE_ROWS, CLF_REDUCE_SUM, NULL);
    d2.pre = "exp(x - m)", d2.post = "1 / r", d2.write = "exp(x - m) * r";
    clf_map_arg a[1] = {{.name = "m", .kind = CLF_ARG_ROW, .dtype = CLF_F32, .buffer = p->v1}};
    return clf_reduce(p->ctx, &d1, NULL, 0, NULL) == CLF_SUCCESS && clf_reduce(p->ctx, &d2, a, 1, NULL) == CLF_SUCCESS;
}
static int run_layernorm(bench *p)
{
    clf_reduce_desc d1 = desc(p, CLF_REDUCE_ROWS, CLF_REDUCE_SUM, p->v1);
    d1.post = "r / len";
    clf_reduce_desc d2 = desc(p, CLF_REDUCE_ROWS, CLF_REDUCE_SUM, NULL);
    d2.pre = "(x - mu) * (x - mu)", d2.post = "rsqrt(r / len + eps)", d2.write = "(x - mu) * r * g + b";
    clf_map_arg a[4] = {{.name = "mu", .kind = CLF_ARG_ROW, .dtype = CLF_F32, .buffer = p->v1},
                        {.name = "eps", .kind = CLF_ARG_SCALAR, .value = 1e-5},
                        {.name = "g", .kind = CLF_ARG_COL, .dtype = CLF_F32, .buffer = p->g},
                        {.name = "b", .kind = CLF_ARG_COL, .dtype = CLF_F32, .buffer = p->b}};
    return clf_reduce(p->ctx, &d1, NULL, 0, NULL) == CLF_SUCCESS && clf_reduce(p->ctx, &d2, a, 4, NULL) == CLF_SUCCESS;
}

/* One call each: lse (softmax) and moments (layer norm) read the matrix once and write y once. */
static int run_softmax1(bench *p)
{
    clf_reduce_desc d = desc(p, CLF_REDUCE_ROWS, CLF_REDUCE_LSE, NULL);
    d.post = "1 / rsum", d.write = "exp(x - rmax) * r";
    return clf_reduce(p->ctx, &d, NULL, 0, NULL) == CLF_SUCCESS;
}
static int run_layernorm1(bench *p)
{
    clf_reduce_desc d = desc(p, CLF_REDUCE_ROWS, CLF_REDUCE_MOMENTS, NULL);
    d.post = "rsqrt(var + eps)", d.write = "(x - mean) * r * g + b";
    clf_map_arg a[3] = {{.name = "eps", .kind = CLF_ARG_SCALAR, .value = 1e-5},
                        {.name = "g", .kind = CLF_ARG_COL, .dtype = CLF_F32, .buffer = p->g},
                        {.name = "b", .kind = CLF_ARG_COL, .dtype = CLF_F32, .buffer = p->b}};
    return clf_reduce(p->ctx, &d, a, 3, NULL) == CLF_SUCCESS;
}

typedef struct { bench *p; int (*run)(bench *); } thunk;
static int call_thunk(void *arg) { thunk *t = arg; return t->run(t->p); }
static double time_runs(bench *p, int (*run)(bench *), int reps)
{
    thunk t = {p, run};
    return clf_bench_time(p->ctx, call_thunk, &t, reps, 200);
}

/* One configuration of a sweep: timed under CLFORGE_REDUCE_CONFIG, appended to rows, kept when best. */
static void sweep_point(bench *p, int (*run)(bench *), double bytes, int reps, const char *cfg, json_t *rows,
                        char *best, size_t cap, double *best_gbs)
{
    setenv("CLFORGE_REDUCE_CONFIG", cfg, 1);
    double t = time_runs(p, run, reps);
    double gbs = t > 0 ? bytes / t / 1e9 : 0;
    json_array_append_new(rows, json_pack("{s:s, s:f}", "config", cfg, "gbs", gbs));
    if (gbs > *best_gbs)
        *best_gbs = gbs, snprintf(best, cap, "%s", cfg);
}

/* Softmax (kind 0) or layer norm with g = 1, b = 0 (kind 1) of 16 sampled rows against double: worst error. */
static double verify(bench *p, int kind)
{
    float *row = malloc(p->cols * sizeof(float));
    double worst = 0;
    for (size_t s = 0; s < 16; s++) {
        size_t r = s * 7919 % p->rows;
        clEnqueueReadBuffer(clf_context_queue(p->ctx), p->y, CL_TRUE, r * p->cols * 4, p->cols * 4, row, 0, NULL, NULL);
        const float *x = p->hx + r * p->cols;
        double mx = -INFINITY, sum = 0, mu = 0, var = 0;
        for (size_t j = 0; j < p->cols; j++) mx = fmax(mx, x[j]), mu += x[j];
        mu /= (double)p->cols;
        for (size_t j = 0; j < p->cols; j++) sum += exp(x[j] - mx), var += (x[j] - mu) * (x[j] - mu);
        var /= (double)p->cols;
        for (size_t j = 0; j < p->cols; j++) {
            double want = kind == 0 ? exp(x[j] - mx) / sum : (x[j] - mu) / sqrt(var + 1e-5);
            double err = fabs(row[j] - want) / (fabs(want) + (kind == 0 ? 1.0 / (double)p->cols : 1));
            worst = err > worst ? err : worst;
        }
    }
    free(row);
    return worst;
}

static json_t *sweep(bench *p, int (*run)(bench *), double bytes, int reps, char *best, size_t cap, double *best_gbs)
{
    static const int wgs[] = {128, 256, 512, 1024}, lpls[] = {4, 32, 256, 1024}, unrs[] = {2, 4, 8};
    json_t *rows = json_array();
    *best_gbs = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 3; k++) {
                if (lpls[j] > wgs[i])
                    continue;
                char cfg[64];
                snprintf(cfg, sizeof cfg, "WG=%d LPL=%d UNR=%d", wgs[i], lpls[j], unrs[k]);
                sweep_point(p, run, bytes, reps, cfg, rows, best, cap, best_gbs);
            }
    unsetenv("CLFORGE_REDUCE_CONFIG");
    return rows;
}

/* The row kernel's configurations (bucket fused): work-group, work-items per line, vector width, lines per
 * team in sequence (the next one's loads in flight). */
static json_t *sweep_fused(bench *p, int (*run)(bench *), double bytes, int reps, char *best, size_t cap,
                           double *best_gbs)
{
    static const int wgs[] = {128, 256, 512, 1024}, lpls[] = {128, 256, 512, 1024}, vecs[] = {2, 4}, unrs[] = {1, 2, 4};
    json_t *rows = json_array();
    *best_gbs = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 6; k++) {
                if (lpls[j] > wgs[i])
                    continue;
                char cfg[64];
                snprintf(cfg, sizeof cfg, "WG=%d LPL=%d VEC=%d UNR=%d", wgs[i], lpls[j], vecs[k / 3], unrs[k % 3]);
                sweep_point(p, run, bytes, reps, cfg, rows, best, cap, best_gbs);
            }
    unsetenv("CLFORGE_REDUCE_CONFIG");
    return rows;
}

static void setup(bench *p)
{
    size_t n = p->rows * p->cols;
    p->bytes = n * sizeof(float);
    p->hx = malloc(p->bytes);
    float *ones = malloc(p->cols * sizeof(float)), *zeros = calloc(p->cols, sizeof(float));
    if (!p->hx || !ones || !zeros) {
        fprintf(stderr, "bench_reduce: out of host memory\n");
        exit(1);
    }
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        p->hx[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 8.0 - 4.0);
    }
    for (size_t j = 0; j < p->cols; j++) ones[j] = 1;
    size_t nv = p->rows > p->cols ? p->rows : p->cols;
    if (nv < n / 64) nv = n / 64;
    p->x = clf_bench_buffer(p->ctx, p->bytes, p->hx), p->y = clf_bench_buffer(p->ctx, p->bytes, NULL);
    p->dst = clf_bench_buffer(p->ctx, p->bytes, NULL);
    p->v1 = clf_bench_buffer(p->ctx, nv * 4, NULL), p->v2 = clf_bench_buffer(p->ctx, nv * 4, NULL);
    p->g = clf_bench_buffer(p->ctx, p->cols * 4, ones), p->b = clf_bench_buffer(p->ctx, p->cols * 4, zeros);
    free(ones), free(zeros);
}

static void teardown(bench *p)
{
    cl_mem all[7] = {p->x, p->y, p->dst, p->v1, p->v2, p->g, p->b};
    for (int i = 0; i < 7; i++) clReleaseMemObject(all[i]);
    free(p->hx);
}

/* --shapes: one-call softmax and layer norm (the row kernel where a row fits) and the copy, on other shapes
 * of the same order of size (CPUs: a sixteenth of the rows). */
#define MAX_SHAPES 16
static size_t shape_dims[MAX_SHAPES][2] = {{8192, 8192}, {4096, 16384}, {32768, 1024}, {2048, 32768}, {1024, 65536}};
static size_t nshapes = 5;

static json_t *shapes(clf_context *ctx, int cpu, int reps)
{
    json_t *all = json_object();
    for (size_t i = 0; i < nshapes; i++) {
        bench q = {.ctx = ctx, .rows = shape_dims[i][0] / (cpu ? 16 : 1), .cols = shape_dims[i][1]};
        setup(&q);
        double B = (double)q.bytes, tc = time_runs(&q, run_copy, reps), ts = time_runs(&q, run_softmax1, reps);
        double es = verify(&q, 0), tl = time_runs(&q, run_layernorm1, reps), el = verify(&q, 1);
        if (tc <= 0 || ts <= 0 || tl <= 0) {
            fprintf(stderr, "bench_reduce: %zu x %zu failed: %s\n", q.rows, q.cols, clf_last_error());
            exit(1);
        }
        printf("%6zu x %-6zu copy %8.1f GB/s  softmax, 1 call %8.1f GB/s (err %.2g)  layer norm, 1 call %8.1f GB/s "
               "(err %.2g)\n", q.rows, q.cols, 2 * B / tc / 1e9, 2 * B / ts / 1e9, es, 2 * B / tl / 1e9, el);
        char key[48];
        snprintf(key, sizeof key, "%zux%zu", q.rows, q.cols);
        json_object_set_new(all, key, json_pack("{s:f, s:f, s:f, s:f, s:f}", "copy_gbs", 2 * B / tc / 1e9,
                                                "softmax1_gbs", 2 * B / ts / 1e9, "softmax1_max_rel_error", es,
                                                "layernorm1_gbs", 2 * B / tl / 1e9, "layernorm1_max_rel_error", el));
        teardown(&q);
    }
    return all;
}

int main(int argc, char **argv)
{
    const char *device = NULL, *json_path = NULL;
    int reps = 9, do_sweep = 0, do_fused = 0, do_shapes = 0;
    size_t rows = 0, cols = 0, nshapes_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(a, "--json") && i + 1 < argc) json_path = argv[++i];
        else if (!strcmp(a, "--rows") && i + 1 < argc) rows = (size_t)atol(argv[++i]);
        else if (!strcmp(a, "--cols") && i + 1 < argc) cols = (size_t)atol(argv[++i]);
        else if (!strcmp(a, "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(a, "--sweep")) do_sweep = 1;
        else if (!strcmp(a, "--fused-sweep")) do_fused = 1;
        else if (!strcmp(a, "--shapes")) do_shapes = 1;
        else if (!strcmp(a, "--shape") && i + 1 < argc && nshapes_given < MAX_SHAPES &&
                 sscanf(argv[++i], "%zux%zu", &shape_dims[nshapes_given][0], &shape_dims[nshapes_given][1]) == 2 &&
                 shape_dims[nshapes_given][0] > 0 && shape_dims[nshapes_given][1] > 0)
            nshapes = ++nshapes_given, do_shapes = 1;
        else {
            fprintf(stderr, "usage: bench_reduce [--device SEL] [--rows R] [--cols C] [--reps N] [--sweep] "
                            "[--fused-sweep] [--shapes] [--shape RxC]... [--json FILE]\n"
                            "  default 8192 x 8192 on GPUs, 2048 x 2048 on CPUs; --shape (up to 16) replaces the "
                            "shapes of --shapes\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    clf_context_options opt = {.device = device};
    bench p = {0};
    if (clf_context_create(&opt, &p.ctx) != CLF_SUCCESS) {
        fprintf(stderr, "bench_reduce: %s\n", clf_last_error());
        return 1;
    }
    const clf_device_info *dev = clf_context_device(p.ctx);
    int cpu = (dev->type & CL_DEVICE_TYPE_GPU) == 0;
    p.rows = rows ? rows : cpu ? 2048 : 8192, p.cols = cols ? cols : cpu ? 2048 : 8192;
    setup(&p);
    printf("# %s (%s), %zu x %zu f32 (%.0f MiB)\n", dev->name, dev->driver, p.rows, p.cols, (double)p.bytes / 1048576.0);
    double B = (double)p.bytes;
    struct { const char *name; int (*run)(bench *); double moved, counted; } rows_[] = {
        {"copy (clf_copy)", run_copy, 2, 2},
        {"row sums of x*x", run_rows, 1, 1},
        {"column sums of x*x", run_cols, 1, 1},
        {"max of rows of 64", run_short, 1, 1},
        {"softmax, 2 calls", run_softmax, 3, 2},
        {"layer norm, 2 calls", run_layernorm, 3, 2},
        {"softmax, 1 call", run_softmax1, 2, 2},
        {"layer norm, 1 call", run_layernorm1, 2, 2},
    };
    enum { NR = sizeof rows_ / sizeof rows_[0] };
    json_t *res = json_object();
    double copy_gbs = 0, t[NR];
    for (int i = 0; i < NR; i++) {
        t[i] = time_runs(&p, rows_[i].run, reps);
        if (t[i] <= 0) {
            fprintf(stderr, "bench_reduce: %s failed: %s\n", rows_[i].name, clf_last_error());
            return 1;
        }
        double gbs = rows_[i].counted * B / t[i] / 1e9, moved = rows_[i].moved * B / t[i] / 1e9;
        if (i == 0) copy_gbs = gbs;
        double err = i >= 4 ? verify(&p, i % 2) : 0;   /* softmax rows are even, layer norm odd */
        printf("%-24s %9.3f ms %8.1f GB/s counted %8.1f GB/s moved  %.3f of copy%s", rows_[i].name, t[i] * 1e3, gbs,
               moved, moved / copy_gbs, i >= 4 ? "" : "\n");
        if (i >= 4) printf("  max rel. error %.2g\n", err);
        json_object_set_new(res, rows_[i].name, json_pack("{s:f, s:f, s:f, s:f, s:f}", "ms", t[i] * 1e3,
                                                           "counted_gbs", gbs, "moved_gbs", moved, "moved_vs_copy",
                                                           moved / copy_gbs, "max_rel_error", err));
    }
    json_t *root = json_pack("{s:s, s:s, s:I, s:I, s:s, s:o}", "device", dev->name, "driver", dev->driver, "rows",
                             (json_int_t)p.rows, "cols", (json_int_t)p.cols, "bytes_counted",
                             "counted: reductions 1 read; softmax and layer norm 1 read + 1 write (as torch is "
                             "counted); moved: what the kernels read and write (softmax, layer norm: 2 reads + 1 "
                             "write in 2 calls, 1 read + 1 write in 1 call)", "results", res);
    if (do_sweep) {
        char best[64] = "";
        double g;
        json_t *sr = sweep(&p, run_rows, B, 3, best, sizeof best, &g);
        printf("sweep rows: best %s %.1f GB/s\n", best, g);
        json_object_set_new(root, "sweep_rows", json_pack("{s:o, s:s, s:f}", "all", sr, "best", best, "gbs", g));
        json_t *ss = sweep(&p, run_softmax, 2 * B, 3, best, sizeof best, &g);
        printf("sweep softmax: best %s %.1f GB/s counted\n", best, g);
        json_object_set_new(root, "sweep_softmax", json_pack("{s:o, s:s, s:f}", "all", ss, "best", best, "gbs", g));
        json_t *s1 = sweep(&p, run_softmax1, 2 * B, 3, best, sizeof best, &g);
        printf("sweep softmax, 1 call: best %s %.1f GB/s counted\n", best, g);
        json_object_set_new(root, "sweep_softmax1", json_pack("{s:o, s:s, s:f}", "all", s1, "best", best, "gbs", g));
        json_t *l1 = sweep(&p, run_layernorm1, 2 * B, 3, best, sizeof best, &g);
        printf("sweep layer norm, 1 call: best %s %.1f GB/s counted\n", best, g);
        json_object_set_new(root, "sweep_layernorm1", json_pack("{s:o, s:s, s:f}", "all", l1, "best", best, "gbs", g));
        json_t *sc = sweep(&p, run_cols, B, 3, best, sizeof best, &g);
        printf("sweep cols: best %s %.1f GB/s\n", best, g);
        json_object_set_new(root, "sweep_cols", json_pack("{s:o, s:s, s:f}", "all", sc, "best", best, "gbs", g));
    }
    if (do_fused) {   /* the row kernel's configurations on the one-call forms */
        char best[64] = "";
        double g;
        json_t *fs = sweep_fused(&p, run_softmax1, 2 * B, 3, best, sizeof best, &g);
        printf("sweep fused, softmax 1 call: best %s %.1f GB/s counted\n", best, g);
        json_object_set_new(root, "sweep_fused_softmax1", json_pack("{s:o, s:s, s:f}", "all", fs, "best", best, "gbs", g));
        json_t *fl = sweep_fused(&p, run_layernorm1, 2 * B, 3, best, sizeof best, &g);
        printf("sweep fused, layer norm 1 call: best %s %.1f GB/s counted\n", best, g);
        json_object_set_new(root, "sweep_fused_layernorm1",
                            json_pack("{s:o, s:s, s:f}", "all", fl, "best", best, "gbs", g));
    }
    if (do_shapes)
        json_object_set_new(root, "shapes", shapes(p.ctx, cpu, reps));
    if (json_path && json_dump_file(root, json_path, JSON_INDENT(2)) != 0) {
        fprintf(stderr, "bench_reduce: cannot write %s\n", json_path);
        return 1;
    }
    json_decref(root);
    teardown(&p);
    clf_context_destroy(p.ctx);
    return 0;
}
