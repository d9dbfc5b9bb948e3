/* gemm_exec.c — runs a GEMM plan (gemm_plan.h): builds every kernel the plan names first, so that a build
 * failure enqueues nothing, then takes the context's scratch buffers and enqueues the steps in order. One
 * small function per kind of step; nothing here chooses a path. */
#include "gemm_plan.h"
#include "gemm_cpu.h"
#include "gemm_epilogue.h"
#include "gemm_mma.h"
#include "gemv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_CHUNK 65535   /* work-groups per launch along dimension 2 that every driver takes */

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }
static int precision(clf_dtype dt) { return dt == CLF_F64 ? 64 : 32; }

/* Arguments first .. first + n - 1 of k. */
static clf_status set_args_from(cl_kernel k, int first, const void *const *vals, const size_t *sizes, int n)
{
    for (int i = 0; i < n; i++) {
        cl_int e = clSetKernelArg(k, (cl_uint)(first + i), sizes[i], vals[i]);
        if (e != CL_SUCCESS)
            return clf__fail_cl(e, "clSetKernelArg", "gemm argument %d", first + i);
    }
    return CLF_SUCCESS;
}

static clf_status set_args(cl_kernel k, const void *const *vals, const size_t *sizes, int n)
{
    return set_args_from(k, 0, vals, sizes, n);
}

/* ---- building ------------------------------------------------------------------------------- */

static clf_status step_options(const clf__gemm_plan *plan, const clf__gemm_step *st, char *opts, size_t cap,
                               const char **file, const char **name)
{
    int prec = precision(plan->dtype);
    switch (st->kind) {
    case CLF__STEP_PACK:
        *file = "gemm_pack.cl", *name = "gemm_pack";
        snprintf(opts, cap, "-DPRECISION=%d -DTRANS=%d -DTRANS2=%d", prec, st->u.pack.op[0].trans,
                 st->u.pack.op[st->u.pack.count - 1].trans);
        return CLF_SUCCESS;
    case CLF__STEP_REDUCE:
        *file = "gemm_reduce.cl", *name = "gemm_reduce";
        snprintf(opts, cap, "-DPRECISION=%d -DCTYPE=%d", prec,
                 st->u.reduce.c_type == plan->dtype ? 0 : clf__convert_code(st->u.reduce.c_type));
        return CLF_SUCCESS;
    case CLF__STEP_CONVERT: {
        const clf__convert_step *c = &st->u.convert;
        *file = "gemm_convert.cl", *name = c->by_rows ? "convert_rows" : c->scaled ? "split_pack" : "convert_pack";
        snprintf(opts, cap, "-DSRC=%d -DDST=%d -DSRC_KMAJOR=%d", clf__convert_code(c->src_type),
                 clf__convert_code(c->dst_type), c->src_kmajor);
        if (c->split3)   /* otherwise the options (and the program cache's key) are as before */
            snprintf(opts + strlen(opts), cap - strlen(opts), " -DSPLIT3=%d%s", c->split3, c->scaled ? " -DSCALED=1" : "");
        return CLF_SUCCESS;
    }
    case CLF__STEP_MMA: {
        const clf__mma_step *m = &st->u.mma;
        *file = "gemm_mma.cl", *name = "gemm_mma";
        opts[0] = '\0';
        clf_status s = clf__config_options(&clf__family_gemm_mma, m->cfg, opts, cap);
        if (s != CLF_SUCCESS)
            return s;
        size_t len = strlen(opts);
        /* CLF_SM90A: the program's PTX is retargeted to sm_90a after the build (host/runtime/ptx_retarget.c) */
        snprintf(opts + len, cap - len, " -DMODE=%d -DCTYPE=%d -DEDGE=%d -DAKM=%d -DBKN=%d -DCLF_PTX_CVT=1%s", m->mode,
                 clf__convert_code(m->c_type), m->edge, m->a_mn, m->b_mn,
                 m->cfg->v[CLF__MMA_WGMMA] ? " -DCLF_SM90A=1" : "");
        len = strlen(opts);
        if (m->a_gather || m->b_gather)   /* otherwise the options (and the program cache's key) are as before */
            snprintf(opts + len, cap - len, " -DGA=%d -DGB=%d", m->a_gather, m->b_gather);
        return CLF_SUCCESS;
    }
    case CLF__STEP_CPU_PACK:
    case CLF__STEP_CPU:
        return clf__gemm_cpu_options(plan->dtype, st, opts, cap, file, name);
    case CLF__STEP_GEMV:
        *file = *name = NULL;   /* gemv.c builds its own kernels */
        opts[0] = '\0';
        return CLF_SUCCESS;
    case CLF__STEP_MAIN: {
        const clf__main_step *m = &st->u.main;
        *file = "gemm.cl", *name = "gemm_main";
        opts[0] = '\0';
        clf_status s = clf__config_options(&clf__family_gemm, m->cfg, opts, cap);
        if (s != CLF_SUCCESS)
            return s;
        size_t len = strlen(opts);
        snprintf(opts + len, cap - len, " -DPRECISION=%d -DDIRECT=%d -DA_KMAJOR=%d -DB_KMAJOR=%d -DLONG_INDEX=%d",
                 prec, m->direct, m->a_kmajor, m->b_kmajor, m->long_index);
        len = strlen(opts);
        if (m->edge_a || m->edge_b)   /* otherwise the options (and the program cache's key) are as before */
            snprintf(opts + len, cap - len, " -DEDGE_A=%d -DEDGE_B=%d", m->edge_a, m->edge_b);
        len = strlen(opts);
        if (m->dlay)   /* likewise */
            snprintf(opts + len, cap - len, " -DDLAY=%d -DDPAD_A=%d -DDPAD_B=%d", m->dlay, m->dpad_a, m->dpad_b);
        len = strlen(opts);
        if (m->sum)   /* likewise; step_kernel adds -DCLF_NV=1 on NVIDIA GPUs (the fence as PTX) */
            snprintf(opts + len, cap - len, " -DSPLIT_SUM=1");
        return CLF_SUCCESS;
    }
    }
    return clf__fail(CLF_ERR_INTERNAL, "gemm plan: unknown step %d", (int)st->kind);
}

/* 1 when the step stores C through the epilogue; *c_type gets C's type as its kernel stores it. */
static int step_epi(const clf__gemm_plan *plan, const clf__gemm_step *st, clf_dtype *c_type)
{
    *c_type = st->kind == CLF__STEP_MMA ? st->u.mma.c_type : st->kind == CLF__STEP_REDUCE ? st->u.reduce.c_type
                                                                                       : plan->dtype;
    return plan->epi && ((st->kind == CLF__STEP_MAIN && st->u.main.epi) ||
                         (st->kind == CLF__STEP_REDUCE && st->u.reduce.epi) || (st->kind == CLF__STEP_MMA && st->u.mma.epi) || (st->kind == CLF__STEP_CPU && st->u.cpu.epi));
}

/* The kernel file, preceded by the epilogue's store function when the step has one (the program cache
 * keys on the whole text, so each epilogue is its own program). */
static clf_status step_kernel(clf_context *ctx, const clf__gemm_plan *plan, const clf__gemm_step *st, cl_kernel *k)
{
    char opts[512];
    const char *file = NULL, *name = NULL, *src = NULL;
    clf_status s = step_options(plan, st, opts, sizeof opts, &file, &name);
    if (s == CLF_SUCCESS && !file)
        return CLF_SUCCESS;   /* a step that builds its own (gemv) */
    if (s == CLF_SUCCESS && st->kind == CLF__STEP_MAIN && st->u.main.sum && (ctx->info.type & CL_DEVICE_TYPE_GPU) &&
        clf__device_is_nvidia(&ctx->info) && ctx->info.nv_cc >= 70 && strlen(opts) + 16 < sizeof opts)
        strcat(opts, " -DCLF_NV=1");   /* fence.acq_rel.gpu: PTX 6.0, compute capability 7.0 */
    if (s == CLF_SUCCESS)
        s = clf__source(file, &src);
    clf_dtype ct;
    if (s != CLF_SUCCESS || !step_epi(plan, st, &ct))
        return s == CLF_SUCCESS ? clf__kernel_take(ctx, src, opts, name, k) : s;
    char *pre = NULL, *all = NULL;
    /* The CPU kernel stores whole vectors of C: it takes the program as vector code too. */
    int vw = st->kind == CLF__STEP_CPU ? st->u.cpu.cfg->v[CLF__CPU_VW] : 0;
    s = clf__epi_source(plan->epi, ct, vw, &pre);
    if (s == CLF_SUCCESS && !(all = malloc(strlen(pre) + strlen(src) + 1)))
        s = clf__fail(CLF_ERR_OUT_OF_MEMORY, "gemm epilogue: out of memory");
    if (s == CLF_SUCCESS) {
        strcpy(all, pre);
        strcat(all, src);
        s = clf__kernel_take(ctx, all, opts, name, k);
    }
    free(pre);
    free(all);
    return s;
}

/* ---- enqueuing ------------------------------------------------------------------------------ */

typedef struct scratch_bufs {
    cl_mem pack, partial, convert, flags;
} scratch_bufs;

static cl_mem bind(const clf__gemm_operand *o, const scratch_bufs *sb)
{
    switch (o->kind) {
    case CLF__BUF_PACK: return sb->pack;
    case CLF__BUF_PARTIAL: return sb->partial;
    case CLF__BUF_CONVERT: return sb->convert;
    default: return o->buf;
    }
}

/* The twelve arguments of one operand of gemm_pack from index i, for the batch items from b0. */
static clf_status pack_args(cl_kernel k, cl_uint i, const clf__pack_operand *o, const scratch_bufs *sb, size_t b0)
{
    cl_mem src = bind(&o->src, sb), dst = bind(&o->dst, sb);
    cl_long r = (cl_long)o->rows, cn = (cl_long)o->cols, rp = (cl_long)o->rows_pad, cp = (cl_long)o->cols_pad;
    cl_long lds = (cl_long)o->src.ld, ldd = (cl_long)o->dst.ld;
    cl_ulong soff = o->src.off + b0 * o->src.stride, sst = o->src.stride;
    cl_ulong doff = o->dst.off + b0 * o->dst.stride, dst_stride = o->dst.stride;
    const void *v[] = {&r, &cn, &rp, &cp, &src, &soff, &lds, &sst, &dst, &doff, &ldd, &dst_stride};
    size_t z[] = {8, 8, 8, 8, sizeof(cl_mem), 8, 8, 8, sizeof(cl_mem), 8, 8, 8};
    for (cl_uint j = 0; j < 12; j++) {
        cl_int e = clSetKernelArg(k, i + j, z[j], v[j]);
        if (e != CL_SUCCESS)
            return clf__fail_cl(e, "clSetKernelArg", "gemm pack argument %u", i + j);
    }
    return CLF_SUCCESS;
}

/* Work-groups along dimension 0 are the first operand's column tiles, then the second's (its arguments repeat the
 * first's when it packs one); dimension 1 the rows along K, which both have alike. */
static clf_status enqueue_pack(clf_context *ctx, const clf__gemm_plan *plan, const clf__pack_step *p, cl_kernel k,
                               const scratch_bufs *sb, cl_event *done)
{
    size_t esz = clf__dtype_size(plan->dtype);
    const clf__pack_operand *o0 = &p->op[0], *o1 = &p->op[p->count - 1];
    size_t x0 = round_up(o0->cols_pad, 32) / 32, x1 = p->count > 1 ? round_up(o1->cols_pad, 32) / 32 : 0;
    double bytes = 0.0;
    for (int i = 0; i < p->count; i++)
        bytes += (double)(p->op[i].rows * p->op[i].cols + p->op[i].rows_pad * p->op[i].cols_pad) * (double)esz;
    cl_long split = (cl_long)x0;
    clf_status s = set_args(k, (const void *[]){&split}, (size_t[]){8}, 1);
    for (size_t b0 = 0; b0 < p->batch && s == CLF_SUCCESS; b0 += BATCH_CHUNK) {
        size_t nb = p->batch - b0 < BATCH_CHUNK ? p->batch - b0 : BATCH_CHUNK;
        cl_long r_last = (cl_long)(b0 + nb >= p->batch && p->rows_last ? p->rows_last : o0->rows);
        if ((s = set_args_from(k, 1, (const void *[]){&r_last}, (size_t[]){8}, 1)) != CLF_SUCCESS ||
            (s = pack_args(k, 2, o0, sb, b0)) != CLF_SUCCESS || (s = pack_args(k, 14, o1, sb, b0)) != CLF_SUCCESS)
            break;
        size_t global[3] = {(x0 + x1) * 32, round_up(o0->rows_pad, 32) / 4, nb};
        size_t local[3] = {32, 8, 1};
        clf__work w = {plan->dtype == CLF_F64 ? "dgemm_pack" : "sgemm_pack", 0.0, (double)nb * bytes};
        s = clf__enqueue(ctx, k, 3, global, local, &w, b0 + nb >= p->batch ? done : NULL);
    }
    return s;
}

static clf_status enqueue_main(clf_context *ctx, const clf__gemm_plan *plan, const clf__main_step *m, cl_kernel k,
                               const scratch_bufs *sb, cl_event *done)
{
    const int *v = m->cfg->v;
    size_t esz = clf__dtype_size(plan->dtype);
    cl_int mm = (cl_int)m->m, nn = (cl_int)m->n, kk = (cl_int)m->k, cvec = m->c_vec;
    float fa = (float)m->alpha, fb = (float)m->beta;
    const void *pa = plan->dtype == CLF_F64 ? (const void *)&m->alpha : (const void *)&fa;
    const void *pb = plan->dtype == CLF_F64 ? (const void *)&m->beta : (const void *)&fb;
    cl_mem a = bind(&m->a, sb), b = bind(&m->b, sb), c = bind(&m->c, sb);
    cl_long lda = (cl_long)m->a.ld, ldb = (cl_long)m->b.ld, ldc = (cl_long)m->c.ld;
    cl_ulong ast = m->a.stride, bst = m->b.stride, cst = m->c.stride;
    clf_status s = CLF_SUCCESS;
    for (size_t b0 = 0; b0 < m->batch && s == CLF_SUCCESS; b0 += BATCH_CHUNK) {
        size_t nb = m->batch - b0 < BATCH_CHUNK ? m->batch - b0 : BATCH_CHUNK;
        int last = b0 + nb >= m->batch;
        cl_ulong aoff = m->a.off + b0 * ast, boff = m->b.off + b0 * bst, coff = m->c.off + b0 * cst;
        cl_int klast = last && m->k_last ? (cl_int)m->k_last : kk;   /* the batch's last member: see clf__main_step */
        const void *vals[] = {&mm, &nn, &kk, pa, pb, &a, &aoff, &lda, &ast, &b, &boff, &ldb, &bst,
                              &c, &coff, &ldc, &cst, &cvec, &klast};
        size_t z[] = {4, 4, 4, esz, esz, sizeof(cl_mem), 8, 8, 8, sizeof(cl_mem), 8, 8, 8, sizeof(cl_mem), 8, 8, 8,
                      4, 4};
        cl_uint nargs = 19;
        if ((s = set_args(k, vals, z, 19)) != CLF_SUCCESS)
            break;
        if (m->sum) {   /* the slices are one launch (a split product is never over BATCH_CHUNK slices) */
            cl_mem p = bind(&m->partial, sb);
            cl_ulong poff = m->partial.off, pst = m->partial.stride, foff = m->flag_off;
            cl_uint epoch = clf__launch_epoch(24);   /* a flag holds epoch << 8 and a count */
            const void *sv[] = {&p, &poff, &pst, &sb->flags, &foff, &epoch};
            const size_t sz[] = {sizeof(cl_mem), 8, 8, sizeof(cl_mem), 8, 4};
            if ((s = set_args_from(k, 19, sv, sz, 6)) != CLF_SUCCESS)
                break;
            nargs = 25;
        }
        if (m->epi && (s = clf__epi_args(k, nargs, plan->epi, m->r0, m->c0, m->sum ? 0 : b0)) != CLF_SUCCESS)
            break;
        size_t global[3] = {(m->n + (size_t)v[CLF__GEMM_NWG] - 1) / (size_t)v[CLF__GEMM_NWG] * (size_t)v[CLF__GEMM_NDIMC],
                            (m->m + (size_t)v[CLF__GEMM_MWG] - 1) / (size_t)v[CLF__GEMM_MWG] * (size_t)v[CLF__GEMM_MDIMC],
                            nb};
        size_t local[3] = {(size_t)v[CLF__GEMM_NDIMC], (size_t)v[CLF__GEMM_MDIMC], 1};
        clf__problem pr = {.dtype = plan->dtype, .m = m->m, .n = m->n, .k = m->k_flops, .batch = nb, .beta = m->beta};
        clf__work w = {plan->dtype == CLF_F64 ? "dgemm" : "sgemm", clf__family_gemm.flops(&pr),
                       clf__family_gemm.bytes(&pr)};
        if (klast != kk) {   /* the last member's share of the work is its own depth's */
            clf__problem one = pr, short_one = pr;
            one.batch = short_one.batch = 1;
            short_one.k = (size_t)klast;
            w.flops += clf__family_gemm.flops(&short_one) - clf__family_gemm.flops(&one);
            w.bytes += clf__family_gemm.bytes(&short_one) - clf__family_gemm.bytes(&one);
        }
        if (m->epi)
            clf__epi_work(plan->epi, (double)m->m * (double)m->n * (double)nb, &w);
        s = clf__enqueue(ctx, k, 3, global, local, &w, b0 + nb >= m->batch ? done : NULL);
    }
    return s;
}

static clf_status enqueue_reduce(clf_context *ctx, const clf__gemm_plan *plan, const clf__reduce_step *r,
                                 cl_kernel k, const scratch_bufs *sb, cl_event *done)
{
    size_t esz = clf__dtype_size(plan->dtype);
    cl_long m = (cl_long)r->m, n = (cl_long)r->n, ldc = (cl_long)r->c.ld;
    cl_int np = (cl_int)r->planes;
    cl_ulong plane = r->partial.stride, coff = r->c.off;
    float fa = (float)r->alpha, fb = (float)r->beta;
    const void *pa = plan->dtype == CLF_F64 ? (const void *)&r->alpha : (const void *)&fa;
    const void *pb = plan->dtype == CLF_F64 ? (const void *)&r->beta : (const void *)&fb;
    cl_mem partial = bind(&r->partial, sb), c = bind(&r->c, sb);
    const void *vals[] = {&m, &n, &np, pa, pb, &partial, &plane, &c, &coff, &ldc};
    size_t z[] = {8, 8, 4, esz, esz, sizeof(cl_mem), 8, sizeof(cl_mem), 8, 8};
    clf_status s = set_args(k, vals, z, 10);
    if (s == CLF_SUCCESS && r->epi)
        s = clf__epi_args(k, 10, plan->epi, r->r0, r->c0, 0);
    if (s != CLF_SUCCESS)
        return s;
    size_t global = round_up(r->m * r->n, 64), local = 64;
    clf__work w = {plan->dtype == CLF_F64 ? "dgemm_reduce" : "sgemm_reduce", (double)r->planes * (double)plane,
                   ((double)r->planes + (r->beta != 0.0 ? 2.0 : 1.0)) * (double)plane * (double)esz};
    if (r->epi)
        clf__epi_work(plan->epi, (double)r->m * (double)r->n, &w);
    return clf__enqueue(ctx, k, 1, &global, &local, &w, done);
}

static clf_status enqueue_convert(clf_context *ctx, const clf__convert_step *c, cl_kernel k, const scratch_bufs *sb,
                                  cl_event *done)
{
    cl_mem src = bind(&c->src, sb), dst = bind(&c->dst, sb);
    cl_long r = (cl_long)c->rows, kk = (cl_long)c->cols, rp = (cl_long)c->rows_pad, kp = (cl_long)c->cols_pad;
    cl_long lds = (cl_long)c->src.ld, ldd = (cl_long)c->dst.ld;
    cl_ulong sst = c->src.stride, dst_stride = c->dst.stride;
    clf_status s = CLF_SUCCESS;
    for (size_t b0 = 0; b0 < c->batch && s == CLF_SUCCESS; b0 += BATCH_CHUNK) {
        size_t nb = c->batch - b0 < BATCH_CHUNK ? c->batch - b0 : BATCH_CHUNK;
        cl_ulong soff = c->src.off + b0 * sst, doff = c->dst.off + b0 * dst_stride;
        cl_ulong eoff = c->scale_off + b0 * c->rows, est = c->rows;
        cl_int pass = 0;
        const void *v[] = {&r, &kk, &rp, &kp, &src, &soff, &lds, &sst, &dst, &doff, &ldd, &dst_stride, &sb->convert,
                           &eoff, &est, &pass};
        size_t z[] = {8, 8, 8, 8, sizeof(cl_mem), 8, 8, 8, sizeof(cl_mem), 8, 8, 8, sizeof(cl_mem), 8, 8, 4};
        if ((s = set_args(k, v, z, c->scaled ? 16 : 12)) != CLF_SUCCESS)
            break;
        /* 32 x 8 work-items per tile of 32 rows by 8 x 16 bytes of the packed type */
        size_t pk = 8 * 16 / clf__dtype_size(c->dst_type);
        size_t global[3] = {round_up(c->cols_pad, pk) / pk * 32, round_up(c->rows_pad, 32) / 4, nb};
        size_t local[3] = {32, 8, 1};
        if (c->by_rows)   /* a work-item a row, 16 to a work-group (one each cost a launch per row on PoCL) */
            global[0] = round_up(c->rows_pad, 16), global[1] = nb, global[2] = 1, local[0] = 16, local[1] = 1;
        clf__work w = {"gemm_convert", 0.0,
                       (double)nb * (double)(c->rows * c->cols * clf__dtype_size(c->src_type) +
                                             c->rows_pad * c->cols_pad * clf__dtype_size(c->dst_type))};
        if (c->scaled) {   /* split_pack: the rows' largest magnitudes (from zero), then the split parts */
            cl_uint zero = 0;
            cl_int e = clEnqueueFillBuffer(ctx->queue, sb->convert, &zero, 4, eoff * 4, nb * c->rows * 4, 0, NULL, NULL);
            if (e != CL_SUCCESS) {
                s = clf__fail_cl(e, "clEnqueueFillBuffer", "gemm 3xF16 scales");
                break;
            }
            clf__work w0 = {"gemm_split_max", 0.0, (double)nb * (double)(c->rows * c->cols * 4)};
            if ((s = clf__enqueue(ctx, k, 3, global, local, &w0, NULL)) != CLF_SUCCESS)
                break;
            pass = 1;
            if ((s = set_args_from(k, 15, (const void *[]){&pass}, (size_t[]){4}, 1)) != CLF_SUCCESS)
                break;
            w.bytes += (double)nb * (double)(2 * c->rows_pad * c->cols_pad * 2);   /* three runs of f16 */
        }
        s = clf__enqueue(ctx, k, c->by_rows ? 2 : 3, global, local, &w,
                         b0 + nb >= c->batch ? done : NULL);
    }
    return s;
}

static clf_status enqueue_mma(clf_context *ctx, const clf__gemm_plan *plan, const clf__mma_step *m, cl_kernel k,
                              const scratch_bufs *sb, cl_event *done)
{
    const int *v = m->cfg->v;
    size_t threads = (size_t)(v[CLF__MMA_BM] / v[CLF__MMA_WM] * (v[CLF__MMA_BN] / v[CLF__MMA_WN]) *
                              (v[CLF__MMA_WGMMA] ? 128 : 32));   /* a warpgroup, or a warp, per WM x WN tile */
    size_t tiles = (m->m + (size_t)v[CLF__MMA_BM] - 1) / (size_t)v[CLF__MMA_BM] *
                   ((m->n + (size_t)v[CLF__MMA_BN] - 1) / (size_t)v[CLF__MMA_BN]);
    cl_int mm = (cl_int)m->m, nn = (cl_int)m->n, kw = (cl_int)m->kw, kv = (cl_int)m->kv;
    cl_int kw_last = (cl_int)m->kw_last, kv_last = (cl_int)m->kv_last;
    float alpha = (float)m->alpha, beta = (float)m->beta;
    int f64 = m->mode == CLF__MMA_F64;   /* alpha and beta are doubles there */
    size_t sab = f64 ? 8 : 4;
    cl_mem a = bind(&m->a, sb), b = bind(&m->b, sb), c = bind(&m->c, sb);
    cl_long lda = (cl_long)m->a.ld, ldb = (cl_long)m->b.ld, ldc = (cl_long)m->c.ld;
    cl_ulong ast = m->a.stride, bst = m->b.stride, cst = m->c.stride;
    clf_status s = CLF_SUCCESS;
    for (size_t b0 = 0; b0 < m->batch && s == CLF_SUCCESS; b0 += BATCH_CHUNK) {
        size_t nb = m->batch - b0 < BATCH_CHUNK ? m->batch - b0 : BATCH_CHUNK;
        cl_ulong aoff = m->a.off + b0 * ast, boff = m->b.off + b0 * bst, coff = m->c.off + b0 * cst;
        int last = b0 + nb >= m->batch;   /* this launch holds the batch's last matrix */
        const void *vals[] = {&mm, &nn, &kw, &kv, last ? &kw_last : &kw, last ? &kv_last : &kv,
                              f64 ? (const void *)&m->alpha : &alpha, f64 ? (const void *)&m->beta : &beta, &a, &aoff,
                              &lda, &ast, &b, &boff, &ldb, &bst, &c, &coff, &ldc, &cst};
        size_t z[] = {4, 4, 4, 4, 4, 4, sab, sab, sizeof(cl_mem), 8, 8, 8, sizeof(cl_mem), 8, 8, 8, sizeof(cl_mem), 8, 8,
                      8};
        int nargs = 20;
        if ((s = set_args(k, vals, z, 20)) != CLF_SUCCESS)
            break;
        if (m->mode == CLF__MMA_3XF16) {   /* the rows' largest magnitudes of A and B, in the convert scratch */
            cl_ulong sao = m->sa_off + b0 * m->sa_stride, sas = m->sa_stride, sbo = m->sb_off + b0 * m->sb_stride,
                     sbs = m->sb_stride;
            const void *ev[] = {&sb->convert, &sao, &sas, &sbo, &sbs};
            if ((s = set_args_from(k, 20, ev, (size_t[]){sizeof(cl_mem), 8, 8, 8, 8}, 5)) != CLF_SUCCESS)
                break;
            nargs = 25;
        }
        if (m->epi && (s = clf__epi_args(k, (cl_uint)nargs, plan->epi, 0, 0, b0)) != CLF_SUCCESS)
            break;
        size_t global[2] = {tiles * threads, nb}, local[2] = {threads, 1};
        size_t in_size = clf__dtype_size(clf__mma_input_type((clf__mma_mode)m->mode)), runs = m->split3 ? 3 : 1;
        clf__problem pr = {.dtype = clf__mma_input_type((clf__mma_mode)m->mode), .m = m->m, .n = m->n,
                           .k = m->kw * 4 / in_size / runs, .batch = nb, .beta = m->beta};
        clf__work w = {"gemm_mma", clf__family_gemm_mma.flops(&pr), clf__family_gemm_mma.bytes(&pr)};
        if (last && m->kw_last != m->kw) {   /* the last member's share of the work is its own depth's */
            clf__problem one = pr, short_one = pr;
            one.batch = short_one.batch = 1;
            short_one.k = m->kw_last * 4 / in_size / runs;
            w.flops += clf__family_gemm_mma.flops(&short_one) - clf__family_gemm_mma.flops(&one);
            w.bytes += clf__family_gemm_mma.bytes(&short_one) - clf__family_gemm_mma.bytes(&one);
        }
        if (m->epi)
            clf__epi_work(plan->epi, (double)m->m * (double)m->n * (double)nb, &w);
        s = clf__enqueue(ctx, k, 2, global, local, &w, b0 + nb >= m->batch ? done : NULL);
    }
    return s;
}

static clf_status enqueue_step(clf_context *ctx, const clf__gemm_plan *plan, const clf__gemm_step *st, cl_kernel k,
                               const scratch_bufs *sb, cl_event *done)
{
    switch (st->kind) {
    case CLF__STEP_PACK: return enqueue_pack(ctx, plan, &st->u.pack, k, sb, done);
    case CLF__STEP_MAIN: return enqueue_main(ctx, plan, &st->u.main, k, sb, done);
    case CLF__STEP_REDUCE: return enqueue_reduce(ctx, plan, &st->u.reduce, k, sb, done);
    case CLF__STEP_CONVERT: return enqueue_convert(ctx, &st->u.convert, k, sb, done);
    case CLF__STEP_MMA: return enqueue_mma(ctx, plan, &st->u.mma, k, sb, done);
    case CLF__STEP_CPU_PACK:
        return clf__gemm_cpu_enqueue(ctx, plan->dtype, st, NULL, k, bind(&st->u.cpu_pack.src, sb),
                                     bind(&st->u.cpu_pack.dst, sb), NULL, done);
    case CLF__STEP_CPU:
        return clf__gemm_cpu_enqueue(ctx, plan->dtype, st, plan->epi, k, bind(&st->u.cpu.a, sb), bind(&st->u.cpu.b, sb),
                                     bind(&st->u.cpu.c, sb), done);
    case CLF__STEP_GEMV: {
        const clf__gemv_step *g = &st->u.gemv;
        clf__gemv_desc d = {g->a_rows_contiguous, g->rows, g->cols, g->nv, g->batch, g->alpha, g->beta,
                            bind(&g->a, sb), g->a.off, g->a.ld, g->a.stride, bind(&g->x, sb), g->x.off, g->incx,
                            g->x_vstride, g->x.stride, bind(&g->y, sb), g->y.off, g->incy, g->y_vstride, g->y.stride,
                            g->a_store, g->x_store, g->y_store};
        return clf__gemv_enqueue_desc(ctx, NULL, plan->dtype, &d, plan->epi, g->y_is_column, done);
    }
    }
    return clf__fail(CLF_ERR_INTERNAL, "gemm plan: unknown step %d", (int)st->kind);
}

/* Nothing to compute: still hand back an event when asked, as every call does. */
static clf_status marker(clf_context *ctx, cl_event *done)
{
    if (!done)
        return CLF_SUCCESS;
    cl_int e = clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, done);
    return e == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(e, "clEnqueueMarkerWithWaitList", "gemm with nothing to do");
}

/* The steps in order, holding the scratch they use. The context's scratch buffers are shared by every
 * call; holding them keeps another thread's steps from landing between this plan's writes to them and
 * the reads; partial is taken before pack (one lock order), the split flags last. A new flags buffer is zeroed. */
static clf_status enqueue_all(clf_context *ctx, const clf__gemm_plan *plan, cl_kernel *k, cl_event *done)
{
    scratch_bufs sb = {NULL, NULL, NULL, NULL};
    clf__scratch *held[4] = {NULL, NULL, NULL, NULL};
    size_t want[4] = {plan->convert_bytes, plan->partial_bytes, plan->pack_bytes, plan->flag_bytes};
    clf__scratch *which[4] = {&ctx->convert, &ctx->partial, &ctx->pack, &ctx->split_flags};
    cl_mem *into[4] = {&sb.convert, &sb.partial, &sb.pack, &sb.flags};
    clf_status s = CLF_SUCCESS;
    for (int i = 0; i < 4 && s == CLF_SUCCESS; i++)   /* one lock order: convert, partial, pack, flags */
        if (want[i] && (s = i == 3 ? clf__scratch_take_zeroed(ctx, which[i], want[i], "gemm split flags", into[i], NULL)
                                   : clf__scratch_take(ctx, which[i], want[i], into[i])) == CLF_SUCCESS)
            held[i] = which[i];
    for (int i = 0; i < plan->nsteps && s == CLF_SUCCESS; i++)
        s = enqueue_step(ctx, plan, &plan->steps[i], k[i], &sb, i + 1 == plan->nsteps ? done : NULL);
    for (int i = 3; i >= 0; i--)
        if (held[i])
            clf__scratch_give(held[i]);
    return s;
}

clf_status clf__gemm_exec(clf_context *ctx, const clf__gemm_plan *plan, int build_only, cl_event *done,
                          const clf__config **failed_cfg)
{
    if (done)
        *done = NULL;
    if (failed_cfg)
        *failed_cfg = NULL;
    if (plan->empty)
        return build_only ? CLF_SUCCESS : marker(ctx, done);
    cl_kernel k[CLF__GEMM_MAX_STEPS] = {NULL};
    clf_status s = CLF_SUCCESS;
    for (int i = 0; i < plan->nsteps && s == CLF_SUCCESS; i++) {
        s = step_kernel(ctx, plan, &plan->steps[i], &k[i]);
        if (s != CLF_SUCCESS && failed_cfg && plan->steps[i].kind == CLF__STEP_MAIN)
            *failed_cfg = plan->steps[i].u.main.cfg;
        if (s != CLF_SUCCESS && failed_cfg && plan->steps[i].kind == CLF__STEP_MMA)
            *failed_cfg = plan->steps[i].u.mma.cfg;
    }
    if (s == CLF_SUCCESS && !build_only)
        s = enqueue_all(ctx, plan, k, done);
    for (int i = 0; i < plan->nsteps; i++)
        clf__kernel_give(ctx, k[i]);
    return s;
}
