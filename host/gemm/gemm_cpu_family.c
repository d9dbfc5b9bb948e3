/* gemm_cpu_family.c — the `gemm_cpu` kernel-family descriptor (cl/gemm_cpu.cl): parameters, defaults shaped
 * to the device's SIMD width, the validity predicate (register budget), work formulas and the tuner's hooks
 * (a square row-major product on random data, checked on sampled entries). */
#include "gemm_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Vector registers of a SIMD width: AVX-512 and the 16-byte ISAs (NEON, SVE-128) have 32, AVX/AVX2 16. */
static int vector_registers(size_t simd) { return simd == 32 ? 16 : 32; }

/* Accumulators must fit the vector registers with room for the B row and the broadcast of A: beyond that
 * they spill, and such candidates are left out of the space rather than timed (each PoCL build takes
 * seconds). */
static int fits_registers(const clf__config *c, const clf_device_info *dev, clf_dtype dt)
{
    int mr = c->v[CLF__CPU_MR], vw = c->v[CLF__CPU_VW], nv = c->v[CLF__CPU_NV];
    size_t simd = clf__cpu_simd_bytes(dev), esz = dt == CLF_F64 ? 8 : 4;
    int per_vec = (int)(((size_t)vw * esz + simd - 1) / simd);   /* registers per rvec */
    return (mr * nv + nv) * per_vec + 1 <= vector_registers(simd);
}

static int cpu_valid(const clf__config *c, const clf_device_info *dev, clf_dtype dt)
{
    const int *v = c->v;
    if (v[CLF__CPU_MR] <= 0 || v[CLF__CPU_NV] <= 0 || v[CLF__CPU_MI] <= 0 || v[CLF__CPU_NI] <= 0 ||
        v[CLF__CPU_KC] <= 0 || (v[CLF__CPU_VW] != 4 && v[CLF__CPU_VW] != 8 && v[CLF__CPU_VW] != 16))
        return 0;
    return fits_registers(c, dev, dt) && (dt != CLF_F64 || dev->fp64);
}

/* BLIS's shapes for the width, in row-major terms: AVX2 fp32 6 x 16 (two ymm per row, 12 accumulators), fp64
 * 6 x 8; AVX-512 12 x 32 and 12 x 16 (24 accumulators of 32). A KC x NR micro-panel of B is 16-32 KiB (L1),
 * an MR*MI x KC block of A 48-96 KiB (L2). */
static void cpu_default(const clf_device_info *dev, clf_dtype dt, const char *bucket, clf__config *out)
{
    size_t simd = clf__cpu_simd_bytes(dev), esz = dt == CLF_F64 ? 8 : 4;
    int lanes = (int)(simd / esz);
    memset(out, 0, sizeof *out);
    out->v[CLF__CPU_MR] = vector_registers(simd) >= 32 ? 12 : 6;
    out->v[CLF__CPU_VW] = lanes < 4 ? 4 : lanes > 16 ? 16 : lanes;
    out->v[CLF__CPU_NV] = 2;
    out->v[CLF__CPU_MI] = 8;
    out->v[CLF__CPU_NI] = 4;
    out->v[CLF__CPU_KC] = 256;
    out->v[CLF__CPU_ORDER] = 0;
    /* Where a vector takes two registers (fp64 on 16-byte SIMD), fewer rows, then one vector per row. */
    while (!fits_registers(out, dev, dt) && out->v[CLF__CPU_MR] > 4)
        out->v[CLF__CPU_MR] = out->v[CLF__CPU_MR] > 8 ? 8 : out->v[CLF__CPU_MR] > 6 ? 6 : 4;
    if (!fits_registers(out, dev, dt))
        out->v[CLF__CPU_NV] = 1;
}

/* ---- tuning hooks ------------------------------------------------------------------------------- */

#define NSAMPLES 256

typedef struct bench_state {
    clf_context *ctx;
    clf_dtype dt;
    size_t n;                    /* n x n x n, row-major, no transposes */
    cl_mem a, b, c;
    double ref[NSAMPLES], tol[NSAMPLES];
    size_t si[NSAMPLES], sj[NSAMPLES];
    clf__config last;
    int have_last;
} bench_state;

static void bench_destroy(void *p)
{
    bench_state *st = p;
    if (!st)
        return;
    cl_mem all[] = {st->a, st->b, st->c};
    for (int i = 0; i < 3; i++)
        if (all[i])
            clReleaseMemObject(all[i]);
    free(st);
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random values in [-1, 1) rounded to dt, as doubles (h) and in dt's storage (dev, uploaded). */
static clf_status random_matrix(bench_state *st, double *h, void *buf, uint64_t *seed, cl_mem *out)
{
    size_t cnt = st->n * st->n, esz = clf__dtype_size(st->dt);
    for (size_t i = 0; i < cnt; i++) {
        double x = (double)(rng_next(seed) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        if (st->dt == CLF_F32)
            h[i] = ((float *)buf)[i] = (float)x;
        else
            h[i] = ((double *)buf)[i] = x;
    }
    cl_int e;
    *out = clCreateBuffer(st->ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, cnt * esz, buf, &e);
    return *out ? CLF_SUCCESS : clf__fail_cl(e, "clCreateBuffer", "gemm_cpu bench buffer of %zu bytes", cnt * esz);
}

static void reference(bench_state *st, const double *ha, const double *hb, uint64_t *seed)
{
    size_t n = st->n;
    double eps = st->dt == CLF_F32 ? 5.96e-8 : 1.11e-16;
    for (int t = 0; t < NSAMPLES; t++) {
        size_t i = t == 0 ? 0 : t == 1 ? n - 1 : rng_next(seed) % n, j = t == 1 ? n - 1 : rng_next(seed) % n;
        double sum = 0, mag = 0;
        for (size_t p = 0; p < n; p++) {
            sum += ha[i * n + p] * hb[p * n + j];
            mag += fabs(ha[i * n + p] * hb[p * n + j]);
        }
        st->si[t] = i, st->sj[t] = j, st->ref[t] = sum;
        st->tol[t] = 2.0 * (double)(n + 2) * eps * mag + 1e-30;
    }
}

/* A product that keeps every core busy for milliseconds without minutes of reference on the host. */
static clf_status bench_create(clf_context *ctx, clf_dtype dt, const char *bucket, void **state)
{
    *state = NULL;
    if (!(ctx->info.type & CL_DEVICE_TYPE_CPU))
        return clf__fail(CLF_ERR_UNSUPPORTED, "gemm_cpu bench: CPU devices only");
    if (dt != CLF_F32 && dt != CLF_F64)
        return clf__fail(CLF_ERR_UNSUPPORTED, "gemm_cpu bench: f32 and f64 only");
    if (dt == CLF_F64 && !ctx->info.fp64)
        return clf__fail(CLF_ERR_UNSUPPORTED, "gemm_cpu bench: device has no fp64");
    bench_state *st = calloc(1, sizeof *st);
    if (!st)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "gemm_cpu bench state");
    st->ctx = ctx, st->dt = dt;
    st->n = ctx->info.compute_units >= 8 ? 1536 : 768;
    size_t cnt = st->n * st->n;
    double *ha = malloc(cnt * sizeof(double)), *hb = malloc(cnt * sizeof(double));
    void *buf = malloc(cnt * clf__dtype_size(dt));
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    clf_status s = !ha || !hb || !buf ? clf__fail(CLF_ERR_OUT_OF_MEMORY, "gemm_cpu bench data") : CLF_SUCCESS;
    if (s == CLF_SUCCESS)
        s = random_matrix(st, ha, buf, &seed, &st->a);
    if (s == CLF_SUCCESS)
        s = random_matrix(st, hb, buf, &seed, &st->b);
    cl_int e = CL_SUCCESS;
    if (s == CLF_SUCCESS && !(st->c = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, cnt * clf__dtype_size(dt), NULL, &e)))
        s = clf__fail_cl(e, "clCreateBuffer", "gemm_cpu bench C");
    if (s == CLF_SUCCESS)
        reference(st, ha, hb, &seed);
    free(ha);
    free(hb);
    free(buf);
    if (s != CLF_SUCCESS) {
        bench_destroy(st);
        return s;
    }
    *state = st;
    return CLF_SUCCESS;
}

static clf_status bench_plan(bench_state *st, const clf__config *cfg, clf__gemm_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->dtype = st->dt;
    size_t n = st->n;
    clf__cpu_product p = {n, n, n, 1, 0, 1, 1.0, 0.0, {CLF__BUF_USER, st->a, 0, n, 0},
                          {CLF__BUF_USER, st->b, 0, n, 0}, {CLF__BUF_USER, st->c, 0, n, 0}, 1, 0, 0, 0, st->dt, st->dt};
    int planned = 0;
    clf_status s = clf__gemm_cpu_plan(st->ctx, plan, &p, cfg, &planned);
    if (s == CLF_SUCCESS && !planned)
        s = clf__fail(CLF_ERR_UNSUPPORTED, "gemm_cpu bench: packed operands do not fit");
    return s;
}

static clf_status bench_run(void *p, const clf__config *cfg, cl_event *ev)
{
    bench_state *st = p;
    *ev = NULL;
    if (!st->have_last || memcmp(&st->last, cfg, sizeof *cfg) != 0) {
        /* A new configuration first runs over poisoned C, so that unwritten elements fail the check. */
        double nan64 = NAN;
        float nan32 = NAN;
        size_t esz = clf__dtype_size(st->dt);
        cl_int e = clEnqueueFillBuffer(st->ctx->queue, st->c, st->dt == CLF_F64 ? (void *)&nan64 : (void *)&nan32,
                                       esz, 0, st->n * st->n * esz, 0, NULL, NULL);
        if (e != CL_SUCCESS)
            return clf__fail_cl(e, "clEnqueueFillBuffer", "gemm_cpu bench poison");
        st->last = *cfg;
        st->have_last = 1;
    }
    clf__gemm_plan plan;
    cl_event done = NULL;
    clf_status s = bench_plan(st, cfg, &plan);
    if (s == CLF_SUCCESS)
        s = clf__gemm_exec(st->ctx, &plan, 0, &done, NULL);
    if (done)
        clReleaseEvent(done);   /* packs + kernel: the tuner times on the host */
    return s;
}

static clf_status bench_build(void *p, const clf__config *cfg)
{
    clf__gemm_plan plan;
    clf_status s = bench_plan(p, cfg, &plan);
    return s == CLF_SUCCESS ? clf__gemm_exec(((bench_state *)p)->ctx, &plan, 1, NULL, NULL) : s;
}

static clf_status bench_check(void *p)
{
    bench_state *st = p;
    size_t n = st->n, esz = clf__dtype_size(st->dt);
    void *h = malloc(n * n * esz);
    if (!h)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "gemm_cpu bench check");
    cl_int e = clEnqueueReadBuffer(st->ctx->queue, st->c, CL_TRUE, 0, n * n * esz, h, 0, NULL, NULL);
    clf_status s = e == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(e, "clEnqueueReadBuffer", "gemm_cpu bench check");
    for (size_t i = 0; i < n * n && s == CLF_SUCCESS; i++) {
        double v = st->dt == CLF_F64 ? ((double *)h)[i] : ((float *)h)[i];
        if (!isfinite(v))
            s = clf__fail(CLF_ERR_VERIFY, "gemm_cpu: C[%zu][%zu] = %g (not written)", i / n, i % n, v);
    }
    for (int t = 0; t < NSAMPLES && s == CLF_SUCCESS; t++) {
        size_t idx = st->si[t] * n + st->sj[t];
        double v = st->dt == CLF_F64 ? ((double *)h)[idx] : ((float *)h)[idx];
        if (fabs(v - st->ref[t]) > st->tol[t])
            s = clf__fail(CLF_ERR_VERIFY, "gemm_cpu: C[%zu][%zu] = %.9g, reference %.9g (tolerance %.3g)", st->si[t],
                          st->sj[t], v, st->ref[t], st->tol[t]);
    }
    free(h);
    return s;
}

static double bench_work(void *p)
{
    const bench_state *st = p;
    return 2.0 * (double)st->n * (double)st->n * (double)st->n;
}

/* The value lists are short on purpose: every candidate costs a PoCL build of seconds. */
const clf__family clf__family_gemm_cpu = {
    .name = "gemm_cpu",
    .nparams = CLF__CPU_NPARAMS,
    .params = {
        {"MR", 6, {4, 6, 8, 12, 14, 16}},
        {"VW", 3, {4, 8, 16}},
        {"NV", 4, {1, 2, 3, 4}},
        {"MI", 5, {1, 2, 4, 8, 16}},
        {"NI", 4, {1, 2, 4, 8}},
        {"KC", 5, {64, 128, 256, 512, 1024}},
        {"ORDER", 2, {0, 1}},
    },
    .nbuckets = 0,
    .unit = "GFLOP/s",
    .default_config = cpu_default,
    .valid = cpu_valid,
    .flops = clf__gemm_problem_flops,
    .bytes = clf__gemm_problem_bytes,
    .bench_create = bench_create,
    .bench_run = bench_run,
    .bench_build = bench_build,
    .bench_check = bench_check,
    .bench_work = bench_work,
    .bench_destroy = bench_destroy,
};
