/* gemm_waves.c — work-groups per compute unit of a GEMM configuration, and the time a compute unit takes for
 * 1..8 tiles of it at two depths of K: looked up in its tuning entry, and measured (by the tuner, and by
 * bench_gemm --waves) with products of whole waves of tiles. The planner needs the first to see a last wave
 * that would leave most of the device idle, the second to compare tile shapes on a product (docs/gemm.md,
 * "Waves" and "Tiles chosen by their measured times"). Also the split model both planners (fp32 and matrix
 * units) cut K by: the time of a product's work-groups in waves, whole and sliced. */
#include "gemm_waves.h"
#include "gemm_mma.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_ROWS CLF__TILE_PROBE_ROWS   /* products of 1..8 rows of tiles per compute unit */
#define PROBE_K CLF__TILE_PROBE_K0
#define PROBE_REPS 5

size_t clf__gemm_wave_slots(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                            const clf__config *cfg)
{
    const char *env = getenv("CLFORGE_GEMM_WG_PER_CU");
    if (env && strcmp(env, "off") == 0)
        return 0;
    long per_cu = 0;
    if (clf__env_long("CLFORGE_GEMM_WG_PER_CU", 1, 64, &per_cu) <= 0)
        per_cu = clf__config_entry_int(ctx, f, dt, bucket, cfg, "wg_per_cu");
    if (per_cu <= 0 || per_cu > 64)
        return 0;
    return (size_t)per_cu * (ctx->info.compute_units ? ctx->info.compute_units : 1);
}

typedef struct probe_run {
    clf_context *ctx;
    const clf__gemm_call *call;
    const clf__config *cfg;
} probe_run;

/* One run for the project's timing policy (clf__time_median): the event back when the plan is one kernel. */
static clf_status run_probe(void *arg, cl_event *ev)
{
    const probe_run *r = arg;
    int launches = 0;
    cl_event done = NULL;
    clf_status s = clf__gemm_run(r->ctx, r->call, r->cfg, CLF__GEMM_FAST, &launches, &done);
    if (done && launches == 1)
        *ev = done;
    else if (done)
        clReleaseEvent(done);
    return s;
}

/* The first j after which one more row of tiles per compute unit costs nearly as much as the dearest such
 * step: a new wave begins there. Steps within a wave cost less, but not nothing (H200, 128 x 128 tiles of
 * two work-groups per unit: 0.070, 0.109, 0.201, 0.202, 0.293 ms for 1..5 rows), so a fixed threshold on
 * the first time misreads them. */
static int first_full_wave(const double *t)
{
    double most = 0;
    for (int j = 1; j < PROBE_ROWS; j++)
        most = t[j] - t[j - 1] > most ? t[j] - t[j - 1] : most;
    for (int j = 1; j < PROBE_ROWS; j++)
        if (t[j] - t[j - 1] >= 0.75 * most)
            return j;
    return PROBE_ROWS;
}

/* The probe's product of `rows` rows: the packed fp32/fp64 kernel on cfg, or (gemm_mma) the matrix units on
 * cfg in the mode of (dt, bucket), B stored N x K, never split. */
static clf__gemm_call probe_call(const clf__family *f, clf_dtype dt, const char *bucket, const clf__config *cfg,
                                 size_t rows, size_t n, size_t k, cl_mem *buf)
{
    clf__gemm_call c = {.dtype = dt, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_NO_TRANS, .m = rows,
                        .n = n, .k = k, .alpha = 1.0, .beta = 0.0, .a = buf[0], .lda = k, .b = buf[1],
                        .ldb = n, .c = buf[2], .ldc = n, .batch = 1, .no_split = 1};
    if (f == &clf__family_gemm_mma) {
        int three = bucket && strcmp(bucket, "3x") == 0;
        c.tb = CLF_TRANS, c.ldb = k, c.mma = 1, c.mma_cfg = cfg;
        if (dt != CLF_F64)
            c.dtype = CLF_F32, c.typed = 1, c.a_type = c.b_type = dt, c.c_type = CLF_F32,
            c.compute = three ? CLF_COMPUTE_3XTF32 : CLF_COMPUTE_TF32;
    }
    return c;
}

/* times[j - 1] = the median time of j rows of tiles per compute unit at depth k, j = 1..PROBE_ROWS. */
static clf_status probe_times(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                              const clf__config *cfg, size_t k, double *times)
{
    int mma = f == &clf__family_gemm_mma;
    size_t tm = (size_t)cfg->v[mma ? CLF__MMA_BM : CLF__GEMM_MWG], tn = (size_t)cfg->v[mma ? CLF__MMA_BN : CLF__GEMM_NWG];
    size_t cu = ctx->info.compute_units ? ctx->info.compute_units : 1, esz = clf__dtype_size(dt);
    size_t m = tm * PROBE_ROWS, n = tn * cu, csz = dt == CLF_F64 ? 8 : 4;
    size_t sizes[3] = {m * k * esz, k * n * esz, m * n * csz};
    cl_mem buf[3] = {NULL, NULL, NULL};
    clf_status s = CLF_SUCCESS;
    const float zero = 0;
    for (int i = 0; i < 3 && s == CLF_SUCCESS; i++) {   /* clf_buffer_create refuses more than max_alloc */
        s = clf_buffer_create(ctx, sizes[i], &buf[i]);
        if (s == CLF_SUCCESS)
            s = clf_fill(ctx, buf[i], 0, &zero, sizeof zero, sizes[i], NULL);
    }
    for (int j = 1; j <= PROBE_ROWS && s == CLF_SUCCESS; j++) {
        clf__gemm_call call = probe_call(f, dt, bucket, cfg, tm * (size_t)j, n, k, buf);
        probe_run r = {ctx, &call, mma ? NULL : cfg};
        s = clf__time_median(ctx, run_probe, &r, 1, PROBE_REPS, &times[j - 1]);
    }
    for (int i = 0; i < 3; i++)
        if (buf[i])
            clReleaseMemObject(buf[i]);
    return s;
}

static clf_status probe_check(clf_context *ctx, const clf__family *f, const clf__config *cfg, const char *what)
{
    if (!ctx || !cfg || (f != &clf__family_gemm && f != &clf__family_gemm_mma))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm %s probe: NULL argument or another family", what);
    if (ctx->info.type & CL_DEVICE_TYPE_CPU)
        return clf__fail(CLF_ERR_UNSUPPORTED, "gemm %s probe: GPUs only", what);
    return CLF_SUCCESS;
}

clf_status clf__gemm_measure_wg_per_cu(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                                       const clf__config *cfg, int *out, double *times)
{
    clf_status s = probe_check(ctx, f, cfg, "waves");
    if (s != CLF_SUCCESS)
        return s;
    if (!out)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm waves probe: NULL argument");
    double t[PROBE_ROWS];
    s = probe_times(ctx, f, dt, bucket, cfg, PROBE_K, t);
    if (s != CLF_SUCCESS)
        return s;
    if (times)
        memcpy(times, t, sizeof t);
    *out = first_full_wave(t);
    return CLF_SUCCESS;
}

clf_status clf__gemm_measure_tile_ns(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                                     const clf__config *cfg, int *ns, int *wg_per_cu)
{
    clf_status s = probe_check(ctx, f, cfg, "tile times");
    if (s != CLF_SUCCESS)
        return s;
    if (!ns)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm tile times probe: NULL argument");
    const size_t depth[2] = {CLF__TILE_PROBE_K0, CLF__TILE_PROBE_K1};
    for (int d = 0; d < 2 && s == CLF_SUCCESS; d++) {
        double t[PROBE_ROWS];
        s = probe_times(ctx, f, dt, bucket, cfg, depth[d], t);
        if (s != CLF_SUCCESS)
            break;
        if (d == 0 && wg_per_cu)
            *wg_per_cu = first_full_wave(t);   /* the waves probe's own product: no need to run it again */
        for (int i = 0; i < PROBE_ROWS; i++) {
            double x = t[i] * 1e9 + 0.5;
            ns[d * PROBE_ROWS + i] = x < 1 ? 1 : x > 999999999.0 ? 999999999 : (int)x;
        }
    }
    return s;
}

double clf__gemm_tile_time(const int *ns, int wg_per_cu, size_t per_cu, size_t k)
{
    if (per_cu == 0)
        return 0;
    int w = wg_per_cu < 1 ? 1 : wg_per_cu > PROBE_ROWS ? PROBE_ROWS : wg_per_cu;
    double t[2];
    for (int d = 0; d < 2; d++) {
        const int *row = ns + d * PROBE_ROWS;
        if (per_cu <= PROBE_ROWS) {
            t[d] = row[per_cu - 1];
        } else {   /* further waves cost what the last measured one did */
            double wave = w < PROBE_ROWS ? row[PROBE_ROWS - 1] - row[PROBE_ROWS - 1 - w] : row[PROBE_ROWS - 1];
            t[d] = row[PROBE_ROWS - 1] + (double)(per_cu - PROBE_ROWS) * wave / w;
        }
    }
    /* linear in K between (and beyond) the two depths; never under a quarter of the shallow time */
    double x = t[0] + (t[1] - t[0]) * ((double)k - CLF__TILE_PROBE_K0) / (CLF__TILE_PROBE_K1 - CLF__TILE_PROBE_K0);
    return fmax(x, 0.25 * t[0]) * 1e-9;
}

void clf__gemm_describe_entry(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                              const clf__config *cfg, json_t *entry)
{
    if (!bucket || strcmp(bucket, "small") == 0 || strncmp(bucket, "batched", 7) == 0 ||
        (ctx->info.type & CL_DEVICE_TYPE_CPU))
        return;
    int per_cu = 0, ns[2 * PROBE_ROWS], tiles = f == &clf__family_gemm;
    clf__quiet_begin();
    clf_status s = tiles ? clf__gemm_measure_tile_ns(ctx, f, dt, bucket, cfg, ns, &per_cu)
                         : clf__gemm_measure_wg_per_cu(ctx, f, dt, bucket, cfg, &per_cu, NULL);
    clf__quiet_end();
    /* null where the probe failed: a store merges the entry member by member, and an older configuration's
     * measurement must not stay beside the new one */
    /* per_cu is set once the K = 512 pass succeeded, even where the K = 2048 one then failed */
    json_object_set_new(entry, "wg_per_cu", per_cu > 0 ? json_integer(per_cu) : json_null());
    json_t *a = tiles && s == CLF_SUCCESS ? json_array() : NULL;
    for (int i = 0; a && i < 2 * PROBE_ROWS; i++)
        json_array_append_new(a, json_integer(ns[i]));
    if (tiles)
        json_object_set_new(entry, "tile_ns", a ? a : json_null());
}

/* ---- the split model ------------------------------------------------------------------------------ */

#define WAVE_SPLIT_COST 0.05  /* the tail's extra launches and partial sums, in full-K waves */

/* Time of a wave of work-groups kc deep, in full-K waves. */
static double wave_time(size_t kc, const clf__k_cut *c)
{
    return (double)(kc + c->fixed) / (double)(c->k + c->fixed);
}

/* Time of units work-groups of kc-long K each, then units more of rest, in waves of slots, in full-K waves:
 * the slices of a split run as one batched launch, the remainder as a second. */
static double split_waves(size_t units, size_t slots, const clf__k_cut *c, size_t parts)
{
    size_t kc = c->k / parts / c->grain * c->grain;
    if (kc == 0)
        return 1e30;
    size_t whole = c->k / kc, rest = c->k - whole * kc;
    double t = (double)((units * whole + slots - 1) / slots) * wave_time(kc, c);
    if (rest)
        t += (double)((units + slots - 1) / slots) * wave_time(rest, c);
    return t + (parts > 1 ? WAVE_SPLIT_COST + (double)(units * parts) / (double)slots * c->plane_cost : 0.0);
}

/* The number of slices (1: none) that runs units work-groups fastest by split_waves, over slices of at least
 * min_slice; *t gets its time. */
size_t clf__best_split(size_t units, size_t slots, const clf__k_cut *c, size_t min_slice, double *t)
{
    size_t best_parts = 1;
    double best = split_waves(units, slots, c, 1);
    for (size_t parts = 2; parts <= CLF__SPLIT_K_MAX && parts * min_slice <= c->k; parts++) {
        double tp = split_waves(units, slots, c, parts);
        if (tp < best - 1e-9) {
            best = tp;
            best_parts = parts;
        }
    }
    *t = best;
    return best_parts;
}

/* The last-wave rule of both kernels: an m x n product in bm x bn tiles, slots work-groups at once, whose last
 * wave would be partly idle. *bulk_rows gets the rows of tiles that fill whole waves; the answer is the number
 * of K slices (1: keep the plan) that runs the other rows fastest, when that beats the plain plan by CLF__WAVE_GAIN.
 * c's plane cost is for whole tiles; here it counts the share of the tail's tiles that C covers. */
size_t clf__last_wave_split(size_t m, size_t n, size_t bm, size_t bn, size_t slots, clf__k_cut c, size_t min_slice,
                            size_t *bulk_rows)
{
    size_t tm = (m + bm - 1) / bm, tn = (n + bn - 1) / bn, tiles = tm * tn;
    *bulk_rows = 0;
    if (!slots || tiles < slots || tiles % slots == 0)
        return 1;
    size_t bulk = tiles / slots * slots / tn, units = (tm - bulk) * tn;
    if (bulk == 0 || bulk >= tm)
        return 1;
    c.plane_cost *= (double)((m - bulk * bm) * n) / ((double)units * (double)bm * (double)bn);
    double t;
    size_t parts = clf__best_split(units, slots, &c, min_slice, &t);
    double plain = (double)((tiles + slots - 1) / slots), cut = (double)((bulk * tn + slots - 1) / slots) + t;
    *bulk_rows = bulk;
    return parts > 1 && cut <= CLF__WAVE_GAIN * plain ? parts : 1;
}
