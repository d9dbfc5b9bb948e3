/* copy.c — clf_copy and clf_fill through cl/copy.cl, launched by the elementwise launcher
 * (elementwise.h), and the `copy` kernel family's tuning hooks. */
#include "map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * dst_off and src_off (src_off == dst_off for fill); the destination decides the aligned head. */
static clf_status build(clf_context *ctx, const char *name, size_t esize, const clf__config *cfg, size_t n,
                        size_t dst_off, size_t src_off, cl_kernel *k, clf__ew_geom *g)
{
    clf__config c = *cfg;
    if (esize == 16)
        c.v[CLF__P_VW] = 1;  /* uint4 elements are vectors already */
    clf__ew_split(&c, n, dst_off, clf__ew_idx64((dst_off > src_off ? dst_off : src_off) + n), g);
    clf__ew_align(g, src_off);
    char extra[32];
    snprintf(extra, sizeof extra, " -DCLF_T=%s", type_name(esize));
    const char *src;
    clf_status s = clf__source("copy.cl", &src);
    if (s == CLF_SUCCESS)
        s = clf__ew_build(ctx, &clf__family_copy, &c, src, name, extra, g, k);
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
    clf__ew_geom g;
    clf_status s = build(ctx, "clf_copy", es, cfg, bytes / es, dst_off / es, src_off / es, &k, &g);
    if (s != CLF_SUCCESS)
        return s;
    s = clf__ew_arg(k, 0, sizeof src, &src, "clf_copy");
    if (s == CLF_SUCCESS) s = clf__ew_index(k, 1, &g, src_off / es, "clf_copy");
    if (s == CLF_SUCCESS) s = clf__ew_arg(k, 2, sizeof dst, &dst, "clf_copy");
    if (s == CLF_SUCCESS) s = clf__ew_index(k, 3, &g, dst_off / es, "clf_copy");
    if (s == CLF_SUCCESS) s = clf__ew_tail(k, 4, &g, "clf_copy");
    clf__work w = {"copy", 0, 2.0 * (double)bytes};
    return clf__ew_enqueue(ctx, s, k, &g, &w, done);
}

clf_status clf_copy(clf_context *ctx, cl_mem src, size_t src_off, cl_mem dst, size_t dst_off, size_t bytes,
                    cl_event *done)
{
    if (done)
        *done = NULL;
    if (!ctx)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_copy: ctx is NULL");
    if (bytes == 0)
        return clf__ew_marker(ctx, done, "empty copy");
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
    s = clf__ew_config(ctx, &clf__family_copy, CLF_F32, &cfg);
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
        return clf__ew_marker(ctx, done, "empty fill");
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
    if ((s = clf__ew_config(ctx, &clf__family_copy, CLF_F32, &cfg)) != CLF_SUCCESS)
        return s;
    cl_kernel k;
    clf__ew_geom g;
    s = build(ctx, "clf_fill", es, &cfg, bytes / es, dst_off / es, dst_off / es, &k, &g);
    if (s != CLF_SUCCESS)
        return s;
    s = clf__ew_arg(k, 0, sizeof dst, &dst, "clf_fill");
    if (s == CLF_SUCCESS) s = clf__ew_index(k, 1, &g, dst_off / es, "clf_fill");
    if (s == CLF_SUCCESS) s = clf__ew_arg(k, 2, es, pat, "clf_fill");
    if (s == CLF_SUCCESS) s = clf__ew_tail(k, 3, &g, "clf_fill");
    clf__work w = {"fill", 0, (double)bytes};
    return clf__ew_enqueue(ctx, s, k, &g, &w, done);
}

/* ---- the `copy` kernel family ---------------------------------------------------------------- */

/* VW counts 4-byte elements, whatever dt says: copies move bytes. */
static void copy_default(const clf_device_info *dev, clf_dtype dt, const char *bucket, clf__config *out)
{
    clf__ew_default(dev, 4, out);
}

static int copy_valid(const clf__config *cfg, const clf_device_info *dev, clf_dtype dt)
{
    return clf__ew_valid(cfg, dev);
}

static double copy_flops(const clf__problem *p) { return 0; }
/* n elements of elem_size bytes (1 when unset), read once and written once. */
static double copy_bytes(const clf__problem *p)
{
    return 2.0 * (double)p->n * (double)(p->elem_size ? p->elem_size : 1);
}

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
    b->bytes = (clf__ew_bench_elements(ctx, 4) + 1) * 4;
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
    CLF__EW_FAMILY_SHAPE,
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
