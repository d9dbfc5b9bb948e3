/* gemm_waves.c — work-groups per compute unit of a GEMM configuration: looked up in its tuning entry, and
 * measured (by the tuner, and by bench_gemm --waves) with products of whole waves of tiles. The planner
 * needs it to see a last wave that would leave most of the device idle (docs/gemm.md, "Waves"). */
#include "gemm_waves.h"
#include "gemm_mma.h"

#include <stdlib.h>
#include <string.h>

#define PROBE_ROWS 8      /* products of 1..8 rows of tiles per compute unit */
#define PROBE_K 512
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
                                 size_t rows, size_t n, cl_mem *buf)
{
    clf__gemm_call c = {.dtype = dt, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_NO_TRANS, .m = rows,
                        .n = n, .k = PROBE_K, .alpha = 1.0, .beta = 0.0, .a = buf[0], .lda = PROBE_K, .b = buf[1],
                        .ldb = n, .c = buf[2], .ldc = n, .batch = 1, .no_split = 1};
    if (f == &clf__family_gemm_mma) {
        int three = bucket && strcmp(bucket, "3x") == 0;
        c.tb = CLF_TRANS, c.ldb = PROBE_K, c.mma = 1, c.mma_cfg = cfg;
        if (dt != CLF_F64)
            c.dtype = CLF_F32, c.typed = 1, c.a_type = c.b_type = dt, c.c_type = CLF_F32,
            c.compute = three ? CLF_COMPUTE_3XTF32 : CLF_COMPUTE_TF32;
    }
    return c;
}

clf_status clf__gemm_measure_wg_per_cu(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                                       const clf__config *cfg, int *out, double *times)
{
    if (!ctx || !cfg || !out || (f != &clf__family_gemm && f != &clf__family_gemm_mma))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm waves probe: NULL argument or another family");
    if (ctx->info.type & CL_DEVICE_TYPE_CPU)
        return clf__fail(CLF_ERR_UNSUPPORTED, "gemm waves probe: GPUs only");
    int mma = f == &clf__family_gemm_mma;
    size_t tm = (size_t)cfg->v[mma ? CLF__MMA_BM : CLF__GEMM_MWG], tn = (size_t)cfg->v[mma ? CLF__MMA_BN : CLF__GEMM_NWG];
    size_t cu = ctx->info.compute_units ? ctx->info.compute_units : 1, esz = clf__dtype_size(dt);
    size_t m = tm * PROBE_ROWS, n = tn * cu, k = PROBE_K, csz = dt == CLF_F64 ? 8 : 4;
    size_t sizes[3] = {m * k * esz, k * n * esz, m * n * csz};
    cl_mem buf[3] = {NULL, NULL, NULL};
    clf_status s = CLF_SUCCESS;
    const float zero = 0;
    for (int i = 0; i < 3 && s == CLF_SUCCESS; i++) {   /* clf_buffer_create refuses more than max_alloc */
        s = clf_buffer_create(ctx, sizes[i], &buf[i]);
        if (s == CLF_SUCCESS)
            s = clf_fill(ctx, buf[i], 0, &zero, sizeof zero, sizes[i], NULL);
    }
    double t[PROBE_ROWS];
    for (int j = 1; j <= PROBE_ROWS && s == CLF_SUCCESS; j++) {
        clf__gemm_call call = probe_call(f, dt, bucket, cfg, tm * (size_t)j, n, buf);
        probe_run r = {ctx, &call, mma ? NULL : cfg};
        s = clf__time_median(ctx, run_probe, &r, 1, PROBE_REPS, &t[j - 1]);
    }
    for (int i = 0; i < 3; i++)
        if (buf[i])
            clReleaseMemObject(buf[i]);
    if (s != CLF_SUCCESS)
        return s;
    if (times)
        memcpy(times, t, sizeof t);
    *out = first_full_wave(t);
    return CLF_SUCCESS;
}

void clf__gemm_describe_entry(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                              const clf__config *cfg, json_t *entry)
{
    if (!bucket || strcmp(bucket, "small") == 0 || strncmp(bucket, "batched", 7) == 0)
        return;
    int per_cu = 0;
    clf__quiet_begin();
    clf_status s = clf__gemm_measure_wg_per_cu(ctx, f, dt, bucket, cfg, &per_cu, NULL);
    clf__quiet_end();
    if (s == CLF_SUCCESS)
        json_object_set_new(entry, "wg_per_cu", json_integer(per_cu));
}
