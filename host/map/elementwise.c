/* elementwise.c — the launcher map and copy/fill share (see elementwise.h). */
#include "elementwise.h"

#include <stdio.h>
#include <string.h>

void clf__ew_default(const clf_device_info *dev, size_t esize, clf__config *out)
{
    memset(out, 0, sizeof *out);
    int gpu = (dev->type & CL_DEVICE_TYPE_GPU) != 0;
    size_t vw = (gpu ? 16 : 32) / (esize ? esize : 1);
    out->v[CLF__P_VW] = vw == 0 ? 1 : vw > 16 ? 16 : (int)vw;
    out->v[CLF__P_EPT] = gpu ? 2 : 1;
    out->v[CLF__P_WG] = gpu && (dev->max_work_group >= 256 || dev->max_work_group == 0) ? 256 : 64;
}

int clf__ew_valid(const clf__config *cfg, const clf_device_info *dev)
{
    return dev->max_work_group == 0 || (size_t)cfg->v[CLF__P_WG] <= dev->max_work_group;
}

clf_status clf__ew_config(clf_context *ctx, const clf__family *f, clf_dtype dt, clf__config *out)
{
    return clf__config_resolve(ctx, f, dt, "default", out, NULL);
}

void clf__ew_split(const clf__config *cfg, size_t n, size_t lead_off, int idx64, clf__ew_geom *g)
{
    memset(g, 0, sizeof *g);
    g->vw = (size_t)cfg->v[CLF__P_VW];
    g->ept = (size_t)cfg->v[CLF__P_EPT];
    g->n = n;
    g->head = (g->vw - lead_off % g->vw) % g->vw;
    if (g->head > n)
        g->head = n;
    g->nv = (n - g->head) / g->vw;
    g->idx64 = idx64;
    g->aligned = g->vw > 1;
}

void clf__ew_align(clf__ew_geom *g, size_t off)
{
    if ((off + g->head) % g->vw != 0)
        g->aligned = 0;
}

clf_status clf__ew_build(clf_context *ctx, const clf__family *f, const clf__config *cfg, const char *src,
                         const char *name, const char *extra, clf__ew_geom *g, cl_kernel *k)
{
    clf__config c = *cfg;
    *k = NULL;
    for (;;) {
        char opts[256] = "";
        clf_status s = clf__config_options(f, &c, opts, sizeof opts);
        if (s != CLF_SUCCESS)
            return s;
        size_t len = strlen(opts);
        snprintf(opts + len, sizeof opts - len, "%s -DCLF_IDX=%s -DCLF_ALIGNED=%d", extra,
                 g->idx64 ? "ulong" : "uint", g->aligned);
        s = clf__kernel_take(ctx, src, opts, name, k);
        if (s != CLF_SUCCESS)
            return s;
        /* A large kernel (a long map expression) may not fit the configured work-group: halve it rather
         * than fail. */
        size_t kmax = 0;
        clGetKernelWorkGroupInfo(*k, ctx->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL);
        if (kmax == 0 || kmax >= (size_t)c.v[CLF__P_WG] || c.v[CLF__P_WG] <= 32)
            break;
        clf__kernel_give(ctx, *k);
        *k = NULL;
        c.v[CLF__P_WG] /= 2;
    }
    g->local = (size_t)c.v[CLF__P_WG];
    size_t groups = (g->nv + g->local * g->ept - 1) / (g->local * g->ept);
    if (groups * g->local < 2 * g->vw)  /* the scalar head and tail need up to 2*(vw-1) work-items */
        groups = (2 * g->vw + g->local - 1) / g->local;
    g->global = groups * g->local;
    return CLF_SUCCESS;
}

clf_status clf__ew_arg(cl_kernel k, cl_uint i, size_t size, const void *v, const char *what)
{
    cl_int err = clSetKernelArg(k, i, size, v);
    return err == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(err, "clSetKernelArg", "%s argument %u", what, i);
}

clf_status clf__ew_index(cl_kernel k, cl_uint i, const clf__ew_geom *g, size_t v, const char *what)
{
    cl_ulong l = v;
    cl_uint u = (cl_uint)v;
    return g->idx64 ? clf__ew_arg(k, i, sizeof l, &l, what) : clf__ew_arg(k, i, sizeof u, &u, what);
}

clf_status clf__ew_tail(cl_kernel k, cl_uint i, const clf__ew_geom *g, const char *what)
{
    clf_status s = clf__ew_index(k, i, g, g->n, what);
    if (s == CLF_SUCCESS)
        s = clf__ew_index(k, i + 1, g, g->head, what);
    if (s == CLF_SUCCESS)
        s = clf__ew_index(k, i + 2, g, g->nv, what);
    return s;
}

clf_status clf__ew_enqueue(clf_context *ctx, clf_status s, cl_kernel k, const clf__ew_geom *g,
                           const clf__work *work, cl_event *done)
{
    if (s == CLF_SUCCESS)
        s = clf__enqueue(ctx, k, 1, &g->global, &g->local, work, done);
    clf__kernel_give(ctx, k);
    return s;
}

clf_status clf__ew_marker(clf_context *ctx, cl_event *done, const char *what)
{
    if (!done)
        return CLF_SUCCESS;
    cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, done);
    return err == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(err, "clEnqueueMarkerWithWaitList", "%s", what);
}

/* At least twice the device's reported cache and 16 MiB (128 MiB on GPUs, whose last-level caches reach
 * tens of MiB and are not always the one reported), at most a quarter of the largest allocation and 1/16
 * of global memory. */
size_t clf__ew_bench_elements(clf_context *ctx, size_t esize)
{
    cl_ulong cache = 0;
    clGetDeviceInfo(ctx->dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
    size_t bytes = (size_t)cache * 2;
    size_t floor_bytes = (ctx->info.type & CL_DEVICE_TYPE_GPU) ? (size_t)128 << 20 : (size_t)16 << 20;
    if (bytes < floor_bytes)
        bytes = floor_bytes;
    if (ctx->info.max_alloc && bytes > ctx->info.max_alloc / 4)
        bytes = (size_t)(ctx->info.max_alloc / 4);
    if (ctx->info.global_mem && bytes > ctx->info.global_mem / 16)
        bytes = (size_t)(ctx->info.global_mem / 16);
    if (bytes < 64 * esize)
        bytes = 64 * esize;
    return bytes / esize - 1;  /* odd count: the tail path runs too */
}
