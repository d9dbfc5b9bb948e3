/* gemm_run.c — the launch of the gemm family's kernels for a checked call: which path (direct kernel,
 * or pack pre-pass + fast kernel with thin edge strips on the direct kernel), split-K for outputs too
 * small to fill the device, and the per-context scratch buffers these use. */
#include "gemm.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_CHUNK 65535   /* work-groups per launch along dimension 2 that every driver takes */
#define SPLIT_K_WAVES 4     /* split-K aims at this many work-groups per compute unit */
#define SPLIT_K_MIN_SLICE 1024
#define SPLIT_K_MAX 32

/* ---- launching -------------------------------------------------------------------------------- */

typedef struct operand {
    cl_mem buf;
    size_t off, ld, stride;
} operand;

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

static clf_status set_args(cl_kernel k, const void *const *vals, const size_t *sizes, int n)
{
    for (int i = 0; i < n; i++) {
        cl_int e = clSetKernelArg(k, (cl_uint)i, sizes[i], vals[i]);
        if (e != CL_SUCCESS)
            return clf__fail_cl(e, "clSetKernelArg", "gemm argument %d", i);
    }
    return CLF_SUCCESS;
}

/* Kernel `name` of cl/<file> built with opts through the program cache. *k is NULL when build_only:
 * compiling was all that was asked (the tuner's builder threads). */
static clf_status gemm_kernel(clf_context *ctx, const char *file, const char *opts, const char *name, int build_only,
                              cl_kernel *k)
{
    *k = NULL;
    const char *src;
    clf_status s = clf__source(file, &src);
    if (!s)
        s = clf__kernel(ctx, src, opts, name, k);
    if (!s && build_only) {
        clReleaseKernel(*k);
        *k = NULL;
    }
    return s;
}

/* Copies an operand (R rows along K, Cn columns along M or N) into scratch, zero-padded to Rp x Cp. */
static clf_status enqueue_pack(clf_context *ctx, clf_dtype dt, int trans, size_t R, size_t Cn, size_t Rp,
                               size_t Cp, const operand *src, size_t batch, cl_mem dst, size_t d_off, int build_only)
{
    char opts[96];
    snprintf(opts, sizeof opts, "-DPRECISION=%d -DTRANS=%d", dt == CLF_F64 ? 64 : 32, trans);
    cl_kernel k;
    clf_status s = gemm_kernel(ctx, "gemm_pack.cl", opts, "gemm_pack", build_only, &k);
    if (s || !k)
        return s;
    size_t esz = clf__dtype_size(dt);
    for (size_t b0 = 0; b0 < batch && !s; b0 += BATCH_CHUNK) {
        size_t nb = batch - b0 < BATCH_CHUNK ? batch - b0 : BATCH_CHUNK;
        cl_long r = (cl_long)R, cn = (cl_long)Cn, rp = (cl_long)Rp, cp = (cl_long)Cp;
        cl_long lds = (cl_long)src->ld, ldd = (cl_long)Cp;
        cl_ulong soff = src->off + b0 * src->stride, sst = src->stride, dst_stride = Rp * Cp;
        cl_mem dbuf = dst;
        cl_ulong doff = d_off + b0 * dst_stride;
        const void *v[] = {&r, &cn, &rp, &cp, &src->buf, &soff, &lds, &sst, &dbuf, &doff, &ldd, &dst_stride};
        size_t z[] = {8, 8, 8, 8, sizeof(cl_mem), 8, 8, 8, sizeof(cl_mem), 8, 8, 8};
        s = set_args(k, v, z, 12);
        if (s)
            break;
        size_t global[3] = {round_up(Cp, 32), round_up(Rp, 32) / 4, nb};
        size_t local[3] = {32, 8, 1};
        clf__work w = {dt == CLF_F64 ? "dgemm_pack" : "sgemm_pack", 0.0,
                       (double)nb * (double)(R * Cn + Rp * Cp) * (double)esz};
        s = clf__enqueue(ctx, k, 3, global, local, &w, NULL);
    }
    clReleaseKernel(k);
    return s;
}

/* Enqueues gemm_main over row-major C (M x N) with K-major operands as described by the flags. */
static clf_status enqueue_main(clf_context *ctx, clf_dtype dt, const clf__config *cfg, int direct,
                               int a_kmajor, int b_kmajor, int long_index, size_t M, size_t N, size_t K,
                               size_t flops_k, double alpha, double beta, const operand *A,
                               const operand *B, const operand *C, size_t batch, int c_vec_ok, int build_only,
                               cl_event *done)
{
    char opts[512] = "";
    clf_status s = clf__config_options(&clf__family_gemm, cfg, opts, sizeof opts);
    if (s)
        return s;
    size_t len = strlen(opts);
    snprintf(opts + len, sizeof opts - len, " -DPRECISION=%d -DDIRECT=%d -DA_KMAJOR=%d -DB_KMAJOR=%d -DLONG_INDEX=%d",
             dt == CLF_F64 ? 64 : 32, direct, a_kmajor, b_kmajor, long_index);
    cl_kernel k;
    s = gemm_kernel(ctx, "gemm.cl", opts, "gemm_main", build_only, &k);
    if (s || !k)
        return s;
    const int *v = cfg->v;
    size_t esz = clf__dtype_size(dt);
    cl_int m = (cl_int)M, n = (cl_int)N, kk = (cl_int)K, cvec = c_vec_ok;
    float fa = (float)alpha, fb = (float)beta;
    const void *pa = dt == CLF_F64 ? (const void *)&alpha : (const void *)&fa;
    const void *pb = dt == CLF_F64 ? (const void *)&beta : (const void *)&fb;
    cl_long lda = (cl_long)A->ld, ldb = (cl_long)B->ld, ldc = (cl_long)C->ld;
    cl_ulong ast = A->stride, bst = B->stride, cst = C->stride;
    for (size_t b0 = 0; b0 < batch && !s; b0 += BATCH_CHUNK) {
        size_t nb = batch - b0 < BATCH_CHUNK ? batch - b0 : BATCH_CHUNK;
        cl_ulong aoff = A->off + b0 * A->stride, boff = B->off + b0 * B->stride, coff = C->off + b0 * C->stride;
        const void *vals[] = {&m, &n, &kk, pa, pb, &A->buf, &aoff, &lda, &ast, &B->buf, &boff, &ldb, &bst,
                              &C->buf, &coff, &ldc, &cst, &cvec};
        size_t z[] = {4, 4, 4, esz, esz, sizeof(cl_mem), 8, 8, 8, sizeof(cl_mem), 8, 8, 8,
                      sizeof(cl_mem), 8, 8, 8, 4};
        s = set_args(k, vals, z, 18);
        if (s)
            break;
        size_t global[3] = {(N + (size_t)v[CLF__GEMM_NWG] - 1) / (size_t)v[CLF__GEMM_NWG] * (size_t)v[CLF__GEMM_NDIMC],
                            (M + (size_t)v[CLF__GEMM_MWG] - 1) / (size_t)v[CLF__GEMM_MWG] * (size_t)v[CLF__GEMM_MDIMC],
                            nb};
        size_t local[3] = {(size_t)v[CLF__GEMM_NDIMC], (size_t)v[CLF__GEMM_MDIMC], 1};
        clf__problem pr = {.dtype = dt, .m = M, .n = N, .k = flops_k, .batch = nb, .beta = beta};
        clf__work w = {dt == CLF_F64 ? "dgemm" : "sgemm", clf__family_gemm.flops(&pr), clf__family_gemm.bytes(&pr)};
        int last = b0 + nb >= batch;
        s = clf__enqueue(ctx, k, 3, global, local, &w, last ? done : NULL);
    }
    clReleaseKernel(k);
    return s;
}

static int fits_int(size_t x) { return x <= (size_t)INT_MAX; }

/* 1 when every row of C starts on a VWN-vector boundary (whole tiles may then use vector stores). */
static int c_aligned(const operand *c, const clf__config *cfg, size_t batch)
{
    size_t w = (size_t)cfg->v[CLF__GEMM_VWN];
    return c->ld % w == 0 && c->off % w == 0 && (batch == 1 || c->stride % w == 0);
}

/* ---- split-K ----------------------------------------------------------------------------------- */

#define SPLIT_K_GRAIN 256   /* K slices are multiples of this: long enough to amortise the partials'
                             * traffic, and any KWG and vector width divides it (aligned slices) */

/* Work-groups of cfg's tiles over an M x N output (double: no overflow). */
static double tile_count(const clf__config *cfg, size_t M, size_t N)
{
    return (double)((M + (size_t)cfg->v[CLF__GEMM_MWG] - 1) / (size_t)cfg->v[CLF__GEMM_MWG]) *
           (double)((N + (size_t)cfg->v[CLF__GEMM_NWG] - 1) / (size_t)cfg->v[CLF__GEMM_NWG]);
}

/* How many slices of K a product with too few output tiles to fill the device should be cut into; 1
 * for no split. $CLFORGE_GEMM_SPLIT_K=N forces N (1: never), for sweeps. CPU devices have few compute
 * units, which the tiles already fill. */
static size_t split_k_parts(const clf_context *ctx, const clf__config *cfg, size_t M, size_t N, size_t K)
{
    const char *env = getenv("CLFORGE_GEMM_SPLIT_K");
    if (env && *env) {
        long want = strtol(env, NULL, 10);
        size_t most = K / SPLIT_K_GRAIN;
        return want > 1 ? ((size_t)want < most ? (size_t)want : most) : 1;
    }
    /* Slices shorter than this lost on the H200: 1024^3 split in 2 ran at 32 against 38 TFLOP/s,
     * while 64x4096x4096 gained (21.4 -> 26.1 TFLOP/s in 4 slices of 1024). */
    size_t most = K / SPLIT_K_MIN_SLICE;
    if (ctx->info.type & CL_DEVICE_TYPE_CPU)
        return 1;
    size_t cus = ctx->info.compute_units ? ctx->info.compute_units : 1;
    double tiles = tile_count(cfg, M, N);   /* >= 1: M and N are not 0 here */
    if (tiles >= (double)cus)
        return 1;
    size_t tl = (size_t)tiles, parts = (SPLIT_K_WAVES * cus + tl - 1) / tl;
    if (parts > most)
        parts = most;
    return parts > SPLIT_K_MAX ? SPLIT_K_MAX : parts;
}

/* 1 when the packed kernel's tiles would leave most of a GPU idle and K is too short to split: the
 * direct kernel's smaller tiles then do better (H200, 544^3: 5.6 TFLOP/s in 45 tiles of 64x128 with
 * two packs, where the direct kernel runs 512^3 at 13). */
static int underfilled(const clf_context *ctx, const clf__config *cfg, size_t M, size_t N, size_t K, size_t batch)
{
    if (ctx->info.type & CL_DEVICE_TYPE_CPU || K >= 2 * SPLIT_K_MIN_SLICE)
        return 0;
    return 2 * tile_count(cfg, M, N) * (double)batch < (double)(ctx->info.compute_units ? ctx->info.compute_units : 1);
}

static clf_status enqueue_reduce(clf_context *ctx, const clf__gemm_call *r, cl_mem partial, size_t planes,
                                 int build_only, cl_event *done)
{
    cl_kernel k;
    clf_status s = gemm_kernel(ctx, "gemm_reduce.cl", r->dtype == CLF_F64 ? "-DPRECISION=64" : "-DPRECISION=32",
                               "gemm_reduce", build_only, &k);
    if (s || !k)
        return s;
    size_t esz = clf__dtype_size(r->dtype);
    cl_long m = (cl_long)r->m, n = (cl_long)r->n, ldc = (cl_long)r->ldc;
    cl_int np = (cl_int)planes;
    cl_ulong plane = r->m * r->n, coff = r->c_off;
    float fa = (float)r->alpha, fb = (float)r->beta;
    const void *pa = r->dtype == CLF_F64 ? (const void *)&r->alpha : (const void *)&fa;
    const void *pb = r->dtype == CLF_F64 ? (const void *)&r->beta : (const void *)&fb;
    const void *vals[] = {&m, &n, &np, pa, pb, &partial, &plane, &r->c, &coff, &ldc};
    size_t z[] = {8, 8, 4, esz, esz, sizeof(cl_mem), 8, sizeof(cl_mem), 8, 8};
    s = set_args(k, vals, z, 10);
    if (!s) {
        size_t global = round_up(r->m * r->n, 64), local = 64;
        clf__work w = {r->dtype == CLF_F64 ? "dgemm_reduce" : "sgemm_reduce", (double)planes * (double)plane,
                       ((double)planes + (r->beta != 0.0 ? 2.0 : 1.0)) * (double)plane * (double)esz};
        s = clf__enqueue(ctx, k, 1, &global, &local, &w, done);
    }
    clReleaseKernel(k);
    return s;
}

/* Split-K for row-major r (one matrix): K is cut into slices of kc (a multiple of SPLIT_K_GRAIN) and a
 * shorter remainder; each slice's product goes to its own M x N plane of the context's partial buffer
 * (the whole slices as one batched call over A and B strided along K), and gemm_reduce sums the
 * planes into C with alpha and beta. More work-groups, each with a shorter K loop: for outputs too
 * small to fill the device, such as skinny products and the edge strips of e.g. 4097^3. */
static clf_status run_split_k(clf_context *ctx, const clf__gemm_call *r, const clf__config *cfg_in,
                              clf__gemm_path path, size_t parts, int *launches, cl_event *done)
{
    size_t M = r->m, N = r->n, K = r->k, esz = clf__dtype_size(r->dtype);
    size_t kc = K / parts / SPLIT_K_GRAIN * SPLIT_K_GRAIN;
    size_t whole = K / kc, rest = K - whole * kc, planes = whole + (rest > 0), plane = M * N, bytes;
    if (!clf__mul(plane, planes, &bytes) || !clf__mul(bytes, esz, &bytes) || bytes > ctx->info.max_alloc) {
        clf__gemm_call one = *r;
        one.no_split = 1;   /* the partials would not fit: no split */
        return clf__gemm_run(ctx, &one, cfg_in, path, launches, done);
    }
    int a_kmajor = r->ta == CLF_TRANS, b_kmajor = r->tb == CLF_NO_TRANS;
    size_t step_a = a_kmajor ? r->lda : 1, step_b = b_kmajor ? r->ldb : 1;   /* one step along K */
    cl_mem partial = NULL;
    clf_status s;
    if (!r->build_only && (s = clf__scratch_take(ctx, &ctx->partial, bytes, &partial)) != CLF_SUCCESS)
        return s;
    clf__gemm_call sub = *r;
    sub.layout = CLF_ROW_MAJOR;
    sub.alpha = 1.0;
    sub.beta = 0.0;
    sub.c = partial;
    sub.c_off = 0;
    sub.ldc = N;
    sub.stride_c = plane;
    sub.no_split = 1;
    sub.k = kc;
    sub.batch = whole;
    sub.stride_a = kc * step_a;
    sub.stride_b = kc * step_b;
    int n1 = 0, n2 = 0;
    if (r->build_only)
        sub.c = r->c;   /* nothing is enqueued: any buffer will do */
    s = clf__gemm_run(ctx, &sub, cfg_in, path, &n1, NULL);
    if (!s && rest) {
        sub.k = rest;
        sub.batch = 1;
        sub.a_off = r->a_off + whole * kc * step_a;
        sub.b_off = r->b_off + whole * kc * step_b;
        sub.c_off = whole * plane;
        s = clf__gemm_run(ctx, &sub, cfg_in, path, &n2, NULL);
    }
    if (!s)
        s = enqueue_reduce(ctx, r, partial, planes, r->build_only, done);
    if (partial)
        clf__scratch_give(&ctx->partial);
    if (launches)
        *launches = n1 + n2 + 1;
    return s;
}

clf_status clf__gemm_run(clf_context *ctx, const clf__gemm_call *call, const clf__config *cfg_in,
                         clf__gemm_path path, int *launches, cl_event *done)
{
    if (launches)
        *launches = 0;
    if (done)
        *done = NULL;
    clf__gemm_call r = *call;
    /* Column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T over the same storage. */
    if (r.layout == CLF_COL_MAJOR) {
        r.m = call->n; r.n = call->m;
        r.a = call->b; r.a_off = call->b_off; r.lda = call->ldb; r.stride_a = call->stride_b; r.ta = call->tb;
        r.b = call->a; r.b_off = call->a_off; r.ldb = call->lda; r.stride_b = call->stride_a; r.tb = call->ta;
    }
    if (r.m == 0 || r.n == 0 || r.batch == 0 || ((r.alpha == 0.0 || r.k == 0) && r.beta == 1.0)) {
        /* Nothing to compute; still hand back an event when asked, as every call does. */
        if (done) {
            cl_int e = clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, done);
            if (e != CL_SUCCESS)
                return clf__fail_cl(e, "clEnqueueMarkerWithWaitList", "gemm with nothing to do");
        }
        return CLF_SUCCESS;
    }
    size_t M = r.m, N = r.n, K = r.k;
    int scale_only = r.alpha == 0.0 || K == 0;   /* C = beta*C; A and B are not referenced */
    if (scale_only)
        K = 0;
    const char *bucket = clf__gemm_bucket(&ctx->info, M, N, K);
    if (scale_only || path == CLF__GEMM_DIRECT)
        bucket = "small";
    else if (path == CLF__GEMM_FAST && strcmp(bucket, "small") == 0)
        bucket = "large";
    int direct = strcmp(bucket, "small") == 0;
    clf__config cfg;
    clf_status s;
    if (cfg_in) {
        if (!clf__family_gemm.valid(cfg_in, &ctx->info, r.dtype))
            return clf__fail(CLF_ERR_INVALID_ARG, "gemm: configuration is not valid on this device");
        cfg = *cfg_in;
    } else if ((s = clf__gemm_config(ctx, r.dtype, bucket, &cfg)) != CLF_SUCCESS) {
        return s;
    }
    if (!direct && path == CLF__GEMM_AUTO && !cfg_in && underfilled(ctx, &cfg, M, N, K, r.batch)) {
        direct = 1;
        if ((s = clf__gemm_config(ctx, r.dtype, "small", &cfg)) != CLF_SUCCESS)
            return s;
    }
    size_t parts = r.batch == 1 && !scale_only && !r.no_split ? split_k_parts(ctx, &cfg, M, N, K) : 1;
    if (parts > 1)
        return run_split_k(ctx, &r, cfg_in, path, parts, launches, done);
    const int *v = cfg.v;
    size_t mwg = (size_t)v[CLF__GEMM_MWG], nwg = (size_t)v[CLF__GEMM_NWG], kwg = (size_t)v[CLF__GEMM_KWG];
    size_t vwm = (size_t)v[CLF__GEMM_VWM], vwn = (size_t)v[CLF__GEMM_VWN];
    int a_kmajor = r.ta == CLF_TRANS, b_kmajor = r.tb == CLF_NO_TRANS;
    size_t esz = clf__dtype_size(r.dtype);
    operand A = {r.a, r.a_off, r.lda, r.stride_a}, B = {r.b, r.b_off, r.ldb, r.stride_b};
    operand C = {r.c, r.c_off, r.ldc, r.stride_c};
    size_t ea, eb, ec;
    clf__gemm_extent(a_kmajor ? K : M, a_kmajor ? M : K, r.lda, &ea);
    clf__gemm_extent(b_kmajor ? K : N, b_kmajor ? N : K, r.ldb, &eb);
    clf__gemm_extent(M, N, r.ldc, &ec);
    int c_vec_ok = c_aligned(&C, &cfg, r.batch);
    if (scale_only) {
        /* Any valid buffer will do for the unread operands. */
        A = C;
        B = C;
        ea = eb = 0;
    }

    if (!direct) {
        size_t Kp = round_up(K, kwg), Mp = round_up(M, mwg), Np = round_up(N, nwg);
        /* An aligned operand is read in place, either way round (the kernel transposes on the fly
         * when its vectors run along K); anything else is packed K-major and zero-padded. */
        int pack_a = !(M % mwg == 0 && K % kwg == 0 && r.lda % vwm == 0 && r.a_off % vwm == 0 &&
                       (r.batch == 1 || r.stride_a % vwm == 0) && (a_kmajor || kwg % vwm == 0));
        int pack_b = !(N % nwg == 0 && K % kwg == 0 && r.ldb % vwn == 0 && r.b_off % vwn == 0 &&
                       (r.batch == 1 || r.stride_b % vwn == 0) && (b_kmajor || kwg % vwn == 0));
        size_t sa = 0, sb = 0, total = 0, bytes;
        int ok = (!pack_a || (clf__mul(Kp, Mp, &sa) && clf__mul(sa, r.batch, &sa))) &&
                 (!pack_b || (clf__mul(Kp, Np, &sb) && clf__mul(sb, r.batch, &sb))) &&
                 clf__add(sa, sb, &total) && clf__mul(total, esz, &bytes);
        if (!ok || (total > 0 && (bytes > ctx->info.max_alloc || ctx->info.max_work_group < 256))) {
            /* The scratch would not fit, or the device cannot run the pack kernel's 32x8 work-groups:
             * the direct kernel needs neither. */
            direct = 1;
            if (!cfg_in && (s = clf__gemm_config(ctx, r.dtype, "small", &cfg)) != CLF_SUCCESS)
                return s;
        } else {
            /* The context's pack scratch is reused by every call; holding it keeps another thread's packs
             * from landing between this call's packs and the kernel that reads them. */
            cl_mem scratch = NULL;
            int locked = total > 0 && !r.build_only;
            if (locked && (s = clf__scratch_take(ctx, &ctx->pack, bytes, &scratch)) != CLF_SUCCESS)
                return s;
            int n_launch = 0;
            s = CLF_SUCCESS;
            if (pack_a) {
                s = enqueue_pack(ctx, r.dtype, !a_kmajor, K, M, Kp, Mp, &A, r.batch, scratch, 0, r.build_only);
                A = (operand){scratch, 0, Mp, Kp * Mp};
                ea = Kp * Mp;
                n_launch++;
            }
            if (!s && pack_b) {
                s = enqueue_pack(ctx, r.dtype, !b_kmajor, K, N, Kp, Np, &B, r.batch, scratch, sa, r.build_only);
                B = (operand){scratch, sa, Np, Kp * Np};
                eb = Kp * Np;
                n_launch++;
            }
            /* Edge tiles that would be mostly padding (less than half a tile used) go to the direct
             * kernel instead, so that e.g. 4097 does not pay for a nearly empty extra row and column
             * of tiles, and a partly filled extra wave of work-groups. Only worth it when the bulk
             * runs several waves: otherwise the edge tiles run alongside it for free, and the extra
             * launches cost more (measured on the H200: 1000x3000x700 lost 24% with the split). */
            size_t waves_min = 4 * (size_t)(ctx->info.compute_units ? ctx->info.compute_units : 1);
            int split = (double)(M / mwg) * (double)(N / nwg) * (double)r.batch >= (double)waves_min;
            size_t Mb = split && M % mwg && M % mwg < mwg / 2 && M > mwg ? M - M % mwg : M;
            size_t Nb = split && N % nwg && N % nwg < nwg / 2 && N > nwg ? N - N % nwg : N;
            int strips = (Mb < M) + (Nb < N);
            int long_index = !(fits_int(ea) && fits_int(eb) && fits_int(ec));
            if (!s)
                s = enqueue_main(ctx, r.dtype, &cfg, 0, pack_a || a_kmajor, pack_b || b_kmajor, long_index, Mb, Nb,
                                 Kp, K, r.alpha, r.beta, &A, &B, &C, r.batch, c_vec_ok, r.build_only, strips ? NULL : done);
            n_launch++;
            if (locked)
                clf__scratch_give(&ctx->pack);   /* the strips read the caller's operands, not the packs */
            /* The strips are thin, K-long products: the direct kernel, split along K when that fills
             * the device (see split_k_parts). */
            clf__gemm_call strip = r;
            strip.layout = CLF_ROW_MAJOR;
            if (!s && Mb < M) {   /* rows Mb..M-1, every column */
                strip.m = M - Mb;
                strip.a_off += a_kmajor ? Mb : Mb * r.lda;
                strip.c_off += Mb * r.ldc;
                int n = 0;
                s = clf__gemm_run(ctx, &strip, NULL, CLF__GEMM_DIRECT, &n, Nb < N ? NULL : done);
                n_launch += n;
            }
            if (!s && Nb < N) {   /* columns Nb..N-1 of rows 0..Mb-1 */
                strip = r;
                strip.layout = CLF_ROW_MAJOR;
                strip.m = Mb;
                strip.n = N - Nb;
                strip.b_off += b_kmajor ? Nb : Nb * r.ldb;
                strip.c_off += Nb;
                int n = 0;
                s = clf__gemm_run(ctx, &strip, NULL, CLF__GEMM_DIRECT, &n, done);
                n_launch += n;
            }
            if (launches)
                *launches = n_launch;
            return s;
        }
    }
    int long_index = !(fits_int(ea) && fits_int(eb) && fits_int(ec));
    c_vec_ok = c_aligned(&C, &cfg, r.batch);
    s = enqueue_main(ctx, r.dtype, &cfg, 1, a_kmajor, b_kmajor, long_index, M, N, K, K, r.alpha, r.beta, &A,
                     &B, &C, r.batch, c_vec_ok, r.build_only, done);
    if (launches)
        *launches = 1;
    return s;
}
