/* gemm_plan_typed.c — the planner's typed products: f16/bf16/tf32/3xTF32/3xF16 and fp64 on the matrix units
 * (operands converted, packed, split into parts or read in place; tiles narrowed or reshaped for the product; K
 * split by the waves model), the portable mixed-precision path (16-bit operands widened for the fp32 planner, C
 * converted back), and thin and tiny products on the gemv kernels. gemm_plan.c holds the entry point and the fp32
 * rules; every threshold below was measured, docs/mixed-precision.md and docs/gemm.md give the numbers. */
#include "gemm_planner.h"
#include "gemm_cpu.h"
#include "gemm_epilogue.h"
#include "gemm_mma.h"
#include "gemm_waves.h"
#include "gemv.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- mixed precision ----------------------------------------------------------------------------- */

#define CONVERT_ALIGN 64   /* elements: every converted operand starts 256-byte aligned (uint4 loads) */

/* Where rows x cols (x batch) elements of type t placed after the first `from` bytes of the convert scratch would
 * end, in bytes; 0 when they would not fit one allocation. *off gets their element offset. */
static size_t convert_end(const planner *pl, clf_dtype t, size_t from, size_t rows, size_t cols, size_t batch,
                          size_t *off)
{
    size_t esz = clf__dtype_size(t), n, bytes, at = round_up(from, CONVERT_ALIGN * 4);
    if (!clf__mul(rows, cols, &n) || !clf__mul(n, batch, &n) || !clf__mul(n, esz, &bytes) ||
        !clf__add(at, bytes, &bytes) || bytes > pl->ctx->info.max_alloc)
        return 0;
    *off = at / esz;
    return bytes;
}

/* Room for rows x cols (x batch) elements of type t in the convert scratch; *off gets its element offset. */
static int convert_room(planner *pl, clf_dtype t, size_t rows, size_t cols, size_t batch, size_t *off)
{
    size_t end = convert_end(pl, t, pl->plan->convert_bytes, rows, cols, batch, off);
    if (end)
        pl->plan->convert_bytes = end;
    return end != 0;
}

static clf_status add_convert(planner *pl, clf_dtype from, clf_dtype to, int kmajor, size_t rows, size_t cols,
                              size_t rows_pad, size_t cols_pad, size_t batch, clf__gemm_operand src,
                              clf__gemm_operand dst)
{
    clf__gemm_step *st = clf__plan_add_step(pl, CLF__STEP_CONVERT);
    if (!st)
        return clf__plan_too_many_steps();
    st->u.convert = (clf__convert_step){from, to, kmajor, rows, cols, rows_pad, cols_pad, batch, src, dst,
                                        is_cpu(pl->ctx) && !kmajor, 0, 0, 0};
    return CLF_SUCCESS;
}

static clf_status no_room(void)
{
    return clf__fail(CLF_ERR_INVALID_ARG, "gemm: the converted operands would not fit in one device allocation");
}

/* $CLFORGE_GEMM_MMA_MN=pack: K-major f16/bf16 operands are packed even where the configuration could read them in
 * place. */
static int mn_in_place(void) { return clf__env_rule_on("CLFORGE_GEMM_MMA_MN", "pack"); }

/* A K-major operand's rows of K (and its start, and each matrix of a batch) are 16-byte aligned: unit elements. */
static int kmajor_readable(const clf__gemm_operand *o, size_t batch, size_t unit)
{
    return o->ld % unit == 0 && o->off % unit == 0 && (batch == 1 || o->stride % unit == 0);
}

/* $CLFORGE_GEMM_MMA_GATHER: "pack" packs every operand whose rows are not 16-byte aligned (as before gathering
 * existed), "always" gathers them whatever the product's size; unset: the rule in mma_operand. */
typedef enum { GATHER_RULE, GATHER_PACK, GATHER_ALWAYS } gather_mode;

static gather_mode gather_env(void)
{
    return (gather_mode)clf__env_word("CLFORGE_GEMM_MMA_GATHER", "pack always");
}

/* One operand for the matrix units: rows x K, K contiguous, in the mode's input type; split3 (1 for A, 2 for B;
 * 3xTF32 and 3xF16 on wgmma) always converted into rows of three runs of the padded K (SPLIT3 in cl/gemm_convert.cl;
 * 3xF16's rows scaled first, their largest magnitudes at *scale_at of the convert scratch, rows apart a matrix); read
 * in place when it already is, rows 32-byte aligned (16-byte with cp.async in a small product), in whole tiles or (async:
 * cp.async copies, which zero-fill what lies past the edges, *edge set) with K a whole number of 16-byte
 * pieces; or stored K-major in the input type with 16-byte aligned rows of K, where the configuration reads such
 * operands (mn_ok: clf__mma_reads_kmajor, tiles of a multiple of 64 rows; *mn set); K-contiguous in the input type
 * but not so aligned, in a small product on cp.async copies: read in place by gathering each piece (*gather set;
 * *o stays in elements); else converted and packed. *o gets it in 32-bit words. */
static clf_status mma_operand(planner *pl, clf__mma_mode mode, clf_dtype type, int kmajor, size_t rows, size_t k,
                              size_t tile_rows, size_t tile_k, size_t batch, int async, int small, int mn_ok,
                              int split3, clf__gemm_operand *o, int *edge, int *mn, int *gather, size_t *scale_at)
{
    clf_dtype in = clf__mma_input_type(mode);
    size_t q = 32 / clf__dtype_size(in);   /* elements per 32-byte load; cp.async copies 16-byte pieces */
    size_t unit = async && small ? q / 2 : q;
    int whole = rows % tile_rows == 0 && k % tile_k == 0;
    if (!split3 && kmajor && mn_ok && type == in && tile_rows % 64 == 0 && kmajor_readable(o, batch, q / 2)) {
        o->off = clf__mma_words(mode, o->off), o->ld = clf__mma_words(mode, o->ld);
        o->stride = clf__mma_words(mode, o->stride);
        *mn = 1;
        return CLF_SUCCESS;
    }
    if (!split3 && !kmajor && type == in && (whole || (async && k % (q / 2) == 0)) && o->ld % unit == 0 &&
        o->off % unit == 0 && (batch == 1 || o->stride % unit == 0)) {
        o->off = clf__mma_words(mode, o->off), o->ld = clf__mma_words(mode, o->ld);
        o->stride = clf__mma_words(mode, o->stride);
        *edge |= !whole;
        return CLF_SUCCESS;
    }
    /* Rows that cp.async cannot copy (an odd K or leading dimension, an offset off 16 bytes): the packing pass is two
     * launches that cost more than the whole of a small product (H200, f16 777x1555x999: 7.2 us each against the
     * kernel's 19 us), so the kernel gathers those rows itself there. */
    gather_mode gm = gather_env();
    if (!split3 && !kmajor && type == in && async && gm != GATHER_PACK && (small || gm == GATHER_ALWAYS)) {
        *gather = 1;
        return CLF_SUCCESS;
    }
    size_t rp = round_up(rows, tile_rows), kp = round_up(k, tile_k), row = split3 ? 3 * kp : kp, at;
    int scaled = split3 && mode == CLF__MMA_3XF16;
    if (!convert_room(pl, in, rp, row, batch, &at) || (scaled && !convert_room(pl, CLF_F32, rows, 1, batch, scale_at)))
        return no_room();
    clf__gemm_operand dst = {CLF__BUF_CONVERT, NULL, at, row, rp * row};
    clf_status s = add_convert(pl, type, in, kmajor, rows, k, rp, kp, batch, *o, dst);
    if (s == CLF_SUCCESS) {
        clf__convert_step *c = &pl->plan->steps[pl->plan->nsteps - 1].u.convert;
        c->split3 = split3, c->scaled = scaled, c->scale_off = scaled ? *scale_at : 0;
    }
    *o = (clf__gemm_operand){CLF__BUF_CONVERT, NULL, clf__mma_words(mode, at), clf__mma_words(mode, row),
                             clf__mma_words(mode, rp * row)};
    return s;
}

/* bm x bn tiles of p's C, over the whole batch. */
static double mma_tiles(const product *p, size_t bm, size_t bn)
{
    return (double)((p->m + bm - 1) / bm) * (double)((p->n + bn - 1) / bn) * (double)p->batch;
}

/* A wgmma configuration's tiles made narrow (BN = WN = 64 on four stages) for products they would leave mostly
 * empty (n at most half of BN) or that fill fewer work-groups than the device has compute units. H200, f16,
 * 2026-12-01 (bench/results/h200/2026-12-01/mma-sweeps/small1.txt, small2.txt): batched 512 x 128x64x128
 * 24.2 -> 58.3 TFLOP/s (cuBLAS 46.9), 896x1664x1024 152.8 -> 171.8, 777x1555x999 78.3 -> 81.8, 1024^3
 * 121.3 -> 128.8; 2048^3, 4097^3 and batched 512 x 128x128x64 fill the device and keep their tiles. */
static void narrow_wgmma(const clf_context *ctx, const product *p, clf_dtype dt, clf__config *cfg, const char **origin)
{
    int *v = cfg->v;
    if (!v[CLF__MMA_WGMMA] || v[CLF__MMA_BN] <= 64 || strcmp(*origin, "override") == 0)   /* a forced one stays */
        return;
    double tiles = mma_tiles(p, (size_t)v[CLF__MMA_BM], (size_t)v[CLF__MMA_BN]);
    if (2 * p->n > (size_t)v[CLF__MMA_BN] && tiles >= (double)cus(ctx))
        return;
    clf__config n = *cfg;
    n.v[CLF__MMA_BN] = n.v[CLF__MMA_WN] = 64;
    n.v[CLF__MMA_STAGES] = 4;
    if (clf__family_gemm_mma.valid(&n, &ctx->info, dt)) {
        *cfg = n;
        *origin = "narrowed for the shape";
    }
}

/* Tiles for f16/bf16/tf32 products with a few hundred rows or columns (a batch of tokens times a weight matrix). The
 * entry's 128 x 128 tiles leave such products poorly balanced over the compute units: 300 x 12288 is 288 tiles on
 * 132 units, and C covers 78% of them. Each candidate's time is modelled as the busiest unit's: its tiles one after
 * another at the candidate's measured rate, slower where a unit holds only one or two of them (too few warps to
 * hide the operands' latency). H200, f16 in and out, B stored N x K, every candidate forced, 2026-12-02
 * (scripts/gpu/h200_midm_mma.sh, bench/results/h200/2026-12-02/midm-mma/run1-sweep.txt; the 2026-12-01 kmajor
 * sweep in run6-splits.txt for 128 to 512 rows): TFLOP/s of the entry's tiles -> the best candidate, 300 x 12288 x
 * 4096 202 -> 296 (64 x 128), 832 x 5120 x 4096 238 -> 346, 112 x 7168 x 4096 89 -> 173 (64 x 64), 240 x 5120 x
 * 8192 146 -> 234; 512 x 8192 x 8192, 640 x 11008 x 2048 and 1000 x 8192 x 3072 ran fastest on the entry's. The
 * model's rates, relative to the entry's, and the share of them a unit reaches holding one or two tiles, are
 * fitted to those runs; the same sweep in tf32 (run3-tf32-sweep.txt) gave the same relative rates (entry 1, the
 * others 0.80-0.85). A candidate replaces the narrowing rule's choice only when modelled TILE_SWITCH faster, and
 * only with at least as many tiles as units: 80 x 4096 x 14336 on 128 unsplit 64 x 64 tiles ran 90 TFLOP/s against
 * 142 on the narrowed tiles split along K (run6-rows-batches-ab.txt). */
typedef struct wgmma_tiles {
    int bm, bn, wide_k, stages;   /* wide_k: stages of 128-byte rows (BK 64 in f16, 32 in tf32), else the entry's */
    double rate, one, two;   /* saturated rate; the share of it with one, two tiles on a unit */
} wgmma_tiles;

static const wgmma_tiles WGMMA_TILES[] = {
    {128, 128, 0, 0, 1.00, 0.55, 1.0},   /* the entry's (stages 0: as resolved) */
    {128, 64, 0, 4, 0.83, 0.55, 1.0},    /* narrow_wgmma's */
    {64, 128, 0, 4, 0.86, 0.45, 0.8},    /* one warpgroup of 64 x 128 */
    {64, 64, 1, 3, 0.80, 0.45, 0.8},     /* one warpgroup of 64 x 64 */
};
#define TILE_SWITCH 1.10

/* Modelled throughput (relative) of t's tiles on p: C's area over the busiest unit's time. */
static double tiles_speed(const clf_context *ctx, const wgmma_tiles *t, const product *p)
{
    double cu = (double)cus(ctx), bm = t->bm, bn = t->bn, tiles = mma_tiles(p, (size_t)t->bm, (size_t)t->bn);
    double hi = ceil(tiles / cu), lo = floor(tiles / cu);
    double share[3] = {1.0, t->one, t->two};
    double time = hi / (hi < 3 ? share[(int)hi] : 1.0);
    if (lo > 0 && lo < hi)
        time = fmax(time, lo / (lo < 3 ? share[(int)lo] : 1.0));
    return (double)p->m * (double)p->n * (double)p->batch * t->rate / (time * cu * bm * bn);
}

/* 1 when cfg (the entry's wgmma configuration, perhaps narrowed) was replaced by tiles the model finds TILE_SWITCH
 * faster on this product (a batch counts all its tiles); those run unsplit. Only the f16/bf16 and tf32 entries' own
 * 128 x 128 tiles. */
static int reshape_wgmma(const clf_context *ctx, const product *p, clf__mma_mode mode, clf__config *cfg,
                         const clf__config *entry, const char **origin)
{
    const int *e = entry->v;
    if ((mode != CLF__MMA_F16 && mode != CLF__MMA_BF16 && mode != CLF__MMA_TF32) || !e[CLF__MMA_WGMMA] ||
        e[CLF__MMA_BM] != 128 || e[CLF__MMA_BN] != 128 || strcmp(*origin, "override") == 0 ||
        !clf__env_rule_on("CLFORGE_GEMM_MMA_TILES", "entry"))
        return 0;
    const wgmma_tiles *now = &WGMMA_TILES[cfg->v[CLF__MMA_BN] == 64 ? 1 : 0], *best = now;
    double base = tiles_speed(ctx, now, p), top = base;
    for (size_t i = 2; i < sizeof WGMMA_TILES / sizeof WGMMA_TILES[0]; i++) {
        const wgmma_tiles *t = &WGMMA_TILES[i];
        if (mma_tiles(p, (size_t)t->bm, (size_t)t->bn) < (double)cus(ctx))
            continue;   /* fewer tiles than units: the narrowed tiles split along K serve better */
        double s = tiles_speed(ctx, t, p);
        if (s > top)
            top = s, best = t;
    }
    if (best == now || top < TILE_SWITCH * base)
        return 0;
    clf__config c = *entry;
    c.v[CLF__MMA_BM] = best->bm;
    c.v[CLF__MMA_BN] = c.v[CLF__MMA_WN] = best->bn;
    c.v[CLF__MMA_WM] = 64;
    c.v[CLF__MMA_STAGES] = best->stages;
    if (best->wide_k)
        c.v[CLF__MMA_BK] = (int)(128 / clf__dtype_size(clf__mma_input_type(mode)));
    if (!clf__family_gemm_mma.valid(&c, &ctx->info, clf__mma_precision(mode)))
        return 0;
    *cfg = c;
    *origin = "tiles chosen for the shape";
    return 1;
}

/* Elements of the mode's input type in w words. */
static size_t mma_elems(const clf__mma_step *m, size_t w)
{
    return w * 4 / clf__dtype_size(clf__mma_input_type((clf__mma_mode)m->mode));
}

/* How far an operand's storage moves for kw words of K: kw words along a K-contiguous row (kw's elements where it is
 * gathered, whose offsets are in elements), kw's elements rows of K down a K-major one (mn). */
static size_t k_span(const clf__mma_step *m, const clf__gemm_operand *o, int mn, int gather, size_t kw)
{
    return mn ? mma_elems(m, kw) * o->ld : gather ? mma_elems(m, kw) : kw;
}

/* Slices of K on the matrix units are whole stages and start on 8-word boundaries (the kernel's operands do). */
static size_t mma_k_grain(const clf__mma_step *m)
{
    size_t bkw = clf__mma_words((clf__mma_mode)m->mode, (size_t)m->cfg->v[CLF__MMA_BK]);
    return bkw < 8 ? 8 : bkw;   /* both powers of two */
}

static clf_status add_mma(planner *pl, const clf__mma_step *m)
{
    clf__gemm_step *st = clf__plan_add_step(pl, CLF__STEP_MMA);
    if (!st)
        return clf__plan_too_many_steps();
    st->u.mma = *m;
    return CLF_SUCCESS;
}

/* Rows r0 .. r0 + m->m of the product m, split along K into about `parts` slices of whole stages, as deep as each
 * other but the last (the launch's last matrix: kw_last, kv_last, which holds K's end), in one batched launch into
 * partial planes in the plan's dtype, alpha 1, beta 0; then gemm_reduce stores C in its type, with alpha, beta and
 * the epilogue. m is the whole product: batch 1, A's rows from r0 (the caller offsets it). */
static clf_status mma_split(planner *pl, const clf__mma_step *m, size_t r0, size_t parts)
{
    clf__gemm_plan *plan = pl->plan;
    size_t grain = mma_k_grain(m), stages = m->kw / grain;
    if (parts > stages)
        parts = stages;
    if (parts < 2)
        return add_mma(pl, m);
    size_t kc = (stages + parts - 1) / parts * grain, planes = (m->kw + kc - 1) / kc, plane = m->m * m->n, bytes;
    if (!clf__mul(plane, planes, &bytes) || !clf__mul(bytes, clf__dtype_size(plan->dtype), &bytes) ||
        bytes > pl->ctx->info.max_alloc)
        return add_mma(pl, m);   /* the partials would not fit: no split */
    if (strcmp(plan->path, "mma") == 0)
        plan->path = "mma-split";
    if (bytes > plan->partial_bytes)
        plan->partial_bytes = bytes;
    clf__mma_step slices = *m;
    slices.c_type = plan->dtype;
    slices.alpha = 1.0;
    slices.beta = 0.0;
    slices.epi = 0;
    slices.c = (clf__gemm_operand){CLF__BUF_PARTIAL, NULL, 0, m->n, plane};
    slices.kw = kc;
    slices.kv = mma_elems(m, kc);
    slices.kw_last = m->kw - (planes - 1) * kc;                   /* at least a stage: K's padding is less */
    slices.kv_last = m->kv - (planes - 1) * mma_elems(m, kc);
    slices.batch = planes;
    slices.a.stride = k_span(m, &m->a, m->a_mn, m->a_gather, kc);   /* one slice along K */
    slices.sa_stride = slices.sb_stride = 0;                          /* every slice has the same rows */
    slices.b.stride = k_span(m, &m->b, m->b_mn, m->b_gather, kc);
    clf_status s = add_mma(pl, &slices);
    clf__gemm_step *st = s == CLF_SUCCESS ? clf__plan_add_step(pl, CLF__STEP_REDUCE) : NULL;
    if (s != CLF_SUCCESS || !st)
        return s != CLF_SUCCESS ? s : clf__plan_too_many_steps();
    st->u.reduce = (clf__reduce_step){m->m, m->n, planes, m->alpha, m->beta, slices.c, m->c, m->epi, r0, 0, m->c_type};
    return CLF_SUCCESS;
}

#define MMA_SLICE_FIXED 4   /* a matrix-unit work-group's fixed cost (prologue, store), in stages */
#define MMA_MIN_SLICE 4     /* stages */

/* The K (elements) of matrix-unit products that cost as much as writing and reading back their fp32 (fp64)
 * partial sums: 4 F / BW (8 F / BW for fp64), F the kernel's rate, BW the memory's. From the H200 (2026-12-01,
 * scripts/gpu/h200_mma_split.sh, bench/results/h200/2026-12-01/mma-split/): f16 ~400 TFLOP/s, tf32 ~210,
 * 3xTF32 ~56, fp64 ~52, against ~3.5 TB/s. Without it the model split 1024^3 f16 in two and lost 42%. */
static double mma_partial_k(clf__mma_mode mode)
{
    switch (mode) {
    case CLF__MMA_F16:
    case CLF__MMA_BF16:
    case CLF__MMA_3XF16: return 460;
    case CLF__MMA_TF32: return 240;
    case CLF__MMA_F64: return 120;
    default: return 64;
    }
}

/* Split-K on the matrix units (one product, not a batch). $CLFORGE_GEMM_SPLIT_K=N forces N slices of the whole
 * product. Otherwise, where slots (work-groups resident at once: compute units x the tuning entry's "wg_per_cu";
 * 0 for a configuration the caller forces) is known: a product of fewer tiles than the device runs at
 * once is split when the waves model (split_waves) says slices run it at least 10% faster; a product whose
 * last wave would leave most of the device idle runs its whole waves as they are and the leftover rows of
 * tiles split along K, as plan_waves does for the fp32 kernel. */
static clf_status mma_waves(planner *pl, const clf__mma_step *m, size_t slots)
{
    const int *v = m->cfg->v;
    size_t bm = (size_t)v[CLF__MMA_BM], bn = (size_t)v[CLF__MMA_BN];
    size_t tiles = (m->m + bm - 1) / bm * ((m->n + bn - 1) / bn);
    long want = clf__plan_forced_split();
    if (want)
        return want > 1 ? mma_split(pl, m, 0, (size_t)want) : add_mma(pl, m);
    if (!slots)
        return add_mma(pl, m);
    /* In stages; a plane's cost scales with the share of the tiles' area that C covers (a tail of one row
     * writes one row of partial sums). */
    size_t kst = m->kw / mma_k_grain(m), kel = mma_elems(m, kst * mma_k_grain(m));
    /* split operands: K is three runs deep, at about tf32's (f16's) rate per element of it */
    clf__k_cut cut_k = {kst, 1, MMA_SLICE_FIXED,
                   mma_partial_k(m->split3 && m->mode == CLF__MMA_3XTF32 ? CLF__MMA_TF32 : (clf__mma_mode)m->mode) /
                       (double)kel};
    double t;
    if (tiles < slots) {
        cut_k.plane_cost *= (double)(m->m * m->n) / ((double)tiles * (double)bm * (double)bn);
        size_t parts = clf__best_split(tiles, slots, &cut_k, MMA_MIN_SLICE, &t);
        return parts > 1 && t <= CLF__WAVE_GAIN ? mma_split(pl, m, 0, parts) : add_mma(pl, m);
    }
    size_t bulk_rows, parts = clf__last_wave_split(m->m, m->n, bm, bn, slots, cut_k, MMA_MIN_SLICE, &bulk_rows);
    if (parts == 1)
        return add_mma(pl, m);
    clf__mma_step bulk = *m, tail = *m;
    size_t mb = bulk_rows * bm;
    bulk.m = mb;
    tail.m = m->m - mb;
    tail.a.off += m->a_mn ? clf__mma_words((clf__mma_mode)m->mode, mb) : mb * m->a.ld;
    tail.sa_off += mb;
    tail.c.off += mb * m->c.ld;
    pl->plan->path = "mma-waves";
    clf_status s = add_mma(pl, &bulk);
    return s == CLF_SUCCESS ? mma_split(pl, &tail, mb, parts) : s;
}

/* f16/bf16 operands stored K-major (B stored K x N, as x W has it; A stored K x M) are read in place by
 * configurations that can (clf__mma_reads_kmajor) where the other side of C has at most KMAJOR_PACK_ROWS; beyond
 * it the packing pass costs little against the product and the K-contiguous read is faster. Products of at most
 * KMAJOR_SYNC_ROWS rows (columns, for A) run on the CLF__MMA_KMAJOR configuration (mma.sync on 64 x 64 tiles, split
 * along K) instead of a wgmma one. H200, f16 in and out, TFLOP/s, packed -> wgmma in place -> mma.sync in place
 * (the kmajor configuration: split along K by the planner in run3, not in run4) (scripts/gpu/h200_kmajor.sh
 * PART=rule, bench/results/h200/2026-12-01/kmajor/run3.txt, run4.txt; cuBLAS in the same runs):
 *   B stored K x N: 32x8192x8192 24 -> 61 -> 85 (122), 64x 48 -> 117 -> 147 (239), 128x 92 -> 236 -> 196 (458),
 *   256x 162 -> 322 -> 231, 512x 259 -> 354 -> 239, 1024x 309 -> 346 -> 226, 512x4096x4096 221 -> 318 -> 235,
 *   2048^3 323 -> 320, 4096^3 358 -> 347, 8192^3 381 -> 354;
 *   A stored K x M: 8192x32x8192 26 -> 93 -> 63 (no split), 8192x128x8192 90 -> 196 -> 209, 8192x512x8192
 *   241 -> 362 -> 206; 4096^3 334 -> 356 but 3000^3 271 -> 257 (run5.txt), so A too is packed past 1024;
 *   16x8192x8192 (the gemv kernels before) 14.7 -> 31 -> 45, 8x14336x4096 9.4 -> 14.5 -> 22.6. */
#define KMAJOR_PACK_ROWS 1024
#define KMAJOR_SYNC_ROWS 64

static int kmajor_wanted(const product *p, clf__mma_mode mode, const clf__config *cfg)
{
    if (mode != CLF__MMA_F16 && mode != CLF__MMA_BF16)
        return 0;
    clf_dtype in = clf__mma_input_type(mode);
    size_t unit = 16 / clf__dtype_size(in);
    if ((clf__mma_reads_kmajor(cfg, mode) && !cfg->v[CLF__MMA_WGMMA]) || !mn_in_place())
        return 0;   /* an mma.sync configuration reads them itself */
    return (p->b_kmajor && p->b_type == in && p->m <= KMAJOR_SYNC_ROWS && kmajor_readable(&p->b, p->batch, unit)) ||
           (p->a_kmajor && p->a_type == in && p->n <= KMAJOR_SYNC_ROWS && kmajor_readable(&p->a, p->batch, unit));
}

/* The two split operands of 3xTF32 or 3xF16 (mode) on wgmma with configuration cfg (rows of three padded Ks, as
 * mma_operand places them, and 3xF16's largest magnitudes) fit the convert scratch's one allocation, beside what it holds. */
static int split3_fits(const planner *pl, const product *p, const clf__config *cfg, clf__mma_mode mode)
{
    clf_dtype in = clf__mma_input_type(mode);
    size_t kp = round_up(p->k, (size_t)cfg->v[CLF__MMA_BK]), off;
    size_t end = convert_end(pl, in, pl->plan->convert_bytes, round_up(p->m, (size_t)cfg->v[CLF__MMA_BM]),
                             3 * kp, p->batch, &off);
    if (end && mode == CLF__MMA_3XF16)
        end = convert_end(pl, CLF_F32, end, p->m, 1, p->batch, &off);
    end = end ? convert_end(pl, in, end, round_up(p->n, (size_t)cfg->v[CLF__MMA_BN]), 3 * kp, p->batch, &off) : 0;
    if (end && mode == CLF__MMA_3XF16)
        end = convert_end(pl, CLF_F32, end, p->n, 1, p->batch, &off);
    return end != 0;
}

clf_status clf__plan_mma(planner *pl, const clf__gemm_call *call, const product *p, clf__mma_mode mode)
{
    clf__gemm_plan *plan = pl->plan;
    plan->mma_mode = (int)mode;
    plan->path = "mma";
    size_t slots = 0;   /* work-groups resident at once, where measured: the split rule's input */
    if (call->mma_cfg) {
        plan->cfg_mma = *call->mma_cfg;
        plan->origin_mma = "caller";
    } else {
        clf_status s = clf__mma_config(pl->ctx, mode, &plan->cfg_mma, &plan->origin_mma);
        if (s != CLF_SUCCESS)
            return s;
        /* Narrowed tiles take the entry's figure: half as wide, at least as many of them fit a unit. */
        const char *bucket = clf__mma_bucket(mode);
        clf__config kc;
        const char *ko;
        if (kmajor_wanted(p, mode, &plan->cfg_mma) && clf__mma_kmajor_config(pl->ctx, mode, &kc, &ko)) {
            plan->cfg_mma = kc;
            plan->origin_mma = ko;
            bucket = CLF__MMA_KMAJOR;
        }
        slots = clf__gemm_wave_slots(pl->ctx, &clf__family_gemm_mma, clf__mma_precision(mode), bucket, &plan->cfg_mma);
        clf__config entry = plan->cfg_mma;
        narrow_wgmma(pl->ctx, p, clf__mma_precision(mode), &plan->cfg_mma, &plan->origin_mma);
        if (reshape_wgmma(pl->ctx, p, mode, &plan->cfg_mma, &entry, &plan->origin_mma))
            slots = 0;   /* the split rule's figures are the entry's tiles' */
    }
    if (!clf__family_gemm_mma.valid(&plan->cfg_mma, &pl->ctx->info, clf__mma_precision(mode)))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemm: matrix-unit configuration is not valid on this device");
    /* 3xTF32 and 3xF16 on wgmma: the units read operands from local memory as they are, so A and B come split
     * (SPLIT3 in cl/gemm_convert.cl) into one product of depth 3 K; where the split copies would not fit one
     * allocation, mma.sync (which splits in registers) runs 3xTF32 instead, and 3xF16 becomes 3xTF32 */
    int split3 = (mode == CLF__MMA_3XTF32 || mode == CLF__MMA_3XF16) && plan->cfg_mma.v[CLF__MMA_WGMMA];
    if (mode == CLF__MMA_3XF16 && (!split3 || !split3_fits(pl, p, &plan->cfg_mma, mode))) {
        if (call->mma == 0 && !clf__mma_usable(pl->ctx, CLF__MMA_3XTF32))
            return clf__fail(CLF_ERR_UNSUPPORTED, "gemm: 3xF16 cannot run here and 3xTF32 failed its self-test");
        return clf__plan_mma(pl, call, p, CLF__MMA_3XTF32);   /* mma.sync, or split operands too large */
    }
    if (split3 && !split3_fits(pl, p, &plan->cfg_mma, mode)) {
        clf__mma_sync_default(pl->ctx, mode, &plan->cfg_mma);
        plan->origin_mma = "default (the split operands would not fit)";
        split3 = 0, slots = 0;   /* the wgmma entry's work-groups per unit are not this configuration's */
    }
    size_t bm = (size_t)plan->cfg_mma.v[CLF__MMA_BM], bn = (size_t)plan->cfg_mma.v[CLF__MMA_BN];
    size_t bk = (size_t)plan->cfg_mma.v[CLF__MMA_BK];
    clf__gemm_operand a = p->a, b = p->b;
    /* A as M x K and B as N x K, K contiguous: a K-major A (stored K x M) and a B stored K x N are turned. */
    /* Rows that are 16-byte but not 32-byte aligned are read in place only in small products: there the
     * pre-pass's launches cost more than the extra sectors (H200 f16, MNK <= 2^31: 1000^3 87 -> 113 TFLOP/s,
     * 1500x700x904 77 -> 102); in large ones less (3000^3 234 -> 213, 2000x3000x1000 173 -> 169). */
    int async = plan->cfg_mma.v[CLF__MMA_ASYNC], edge = 0, a_mn = 0, b_mn = 0, a_gather = 0, b_gather = 0;
    int small = (double)p->m * (double)p->n * (double)p->k * (double)p->batch <= 2147483648.0;
    int mn_ok = clf__mma_reads_kmajor(&plan->cfg_mma, mode) && mn_in_place();
    size_t sa = 0, sb = 0;   /* 3xF16: where the rows' largest magnitudes go */
    clf_status s = mma_operand(pl, mode, p->a_type, p->a_kmajor, p->m, p->k, bm, bk, p->batch, async, small,
                               mn_ok && p->n <= KMAJOR_PACK_ROWS, split3, &a, &edge, &a_mn, &a_gather, &sa);
    if (s == CLF_SUCCESS)
        s = mma_operand(pl, mode, p->b_type, p->b_kmajor, p->n, p->k, bn, bk, p->batch, async, small,
                        mn_ok && p->m <= KMAJOR_PACK_ROWS, split3 ? 2 : 0, &b, &edge, &b_mn, &b_gather, &sb);
    if (s != CLF_SUCCESS)
        return s;
    size_t kw = clf__mma_words(mode, round_up(p->k, bk));
    /* words deep, elements that exist (split operands: all of their three padded runs) */
    size_t kd = split3 ? 3 * kw : kw, kv = split3 ? kd * 4 / clf__dtype_size(clf__mma_input_type(mode)) : p->k;
    clf__mma_step whole = {&plan->cfg_mma, (int)mode, clf__gemm_c_type(call), p->m, p->n, kd, p->batch, p->alpha,
                           p->beta, a, b, p->c, p->epi, kv, edge, a_mn, b_mn, split3, a_gather, b_gather, sa, p->m,
                           sb, p->n, kd, kv};
    return call->no_split || p->batch != 1 ? add_mma(pl, &whole) : mma_waves(pl, &whole, slots);
}

/* Dense fp32 copy of a stored operand (outer x inner, ld apart) in the convert scratch, for the portable
 * path; *o then names it. */
clf_status clf__plan_to_f32(planner *pl, clf_dtype type, size_t outer, size_t inner, size_t batch, clf__gemm_operand *o)
{
    if (type == CLF_F32)
        return CLF_SUCCESS;
    size_t at;
    if (!convert_room(pl, CLF_F32, outer, inner, batch, &at))
        return no_room();
    clf__gemm_operand dst = {CLF__BUF_CONVERT, NULL, at, inner, outer * inner};
    clf_status s = add_convert(pl, type, CLF_F32, 0, outer, inner, outer, inner, batch, *o, dst);
    *o = dst;
    return s;
}

/* C through an fp32 copy in the convert scratch, for a kernel that stores fp32: p->c becomes the copy, into
 * which the old C is converted first when the product reads it (beta, or an epilogue that names c). The caller
 * keeps the user's C and converts the copy back into it (c_copy_out) once the product is planned. */
static clf_status c_copy_in(planner *pl, const clf__gemm_call *call, product *p, clf_dtype ct)
{
    size_t at;
    if (!convert_room(pl, CLF_F32, p->m, p->n, p->batch, &at))
        return no_room();
    const clf__gemm_operand user = p->c;
    p->c = (clf__gemm_operand){CLF__BUF_CONVERT, NULL, at, p->n, p->m * p->n};
    if (p->beta != 0.0 || (call->epi && call->epi->reads_c))
        return add_convert(pl, ct, CLF_F32, 0, p->m, p->n, p->m, p->n, p->batch, user, p->c);
    return CLF_SUCCESS;
}

static clf_status c_copy_out(planner *pl, const product *p, clf_dtype ct, clf__gemm_operand c_user)
{
    return add_convert(pl, CLF_F32, ct, 0, p->m, p->n, p->m, p->n, p->batch, p->c, c_user);
}

static int thin_wanted(planner *pl, const product *p);
static clf__gemv_step thin_columns(const product *p);
static clf__gemv_step thin_rows(const product *p);

/* A typed product for the gemv kernels (thin_wanted, fp32 arithmetic, the planner's own choice), which read
 * and write every operand in its storage type (plan_thin). */
static int thin_typed(planner *pl, const clf__gemm_call *call, const product *p, clf__gemm_path path)
{
    return !pl->cfg_in && path == CLF__GEMM_AUTO && call->dtype == CLF_F32 && p->alpha != 0.0 && p->k > 0 &&
           thin_wanted(pl, p);
}

/* 1 when the matrix units would read the product's K-major operands in place (the "all" configuration can, or the
 * "kmajor" one serves the product) rather than pack them. */
static int kmajor_in_place(planner *pl, const clf__gemm_call *call, const product *p)
{
    clf__mma_mode mode = clf__mma_wanted(call);
    clf__config cfg, kc;
    const char *origin;
    if (clf__mma_config(pl->ctx, mode, &cfg, &origin) != CLF_SUCCESS) {
        clf__clear_error();
        return 0;
    }
    size_t unit = 16 / clf__dtype_size(clf__mma_input_type(mode));
    if (clf__mma_reads_kmajor(&cfg, mode))
        return mn_in_place() && (!p->a_kmajor || kmajor_readable(&p->a, p->batch, unit)) &&
               (!p->b_kmajor || kmajor_readable(&p->b, p->batch, unit));
    return kmajor_wanted(p, mode, &cfg) && clf__mma_kmajor_config(pl->ctx, mode, &kc, &origin);
}

/* On matrix units, a thin product goes to the gemv kernels when it is a matrix-vector product, or when the matrix
 * they stream is K-major (B stored K x N under a few rows of C: x W) and the matrix units would first transpose it
 * in a packing pass. H200, 2026-12-01, f16, GFLOP/s: matrix-vector, matrix units -> gemv kernels (scripts/gpu/
 * h200_thin_half.sh, bench/results/h200/2026-12-01/thin-half/thin-half3.txt), K-major 1x4096x4096 680 -> 1850,
 * 1x14336x4096 770 -> 2500; K contiguous 1x4096x4096 1110-1200 -> 1550, 4096x1x4096 850-1140 -> 1510-1940,
 * 1x14336x4096 1930 -> 1700 (3500 since the kernels widen f16 with the hardware's conversion: scripts/gpu/
 * h200_gemv_cvt.sh). Several vectors: gemv kernels -> matrix units reading the K-major matrix in place
 * (scripts/gpu/h200_kmajor.sh PART=rule, bench/results/h200/2026-12-01/kmajor/run3.txt), f16 2x8192x8192 3860 ->
 * 5950 (bf16 6370 -> 5990), 4x 6600 -> 11800, 8x 9570 -> 23400, 16x 14700 -> 44700, 16x4096x4096 12200 ->
 * 27500; K contiguous, several vectors stay on the matrix units (16x4096x4096 17600-20200 against 9900). */
int clf__plan_thin_beats_mma(planner *pl, const clf__gemm_call *call, const product *p, clf__gemm_path path)
{
    if (!thin_typed(pl, call, p, path))
        return 0;
    if (p->m == 1 || p->n == 1)
        return 1;
    return (p->n <= p->m ? p->a_kmajor : p->b_kmajor) && !kmajor_in_place(pl, call, p);
}

/* A thin typed product on the gemv kernels (thin_typed): the matrix they stream and the vectors are read in their
 * storage types, and C is written in its own, with alpha and beta applied in fp32: one launch (two when the sum
 * is split), no conversions. With an epilogue (which the kernels apply to fp32 values) a C stored in f16 or
 * bf16 goes through an fp32 copy, as on the portable path. */
static clf_status plan_thin(planner *pl, const clf__gemm_call *call, product p)
{
    int columns = p.n <= p.m;   /* the vectors are B's columns (else A's rows) */
    clf_dtype ct = clf__gemm_c_type(call), streamed = columns ? p.a_type : p.b_type, vec = columns ? p.b_type : p.a_type;
    int via_copy = p.epi && ct != CLF_F32;
    clf__gemm_operand c_user = p.c;
    clf_status s = via_copy ? c_copy_in(pl, call, &p, ct) : CLF_SUCCESS;
    clf__gemm_step *st = s == CLF_SUCCESS ? clf__plan_add_step(pl, CLF__STEP_GEMV) : NULL;
    if (!st)
        return s == CLF_SUCCESS ? clf__plan_too_many_steps() : s;
    st->u.gemv = columns ? thin_columns(&p) : thin_rows(&p);
    st->u.gemv.a_store = streamed == CLF_F32 ? 0 : clf__convert_code(streamed);
    st->u.gemv.x_store = vec == CLF_F32 ? 0 : clf__convert_code(vec);
    st->u.gemv.y_store = via_copy || ct == CLF_F32 ? 0 : clf__convert_code(ct);
    pl->plan->path = st->u.gemv.nv == 1 ? "gemv" : "thin";
    return via_copy ? c_copy_out(pl, &p, ct, c_user) : CLF_SUCCESS;
}

/* Every device: operands stored in f16/bf16 are converted to fp32, the fp32 product runs on the bucket's
 * configuration (any path), and a C of another type is converted back, with alpha and beta applied in fp32.
 * Thin products take the gemv kernels (plan_thin). */
clf_status clf__plan_portable(planner *pl, const clf__gemm_call *call, product p, clf__gemm_path path)
{
    if (thin_typed(pl, call, &p, path))
        return plan_thin(pl, call, p);
    /* A and B stay in their storage types: clf__plan_real widens them, in the CPU kernel's packs or in fp32 copies. */
    clf_status s = CLF_SUCCESS;
    clf_dtype ct = clf__gemm_c_type(call);
    clf__gemm_operand c_user = p.c;
    if (ct != CLF_F32)
        s = c_copy_in(pl, call, &p, ct);
    if (s == CLF_SUCCESS)
        s = clf__plan_real(pl, p, path, call->no_split || p.batch > 1);
    if (s == CLF_SUCCESS && ct != CLF_F32)
        s = c_copy_out(pl, &p, ct, c_user);
    return s;
}

/* ---- thin and tiny products (the gemv kernels) ------------------------------------------------------ */

/* The vectors are C's columns (n of them): y_v = A times B's column v; A is the streamed matrix. */
static clf__gemv_step thin_columns(const product *p)
{
    return (clf__gemv_step){.a_rows_contiguous = !p->a_kmajor, .rows = p->m, .cols = p->k,
                            .incx = p->b_kmajor ? p->b.ld : 1, .incy = p->c.ld, .alpha = p->alpha, .beta = p->beta,
                            .a = p->a, .x = p->b, .y = p->c, .y_is_column = 1, .nv = p->n, .batch = p->batch,
                            .x_vstride = p->b_kmajor ? 1 : p->b.ld, .y_vstride = 1};
}

/* The vectors are C's rows (m of them): y_v = B^T times A's row v; B is the streamed matrix. */
static clf__gemv_step thin_rows(const product *p)
{
    return (clf__gemv_step){.a_rows_contiguous = !p->b_kmajor, .rows = p->n, .cols = p->k,
                            .incx = p->a_kmajor ? p->a.ld : 1, .incy = 1, .alpha = p->alpha, .beta = p->beta,
                            .a = p->b, .x = p->a, .y = p->c, .y_is_column = 0, .nv = p->m, .batch = p->batch,
                            .x_vstride = p->a_kmajor ? 1 : p->a.ld, .y_vstride = p->c.ld};
}

/* 1 when the product goes to the gemv kernels: a thin product (min(m, n) up to the gemv family's THIN, 1
 * for a matrix-vector product) is memory-bound, and the kernels read its big operand once with vector loads
 * where a tiled GEMM would fill a few rows of its tiles; a tiny one (at most TINY^3 multiply-adds per
 * matrix) costs a launch of one small kernel instead of the tiled kernel's large work-groups. */
static int thin_wanted(planner *pl, const product *p)
{
    size_t few = p->m < p->n ? p->m : p->n;
    if (few > CLF__GEMV_NV_MAX || p->k > CLF__GEMV_MAX || p->m > CLF__GEMV_MAX || p->n > CLF__GEMV_MAX ||
        p->batch > CLF__GEMV_MAX)
        return 0;
    clf__gemv_params gp;
    if (clf__gemv_params_get(&pl->ctx->info, pl->plan->dtype, &gp) != CLF_SUCCESS) {
        clf__clear_error();   /* a bad override fails the gemv calls that use it, not every GEMM */
        return few == 1;
    }
    double work = (double)p->m * (double)p->n * (double)p->k, tiny = (double)gp.tiny;
    return few <= (size_t)gp.thin || work <= tiny * tiny * tiny;
}

int clf__plan_gemv(planner *pl, const product *p)
{
    if (!thin_wanted(pl, p))
        return 0;
    clf__gemm_step *st = clf__plan_add_step(pl, CLF__STEP_GEMV);
    if (!st)
        return 0;
    st->u.gemv = p->n <= p->m ? thin_columns(p) : thin_rows(p);
    pl->plan->path = st->u.gemv.nv == 1 ? "gemv" : "thin";
    return 1;
}

/* $CLFORGE_GEMM_SPLIT_RULE=off keeps the fp32-accurate mode a call asks for on every shape (split_choice). */
static int split_rule_on(void) { return clf__env_rule_on("CLFORGE_GEMM_SPLIT_RULE", "off"); }

/* What an fp32-accurate call (3xTF32 or 3xF16) runs as. The split modes pay a packing pass over A and B (each row
 * read and written three times as parts) and the matrix units' large tiles; exact fp32 is fp32-accurate too (the
 * mode's contract) and wins where those costs weigh: few rows or columns (the pass over the other operand against
 * a thin product), few tiles (128 x 128 units, against the compute units) unless K is long enough for the split
 * K to fill them, and short K (each tile's store against its products). 3xF16 needs K >= 384 to gain on 3xTF32
 * (its pass reads each operand twice). H200, 2026-12-03, TFLOP/s exact / 3xTF32 / 3xF16, B K x N
 * (scripts/gpu/h200_split_rule.sh, bench/results/h200/2026-12-03/split-rule/): 768^3 20.9/15.4/11.2, 1024^3
 * 38.2/28.9/33.5, 1280^3 32.3/34.3/41.9, 256x4096x4096 43.3/33.4/32.5, 384x4096x4096 33.4/37.7/42.1, 4096x4096x128
 * 39.2/38.0/28.6, 4096x4096x256 43.1/47.5/45.6, 4096x4096x512 45.5/53.7/64.2, 2048x2048x256 41.9/38.5/29.2,
 * 2048x1024x512 39.8/38.1/29.5, 64x256^3 40.2/20.6/17.8, 16x512^3 44.6/34.8/32.9, 8x1024^3 41.1/48.0/57.0;
 * B N x K: 1024x1024x8192 35.0/42.6/50.1, 777x1555x999 25.4/25.3/29.3. */
clf__mma_mode clf__gemm_split_choice(size_t m, size_t n, size_t k, size_t batch, size_t cus, clf__mma_mode mode)
{
    if ((mode != CLF__MMA_3XTF32 && mode != CLF__MMA_3XF16) || !m || !n || !split_rule_on())
        return mode;
    double tiles = (double)((m + 127) / 128) * (double)((n + 127) / 128) * (double)batch / (double)(cus ? cus : 1);
    int thin = 1.0 / (double)m + 1.0 / (double)n > 1.0 / 300;
    int fills = (tiles >= 0.6 && k >= 768) || (tiles >= 3.8 && k >= 256) || (tiles >= 0.36 && tiles * (double)k >= 3000);
    if (thin || !fills)
        return CLF__MMA_NONE;
    return mode == CLF__MMA_3XF16 && k < 384 ? CLF__MMA_3XTF32 : mode;
}
