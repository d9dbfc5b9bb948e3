/* copy.c — clf_copy and clf_fill through cl/copy.cl, and the `copy` kernel family (parameters,
 * defaults, tuning hooks). */
#include "map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Launch geometry shared by copy and fill: head elements align the destination to the vector width. */
typedef struct geom {
    size_t n, head, nv, global, local;
    int idx64;
} geom;

static const char *type_name(size_t esize)
{
    switch (esize) {
    case 1: return "uchar";
    case 2: return "ushort";
    case 4: return "uint";
    case 8: return "ulong";
    default: return "uint4";
    }
}

/* Builds kernel `name` for elements of esize bytes with cfg, for n elements at element offsets
 * dst_off and src_off (src_off == dst_off for fill). */
static clf_status build(clf_context *ctx, const char *name, size_t esize, const clf__config *cfg, size_t n,
                        size_t dst_off, size_t src_off, cl_kernel *k, geom *g)
{
    clf__config c = *cfg;
    if (esize == 16)
        c.v[CLF__P_VW] = 1;  /* uint4 elements are vectors already */
    size_t vw = (size_t)c.v[CLF__P_VW], ept = (size_t)c.v[CLF__P_EPT];
    g->n = n;
    g->head = (vw - dst_off % vw) % vw;
    if (g->head > n)
        g->head = n;
    g->nv = (n - g->head) / vw;
    int aligned = vw > 1 && (src_off + g->head) % vw == 0;
    size_t end = (dst_off > src_off ? dst_off : src_off) + n;
    g->idx64 = end > 0x7fff0000u;
    for (;;) {
        char opts[256] = "";
        clf_status s = clf__config_options(&clf__family_copy, &c, opts, sizeof opts);
        if (s != CLF_SUCCESS)
            return s;
        size_t len = strlen(opts);
        snprintf(opts + len, sizeof opts - len, " -DCLF_T=%s -DCLF_IDX=%s -DCLF_ALIGNED=%d", type_name(esize),
                 g->idx64 ? "ulong" : "uint", aligned);
        const char *src;
        s = clf__source("copy.cl", &src);
        if (s == CLF_SUCCESS)
            s = clf__kernel(ctx, src, opts, name, k);
        if (s != CLF_SUCCESS)
            return s;
        size_t kmax = 0;
        clGetKernelWorkGroupInfo(*k, ctx->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL);
        if (kmax == 0 || kmax >= (size_t)c.v[CLF__P_WG] || c.v[CLF__P_WG] <= 32)
            break;
        clReleaseKernel(*k);
        c.v[CLF__P_WG] /= 2;
    }
    g->local = (size_t)c.v[CLF__P_WG];
    size_t groups = (g->nv + g->local * ept - 1) / (g->local * ept);
    if (groups * g->local < 2 * vw)  /* head and tail: up to 2*(vw-1) work-items */
        groups = (2 * vw + g->local - 1) / g->local;
    g->global = groups * g->local;
    return CLF_SUCCESS;
}

static clf_status arg(cl_kernel k, cl_uint i, size_t size, const void *v)
{
    cl_int err = clSetKernelArg(k, i, size, v);
    return err == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(err, "clSetKernelArg", "copy/fill argument %u", i);
}

static clf_status idx_arg(cl_kernel k, cl_uint i, const geom *g, size_t v)
{
    cl_ulong l = v;
    cl_uint u = (cl_uint)v;
    return g->idx64 ? arg(k, i, sizeof l, &l) : arg(k, i, sizeof u, &u);
}

static clf_status tail_args(cl_kernel k, cl_uint i, const geom *g)
{
    clf_status s = idx_arg(k, i, g, g->n);
    if (s == CLF_SUCCESS) s = idx_arg(k, i + 1, g, g->head);
    if (s == CLF_SUCCESS) s = idx_arg(k, i + 2, g, g->nv);
    return s;
}

static clf_status enqueue_copy(clf_context *ctx, const clf__config *cfg, cl_mem src, size_t src_off, cl_mem dst,
                               size_t dst_off, size_t bytes, cl_event *done)
{
    /* The widest element that divides both offsets and the length; the kernel vectorizes on top. */
    size_t es = 4;
    while (es > 1 && (src_off % es || dst_off % es || bytes % es))
        es /= 2;
    cl_kernel k;
    geom g;
    clf_status s = build(ctx, "clf_copy", es, cfg, bytes / es, dst_off / es, src_off / es, &k, &g);
    if (s != CLF_SUCCESS)
        return s;
    s = arg(k, 0, sizeof src, &src);
    if (s == CLF_SUCCESS) s = idx_arg(k, 1, &g, src_off / es);
    if (s == CLF_SUCCESS) s = arg(k, 2, sizeof dst, &dst);
    if (s == CLF_SUCCESS) s = idx_arg(k, 3, &g, dst_off / es);
    if (s == CLF_SUCCESS) s = tail_args(k, 4, &g);
    clf__work w = {"copy", 0, 2.0 * (double)bytes};
    if (s == CLF_SUCCESS)
        s = clf__enqueue(ctx, k, 1, &g.global, &g.local, &w, done);
    clReleaseKernel(k);
    return s;
}

static clf_status marker(clf_context *ctx, cl_event *done)
{
    if (!done)
        return CLF_SUCCESS;
    cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, done);
    return err == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(err, "clEnqueueMarkerWithWaitList", "empty copy/fill");
}

static clf_status copy_config(clf_context *ctx, clf__config *cfg)
{
    return clf__config_resolve(ctx, &clf__family_copy, CLF_F32, "default", cfg, NULL);
}

clf_status clf_copy(clf_context *ctx, cl_mem src, size_t src_off, cl_mem dst, size_t dst_off, size_t bytes,
                    cl_event *done)
{
    if (done)
        *done = NULL;
    if (!ctx)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_copy: ctx is NULL");
    if (bytes == 0)
        return marker(ctx, done);
    clf_status s = clf__check_buffer(src, "clf_copy src", src_off, bytes, 1);
    if (s == CLF_SUCCESS)
        s = clf__check_buffer(dst, "clf_copy dst", dst_off, bytes, 1);
    if (s != CLF_SUCCESS)
        return s;
    size_t sb, db;
    if (clf__mem_root(src, &sb) == clf__mem_root(dst, &db)) {
        size_t s0 = sb + src_off, d0 = db + dst_off;
        if (s0 < d0 + bytes && d0 < s0 + bytes)
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_copy: source bytes %zu..%zu and destination bytes %zu..%zu "
                             "overlap in the same buffer", s0, s0 + bytes - 1, d0, d0 + bytes - 1);
    }
    clf__config cfg;
    s = copy_config(ctx, &cfg);
    if (s != CLF_SUCCESS)
        return s;
    return enqueue_copy(ctx, &cfg, src, src_off, dst, dst_off, bytes, done);
}

clf_status clf_fill(clf_context *ctx, cl_mem dst, size_t dst_off, const void *pattern, size_t pattern_size,
                    size_t bytes, cl_event *done)
{
    if (done)
        *done = NULL;
    if (!ctx || !pattern)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_fill: ctx and pattern must be non-NULL");
    if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4 && pattern_size != 8 && pattern_size != 16)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_fill: pattern_size is %zu; it must be 1, 2, 4, 8 or 16", pattern_size);
    if (dst_off % pattern_size || bytes % pattern_size)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_fill: offset %zu and size %zu must be multiples of the %zu-byte "
                         "pattern", dst_off, bytes, pattern_size);
    if (bytes == 0)
        return marker(ctx, done);
    clf_status s = clf__check_buffer(dst, "clf_fill dst", dst_off, bytes, 1);
    if (s != CLF_SUCCESS)
        return s;
    /* Small patterns are repeated into 4-byte elements where offset and size allow. */
    unsigned char pat[16];
    size_t es = pattern_size;
    memcpy(pat, pattern, pattern_size);
    while (es < 4 && dst_off % (2 * es) == 0 && bytes % (2 * es) == 0) {
        memcpy(pat + es, pat, es);
        es *= 2;
    }
    clf__config cfg;
    if ((s = copy_config(ctx, &cfg)) != CLF_SUCCESS)
        return s;
    cl_kernel k;
    geom g;
    s = build(ctx, "clf_fill", es, &cfg, bytes / es, dst_off / es, dst_off / es, &k, &g);
    if (s != CLF_SUCCESS)
        return s;
    s = arg(k, 0, sizeof dst, &dst);
    if (s == CLF_SUCCESS) s = idx_arg(k, 1, &g, dst_off / es);
    if (s == CLF_SUCCESS) s = arg(k, 2, es, pat);
    if (s == CLF_SUCCESS) s = tail_args(k, 3, &g);
    clf__work w = {"fill", 0, (double)bytes};
    if (s == CLF_SUCCESS)
        s = clf__enqueue(ctx, k, 1, &g.global, &g.local, &w, done);
    clReleaseKernel(k);
    return s;
}

/* ---- the `copy` kernel family ---------------------------------------------------------------- */

static void copy_default(const clf_device_info *dev, clf_dtype dt, const char *bucket, clf__config *out)
{
    memset(out, 0, sizeof *out);
    int gpu = (dev->type & CL_DEVICE_TYPE_GPU) != 0;
    out->v[CLF__P_VW] = gpu ? 4 : 8;  /* in 4-byte elements: 16-byte accesses on GPUs, 32 on CPUs */
    out->v[CLF__P_EPT] = gpu ? 2 : 1;
    out->v[CLF__P_WG] = gpu && (dev->max_work_group >= 256 || dev->max_work_group == 0) ? 256 : 64;
}

static int copy_valid(const clf__config *cfg, const clf_device_info *dev, clf_dtype dt)
{
    return dev->max_work_group == 0 || (size_t)cfg->v[CLF__P_WG] <= dev->max_work_group;
}

static double copy_flops(const clf__problem *p) { return 0; }
/* problem.n elements of problem.m bytes, read once and written once. */
static double copy_bytes(const clf__problem *p) { return 2.0 * (double)p->n * (double)(p->m ? p->m : 1); }

typedef struct copy_bench {
    clf_context *ctx;
    cl_mem src, dst;
    unsigned char *ref, *out;
    size_t bytes;
} copy_bench;

static void copy_bench_destroy(void *state)
{
    copy_bench *b = state;
    if (!b)
        return;
    if (b->src) clReleaseMemObject(b->src);
    if (b->dst) clReleaseMemObject(b->dst);
    free(b->ref);
    free(b->out);
    free(b);
}

/* Tuning problem: a copy between buffers larger than the last-level cache (dt does not matter). */
static clf_status copy_bench_create(clf_context *ctx, clf_dtype dt, const char *bucket, void **state)
{
    /* Copies move bytes: one precision is tuned (f32), and its entry serves every copy and fill. */
    if (dt != CLF_F32)
        return clf__fail(CLF_ERR_UNSUPPORTED, "copy tuning: bytes are tuned once, as f32");
    copy_bench *b = calloc(1, sizeof *b);
    if (!b)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "copy tuning: out of memory");
    b->ctx = ctx;
    b->bytes = (clf__map_bench_elements(ctx, 4) + 1) * 4;
    b->ref = malloc(b->bytes);
    b->out = malloc(b->bytes);
    clf_status s = b->ref && b->out ? CLF_SUCCESS : clf__fail(CLF_ERR_OUT_OF_MEMORY, "copy tuning: out of memory");
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; s == CLF_SUCCESS && i < b->bytes; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        b->ref[i] = (unsigned char)x;
    }
    cl_int err = CL_SUCCESS;
    if (s == CLF_SUCCESS) {
        b->src = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b->bytes, b->ref, &err);
        if (b->src)
            b->dst = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, b->bytes, NULL, &err);
        if (!b->dst)
            s = clf__fail_cl(err, "clCreateBuffer", "copy tuning: %zu bytes", b->bytes);
    }
    if (s != CLF_SUCCESS) {
        copy_bench_destroy(b);
        return s;
    }
    *state = b;
    return CLF_SUCCESS;
}

static clf_status copy_bench_run(void *state, const clf__config *cfg, cl_event *ev)
{
    copy_bench *b = state;
    return enqueue_copy(b->ctx, cfg, b->src, 0, b->dst, 0, b->bytes, ev);
}

static clf_status copy_bench_check(void *state)
{
    copy_bench *b = state;
    cl_int err = clEnqueueReadBuffer(b->ctx->queue, b->dst, CL_TRUE, 0, b->bytes, b->out, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clf__fail_cl(err, "clEnqueueReadBuffer", "copy tuning: reading the result");
    for (size_t i = 0; i < b->bytes; i++)
        if (b->out[i] != b->ref[i])
            return clf__fail(CLF_ERR_VERIFY, "copy: byte %zu is %u, expected %u", i, b->out[i], b->ref[i]);
    /* Scribble over dst so that the next candidate cannot pass on this one's output. */
    unsigned char zero = 0;
    err = clEnqueueFillBuffer(b->ctx->queue, b->dst, &zero, 1, 0, b->bytes, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(err, "clEnqueueFillBuffer", "copy tuning: clearing");
}

static double copy_bench_work(void *state) { return 2.0 * (double)((copy_bench *)state)->bytes; }

const clf__family clf__family_copy = {
    .name = "copy",
    .nparams = 3,
    .params = {{"VW", 5, {1, 2, 4, 8, 16}}, {"EPT", 4, {1, 2, 4, 8}}, {"WG", 6, {32, 64, 128, 256, 512, 1024}}},
    .nbuckets = 1,
    .buckets = {"default"},
    .unit = "GB/s",
    .default_config = copy_default,
    .valid = copy_valid,
    .flops = copy_flops,
    .bytes = copy_bytes,
    .bench_create = copy_bench_create,
    .bench_run = copy_bench_run,
    .bench_check = copy_bench_check,
    .bench_work = copy_bench_work,
    .bench_destroy = copy_bench_destroy,
};
