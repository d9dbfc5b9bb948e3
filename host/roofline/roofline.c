/* roofline.c — measures a device's roofline (copy and triad bandwidth, fp32/fp64 FMA peak) and keeps it
 * in the device's tuning database ("roofline" section) so that bench, the profiler and tune reuse it. */
#include "internal.h"
#include "config.h"
#include "roofline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RL_MIB ((size_t)1 << 20)

/* Process-wide copy of measured rooflines by device id, for contexts without a disk cache. */
static struct { char id[17]; int quick; clf_roofline r; } rl_memo[8];
static int rl_memo_n;
static pthread_mutex_t rl_memo_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct rl_launch {
    clf_context *ctx;
    cl_kernel k;
    size_t global, local;
} rl_launch;

static clf_status rl_run(void *arg, cl_event *ev)
{
    rl_launch *l = arg;
    return clf__enqueue(l->ctx, l->k, 1, &l->global, &l->local, NULL, ev);
}

/* The fastest of reps runs after warm-up ones: a roof is what the device can reach, and on a shared
 * machine the median mostly measures the neighbours. */
static clf_status rl_time_best(rl_launch *l, int warmup, int reps, double *best)
{
    double t;
    clf_status s = clf__time_median(l->ctx, rl_run, l, warmup, 1, &t);
    *best = t;
    for (int i = 1; i < reps && s == CLF_SUCCESS; i++) {
        s = clf__time_median(l->ctx, rl_run, l, 0, 1, &t);
        if (t < *best) *best = t;
    }
    return s;
}

static int rl_is_gpu(const clf_context *ctx)
{
    return (ctx->info.type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0;
}

static size_t rl_local(const clf_context *ctx)
{
    size_t l = 256;
    while (l > ctx->info.max_work_group && l > 1) l /= 2;
    return l;
}

static clf_status rl_kernel(clf_context *ctx, const char *options, const char *name, cl_kernel *k)
{
    const char *src;
    clf_status s = clf__source("roofline.cl", &src);
    return s ? s : clf__kernel(ctx, src, options, name, k);
}

static clf_status rl_set(cl_kernel k, cl_uint i, size_t size, const void *v)
{
    cl_int e = clSetKernelArg(k, i, size, v);
    return e == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(e, "clSetKernelArg", "roofline kernel argument %u", i);
}

/* Buffer size per array: well past any last-level cache (H200 L2 50 MB, server L3 up to a few hundred MB
 * in full mode), bounded by what the device allows, three arrays in at most half of global memory. */
static size_t rl_array_bytes(const clf_context *ctx, int quick)
{
    size_t b = quick ? 256 * RL_MIB : 1024 * RL_MIB;
    while (b > 16 * RL_MIB && (b > ctx->info.max_alloc || 6 * (cl_ulong)b > ctx->info.global_mem)) b /= 2;
    return b;
}

/* Copy and triad over the three arrays m with `width`-float vectors in groups of `local`. */
static clf_status rl_bandwidth_variant(clf_context *ctx, cl_mem *m, size_t bytes, int width, size_t local, int quick,
                                       double *copy_gbs, double *triad_gbs)
{
    char opt[32];
    snprintf(opt, sizeof opt, "-DBVEC=float%d", width);
    cl_uint n = (cl_uint)(bytes / (4 * (size_t)width));
    rl_launch l = {ctx, NULL, (n + local - 1) / local * local, local};
    int warm = quick ? 1 : 2, reps = quick ? 5 : 11;
    float sc = 0.5f;
    double t;
    cl_kernel kc = NULL, kt = NULL;
    clf_status s;
    if ((s = rl_kernel(ctx, opt, "clf_rl_copy", &kc)) || (s = rl_set(kc, 0, sizeof m[1], &m[1])) ||
        (s = rl_set(kc, 1, sizeof m[0], &m[0])) || (s = rl_set(kc, 2, sizeof n, &n)))
        goto done;
    l.k = kc;
    if ((s = rl_time_best(&l, warm, reps, &t))) goto done;
    *copy_gbs = 2.0 * (double)bytes / t / 1e9;
    if ((s = rl_kernel(ctx, opt, "clf_rl_triad", &kt)) || (s = rl_set(kt, 0, sizeof m[0], &m[0])) ||
        (s = rl_set(kt, 1, sizeof m[1], &m[1])) || (s = rl_set(kt, 2, sizeof m[2], &m[2])) ||
        (s = rl_set(kt, 3, sizeof sc, &sc)) || (s = rl_set(kt, 4, sizeof n, &n)))
        goto done;
    l.k = kt;
    if ((s = rl_time_best(&l, warm, reps, &t))) goto done;
    *triad_gbs = 3.0 * (double)bytes / t / 1e9;
done:
    if (kc) clReleaseKernel(kc);
    if (kt) clReleaseKernel(kt);
    return s;
}

static clf_status rl_bandwidth(clf_context *ctx, int quick, double *copy_gbs, double *triad_gbs)
{
    size_t bytes = rl_array_bytes(ctx, quick);
    cl_mem m[3] = {NULL, NULL, NULL};
    cl_int e = CL_SUCCESS;
    clf_status s = CLF_SUCCESS;
    /* Halve on allocation failure: max_alloc and global_mem are promises some drivers do not keep. */
    for (;;) {
        for (int i = 0; i < 3 && e == CL_SUCCESS; i++) m[i] = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &e);
        if (e == CL_SUCCESS) {
            float one = 1.0f;
            for (int i = 0; i < 3 && e == CL_SUCCESS; i++)
                e = clEnqueueFillBuffer(ctx->queue, m[i], &one, sizeof one, 0, bytes, 0, NULL, NULL);
            if (e == CL_SUCCESS) e = clFinish(ctx->queue);
        }
        if (e == CL_SUCCESS || bytes <= 16 * RL_MIB) break;
        for (int i = 0; i < 3; i++) if (m[i]) clReleaseMemObject(m[i]), m[i] = NULL;
        bytes /= 2;
        e = CL_SUCCESS;
    }
    if (e != CL_SUCCESS) { s = clf__fail_cl(e, "clCreateBuffer", "roofline arrays of %zu bytes", bytes); goto done; }

    /* GPUs want 16-byte accesses; PoCL's best width and group size vary with the machine (its copy
     * family ships 32-byte accesses in groups of 64), so CPUs try three and keep the best of each. */
    static const struct { int width; size_t local; } cpu[] = {{4, 256}, {8, 64}, {16, 256}}, gpu[] = {{4, 256}};
    int nv = rl_is_gpu(ctx) ? 1 : 3;
    *copy_gbs = *triad_gbs = 0;
    for (int v = 0; v < nv && s == CLF_SUCCESS; v++) {
        int width = rl_is_gpu(ctx) ? gpu[v].width : cpu[v].width;
        size_t local = rl_is_gpu(ctx) ? gpu[v].local : cpu[v].local;
        while (local > ctx->info.max_work_group && local > 1) local /= 2;
        double c = 0, t = 0;
        s = rl_bandwidth_variant(ctx, m, bytes, width, local, quick, &c, &t);
        if (c > *copy_gbs) *copy_gbs = c;
        if (t > *triad_gbs) *triad_gbs = t;
    }
done:
    for (int i = 0; i < 3; i++) if (m[i]) clReleaseMemObject(m[i]);
    return s;
}

/* SIMD lanes of the device for fp32 or fp64, where its driver reports a native vector width of 4 or more
 * (2 for fp64): PoCL does; llvmpipe reports 1 (its work-items are the lanes) and a clock that is not the
 * CPU's, so nothing is derived there. */
static unsigned rl_lanes(const clf_context *ctx, int fp64)
{
    cl_uint w = 0;
    clGetDeviceInfo(ctx->dev, fp64 ? CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE : CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT,
                    sizeof w, &w, NULL);
    return w >= 4 || (fp64 && w >= 2) ? w : 0;
}

/* A CPU device whose driver wants explicit vectors (PoCL): the calibration runs one work-item per group with
 * vector chains, as its GEMM does; drivers that prefer scalars (llvmpipe) run work-items as SIMD lanes. */
static int rl_cpu_vectors(const clf_context *ctx)
{
    cl_uint w = 0;
    clGetDeviceInfo(ctx->dev, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, sizeof w, &w, NULL);
    return !rl_is_gpu(ctx) && w >= 4;
}

/* FMA peak for one vector width: grows the trip count until a launch takes target seconds, then takes
 * the fastest of a few runs. CPUs need explicit vectors (PoCL ran scalar chains at a third of float8's rate)
 * as wide as the SIMD registers (float8 on AVX-512 measured a quarter of the Xeon's peak), in one-item groups
 * (no work-item loop around the chains), several per core. */
static clf_status rl_fma_width(clf_context *ctx, int fp64, int width, int quick, double *gflops)
{
    char opt[128];
    const char *real = fp64 ? "double" : "float";
    char vec[32];
    if (width > 1) snprintf(vec, sizeof vec, "%s%d", real, width);
    else snprintf(vec, sizeof vec, "%s", real);
    snprintf(opt, sizeof opt, "-DREAL=%s -DVEC=%s%s%s", real, vec, fp64 ? " -DCLF_FP64" : "",
             rl_is_gpu(ctx) || rl_cpu_vectors(ctx) ? " -DCLF_USE_FMA" : "");
    size_t local = rl_cpu_vectors(ctx) ? 1 : rl_local(ctx);
    size_t cu = ctx->info.compute_units ? ctx->info.compute_units : 1;
    /* Enough work-items to fill every core: 2048 resident threads per GPU multiprocessor; a few groups
     * per CPU core. */
    size_t global = rl_is_gpu(ctx) ? cu * 2048 : cu * local * (local == 1 ? 8 : 4);
    global = (global + local - 1) / local * local;
    size_t esize = (fp64 ? 8 : 4) * (size_t)width;
    cl_int e;
    cl_mem out = clCreateBuffer(ctx->cl, CL_MEM_WRITE_ONLY, global * esize, NULL, &e);
    if (e != CL_SUCCESS) return clf__fail_cl(e, "clCreateBuffer", "roofline FMA output");
    cl_kernel k = NULL;
    float a32 = 0.999f, b32 = 0.001f;
    double a64 = 0.999, b64 = 0.001;
    size_t rs = fp64 ? sizeof a64 : sizeof a32;
    int iters = 1;
    rl_launch l = {ctx, NULL, global, local};
    double t = 0, target = quick ? 0.01 : 0.05;
    clf_status s;
    if ((s = rl_kernel(ctx, opt, "clf_rl_fma", &k)) || (s = rl_set(k, 0, sizeof out, &out)) ||
        (s = rl_set(k, 1, rs, fp64 ? (void *)&a64 : (void *)&a32)) ||
        (s = rl_set(k, 2, rs, fp64 ? (void *)&b64 : (void *)&b32)) || (s = rl_set(k, 3, sizeof iters, &iters)))
        goto done;
    l.k = k;
    /* The first launch also pays for any lazy compilation (PoCL compiles per work-group size). */
    if ((s = clf__time_median(ctx, rl_run, &l, 1, 1, &t))) goto done;
    while (t < target && iters < (1 << 24)) {
        iters = t < target / 64 ? iters * 8 : iters * 2;
        if ((s = rl_set(k, 3, sizeof iters, &iters)) || (s = clf__time_median(ctx, rl_run, &l, 0, 1, &t))) goto done;
    }
    if ((s = rl_time_best(&l, 0, quick ? 3 : 7, &t))) goto done;
    *gflops = (double)global * iters * 8 * 16 * 2 * width / t / 1e9;
done:
    if (k) clReleaseKernel(k);
    clReleaseMemObject(out);
    return s;
}

static clf_status rl_fma(clf_context *ctx, int fp64, int quick, double *gflops)
{
    /* GPUs run vector types as scalars per lane: one width suffices. Vector CPUs: up to AVX-512's 16 floats. */
    static const int gpu[] = {1}, scalar_cpu[] = {1, 4, 8}, vector_cpu[] = {4, 8, 16};
    const int *widths = rl_is_gpu(ctx) ? gpu : rl_cpu_vectors(ctx) ? vector_cpu : scalar_cpu;
    size_t nw = rl_is_gpu(ctx) ? 1 : 3;
    *gflops = 0;
    for (size_t i = 0; i < nw; i++) {
        double g = 0;
        clf_status s = rl_fma_width(ctx, fp64, widths[i], quick, &g);
        if (s) return s;
        if (g > *gflops) *gflops = g;
    }
    return CLF_SUCCESS;
}

/* Hardware threads per core of the host, whose CPU a CPU device is: the length of cpu0's sibling list
 * ("0,16" or "0-1"); 1 when sysfs does not say. */
static unsigned rl_threads_per_core(void)
{
    char buf[128] = "";
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "r");
    if (!f) return 1;
    if (!fgets(buf, sizeof buf, f)) buf[0] = '\0';
    fclose(f);
    unsigned n = 0;
    for (char *p = buf; *p && *p != '\n';) {
        char *end;
        unsigned long a = strtoul(p, &end, 10), b = a;
        if (end == p) break;
        if (*end == '-') b = strtoul(end + 1, &end, 10);
        n += b >= a && b - a < 64 ? (unsigned)(b - a + 1) : 1;
        p = *end == ',' ? end + 1 : end;
    }
    return n ? n : 1;
}

/* The FMA peak from the device's reported properties (clf_roofline.fp32_spec_gflops). What OpenCL does not
 * report is assumed and said so: two FMA units per core (Haswell and later, Zen 2 and later, the AVX-512
 * Xeons from Gold 6000 up; one on some Silver and Bronze parts), and the reported clock under load (AVX-512
 * code runs slower on many Xeons). */
static void rl_spec(const clf_context *ctx, clf_roofline *r)
{
    r->fp32_spec_gflops = r->fp64_spec_gflops = 0;
    unsigned l32 = rl_is_gpu(ctx) ? 0 : rl_lanes(ctx, 0), l64 = ctx->info.fp64 && l32 ? rl_lanes(ctx, 1) : 0;
    if (!l32 || !ctx->info.clock_mhz || !ctx->info.compute_units) {
        snprintf(r->spec_basis, sizeof r->spec_basis, "%s",
                 rl_is_gpu(ctx) ? "not derived for GPUs"
                                 : "not derived: the driver reports no SIMD width (its work-items are the lanes)");
        return;
    }
    unsigned tpc = rl_threads_per_core(), cores = ctx->info.compute_units / tpc ? ctx->info.compute_units / tpc : 1;
    double per_lane = (double)cores * ctx->info.clock_mhz * 2.0 * 2.0 / 1000.0;
    r->fp32_spec_gflops = per_lane * l32;
    r->fp64_spec_gflops = per_lane * l64;
    snprintf(r->spec_basis, sizeof r->spec_basis,
             "%u cores (%u units, %u threads per core) x %u MHz x %u fp32 / %u fp64 lanes x 2 FMA units (assumed) x 2",
             cores, (unsigned)ctx->info.compute_units, tpc, (unsigned)ctx->info.clock_mhz, l32, l64);
}

/* Entries of earlier calibrations are measured again: before version 2 the FMA kernel ran at most 8-wide on
 * CPUs, a quarter of an AVX-512 Xeon's peak. */
#define RL_CALIBRATION 2

static int rl_from_json(json_t *j, clf_roofline *out, int *quick)
{
    json_t *c = json_object_get(j, "copy_gbs"), *t = json_object_get(j, "triad_gbs");
    json_t *f = json_object_get(j, "fp32_gflops"), *d = json_object_get(j, "fp64_gflops");
    json_t *date = json_object_get(j, "date");
    if (!json_is_object(j) || !json_is_number(c) || !json_is_number(t) || !json_is_number(f) || !json_is_number(d) ||
        json_number_value(c) <= 0 || json_number_value(t) <= 0 || json_number_value(f) <= 0 ||
        json_number_value(d) < 0 || json_integer_value(json_object_get(j, "calibration")) < RL_CALIBRATION)
        return 0;
    memset(out, 0, sizeof *out);
    out->copy_gbs = json_number_value(c);
    out->triad_gbs = json_number_value(t);
    out->fp32_gflops = json_number_value(f);
    out->fp64_gflops = json_number_value(d);
    if (json_is_string(date)) snprintf(out->date, sizeof out->date, "%s", json_string_value(date));
    *quick = json_is_true(json_object_get(j, "quick"));
    return 1;
}

static void rl_memo_put(const clf_context *ctx, const clf_roofline *r, int quick)
{
    pthread_mutex_lock(&rl_memo_lock);
    int i;
    for (i = 0; i < rl_memo_n && memcmp(rl_memo[i].id, ctx->info.id, sizeof rl_memo[i].id) != 0; i++) {}
    if (i == rl_memo_n && rl_memo_n < (int)(sizeof rl_memo / sizeof rl_memo[0])) rl_memo_n++;
    if (i < rl_memo_n) {
        memcpy(rl_memo[i].id, ctx->info.id, sizeof rl_memo[i].id);
        rl_memo[i].quick = quick;
        rl_memo[i].r = *r;
    }
    pthread_mutex_unlock(&rl_memo_lock);
}

static int rl_memo_get(const clf_context *ctx, clf_roofline *r, int *quick)
{
    int found = 0;
    pthread_mutex_lock(&rl_memo_lock);
    for (int i = 0; i < rl_memo_n && !found; i++)
        if (memcmp(rl_memo[i].id, ctx->info.id, sizeof rl_memo[i].id) == 0)
            *r = rl_memo[i].r, *quick = rl_memo[i].quick, found = 1;
    pthread_mutex_unlock(&rl_memo_lock);
    return found;
}

/* A stored roofline good enough for the request: any for a quick one, a full one otherwise. */
static int rl_lookup(clf_context *ctx, int quick, clf_roofline *out)
{
    int stored_quick = 1;
    if (rl_memo_get(ctx, out, &stored_quick) && (quick || !stored_quick)) return 1;
    json_t *j = NULL;
    clf__quiet_begin();
    clf_status s = clf__tunedb_fetch(ctx, "roofline", &j);
    clf__quiet_end();
    if (s != CLF_SUCCESS) return 0;
    int ok = j && rl_from_json(j, out, &stored_quick) && (quick || !stored_quick);
    json_decref(j);
    if (ok) rl_memo_put(ctx, out, stored_quick);
    return ok;
}

int clf__roofline_stored(clf_context *ctx, clf_roofline *out)
{
    if (!rl_lookup(ctx, 1, out)) return 0;
    rl_spec(ctx, out);
    return 1;
}

clf_status clf_roofline_get(clf_context *ctx, int quick, int remeasure, clf_roofline *out)
{
    if (!ctx || !out) return clf__fail(CLF_ERR_INVALID_ARG, "clf_roofline_get: ctx and out must be non-NULL");
    clf_roofline r;
    if (!remeasure && rl_lookup(ctx, quick, &r)) { rl_spec(ctx, &r); *out = r; return CLF_SUCCESS; }
    memset(&r, 0, sizeof r);
    clf_status s = rl_bandwidth(ctx, quick, &r.copy_gbs, &r.triad_gbs);
    if (!s) s = rl_fma(ctx, 0, quick, &r.fp32_gflops);
    if (!s && ctx->info.fp64) s = rl_fma(ctx, 1, quick, &r.fp64_gflops);
    if (s) return s;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(r.date, sizeof r.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    rl_spec(ctx, &r);
    rl_memo_put(ctx, &r, quick);
    json_t *j = json_pack("{s:f, s:f, s:f, s:f, s:s, s:b, s:s, s:i, s:f, s:f, s:s}", "copy_gbs", r.copy_gbs,
                          "triad_gbs", r.triad_gbs, "fp32_gflops", r.fp32_gflops, "fp64_gflops", r.fp64_gflops,
                          "date", r.date, "quick", quick, "clforge_version", CLFORGE_VERSION_STRING, "calibration",
                          RL_CALIBRATION, "fp32_spec_gflops", r.fp32_spec_gflops, "fp64_spec_gflops",
                          r.fp64_spec_gflops, "spec_basis", r.spec_basis);
    /* Not being able to store it costs a re-measurement next process, nothing more. */
    if (!ctx->cache_dir[0]) json_decref(j);
    else if (!j || clf__tunedb_store(ctx, "roofline", j) != CLF_SUCCESS)
        clf__warn_once("roofline-store", "clforge: roofline not stored: %s", clf_last_error());
    clf__clear_error();
    *out = r;
    return CLF_SUCCESS;
}
