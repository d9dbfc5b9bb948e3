/* reduce_family.c — the `reduce` kernel family (cl/reduce.cl): parameters, heuristic defaults per bucket,
 * validity, work formulas, and the tuning problem (root mean square of every line) per bucket:
 *   rows   long contiguous lines (a row of a row-major matrix), a team of work-items per line
 *   short  contiguous lines shorter than 512, several lines per work-group
 *   cols   lines adjacent in memory (columns of a row-major matrix), read side by side
 *   fused  contiguous lines with a write pass, held in registers by the row kernel (VEC, WG, LPL); its
 *          tuning problem is a softmax over long lines and a layer norm (with per-position g and b) over
 *          short ones, one after the other, each reading its matrix once and writing it once. A softmax over
 *          one line length alone chose, on the H200, a configuration 24% slower than the heuristic on a layer
 *          norm of 8192 x 8192 and 26% on a softmax of 32768 x 1024 (bench/results/h200/2026-12-01/reduce-tune/) */
#include "reduce.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void red_default(const clf_device_info *dev, clf_dtype dt, const char *bucket, clf__config *out)
{
    memset(out, 0, sizeof *out);
    int gpu = (dev->type & CL_DEVICE_TYPE_GPU) != 0;
    int wg = gpu ? 256 : 64;
    if (dev->max_work_group && (size_t)wg > dev->max_work_group)
        wg = 32;
    out->v[CLF__R_WG] = wg;
    out->v[CLF__R_UNR] = 4;
    out->v[CLF__R_VEC] = 4;
    /* Row kernel on GPUs: teams of 128 with no second line in flight were the best of a sweep of WG, LPL, VEC
     * and UNR on the H200 (one-call softmax over 8192 x 8192: 3059 GB/s against 2188 with 512 and UNR=2,
     * bench/results/h200/2026-12-01/release); longer lines widen the team (reduce.c). */
    int cols = bucket && !strcmp(bucket, "cols");
    if (bucket && !strcmp(bucket, "fused") && gpu && (!dev->max_work_group || dev->max_work_group >= 128))
        out->v[CLF__R_WG] = out->v[CLF__R_LPL] = 128, out->v[CLF__R_UNR] = 1;
    else if (clf__red_line_device(dev) && !cols && dt == CLF_F32)
        /* CPUs: the line kernel (reduce.c), 16 lines a work-group. PoCL, 2-core EPYC, 2048 x 2048: one-call
         * softmax 1.2-1.4 -> 9.5 GB/s, layer norm 2.5-2.6 -> 14.6-14.9, row sums 5.9-8.6 -> 39-44
         * (bench/results/pocl-epyc/2026-12-02/reduce-line-kernel.txt) */
        out->v[CLF__R_WG] = 16, out->v[CLF__R_LPL] = 1, out->v[CLF__R_UNR] = 1;
    else if (bucket && !strcmp(bucket, "fused"))
        out->v[CLF__R_LPL] = wg, out->v[CLF__R_UNR] = 1;
    else if (bucket && !strcmp(bucket, "short"))
        out->v[CLF__R_LPL] = gpu ? 32 : 8, out->v[CLF__R_UNR] = 1;
    else if (cols)
        out->v[CLF__R_LPL] = gpu ? 16 : 4;   /* groups of 16 adjacent columns (64-byte runs): enough groups to fill a GPU */
    else
        out->v[CLF__R_LPL] = wg;
}

static int red_valid(const clf__config *cfg, const clf_device_info *dev, clf_dtype dt)
{
    if (dt != CLF_F32 && dt != CLF_F64)
        return 0;
    if (dt == CLF_F64 && !dev->fp64)
        return 0;
    int wg = cfg->v[CLF__R_WG], lpl = cfg->v[CLF__R_LPL];
    if (lpl > wg || (dev->max_work_group && (size_t)wg > dev->max_work_group))
        return 0;
    /* Partial states (up to 3 words each: moments' count, mean, M2) and 3 results per line. */
    size_t local = (size_t)(3 * wg + 3 * (wg / lpl)) * (dt == CLF_F64 ? 8 : 4);
    return dev->local_mem == 0 || local <= dev->local_mem;
}

/* p->m lines of p->n elements, one result each. */
static double red_flops(const clf__problem *p) { return (double)p->m * (double)p->n * (double)(p->flops_per_elem + 1); }
static double red_bytes(const clf__problem *p)
{
    return ((double)p->m * (double)p->n + (double)p->m) * (double)p->elem_size;
}

typedef struct red_bench {
    clf_context *ctx;
    red_plan pl, pl2;     /* fused: pl the softmax, pl2 the layer norm (after the softmax's lines in x and y) */
    cl_mem x, out, y, gb; /* y: the fused bucket's output (out then unused); gb: the layer norm's g, then b */
    double *ref, *got;
    void *host;           /* fused: x as stored, for the reference of the sampled lines */
    double *hgb;          /* fused: g and b as stored */
    size_t lines, len, esize, lines2, len2;
    int fused;
} red_bench;

#define LN_EPS 1e-5

/* Element i of n f32 or f64 values (esize 4 or 8), as a double. */
static double elem(const void *p, size_t esize, size_t i)
{
    return esize == 4 ? ((const float *)p)[i] : ((const double *)p)[i];
}

static void red_bench_destroy(void *state)
{
    red_bench *b = state;
    if (!b)
        return;
    if (b->x) clReleaseMemObject(b->x);
    if (b->out) clReleaseMemObject(b->out);
    if (b->y) clReleaseMemObject(b->y);
    if (b->gb) clReleaseMemObject(b->gb);
    clf__red_plan_free(&b->pl);
    clf__red_plan_free(&b->pl2);
    free(b->ref), free(b->got), free(b->host), free(b->hgb);
    free(b);
}

/* Random x in [-1, 1) and the reference sqrt(sum(x^2)/len) per line, in double from the stored values. */
static clf_status red_bench_data(red_bench *b, clf_dtype dt, int strided)
{
    size_t first = b->lines * b->len, total = first + b->lines2 * b->len2;
    void *host = malloc(total * b->esize);
    b->ref = calloc(b->lines, sizeof(double));
    b->got = malloc(b->lines * sizeof(double));
    if (!host || !b->ref || !b->got) {
        free(host);
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "reduce tuning: out of memory");
    }
    uint64_t seed = 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < total; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        double r = (double)(seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        if (dt == CLF_F32) r = ((float *)host)[i] = (float)r;
        else ((double *)host)[i] = r;
        if (i < first)
            b->ref[strided ? i % b->lines : i / b->len] += r * r;
    }
    for (size_t l = 0; l < b->lines; l++)
        b->ref[l] = sqrt(b->ref[l] / (double)b->len);
    cl_int err;
    b->x = clCreateBuffer(b->ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, total * b->esize, host, &err);
    if (b->x)
        b->out = clCreateBuffer(b->ctx->cl, CL_MEM_READ_WRITE, b->lines * b->esize, NULL, &err);
    if (b->out && b->fused) {   /* zeros: a check before any run fails */
        b->y = clCreateBuffer(b->ctx->cl, CL_MEM_READ_WRITE, total * b->esize, NULL, &err);
        unsigned char zero = 0;
        if (b->y && (err = clEnqueueFillBuffer(b->ctx->queue, b->y, &zero, 1, 0, total * b->esize, 0, NULL, NULL)))
            clReleaseMemObject(b->y), b->y = NULL;
    }
    if (b->fused)
        b->host = host;
    else
        free(host);
    if (b->y && b->fused) {   /* g in [0.5, 1.5), b in [-0.5, 0.5) */
        void *hgb = malloc(2 * b->len2 * b->esize);
        b->hgb = malloc(2 * b->len2 * sizeof(double));
        if (!hgb || !b->hgb) {
            free(hgb);
            return clf__fail(CLF_ERR_OUT_OF_MEMORY, "reduce tuning: out of memory");
        }
        for (size_t i = 0; i < 2 * b->len2; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            double r = (double)(seed >> 11) / 9007199254740992.0 - 0.5 + (i < b->len2 ? 1.0 : 0.0);
            if (dt == CLF_F32) r = ((float *)hgb)[i] = (float)r;
            else ((double *)hgb)[i] = r;
            b->hgb[i] = r;
        }
        b->gb = clCreateBuffer(b->ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 2 * b->len2 * b->esize, hgb, &err);
        free(hgb);
    }
    return b->out && (b->y || !b->fused) && (b->gb || !b->fused)
               ? CLF_SUCCESS
               : clf__fail_cl(err, "clCreateBuffer", "reduce tuning: %zu bytes", total * b->esize);
}

static clf_status red_bench_create(clf_context *ctx, clf_dtype dt, const char *bucket, void **state)
{
    if (dt != CLF_F32 && (dt != CLF_F64 || !ctx->info.fp64))
        return clf__fail(CLF_ERR_UNSUPPORTED, "reduce tuning: precision %s is not supported here", clf__dtype_name(dt));
    red_bench *b = calloc(1, sizeof *b);
    if (!b)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "reduce tuning: out of memory");
    b->ctx = ctx;
    b->esize = clf__dtype_size(dt);
    b->fused = bucket && !strcmp(bucket, "fused");
    size_t total = clf__ew_bench_elements(ctx, b->esize);
    int strided = bucket && !strcmp(bucket, "cols"), gpu = (ctx->info.type & CL_DEVICE_TYPE_GPU) != 0;
    b->len = bucket && !strcmp(bucket, "short") ? 77 : strided ? total / 4096 : gpu ? 8192 : 2048;
    b->lines = total / b->len;
    if (b->fused) {   /* each part streams a matrix of the size the other buckets stream: x and y apart */
        b->len2 = gpu ? 1024 : 256;
        b->lines2 = total / b->len2;
    }
    clf_status s = red_bench_data(b, dt, strided);
    clf_reduce_desc d = {.layout = CLF_ROW_MAJOR, .m = strided ? b->len : b->lines, .n = strided ? b->lines : b->len,
                         .axis = strided ? CLF_REDUCE_COLS : CLF_REDUCE_ROWS, .op = CLF_REDUCE_SUM, .pre = "x*x",
                         .post = "sqrt(r/len)", .x_type = dt, .x = b->x, .ldx = strided ? b->lines : b->len,
                         .out_type = dt, .out = b->out};
    if (b->fused)   /* softmax in one call: y = exp(x - rmax) / rsum */
        d.op = CLF_REDUCE_LSE, d.pre = NULL, d.post = "1 / rsum", d.write = "exp(x - rmax) * r", d.out = NULL,
        d.y_type = dt, d.y = b->y, d.ldy = b->len;
    if (s == CLF_SUCCESS)
        s = clf__red_plan_make(ctx, &d, NULL, 0, &b->pl);
    if (s == CLF_SUCCESS && b->fused) {   /* layer norm in one call over the lines after the softmax's */
        size_t at = b->lines * b->len;
        clf_reduce_desc ln = {.layout = CLF_ROW_MAJOR, .m = b->lines2, .n = b->len2, .axis = CLF_REDUCE_ROWS,
                              .op = CLF_REDUCE_MOMENTS, .post = "rsqrt(var + eps)", .write = "(x - mean) * r * g + b",
                              .x_type = dt, .x = b->x, .x_off = at, .ldx = b->len2, .out_type = dt,
                              .y_type = dt, .y = b->y, .y_off = at, .ldy = b->len2};
        clf_map_arg a[3] = {{.name = "eps", .kind = CLF_ARG_SCALAR, .value = LN_EPS},
                            {.name = "g", .kind = CLF_ARG_COL, .dtype = dt, .buffer = b->gb},
                            {.name = "b", .kind = CLF_ARG_COL, .dtype = dt, .buffer = b->gb, .offset = b->len2}};
        s = clf__red_plan_make(ctx, &ln, a, 3, &b->pl2);
    }
    if (s != CLF_SUCCESS) {
        red_bench_destroy(b);
        return s;
    }
    *state = b;
    return CLF_SUCCESS;
}

static clf_status red_bench_run(void *state, const clf__config *cfg, cl_event *ev)
{
    red_bench *b = state;
    clf__red_row rg;
    if (!b->fused)
        return clf__red_plan_launch(b->ctx, &b->pl, cfg, 0, ev);
    *ev = NULL;   /* two launches: timed on the host */
    if (!clf__red_row_geom(&b->pl, cfg, &b->ctx->info, &rg) || !clf__red_row_geom(&b->pl2, cfg, &b->ctx->info, &rg))
        return clf__fail(CLF_ERR_UNSUPPORTED, "reduce: a line of %zu or %zu does not fit the row kernel with this "
                         "configuration", b->len, b->len2);
    clf_status s = clf__red_plan_launch(b->ctx, &b->pl, cfg, 1, NULL);
    return s == CLF_SUCCESS ? clf__red_plan_launch(b->ctx, &b->pl2, cfg, 1, NULL) : s;
}

/* fused: 64 sampled lines of the layer norm part of y against the layer norm of x in double. */
static clf_status red_bench_check_norm(red_bench *b)
{
    void *got = malloc(b->len2 * b->esize);
    clf_status s = got ? CLF_SUCCESS : clf__fail(CLF_ERR_OUT_OF_MEMORY, "reduce tuning: out of memory");
    const size_t first = b->lines * b->len;
    for (size_t k = 0; k < 64 && s == CLF_SUCCESS; k++) {
        size_t l = k * 7919 % b->lines2, at = first + l * b->len2;
        cl_int err = clEnqueueReadBuffer(b->ctx->queue, b->y, CL_TRUE, at * b->esize, b->len2 * b->esize, got, 0,
                                         NULL, NULL);
        if (err != CL_SUCCESS) {
            s = clf__fail_cl(err, "clEnqueueReadBuffer", "reduce tuning: reading y");
            break;
        }
        double mean = 0, var = 0;
        for (size_t j = 0; j < b->len2; j++)
            mean += elem(b->host, b->esize, at + j);
        mean /= (double)b->len2;
        for (size_t j = 0; j < b->len2; j++) {
            double d = elem(b->host, b->esize, at + j) - mean;
            var += d * d;
        }
        double r = 1.0 / sqrt(var / (double)b->len2 + LN_EPS);
        for (size_t j = 0; j < b->len2 && s == CLF_SUCCESS; j++) {
            double x = elem(b->host, b->esize, at + j);
            double want = (x - mean) * r * b->hgb[j] + b->hgb[b->len2 + j];
            double v = elem(got, b->esize, j);
            if (!(fabs(v - want) <= (b->esize == 4 ? 2e-5 : 1e-11) * (fabs(want) + 1.0)))
                s = clf__fail(CLF_ERR_VERIFY, "reduce: layer norm line %zu element %zu = %.17g, expected %.17g", l, j,
                              v, want);
        }
    }
    free(got);
    return s;
}

/* fused: 64 sampled lines of each part of y against the softmax and the layer norm of x in double, then y
 * cleared for the next candidate. */
static clf_status red_bench_check_fused(red_bench *b)
{
    double *row = malloc(b->len * sizeof(double));
    void *got = malloc(b->len * b->esize);
    clf_status s = row && got ? CLF_SUCCESS : clf__fail(CLF_ERR_OUT_OF_MEMORY, "reduce tuning: out of memory");
    for (size_t k = 0; k < 64 && s == CLF_SUCCESS; k++) {
        size_t l = k * 7919 % b->lines, at = l * b->len;
        cl_int err = clEnqueueReadBuffer(b->ctx->queue, b->y, CL_TRUE, at * b->esize, b->len * b->esize, got, 0,
                                         NULL, NULL);
        if (err != CL_SUCCESS) {
            s = clf__fail_cl(err, "clEnqueueReadBuffer", "reduce tuning: reading y");
            break;
        }
        double mx = -INFINITY, sum = 0;
        for (size_t j = 0; j < b->len; j++) {
            row[j] = elem(b->host, b->esize, at + j);
            mx = fmax(mx, row[j]);
        }
        for (size_t j = 0; j < b->len; j++)
            sum += exp(row[j] - mx);
        for (size_t j = 0; j < b->len && s == CLF_SUCCESS; j++) {
            double want = exp(row[j] - mx) / sum, v = elem(got, b->esize, j);
            if (!(fabs(v - want) <= (b->esize == 4 ? 1e-5 : 1e-12) * (want + 1.0 / (double)b->len)))
                s = clf__fail(CLF_ERR_VERIFY, "reduce: softmax line %zu element %zu = %.17g, expected %.17g", l, j,
                              v, want);
        }
    }
    free(row), free(got);
    if (s == CLF_SUCCESS)
        s = red_bench_check_norm(b);
    unsigned char zero = 0;
    cl_int err = clEnqueueFillBuffer(b->ctx->queue, b->y, &zero, 1, 0,
                                     (b->lines * b->len + b->lines2 * b->len2) * b->esize, 0, NULL, NULL);
    if (s == CLF_SUCCESS && err != CL_SUCCESS)
        s = clf__fail_cl(err, "clEnqueueFillBuffer", "reduce tuning: clearing y");
    return s;
}

static clf_status red_bench_check(void *state)
{
    red_bench *b = state;
    if (b->fused)
        return red_bench_check_fused(b);
    void *raw = b->got;   /* large enough for either type */
    cl_int err = clEnqueueReadBuffer(b->ctx->queue, b->out, CL_TRUE, 0, b->lines * b->esize, raw, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clf__fail_cl(err, "clEnqueueReadBuffer", "reduce tuning: reading the result");
    double rel = b->esize == 4 ? 1e-4 : 1e-11;
    for (size_t l = 0; l < b->lines; l++) {
        double got = elem(raw, b->esize, l);
        if (!(fabs(got - b->ref[l]) <= rel * b->ref[l]))
            return clf__fail(CLF_ERR_VERIFY, "reduce: line %zu = %.17g, expected %.17g", l, got, b->ref[l]);
    }
    unsigned char zero = 0;
    err = clEnqueueFillBuffer(b->ctx->queue, b->out, &zero, 1, 0, b->lines * b->esize, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(err, "clEnqueueFillBuffer", "reduce tuning: clearing out");
}

static double red_bench_work(void *state)
{
    const red_bench *b = state;
    return b->pl.bytes + (b->fused ? b->pl2.bytes : 0.0);
}

const clf__family clf__family_reduce = {
    .name = "reduce",
    .nparams = 4,
    .params = {{"WG", 8, {8, 16, 32, 64, 128, 256, 512, 1024}}, {"LPL", 11, {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}},
               {"UNR", 4, {1, 2, 4, 8}}, {"VEC", 3, {1, 2, 4}, 1}},
    .nbuckets = 4,
    .buckets = {"rows", "short", "cols", "fused"},
    .unit = "GB/s",
    .default_config = red_default,
    .valid = red_valid,
    .flops = red_flops,
    .bytes = red_bytes,
    .bench_create = red_bench_create,
    .bench_run = red_bench_run,
    .bench_check = red_bench_check,
    .bench_work = red_bench_work,
    .bench_destroy = red_bench_destroy,
};
