/* bench_work.c — the workloads of `clforge bench` on one device: GEMM squares and shapes, maps, copies,
 * each timed for clforge and (when built with it) CLBlast on the same queue and buffers. */
#include "bench.h"
#include "internal.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { W_SGEMM, W_DGEMM, W_MIXED, W_MAP_RELU, W_MAP_AXPY, W_COPY, W_COPY_ODD } wkind;

typedef struct work {
    wkind kind;
    const char *group;
    size_t m, n, k;     /* gemm sizes; map: n elements; copy: n bytes */
    int mode;           /* W_MIXED: index into mixed_modes */
} work;

/* Mixed-precision GEMM rows (clf_gemm, C in fp32): on matrix units where the device passes their self-test,
 * on the portable path elsewhere. No baseline: CLBlast's HGEMM needs cl_khr_fp16. */
static const struct {
    const char *name;
    clf_gemm_types t;
} mixed_modes[] = {
    {"gemm_f16", {CLF_F16, CLF_F16, CLF_F32, CLF_COMPUTE_EXACT}},
    {"gemm_bf16", {CLF_BF16, CLF_BF16, CLF_F32, CLF_COMPUTE_EXACT}},
    {"gemm_tf32", {CLF_F32, CLF_F32, CLF_F32, CLF_COMPUTE_TF32}},
    {"gemm_3xtf32", {CLF_F32, CLF_F32, CLF_F32, CLF_COMPUTE_3XTF32}},
    {"gemm_3xf16", {CLF_F32, CLF_F32, CLF_F32, CLF_COMPUTE_3XF16}},
};
#define NMIXED (sizeof mixed_modes / sizeof mixed_modes[0])

/* The GEMM issue's non-square and irregular shapes (m, n, k). */
static const size_t gemm_shapes[][3] = {
    {4097, 4097, 4097}, {8191, 8191, 8191}, {1000, 3000, 700},
    {64, 4096, 4096}, {4096, 64, 4096}, {4096, 4096, 64},
};

typedef struct bench_call {
    clf_context *ctx;
    const work *w;
    int baseline;       /* 0: clforge, 1: CLBlast */
    cl_mem a, b, c;
} bench_call;

/* CLBlast's C API, the few routines the baseline calls, declared here: the library is opened on demand, so
 * neither its header at build time nor the library at run time is needed unless the baseline runs.
 * Enumerations are ints in the C ABI; the values are CLBlast's (clblast_c.h). */
enum { CLB_SUCCESS = 0, CLB_ROW_MAJOR = 101, CLB_TRANS_NO = 111 };
typedef int (*clb_sgemm_fn)(int, int, int, size_t, size_t, size_t, float, cl_mem, size_t, size_t, cl_mem, size_t,
                            size_t, float, cl_mem, size_t, size_t, cl_command_queue *, cl_event *);
typedef int (*clb_dgemm_fn)(int, int, int, size_t, size_t, size_t, double, cl_mem, size_t, size_t, cl_mem, size_t,
                            size_t, double, cl_mem, size_t, size_t, cl_command_queue *, cl_event *);
typedef int (*clb_saxpy_fn)(size_t, float, cl_mem, size_t, size_t, cl_mem, size_t, size_t, cl_command_queue *,
                            cl_event *);
typedef int (*clb_scopy_fn)(size_t, cl_mem, size_t, size_t, cl_mem, size_t, size_t, cl_command_queue *, cl_event *);

static struct {
    pthread_once_t once;
    void *lib;
    clb_sgemm_fn sgemm;
    clb_dgemm_fn dgemm;
    clb_saxpy_fn saxpy;
    clb_scopy_fn scopy;
    char why[256];
} clb = {PTHREAD_ONCE_INIT, NULL, NULL, NULL, NULL, NULL, ""};

/* dlsym's void * to a function pointer: POSIX guarantees the conversion; memcpy keeps -Wpedantic quiet. */
static void *clb_sym(const char *name, int *missing)
{
    void *p = dlsym(clb.lib, name);
    if (!p && !*missing) {
        *missing = 1;
        snprintf(clb.why, sizeof clb.why, "%s lacks %s", "libclblast", name);
    }
    return p;
}

static void clb_open(void)
{
    static const char *const names[] = {"libclblast.so.1", "libclblast.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !clb.lib; i++) clb.lib = dlopen(names[i], RTLD_NOW);
    if (!clb.lib) {
        snprintf(clb.why, sizeof clb.why, "CLBlast is not installed (libclblast.so.1 not found; on Debian/Ubuntu: "
                                          "apt-get install libclblast1)");
        return;
    }
    int missing = 0;
    void *f[4] = {clb_sym("CLBlastSgemm", &missing), clb_sym("CLBlastDgemm", &missing),
                  clb_sym("CLBlastSaxpy", &missing), clb_sym("CLBlastScopy", &missing)};
    if (missing) return;
    memcpy(&clb.sgemm, &f[0], sizeof f[0]);
    memcpy(&clb.dgemm, &f[1], sizeof f[1]);
    memcpy(&clb.saxpy, &f[2], sizeof f[2]);
    memcpy(&clb.scopy, &f[3], sizeof f[3]);
}

const char *cli_bench_baseline(const char **why)
{
    pthread_once(&clb.once, clb_open);
    if (why) *why = clb.scopy ? NULL : clb.why;
    return clb.scopy ? "CLBlast" : NULL;
}

void cli_bench_list_free(cli_bench_list *list)
{
    free(list->items);
    list->items = NULL;
    list->count = list->cap = 0;
}

static size_t esize(const work *w)
{
    if (w->kind == W_MIXED)
        return mixed_modes[w->mode].t.a == CLF_F32 ? 4 : 2;   /* A and B; C is fp32 */
    return w->kind == W_DGEMM ? 8 : 4;
}

static double work_flops(const work *w)
{
    switch (w->kind) {
    case W_SGEMM: case W_DGEMM: case W_MIXED: return 2.0 * (double)w->m * (double)w->n * (double)w->k;
    case W_MAP_RELU: return 3.0 * (double)w->n;    /* multiply, add, max */
    case W_MAP_AXPY: return 2.0 * (double)w->n;
    default: return 0;
    }
}

/* Minimum global-memory traffic: each matrix once (beta = 0 writes C without reading it). */
static double work_bytes(const work *w)
{
    switch (w->kind) {
    case W_SGEMM: case W_DGEMM:
        return (double)esize(w) *
               ((double)w->m * (double)w->k + (double)w->k * (double)w->n + (double)w->m * (double)w->n);
    case W_MIXED:
        return (double)esize(w) * ((double)w->m * (double)w->k + (double)w->k * (double)w->n) +
               4.0 * (double)w->m * (double)w->n;
    case W_MAP_RELU: return 16.0 * (double)w->n;   /* a, x, b read; y written */
    case W_MAP_AXPY: return 12.0 * (double)w->n;   /* x, y read; y written */
    default: return 2.0 * (double)w->n;            /* read + write */
    }
}

static void work_label(const work *w, char *out, size_t cap)
{
    switch (w->kind) {
    case W_SGEMM: case W_DGEMM: case W_MIXED: snprintf(out, cap, "%zux%zux%zu", w->m, w->n, w->k); break;
    case W_MAP_RELU: snprintf(out, cap, "y = relu(a*x + b), n=%zu", w->n); break;
    case W_MAP_AXPY: snprintf(out, cap, "y = a*x + y, n=%zu", w->n); break;
    case W_COPY: snprintf(out, cap, "%zu B", w->n); break;
    case W_COPY_ODD: snprintf(out, cap, "%zu B, offset 4", w->n); break;
    }
}

static const char *work_name(const work *w)
{
    static const char *names[] = {"sgemm", "dgemm", "", "map", "map", "copy", "copy"};
    return w->kind == W_MIXED ? mixed_modes[w->mode].name : names[w->kind];
}

static clf_status run_clforge(bench_call *c, cl_event *ev)
{
    const work *w = c->w;
    clf_context *ctx = c->ctx;
    switch (w->kind) {
    case W_SGEMM:
        return clf_sgemm(ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, w->m, w->n, w->k, 1.0f, c->a, 0, w->k,
                         c->b, 0, w->n, 0.0f, c->c, 0, w->n, ev);
    case W_DGEMM:
        return clf_dgemm(ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, w->m, w->n, w->k, 1.0, c->a, 0, w->k,
                         c->b, 0, w->n, 0.0, c->c, 0, w->n, ev);
    case W_MIXED:   /* B stored N x K: the layout of x @ W^T, read in place by matrix units */
        return clf_gemm(ctx, &mixed_modes[w->mode].t, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_TRANS, w->m, w->n, w->k, 1.0f,
                        c->a, 0, w->k, c->b, 0, w->k, 0.0f, c->c, 0, w->n, ev);
    case W_MAP_RELU: {
        clf_map_arg args[] = {
            {"a", CLF_ARG_BUFFER, CLF_F32, c->a, 0, 0}, {"x", CLF_ARG_BUFFER, CLF_F32, c->b, 0, 0},
            {"b", CLF_ARG_BUFFER, CLF_F32, c->c, 0, 0}, {"y", CLF_ARG_BUFFER, CLF_F32, c->a, w->n, 0}};
        return clf_map(ctx, "y = relu(a*x + b)", w->n, args, 4, ev);
    }
    case W_MAP_AXPY: {
        clf_map_arg args[] = {
            {"a", CLF_ARG_SCALAR, CLF_F32, NULL, 0, 0.5}, {"x", CLF_ARG_BUFFER, CLF_F32, c->a, 0, 0},
            {"y", CLF_ARG_BUFFER, CLF_F32, c->b, 0, 0}};
        return clf_map(ctx, "y = a*x + y", w->n, args, 3, ev);
    }
    case W_COPY: return clf_copy(ctx, c->a, 0, c->b, 0, w->n, ev);
    case W_COPY_ODD: return clf_copy(ctx, c->a, 4, c->b, 4, w->n, ev);
    }
    return clf__fail(CLF_ERR_INTERNAL, "bench: unknown workload");
}

static clf_status run_clblast(bench_call *c, cl_event *ev)
{
    const work *w = c->w;
    cl_command_queue q = clf_context_queue(c->ctx);
    int s;
    switch (w->kind) {
    case W_SGEMM:
        s = clb.sgemm(CLB_ROW_MAJOR, CLB_TRANS_NO, CLB_TRANS_NO, w->m, w->n, w->k, 1.0f, c->a, 0, w->k, c->b, 0, w->n,
                      0.0f, c->c, 0, w->n, &q, ev);
        break;
    case W_DGEMM:
        s = clb.dgemm(CLB_ROW_MAJOR, CLB_TRANS_NO, CLB_TRANS_NO, w->m, w->n, w->k, 1.0, c->a, 0, w->k, c->b, 0, w->n,
                      0.0, c->c, 0, w->n, &q, ev);
        break;
    case W_MAP_AXPY: s = clb.saxpy(w->n, 0.5f, c->a, 0, 1, c->b, 0, 1, &q, ev); break;
    case W_COPY: s = clb.scopy(w->n / 4, c->a, 0, 1, c->b, 0, 1, &q, ev); break;
    default: return clf__fail(CLF_ERR_UNSUPPORTED, "CLBlast has no routine for this workload");
    }
    return s == CLB_SUCCESS ? CLF_SUCCESS : clf__fail(CLF_ERR_INTERNAL, "CLBlast returned status %d", s);
}

static int has_baseline(const work *w)
{
    return cli_bench_baseline(NULL) && w->kind != W_MAP_RELU && w->kind != W_COPY_ODD && w->kind != W_MIXED;
}

/* One call. No event is handed back, so it is timed on the host around clFinish: an op may enqueue
 * several kernels and its last event would not cover them all. */
static clf_status run_call(void *arg, cl_event *ev)
{
    bench_call *c = arg;
    (void)ev;
    return c->baseline ? run_clblast(c, NULL) : run_clforge(c, NULL);
}

typedef struct spread {
    double median, min, max;
    int repeats;
} spread;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Seconds per call by the runtime's timing policy: one warm-up call (compilation), one to size a group
 * of calls lasting >= 10 ms (30 ms unless quick), then 3 (7) groups, each timed on its own so that the
 * spread is known: median, fastest and slowest. */
static clf_status time_call(bench_call *c, int quick, spread *out)
{
    enum { MAX_REPS = 7 };
    double t[MAX_REPS];
    int reps = quick ? 3 : MAX_REPS, group = 1;
    clf__timing how = {.warmup = 1, .reps = 1, .group = 0, .group_seconds = quick ? 0.01 : 0.03, .max_group = 1000};
    clf_status s = clf__time_runs(c->ctx, run_call, c, &how, &t[0], &group);
    clf__timing again = {.warmup = 0, .reps = 1, .group = group};
    for (int i = 1; i < reps && s == CLF_SUCCESS; i++) s = clf__time_runs(c->ctx, run_call, c, &again, &t[i], NULL);
    if (s != CLF_SUCCESS) return s;
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    out->median = t[reps / 2];
    out->min = t[0];
    out->max = t[reps - 1];
    out->repeats = reps;
    return CLF_SUCCESS;
}

static cl_mem new_buffer(clf_context *ctx, size_t bytes, float value, clf_status *s)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clf_context_cl(ctx), CL_MEM_READ_WRITE, bytes ? bytes : 16, NULL, &e);
    if (e == CL_SUCCESS && bytes) {
        /* Constant data: the speed of these kernels does not depend on values, and nothing overflows. */
        e = clEnqueueFillBuffer(clf_context_queue(ctx), m, &value, sizeof value, 0, bytes & ~(size_t)3, 0, NULL, NULL);
        if (e == CL_SUCCESS) e = clFinish(clf_context_queue(ctx));
    }
    if (e != CL_SUCCESS) {
        if (m) clReleaseMemObject(m);
        *s = clf__fail_cl(e, "clCreateBuffer", "bench buffer of %zu bytes", bytes);
        return NULL;
    }
    return m;
}

static void fill_roofline(const clf_roofline *roof, const work *w, cli_bench_result *r)
{
    double bw = fmax(roof->copy_gbs, roof->triad_gbs);
    double peak = w->kind == W_DGEMM ? roof->fp64_gflops : roof->fp32_gflops;
    r->intensity = r->bytes > 0 ? r->flops / r->bytes : 0;
    if (w->kind == W_MIXED) {
        /* No measured roof for matrix units: the fraction stays unknown rather than against the FMA peak. */
        r->bound = "compute";
        r->attainable = 0;
    } else if (r->flops > 0 && peak > 0) {
        /* GEMMs are reported in GFLOP/s against min(peak, intensity * bandwidth). */
        double mem_roof = r->intensity * bw;
        r->attainable = fmin(peak, mem_roof);
        r->bound = mem_roof < peak ? "memory" : "compute";
    }
    if (w->kind >= W_MAP_RELU) {
        /* Maps and copies are reported in GB/s against the bandwidth roof. */
        r->attainable = bw;
        r->bound = "memory";
    }
    r->fraction = r->attainable > 0 && r->value > 0 ? r->value / r->attainable : 0;
}

static void measure(clf_context *ctx, const clf_roofline *roof, const work *w, int quick, cli_bench_result *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->workload, sizeof r->workload, "%s", work_name(w));
    snprintf(r->group, sizeof r->group, "%s", w->group);
    work_label(w, r->label, sizeof r->label);
    r->m = w->m, r->n = w->n, r->k = w->k;
    r->flops = work_flops(w);
    r->bytes = work_bytes(w);
    r->unit = w->kind <= W_MIXED ? "GFLOP/s" : "GB/s";
    r->bound = "memory";
    double numer = w->kind <= W_MIXED ? r->flops : r->bytes;

    clf_status s = CLF_SUCCESS;
    size_t es = esize(w), sa, sb, sc;
    if (w->kind <= W_MIXED) sa = w->m * w->k * es, sb = w->k * w->n * es, sc = w->m * w->n * (w->kind == W_MIXED ? 4 : es);
    else if (w->kind <= W_MAP_AXPY) sa = 2 * w->n * 4, sb = sc = w->n * 4;   /* relu's y lives in a's second half */
    else sa = sb = w->n + 8, sc = 0;
    bench_call c = {ctx, w, 0, NULL, NULL, NULL};
    c.a = new_buffer(ctx, sa, 0.5f, &s);
    if (c.a) c.b = new_buffer(ctx, sb, 0.25f, &s);
    if (c.b) c.c = new_buffer(ctx, sc, 0.0f, &s);
    spread t = {0, 0, 0, 0};
    if (s == CLF_SUCCESS && (s = time_call(&c, quick, &t)) == CLF_SUCCESS) {
        r->seconds = t.median, r->min_seconds = t.min, r->max_seconds = t.max, r->repeats = t.repeats;
        r->value = numer / r->seconds / 1e9;
    }
    if (s) snprintf(r->error, sizeof r->error, "%s: %s", clf_status_name(s), clf_last_error());
    fill_roofline(roof, w, r);
    if (s == CLF_SUCCESS && has_baseline(w)) {
        snprintf(r->base_name, sizeof r->base_name, "%s", cli_bench_baseline(NULL));
        c.baseline = 1;
        clf_status bs = time_call(&c, quick, &t);
        if (bs == CLF_SUCCESS) {
            r->have_base = 1;
            r->base_seconds = t.median, r->base_min_seconds = t.min, r->base_max_seconds = t.max;
            r->base_repeats = t.repeats;
            r->base_value = numer / r->base_seconds / 1e9;
            r->ratio = r->value / r->base_value;
        } else {
            snprintf(r->base_error, sizeof r->base_error, "%s", clf_last_error());
        }
    }
    clFinish(clf_context_queue(ctx));
    if (c.a) clReleaseMemObject(c.a);
    if (c.b) clReleaseMemObject(c.b);
    if (c.c) clReleaseMemObject(c.c);
}

clf_status cli_bench_reference(clf_context *ctx, int quick, double *gbs)
{
    const clf_device_info *d = clf_context_device(ctx);
    size_t bytes = (size_t)(quick ? 16 : 64) << 20;
    while (bytes > ((size_t)1 << 20) && (bytes > d->max_alloc || 4 * bytes > d->global_mem / 2)) bytes /= 2;
    work w = {W_COPY, "copy", 0, bytes, 0, 0};
    bench_call c = {ctx, &w, 0, NULL, NULL, NULL};
    clf_status s = CLF_SUCCESS;
    spread t = {0, 0, 0, 0};
    c.a = new_buffer(ctx, bytes + 8, 0.5f, &s);
    if (c.a) c.b = new_buffer(ctx, bytes + 8, 0.25f, &s);
    if (s == CLF_SUCCESS && (s = time_call(&c, 1, &t)) == CLF_SUCCESS) *gbs = work_bytes(&w) / t.median / 1e9;
    if (c.a) clReleaseMemObject(c.a);
    if (c.b) clReleaseMemObject(c.b);
    return s;
}

/* A GEMM is worth timing when one call should take under the budget at a quarter of the FMA peak and its
 * three matrices fit the device's allocation limits. */
static int gemm_fits(const clf_context *ctx, const clf_roofline *roof, wkind kind, size_t m, size_t n, size_t k,
                     int quick)
{
    const clf_device_info *d = clf_context_device(ctx);
    double peak = kind == W_DGEMM ? roof->fp64_gflops : roof->fp32_gflops;
    double es = kind == W_DGEMM ? 8 : 4;
    double dm = (double)m, dn = (double)n, dk = (double)k;   /* sizes as estimates: rounding is harmless */
    double est = 2.0 * dm * dn * dk / (0.25 * peak * 1e9);
    double biggest = es * fmax(fmax(dm * dk, dk * dn), dm * dn);
    double total = es * (dm * dk + dk * dn + dm * dn);
    return peak > 0 && est <= (quick ? 0.25 : 2.0) && biggest <= (double)d->max_alloc &&
           total <= 0.5 * (double)d->global_mem;
}

static size_t plan(clf_context *ctx, const clf_roofline *roof, int quick, work *out, size_t cap)
{
    const clf_device_info *d = clf_context_device(ctx);
    size_t n = 0;
    for (size_t s = 128; s <= 8192 && n < cap; s *= 2)
        if (gemm_fits(ctx, roof, W_SGEMM, s, s, s, quick)) out[n++] = (work){W_SGEMM, "square", s, s, s, 0};
    for (size_t i = 0; i < sizeof gemm_shapes / sizeof gemm_shapes[0] && n < cap; i++) {
        const size_t *g = gemm_shapes[i];
        if (gemm_fits(ctx, roof, W_SGEMM, g[0], g[1], g[2], quick)) out[n++] = (work){W_SGEMM, "shape", g[0], g[1], g[2], 0};
    }
    if (d->fp64)
        for (size_t s = 128; s <= 8192 && n < cap; s *= 2)
            if (gemm_fits(ctx, roof, W_DGEMM, s, s, s, quick)) out[n++] = (work){W_DGEMM, "dsquare", s, s, s, 0};
    for (size_t mi = 0; mi < NMIXED; mi++)
        for (size_t s = 1024; s <= 4096 && n < cap; s *= 4)
            if (gemm_fits(ctx, roof, W_SGEMM, s, s, s, quick))
                out[n++] = (work){W_MIXED, "mixed", s, s, s, (int)mi};
    /* Vectors of 64 Mi floats (16 Mi quick), fewer when the device allows less. */
    size_t elems = (size_t)(quick ? 16 : 64) << 20;
    while (elems > ((size_t)1 << 16) && (8 * elems > d->max_alloc || 20 * elems > d->global_mem / 2)) elems /= 2;
    if (n + 4 <= cap) {
        out[n++] = (work){W_MAP_RELU, "map", 0, elems, 0, 0};
        out[n++] = (work){W_MAP_AXPY, "map", 0, elems, 0, 0};
        out[n++] = (work){W_COPY, "copy", 0, elems * 4, 0, 0};
        out[n++] = (work){W_COPY_ODD, "copy", 0, elems * 4 - 13, 0, 0};
    }
    return n;
}

/* 1 when name is an item of the comma-separated list. */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

int cli_bench_only_valid(const char *only)
{
    static const char *const names[] = {"sgemm", "dgemm", "map", "copy", "gemm_f16", "gemm_bf16", "gemm_tf32",
                                        "gemm_3xtf32", "gemm_3xf16", "transfer"};
    if (!only || !*only) return 0;
    for (const char *p = only; p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int ok = 0;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            ok |= strlen(names[i]) == len && strncmp(p, names[i], len) == 0;
        if (!ok) return 0;
        p = e ? e + 1 : NULL;
    }
    return 1;
}

clf_status cli_bench_device(clf_context *ctx, const clf_roofline *roof, int quick, const char *only,
                            cli_bench_list *list, cli_bench_progress progress, void *parg)
{
    if (!ctx || !roof || !list) return clf__fail(CLF_ERR_INVALID_ARG, "cli_bench_device: NULL argument");
    work all[64], plan_[64];
    size_t na = plan(ctx, roof, quick, all, sizeof all / sizeof all[0]), nw = 0;
    for (size_t i = 0; i < na; i++)
        if (!only || in_list(only, work_name(&all[i]))) plan_[nw++] = all[i];
    if (list->count + nw > list->cap) {
        size_t cap = list->count + nw;
        cli_bench_result *p = realloc(list->items, cap * sizeof *p);
        if (!p) return clf__fail(CLF_ERR_OUT_OF_MEMORY, "bench results");
        list->items = p;
        list->cap = cap;
    }
    /* GEMM speed measured so far (sgemm, dgemm): a size whose call would exceed the budget at that speed
     * is skipped, so a slow kernel on a slow device does not stretch the run. */
    double rate[2] = {0, 0};
    for (size_t i = 0; i < nw; i++) {
        const work *w = &plan_[i];
        char what[160];
        snprintf(what, sizeof what, "%s ", work_name(w));
        work_label(w, what + strlen(what), sizeof what - strlen(what));
        int g = w->kind == W_DGEMM;
        if (w->kind <= W_DGEMM && rate[g] > 0) {
            double est = work_flops(w) / (rate[g] * 1e9);
            if (est > (quick ? 0.25 : 2.0)) {
                size_t len = strlen(what);
                snprintf(what + len, sizeof what - len, ": skipped, about %.1f s per call at %.3g GFLOP/s", est, rate[g]);
                if (progress) progress(parg, i, nw, what);
                continue;
            }
        }
        if (progress) progress(parg, i, nw, what);
        cli_bench_result *r = &list->items[list->count++];
        cli_load before, after;
        cli_load_snapshot(&before);
        measure(ctx, roof, w, quick, r);
        cli_load_snapshot(&after);
        r->others = cli_load_others(&before, &after);
        r->loaded = cli_load_is_busy(r->others);
        if (w->kind <= W_DGEMM && !r->error[0] && r->value > 0) rate[g] = r->value;
    }
    if (only && !in_list(only, "transfer")) return CLF_SUCCESS;
    /* The transfer rows (bench_transfer.c) get the load of their whole phase. */
    size_t first = list->count;
    cli_load before, after;
    cli_load_snapshot(&before);
    clf_status s = cli_bench_transfer(ctx, quick, list, progress, parg);
    cli_load_snapshot(&after);
    for (size_t i = first; i < list->count; i++) {
        list->items[i].others = cli_load_others(&before, &after);
        list->items[i].loaded = cli_load_is_busy(list->items[i].others);
    }
    return s;
}
