/* gemm_mma.c — the `gemm_mma` family: parameters and validity of cl/gemm_mma.cl, which devices may run it
 * (NVIDIA, compute capability >= 8.0, self-test passed), and the tuner's benchmark of it. The planner
 * (gemm_plan.c) decides when a call runs on it. */
#include "gemm_mma.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

clf__mma_mode clf__mma_wanted(const clf__gemm_call *c)
{
    if (!c->typed || c->a_type != c->b_type)
        return CLF__MMA_NONE;
    if (c->a_type == CLF_F16)
        return CLF__MMA_F16;
    if (c->a_type == CLF_BF16)
        return CLF__MMA_BF16;
    if (c->a_type == CLF_F32 && c->compute == CLF_COMPUTE_TF32)
        return CLF__MMA_TF32;
    if (c->a_type == CLF_F32 && c->compute == CLF_COMPUTE_3XTF32)
        return CLF__MMA_3XTF32;
    if (c->a_type == CLF_F32 && c->compute == CLF_COMPUTE_3XF16)
        return CLF__MMA_3XF16;
    return CLF__MMA_NONE;
}

/* What the kernel reads: 3xF16's split parts are f16. */
clf_dtype clf__mma_input_type(clf__mma_mode m)
{
    return m == CLF__MMA_F16 || m == CLF__MMA_3XF16 ? CLF_F16 : m == CLF__MMA_BF16 ? CLF_BF16 : m == CLF__MMA_F64 ? CLF_F64 : CLF_F32;
}

clf_dtype clf__mma_precision(clf__mma_mode m)
{
    return m == CLF__MMA_F16 || m == CLF__MMA_BF16 || m == CLF__MMA_3XF16 ? CLF_F16 : m == CLF__MMA_F64 ? CLF_F64 : CLF_F32;
}

int clf__mma_reads_kmajor(const clf__config *cfg, clf__mma_mode mode)
{
    const int *v = cfg->v;
    return (mode == CLF__MMA_F16 || mode == CLF__MMA_BF16) && v[CLF__MMA_ASYNC] &&
           (v[CLF__MMA_LDSM] || v[CLF__MMA_WGMMA]);
}

size_t clf__mma_words(clf__mma_mode m, size_t n) { return n * clf__dtype_size(clf__mma_input_type(m)) / 4; }

/* ---- availability ------------------------------------------------------------------------------ */

static int is_nvidia_gpu(const clf_device_info *d)
{
    return clf__device_is_nvidia(d) && (d->type & CL_DEVICE_TYPE_GPU);
}

/* Verdicts per device and mode, for the process: 0 not known yet, 1 self-test passed, -1 failed, -2 no
 * matrix units (asked of the driver once, not on every call). */
#define SELFTEST_SLOTS 16
static struct { char id[17]; int mode, state; } selftests[SELFTEST_SLOTS];
static pthread_mutex_t selftest_lock = PTHREAD_MUTEX_INITIALIZER;

static int *selftest_slot(const clf_context *ctx, clf__mma_mode mode)
{
    for (int i = 0; i < SELFTEST_SLOTS; i++) {
        if (selftests[i].id[0] == '\0') {
            memcpy(selftests[i].id, ctx->info.id, sizeof selftests[i].id);
            selftests[i].mode = (int)mode;
            return &selftests[i].state;
        }
        if (selftests[i].mode == (int)mode && memcmp(selftests[i].id, ctx->info.id, sizeof selftests[i].id) == 0)
            return &selftests[i].state;
    }
    return NULL;
}

/* Devices (ids) whose wgmma failed its self-test. Its own lock: the planner asks while a self-test, holding
 * selftest_lock, plans its product. */
static char wgmma_failed[SELFTEST_SLOTS][17];
static pthread_mutex_t wgmma_lock = PTHREAD_MUTEX_INITIALIZER;

int clf__wgmma_off(clf_context *ctx)
{
    const char *env = getenv("CLFORGE_WGMMA");
    if (env && strcmp(env, "off") == 0)
        return 1;
    int off = 0;
    pthread_mutex_lock(&wgmma_lock);
    for (int i = 0; i < SELFTEST_SLOTS && wgmma_failed[i][0] && !off; i++)
        off = memcmp(wgmma_failed[i], ctx->info.id, sizeof wgmma_failed[i]) == 0;
    pthread_mutex_unlock(&wgmma_lock);
    return off;
}

static int wgmma_turn_off(clf_context *ctx)
{
    int done = 0;
    pthread_mutex_lock(&wgmma_lock);
    for (int i = 0; i < SELFTEST_SLOTS && !done; i++)
        if (!wgmma_failed[i][0]) {
            memcpy(wgmma_failed[i], ctx->info.id, sizeof wgmma_failed[i]);
            done = 1;
        }
    pthread_mutex_unlock(&wgmma_lock);
    return done;
}

static void mma_sync_config(const clf_device_info *dev, clf_dtype dt, const char *bucket, clf__config *out);

clf_status clf__mma_config(clf_context *ctx, clf__mma_mode mode, clf__config *out, const char **origin)
{
    clf_status s = clf__config_resolve(ctx, &clf__family_gemm_mma, clf__mma_precision(mode), clf__mma_bucket(mode),
                                       out, origin);
    if (s == CLF_SUCCESS && out->v[CLF__MMA_WGMMA] && clf__wgmma_off(ctx)) {
        mma_sync_config(&ctx->info, clf__mma_precision(mode), clf__mma_bucket(mode), out);
        *origin = "default (wgmma off)";
    }
    if (s == CLF_SUCCESS && mode == CLF__MMA_3XF16 && out->v[CLF__MMA_WGMMA] && out->v[CLF__MMA_PARTS] == 1) {
        /* the f16 entry's tiles; a stage's sums in halves, as 3xTF32's entry has them */
        clf__config c = *out;
        c.v[CLF__MMA_PARTS] = 2;
        if (clf__family_gemm_mma.valid(&c, &ctx->info, CLF_F16))
            *out = c;
    }
    return s;
}

void clf__mma_sync_default(clf_context *ctx, clf__mma_mode mode, clf__config *out)
{
    mma_sync_config(&ctx->info, clf__mma_precision(mode), clf__mma_bucket(mode), out);
}

/* 1 when products in mode run wgmma on ctx's device (clf__mma_config's choice). */
static int runs_wgmma(clf_context *ctx, clf__mma_mode mode)
{
    clf__config cfg;
    const char *origin;
    return clf__mma_config(ctx, mode, &cfg, &origin) == CLF_SUCCESS && cfg.v[CLF__MMA_WGMMA];
}

/* A 96 x 80 x 64 product of small integers (exact in every mode) on the matrix units, compared exactly with
 * the host's. Partial tiles in M and N, one stage short of a tile in K for large BK: the edges are tested. B is
 * stored K x N; cfg (NULL: the configuration large products run) with a_kmajor stores A K x M too, so that a
 * configuration that reads K-major operands in place (AKM, BKN) is tested on both. */
static clf_status run_selftest_with(clf_context *ctx, clf__mma_mode mode, const clf__config *cfg_in, int a_kmajor)
{
    enum { M = 96, N = 80, K = 64 };
    /* On the heap: the caller's thread may have a small stack. */
    float *ha = malloc(M * K * sizeof *ha), *hb = malloc(K * N * sizeof *hb), *hc = malloc(M * N * sizeof *hc);
    float *hat = malloc(M * K * sizeof *hat);   /* A as stored: M x K, or K x M */
    double *hd = malloc(M * N * sizeof *hd);
    if (!ha || !hb || !hc || !hd || !hat) {
        free(ha), free(hb), free(hc), free(hd), free(hat);
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "mma self-test");
    }
    for (int i = 0; i < M * K; i++)
        ha[i] = (float)((i * 7 + 3) % 7 - 3);
    for (int i = 0; i < K * N; i++)
        hb[i] = (float)((i * 5 + 1) % 5 - 2);
    for (int i = 0; i < M * K; i++)
        hat[a_kmajor ? (i % K) * M + i / K : i] = ha[i];
    clf_dtype t = mode == CLF__MMA_3XF16 ? CLF_F32 : clf__mma_input_type(mode), ct = mode == CLF__MMA_F64 ? CLF_F64 : CLF_F32;
    size_t esz = clf__dtype_size(t);
    cl_int e;
    cl_mem fa = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, M * K * sizeof *ha, hat, &e);
    cl_mem fb = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, K * N * sizeof *hb, hb, &e);
    cl_mem a = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, M * K * esz, NULL, &e);
    cl_mem b = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, K * N * esz, NULL, &e);
    cl_mem c = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, M * N * clf__dtype_size(ct), NULL, &e);
    clf_status s = fa && fb && a && b && c ? CLF_SUCCESS : clf__fail_cl(e, "clCreateBuffer", "mma self-test");
    if (s == CLF_SUCCESS)
        s = clf_convert(ctx, CLF_F32, fa, 0, t, a, 0, M * K, NULL);
    if (s == CLF_SUCCESS)
        s = clf_convert(ctx, CLF_F32, fb, 0, t, b, 0, K * N, NULL);
    clf__gemm_call call = {.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = a_kmajor ? CLF_TRANS : CLF_NO_TRANS,
                           .tb = CLF_NO_TRANS, .m = M, .n = N, .k = K, .alpha = 1.0, .beta = 0.0, .a = a,
                           .lda = a_kmajor ? M : K, .b = b, .ldb = N,
                           .c = c, .ldc = N, .batch = 1, .typed = mode != CLF__MMA_F64, .a_type = t, .b_type = t,
                           .c_type = CLF_F32, .compute = mode == CLF__MMA_3XTF32 ? CLF_COMPUTE_3XTF32
                                      : mode == CLF__MMA_3XF16 ? CLF_COMPUTE_3XF16 : CLF_COMPUTE_TF32,
                           .mma = 1};
    if (mode == CLF__MMA_F64)
        call.dtype = CLF_F64;
    /* The configuration large products run, passed as the caller's: the planner would narrow a wgmma one's
     * tiles for a product this small (plan_mma), and the test is of what most calls will run. */
    clf__config cfg;
    const char *origin;
    if (cfg_in)
        call.mma_cfg = cfg_in;
    else if (s == CLF_SUCCESS && (s = clf__mma_config(ctx, mode, &cfg, &origin)) == CLF_SUCCESS)
        call.mma_cfg = &cfg;
    if (s == CLF_SUCCESS)
        s = clf__gemm_run(ctx, &call, NULL, CLF__GEMM_AUTO, NULL, NULL);
    if (s == CLF_SUCCESS && (e = clEnqueueReadBuffer(ctx->queue, c, CL_TRUE, 0, M * N * clf__dtype_size(ct),
                                                     ct == CLF_F64 ? (void *)hd : (void *)hc, 0, NULL, NULL)))
        s = clf__fail_cl(e, "clEnqueueReadBuffer", "mma self-test");
    for (int i = 0; ct == CLF_F64 && s == CLF_SUCCESS && i < M * N; i++)
        hc[i] = (float)hd[i];   /* exact: small integers */
    for (int i = 0; i < M && s == CLF_SUCCESS; i++)
        for (int j = 0; j < N && s == CLF_SUCCESS; j++) {
            float ref = 0;
            for (int p = 0; p < K; p++)
                ref += ha[i * K + p] * hb[p * N + j];
            if (hc[i * N + j] != ref)
                s = clf__fail(CLF_ERR_VERIFY, "C[%d][%d] = %g, expected %g", i, j, hc[i * N + j], ref);
        }
    cl_mem all[] = {fa, fb, a, b, c};
    for (int i = 0; i < 5; i++)
        if (all[i])
            clReleaseMemObject(all[i]);
    free(ha), free(hb), free(hc), free(hd), free(hat);
    const char *force = getenv("CLFORGE_MMA_SELFTEST");
    int wgmma = cfg_in ? cfg_in->v[CLF__MMA_WGMMA] : runs_wgmma(ctx, mode);
    if (s == CLF_SUCCESS && force && (strcmp(force, "fail") == 0 || (strcmp(force, "fail-wgmma") == 0 && wgmma) ||
                                      (strcmp(force, "fail-kmajor") == 0 && cfg_in && a_kmajor)))
        s = clf__fail(CLF_ERR_VERIFY, "failed on request ($CLFORGE_MMA_SELFTEST=%s)", force);
    return s;
}

/* f16 and bf16 with A stored K x M as well: configurations that read K-major operands in place are tested on both. */
static clf_status run_selftest(clf_context *ctx, clf__mma_mode mode)
{
    return run_selftest_with(ctx, mode, NULL, mode == CLF__MMA_F16 || mode == CLF__MMA_BF16);
}

/* The self-test failed: if the configuration it ran was a wgmma one, wgmma is turned off for the device and
 * the test runs again on mma.sync. selftest_lock is held. */
static clf_status retry_without_wgmma(clf_context *ctx, clf__mma_mode mode, clf_status failed)
{
    char why[512];
    snprintf(why, sizeof why, "%s", clf_last_error());
    if (!runs_wgmma(ctx, mode) || !wgmma_turn_off(ctx))
        return clf__fail(failed, "%s", why);
    clf_status s = run_selftest(ctx, mode);
    if (s == CLF_SUCCESS)
        clf__warn_once("wgmma-selftest", "wgmma failed its self-test on %s with driver %s (%s); mma.sync answers "
                       "instead", ctx->info.name, ctx->info.driver, why);
    return s;
}

int clf__mma_usable(clf_context *ctx, clf__mma_mode mode)
{
    const char *env = getenv("CLFORGE_MMA");
    if (mode == CLF__MMA_NONE || (env && strcmp(env, "off") == 0) || !is_nvidia_gpu(&ctx->info))
        return 0;
    /* The lock is held through the test: a second thread waits for the verdict instead of running it too. */
    pthread_mutex_lock(&selftest_lock);
    int *state = selftest_slot(ctx, mode);
    if (state && *state == 0 && ctx->info.nv_cc < 80)   /* compute capability 8.0: mma.sync with these shapes */
        *state = -2;
    if (state && *state == 0 && mode == CLF__MMA_3XF16 && !runs_wgmma(ctx, mode))
        *state = -2;   /* 3xF16 runs on wgmma only */
    if (state && *state == 0) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", clf_last_error());
        clf_status s = run_selftest(ctx, mode);
        if (s != CLF_SUCCESS && mode != CLF__MMA_3XF16)   /* 3xF16 failing turns off itself, not wgmma */
            s = retry_without_wgmma(ctx, mode, s);
        *state = s == CLF_SUCCESS ? 1 : -1;
        if (s != CLF_SUCCESS) {
            char key[64];
            snprintf(key, sizeof key, "mma-selftest-%d", (int)mode);
            clf__warn_once(key, "matrix units (mode %d) failed their self-test on %s with driver %s: %s; the portable "
                           "path answers instead", (int)mode, ctx->info.name, ctx->info.driver, clf_last_error());
        }
        clf__fail(CLF_SUCCESS, "%s", msg);   /* the caller's last message, as it was */
    }
    int ok = state && *state == 1;
    pthread_mutex_unlock(&selftest_lock);
    return ok;
}

int clf__mma_kmajor_config(clf_context *ctx, clf__mma_mode mode, clf__config *out, const char **origin)
{
    if (mode != CLF__MMA_F16 && mode != CLF__MMA_BF16)
        return 0;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", clf_last_error());
    int ok = clf__config_resolve(ctx, &clf__family_gemm_mma, CLF_F16, CLF__MMA_KMAJOR, out, origin) == CLF_SUCCESS &&
             clf__mma_reads_kmajor(out, mode) && clf__family_gemm_mma.valid(out, &ctx->info, CLF_F16);
    if (ok) {
        /* Its own self-test (A and B stored K-major, read in place), once per device and mode; a failure warns
         * once and such operands are packed for the "all" configuration, as before. */
        pthread_mutex_lock(&selftest_lock);
        int *state = selftest_slot(ctx, (clf__mma_mode)((int)mode | 0x100));
        if (state && *state == 0) {
            clf_status s = run_selftest_with(ctx, mode, out, 1);
            *state = s == CLF_SUCCESS ? 1 : -1;
            if (s != CLF_SUCCESS) {
                char key[64];
                snprintf(key, sizeof key, "mma-kmajor-selftest-%d", (int)mode);
                clf__warn_once(key, "matrix units (mode %d) failed the self-test of operands stored K-major on %s with "
                               "driver %s: %s; such operands are packed first instead", (int)mode, ctx->info.name,
                               ctx->info.driver, clf_last_error());
            }
        }
        ok = state && *state == 1;
        pthread_mutex_unlock(&selftest_lock);
    }
    clf__fail(CLF_SUCCESS, "%s", msg);   /* the caller's last message, as it was */
    return ok;
}

/* ---- the family descriptor ------------------------------------------------------------------- */



/* Buckets: "all" (f16, bf16, tf32) and "3x" (3xTF32: three products and a second accumulator per thread). */
const char *clf__mma_bucket(clf__mma_mode m) { return m == CLF__MMA_3XTF32 ? "3x" : "all"; }

/* The H200's best configurations (autotune/defaults/nvidia-h200.json) for every NVIDIA device: f16/bf16 on
 * three cp.async stages in swizzled local memory; tf32 and 3xTF32 on one register-staged, K-deep buffer (the
 * loads of the next stage then have a whole stage of products to land; cp.async did not help them); ldmatrix
 * fragments, 64 x 64 warp tiles (32 x 64 for 3xTF32's second accumulator); fp64 on two cp.async stages. The
 * self-test checks the configuration on each device before first use. */
static void mma_sync_config(const clf_device_info *dev, clf_dtype dt, const char *bucket, clf__config *out)
{
    memset(out, 0, sizeof *out);
    int three = bucket && strcmp(bucket, "3x") == 0;
    int v[CLF__MMA_NPARAMS] = {128, 128, dt == CLF_F32 ? 32 : 64, three ? 32 : 64, 64, 1, 1, 1, 0, 0, 4, 0, 1};
    if (dt == CLF_F16) {   /* cp.async, three 32-deep stages, swizzled: 342 against 307 TFLOP/s at 8192^3 */
        int a[CLF__MMA_NPARAMS] = {128, 128, 32, 64, 64, 1, 3, 1, 1, 1, 4, 0, 1};
        memcpy(v, a, sizeof a);
    }
    /* fp64: m16n8k16 where the hardware has it (compute capability 9.0), else m8n8k4 */
    int v64[CLF__MMA_NPARAMS] = {64, 64, 16, 32, 32, 0, 2, 0, 1, 0, dev->nv_cc >= 90 ? 16 : 4, 0, 1};
    memcpy(out->v, dt == CLF_F64 ? v64 : v, sizeof v);
}

/* Compute capability 9.0: f16/bf16 and tf32 on wgmma, 128 x 128 tiles of two warpgroups, three cp.async
 * stages (H200, 2026-12-01, scripts/gpu/h200_mma_sweep.sh: 440 and 231 TFLOP/s at 8192^3 against 335 and 145
 * on mma.sync). */
static void mma_default(const clf_device_info *dev, clf_dtype dt, const char *bucket, clf__config *out)
{
    mma_sync_config(dev, dt, bucket, out);
    if (dt == CLF_F16 && bucket && strcmp(bucket, CLF__MMA_KMAJOR) == 0) {
        /* 64 x 64 tiles, 64-deep stages, three of them: the best of four mma.sync configurations on products of
         * 32 to 512 rows with B stored K x N read in place (H200, 2026-12-01, scripts/gpu/h200_kmajor.sh); the
         * planner sends it products of up to 64 rows, where it beats wgmma (gemm_plan.c, KMAJOR_SYNC_ROWS) */
        int k[CLF__MMA_NPARAMS] = {64, 64, 64, 32, 32, 1, 3, 1, 1, 1, 4, 0, 1};
        memcpy(out->v, k, sizeof k);
        return;
    }
    if (dev->nv_cc == 90 && (dt == CLF_F16 || dt == CLF_F32)) {
        int w[CLF__MMA_NPARAMS] = {128, 128, dt == CLF_F16 ? 32 : 16, 64, 128, 0, 3, 0, 1, 1, 4, 1, 1};
        if (bucket && strcmp(bucket, "3x") == 0)   /* 3xTF32: the split operands, a stage's sums in halves */
            w[CLF__MMA_PARTS] = 2;
        memcpy(out->v, w, sizeof w);
    }
}

/* wgmma: compute capability 9.0 exactly (the sm_90a instructions are not in later architectures), f16 or tf32
 * inputs, one warpgroup per 64 x WN tile (WN 64, 128 or 256), operands by cp.async into the swizzled layout,
 * rows of 32, 64 or 128 bytes (the swizzle widths); LDSM and DK take their first values. FPIPE keeps one
 * stage's products in flight across the next stage's barrier (a second barrier a stage). */
static int wgmma_valid(const clf__config *c, const clf_device_info *dev, clf_dtype dt)
{
    int bm = c->v[CLF__MMA_BM], bn = c->v[CLF__MMA_BN], wn = c->v[CLF__MMA_WN], stages = c->v[CLF__MMA_STAGES];
    int rowb = c->v[CLF__MMA_BK] * (int)clf__dtype_size(dt), threads = (bm / 64) * (bn / wn) * 128;
    if (dev->nv_cc != 90 || dt == CLF_F64 || c->v[CLF__MMA_WM] != 64 || (wn != 64 && wn != 128 && wn != 256))
        return 0;
    if (bm % 64 || bn % wn || !c->v[CLF__MMA_ASYNC] || !c->v[CLF__MMA_SWZ] || c->v[CLF__MMA_LDSM] ||
        c->v[CLF__MMA_DK] != 4)
        return 0;
    if ((rowb != 32 && rowb != 64 && rowb != 128) || stages < 2 || threads > 1024 || (size_t)threads > dev->max_work_group)
        return 0;
    /* PARTS (3xTF32 and 3xF16 only): the stage's sums (WN / 2 / PARTS registers, twice with FPIPE, which then
     * keeps a part in flight while the previous one is added) beside the accumulators (WN / 2), and the part a valid
     * wgmma width */
    int parts = c->v[CLF__MMA_PARTS], sets = c->v[CLF__MMA_FPIPE] ? 2 : 1;
    if (parts > 1 && ((dt != CLF_F32 && dt != CLF_F16) || wn / parts < 32 || wn / 2 + sets * wn / 2 / parts > 192))
        return 0;
    return (size_t)stages * (size_t)(bm + bn) * (size_t)rowb <= dev->local_mem;
}

static int mma_valid(const clf__config *c, const clf_device_info *dev, clf_dtype dt)
{
    if (c->v[CLF__MMA_WGMMA])
        return c->v[CLF__MMA_WGMMA] == 1 && wgmma_valid(c, dev, dt);
    if (c->v[CLF__MMA_PARTS] != 1)
        return 0;
    int bm = c->v[CLF__MMA_BM], bn = c->v[CLF__MMA_BN], bk = c->v[CLF__MMA_BK];
    int wm = c->v[CLF__MMA_WM], wn = c->v[CLF__MMA_WN];
    if (bm <= 0 || bn <= 0 || bk <= 0 || wm <= 0 || wn <= 0 || bm % wm || bn % wn || wm % 16 || wn % 8)
        return 0;
    int bkw = bk * (int)clf__dtype_size(dt) / 4, threads = (bm / wm) * (bn / wn) * 32;
    if (bkw % 8 || threads < 64 || threads > 1024 || (size_t)threads > dev->max_work_group)
        return 0;
    int ldsm = c->v[CLF__MMA_LDSM], f64 = dt == CLF_F64, async = c->v[CLF__MMA_ASYNC], swz = c->v[CLF__MMA_SWZ];
    int stages = c->v[CLF__MMA_STAGES];
    if (f64 && c->v[CLF__MMA_FPIPE])   /* the fp64 loop has no fragment pipeline */
        return 0;
    int dk = c->v[CLF__MMA_DK];   /* fp64's shape; one value for the other modes, so no candidate repeats */
    if (dk != 4 && (!f64 || dk != 16 || dev->nv_cc < 90 || bk % 16))
        return 0;
    if ((ldsm && (wn % 16 || f64)) || (f64 && !dev->fp64))   /* ldmatrix fetches B two n8 tiles at a time */
        return 0;
    /* Register staging runs one or two buffers; cp.async two to four, into the natural layout (ldmatrix, or
     * fp64's loads); the swizzled layout serves ldmatrix only. */
    if (async ? stages < 2 || (!ldsm && !f64) : stages > 2)
        return 0;
    if (swz && (!ldsm || f64))
        return 0;
    int ldw = bkw + (swz ? 0 : f64 ? 8 : ldsm ? 4 : bkw % 16 == 8 ? 16 : 8);   /* as LDW in gemm_mma.cl */
    if ((size_t)stages * (size_t)(bm + bn) * (size_t)ldw * 4 > dev->local_mem)
        return 0;
    if (f64)   /* m8n8 tiles of two doubles per thread */
        return (wm / 8) * (wn / 8) * 4 <= 128;
    return (wm / 16) * (wn / 8) * 4 <= 128;   /* accumulator registers per thread */
}

/* PARTS serves 3xTF32 on wgmma only ("3x"), and there FPIPE only with more than one part: elsewhere they change
 * nothing (the kernel ignores them), and the tuner would time the same kernel again. */
static int mma_in_bucket(const clf__config *c, const char *bucket)
{
    int three = bucket && strcmp(bucket, "3x") == 0, parts = c->v[CLF__MMA_PARTS];
    if (!three || !c->v[CLF__MMA_WGMMA])
        return parts == 1;
    return parts > 1 || !c->v[CLF__MMA_FPIPE];
}

static double mma_flops(const clf__problem *p)
{
    return 2.0 * (double)p->m * (double)p->n * (double)p->k * (double)(p->batch ? p->batch : 1);
}

static double mma_bytes(const clf__problem *p)
{
    double e = (double)clf__dtype_size(p->dtype), ce = p->dtype == CLF_F64 ? 8.0 : 4.0;   /* C: fp32 or fp64 */
    double one = ((double)p->m + (double)p->n) * (double)p->k * e + (p->beta != 0.0 ? 2.0 : 1.0) * ce * (double)p->m * (double)p->n;
    return one * (double)(p->batch ? p->batch : 1);
}

/* ---- tuning hooks: a 4096^3 product in the precision's mode on random data ------------------------ */

#define NSAMPLES 256

typedef struct mma_bench {
    clf_context *ctx;
    clf__gemm_call call;
    clf__config cfg;
    double ref[NSAMPLES], tol[NSAMPLES];
    size_t si[NSAMPLES], sj[NSAMPLES];
} mma_bench;

static void bench_destroy(void *p)
{
    mma_bench *st = p;
    if (!st)
        return;
    cl_mem all[] = {st->call.a, st->call.b, st->call.c};
    for (int i = 0; i < 3; i++)
        if (all[i])
            clReleaseMemObject(all[i]);
    free(st);
}

/* What the device multiplies after its input conversion: f16 and bf16 round to nearest even (clf_convert),
 * tf32 to nearest with ties away (cvt.rna); 3xTF32 is fp32-accurate. */
static float device_value(float x, clf__mma_mode mode)
{
    if (mode == CLF__MMA_F16) {
        int e;
        frexp(x, &e);
        double q = ldexp(1.0, e - 11 < -24 ? -24 : e - 11);
        return (float)(nearbyint((double)x / q) * q);
    }
    uint32_t u;
    memcpy(&u, &x, 4);
    if (mode == CLF__MMA_TF32)
        u = (u + 0x1000u) & 0xffffe000u;
    else if (mode == CLF__MMA_BF16)
        u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    memcpy(&x, &u, 4);
    return x;
}

/* Random A (m x k) and B (n x k, or k x n when b_kmajor) in the mode's input type, and sampled references. */
static clf_status bench_data(mma_bench *st, clf__mma_mode mode, size_t m, size_t n, size_t k, int b_kmajor)
{
    clf_context *ctx = st->ctx;
    float *ha = malloc(m * k * 4), *hb = malloc(k * n * 4);
    clf_status s = ha && hb ? CLF_SUCCESS : clf__fail(CLF_ERR_OUT_OF_MEMORY, "gemm_mma bench data");
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; s == CLF_SUCCESS && i < m * k + k * n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        float v = (float)((double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0);
        if (i < m * k)
            ha[i] = v;
        else
            hb[i - m * k] = v;
    }
    float *up = b_kmajor ? malloc(k * n * 4) : hb;   /* B as stored */
    if (!up)
        s = clf__fail(CLF_ERR_OUT_OF_MEMORY, "gemm_mma bench data");
    for (size_t j = 0; s == CLF_SUCCESS && b_kmajor && j < n; j++)
        for (size_t p = 0; p < k; p++)
            up[p * n + j] = hb[j * k + p];
    cl_int e = CL_SUCCESS;
    cl_mem fa = NULL, fb = NULL;
    clf_dtype t = clf__mma_input_type(mode);
    if (s == CLF_SUCCESS) {
        fa = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, m * k * 4, ha, &e);
        fb = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, k * n * 4, up, &e);
        st->call.a = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, m * k * clf__dtype_size(t), NULL, &e);
        st->call.b = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, k * n * clf__dtype_size(t), NULL, &e);
        st->call.c = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, m * n * (mode == CLF__MMA_F64 ? 8 : 4), NULL, &e);
        if (!fa || !fb || !st->call.a || !st->call.b || !st->call.c)
            s = clf__fail_cl(e, "clCreateBuffer", "gemm_mma bench");
    }
    if (s == CLF_SUCCESS)
        s = clf_convert(ctx, CLF_F32, fa, 0, t, st->call.a, 0, m * k, NULL);
    if (s == CLF_SUCCESS)
        s = clf_convert(ctx, CLF_F32, fb, 0, t, st->call.b, 0, k * n, NULL);
    for (int i = 0; s == CLF_SUCCESS && i < NSAMPLES; i++) {
        size_t r = (size_t)i * 2654435761u % m, c = ((size_t)i * 40503u + 7) % n;
        double sum = 0, mag = 0;
        for (size_t p = 0; p < k; p++) {
            double v = (double)device_value(ha[r * k + p], mode) * device_value(hb[c * k + p], mode);   /* B is N x K */
            sum += v;
            mag += fabs(v);
        }
        st->si[i] = r, st->sj[i] = c, st->ref[i] = sum;
        st->tol[i] = 1e-5 * mag + 1e-6 * (double)k;
    }
    if (fa)
        clReleaseMemObject(fa);
    if (fb)
        clReleaseMemObject(fb);
    if (up != hb)
        free(up);
    free(ha);
    free(hb);
    return s;
}

static clf_status bench_create(clf_context *ctx, clf_dtype dt, const char *bucket, void **state)
{
    *state = NULL;
    int three = bucket && strcmp(bucket, "3x") == 0, kmajor = bucket && strcmp(bucket, CLF__MMA_KMAJOR) == 0;
    if (kmajor && dt != CLF_F16)
        return clf__fail(CLF_ERR_UNSUPPORTED, "gemm_mma bench: \"kmajor\" is a bucket of f16 (f16 and bf16)");
    clf__mma_mode mode = dt == CLF_F16 && !three ? CLF__MMA_F16
                         : dt == CLF_F32 ? (three ? CLF__MMA_3XTF32 : CLF__MMA_TF32)
                         : dt == CLF_F64 && !three ? CLF__MMA_F64 : CLF__MMA_NONE;
    if (mode == CLF__MMA_NONE)
        return clf__fail(CLF_ERR_UNSUPPORTED, "gemm_mma bench: f16 (f16 and bf16), f32 (tf32; 3xTF32 in \"3x\") and f64");
    if (!clf__mma_usable(ctx, mode))
        return clf__fail(CLF_ERR_UNSUPPORTED, "gemm_mma: no usable matrix units on \"%s\"", ctx->info.name);
    mma_bench *st = calloc(1, sizeof *st);
    if (!st)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "gemm_mma bench state");
    st->ctx = ctx;
    size_t n = kmajor ? 8192 : 4096, m = kmajor ? 64 : n, k = 4096;
    clf_dtype t = clf__mma_input_type(mode);
    /* B^T stored N x K: the layout the kernel reads in place, so the tuner times the kernel alone; "kmajor" times
     * what its products are, x W with few rows and W stored K x N (read in place, or packed first by a
     * configuration that cannot). */
    st->call = (clf__gemm_call){.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS,
                                .tb = kmajor ? CLF_NO_TRANS : CLF_TRANS, .m = m, .n = n, .k = k, .alpha = 1.0,
                                .lda = k, .ldb = kmajor ? n : k, .ldc = n, .batch = 1, .typed = 1, .a_type = t,
                                .b_type = t, .c_type = CLF_F32,
                                .compute = three ? CLF_COMPUTE_3XTF32 : CLF_COMPUTE_TF32, .mma = 1};
    if (mode == CLF__MMA_F64)
        st->call.typed = 0, st->call.dtype = CLF_F64;   /* clf_dgemm */
    clf_status s = bench_data(st, mode, m, n, k, kmajor);
    if (s != CLF_SUCCESS) {
        bench_destroy(st);
        return s;
    }
    *state = st;
    return CLF_SUCCESS;
}

static clf_status bench_run(void *p, const clf__config *cfg, cl_event *ev)
{
    mma_bench *st = p;
    st->cfg = *cfg;
    st->call.mma_cfg = &st->cfg;
    int launches = 0;
    cl_event e = NULL;
    clf_status s = clf__gemm_run(st->ctx, &st->call, NULL, CLF__GEMM_AUTO, &launches, &e);
    *ev = NULL;
    if (s == CLF_SUCCESS && launches == 1)
        *ev = e;
    else if (e)
        clReleaseEvent(e);
    return s;
}

static clf_status bench_build(void *p, const clf__config *cfg)
{
    mma_bench *st = p;
    clf__gemm_call call = st->call;
    call.mma_cfg = cfg;
    call.build_only = 1;
    return clf__gemm_run(st->ctx, &call, NULL, CLF__GEMM_AUTO, NULL, NULL);
}

static clf_status bench_check(void *p)
{
    mma_bench *st = p;
    clf_status s = CLF_SUCCESS;
    for (int i = 0; i < NSAMPLES && s == CLF_SUCCESS; i++) {
        float v32;
        double v;
        size_t at = st->si[i] * st->call.n + st->sj[i], esz = st->call.dtype == CLF_F64 ? 8 : 4;
        cl_int e = clEnqueueReadBuffer(st->ctx->queue, st->call.c, CL_TRUE, at * esz, esz,
                                       esz == 8 ? (void *)&v : (void *)&v32, 0, NULL, NULL);
        if (esz == 4)
            v = v32;
        if (e != CL_SUCCESS)
            return clf__fail_cl(e, "clEnqueueReadBuffer", "gemm_mma bench check");
        if (!(fabs(v - st->ref[i]) <= st->tol[i]))
            s = clf__fail(CLF_ERR_VERIFY, "gemm_mma: C[%zu][%zu] = %.7g, reference %.7g (tolerance %.3g)", st->si[i],
                          st->sj[i], v, st->ref[i], st->tol[i]);
    }
    return s;
}

static double bench_work(void *p)
{
    mma_bench *st = p;
    return 2.0 * (double)st->call.m * (double)st->call.n * (double)st->call.k;
}

const clf__family clf__family_gemm_mma = {
    .name = "gemm_mma",
    .nparams = CLF__MMA_NPARAMS,
    .params = {
        {"BM", 3, {64, 128, 256}},
        {"BN", 3, {64, 128, 256}},
        {"BK", 4, {8, 16, 32, 64}},
        {"WM", 3, {16, 32, 64}},
        {"WN", 6, {8, 16, 32, 64, 128, 256}},
        {"LDSM", 3, {0, 1, 2}},
        {"STAGES", 4, {1, 2, 3, 4}},
        {"FPIPE", 2, {0, 1}},
        {"ASYNC", 2, {0, 1}, 1},   /* 1: global -> local by cp.async, STAGES deep, no register staging */
        {"SWZ", 2, {0, 1}, 1},     /* 1: unpadded rows, 16-byte chunks XOR-swizzled against bank conflicts */
        {"DK", 2, {4, 16}, 1},     /* fp64: mma m8n8k4, or m16n8k16 (compute capability 9.0 on) */
        {"WGMMA", 2, {0, 1}, 1},   /* 1: warpgroup wgmma from local memory (compute capability 9.0) */
        {"PARTS", 3, {1, 2, 4}, 1},   /* 3xTF32 on wgmma: each stage summed fresh over WN / PARTS columns at a time */
    },
    .nbuckets = 3,
    .buckets = {"all", "3x", "kmajor"},
    .unit = "GFLOP/s",
    .nprecisions = 3,
    .precisions = {CLF_F16, CLF_F32, CLF_F64},   /* f16 serves f16 and bf16; f32 tf32 ("all") and 3xTF32 ("3x") */
    .default_config = mma_default,
    .valid = mma_valid,
    .in_bucket = mma_in_bucket,
    .flops = mma_flops,
    .bytes = mma_bytes,
    .bench_create = bench_create,
    .bench_run = bench_run,
    .bench_build = bench_build,
    .bench_check = bench_check,
    .bench_work = bench_work,
    .bench_destroy = bench_destroy,
};
