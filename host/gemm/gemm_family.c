/* gemm_family.c — the `gemm` kernel-family descriptor: parameters, shape buckets, per-device-type
 * defaults, the validity predicate, work formulas, and the tuner's benchmark hooks. */
#include "gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *clf__gemm_bucket(const clf_device_info *dev, size_t m, size_t n, size_t k)
{
    /* Products compared in double: m*n*k can overflow size_t. */
    double work = (double)m * (double)n * (double)k;
    /* On GPUs the direct kernel's many small work-groups beat packing up to 512^3 (H200: 13.1 against
     * 9.2 TFLOP/s at 512^3); on CPUs the packed fast kernel wins from 128^3 on (PoCL: 9.4 against
     * 6.3 GFLOP/s at 256^3, 12.5 against 6.8 at 512^3), so only tiny products stay direct there. */
    int cpu = dev && (dev->type & CL_DEVICE_TYPE_CPU);
    if (work <= (cpu ? 262144.0 /* 2^18 = 64^3 */ : 134217728.0 /* 2^27 = 512^3 */))
        return "small";
    /* On the H200 (bench/results/config-sweep-h200.json) the skinny configuration's small tiles win
     * only for 64-row products: at 256x4096x4096 the medium one runs 38.0 TFLOP/s against 28.9. */
    size_t mn_min = m < n ? m : n;
    if (mn_min < (cpu ? 512u : 128u))
        return "skinny";
    /* Thin (GPUs): 128..511 rows or columns with a long K, where the large configuration split along K
     * beat the medium one (256x4096x4096: 42.9 against 38.0 TFLOP/s; 128x8192x8192: 44.9 against
     * 36.5). Shorter K was not measured and stays with the rules below. */
    if (!cpu && mn_min < 512 && k >= 2048)
        return "thin";
    return clf__gemm_bucket_wide(dev, m, n);
}

const char *clf__gemm_bucket_wide(const clf_device_info *dev, size_t m, size_t n)
{
    /* Medium: up to 2^21 outputs (~1448^2), or on a GPU fewer 128x128 tiles than 1.75 per compute
     * unit: H200, 1000x3000x700 in 192 such tiles ran at 29.1 TFLOP/s against 35.2 in 64x128 tiles,
     * 1536^2 at 26.3 against 30.7, while 2048^2 (256 tiles) ran 46.8 against 41.0. */
    int cpu = dev && (dev->type & CL_DEVICE_TYPE_CPU);
    double mn = (double)m * (double)n;
    if (mn <= 2097152.0 || (!cpu && dev && mn < 1.75 * 16384.0 * (double)dev->compute_units))
        return "medium";
    return "large";
}

const char *clf__gemm_bucket_for(const clf_device_info *dev, size_t m, size_t n, size_t k, size_t batch)
{
    const char *b = clf__gemm_bucket(dev, m, n, k);
    int cpu = dev && (dev->type & CL_DEVICE_TYPE_CPU);
    /* Many small matrices that together are a large product: the packed kernel over one launch of batch x
     * tiles, with a configuration of its own (a "small" one per matrix would run the direct kernel). C of at
     * most 128 x 128 a matrix (attention's heads) has a bucket of its own: the large tiles that suit 256 x 256
     * leave most of such a C empty (H200: 13.4 against 27.8 TFLOP/s at 512 x 128x64x128). */
    double all = (double)m * (double)n * (double)k * (double)batch;
    if (batch > 1 && strcmp(b, "small") == 0 && all > (cpu ? 262144.0 : 134217728.0))
        return (double)m * (double)n <= (cpu ? 1024.0 : 16384.0) ? "batched_small" : "batched";
    return b;
}

/* Heuristic defaults by vendor and device type: {MWG NWG KWG MDIMC NDIMC VWM VWN KWI PADA PADB DBUF}.
 * The NVIDIA GPU rows are the best of sweeps on an H200 (docs/gemm.md, bench/results/gemm-h200-*.json;
 * thin: the shipped large entry, best in bench/results/config-sweep-h200.json);
 * the CPU rows the best of a sweep on PoCL; other GPUs get moderate tiles that fit 32 KiB of local
 * memory and 256 work-items. */
typedef struct default_row {
    int nvidia, cpu;          /* device class: NVIDIA GPU, CPU, or (both 0) any other GPU */
    clf_dtype dt;
    const char *bucket;
    int v[CLF__GEMM_NPARAMS];
} default_row;

static const default_row defaults[] = {
    {1, 0, CLF_F32, "small",  {32, 32, 32, 8, 8, 4, 4, 8, 4, 4, 1}},
    {1, 0, CLF_F32, "medium", {64, 64, 16, 8, 8, 4, 4, 8, 4, 0, 1}},
    {1, 0, CLF_F32, "large",  {128, 128, 16, 8, 16, 4, 4, 8, 4, 0, 1}},
    {1, 0, CLF_F32, "thin",   {128, 128, 16, 16, 8, 4, 2, 8, 4, 0, 1}},
    {1, 0, CLF_F32, "skinny", {32, 64, 32, 8, 16, 4, 4, 8, 4, 4, 1}},
    {1, 0, CLF_F32, "batched", {64, 64, 16, 8, 8, 4, 4, 8, 4, 0, 1}},
    {1, 0, CLF_F32, "batched_small", {64, 64, 16, 8, 8, 4, 4, 8, 4, 0, 1}},
    {1, 0, CLF_F64, "small",  {32, 32, 16, 8, 8, 2, 2, 4, 2, 2, 1}},
    {1, 0, CLF_F64, "medium", {64, 64, 16, 8, 8, 2, 2, 8, 2, 0, 1}},
    {1, 0, CLF_F64, "large",  {128, 128, 8, 16, 16, 2, 2, 8, 2, 0, 1}},
    {1, 0, CLF_F64, "thin",   {128, 128, 8, 16, 16, 2, 2, 8, 2, 0, 1}},
    {1, 0, CLF_F64, "skinny", {32, 64, 16, 8, 16, 2, 2, 8, 2, 2, 1}},
    {1, 0, CLF_F64, "batched", {64, 64, 16, 8, 8, 2, 2, 8, 2, 0, 1}},
    {1, 0, CLF_F64, "batched_small", {64, 64, 16, 8, 8, 2, 2, 8, 2, 0, 1}},
    {0, 1, CLF_F32, "small",  {32, 32, 16, 8, 8, 1, 4, 2, 0, 0, 0}},
    {0, 1, CLF_F32, NULL,     {64, 64, 16, 8, 8, 1, 4, 2, 0, 0, 0}},
    {0, 1, CLF_F64, "small",  {32, 32, 16, 8, 8, 1, 4, 2, 0, 0, 0}},
    {0, 1, CLF_F64, NULL,     {64, 64, 16, 8, 8, 1, 4, 2, 0, 0, 0}},
    {0, 0, CLF_F32, "small",  {32, 32, 16, 8, 8, 2, 2, 2, 0, 0, 1}},
    {0, 0, CLF_F32, NULL,     {64, 64, 16, 16, 16, 4, 4, 2, 0, 0, 1}},
    {0, 0, CLF_F64, "small",  {32, 32, 16, 8, 8, 2, 2, 2, 0, 0, 1}},
    {0, 0, CLF_F64, NULL,     {64, 64, 16, 16, 16, 2, 2, 2, 0, 0, 1}},
};

static void gemm_default(const clf_device_info *dev, clf_dtype dt, const char *bucket, clf__config *out)
{
    int cpu = (dev->type & CL_DEVICE_TYPE_CPU) != 0, nv = !cpu && clf__device_is_nvidia(dev);
    const char *b = bucket ? bucket : "large";
    clf_dtype d = dt == CLF_F64 ? CLF_F64 : CLF_F32;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        const default_row *r = &defaults[i];
        if (r->nvidia == nv && r->cpu == cpu && r->dt == d && (!r->bucket || strcmp(r->bucket, b) == 0)) {
            memcpy(out->v, r->v, sizeof r->v);
            return;
        }
    }
    /* An unknown bucket on an NVIDIA GPU: the large row. */
    gemm_default(dev, dt, "large", out);
}

size_t clf__gemm_local_bytes(const clf__config *cfg, size_t esz, size_t extra_a, size_t extra_b)
{
    const int *v = cfg->v;
    size_t rows = (size_t)(v[CLF__GEMM_DBUF] ? 2 : 1) * (size_t)v[CLF__GEMM_KWG];
    size_t wa = (size_t)(v[CLF__GEMM_MWG] + v[CLF__GEMM_PADA]), wb = (size_t)(v[CLF__GEMM_NWG] + v[CLF__GEMM_PADB]);
    return rows * (wa + extra_a + wb + extra_b) * esz;
}

static int gemm_valid(const clf__config *c, const clf_device_info *dev, clf_dtype dt)
{
    const int *v = c->v;
    int mwg = v[CLF__GEMM_MWG], nwg = v[CLF__GEMM_NWG], kwg = v[CLF__GEMM_KWG];
    int mdimc = v[CLF__GEMM_MDIMC], ndimc = v[CLF__GEMM_NDIMC], vwm = v[CLF__GEMM_VWM], vwn = v[CLF__GEMM_VWN];
    int kwi = v[CLF__GEMM_KWI], pada = v[CLF__GEMM_PADA], padb = v[CLF__GEMM_PADB];
    if (mwg <= 0 || nwg <= 0 || kwg <= 0 || mdimc <= 0 || ndimc <= 0 || vwm <= 0 || vwn <= 0 || kwi <= 0)
        return 0;
    int threads = mdimc * ndimc;
    if ((size_t)threads > dev->max_work_group || threads < 16)
        return 0;
    if (mwg % (mdimc * vwm) || nwg % (ndimc * vwn) || kwg % kwi)
        return 0;
    if ((kwg * mwg / vwm) % threads || (kwg * nwg / vwn) % threads)   /* whole vectors per work-item */
        return 0;
    if ((mwg + pada) % vwm || (nwg + padb) % vwn)                      /* aligned local vector access */
        return 0;
    size_t esz = dt == CLF_F64 ? 8 : 4;
    /* cl/gemm.cl pads B's local rows by 32 / KWG (BPAD_NK) for a B stored N x K when PADB is 0 and the swizzle is off */
    int bpad = padb == 0 && (mwg / mdimc) * (nwg / ndimc) > 32 && 32 % (kwg * vwn) == 0 ? 32 / kwg : 0;
    if (clf__gemm_local_bytes(c, esz, 0, (size_t)bpad) > dev->local_mem)
        return 0;
    int regs = (mwg / mdimc) * (nwg / ndimc);   /* accumulators per work-item */
    if (regs > (dt == CLF_F64 ? 64 : 128))
        return 0;
    return dt != CLF_F64 || dev->fp64;
}

double clf__gemm_problem_flops(const clf__problem *p)
{
    return 2.0 * (double)p->m * (double)p->n * (double)p->k * (double)(p->batch ? p->batch : 1);
}

double clf__gemm_problem_bytes(const clf__problem *p)
{
    double e = (double)clf__dtype_size(p->dtype);
    double c_rw = p->beta != 0.0 ? 2.0 : 1.0;   /* beta == 0: C is written, never read */
    double one = (double)p->m * (double)p->k + (double)p->k * (double)p->n + c_rw * (double)p->m * (double)p->n;
    return one * e * (double)(p->batch ? p->batch : 1);
}

/* ---- tuning hooks: a row-major NN problem of the bucket's shape on random data -------------- */

#define NSAMPLES 512

typedef struct bench_state {
    clf_context *ctx;
    clf__gemm_call call;
    clf__gemm_path path;
    double ref[NSAMPLES], tol[NSAMPLES];
    size_t si[NSAMPLES], sj[NSAMPLES];
    clf__config last;
    int have_last;
} bench_state;

static void bench_shape(const clf_device_info *dev, const char *bucket, size_t *m, size_t *n, size_t *k,
                        size_t *batch)
{
    int cpu = (dev->type & CL_DEVICE_TYPE_CPU) != 0;
    *batch = 1;
    if (strcmp(bucket, "batched") == 0) {
        *m = *n = *k = cpu ? 64 : 256;
        *batch = cpu ? 32 : 64;
    } else if (strcmp(bucket, "batched_small") == 0) {   /* attention-sized heads */
        *m = cpu ? 32 : 128;
        *n = cpu ? 32 : 96;
        *k = cpu ? 32 : 64;
        *batch = cpu ? 256 : 512;
    } else if (strcmp(bucket, "small") == 0) {
        *m = *n = *k = cpu ? 64 : 256;
    } else if (strcmp(bucket, "medium") == 0) {
        *m = *n = *k = cpu ? 640 : 1024;
    } else if (strcmp(bucket, "thin") == 0) {
        *m = 256;   /* GPUs only */
        *n = *k = 4096;
    } else if (strcmp(bucket, "skinny") == 0) {
        *m = cpu ? 128 : 64;
        *n = cpu ? 1024 : 4096;
        *k = cpu ? 1536 : 4096;
    } else if (cpu) {
        *m = *n = 2112;
        *k = 128;
    } else {
        *m = *n = *k = 4096;
    }
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void bench_destroy(void *p)
{
    bench_state *st = p;
    if (!st)
        return;
    if (st->call.a)
        clReleaseMemObject(st->call.a);
    if (st->call.b)
        clReleaseMemObject(st->call.b);
    if (st->call.c)
        clReleaseMemObject(st->call.c);
    free(st);
}

/* A buffer of `copies` copies of host's bytes (every matrix of a batched bench holds the same values, in
 * memory of its own, so that one reference serves all of them). */
static clf_status upload(clf_context *ctx, const void *host, size_t bytes, size_t copies, cl_mem *out)
{
    cl_int e;
    *out = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes * copies, NULL, &e);
    for (size_t i = 0; *out && e == CL_SUCCESS && i < copies; i++)
        e = clEnqueueWriteBuffer(ctx->queue, *out, CL_TRUE, i * bytes, bytes, host, 0, NULL, NULL);
    return *out && e == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(e, "clCreateBuffer", "gemm bench buffer of %zu bytes", bytes);
}

static clf_status bench_create(clf_context *ctx, clf_dtype dt, const char *bucket, void **state)
{
    *state = NULL;
    if (dt != CLF_F32 && dt != CLF_F64)
        return clf__fail(CLF_ERR_UNSUPPORTED, "gemm bench: f32 and f64 only");
    if (dt == CLF_F64 && !ctx->info.fp64)
        return clf__fail(CLF_ERR_UNSUPPORTED, "gemm bench: device has no fp64");
    if (bucket && strcmp(bucket, "thin") == 0 && (ctx->info.type & CL_DEVICE_TYPE_CPU))
        return clf__fail(CLF_ERR_UNSUPPORTED, "gemm bench: CPU devices have no thin bucket");
    bench_state *st = calloc(1, sizeof *st);
    if (!st)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "gemm bench state");
    st->ctx = ctx;
    const char *b = bucket ? bucket : "large";
    size_t m, n, k, batch;
    bench_shape(&ctx->info, b, &m, &n, &k, &batch);
    st->path = strcmp(b, "small") == 0 ? CLF__GEMM_DIRECT : CLF__GEMM_FAST;
    st->call = (clf__gemm_call){.dtype = dt, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_NO_TRANS,
                                .m = m, .n = n, .k = k, .alpha = 1.0, .lda = k, .ldb = n, .ldc = n, .batch = batch,
                                .stride_a = m * k, .stride_b = k * n, .stride_c = m * n};
    size_t esz = clf__dtype_size(dt);
    double *ha = malloc(m * k * sizeof(double)), *hb = malloc(k * n * sizeof(double));
    void *buf = malloc((m * k > k * n ? m * k : k * n) * esz);
    clf_status s = CLF_SUCCESS;
    if (!ha || !hb || !buf) {
        s = clf__fail(CLF_ERR_OUT_OF_MEMORY, "gemm bench data");
        goto out;
    }
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < m * k; i++)
        ha[i] = (double)(rng_next(&seed) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    for (size_t i = 0; i < k * n; i++)
        hb[i] = (double)(rng_next(&seed) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    /* The device gets the values rounded to its precision; the reference uses the same values. */
    for (int pass = 0; pass < 2 && !s; pass++) {
        double *h = pass ? hb : ha;
        size_t cnt = pass ? k * n : m * k;
        for (size_t i = 0; i < cnt; i++) {
            if (dt == CLF_F32) {
                ((float *)buf)[i] = (float)h[i];
                h[i] = (float)h[i];
            } else {
                ((double *)buf)[i] = h[i];
            }
        }
        s = upload(ctx, buf, cnt * esz, batch, pass ? &st->call.b : &st->call.a);
    }
    if (!s) {
        cl_int e;
        st->call.c = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, m * n * batch * esz, NULL, &e);
        if (!st->call.c)
            s = clf__fail_cl(e, "clCreateBuffer", "gemm bench C");
    }
    double eps = dt == CLF_F32 ? 5.96e-8 : 1.11e-16;
    for (int t = 0; t < NSAMPLES && !s; t++) {
        size_t i = t == 0 ? 0 : t == 1 ? m - 1 : rng_next(&seed) % m;
        size_t j = t == 0 ? 0 : t == 1 ? n - 1 : rng_next(&seed) % n;
        double sum = 0, mag = 0;
        for (size_t p = 0; p < k; p++) {
            sum += ha[i * k + p] * hb[p * n + j];
            mag += fabs(ha[i * k + p] * hb[p * n + j]);
        }
        st->si[t] = i;
        st->sj[t] = j;
        st->ref[t] = sum;
        st->tol[t] = 2.0 * (double)(k + 2) * eps * mag + 1e-30;
    }
out:
    free(ha);
    free(hb);
    free(buf);
    if (s) {
        bench_destroy(st);
        return s;
    }
    *state = st;
    return CLF_SUCCESS;
}

static clf_status bench_run(void *p, const clf__config *cfg, cl_event *ev)
{
    bench_state *st = p;
    *ev = NULL;
    if (!st->have_last || memcmp(&st->last, cfg, sizeof *cfg) != 0) {
        /* A new configuration first runs over poisoned C, so that unwritten elements fail the check. */
        double nan64 = NAN;
        float nan32 = NAN;
        size_t esz = clf__dtype_size(st->call.dtype);
        cl_int e = clEnqueueFillBuffer(st->ctx->queue, st->call.c, st->call.dtype == CLF_F64 ? (void *)&nan64
                                       : (void *)&nan32, esz, 0, st->call.m * st->call.n * st->call.batch * esz,
                                       0, NULL, NULL);
        if (e != CL_SUCCESS)
            return clf__fail_cl(e, "clEnqueueFillBuffer", "gemm bench poison");
        st->last = *cfg;
        st->have_last = 1;
    }
    int launches = 0;
    cl_event e = NULL;
    clf_status s = clf__gemm_run(st->ctx, &st->call, cfg, st->path, &launches, &e);
    if (s)
        return s;
    if (launches == 1)
        *ev = e;           /* one kernel: its event spans the whole run */
    else if (e)
        clReleaseEvent(e); /* packs + kernel: the caller times on the host */
    return CLF_SUCCESS;
}

/* Compiles what bench_run would run with cfg, enqueueing nothing; called from the tuner's builder
 * threads, so it touches no shared state but the (thread-safe) program cache. */
static clf_status bench_build(void *p, const clf__config *cfg)
{
    bench_state *st = p;
    clf__gemm_call call = st->call;
    call.build_only = 1;
    return clf__gemm_run(st->ctx, &call, cfg, st->path, NULL, NULL);
}

static clf_status bench_check(void *p)
{
    bench_state *st = p;
    size_t m = st->call.m, n = st->call.n, nb = st->call.batch, esz = clf__dtype_size(st->call.dtype);
    void *h = malloc(m * n * nb * esz);
    if (!h)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "gemm bench check");
    cl_int e = clEnqueueReadBuffer(st->ctx->queue, st->call.c, CL_TRUE, 0, m * n * nb * esz, h, 0, NULL, NULL);
    if (e != CL_SUCCESS) {
        free(h);
        return clf__fail_cl(e, "clEnqueueReadBuffer", "gemm bench check");
    }
    clf_status s = CLF_SUCCESS;
    for (size_t i = 0; i < m * n * nb && !s; i++) {
        double v = st->call.dtype == CLF_F64 ? ((double *)h)[i] : ((float *)h)[i];
        if (!isfinite(v))
            s = clf__fail(CLF_ERR_VERIFY, "gemm: C[%zu][%zu][%zu] = %g (not written or overflowed)", i / (m * n),
                          i % (m * n) / n, i % n, v);
    }
    for (int t = 0; t < NSAMPLES && !s; t++) {
        size_t idx = (size_t)t % nb * m * n + st->si[t] * n + st->sj[t];   /* every matrix is the same product */
        double v = st->call.dtype == CLF_F64 ? ((double *)h)[idx] : ((float *)h)[idx];
        if (fabs(v - st->ref[t]) > st->tol[t])
            s = clf__fail(CLF_ERR_VERIFY, "gemm: C[%zu][%zu] = %.9g, reference %.9g (tolerance %.3g)", st->si[t],
                          st->sj[t], v, st->ref[t], st->tol[t]);
    }
    free(h);
    return s;
}

static double bench_work(void *p)
{
    bench_state *st = p;
    return 2.0 * (double)st->call.m * (double)st->call.n * (double)st->call.k * (double)st->call.batch;
}

const clf__family clf__family_gemm = {
    .name = "gemm",
    .nparams = CLF__GEMM_NPARAMS,
    .params = {
        {"MWG", 5, {16, 32, 64, 128, 256}},
        {"NWG", 5, {16, 32, 64, 128, 256}},
        {"KWG", 4, {8, 16, 32, 64}},
        {"MDIMC", 4, {4, 8, 16, 32}},
        {"NDIMC", 4, {4, 8, 16, 32}},
        {"VWM", 4, {1, 2, 4, 8}},
        {"VWN", 4, {1, 2, 4, 8}},
        {"KWI", 5, {1, 2, 4, 8, 16}},
        {"PADA", 4, {0, 1, 2, 4}},
        {"PADB", 4, {0, 1, 2, 4}},
        {"DBUF", 2, {0, 1}},
    },
    .nbuckets = 7,
    .buckets = {"small", "medium", "large", "thin", "skinny", "batched", "batched_small"},   /* thin before skinny: on CPUs, where it
                                                                  * has no benchmark, its time flows on */
    .unit = "GFLOP/s",
    .default_config = gemm_default,
    .valid = gemm_valid,
    .flops = clf__gemm_problem_flops,
    .bytes = clf__gemm_problem_bytes,
    .bench_create = bench_create,
    .bench_run = bench_run,
    .bench_build = bench_build,
    .bench_check = bench_check,
    .bench_work = bench_work,
    .bench_destroy = bench_destroy,
};
