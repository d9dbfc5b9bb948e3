/* gemv_family.c — the `gemv` kernel family (cl/gemv.cl): the launch parameters `clforge tune` searches, the
 * heuristic defaults, validity, work formulas, and the tuning problem of each bucket:
 *   rows       y = A x, A row-major (the contiguous dimension is reduced: gemv_rows)
 *   cols       y = A^T x, A row-major (the output is contiguous: gemv_cols)
 *   thin_rows  C = A B with B of NV = 8 columns, all row-major (gemv_rows, the vectors' entries adjacent):
 *              calls of 2 to 8 vectors
 *   thin_cols  C = A B with A of NV = 8 rows, all row-major (gemv_cols, B streamed): 2 to 8 vectors
 *   wide_rows, wide_cols  the same with NV = 16: calls of 9 or more vectors, whose loads of the vectors and
 *              accumulators weigh more against the stream of A (the H200's best rows per work-item and
 *              staging differ between 8 and 16 vectors)
 * Each problem streams a matrix of about twice the last-level cache (clf__ew_bench_elements, the size the
 * elementwise and reduce families time), so that it is read from memory as in a large call. */
#include "elementwise.h"
#include "gemv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIDE_NV 16  /* right-hand vectors of the wide buckets' problems (the thin ones: CLF__GEMV_THIN_NV) */

static void gv_default(const clf_device_info *dev, clf_dtype dt, const char *bucket, clf__config *out)
{
    /* GPUs: 16-byte loads, 256 work-items, neighbours on neighbouring vectors, 8 groups per compute unit to cover
     * memory latency. CPUs run a work-group as a loop over its work-items on one core: each work-item streams a
     * contiguous run (a line, or CW vectors of outputs), a few groups per core for balance. The plan (gemv.c)
     * adapts teams and splits to each call's shape. */
    int esz = (int)clf__dtype_size(dt), cpu = (dev->type & CL_DEVICE_TYPE_CPU) != 0;
    memset(out, 0, sizeof *out);
    int *v = out->v;
    v[CLF__GV_WG] = cpu ? 16 : 256;
    v[CLF__GV_VW] = (cpu ? 32 : 16) / (esz ? esz : 4);
    v[CLF__GV_LU] = 4;
    v[CLF__GV_GPB] = cpu ? 4 : 8;
    v[CLF__GV_TEAM] = v[CLF__GV_TX] = cpu ? 1 : 0;
    v[CLF__GV_CW] = cpu ? 2 : 1;
    v[CLF__GV_RPT] = 0;
    /* GPUs, several vectors reduced along A's rows: teams of 8 (a 128-byte run of a line each), two lines a
     * work-item, the vectors staged 256 columns at a time. On the H200 this took 8x4096x4096 A.B^T from 68.3 to
     * 36.0 us and 4096x8x4096 from 43.9 to 34.4 (bench/results/h200/2026-12-01/thin-staged/), and the tuner
     * kept it there for fp32. */
    if (!cpu && bucket && (!strcmp(bucket, "thin_rows") || !strcmp(bucket, "wide_rows"))) {
        v[CLF__GV_TEAM] = 8;
        v[CLF__GV_RPT] = 2;
        v[CLF__GV_XL] = 256;
    }
    /* With more vectors, four lines a work-item share each load of them from local memory: on the H200
     * 4096x16x4096 66.5 -> 55.0 us, 4096x12x4096 58.5 -> 50.6, where 4096x8x4096 went 35.1 -> 48.5
     * (bench/results/h200/2026-12-01/thin-rules/). */
    if (!cpu && bucket && !strcmp(bucket, "wide_rows"))
        v[CLF__GV_RPT] = 4;
    /* GPUs, several vectors in either layout: gemv_tile, two outputs a work-item, 128 work-items (so 64 outputs a
     * group), the reduced dimension staged 32 at a time. On the H200 it took 4096x16x4096 from 55 to 34-35 us,
     * 6144x13x5120 88 -> 52, 16x4096x4096 46 -> 44, fp64 4096x16x4096 103 -> 67; BK=16 helped the products of 13-16
     * output-contiguous vectors and lost on those of 9-12, about as much in sum
     * (bench/results/h200/2026-12-02/thin-tile/). */
    if (!cpu && bucket && (!strncmp(bucket, "thin_", 5) || !strncmp(bucket, "wide_", 5))) {
        v[CLF__GV_WG] = 128;
        v[CLF__GV_TM] = 2;
    }
    while (dev->max_work_group && (size_t)v[CLF__GV_WG] > dev->max_work_group && v[CLF__GV_WG] > 1)
        v[CLF__GV_WG] /= 2;
    if (v[CLF__GV_TEAM] > v[CLF__GV_WG])
        v[CLF__GV_TEAM] = v[CLF__GV_WG];
}

/* The limits params_check (gemv.c) puts on an override, for the values the family allows. */
static int gv_valid(const clf__config *cfg, const clf_device_info *dev, clf_dtype dt)
{
    if ((dt != CLF_F32 && dt != CLF_F64) || (dt == CLF_F64 && !dev->fp64))
        return 0;
    const int *v = cfg->v;
    size_t wg_max = dev->max_work_group ? dev->max_work_group : 256;
    if ((size_t)v[CLF__GV_WG] > wg_max || v[CLF__GV_TEAM] > v[CLF__GV_WG] || v[CLF__GV_TX] > v[CLF__GV_WG])
        return 0;
    size_t local = clf__gemv_local_bytes(v[CLF__GV_WG], v[CLF__GV_VW], clf__dtype_size(dt));
    return dev->local_mem == 0 || local <= dev->local_mem;
}

/* m outputs of k-long dot products, n vectors (the profiler's view of a thin product). */
static double gv_flops(const clf__problem *p)
{
    return 2.0 * (double)p->m * (double)p->n * (double)p->k * (double)(p->batch ? p->batch : 1);
}

static double gv_bytes(const clf__problem *p)
{
    double m = (double)p->m, n = (double)p->n, k = (double)p->k;
    return (m * k + k * n + m * n) * (double)clf__dtype_size(p->dtype) * (double)(p->batch ? p->batch : 1);
}

/* ---- tuning problems ---------------------------------------------------------------------------- */

typedef struct gv_bench {
    clf_context *ctx;
    clf_dtype dt;
    clf__gemv_desc d;
    size_t lines, width;   /* A: lines x width, row-major */
    size_t nx, ny;         /* elements of x and y (all vectors) */
    double *ref, *tol;     /* per element of y */
    void *got;
    clf__config last;      /* the configuration y was last written by */
    int have_last;
} gv_bench;

static void gv_bench_destroy(void *state)
{
    gv_bench *b = state;
    if (!b)
        return;
    cl_mem bufs[] = {b->d.a, b->d.x, b->d.y};
    for (int i = 0; i < 3; i++)
        if (bufs[i])
            clReleaseMemObject(bufs[i]);
    free(b->ref), free(b->tol), free(b->got);
    free(b);
}

/* The call of the bucket: A lines x width row-major; x and y laid out as the GEMM planner lays out B and C
 * (thin_rows: B's columns are the vectors, their entries adjacent; thin_cols: A's rows are). */
static void gv_bench_desc(gv_bench *b, int rows, size_t nv)
{
    clf__gemv_desc *d = &b->d;
    d->a_rows_contiguous = rows;
    d->rows = rows ? b->lines : b->width;
    d->cols = rows ? b->width : b->lines;
    d->nv = nv, d->batch = 1, d->alpha = 1.0, d->beta = 0.0, d->lda = b->width;
    int interleaved = rows && nv > 1;
    d->incx = interleaved ? nv : 1, d->x_vstride = interleaved ? 1 : d->cols;
    d->incy = interleaved ? nv : 1, d->y_vstride = interleaved ? 1 : d->rows;
    b->nx = d->cols * nv;
    b->ny = d->rows * nv;
}

static double gv_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* n random values in [-1, 1) in the bench's precision. */
static void *gv_random(const gv_bench *b, size_t n, uint64_t *seed)
{
    size_t esz = clf__dtype_size(b->dt);
    void *h = malloc(n * esz);
    for (size_t i = 0; h && i < n; i++) {
        double r = gv_rand(seed);
        if (b->dt == CLF_F32)
            ((float *)h)[i] = (float)r;
        else
            ((double *)h)[i] = r;
    }
    return h;
}

static double gv_at(const gv_bench *b, const void *h, size_t i)
{
    return b->dt == CLF_F32 ? ((const float *)h)[i] : ((const double *)h)[i];
}

/* y in double from the values as stored, one pass over A in memory order; tol from the sums of |terms|. */
static void gv_reference(gv_bench *b, const void *ha, const void *hx)
{
    const clf__gemv_desc *d = &b->d;
    double eps = b->dt == CLF_F32 ? 5.96e-8 : 1.11e-16;
    for (size_t l = 0; l < b->lines; l++)
        for (size_t w = 0; w < b->width; w++) {
            double a = gv_at(b, ha, l * b->width + w);
            size_t i = d->a_rows_contiguous ? l : w, j = d->a_rows_contiguous ? w : l;
            for (size_t v = 0; v < d->nv; v++) {
                double t = a * gv_at(b, hx, j * d->incx + v * d->x_vstride);
                size_t o = i * d->incy + v * d->y_vstride;
                b->ref[o] += t;
                b->tol[o] += fabs(t);
            }
        }
    for (size_t o = 0; o < b->ny; o++)
        b->tol[o] = 2.0 * (double)(d->cols + 2) * eps * b->tol[o] + 1e-30;
}

static clf_status gv_upload(clf_context *ctx, const void *host, size_t bytes, cl_mem *out)
{
    cl_int err = CL_SUCCESS;
    *out = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes, (void *)host, &err);
    return *out ? CLF_SUCCESS : clf__fail_cl(err, "clCreateBuffer", "gemv tuning: %zu bytes", bytes);
}

static clf_status gv_poison(gv_bench *b)
{
    double nan64 = NAN;
    float nan32 = NAN;
    size_t esz = clf__dtype_size(b->dt);
    cl_int e = clEnqueueFillBuffer(b->ctx->queue, b->d.y, b->dt == CLF_F64 ? (void *)&nan64 : (void *)&nan32, esz, 0,
                                   b->ny * esz, 0, NULL, NULL);
    return e == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(e, "clEnqueueFillBuffer", "gemv tuning: poisoning y");
}

static clf_status gv_bench_data(gv_bench *b)
{
    size_t esz = clf__dtype_size(b->dt), na = b->lines * b->width;
    uint64_t seed = 0x243f6a8885a308d3ull;
    void *ha = gv_random(b, na, &seed), *hx = gv_random(b, b->nx, &seed);
    b->ref = calloc(b->ny, sizeof(double));
    b->tol = calloc(b->ny, sizeof(double));
    b->got = malloc(b->ny * esz);
    int have = ha && hx && b->ref && b->tol && b->got;
    clf_status s = have ? CLF_SUCCESS : clf__fail(CLF_ERR_OUT_OF_MEMORY, "gemv tuning: out of memory");
    if (s == CLF_SUCCESS)
        gv_reference(b, ha, hx);
    if (s == CLF_SUCCESS)
        s = gv_upload(b->ctx, ha, na * esz, &b->d.a);
    if (s == CLF_SUCCESS)
        s = gv_upload(b->ctx, hx, b->nx * esz, &b->d.x);
    if (s == CLF_SUCCESS)
        s = gv_upload(b->ctx, NULL, b->ny * esz, &b->d.y);
    free(ha), free(hx);
    if (s != CLF_SUCCESS)
        return s;
    return gv_poison(b);   /* NaN until a run writes y: a check before any run fails */
}

static clf_status gv_bench_create(clf_context *ctx, clf_dtype dt, const char *bucket, void **state)
{
    *state = NULL;
    if ((dt != CLF_F32 && dt != CLF_F64) || (dt == CLF_F64 && !ctx->info.fp64))
        return clf__fail(CLF_ERR_UNSUPPORTED, "gemv tuning: precision %s is not supported here", clf__dtype_name(dt));
    const char *bk = bucket ? bucket : "rows";
    int thin = !strncmp(bk, "thin_", 5), wide = !strncmp(bk, "wide_", 5);
    const char *kernel = bk + (thin || wide ? 5 : 0);   /* "rows" or "cols" */
    int rows = !strcmp(kernel, "rows");
    if (!rows && strcmp(kernel, "cols"))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv tuning: no bucket \"%s\"", bk);
    gv_bench *b = calloc(1, sizeof *b);
    if (!b)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "gemv tuning: out of memory");
    b->ctx = ctx;
    b->dt = dt;
    /* A of about twice the last-level cache, lines of 4096 (GPUs) or 2048 (CPUs: a 16 MiB fp32 A is square). */
    size_t total = clf__ew_bench_elements(ctx, clf__dtype_size(dt));
    b->width = ctx->info.type & CL_DEVICE_TYPE_CPU ? 2048 : 4096;
    b->lines = total / b->width > 64 ? total / b->width : 64;
    gv_bench_desc(b, rows, wide ? WIDE_NV : thin ? CLF__GEMV_THIN_NV : 1);
    clf_status s = gv_bench_data(b);
    if (s != CLF_SUCCESS) {
        gv_bench_destroy(b);
        return s;
    }
    *state = b;
    return CLF_SUCCESS;
}

static clf_status gv_bench_run(void *state, const clf__config *cfg, cl_event *ev)
{
    gv_bench *b = state;
    *ev = NULL;
    if (!b->have_last || memcmp(&b->last, cfg, sizeof *cfg) != 0) {
        /* A new configuration first runs over NaN, so that an output it does not write fails the check. */
        clf_status s = gv_poison(b);
        if (s != CLF_SUCCESS)
            return s;
        b->last = *cfg;
        b->have_last = 1;
    }
    clf__gemv_params p;
    clf__gemv_params_from_config(&b->ctx->info, cfg, &p);
    int launches = 0;
    cl_event done = NULL;
    clf_status s = clf__gemv_bench_run(b->ctx, &p, b->dt, &b->d, 0, &launches, &done);
    if (s == CLF_SUCCESS && launches == 1)
        *ev = done;   /* one kernel: its event spans the run; a split run is timed on the host */
    else if (done)
        clReleaseEvent(done);
    return s;
}

/* Builds what gv_bench_run(cfg) would run; thread-safe (the program cache is), for the builder threads. */
static clf_status gv_bench_build(void *state, const clf__config *cfg)
{
    gv_bench *b = state;
    clf__gemv_params p;
    clf__gemv_params_from_config(&b->ctx->info, cfg, &p);
    return clf__gemv_bench_run(b->ctx, &p, b->dt, &b->d, 1, NULL, NULL);
}

static clf_status gv_bench_check(void *state)
{
    gv_bench *b = state;
    cl_int e = clEnqueueReadBuffer(b->ctx->queue, b->d.y, CL_TRUE, 0, b->ny * clf__dtype_size(b->dt), b->got, 0,
                                   NULL, NULL);
    if (e != CL_SUCCESS)
        return clf__fail_cl(e, "clEnqueueReadBuffer", "gemv tuning: reading y");
    for (size_t o = 0; o < b->ny; o++) {
        double got = gv_at(b, b->got, o);
        if (!(fabs(got - b->ref[o]) <= b->tol[o]))   /* NaN (not written) fails too */
            return clf__fail(CLF_ERR_VERIFY, "gemv: y element %zu = %.9g, reference %.9g (tolerance %.3g)", o, got,
                             b->ref[o], b->tol[o]);
    }
    return CLF_SUCCESS;
}

/* Bytes of A, x and y: the family's unit is GB/s. */
static double gv_bench_work(void *state)
{
    const gv_bench *b = state;
    return (double)(b->lines * b->width + b->nx + b->ny) * (double)clf__dtype_size(b->dt);
}

const clf__family clf__family_gemv = {
    .name = "gemv",
    .nparams = CLF__GV_NPARAMS,
    .params = {
        {"WG", 11, {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}},
        {"VW", 5, {1, 2, 4, 8, 16}},
        {"LU", 6, {1, 2, 3, 4, 6, 8}},
        {"GPB", 7, {1, 2, 4, 8, 16, 32, 64}},
        {"TEAM", 10, {0, 1, 2, 4, 8, 16, 32, 64, 128, 256}},   /* 0: from each call's line length */
        {"TX", 8, {0, 1, 2, 4, 8, 16, 32, 64}},                /* 0: from each call's shape */
        {"CW", 6, {1, 2, 3, 4, 6, 8}},
        {"RPT", 5, {0, 1, 2, 4, 8}},                           /* 0: 4 with several vectors on GPUs, else 1 */
        {"XL", 5, {0, 64, 128, 256, 1024}, 1},                 /* optional: entries stored before it stage nothing */
        {"TM", 4, {0, 1, 2, 4}, 1},                            /* optional: 0, the rows and cols kernels */
        {"BK", 4, {0, 16, 32, 64}, 1},                         /* optional: 0, gemv_tile's 32 */
    },
    .nbuckets = 6,
    .buckets = {"rows", "cols", "thin_rows", "thin_cols", "wide_rows", "wide_cols"},
    .unit = "GB/s",
    .own_override = 1,   /* CLFORGE_GEMV_CONFIG also names SPLIT, THIN and TINY, and CW up to 64 (gemv.c) */
    .default_config = gv_default,
    .valid = gv_valid,
    .flops = gv_flops,
    .bytes = gv_bytes,
    .bench_create = gv_bench_create,
    .bench_run = gv_bench_run,
    .bench_check = gv_bench_check,
    .bench_work = gv_bench_work,
    .bench_destroy = gv_bench_destroy,
    .bench_build = gv_bench_build,
};
