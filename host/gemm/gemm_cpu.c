/* gemm_cpu.c — the CPU path of a GEMM plan: when it is taken, its steps (pack A, pack B, the kernel of
 * cl/gemm_cpu.cl), and how the executor builds and enqueues them. The family descriptor and the tuner's
 * hooks are in gemm_cpu_family.c. */
#include "gemm_cpu.h"
#include "gemm_epilogue.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PACK_K 256          /* K run per pack work-item: PACK_K in cl/gemm_cpu.cl */
#define BATCH_CHUNK 65535   /* work-groups per launch along dimension 2 that every driver takes */
#define BLOCKS_PER_CORE 4   /* fewer blocks than this per compute unit leave cores idle at the end */

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }
static size_t cdiv(size_t x, size_t m) { return (x + m - 1) / m; }

static cl_uint preferred_floats(cl_device_id d)
{
    cl_uint w = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, sizeof w, &w, NULL) != CL_SUCCESS)
        return 0;
    return w;
}

int clf__gemm_cpu_wanted(clf_context *ctx)
{
    return (ctx->info.type & CL_DEVICE_TYPE_CPU) && preferred_floats(ctx->dev) >= 4;
}

/* The device behind dev's platform and device indices, when it still has dev's name (a wrapped context's
 * indices may name another). */
static cl_device_id device_of(const clf_device_info *dev)
{
    cl_platform_id plats[16];
    cl_device_id devs[64];
    cl_uint np = 0, nd = 0;
    char name[256] = "";
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || dev->platform_index < 0 ||
        (cl_uint)dev->platform_index >= np || np > 16)
        return NULL;
    if (clGetDeviceIDs(plats[dev->platform_index], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS ||
        dev->device_index < 0 || (cl_uint)dev->device_index >= nd || nd > 64)
        return NULL;
    cl_device_id d = devs[dev->device_index];
    if (clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, NULL) != CL_SUCCESS || strcmp(name, dev->name) != 0)
        return NULL;
    return d;
}

/* By device id: the tuner's validity checks ask thousands of times. */
static struct { char id[17]; size_t simd; } simd_memo[8];
static int simd_memo_n;
static pthread_mutex_t simd_memo_lock = PTHREAD_MUTEX_INITIALIZER;

size_t clf__cpu_simd_bytes(const clf_device_info *dev)
{
    size_t simd = 0;
    pthread_mutex_lock(&simd_memo_lock);
    for (int i = 0; i < simd_memo_n && !simd; i++)
        if (strcmp(simd_memo[i].id, dev->id) == 0)
            simd = simd_memo[i].simd;
    pthread_mutex_unlock(&simd_memo_lock);
    if (simd)
        return simd;
    cl_device_id d = device_of(dev);
    cl_uint w = d ? preferred_floats(d) : 0;
    /* Unknown (or a driver that prefers scalars): AVX2, the most common x86 SIMD width. */
    simd = w < 4 ? 32 : w > 16 ? 64 : 4 * (size_t)w;
    pthread_mutex_lock(&simd_memo_lock);
    if (simd_memo_n < 8) {
        snprintf(simd_memo[simd_memo_n].id, sizeof simd_memo[0].id, "%s", dev->id);
        simd_memo[simd_memo_n++].simd = simd;
    }
    pthread_mutex_unlock(&simd_memo_lock);
    return simd;
}

/* C narrower than a micro-tile: fewer vectors a micro-tile row (NV), down to the fewest that still cover n, so that
 * columns past n are neither packed nor multiplied. */
static void fit_width(const clf__cpu_product *p, clf__config *c)
{
    size_t vw = (size_t)c->v[CLF__CPU_VW];
    while (c->v[CLF__CPU_NV] > 1 && vw * (size_t)(c->v[CLF__CPU_NV] - 1) >= p->n)
        c->v[CLF__CPU_NV]--;
}

/* Fewer micro-tiles per work-item, the larger of the two first, until every core gets a few blocks. */
static void fill_cores(clf_context *ctx, const clf__cpu_product *p, clf__config *c)
{
    size_t cus = ctx->info.compute_units ? ctx->info.compute_units : 1;
    int *mi = &c->v[CLF__CPU_MI], *ni = &c->v[CLF__CPU_NI];
    size_t mr = (size_t)c->v[CLF__CPU_MR], nr = (size_t)(c->v[CLF__CPU_VW] * c->v[CLF__CPU_NV]);
    while (*mi * *ni > 1) {
        double blocks = (double)cdiv(p->m, mr * (size_t)*mi) * (double)cdiv(p->n, nr * (size_t)*ni) * (double)p->batch;
        if (blocks >= (double)(BLOCKS_PER_CORE * cus))
            break;
        if (*mi * (int)mr >= *ni * (int)nr && *mi > 1)
            *mi /= 2;
        else if (*ni > 1)
            *ni /= 2;
        else
            *mi /= 2;
    }
}

/* Products up to this much work (about 320^3) run unpacked: two pack launches cost more than strided reads
 * of operands that sit in L2 anyway. */
#define UNPACKED_MAX_WORK 33554432.0
#define UNPACKED_MAX_ROWS 32   /* and products of at most this many rows (or whole-vector columns) of C (use_packs) */

/* 1 when p has more multiply-adds than run unpacked: packs, or the kernel's copies, pay for themselves. */
static int past_unpacked(const clf__cpu_product *p)
{
    return (double)p->m * (double)p->n * (double)p->k > UNPACKED_MAX_WORK;
}

/* The gemm_cpu_pack source code of a storage type: 1 IEEE half, 2 bfloat16, 0 the plan's precision. */
static int src16(clf_dtype t) { return t == CLF_F16 ? 1 : t == CLF_BF16 ? 2 : 0; }

#define MI_MOST 16   /* the family's largest MI */

/* C of few rows (more than UNPACKED_MAX_ROWS, which read B in place) in one row block where MI can hold them: every
 * column block then multiplies all of C's rows once it has B's block at hand, and the kernel can copy B itself
 * (use_packs). PoCL, 2-core EPYC (AVX-512), fp32 GFLOP/s, medians of three alternating rounds (bench/results/
 * pocl-epyc/2026-12-07/cpu-copy-b.txt): AVX-512 tiles (MR 12), MI 8 -> 16, both packed: 128x4096x2048 96.4 ->
 * 130.2, 110x3500x3000 80.4 -> 122.6, 150x2500x3500 104.6 -> 135.1, 190x3000x2000 143.2 -> 146.5 (then copying B:
 * 137.3, 145.4, 161.0, 164.1); the shipped AVX2 entry (MR 6, KC 1024), MI 8 packed -> 16 with B copied: 64x4096x4096
 * 68.1 -> 98.7, 90x3000x3000 98.7 -> 126.7, A B^T 70x3000x2500 (B packed either way) 68.3 -> 83.7. fill_cores then
 * lowers MI again where the columns give the cores too few blocks. */
static void one_row_block(const clf__cpu_product *p, clf__config *c)
{
    size_t need = cdiv(p->m, (size_t)c->v[CLF__CPU_MR]);
    if (p->m > UNPACKED_MAX_ROWS && past_unpacked(p) && need > (size_t)c->v[CLF__CPU_MI] && need <= MI_MOST)
        c->v[CLF__CPU_MI] = (int)need;
}

#define NI_MOST 8   /* the family's largest NI */

/* Likewise C of few columns (more than UNPACKED_MAX_ROWS, rows past one row block) in one column block where NI can
 * hold them, so that the kernel copies A (use_packs). PoCL, 2-core EPYC, fp32 GFLOP/s,
 * medians of three alternating rounds (bench/results/pocl-epyc/2026-12-07/cpu-copy-a.txt): the shipped AVX2 entry
 * (NR 16), NI 4 packed -> 8 with A copied: 3001x77x1999 95.7 -> 115.3, 2200x100x3000 105.7 -> 117.6, 4000x120x2500
 * 122.0 -> 127.4. */
static void one_col_block(const clf__cpu_product *p, clf__config *c)
{
    size_t nr = (size_t)(c->v[CLF__CPU_VW] * c->v[CLF__CPU_NV]), need = cdiv(p->n, nr);
    if (p->n > UNPACKED_MAX_ROWS && p->m > (size_t)(c->v[CLF__CPU_MR] * c->v[CLF__CPU_MI]) && !src16(p->a_type) &&
        past_unpacked(p) && need > (size_t)c->v[CLF__CPU_NI] && need <= NI_MOST)
        c->v[CLF__CPU_NI] = (int)need;
}

/* How the kernel copies B itself into NI panels of a K block: 2 (PACKED=2) B stored K-major, 5 (PACKED=5) B stored
 * N x K; 0 when it cannot: B in 16 bits (the pack widens it), or the panels do not fit the device's local memory. */
static int copies_b(clf_context *ctx, const clf__cpu_product *p, const clf__config *c, clf_dtype dt)
{
    const int *v = c->v;
    double bytes = (double)v[CLF__CPU_NI] * v[CLF__CPU_KC] * v[CLF__CPU_VW] * v[CLF__CPU_NV] *
                   (double)clf__dtype_size(dt);
    return src16(p->b_type) || bytes > (double)ctx->info.local_mem ? 0 : p->b_kmajor ? 2 : 5;
}

/* How the kernel copies A itself: 3 (PACKED=3) A with K contiguous, into rows padded to KC + VW (cl/gemm_cpu.cl's
 * ALD); 4 (PACKED=4) A stored K-major, into micro-panels; 0 when it cannot: A in 16 bits (the pack widens it), or the
 * block's rows of a K block do not fit the device's local memory. */
static int copies_a(clf_context *ctx, const clf__cpu_product *p, const clf__config *c, clf_dtype dt)
{
    const int *v = c->v;
    double bytes = (double)v[CLF__CPU_MI] * v[CLF__CPU_MR] * (v[CLF__CPU_KC] + (p->a_kmajor ? 0 : v[CLF__CPU_VW])) *
                   (double)clf__dtype_size(dt);
    return src16(p->a_type) || bytes > (double)ctx->info.local_mem ? 0 : p->a_kmajor ? 4 : 3;
}

/* 0: A and B read in place; 1: both packed; 2: A packed, B copied by the kernel; 3: B packed, A copied by the
 * kernel (copies_b and copies_a decide whether it can, and how: 5 for a B stored N x K, 4 for an A stored K-major). */
static int use_packs(const clf__cpu_product *p, const clf__config *c)
{
    size_t vw = (size_t)c->v[CLF__CPU_VW], block_rows = (size_t)(c->v[CLF__CPU_MR] * c->v[CLF__CPU_MI]);
    size_t block_cols = vw * (size_t)(c->v[CLF__CPU_NV] * c->v[CLF__CPU_NI]);
    if (src16(p->a_type) || src16(p->b_type))
        return 1;   /* 16-bit operands are widened by the packs */
    int forced = p->pack;
    const char *env = getenv("CLFORGE_GEMM_CPU_PACK");
    if (forced < 0 && env && *env)
        forced = atoi(env) >= 0 && atoi(env) <= 3 ? atoi(env) : 1;
    if (forced >= 0)
        return !p->b_kmajor && forced == 0 ? 1 : forced;   /* the kernel reads B's rows in place as vectors */
    int work = past_unpacked(p);
    /* C's columns in one column block: each element of A meets one work-item, which copies it (below, for B). */
    int one_cols = work && p->n > UNPACKED_MAX_ROWS && p->n <= block_cols && p->m > block_rows;
    if (!p->b_kmajor)   /* not read in place: copied by the kernel as below, or packed */
        return work && p->m <= block_rows ? 2 : one_cols ? 3 : 1;
    /* A few rows of C: each element of B meets so few of them that packing B (a read and a write of all of it)
     * costs more than reading it in place. PoCL, 2-core EPYC, fp32 GFLOP/s packed -> in place: 8x4096x4096
     * 35 -> 75-86, 16x2048x2048 82-84 -> 98-117, 32x4096x2048 99-115 -> 152-154; 64x4096x1024 173-221 against
     * 187-208 (bench/results/pocl-epyc/2026-12-02/cpu-narrow-c.txt). */
    if (p->m <= UNPACKED_MAX_ROWS)
        return 0;
    /* Likewise a few columns, when they are whole vectors (the kernel then reads B's rows as vectors; a partial
     * vector goes element by element): 2048x16x2048 77-89 -> 201-205, 3000x32x3000 77-120 -> 323-355, where
     * 4096x12x2048 (vectors of 16) went 43-52 -> 41-42 and 2000x24x3000 80-94 -> 70-78. */
    if (p->n <= UNPACKED_MAX_ROWS && vw && p->n % vw == 0)
        return 0;
    if (!work)
        return 0;
    /* All of C's rows in one row block: each element of B is used by one work-item, so the kernel copies it (one
     * read) rather than the pack launch writing all of B for the kernel to read back. PoCL, 2-core EPYC
     * (AVX-512), fp32 GFLOP/s, packed -> copied, medians of three alternating rounds (bench/results/pocl-epyc/
     * 2026-12-07/cpu-copy-b.txt): heuristic tiles (96-row blocks) 40x3500x3000 70.8 -> 90.2, 64x4096x4096
     * 114.7 -> 123.5, 96x3000x3000 124.0 -> 140.5, 77x5000x2000 +5%, A^T B 90x3000x2500 -1%; fp64 64x2048x2048
     * 49.0 -> 64.3. With two row blocks the copy was even (128x4096x2048 0.99, 150x2500x3500 0.98), with three it
     * lost (200x3000x2000 0.87); at 32 rows or fewer reading B in place beat it (8x4096x4096 0.72). */
    if (p->m <= block_rows)
        return 2;
    return one_cols ? 3 : 1;
}

static clf_status too_many_steps(void)
{
    return clf__fail(CLF_ERR_INTERNAL, "gemm plan: more than %d steps", CLF__GEMM_MAX_STEPS);
}

static clf_status add_pack(clf__gemm_plan *plan, int width, size_t rows, size_t k, size_t batch, int kmajor,
                           clf__gemm_operand src, clf_dtype type, size_t at, size_t elems)
{
    if (plan->nsteps >= CLF__GEMM_MAX_STEPS)
        return too_many_steps();
    clf__gemm_step *st = &plan->steps[plan->nsteps++];
    st->kind = CLF__STEP_CPU_PACK;
    /* Element (r, k): at r*ld + k when stored r-major, at k*ld + r when K-major. */
    st->u.cpu_pack = (clf__cpu_pack_step){width, rows, k, batch, kmajor ? 1 : src.ld, kmajor ? src.ld : 1, src,
                                          {CLF__BUF_PACK, NULL, at, 0, elems}, src16(type)};
    return CLF_SUCCESS;
}

clf_status clf__gemm_cpu_plan(clf_context *ctx, clf__gemm_plan *plan, const clf__cpu_product *p,
                              const clf__config *cfg, int *planned)
{
    *planned = 0;
    if (cfg) {
        if (!clf__family_gemm_cpu.valid(cfg, &ctx->info, plan->dtype))
            return clf__fail(CLF_ERR_INVALID_ARG, "gemm: gemm_cpu configuration is not valid on this device");
        plan->cfg_cpu = *cfg;
        plan->origin_cpu = "caller";
    } else {
        clf_status s = clf__config_resolve(ctx, &clf__family_gemm_cpu, plan->dtype, NULL, &plan->cfg_cpu,
                                           &plan->origin_cpu);
        if (s != CLF_SUCCESS)
            return s;
        fit_width(p, &plan->cfg_cpu);
        if (strcmp(plan->origin_cpu, "override") != 0) {   /* sweeps run the tiles they force */
            one_row_block(p, &plan->cfg_cpu);
            one_col_block(p, &plan->cfg_cpu);
        }
        fill_cores(ctx, p, &plan->cfg_cpu);
    }
    const int *v = plan->cfg_cpu.v;
    /* Between its K blocks the kernel keeps partial sums in C: a program that reads the old C runs here only
     * when K fits one block (else the tiled kernel runs it). */
    if (p->epi && plan->epi && plan->epi->reads_c && p->k > (size_t)v[CLF__CPU_KC])
        return CLF_SUCCESS;
    size_t mr = (size_t)v[CLF__CPU_MR], nr = (size_t)(v[CLF__CPU_VW] * v[CLF__CPU_NV]);
    size_t esz = clf__dtype_size(plan->dtype), lim = (size_t)INT_MAX / 2;
    if (p->m > lim || p->n > lim || p->k > lim || plan->nsteps + 3 > CLF__GEMM_MAX_STEPS)
        return CLF_SUCCESS;
    int packs = use_packs(p, &plan->cfg_cpu);
    if (packs == 2 || packs == 3) {   /* which copy the kernel makes, or both packs where it cannot */
        int how = packs == 2 ? copies_b(ctx, p, &plan->cfg_cpu, plan->dtype)
                             : copies_a(ctx, p, &plan->cfg_cpu, plan->dtype);
        packs = how ? how : 1;
    }
    if (!packs) {
        if (plan->nsteps >= CLF__GEMM_MAX_STEPS)
            return CLF_SUCCESS;
        clf__gemm_step *st = &plan->steps[plan->nsteps++];
        st->kind = CLF__STEP_CPU;
        st->u.cpu = (clf__cpu_step){&plan->cfg_cpu, 0, p->a_kmajor ? 1 : p->a.ld, p->a_kmajor ? p->a.ld : 1, p->m,
                                    p->n, p->k, p->batch, p->alpha, p->beta, p->a, p->b, p->c, p->epi, p->r0, p->c0};
        plan->path = "cpu";
        plan->bucket = clf__bucket_name(&clf__family_gemm_cpu, NULL);
        *planned = 1;
        return CLF_SUCCESS;
    }
    /* Packed A then packed B (each 16-element aligned) after whatever the plan packs already. */
    size_t a_one, b_one, a_all, b_all, a_at = round_up(cdiv(plan->pack_bytes, esz), 16), b_at, end, bytes;
    int copy_a = packs == 3 || packs == 4, copy_b = packs == 2 || packs == 5;
    if (!clf__mul(copy_a ? 0 : round_up(p->m, mr), p->k, &a_one) || !clf__mul(a_one, p->batch, &a_all) ||
        !clf__mul(copy_b ? 0 : round_up(p->n, nr), p->k, &b_one) || !clf__mul(b_one, p->batch, &b_all) ||
        !clf__add(a_at, a_all, &b_at) || !clf__add(round_up(b_at, 16), b_all, &end) || !clf__mul(end, esz, &bytes) ||
        bytes > ctx->info.max_alloc)
        return CLF_SUCCESS;
    b_at = round_up(b_at, 16);
    clf_status s = CLF_SUCCESS;
    if (!copy_a)
        s = add_pack(plan, (int)mr, p->m, p->k, p->batch, p->a_kmajor, p->a, p->a_type, a_at, a_one);
    if (s == CLF_SUCCESS && !copy_b)
        s = add_pack(plan, (int)nr, p->n, p->k, p->batch, p->b_kmajor, p->b, p->b_type, b_at, b_one);
    if (s != CLF_SUCCESS)
        return s;
    clf__gemm_step *st = &plan->steps[plan->nsteps++];
    st->kind = CLF__STEP_CPU;
    clf__gemm_operand a_packed = {CLF__BUF_PACK, NULL, a_at, 0, a_one};
    clf__gemm_operand b_packed = {CLF__BUF_PACK, NULL, b_at, 0, b_one};
    size_t a_rs = packs == 3 ? p->a.ld : packs == 4 ? 1 : 0, a_ks = packs == 3 ? 1 : packs == 4 ? p->a.ld : 0;
    st->u.cpu = (clf__cpu_step){&plan->cfg_cpu, packs, a_rs, a_ks, p->m, p->n, p->k, p->batch, p->alpha, p->beta,
                                copy_a ? p->a : a_packed, copy_b ? p->b : b_packed, p->c, p->epi, p->r0, p->c0};
    plan->pack_bytes = bytes;
    plan->path = "cpu";
    plan->bucket = clf__bucket_name(&clf__family_gemm_cpu, NULL);
    *planned = 1;
    return CLF_SUCCESS;
}

clf_status clf__gemm_cpu_options(clf_dtype dt, const clf__gemm_step *st, char *opts, size_t cap, const char **file,
                                 const char **name)
{
    int prec = dt == CLF_F64 ? 64 : 32;
    *file = "gemm_cpu.cl";
    if (st->kind == CLF__STEP_CPU_PACK) {
        *name = "gemm_cpu_pack";
        int n = snprintf(opts, cap, "-DPRECISION=%d -DPW=%d", prec, st->u.cpu_pack.width);
        if (st->u.cpu_pack.src16 && n >= 0 && (size_t)n < cap)   /* else the options, and the cache key, as before */
            snprintf(opts + n, cap - (size_t)n, " -DSRC16=%d", st->u.cpu_pack.src16);
        return CLF_SUCCESS;
    }
    *name = "gemm_cpu";
    opts[0] = '\0';
    clf_status s = clf__config_options(&clf__family_gemm_cpu, st->u.cpu.cfg, opts, cap);
    size_t len = strlen(opts);
    if (s == CLF_SUCCESS &&
        (size_t)snprintf(opts + len, cap - len, " -DPRECISION=%d -DPACKED=%d", prec, st->u.cpu.packed) >= cap - len)
        return clf__fail(CLF_ERR_INTERNAL, "gemm_cpu build options do not fit in %zu bytes", cap);
    return s;
}

static clf_status set_args(cl_kernel k, const void *const *vals, const size_t *sizes, int n)
{
    for (int i = 0; i < n; i++) {
        cl_int e = clSetKernelArg(k, (cl_uint)i, sizes[i], vals[i]);
        if (e != CL_SUCCESS)
            return clf__fail_cl(e, "clSetKernelArg", "gemm_cpu argument %d", i);
    }
    return CLF_SUCCESS;
}

static clf_status enqueue_pack(clf_context *ctx, clf_dtype dt, const clf__cpu_pack_step *p, cl_kernel k, cl_mem src,
                               cl_mem dst, cl_event *done)
{
    size_t esz = clf__dtype_size(dt);
    cl_int rows = (cl_int)p->rows, kk = (cl_int)p->k;
    cl_long rs = (cl_long)p->rs, ks = (cl_long)p->ks;
    cl_ulong sst = p->src.stride, dst_stride = p->dst.stride;
    clf_status s = CLF_SUCCESS;
    for (size_t b0 = 0; b0 < p->batch && s == CLF_SUCCESS; b0 += BATCH_CHUNK) {
        size_t nb = p->batch - b0 < BATCH_CHUNK ? p->batch - b0 : BATCH_CHUNK;
        cl_ulong soff = p->src.off + b0 * sst, doff = p->dst.off + b0 * dst_stride;
        const void *v[] = {&rows, &kk, &src, &soff, &rs, &ks, &sst, &dst, &doff, &dst_stride};
        size_t z[] = {4, 4, sizeof(cl_mem), 8, 8, 8, 8, sizeof(cl_mem), 8, 8};
        if ((s = set_args(k, v, z, 10)) != CLF_SUCCESS)
            break;
        size_t global[3] = {cdiv(p->k, PACK_K), cdiv(p->rows, (size_t)p->width), nb}, local[3] = {1, 1, 1};
        clf__work w = {dt == CLF_F64 ? "dgemm_cpu_pack" : "sgemm_cpu_pack", 0.0,
                       (double)nb * (double)p->k *
                           ((double)p->rows * (double)(p->src16 ? 2 : esz) + (double)round_up(p->rows, (size_t)p->width) * (double)esz)};
        s = clf__enqueue(ctx, k, 3, global, local, &w, b0 + nb >= p->batch ? done : NULL);
    }
    return s;
}

static clf_status enqueue_cpu(clf_context *ctx, clf_dtype dt, const clf__cpu_step *m, const clf__epi *epi,
                              cl_kernel k, cl_mem a, cl_mem b, cl_mem c, cl_event *done)
{
    const int *v = m->cfg->v;
    size_t esz = clf__dtype_size(dt);
    cl_int mm = (cl_int)m->m, nn = (cl_int)m->n, kk = (cl_int)m->k;
    float fa = (float)m->alpha, fb = (float)m->beta;
    const void *pa = dt == CLF_F64 ? (const void *)&m->alpha : (const void *)&fa;
    const void *pb = dt == CLF_F64 ? (const void *)&m->beta : (const void *)&fb;
    cl_long ldc = (cl_long)m->c.ld, a_rs = (cl_long)m->a_rs, a_ks = (cl_long)m->a_ks, ldb = (cl_long)m->b.ld;
    cl_ulong ast = m->a.stride, bst = m->b.stride, cst = m->c.stride;
    size_t bm = cdiv(m->m, (size_t)(v[CLF__CPU_MR] * v[CLF__CPU_MI]));
    size_t bn = cdiv(m->n, (size_t)(v[CLF__CPU_VW] * v[CLF__CPU_NV] * v[CLF__CPU_NI]));
    clf_status s = CLF_SUCCESS;
    for (size_t b0 = 0; b0 < m->batch && s == CLF_SUCCESS; b0 += BATCH_CHUNK) {
        size_t nb = m->batch - b0 < BATCH_CHUNK ? m->batch - b0 : BATCH_CHUNK;
        cl_ulong aoff = m->a.off + b0 * ast, boff = m->b.off + b0 * bst, coff = m->c.off + b0 * cst;
        const void *vals[] = {&mm, &nn, &kk, pa, pb, &a, &aoff, &ast, &b, &boff, &bst, &c, &coff, &ldc, &cst,
                              &a_rs, &a_ks, &ldb};
        size_t z[] = {4, 4, 4, esz, esz, sizeof(cl_mem), 8, 8, sizeof(cl_mem), 8, 8, sizeof(cl_mem), 8, 8, 8, 8, 8, 8};
        if ((s = set_args(k, vals, z, 18)) != CLF_SUCCESS ||
            (m->epi && (s = clf__epi_args(k, 18, epi, m->r0, m->c0, b0)) != CLF_SUCCESS))
            break;
        size_t global[3] = {v[CLF__CPU_ORDER] ? bm : bn, v[CLF__CPU_ORDER] ? bn : bm, nb}, local[3] = {1, 1, 1};
        clf__problem pr = {.dtype = dt, .m = m->m, .n = m->n, .k = m->k, .batch = nb, .beta = m->beta};
        clf__work w = {dt == CLF_F64 ? "dgemm_cpu" : "sgemm_cpu", clf__family_gemm_cpu.flops(&pr),
                       clf__family_gemm_cpu.bytes(&pr)};
        if (m->epi)
            clf__epi_work(epi, (double)m->m * (double)m->n * (double)nb, &w);
        s = clf__enqueue(ctx, k, 3, global, local, &w, b0 + nb >= m->batch ? done : NULL);
    }
    return s;
}

clf_status clf__gemm_cpu_enqueue(clf_context *ctx, clf_dtype dt, const clf__gemm_step *st, const struct clf__epi *epi,
                                 cl_kernel k, cl_mem x, cl_mem y, cl_mem z, cl_event *done)
{
    if (st->kind == CLF__STEP_CPU_PACK)
        return enqueue_pack(ctx, dt, &st->u.cpu_pack, k, x, y, done);
    return enqueue_cpu(ctx, dt, &st->u.cpu, st->u.cpu.epi ? epi : NULL, k, x, y, z, done);
}
