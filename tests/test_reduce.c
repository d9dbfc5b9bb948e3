/* test_reduce.c — clf_reduce against a double reference: sum/max/min over rows and columns of both
 * layouts with offsets and padded leading dimensions, odd line lengths (1, 3, a 1000003-long row, many
 * short rows), NaN and inf, half-precision input, forced configurations, the softmax / layer norm / RMS norm
 * recipes of docs/reduce.md, and every error path (nothing enqueued, nothing changed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "reduce.h"
#include "testutil.h"

typedef struct mat {
    clf_layout layout;
    size_t m, n, ld, off;
    double *h;        /* values as stored (float-rounded for f32) */
    cl_mem buf;
} mat;

static size_t at(const mat *a, size_t i, size_t j)
{
    return a->off + (a->layout == CLF_ROW_MAJOR ? i * a->ld + j : j * a->ld + i);
}

/* Values scale * [-1, 1) + shift. */
static void mat_make_at(clf_context *ctx, mat *a, clf_layout lay, size_t m, size_t n, clf_dtype dt, uint64_t *rng,
                        double scale, double shift)
{
    a->layout = lay, a->m = m, a->n = n;
    size_t inner = lay == CLF_ROW_MAJOR ? n : m, outer = lay == CLF_ROW_MAJOR ? m : n;
    a->ld = inner + (size_t)((clf_test_rand(rng) + 1) * 2);
    a->off = (size_t)((clf_test_rand(rng) + 1) * 3);
    size_t total = a->off + outer * a->ld + 2;
    a->h = malloc(total * sizeof(double));
    void *raw = malloc(total * clf__dtype_size(dt));
    for (size_t i = 0; i < total; i++) {
        double v = clf_test_rand(rng) * scale + shift;
        if (dt == CLF_F32) ((float *)raw)[i] = (float)v, v = (float)v;
        else ((double *)raw)[i] = v;
        a->h[i] = v;
    }
    a->buf = clf_test_buffer(ctx, total * clf__dtype_size(dt), raw);
    free(raw);
}

static void mat_make(clf_context *ctx, mat *a, clf_layout lay, size_t m, size_t n, clf_dtype dt, uint64_t *rng)
{
    mat_make_at(ctx, a, lay, m, n, dt, rng, 3, 0);
}

static void mat_free(mat *a)
{
    clReleaseMemObject(a->buf);
    free(a->h);
}

/* Element j of line l. */
static double line_at(const mat *a, clf_reduce_axis ax, size_t l, size_t j)
{
    return a->h[ax == CLF_REDUCE_ROWS ? at(a, l, j) : at(a, j, l)];
}

/* sum of x*x then r/len, max or min of x: reference and check of every line. */
static void check_reduce(clf_context *ctx, clf_layout lay, clf_reduce_axis ax, clf_reduce_op op, size_t m, size_t n,
                         clf_dtype dt, uint64_t *rng)
{
    mat a;
    mat_make(ctx, &a, lay, m, n, dt, rng);
    size_t lines = ax == CLF_REDUCE_ROWS ? m : n, len = ax == CLF_REDUCE_ROWS ? n : m, es = clf__dtype_size(dt);
    size_t oo = 2, ob = (oo + lines + 2) * es;
    unsigned char *before = malloc(ob), *after = malloc(ob);
    for (size_t i = 0; i < ob; i++) before[i] = (unsigned char)(i * 13 + 7);
    cl_mem out = clf_test_buffer(ctx, ob, before);
    clf_reduce_desc d = {.layout = lay, .m = m, .n = n, .axis = ax, .op = op,
                         .pre = op == CLF_REDUCE_SUM ? "x*x" : NULL, .post = op == CLF_REDUCE_SUM ? "r/len" : NULL,
                         .x_type = dt, .x = a.buf, .x_off = a.off, .ldx = a.ld, .out_type = dt, .out = out,
                         .out_off = oo};
    clf_status s = clf_reduce(ctx, &d, NULL, 0, NULL);
    ck_assert_msg(s == CLF_SUCCESS, "%zux%zu: %s", m, n, clf_last_error());
    clf_test_read(ctx, out, ob, after);
    for (size_t i = 0; i < ob; i++)
        if (i < oo * es || i >= (oo + lines) * es)
            ck_assert_msg(after[i] == before[i], "byte %zu outside out changed", i);
    for (size_t l = 0; l < lines; l++) {
        double want = op == CLF_REDUCE_SUM ? 0 : op == CLF_REDUCE_MAX ? -INFINITY : INFINITY, mag = 0;
        for (size_t j = 0; j < len; j++) {
            double v = line_at(&a, ax, l, j);
            if (op == CLF_REDUCE_SUM) want += v * v, mag += v * v;
            else want = op == CLF_REDUCE_MAX ? fmax(want, v) : fmin(want, v);
        }
        if (op == CLF_REDUCE_SUM) want /= (double)len, mag /= (double)len;
        double got = dt == CLF_F32 ? ((float *)after)[oo + l] : ((double *)after)[oo + l];
        double tol = op == CLF_REDUCE_SUM ? (dt == CLF_F32 ? 2e-5 : 1e-12) * mag : 0;
        ck_assert_msg(fabs(got - want) <= tol, "%s %s op %d %zux%zu %s: line %zu is %.9g, expected %.9g",
                      lay == CLF_ROW_MAJOR ? "row-major" : "col-major", ax == CLF_REDUCE_ROWS ? "rows" : "cols", op, m,
                      n, clf__dtype_name(dt), l, got, want);
    }
    clReleaseMemObject(out);
    free(before), free(after);
    mat_free(&a);
}

static const size_t shapes[][2] = {{1, 1}, {3, 1}, {1, 3}, {5, 1000}, {1000, 3}, {77, 129}, {300, 17}, {2, 4099}};

/* Case _i: one (layout, axis, op); every shape; f64 on some. */
START_TEST(lines)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    clf_layout lay = _i & 1 ? CLF_COL_MAJOR : CLF_ROW_MAJOR;
    clf_reduce_axis ax = _i & 2 ? CLF_REDUCE_COLS : CLF_REDUCE_ROWS;
    clf_reduce_op op = (clf_reduce_op)(_i / 4);
    uint64_t rng = 17 + (uint64_t)_i;
    for (int d = 0; d < nc; d++) {
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            check_reduce(ctxs[d], lay, ax, op, shapes[k][0], shapes[k][1], CLF_F32, &rng);
        if (clf_context_device(ctxs[d])->fp64)
            check_reduce(ctxs[d], lay, ax, op, 33, 1001, CLF_F64, &rng);
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* One 1000003-long row, and 100000 rows of 3 (many lines per work-group). */
START_TEST(long_and_many_short)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    uint64_t rng = 3;
    for (int d = 0; d < nc; d++) {
        check_reduce(ctxs[d], CLF_ROW_MAJOR, CLF_REDUCE_ROWS, CLF_REDUCE_SUM, 1, 1000003, CLF_F32, &rng);
        check_reduce(ctxs[d], CLF_COL_MAJOR, CLF_REDUCE_COLS, CLF_REDUCE_MAX, 1000003, 1, CLF_F32, &rng);
        check_reduce(ctxs[d], CLF_ROW_MAJOR, CLF_REDUCE_ROWS, CLF_REDUCE_SUM, 100000, 3, CLF_F32, &rng);
        check_reduce(ctxs[d], CLF_ROW_MAJOR, CLF_REDUCE_COLS, CLF_REDUCE_MIN, 3, 100000, CLF_F32, &rng);
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* Corners of the configuration space (CLFORGE_REDUCE_CONFIG), and every default valid on every device. */
START_TEST(configurations)
{
    static const char *cfgs[] = {"WG=32 LPL=1 UNR=1", "WG=64 LPL=16 UNR=2", "WG=256 LPL=256 UNR=8",
                                 "WG=128 LPL=2 UNR=4"};
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    uint64_t rng = 11;
    for (int d = 0; d < nc; d++) {
        const clf_device_info *dev = clf_context_device(ctxs[d]);
        for (int b = 0; b < clf__family_reduce.nbuckets; b++) {
            clf__config c;
            clf__family_reduce.default_config(dev, CLF_F32, clf__family_reduce.buckets[b], &c);
            ck_assert(clf__family_reduce.valid(&c, dev, CLF_F32));
        }
        for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
            setenv("CLFORGE_REDUCE_CONFIG", cfgs[c], 1);
            check_reduce(ctxs[d], CLF_ROW_MAJOR, CLF_REDUCE_ROWS, CLF_REDUCE_SUM, 37, 1001, CLF_F32, &rng);
            check_reduce(ctxs[d], CLF_ROW_MAJOR, CLF_REDUCE_COLS, CLF_REDUCE_MAX, 1001, 37, CLF_F32, &rng);
        }
        unsetenv("CLFORGE_REDUCE_CONFIG");
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* Runs a reduction of the rows of a row-major rows x cols f32 matrix held in host memory; returns out. */
static void reduce_rows(clf_context *ctx, clf_reduce_op op, const char *post, const float *x, size_t rows,
                        size_t cols, float *out)
{
    cl_mem xb = clf_test_buffer(ctx, rows * cols * 4, x), ob = clf_test_buffer(ctx, rows * 4, NULL);
    clf_reduce_desc d = {.layout = CLF_ROW_MAJOR, .m = rows, .n = cols, .axis = CLF_REDUCE_ROWS, .op = op,
                         .post = post, .x_type = CLF_F32, .x = xb, .ldx = cols, .out_type = CLF_F32, .out = ob};
    ck_assert_msg(clf_reduce(ctx, &d, NULL, 0, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    clf_test_read(ctx, ob, rows * 4, out);
    clReleaseMemObject(xb), clReleaseMemObject(ob);
}

/* Asserts whether the planner sends d to a kernel that reads each line once: the line kernel (CPUs) or the row
 * kernel (want 1 or 0; -1: not checked). */
static void rowk_plan_check(clf_context *ctx, const clf_reduce_desc *d, const clf_map_arg *a, size_t na, int want)
{
    red_plan pl;
    ck_assert_msg(clf__red_plan_make(ctx, d, a, na, &pl) == CLF_SUCCESS, "%s", clf_last_error());
    clf__config cfg;
    clf__red_row rg;
    ck_assert(clf__config_resolve(ctx, &clf__family_reduce, CLF_F32, pl.bucket, &cfg, NULL) == CLF_SUCCESS);
    int got = clf__red_line_ok(&pl, &cfg, &ctx->info) ||
              (!strcmp(pl.bucket, "fused") && clf__red_row_geom(&pl, &cfg, &ctx->info, &rg));
    ck_assert_msg(want < 0 || got == want, "%zu x %zu: one-pass kernel %d, expected %d", d->m, d->n, got, want);
    clf__red_plan_free(&pl);
}

/* One-call softmax and layer norm of the rows of nan_and_inf's x (the row kernel, rows fit its registers):
 * softmax is NaN on rows with a NaN and on the row of only -inf, NaN at +inf elements and 0 elsewhere on rows
 * with a +inf; layer norm is NaN on every row (each has a NaN or an infinity). */
static void one_pass_nan(clf_context *ctx, const float *x, size_t rows, size_t cols)
{
    cl_mem xb = clf_test_buffer(ctx, rows * cols * 4, x), yb = clf_test_buffer(ctx, rows * cols * 4, NULL);
    float *y = malloc(rows * cols * 4);
    clf_reduce_desc d = {.layout = CLF_ROW_MAJOR, .m = rows, .n = cols, .axis = CLF_REDUCE_ROWS, .op = CLF_REDUCE_LSE,
                         .post = "1 / rsum", .write = "exp(x - rmax) * r", .x_type = CLF_F32, .x = xb, .ldx = cols,
                         .y_type = CLF_F32, .y = yb, .ldy = cols};
    rowk_plan_check(ctx, &d, NULL, 0, 1);
    ck_assert_msg(clf_reduce(ctx, &d, NULL, 0, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    clf_test_read(ctx, yb, rows * cols * 4, y);
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < cols; j++) {
            float v = y[r * cols + j], xv = x[r * cols + j];
            int nan_row = r == 0 || r == 1 || r == 4 || r == 5;
            if (nan_row || xv == INFINITY)
                ck_assert_msg(isnan(v), "softmax (%zu, %zu) = %g, expected NaN", r, j, v);
            else if (r == 2 || r == 3)
                ck_assert_msg(v == 0, "softmax (%zu, %zu) = %g, expected 0", r, j, v);
        }
    d.op = CLF_REDUCE_MOMENTS, d.post = "rsqrt(var)", d.write = "(x - mean) * r";
    ck_assert_msg(clf_reduce(ctx, &d, NULL, 0, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    clf_test_read(ctx, yb, rows * cols * 4, y);
    for (size_t i = 0; i < rows * cols; i++)
        ck_assert_msg(isnan(y[i]), "layer norm element %zu = %g, expected NaN", i, y[i]);
    clReleaseMemObject(xb), clReleaseMemObject(yb);
    free(y);
}

/* NaN anywhere: sum, max and min are NaN. inf and -inf: sum NaN, max inf, min -inf. All -inf: max -inf. */
START_TEST(nan_and_inf)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    enum { R = 6, C = 301 };
    static float x[R * C];
    for (int d = 0; d < nc; d++) {
        for (int i = 0; i < R * C; i++) x[i] = (float)(i % 17) - 8;
        x[0 * C + 0] = NAN;          /* row 0: NaN first */
        x[1 * C + C - 1] = NAN;      /* row 1: NaN last */
        x[2 * C + 150] = INFINITY, x[2 * C + 7] = -INFINITY;
        x[3 * C + 9] = INFINITY;
        for (int j = 0; j < C; j++) x[4 * C + j] = -INFINITY;
        x[5 * C + 200] = NAN, x[5 * C + 3] = INFINITY;
        float sum[R], mx[R], mn[R];
        reduce_rows(ctxs[d], CLF_REDUCE_SUM, NULL, x, R, C, sum);
        reduce_rows(ctxs[d], CLF_REDUCE_MAX, NULL, x, R, C, mx);
        reduce_rows(ctxs[d], CLF_REDUCE_MIN, NULL, x, R, C, mn);
        for (int r = 0; r < 2; r++) ck_assert(isnan(sum[r]) && isnan(mx[r]) && isnan(mn[r]));
        ck_assert(isnan(sum[2]) && mx[2] == INFINITY && mn[2] == -INFINITY);
        ck_assert(sum[3] == INFINITY && mx[3] == INFINITY && mn[3] == -8);
        ck_assert(sum[4] == -INFINITY && mx[4] == -INFINITY && mn[4] == -INFINITY);
        ck_assert(isnan(sum[5]) && isnan(mx[5]) && isnan(mn[5]));
        /* lse: NaN propagates; +inf gives +inf; all -inf gives -inf (an empty sum of exp). moments: a NaN or an
         * infinity makes mean and var NaN. */
        float lse[R], mean[R], var[R];
        reduce_rows(ctxs[d], CLF_REDUCE_LSE, NULL, x, R, C, lse);
        reduce_rows(ctxs[d], CLF_REDUCE_MOMENTS, NULL, x, R, C, mean);
        reduce_rows(ctxs[d], CLF_REDUCE_MOMENTS, "var", x, R, C, var);
        for (int r = 0; r < 6; r++)
            ck_assert_msg(isnan(mean[r]) && isnan(var[r]), "row %d: mean %g var %g", r, mean[r], var[r]);
        ck_assert(isnan(lse[0]) && isnan(lse[1]) && isnan(lse[5]));
        ck_assert_msg(lse[2] == INFINITY && lse[3] == INFINITY && lse[4] == -INFINITY, "%g %g %g", lse[2], lse[3],
                      lse[4]);
        one_pass_nan(ctxs[d], x, R, C);
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* f16 and bf16 input, f32 sums; f16 output of a max. */
START_TEST(half_input)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    enum { R = 33, C = 517 };
    static uint16_t h[R * C];
    for (int i = 0; i < R * C; i++) h[i] = (uint16_t)(0x3c00 + (i % 97) * 3);   /* f16 values in [1, 2) */
    for (int d = 0; d < nc; d++) {
        cl_mem xb = clf_test_buffer(ctxs[d], sizeof h, h), ob = clf_test_buffer(ctxs[d], R * 4, NULL);
        clf_reduce_desc dd = {.layout = CLF_ROW_MAJOR, .m = R, .n = C, .axis = CLF_REDUCE_ROWS, .op = CLF_REDUCE_SUM,
                              .x_type = CLF_F16, .x = xb, .ldx = C, .out_type = CLF_F32, .out = ob};
        ck_assert_msg(clf_reduce(ctxs[d], &dd, NULL, 0, NULL) == CLF_SUCCESS, "%s", clf_last_error());
        float got[R];
        clf_test_read(ctxs[d], ob, sizeof got, got);
        for (int r = 0; r < R; r++) {
            double want = 0;
            for (int j = 0; j < C; j++) want += 1 + ((r * C + j) % 97) * 3 / 1024.0;
            ck_assert_msg(fabs(got[r] - want) <= 1e-5 * want, "row %d: %g, expected %g", r, got[r], want);
        }
        dd.x_type = CLF_BF16, dd.op = CLF_REDUCE_MAX, dd.out_type = CLF_F16;
        ck_assert_msg(clf_reduce(ctxs[d], &dd, NULL, 0, NULL) == CLF_SUCCESS, "%s", clf_last_error());
        uint16_t gh[R];
        clf_test_read(ctxs[d], ob, sizeof gh, gh);
        for (int r = 0; r < R; r++) {   /* bf16 0x3cXX values are below 0.032: f16 normal, exact in f16? check */
            uint16_t mxb = 0;
            for (int j = 0; j < C; j++) mxb = h[r * C + j] > mxb ? h[r * C + j] : mxb;
            uint32_t u = (uint32_t)mxb << 16;
            float f;
            memcpy(&f, &u, 4);
            float back = 0;
            int e = (gh[r] >> 10) & 31, mnt = gh[r] & 1023;
            back = e ? ldexpf((float)(mnt + 1024), e - 25) : ldexpf((float)mnt, -24);
            ck_assert_msg(fabsf(back - f) <= f / 1024, "row %d: %g, expected %g", r, back, f);
        }
        /* RMS norm from f16 x into bf16 y (one rounding of the fp32 result), no out. */
        cl_mem yb = clf_test_buffer(ctxs[d], sizeof h, NULL);
        clf_reduce_desc rn = {.layout = CLF_ROW_MAJOR, .m = R, .n = C, .axis = CLF_REDUCE_ROWS, .op = CLF_REDUCE_SUM,
                              .pre = "x*x", .post = "rsqrt(r / len)", .write = "x * r", .x_type = CLF_F16, .x = xb,
                              .ldx = C, .y_type = CLF_BF16, .y = yb, .ldy = C};
        ck_assert_msg(clf_reduce(ctxs[d], &rn, NULL, 0, NULL) == CLF_SUCCESS, "%s", clf_last_error());
        static uint16_t yh[R * C];
        clf_test_read(ctxs[d], yb, sizeof yh, yh);
        for (int r = 0; r < R; r++) {
            double ss = 0;
            for (int j = 0; j < C; j++) {
                double v = 1 + ((r * C + j) % 97) * 3 / 1024.0;
                ss += v * v;
            }
            for (int j = 0; j < C; j++) {
                double want = (1 + ((r * C + j) % 97) * 3 / 1024.0) / sqrt(ss / C);
                uint32_t u = (uint32_t)yh[r * C + j] << 16;
                float yv;
                memcpy(&yv, &u, 4);
                ck_assert_msg(fabs(yv - want) <= want / 256 + 1e-6, "rms row %d col %d: %g, expected %g", r, j, yv, want);
            }
        }
        clReleaseMemObject(yb);
        clReleaseMemObject(xb), clReleaseMemObject(ob);
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* The recipes of docs/reduce.md on a rows x cols matrix (ax ROWS: each row normalised; COLS: each column). */
typedef struct recipe_fix {
    clf_context *ctx;
    mat a;
    size_t lines, len;
    clf_reduce_axis ax;
    cl_mem y, v1, v2, g, b;   /* y like x; per-line vectors; per-position vectors */
    double *gh, *bh;
} recipe_fix;

static void fix_init_at(recipe_fix *f, clf_context *ctx, clf_reduce_axis ax, size_t m, size_t n, uint64_t *rng,
                        double scale, double shift)
{
    memset(f, 0, sizeof *f);
    f->ctx = ctx, f->ax = ax;
    mat_make_at(ctx, &f->a, CLF_ROW_MAJOR, m, n, CLF_F32, rng, scale, shift);
    f->lines = ax == CLF_REDUCE_ROWS ? m : n, f->len = ax == CLF_REDUCE_ROWS ? n : m;
    size_t ysz = (f->a.off + m * f->a.ld + 2) * 4;
    f->y = clf_test_buffer(ctx, ysz, NULL);
    f->v1 = clf_test_buffer(ctx, f->lines * 4, NULL), f->v2 = clf_test_buffer(ctx, f->lines * 4, NULL);
    float *gb = malloc(f->len * 4 * 2);
    f->gh = malloc(f->len * sizeof(double)), f->bh = malloc(f->len * sizeof(double));
    for (size_t j = 0; j < f->len; j++) {
        gb[j] = (float)(1 + clf_test_rand(rng) / 2), gb[f->len + j] = (float)clf_test_rand(rng);
        f->gh[j] = gb[j], f->bh[j] = gb[f->len + j];
    }
    f->g = clf_test_buffer(ctx, f->len * 4, gb), f->b = clf_test_buffer(ctx, f->len * 4, gb + f->len);
    free(gb);
}

static void fix_init(recipe_fix *f, clf_context *ctx, clf_reduce_axis ax, size_t m, size_t n, uint64_t *rng)
{
    fix_init_at(f, ctx, ax, m, n, rng, 3, 0);
}

static void fix_free(recipe_fix *f)
{
    mat_free(&f->a);
    clReleaseMemObject(f->y), clReleaseMemObject(f->v1), clReleaseMemObject(f->v2);
    clReleaseMemObject(f->g), clReleaseMemObject(f->b);
    free(f->gh), free(f->bh);
}

static clf_reduce_desc fix_desc(const recipe_fix *f, clf_reduce_op op, cl_mem out, int in_place)
{
    clf_reduce_desc d = {.layout = CLF_ROW_MAJOR, .m = f->a.m, .n = f->a.n, .axis = f->ax, .op = op,
                         .x_type = CLF_F32, .x = f->a.buf, .x_off = f->a.off, .ldx = f->a.ld,
                         .out_type = CLF_F32, .out = out, .y_type = CLF_F32, .y = in_place ? f->a.buf : f->y,
                         .y_off = f->a.off, .ldy = f->a.ld};
    return d;
}

/* kind 0 softmax, 1 layer norm, 2 RMS norm: y from the double reference, within tol of |y| + 1. */
static void check_recipe(recipe_fix *f, int kind, cl_mem ybuf, double eps)
{
    size_t ysz = (f->a.off + f->a.m * f->a.ld + 2);
    float *y = malloc(ysz * 4);
    clf_test_read(f->ctx, ybuf, ysz * 4, y);
    double *row = malloc(f->len * sizeof(double));
    for (size_t l = 0; l < f->lines; l++) {
        double mx = -INFINITY, s = 0, mu = 0, var = 0;
        for (size_t j = 0; j < f->len; j++) row[j] = line_at(&f->a, f->ax, l, j), mx = fmax(mx, row[j]);
        for (size_t j = 0; j < f->len; j++) s += exp(row[j] - mx), mu += row[j], var += row[j] * row[j];
        mu /= (double)f->len;
        double ms = var / (double)f->len;
        var = 0;
        for (size_t j = 0; j < f->len; j++) var += (row[j] - mu) * (row[j] - mu);
        var /= (double)f->len;
        for (size_t j = 0; j < f->len; j++) {
            double want = kind == 0 ? exp(row[j] - mx) / s
                        : kind == 1 ? (row[j] - mu) / sqrt(var + eps) * f->gh[j] + f->bh[j]
                                    : row[j] / sqrt(ms + eps) * f->gh[j];
            size_t i = f->ax == CLF_REDUCE_ROWS ? at(&f->a, l, j) : at(&f->a, j, l);
            ck_assert_msg(fabs(y[i] - want) <= 2e-5 * (fabs(want) + (kind == 0 ? 0.01 : 1)),
                          "recipe %d line %zu elem %zu: %.9g, expected %.9g", kind, l, j, y[i], want);
        }
    }
    free(y), free(row);
}

static void run_recipes(recipe_fix *f)
{
    clf_arg_kind line_kind = f->ax == CLF_REDUCE_ROWS ? CLF_ARG_ROW : CLF_ARG_COL;
    clf_arg_kind pos_kind = f->ax == CLF_REDUCE_ROWS ? CLF_ARG_COL : CLF_ARG_ROW;
    double eps = 1e-5;
    /* softmax: m = max(x); y = exp(x - m) / sum(exp(x - m)) */
    clf_reduce_desc d1 = fix_desc(f, CLF_REDUCE_MAX, f->v1, 0);
    clf_reduce_desc d2 = fix_desc(f, CLF_REDUCE_SUM, NULL, 0);
    d2.pre = "exp(x - m)", d2.post = "1 / r", d2.write = "exp(x - m) * r";
    clf_map_arg sm[1] = {{.name = "m", .kind = line_kind, .dtype = CLF_F32, .buffer = f->v1}};
    ck_assert_msg(clf_reduce(f->ctx, &d1, NULL, 0, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    ck_assert_msg(clf_reduce(f->ctx, &d2, sm, 1, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    check_recipe(f, 0, f->y, eps);
    /* layer norm: mu = sum(x)/len; y = (x - mu) * rsqrt(sum((x - mu)^2)/len + eps) * g + b */
    clf_reduce_desc l1 = fix_desc(f, CLF_REDUCE_SUM, f->v1, 0);
    l1.post = "r / len";
    clf_reduce_desc l2 = fix_desc(f, CLF_REDUCE_SUM, f->v2, 0);
    l2.pre = "(x - mu) * (x - mu)", l2.post = "rsqrt(r / len + eps)", l2.write = "(x - mu) * r * g + b";
    clf_map_arg la[4] = {{.name = "mu", .kind = line_kind, .dtype = CLF_F32, .buffer = f->v1},
                         {.name = "eps", .kind = CLF_ARG_SCALAR, .value = eps},
                         {.name = "g", .kind = pos_kind, .dtype = CLF_F32, .buffer = f->g},
                         {.name = "b", .kind = pos_kind, .dtype = CLF_F32, .buffer = f->b}};
    ck_assert_msg(clf_reduce(f->ctx, &l1, NULL, 0, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    ck_assert_msg(clf_reduce(f->ctx, &l2, la, 4, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    check_recipe(f, 1, f->y, eps);
    /* RMS norm, one call, in place: x = x * rsqrt(sum(x^2)/len + eps) * g */
    clf_reduce_desc r1 = fix_desc(f, CLF_REDUCE_SUM, NULL, 1);
    r1.pre = "x * x", r1.post = "rsqrt(r / len + eps)", r1.write = "x * r * g";
    ck_assert_msg(clf_reduce(f->ctx, &r1, la + 1, 2, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    check_recipe(f, 2, f->a.buf, eps);
}

START_TEST(recipes)
{
    static const size_t sz[][2] = {{64, 1000}, {1, 3}, {1000, 5}, {7, 4099}};
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    uint64_t rng = 23;
    for (int d = 0; d < nc; d++)
        for (size_t k = 0; k < sizeof sz / sizeof sz[0]; k++)
            for (int ax = 0; ax < 2; ax++) {
                recipe_fix f;
                clf_reduce_axis a = ax ? CLF_REDUCE_COLS : CLF_REDUCE_ROWS;
                fix_init(&f, ctxs[d], a, ax ? sz[k][1] : sz[k][0], ax ? sz[k][0] : sz[k][1], &rng);
                run_recipes(&f);
                fix_free(&f);
            }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* The statistics of line l in double: maximum, sum of exp(x - max), mean, population variance. */
static void line_stats(const recipe_fix *f, size_t l, double st[4])
{
    double mx = -INFINITY, s = 0, mu = 0, var = 0;
    for (size_t j = 0; j < f->len; j++) mx = fmax(mx, line_at(&f->a, f->ax, l, j)), mu += line_at(&f->a, f->ax, l, j);
    mu /= (double)f->len;
    for (size_t j = 0; j < f->len; j++) {
        double v = line_at(&f->a, f->ax, l, j);
        s += exp(v - mx), var += (v - mu) * (v - mu);
    }
    st[0] = mx, st[1] = s, st[2] = mu, st[3] = var / (double)f->len;
}

/* One-call softmax (lse) and layer norm (moments) on values scale * [-1, 1) + shift: y, and the per-line
 * results out (log-sum-exp; 1 / deviation), against double. A float mean of values near shift is off by up
 * to half an ulp of shift, which moves (x - mean) / deviation by that over the deviation: the tolerance. */
static void check_one_pass(recipe_fix *f, int kind)
{
    clf_arg_kind pos_kind = f->ax == CLF_REDUCE_ROWS ? CLF_ARG_COL : CLF_ARG_ROW;
    double eps = 1e-5;
    clf_reduce_desc d = fix_desc(f, kind ? CLF_REDUCE_MOMENTS : CLF_REDUCE_LSE, NULL, 0);
    clf_reduce_desc o = fix_desc(f, kind ? CLF_REDUCE_MOMENTS : CLF_REDUCE_LSE, f->v1, 0);
    clf_reduce_desc v = fix_desc(f, CLF_REDUCE_MOMENTS, f->v2, 0);
    d.post = kind ? "rsqrt(var + eps)" : "1 / rsum";
    d.write = kind ? "(x - mean) * r * g + b" : "exp(x - rmax) * r";
    v.post = "var";
    clf_map_arg la[3] = {{.name = "eps", .kind = CLF_ARG_SCALAR, .value = eps},
                         {.name = "g", .kind = pos_kind, .dtype = CLF_F32, .buffer = f->g},
                         {.name = "b", .kind = pos_kind, .dtype = CLF_F32, .buffer = f->b}};
    ck_assert_msg(clf_reduce(f->ctx, &d, kind ? la : NULL, kind ? 3 : 0, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    ck_assert_msg(clf_reduce(f->ctx, &o, NULL, 0, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    ck_assert_msg(!kind || clf_reduce(f->ctx, &v, NULL, 0, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    size_t ysz = f->a.off + f->a.m * f->a.ld + 2;
    float *y = malloc(ysz * 4), *r1 = malloc(f->lines * 4), *r2 = malloc(f->lines * 4);
    clf_test_read(f->ctx, f->y, ysz * 4, y);
    clf_test_read(f->ctx, f->v1, f->lines * 4, r1);
    if (kind) clf_test_read(f->ctx, f->v2, f->lines * 4, r2);
    for (size_t l = 0; l < f->lines; l++) {
        double st[4];
        line_stats(f, l, st);
        double lse = st[0] + log(st[1]), sd = sqrt(st[3] + eps), mtol = fabs(st[2]) * 0x1p-24 + 1e-6 * sd;
        if (kind) {
            ck_assert_msg(fabs(r1[l] - st[2]) <= 2 * mtol, "line %zu: mean %.9g, expected %.9g", l, r1[l], st[2]);
            ck_assert_msg(fabs(r2[l] - st[3]) <= 1e-5 * st[3] + 1e-6, "line %zu: var %.9g, expected %.9g", l, r2[l],
                          st[3]);
        } else {
            ck_assert_msg(fabs(r1[l] - lse) <= 1e-6 * fabs(lse) + 1e-5, "line %zu: lse %.9g, expected %.9g", l, r1[l],
                          lse);
        }
        for (size_t j = 0; j < f->len; j++) {
            double xv = line_at(&f->a, f->ax, l, j);
            double want = kind ? (xv - st[2]) / sd * f->gh[j] + f->bh[j] : exp(xv - st[0]) / st[1];
            double tol = kind ? 2e-5 * (fabs(want) + 1) + 2 * mtol / sd * fabs(f->gh[j]) : 2e-5 * (fabs(want) + 0.01);
            size_t i = f->ax == CLF_REDUCE_ROWS ? at(&f->a, l, j) : at(&f->a, j, l);
            ck_assert_msg(fabs(y[i] - want) <= tol, "%s line %zu elem %zu: %.9g, expected %.9g",
                          kind ? "layer norm" : "softmax", l, j, y[i], want);
        }
    }
    free(y), free(r1), free(r2);
}

/* One call each for softmax (values near 1e4: exp of an unshifted value would overflow) and layer norm
 * (values 1e6 +- 100: E[x^2] - E[x]^2 in float would lose every digit), rows and columns, lines short,
 * odd, held in registers and longer than that. */
START_TEST(one_pass)
{
    static const size_t sz[][2] = {{64, 1000}, {1, 3}, {1000, 5}, {7, 4099}, {3, 20011}, {5, 1}};
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    uint64_t rng = 29;
    for (int d = 0; d < nc; d++)
        for (size_t k = 0; k < sizeof sz / sizeof sz[0]; k++)
            for (int c = 0; c < 4; c++) {
                recipe_fix f;
                clf_reduce_axis a = c & 1 ? CLF_REDUCE_COLS : CLF_REDUCE_ROWS;
                int kind = c >> 1;
                fix_init_at(&f, ctxs[d], a, c & 1 ? sz[k][1] : sz[k][0], c & 1 ? sz[k][0] : sz[k][1], &rng,
                            kind ? 100 : 3, kind ? 1e6 : 1e4);
                check_one_pass(&f, kind);
                fix_free(&f);
            }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* The row kernel (bucket "fused"): a row-major rows x cols matrix at element offset off with leading dimension
 * ld (multiples of 4: whole vectors; else element by element), one call of kind 0 softmax (lse, with the
 * log-sum-exp in out), 1 layer norm (moments, g and b), 2 RMS norm (sum, g), 3 x - max (max); y against double,
 * y's padding unchanged. want_rowk: whether the planner must pick the row kernel (-1: not checked). */
/* goff: where g and b start in their buffers; ydelta: y starts that much further into its buffer than x (x and y
 * starting their lines equally far past a vector boundary read misaligned lines whole vectors at a time, in the
 * aligned frame; else the vectors narrow). */
typedef struct rowk_case { size_t rows, cols, off, ld, goff, ydelta; int kind, want_rowk; } rowk_case;

static double rowk_want(const rowk_case *c, const double *x, const double *g, const double *b, size_t j, double *st)
{
    switch (c->kind) {
    case 0: return exp(x[j] - st[0]) / st[1];
    case 1: return (x[j] - st[2]) / sqrt(st[3] + 1e-5) * g[j] + b[j];
    case 2: return x[j] / sqrt(st[4] / (double)c->cols + 1e-5) * g[j];
    default: return x[j] - st[0];
    }
}

/* Statistics of one line in double: max, sum of exp(x - max), mean, variance, sum of squares. */
static void rowk_stats(const double *x, size_t n, double st[5])
{
    double mx = -INFINITY, s = 0, mu = 0, var = 0, ss = 0;
    for (size_t j = 0; j < n; j++) mx = fmax(mx, x[j]), mu += x[j], ss += x[j] * x[j];
    mu /= (double)n;
    for (size_t j = 0; j < n; j++) s += exp(x[j] - mx), var += (x[j] - mu) * (x[j] - mu);
    st[0] = mx, st[1] = s, st[2] = mu, st[3] = var / (double)n, st[4] = ss;
}

static void check_rowk(clf_context *ctx, const rowk_case *c, uint64_t *rng)
{
    size_t total = c->off + c->rows * c->ld + 5 + c->ydelta, yo = c->off + c->ydelta;
    size_t glen = c->goff + c->cols;
    float *hx = malloc(total * 4), *hy = malloc(total * 4), *gb = calloc(glen * 2, 4), *lse = malloc(c->rows * 4);
    double *xd = malloc(c->cols * sizeof(double)), *gd = malloc(c->cols * 16), *bd = gd + c->cols;
    for (size_t i = 0; i < total; i++) hx[i] = (float)(clf_test_rand(rng) * 3 + (c->kind == 1 ? 50 : 0)), hy[i] = -7;
    for (size_t j = 0; j < c->cols; j++)
        gd[j] = gb[c->goff + j] = (float)(1 + clf_test_rand(rng) / 2),
        bd[j] = gb[glen + c->goff + j] = (float)clf_test_rand(rng);
    cl_mem x = clf_test_buffer(ctx, total * 4, hx), y = clf_test_buffer(ctx, total * 4, hy);
    cl_mem g = clf_test_buffer(ctx, glen * 4, gb), b = clf_test_buffer(ctx, glen * 4, gb + glen);
    cl_mem out = clf_test_buffer(ctx, c->rows * 4, NULL);
    static const clf_reduce_op ops[] = {CLF_REDUCE_LSE, CLF_REDUCE_MOMENTS, CLF_REDUCE_SUM, CLF_REDUCE_MAX};
    static const char *post[] = {"1 / rsum", "rsqrt(var + eps)", "rsqrt(r / len + eps)", NULL};
    static const char *write[] = {"exp(x - rmax) * r", "(x - mean) * r * g + b", "x * r * g", "x - r"};
    clf_reduce_desc d = {.layout = CLF_ROW_MAJOR, .m = c->rows, .n = c->cols, .axis = CLF_REDUCE_ROWS,
                         .op = ops[c->kind], .post = post[c->kind], .write = write[c->kind], .x_type = CLF_F32,
                         .x = x, .x_off = c->off, .ldx = c->ld, .out_type = CLF_F32, .out = c->kind ? NULL : out,
                         .y_type = CLF_F32, .y = y, .y_off = yo, .ldy = c->ld};
    clf_map_arg a[3] = {{.name = "eps", .kind = CLF_ARG_SCALAR, .value = 1e-5},
                        {.name = "g", .kind = CLF_ARG_COL, .dtype = CLF_F32, .buffer = g, .offset = c->goff},
                        {.name = "b", .kind = CLF_ARG_COL, .dtype = CLF_F32, .buffer = b, .offset = c->goff}};
    size_t na = c->kind == 1 ? 3 : c->kind == 2 ? 2 : 0;
    if (c->kind == 0) d.post = "rmax + log(rsum)", d.write = "exp(x - r)";   /* out: the log-sum-exp */
    if (c->kind == 2) d.pre = "x * x";
    rowk_plan_check(ctx, &d, a, na, c->want_rowk);
    ck_assert_msg(clf_reduce(ctx, &d, a, na, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    clf_test_read(ctx, y, total * 4, hy);
    if (c->kind == 0) clf_test_read(ctx, out, c->rows * 4, lse);
    for (size_t i = 0; i < total; i++) {
        size_t r = (i - yo) / c->ld, j = (i - yo) % c->ld;
        if (i < yo || r >= c->rows || j >= c->cols)
            ck_assert_msg(hy[i] == -7, "%zu x %zu ld %zu off %zu: padding element %zu written", c->rows, c->cols,
                          c->ld, c->off, i);
    }
    for (size_t r = 0; r < c->rows; r++) {
        double st[5];
        for (size_t j = 0; j < c->cols; j++) xd[j] = hx[c->off + r * c->ld + j];
        rowk_stats(xd, c->cols, st);
        if (c->kind == 0)
            ck_assert_msg(fabs(lse[r] - (st[0] + log(st[1]))) <= 1e-5 * (fabs(st[0]) + 1), "row %zu: lse %g", r,
                          lse[r]);
        for (size_t j = 0; j < c->cols; j++) {
            double want = rowk_want(c, xd, gd, bd, j, st), got = hy[yo + r * c->ld + j];
            ck_assert_msg(fabs(got - want) <= 2e-5 * (fabs(want) + (c->kind == 0 ? 0.01 : 1)),
                          "kind %d %zu x %zu ld %zu off %zu: (%zu, %zu) = %.9g, expected %.9g", c->kind, c->rows,
                          c->cols, c->ld, c->off, r, j, got, want);
        }
    }
    clReleaseMemObject(x), clReleaseMemObject(y), clReleaseMemObject(g), clReleaseMemObject(b);
    clReleaseMemObject(out);
    free(hx), free(hy), free(gb), free(lse), free(xd), free(gd);
}

/* Forced configurations of the fused bucket (and the default), lines of 1 to WG * 64 elements (64 floats per
 * work-item), 384 and 768 (the team halves), WG * 64 + 1 (the team and work-group widen), and one longer than
 * 64 x clf__red_row_wg_max (the generic kernel), aligned and not, every kind. */
START_TEST(row_kernel)
{
    static const char *cfgs[] = {"WG=64 LPL=64 VEC=4 UNR=2", "WG=32 LPL=8 VEC=2 UNR=4", "WG=128 LPL=128 VEC=1 UNR=1",
                                 NULL};
    static const int wgs[] = {64, 32, 128, 0};
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    uint64_t rng = 31;
    for (int d = 0; d < nc; d++)
        for (int k = 0; k < 4; k++) {
            if (cfgs[k])
                setenv("CLFORGE_REDUCE_CONFIG", cfgs[k], 1);
            size_t wg = (size_t)wgs[k], most = 64 * (size_t)clf__red_row_wg_max(clf_context_device(ctxs[d]));
            /* 384 and 768: vectors that the configured team does not divide evenly and half of it does (the
             * planner halves the team) */
            size_t lens[] = {1, 3, 1000, 8193, 384, 768, wg * 64, wg * 64 + 1, most + 1};
            for (size_t i = 0; i < (wg ? 9u : 6u); i++) {
                int aligned = (int)(i + (size_t)k) % 2 == 0;
                rowk_case c = {.rows = lens[i] > 4000 ? 3 : 7, .cols = lens[i], .off = aligned ? 8 : 3,
                               .goff = i % 3 == 1 ? 4 : i % 3 == 2 ? 2 : 1,
                               .ydelta = i % 4 == 3 ? 2 : i % 4 == 1 ? 4 : 0,
                               .kind = (int)(i + (size_t)k) % 4, .want_rowk = !wg ? -1 : lens[i] <= most};
                c.ld = c.cols + (aligned ? (4 - c.cols % 4) % 4 + 4 : 1);
                check_rowk(ctxs[d], &c, &rng);
            }
            unsetenv("CLFORGE_REDUCE_CONFIG");
        }
    /* The frame turned off (lines off the boundary one element a load), and a value that is not understood (warns
     * once, counts as unset): the same answers */
    setenv("CLFORGE_REDUCE_CONFIG", "WG=64 LPL=64 VEC=4 UNR=2", 1);
    for (int v = 0; v < 2; v++) {
        setenv("CLFORGE_REDUCE_FRAME", v ? "sometimes" : "off", 1);
        for (int d = 0; d < nc; d++) {
            rowk_case c = {.rows = 5, .cols = 1001, .off = 1, .ld = 1003, .goff = 1, .kind = 1, .want_rowk = 1};
            check_rowk(ctxs[d], &c, &rng);
        }
    }
    unsetenv("CLFORGE_REDUCE_FRAME");
    unsetenv("CLFORGE_REDUCE_CONFIG");
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

static void rms_typed(clf_context *ctx, clf_dtype xt, clf_dtype yt);

/* Lines split across work-groups (CLFORGE_REDUCE_SPLIT=on: any device, any line longer than one group's chunk),
 * every kind, aligned and not, with the block (chunks a block) at its default, 1 (rounded up to a line) and more
 * than the chunks: each line's chunks must meet whatever order the groups start in. */
START_TEST(split_lines)
{
    static const char *cfgs[] = {NULL, "WG=32 LPL=32 VEC=4 UNR=2"};
    static const char *blocks[] = {NULL, "1", "1000000", "5"};
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    uint64_t rng = 77;
    setenv("CLFORGE_REDUCE_SPLIT", "on", 1);
    for (int d = 0; d < nc; d++)
        for (int k = 0; k < 2; k++) {
            if (cfgs[k])
                setenv("CLFORGE_REDUCE_CONFIG", cfgs[k], 1);
            const size_t lens[] = {2 * 32 * 64 + 1, 5003, 20000, 32 * 64 * 3};
            for (size_t i = 0; i < 4; i++) {
                if (blocks[i])
                    setenv("CLFORGE_REDUCE_SPLIT_BLOCK", blocks[i], 1);
                int aligned = (int)(i + (size_t)k) % 2 == 0;
                rowk_case c = {.rows = 3 + i, .cols = lens[i], .off = aligned ? 8 : 3, .goff = i % 2 ? 2 : 4,
                               .ydelta = i == 1 ? 1 : 0, .kind = (int)(i + (size_t)k) % 4, .want_rowk = -1};
                c.ld = c.cols + (aligned ? (4 - c.cols % 4) % 4 + 4 : 1);
                check_rowk(ctxs[d], &c, &rng);
                unsetenv("CLFORGE_REDUCE_SPLIT_BLOCK");
            }
            unsetenv("CLFORGE_REDUCE_CONFIG");
        }
    /* Storage types and fp64 states (24 bytes) through split lines: RMS norm of lines of 1028 in groups of 16 */
    setenv("CLFORGE_REDUCE_CONFIG", "WG=16 LPL=16 VEC=4 UNR=1", 1);
    for (int d = 0; d < nc; d++) {
        rms_typed(ctxs[d], CLF_F16, CLF_BF16);
        if (clf_context_device(ctxs[d])->fp64)
            rms_typed(ctxs[d], CLF_F64, CLF_F64);
    }
    unsetenv("CLFORGE_REDUCE_CONFIG");
    /* Values that are not understood warn once and count as unset: the call still answers right */
    setenv("CLFORGE_REDUCE_CONFIG", "WG=32 LPL=32 VEC=4 UNR=1", 1);   /* lines of 20000: 10 chunks of 2048 */
    for (int bad = 0; bad < 2; bad++) {
        setenv("CLFORGE_REDUCE_SPLIT", bad ? "on" : "sometimes", 1);
        setenv("CLFORGE_REDUCE_SPLIT_BLOCK", bad ? "-3x" : "8", 1);
        for (int d = 0; d < nc; d++) {
            rowk_case c = {.rows = 2, .cols = 20000, .off = 8, .ld = 20008, .goff = 4, .kind = 1, .want_rowk = -1};
            check_rowk(ctxs[d], &c, &rng);
        }
    }
    unsetenv("CLFORGE_REDUCE_CONFIG");
    unsetenv("CLFORGE_REDUCE_SPLIT_BLOCK");
    unsetenv("CLFORGE_REDUCE_SPLIT");
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* Storage types through the row kernel's whole vectors (lines aligned to 4 elements, or past that in the aligned
 * frame): RMS norm of x in one type into y in another. Values 1 + k/128 are exact in every type; y within half an
 * ulp of its type. */
static double stored_to_double(clf_dtype t, const void *p, size_t i)
{
    if (t == CLF_F32) return ((const float *)p)[i];
    if (t == CLF_F64) return ((const double *)p)[i];
    uint16_t h = ((const uint16_t *)p)[i];
    if (t == CLF_BF16) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    int e = (h >> 10) & 31, mnt = h & 1023;
    return e ? ldexp(mnt + 1024, e - 25) : ldexp(mnt, -24);
}

/* At element offset off with leading dimension ld (lines past a vector boundary: the aligned frame). */
static void rms_typed_at(clf_context *ctx, clf_dtype xt, clf_dtype yt, size_t off, size_t ld)
{
    enum { R = 5, C = 1028 };
    const size_t OFF = off, LD = ld, TOTAL = OFF + R * LD;
    size_t xs = clf__dtype_size(xt), ys = clf__dtype_size(yt);
    unsigned char *hx = malloc(TOTAL * xs), *hy = malloc(TOTAL * ys);
    double *v = malloc(TOTAL * sizeof(double));
    for (size_t i = 0; i < TOTAL; i++) {
        int k = (int)((i * 7 + i / LD * 3) % 128);
        v[i] = 1 + k / 128.0;
        if (xt == CLF_F32) ((float *)hx)[i] = (float)v[i];
        else if (xt == CLF_F64) ((double *)hx)[i] = v[i];
        else ((uint16_t *)hx)[i] = (uint16_t)(xt == CLF_BF16 ? 0x3f80 + k : 0x3c00 + 8 * k);
    }
    cl_mem x = clf_test_buffer(ctx, TOTAL * xs, hx), y = clf_test_buffer(ctx, TOTAL * ys, NULL);
    clf_reduce_desc d = {.layout = CLF_ROW_MAJOR, .m = R, .n = C, .axis = CLF_REDUCE_ROWS, .op = CLF_REDUCE_SUM,
                         .pre = "x * x", .post = "rsqrt(r / len)", .write = "x * r", .x_type = xt, .x = x,
                         .x_off = OFF, .ldx = LD, .y_type = yt, .y = y, .y_off = OFF, .ldy = LD};
    rowk_plan_check(ctx, &d, NULL, 0, 1);
    ck_assert_msg(clf_reduce(ctx, &d, NULL, 0, NULL) == CLF_SUCCESS, "%s", clf_last_error());
    clf_test_read(ctx, y, TOTAL * ys, hy);
    double tol = yt == CLF_F16 ? 1.0 / 1500 : yt == CLF_BF16 ? 1.0 / 200 : yt == CLF_F32 ? 1e-6 : 1e-13;
    for (size_t r = 0; r < R; r++) {
        double ss = 0;
        for (size_t j = 0; j < C; j++) ss += v[OFF + r * LD + j] * v[OFF + r * LD + j];
        for (size_t j = 0; j < C; j++) {
            double want = v[OFF + r * LD + j] / sqrt(ss / C), got = stored_to_double(yt, hy, OFF + r * LD + j);
            ck_assert_msg(fabs(got - want) <= tol * want, "%s -> %s (%zu, %zu): %.9g, expected %.9g",
                          clf__dtype_name(xt), clf__dtype_name(yt), r, j, got, want);
        }
    }
    clReleaseMemObject(x), clReleaseMemObject(y);
    free(hx), free(hy), free(v);
}

static void rms_typed(clf_context *ctx, clf_dtype xt, clf_dtype yt) { rms_typed_at(ctx, xt, yt, 4, 1028 + 4); }

START_TEST(row_kernel_types)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    for (int d = 0; d < nc; d++) {
        rms_typed(ctxs[d], CLF_F16, CLF_F16);
        rms_typed(ctxs[d], CLF_BF16, CLF_F32);
        rms_typed(ctxs[d], CLF_F32, CLF_BF16);
        rms_typed_at(ctxs[d], CLF_F16, CLF_F16, 3, 1029);
        rms_typed_at(ctxs[d], CLF_BF16, CLF_F32, 1, 1031);
        if (clf_context_device(ctxs[d])->fp64) rms_typed(ctxs[d], CLF_F64, CLF_F64);
        if (clf_context_device(ctxs[d])->fp64) rms_typed_at(ctxs[d], CLF_F64, CLF_F64, 2, 1030);
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* Every bad input: the status, a message naming it, no event, out unchanged. */
static void expect_fail(clf_context *ctx, const clf_reduce_desc *d, const clf_map_arg *args, size_t nargs, int status,
                        const char *msg, cl_mem out)
{
    float before[8], after[8];
    clf_test_read(ctx, out, sizeof before, before);
    cl_event ev = (cl_event)1;
    clf_status s = clf_reduce(ctx, d, args, nargs, &ev);
    ck_assert_msg((int)s == status, "'%s': got %s (%s)", msg, clf_status_name(s), clf_last_error());
    ck_assert_msg(strstr(clf_last_error(), msg) != NULL, "message '%s' lacks '%s'", clf_last_error(), msg);
    ck_assert_ptr_null(ev);
    ck_assert_int_eq(clf_finish(ctx), CLF_SUCCESS);
    clf_test_read(ctx, out, sizeof after, after);
    ck_assert(memcmp(before, after, sizeof before) == 0);
}

START_TEST(errors)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    for (int k = 0; k < nc; k++) {
        clf_context *ctx = ctxs[k];
        float init[64];
        for (int i = 0; i < 64; i++) init[i] = (float)i;
        cl_mem x = clf_test_buffer(ctx, sizeof init, init), out = clf_test_buffer(ctx, sizeof init, init);
        cl_mem vec = clf_test_buffer(ctx, 8 * 4, init);
        clf_reduce_desc ok = {.layout = CLF_ROW_MAJOR, .m = 8, .n = 8, .axis = CLF_REDUCE_ROWS, .op = CLF_REDUCE_SUM,
                              .x_type = CLF_F32, .x = x, .ldx = 8, .out_type = CLF_F32, .out = out};
        clf_reduce_desc d = ok;
        d.ldx = 7;
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "ldx (7) is smaller than the row length 8", out);
        d = ok, d.m = 9;
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "x", out);
        d = ok, d.x_off = 1;
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "x", out);
        d = ok, d.op = (clf_reduce_op)7;
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "op 7 is unknown", out);
        d = ok, d.axis = (clf_reduce_axis)5;
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "axis 5", out);
        d = ok, d.layout = (clf_layout)3;
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "layout 3", out);
        d = ok, d.pre = "x +* 2";
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_PARSE, "pre: 1:", out);
        d = ok, d.post = "foo(r)";
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_PARSE, "post: 1:1: unknown function 'foo'", out);
        d = ok, d.post = "x";
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "post cannot read 'x'", out);
        d = ok, d.pre = "r";
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "pre cannot read 'r'", out);
        d = ok, d.pre = "x * q";
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "no argument for 'q'", out);
        d = ok, d.pre = "y = x; z = x";
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_PARSE, "pre", out);
        d = ok, d.out = NULL;
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "nothing to compute", out);
        d = ok, d.out = x;
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "out overlaps x", out);
        d = ok, d.out_off = 60;
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "out", out);
        d = ok, d.write = "x * 2", d.y = x, d.y_type = CLF_F32, d.y_off = 1, d.ldy = 7, d.m = 7, d.n = 7;
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "y overlaps x", out);
        d = ok, d.x_type = (clf_dtype)9;
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_UNSUPPORTED, "unknown storage type 9", out);
        d = ok, d.pre = "x * s";
        clf_map_arg a1[1] = {{.name = "s", .kind = CLF_ARG_BUFFER, .dtype = CLF_F32, .buffer = vec}};
        expect_fail(ctx, &d, a1, 1, CLF_ERR_INVALID_ARG, "use CLF_ARG_SCALAR, CLF_ARG_ROW or CLF_ARG_COL", out);
        clf_map_arg a2[2] = {{.name = "s", .kind = CLF_ARG_SCALAR, .value = 2},
                             {.name = "t", .kind = CLF_ARG_SCALAR, .value = 2}};
        expect_fail(ctx, &d, a2, 2, CLF_ERR_INVALID_ARG, "'t' is not used", out);
        clf_map_arg a3[1] = {{.name = "x", .kind = CLF_ARG_SCALAR, .value = 2}};
        expect_fail(ctx, &d, a3, 1, CLF_ERR_INVALID_ARG, "reserved name", out);
        d = ok, d.m = 16, d.n = 4, d.ldx = 4, d.pre = "x * s";
        clf_map_arg a4[1] = {{.name = "s", .kind = CLF_ARG_ROW, .dtype = CLF_F32, .buffer = vec}};
        expect_fail(ctx, &d, a4, 1, CLF_ERR_INVALID_ARG, "s", out);
        d = ok, d.post = "r * s";
        clf_map_arg a5[1] = {{.name = "s", .kind = CLF_ARG_COL, .dtype = CLF_F32, .buffer = vec}};
        expect_fail(ctx, &d, a5, 1, CLF_ERR_INVALID_ARG, "post cannot read 's'", out);
        d = ok, d.pre = "x - s";
        clf_map_arg a6[1] = {{.name = "s", .kind = CLF_ARG_ROW, .dtype = CLF_F32, .buffer = out, .offset = 4}};
        expect_fail(ctx, &d, a6, 1, CLF_ERR_INVALID_ARG, "argument 's' overlaps out", out);
        d = ok, d.op = CLF_REDUCE_MOMENTS, d.pre = "x - mean";
        clf_map_arg a7[1] = {{.name = "mean", .kind = CLF_ARG_SCALAR, .value = 2}};
        expect_fail(ctx, &d, a7, 1, CLF_ERR_INVALID_ARG, "reserved name", out);
        d = ok, d.op = CLF_REDUCE_LSE, d.pre = "x - rmax";
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "pre cannot read 'rmax'", out);
        d = ok, d.post = "var";
        expect_fail(ctx, &d, NULL, 0, CLF_ERR_INVALID_ARG, "no argument for 'var'", out);
        expect_fail(ctx, NULL, NULL, 0, CLF_ERR_INVALID_ARG, "must be non-NULL", out);
        /* No lines: nothing runs, an event when asked. */
        d = ok, d.m = 0;
        cl_event ev = NULL;
        ck_assert_int_eq(clf_reduce(ctx, &d, NULL, 0, &ev), CLF_SUCCESS);
        ck_assert_ptr_nonnull(ev);
        clWaitForEvents(1, &ev), clReleaseEvent(ev);
        clReleaseMemObject(x), clReleaseMemObject(out), clReleaseMemObject(vec);
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* The tuner's problems: a check before any run fails, the heuristic's run passes; the fused bucket's two parts
 * (softmax, layer norm with g and b) are both checked, so a configuration that breaks either fails. */
START_TEST(tuning_problems)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    const clf__family *f = &clf__family_reduce;
    for (int d = 0; d < nc; d++) {
        const clf_device_info *dev = clf_context_device(ctxs[d]);
        for (int b = 0; b < f->nbuckets; b++) {
            clf__config c;
            f->default_config(dev, CLF_F32, f->buckets[b], &c);
            void *st = NULL;
            ck_assert_msg(f->bench_create(ctxs[d], CLF_F32, f->buckets[b], &st) == CLF_SUCCESS, "%s", clf_last_error());
            ck_assert(f->bench_work(st) > 0);
            if (!strcmp(f->buckets[b], "fused"))
                ck_assert_int_eq(f->bench_check(st), CLF_ERR_VERIFY);
            cl_event ev = NULL;
            ck_assert_msg(f->bench_run(st, &c, &ev) == CLF_SUCCESS, "%s", clf_last_error());
            ck_assert_int_eq(clFinish(clf_context_queue(ctxs[d])), CL_SUCCESS);
            if (ev)
                clReleaseEvent(ev);
            ck_assert_msg(f->bench_check(st) == CLF_SUCCESS, "%s %s: %s", dev->name, f->buckets[b], clf_last_error());
            f->bench_destroy(st);
        }
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reduce");
    TCase *tc = clf_test_tcase("lines");
    tcase_add_loop_test(tc, lines, 0, 12);
    suite_add_tcase(s, tc);
    CLF_TEST_ALONE(s, long_and_many_short);
    CLF_TEST_ALONE(s, configurations);
    CLF_TEST_ALONE(s, nan_and_inf);
    CLF_TEST_ALONE(s, half_input);
    CLF_TEST_ALONE(s, recipes);
    CLF_TEST_ALONE(s, one_pass);
    CLF_TEST_ALONE(s, row_kernel);
    CLF_TEST_ALONE(s, row_kernel_types);
    CLF_TEST_ALONE(s, split_lines);
    CLF_TEST_ALONE(s, errors);
    CLF_TEST_ALONE(s, tuning_problems);
    return clf_test_run(s);
}
