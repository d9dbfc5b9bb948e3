/* gemm_plan.c — where a GEMM call's path is chosen. From a checked call the planner decides, once:
 *   1. layout: a column-major call becomes the row-major product C^T = op(B)^T op(A)^T over the same storage;
 *   2. bucket and configuration (resolved once, memoised per context by the config layer);
 *   3. path: the direct kernel (small or under-filled products, or when packing scratch would not fit),
 *      the packed fast kernel with thin edge strips on the direct kernel, or split-K (outputs too small to
 *      fill the device, long K), whose slices keep the configuration chosen for the whole product;
 *   4. the steps (packs, main kernels, reductions) with their operands, and the scratch they need.
 * Typed products (matrix units, the portable mixed-precision path) and thin ones are planned in
 * gemm_plan_typed.c. gemm_exec.c runs the plan. Every threshold below was measured; docs/gemm.md gives the
 * numbers. */
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

#define SPLIT_K_WAVES 4       /* split-K aims at this many work-groups per compute unit */
#define SPLIT_K_MIN_SLICE 1024
#define SPLIT_K_GRAIN 256     /* the rules count slices in this unit: long enough to amortise the partials' traffic */

static int fits_int(size_t x) { return x <= (size_t)INT_MAX; }
static size_t param(const clf__config *cfg, int i) { return (size_t)cfg->v[i]; }
static size_t gcd(size_t a, size_t b) { return b ? gcd(b, a % b) : a; }
static size_t lcm(size_t a, size_t b) { return a && b ? a / gcd(a, b) * b : a + b; }

/* Work-groups of cfg's tiles over an M x N output (double: no overflow). */
static double tile_count(const clf__config *cfg, size_t M, size_t N)
{
    return (double)((M + param(cfg, CLF__GEMM_MWG) - 1) / param(cfg, CLF__GEMM_MWG)) *
           (double)((N + param(cfg, CLF__GEMM_NWG) - 1) / param(cfg, CLF__GEMM_NWG));
}

/* The share of cfg's tiles' area that an m x n C covers. */
static double tile_use(const clf__config *cfg, size_t m, size_t n)
{
    return (double)m * (double)n /
           ((double)round_up(m, param(cfg, CLF__GEMM_MWG)) * (double)round_up(n, param(cfg, CLF__GEMM_NWG)));
}

/* How many slices of K a product with too few output tiles to fill the device is cut into; 1 for no
 * split. $CLFORGE_GEMM_SPLIT_K=N forces N (1: never), for sweeps and for tests on CPU devices, which
 * never split on their own: their few compute units are filled by the tiles already. */
long clf__plan_forced_split(void)
{
    long parts;
    return clf__env_long("CLFORGE_GEMM_SPLIT_K", 1, 1L << 20, &parts) > 0 ? parts : 0;
}

#define SPLIT_K_SLOT_USE 0.75   /* split a product of more tiles than compute units below this share of the slots */

/* Slices that give SPLIT_K_WAVES work-groups a compute unit to tiles tiles (>= 1), at most `most` and
 * CLF__SPLIT_K_MAX. */
static size_t waves_parts(const clf_context *ctx, double tiles, size_t most)
{
    size_t tl = (size_t)tiles, parts = (SPLIT_K_WAVES * cus(ctx) + tl - 1) / tl;
    if (parts > most)
        parts = most;
    return parts > CLF__SPLIT_K_MAX ? CLF__SPLIT_K_MAX : parts;
}

/* A product of C's few rows (under FEW_TILES_ROWS) and fewer tiles than compute units may leave most of the device
 * idle unless it is cut into more slices than SPLIT_K_MIN_SLICE allows: such products take slices down to
 * SPLIT_K_FEW_TILES_SLICE. H100
 * fp32, forced splits first (scripts/gpu/h200_few_row_tiles.sh, bench/results/h100/2026-12-07/few-row-split.txt):
 * 34x4170x3268 (66 tiles of 64 x 64) 10.0 -> 12.1 TFLOP/s in 4, 58x4157x2710 (65) 16.9 -> 19.1 in 8; then the rule
 * off and on in two alternating rounds on drawn products (scripts/gpu/h200_few_tiles_split.sh, bench/results/h100/
 * 2026-12-07b/few-tiles-split.txt): of nine with 17-64 rows four gained 6-21% (63x3931x3315 A^T B 17.0 -> 20.6,
 * 36x6591x2583 11.9 -> 13.9), five moved by -1..+2%; the one with few columns, 5210x36x6250 A B^T, lost 12%, so
 * C of few columns keeps the longer slices. $CLFORGE_GEMM_FEW_TILES_SLICES=off turns the rule off. */
#define SPLIT_K_FEW_TILES_SLICE 512
#define FEW_TILES_ROWS 128   /* the rows of C the rule was measured on (17-64); wider products: medium_split */
static int few_tiles_slices_on(void) { return clf__env_rule_on("CLFORGE_GEMM_FEW_TILES_SLICES", "off"); }

/* slots: work-groups the device holds at once in cfg's tiles (0: unknown, as for edge strips). A product with
 * more tiles than compute units is split too when those tiles fill under SPLIT_K_SLOT_USE of the slots and K
 * gives slices of SPLIT_K_MIN_SLICE: H200 fp32 (bench/results/h200/2026-12-02/underfilled/run1-split-batched.txt,
 * store-launches/run1.txt), 5300x120x4400 (166 tiles of 64 x 64, 528 slots) 18.6 -> 25.0 TFLOP/s in 4 slices,
 * 4485x89x6813 (142) 12.1 -> 14.5 in 4, 6159x188x3555 (194 tiles of 64 x 128, 264 slots) 18.8 -> 22.3 in 2;
 * 2048^3 (256 tiles of 128 x 128 in 264 slots) is left alone. On unseen shapes (store-launches/run6-split-slots-ab.txt)
 * five gained 3-20% and 100x8000x4000 (250 tiles in 3 slices) lost 11%. */
static size_t split_k_parts(const clf_context *ctx, const clf__config *cfg, size_t M, size_t N, size_t K, size_t slots)
{
    long want = clf__plan_forced_split();
    if (want) {
        size_t most = K / SPLIT_K_GRAIN;
        return (size_t)want < most ? (size_t)want : most > 1 ? most : 1;
    }
    if (is_cpu(ctx))
        return 1;
    double tiles = tile_count(cfg, M, N);   /* >= 1: M and N are not 0 here */
    /* Slices shorter than SPLIT_K_MIN_SLICE lost on the H200: 1024^3 split in 2 ran at 32 against 38 TFLOP/s, while
     * 64x4096x4096 gained (21.4 -> 26.1 TFLOP/s in 4 slices of 1024). Products of few rows (fewer than columns and
     * than FEW_TILES_ROWS) and fewer tiles than compute units take slices down to SPLIT_K_FEW_TILES_SLICE. */
    size_t most = K / (tiles < (double)cus(ctx) && M < FEW_TILES_ROWS && M <= N && few_tiles_slices_on()
                           ? SPLIT_K_FEW_TILES_SLICE
                           : SPLIT_K_MIN_SLICE);
    if (most < 2 || (tiles >= (double)cus(ctx) && tiles >= SPLIT_K_SLOT_USE * (double)slots))
        return 1;
    return waves_parts(ctx, tiles, most);
}

/* Slices of K (1: none) for a single fp32 product of the small bucket (the direct kernel's 32 x 32 tiles) whose
 * tiles give compute units fewer than SMALL_SPLIT_TILES each: such a product runs a few dozen work-groups of 64
 * work-items, a warp or two a unit, each through all of K. Slices of at least SMALL_SPLIT_SLICE, as many as give
 * SPLIT_K_WAVES work-groups a unit. H100 fp32 (scripts/gpu/h200_small_split.sh, bench/results/h100/2026-12-07b/):
 * forced splits on drawn products (small-split.txt) gained where K was long, 291x294x1295 (100 tiles) 5.1 -> 8.5
 * TFLOP/s, 318x322x1732 6.4 -> 10.0, and lost under K = 700 (451x466x618 10.5 -> 6.5); the rule off and on in
 * alternating rounds (small-split-ab.txt) 215x215x1137 2.7 -> 3.7, 266x244x1751 4.0 -> 5.0-7.4. It also serves
 * products of a long K whose bucket's tiles leave most units idle (underfilled). $CLFORGE_GEMM_SMALL_SPLIT=off turns
 * both off. */
#define SMALL_SPLIT_SLICE 256
#define SMALL_SPLIT_TILES 2        /* tiles a compute unit under which the small bucket splits */
#define SMALL_SPLIT_MIN_K 1024     /* shorter K lost: 451x466x618 10.5 -> 6.5 TFLOP/s in 2 slices and a rest */
#define SMALL_SPLIT_MIN_SIDE 128   /* C's rows and columns, at least: what was measured (150-700); products of
                                    * fewer rows keep the few-row rules */
static int own_config(const clf__gemm_plan *plan);

/* What both uses of the small tiles split along K ask of a product: fp32, single, C's sides measured, the bucket's
 * own configuration, the rule on, and no CLFORGE_GEMM_SPLIT_K (a forced split cuts the product in the tiles its
 * bucket gives, as before these rules: sweeps of a bucket's tiles need no other switch). */
static int small_split_fits(const planner *pl, const product *p)
{
    return pl->plan->dtype == CLF_F32 && p->batch == 1 && p->m >= SMALL_SPLIT_MIN_SIDE &&
           p->n >= SMALL_SPLIT_MIN_SIDE && own_config(pl->plan) && !clf__plan_forced_split() &&
           clf__env_rule_on("CLFORGE_GEMM_SMALL_SPLIT", "off");
}

static size_t small_split(const planner *pl, const clf__config *cfg, const product *p)
{
    double tiles = tile_count(cfg, p->m, p->n);
    size_t most = p->k / SMALL_SPLIT_SLICE;
    if (p->k < SMALL_SPLIT_MIN_K || is_cpu(pl->ctx) || most < 2 ||
        tiles >= SMALL_SPLIT_TILES * (double)cus(pl->ctx) || !small_split_fits(pl, p))
        return 1;
    return waves_parts(pl->ctx, tiles, most);
}

/* 1 when the packed kernel's tiles would leave most of a GPU idle and K is too short to split: the direct
 * kernel's smaller tiles do better (H200, 544^3: 5.6 TFLOP/s in 45 tiles of 64x128 with two packs, where
 * the direct kernel runs 512^3 at 13). choose_config keeps the packed kernel when short_split's slices of K
 * give every compute unit a work-group. With a long K (2048 or more), tiles under a quarter of the compute units
 * (LONG_K_FEW_TILES): the small bucket's 32 x 32 tiles split along K (small_split) ran faster than the bucket's
 * tiles in the planner's slices of 1024 or more. H100 fp32, forced (scripts/gpu/h200_longk_split.sh, bench/results/
 * h100/2026-12-07b/longk-split.txt): 655x179x2571 (22 tiles of 64 x 128) 6.7 -> 13.3 TFLOP/s, 263x250x4798 (10)
 * 5.6 -> 12.4, 532x307x2732 A^T B (27) 8.5 -> 15.1, 236x433x5306 (16) 10.5 -> 13.6; with 63-99 tiles of 64 x 64 they
 * lost (528x692x4174 27.7 -> 18.9, 551x497x4543 18.5 -> 17.1). Only for fp32 single products that may split. */
#define LONG_K_FEW_TILES 4
static int underfilled(const planner *pl, const clf__config *cfg, const product *p, int no_split)
{
    const clf_context *ctx = pl->ctx;
    double tiles = tile_count(cfg, p->m, p->n) * (double)p->batch;
    if (is_cpu(ctx))
        return 0;
    if (p->k < 2 * SPLIT_K_MIN_SLICE)
        return 2 * tiles < (double)cus(ctx);
    /* A long K: the small bucket's tiles cut along K by small_split (LONG_K_FEW_TILES). */
    return !no_split && LONG_K_FEW_TILES * tiles < (double)cus(ctx) && small_split_fits(pl, p);
}

/* The direct kernel's configuration, resolved on first use. */
static clf_status direct_config(planner *pl, const clf__config **out)
{
    clf__gemm_plan *plan = pl->plan;
    if (!plan->have_direct) {
        clf_status s = clf__config_resolve(pl->ctx, &clf__family_gemm, plan->dtype, "small", &plan->cfg_direct,
                                           &plan->origin_direct);
        if (s != CLF_SUCCESS)
            return s;
        plan->have_direct = 1;
    }
    *out = &plan->cfg_direct;
    return CLF_SUCCESS;
}

clf__gemm_step *clf__plan_add_step(planner *pl, clf__step_kind kind)
{
    clf__gemm_plan *plan = pl->plan;
    if (plan->nsteps == CLF__GEMM_MAX_STEPS)
        return NULL;
    clf__gemm_step *st = &plan->steps[plan->nsteps++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    return st;
}

clf_status clf__plan_too_many_steps(void)
{
    return clf__fail(CLF_ERR_INTERNAL, "gemm plan: more than %d steps", CLF__GEMM_MAX_STEPS);
}

/* Elements of one stored matrix of an operand (0 when it is not read). */
static size_t extent(size_t outer, size_t inner, size_t ld)
{
    size_t e = 0;
    clf__gemm_extent(outer, inner, ld, &e);
    return e;
}

/* 1 when every row of C starts on a VWN-vector boundary: whole tiles may then use vector stores. */
static int c_aligned(const clf__gemm_operand *c, const clf__config *cfg, size_t batch)
{
    size_t w = param(cfg, CLF__GEMM_VWN);
    return c->ld % w == 0 && c->off % w == 0 && (batch == 1 || c->stride % w == 0);
}

/* $CLFORGE_GEMM_DIRECT_LAYOUT: how the direct kernel stores an operand whose K is contiguous in memory (cl/gemm.cl
 * DLAY). The plain layout loads such an operand KWG deep a column, and the KWG work-items sharing a column store into
 * local rows of one stride: with unpadded rows (PADB=0 in most tuned tiles) they meet in one bank, 16- or 32-way.
 * The layout loads it in runs of 8 along K into rows padded against that. Unset or "auto": the layout where the
 * plain store is at least DL_WAYS-way conflicted, per operand; "1": wherever an operand is K-contiguous; "0": never,
 * and the in-place rules below as they were before the layout. Another value warns once and counts as unset. */
enum { DL_OFF, DL_AUTO, DL_ALL };
static int direct_layout_mode(void)
{
    int w = clf__env_word("CLFORGE_GEMM_DIRECT_LAYOUT", "0 1 auto");
    return w == 1 ? DL_OFF : w == 2 ? DL_ALL : DL_AUTO;
}

/* The plain store's worst bank conflict for a local row stride of ld elements of esz bytes: lane t of a wavefront (32
 * lanes, 16 with 8-byte elements, as NVIDIA splits them) stores row t % kwg, column t / kwg; the most distinct words
 * that one of the 32 four-byte banks receives. */
static int plain_store_ways(size_t ld, size_t kwg, size_t esz)
{
    int words[32] = {0}, lanes = esz >= 8 ? 16 : 32, per = esz >= 8 ? 2 : 1, ways = 0;
    for (int t = 0; t < lanes; t++)
        for (int w = 0; w < per; w++) {
            size_t word = ((size_t)t % kwg * ld + (size_t)t / kwg) * (size_t)per + (size_t)w;
            int b = (int)(word % 32);
            if (++words[b] > ways)
                ways = words[b];
        }
    return ways;
}

/* H100 fp32, CLFORGE_GEMM_DIRECT_LAYOUT=0 against the layout on every K-contiguous operand and against this rule
 * (scripts/gpu/h200_direct_layout.sh SEED=71-73; bench/results/h100/2026-12-07/direct-layout/): operands whose plain
 * store is 16- or 32-way conflicted (B stored N x K in 64- or 128-wide unpadded rows) gain under it, and few-row
 * A x B^T then beats packing B (+1-39%); 2- and 4-way ones (rows of 36, 66, 68, 132) lose 1-10% (the small
 * bucket's A x B^T 0.90-0.96, A^T x B^T 0.94, few-row A x B 0.93-0.99). */
#define DL_WAYS 8

/* Padding that makes a local row stride of width + pad elements g modulo 2g, g the larger of the vector width vw
 * and the columns that DL_KL (8) rows of one 128-byte phase cover (4 fp32, 2 fp64): then DL_KL rows times those
 * columns fall in distinct banks. A multiple of vw (width is one, g too). */
static int direct_pad(size_t width, size_t vw, size_t esz)
{
    size_t cols = 128 / esz / 8, g = vw > cols ? vw : cols;
    return (int)((2 * g - width % (2 * g) + g) % (2 * g));
}

/* Whether the direct kernel lays out an operand (K-contiguous when !kmajor) whose plain local row is width wide. The
 * bank model is a GPU's: CPU devices' local memory is ordinary cache, so auto leaves them the plain layout. */
static int lays_out(const clf_context *ctx, int kmajor, size_t width, size_t kwg, size_t esz)
{
    int mode = direct_layout_mode();
    return !kmajor && (mode == DL_ALL ||
                       (mode == DL_AUTO && !is_cpu(ctx) && plain_store_ways(width, kwg, esz) >= DL_WAYS));
}

/* The direct kernel's layout (DLAY: bit 0 A, bit 1 B) for the operands that lays_out picks, where the padded rows
 * fit the device's local memory. */
static void direct_layout(const planner *pl, const clf__config *cfg, clf__main_step *m)
{
    size_t esz = clf__dtype_size(pl->plan->dtype), kwg = param(cfg, CLF__GEMM_KWG);
    size_t wa = param(cfg, CLF__GEMM_MWG) + param(cfg, CLF__GEMM_PADA);
    size_t wb = param(cfg, CLF__GEMM_NWG) + param(cfg, CLF__GEMM_PADB);
    int la = lays_out(pl->ctx, m->a_kmajor, wa, kwg, esz), lb = lays_out(pl->ctx, m->b_kmajor, wb, kwg, esz);
    int pa = la ? direct_pad(wa, param(cfg, CLF__GEMM_VWM), esz) : 0;
    int pb = lb ? direct_pad(wb, param(cfg, CLF__GEMM_VWN), esz) : 0;
    if (!(la || lb) ||
        (pl->ctx->info.local_mem && clf__gemm_local_bytes(cfg, esz, (size_t)pa, (size_t)pb) > pl->ctx->info.local_mem))
        return;
    m->dlay = la | lb << 1;
    m->dpad_a = pa;
    m->dpad_b = pb;
}

static clf_status add_main(planner *pl, const product *p, const clf__config *cfg, int direct, size_t k_loop,
                           size_t ea, size_t eb)
{
    clf__gemm_step *st = clf__plan_add_step(pl, CLF__STEP_MAIN);
    if (!st)
        return clf__plan_too_many_steps();
    size_t ec = extent(p->m, p->n, p->c.ld), ew = p->whole ? extent(p->whole->m, p->whole->n, p->whole->c.ld) : 0;
    ec = ew > ec ? ew : ec;   /* slices that sum themselves also store the whole product's C */
    st->u.main = (clf__main_step){.cfg = cfg, .direct = direct, .a_kmajor = p->a_kmajor, .b_kmajor = p->b_kmajor,
                                  .long_index = !(fits_int(ea) && fits_int(eb) && fits_int(ec)),
                                  .c_vec = c_aligned(&p->c, cfg, p->batch), .m = p->m, .n = p->n, .k = k_loop,
                                  .k_flops = p->k, .k_last = p->k_last, .batch = p->batch, .alpha = p->alpha,
                                  .beta = p->beta, .a = p->a, .b = p->b, .c = p->c, .epi = p->epi, .r0 = p->r0,
                                  .c0 = p->c0,
                                  .edge_a = !direct && p->edge_a, .edge_b = !direct && p->edge_b};
    if (direct)
        direct_layout(pl, cfg, &st->u.main);
    if (p->whole) {   /* the slices sum themselves: C is the whole product's, one flag a tile */
        clf__main_step *m = &st->u.main;
        const product *w = p->whole;
        m->sum = 1;
        m->partial = p->c;
        m->c = w->c;
        m->c.stride = 0;
        m->alpha = w->alpha, m->beta = w->beta, m->epi = w->epi, m->r0 = w->r0, m->c0 = w->c0;
        m->c_vec = c_aligned(&w->c, cfg, 1);
        m->flag_off = pl->plan->flag_bytes / 4;
        pl->plan->flag_bytes += (size_t)tile_count(cfg, p->m, p->n) * 4;
    }
    return CLF_SUCCESS;
}

static clf_status add_direct(planner *pl, const product *p, const clf__config *cfg)
{
    size_t ea = extent(p->a_kmajor ? p->k : p->m, p->a_kmajor ? p->m : p->k, p->a.ld);
    size_t eb = extent(p->b_kmajor ? p->k : p->n, p->b_kmajor ? p->n : p->k, p->b.ld);
    return add_main(pl, p, cfg, 1, p->k, ea, eb);
}

static clf_status plan_product(planner *pl, const product *p, const clf__config *cfg, int direct, int may_split);

/* The slices the rules' `parts` slices of a multiple of `grain` and the shorter remainder they leave make. */
static size_t grain_planes(size_t k, size_t parts, size_t grain)
{
    size_t kc = parts ? k / parts / grain * grain : 0;
    return kc ? (k + kc - 1) / kc : 1;
}

/* $CLFORGE_GEMM_SPLIT_SUM: "fused" sums a split product's slices in their own launch (the last slice of each tile
 * adds the others' partial tiles and stores C: gemm_main's SPLIT_SUM), "launch" (the default) in a reduction
 * launch after them. The default: on the H200 the fused sum lost up to 28% on most split products (the last
 * work-group of a tile reads every other plane alone; h200_split_sum.sh, bench/results/h200/2026-12-07/split-sum/).
 * Another value warns once and counts as unset. */
static int split_sum_fused(void) { return clf__env_word("CLFORGE_GEMM_SPLIT_SUM", "launch fused") == 2; }

/* Split-K: K is cut into `planes` slices of kc (K / planes rounded up to whole K tiles and vectors), the last one
 * shorter. Each slice's product goes to its own M x N plane of the partial scratch, all of them one batched product
 * whose A and B step along K and whose last member is k_last deep (gemm_main's K_last, gemm_pack's R_last), and a
 * reduction (split_sum_fused: the last slice of each tile) sums the planes into C with alpha and beta. The slices
 * read their operands as any batch does: in place, with edge checks, or packed and zero-padded (operand_reads, on
 * the last one's depth). The rules that count slices in a grain (split_k_parts, small_split, short_split) ask for as
 * many as grain_planes gives: the same work-groups as before, no deeper.
 * Until 2026-12-07 the remainder was a product of its own, a launch (and a pack) more: 655x179x2571 ran 5 slices of
 * 512 and a launch of 11 deep; now 6 slices of 448, the last 331. */
static clf_status plan_split(planner *pl, const product *p, const clf__config *cfg, int direct, size_t planes)
{
    clf_context *ctx = pl->ctx;
    size_t esz = clf__dtype_size(pl->plan->dtype);
    size_t g = lcm(lcm(param(cfg, CLF__GEMM_KWG), param(cfg, CLF__GEMM_VWM)), param(cfg, CLF__GEMM_VWN));
    size_t kc = planes ? round_up((p->k + planes - 1) / planes, g) : 0, plane = p->m * p->n, bytes;
    planes = kc ? (p->k + kc - 1) / kc : 0;
    if (planes < 2 || !clf__mul(plane, planes, &bytes) || !clf__mul(bytes, esz, &bytes) || bytes > ctx->info.max_alloc)
        return plan_product(pl, p, cfg, direct, 0);   /* K too short for two slices, or the partials would not fit */
    if (bytes > pl->plan->partial_bytes)
        pl->plan->partial_bytes = bytes;   /* split products run one after another: they share the region */
    size_t step_a = p->a_kmajor ? p->a.ld : 1, step_b = p->b_kmajor ? p->b.ld : 1;   /* one step along K */
    product slices = *p;
    slices.alpha = 1.0;
    slices.beta = 0.0;
    slices.epi = 0;   /* the reduction applies the epilogue */
    slices.c = (clf__gemm_operand){CLF__BUF_PARTIAL, NULL, 0, p->n, plane};
    slices.k = kc;
    slices.k_last = p->k - (planes - 1) * kc < kc ? p->k - (planes - 1) * kc : 0;
    slices.batch = planes;
    slices.in_split = 1;
    slices.a.stride = kc * step_a;
    slices.b.stride = kc * step_b;
    slices.whole = split_sum_fused() ? p : NULL;
    clf_status s = plan_product(pl, &slices, cfg, direct, 0);
    if (s != CLF_SUCCESS || slices.whole)
        return s;
    clf__gemm_step *st = clf__plan_add_step(pl, CLF__STEP_REDUCE);
    if (!st)
        return clf__plan_too_many_steps();
    st->u.reduce = (clf__reduce_step){p->m, p->n, planes, p->alpha, p->beta, slices.c, p->c, p->epi, p->r0, p->c0,
                                      pl->plan->dtype};
    return CLF_SUCCESS;
}

/* An edge strip: a thin, K-long product on the direct kernel, split along K when that fills the device. */
static clf_status plan_strip(planner *pl, const product *p, int may_split)
{
    const clf__config *cfg;
    clf_status s = direct_config(pl, &cfg);
    if (s != CLF_SUCCESS)
        return s;
    size_t parts = may_split && p->batch == 1 ? split_k_parts(pl->ctx, cfg, p->m, p->n, p->k, 0) : 1;
    return parts > 1 ? plan_split(pl, p, cfg, 1, grain_planes(p->k, parts, SPLIT_K_GRAIN)) : add_direct(pl, p, cfg);
}

#define NT_PACK_MIN_M 512   /* rows of C from which a GPU packs a B stored N x K (plan_packs) */

/* $CLFORGE_GEMM_NT_PACK: 1 packs a B stored N x K on every device, 0 reads it in place wherever it is aligned,
 * unset (-1) follows the rule below; for measurements. Another value warns once and counts as unset. */
static int nt_pack(void) { return clf__env_word("CLFORGE_GEMM_NT_PACK", "0 1") - 1; }

/* $CLFORGE_GEMM_PACK, for measurements: "off" sends every product whose operands would be packed to the direct
 * kernel with its bucket's configuration (bounds-checked scalar loads); "edges" reads every operand that fits
 * the vector width in place with edge checks, on any device; "always" packs whatever does not cover whole tiles
 * (the behaviour before edge checks). Unset: the rules below. Another value warns once and counts as unset. */
enum { PACK_RULE, PACK_OFF, PACK_EDGES, PACK_ALWAYS };
static int pack_mode(void) { return clf__env_word("CLFORGE_GEMM_PACK", "off edges always"); }   /* PACK_* */

/* On GPUs a B stored N x K (A B^T) is packed K-major even when it could be read in place, when C has
 * NT_PACK_MIN_M rows or more: the fast kernel's on-the-fly transpose of B costs about 15% (H200, A B^T
 * 4096^3: 40.5 in place, 47.3 TFLOP/s packed; 1024^3: 33.0 and 34.7), while the pack's pass over B is
 * paid for by C's rows, so with few rows it costs more than it saves (batched 512 x 128x128x64: 27.0 in
 * place, 21.2 packed; 256 x 256x256x64: 28.8 and 26.6; 64 x 256^3: 35.8 and 33.2; 128 x 512x512x64:
 * even; bench/results/h200/2026-12-01/batched-nt.txt). CPUs were not measured and keep reading it. */
static int nt_packs(const planner *pl, const product *p)
{
    int nt = nt_pack();
    return !p->b_kmajor && (nt == 1 || (nt < 0 && !is_cpu(pl->ctx) && p->m >= NT_PACK_MIN_M));
}

/* 1 when operand o (mn x k, K-major or not, vectors of vw along its contiguous dimension) can be read in place
 * by the fast kernel with edge checks: the contiguous dimension, the leading dimension, the offset and the batch
 * stride are multiples of vw (a vector never straddles a row's end), and K-contiguous vectors fit a K tile. */
static int edge_fits(const clf__gemm_operand *o, int kmajor, size_t mn, size_t k, size_t vw, size_t kwg, size_t batch)
{
    return (kmajor ? mn : k) % vw == 0 && o->ld % vw == 0 && o->off % vw == 0 && (batch == 1 || o->stride % vw == 0) &&
           (kmajor || kwg % vw == 0);
}

/* How A and B are read by cfg's fast kernel: *pack_a / *pack_b when packed first, *edge_a / *edge_b when read in
 * place past their last whole tile (batches on GPUs, or everything with CLFORGE_GEMM_PACK=edges; not a B that the
 * rule above packs anyway), neither when they cover whole tiles. */
static void operand_reads(const planner *pl, const product *p, const clf__config *cfg, int *pack_a, int *pack_b,
                          int *edge_a, int *edge_b)
{
    size_t mwg = param(cfg, CLF__GEMM_MWG), nwg = param(cfg, CLF__GEMM_NWG), kwg = param(cfg, CLF__GEMM_KWG);
    size_t vwm = param(cfg, CLF__GEMM_VWM), vwn = param(cfg, CLF__GEMM_VWN);
    size_t M = p->m, N = p->n, K = p->k_last ? p->k_last : p->k;   /* a shorter last slice: what its tiles need */
    int fit_a = edge_fits(&p->a, p->a_kmajor, M, K, vwm, kwg, p->batch);
    int fit_b = edge_fits(&p->b, p->b_kmajor, N, K, vwn, kwg, p->batch);
    /* An aligned operand is read in place either way round (the kernel transposes on the fly when its
     * vectors run along K); anything else is packed K-major and zero-padded, or read with edge checks. */
    int nt = nt_packs(pl, p);
    *pack_a = !(fit_a && M % mwg == 0 && K % kwg == 0);
    *pack_b = !(fit_b && N % nwg == 0 && K % kwg == 0) || nt;
    /* The rule: edge checks in batches on GPUs, where the pass over every small matrix costs more than the kernel
     * loses; single products are packed. H200 fp32, packed -> edges (scripts/gpu/h200_underfilled.sh PART=edges,
     * bench/results/h200/2026-12-02/underfilled/run5-edges.txt, run6-edges-kmajor.txt): batches 200 x 200x104x96
     * 10.8 -> 14.8 TFLOP/s, 40 x 500x300x400 24.6 -> 26.5, 16 x 1000x1000x200 32.0 -> 32.6; single products lost
     * up to 11% (4000^3 42.0 -> 37.2, 1000^3 30.6 -> 28.6, A B^T 3000x5000x2000 37.1 -> 33.5) and, with only a
     * K-major B read so, still 4-13% (4000^3 42.1 -> 40.2, 1000^3 31.1 -> 27.2): the in-place rows are not
     * aligned as the packed ones are. 1000x3000x1000 gained 4-8% either way and 1500x700x904 6% with both.
     * The slices of a split product are such a batch. */
    int mode = pack_mode(),
        edges = mode == PACK_EDGES || (mode == PACK_RULE && !is_cpu(pl->ctx) && p->batch > 1);
    *edge_a = edges && *pack_a && fit_a;
    *edge_b = edges && *pack_b && fit_b && !nt;
    *pack_a &= !*edge_a;
    *pack_b &= !*edge_b;
}

/* Packs A and/or B where they cannot be read in place; returns 0 when the scratch would not fit or the
 * device cannot run the pack kernel's 32x8 work-groups (the caller then runs the direct kernel). */
static int plan_packs(planner *pl, product *p, const clf__config *cfg, size_t *ea, size_t *eb, clf_status *s)
{
    clf_context *ctx = pl->ctx;
    size_t mwg = param(cfg, CLF__GEMM_MWG), nwg = param(cfg, CLF__GEMM_NWG), kwg = param(cfg, CLF__GEMM_KWG);
    size_t M = p->m, N = p->n, K = p->k, Kp = round_up(K, kwg), Mp = round_up(M, mwg), Np = round_up(N, nwg);
    int pack_a, pack_b;
    operand_reads(pl, p, cfg, &pack_a, &pack_b, &p->edge_a, &p->edge_b);
    size_t sa = 0, sb = 0, total = 0, bytes = 0;
    int ok = (!pack_a || (clf__mul(Kp, Mp, &sa) && clf__mul(sa, p->batch, &sa))) &&
             (!pack_b || (clf__mul(Kp, Np, &sb) && clf__mul(sb, p->batch, &sb))) && clf__add(sa, sb, &total) &&
             clf__mul(total, clf__dtype_size(pl->plan->dtype), &bytes);
    if (!ok || (total > 0 && (bytes > ctx->info.max_alloc || ctx->info.max_work_group < 256)))
        return 0;
    if (bytes > pl->plan->pack_bytes)
        pl->plan->pack_bytes = bytes;   /* products of one plan run in order: they share the region */
    if (!pack_a && !pack_b)
        return 1;
    clf__gemm_step *st = clf__plan_add_step(pl, CLF__STEP_PACK);   /* one launch for both */
    if (!st) {
        *s = clf__plan_too_many_steps();
        return 1;
    }
    st->u.pack = (clf__pack_step){0, p->batch, p->k_last, {{0}}};
    clf__gemm_operand *ops[2] = {&p->a, &p->b};
    size_t cols[2] = {M, N}, cols_pad[2] = {Mp, Np}, dst_off[2] = {0, sa}, *ext[2] = {ea, eb};
    int *kmajor[2] = {&p->a_kmajor, &p->b_kmajor}, want[2] = {pack_a, pack_b};
    for (int i = 0; i < 2; i++) {
        if (!want[i])
            continue;
        clf__gemm_operand dst = {CLF__BUF_PACK, NULL, dst_off[i], cols_pad[i], Kp * cols_pad[i]};
        st->u.pack.op[st->u.pack.count++] = (clf__pack_operand){!*kmajor[i], K, cols[i], Kp, cols_pad[i], *ops[i], dst};
        *ops[i] = dst;
        *kmajor[i] = 1;
        *ext[i] = Kp * cols_pad[i];
    }
    return 1;
}

/* The packed kernel over whole tiles. Edge tiles that would be mostly padding (under half a tile used) go
 * to the direct kernel instead, so that e.g. 4097 does not pay for a nearly empty extra row and column of
 * tiles and a partly filled extra wave; only when the bulk runs several waves, or the edge tiles run
 * alongside it for free and the extra launches cost more (H200: 1000x3000x700 lost 24% with the split).
 * Not inside a split product (in_split): the strips of its slices, batched over the slices and not split further,
 * ran the direct kernel's slow K-long launches. H200 fp32, strips -> none (scripts/gpu/h200_skinny_tiles.sh PART=ab,
 * bench/results/h200/2026-12-02/split-edges/): 1300x900x2600 19.1 -> 26.4 TFLOP/s, 3010x260x4800 18.6 -> 25.1,
 * 211x5800x5100 22.7 -> 26.0 (run1-ab.txt); on unseen products, with the remainders of K also read in place in
 * that run (-4% to +3% by itself, plan_split), 219x5912x3170 19.6 -> 27.2, 1947x606x3862 19.6 -> 26.7,
 * 1111x1117x5504 21.2 -> 28.9, 811x1482x3482 22.4 -> 26.2, 542x2549x7052 26.0 -> 28.4, 2839x1044x4857 31.3 -> 32.6
 * (run2-confirm.txt). */
static clf_status plan_packed(planner *pl, const product *p, const clf__config *cfg, int may_split, int *fell_back)
{
    size_t mwg = param(cfg, CLF__GEMM_MWG), nwg = param(cfg, CLF__GEMM_NWG), kwg = param(cfg, CLF__GEMM_KWG);
    size_t M = p->m, N = p->n;
    int split = !p->in_split && (double)(M / mwg) * (double)(N / nwg) * (double)p->batch >= 4.0 * (double)cus(pl->ctx);
    size_t Mb = split && M % mwg && M % mwg < mwg / 2 && M > mwg ? M - M % mwg : M;
    size_t Nb = split && N % nwg && N % nwg < nwg / 2 && N > nwg ? N - N % nwg : N;
    product bulk = *p;
    size_t ea = extent(p->a_kmajor ? p->k : p->m, p->a_kmajor ? p->m : p->k, p->a.ld);
    size_t eb = extent(p->b_kmajor ? p->k : p->n, p->b_kmajor ? p->n : p->k, p->b.ld);
    clf_status s = CLF_SUCCESS;
    if (!plan_packs(pl, &bulk, cfg, &ea, &eb, &s)) {
        *fell_back = 1;
        return CLF_SUCCESS;
    }
    /* The packs cover the whole operands; the main kernel reads the bulk of them. */
    bulk.m = Mb;
    bulk.n = Nb;
    /* With edge checks the kernel takes the true K and reads zeros past it; packed operands are zero-padded. */
    if (s == CLF_SUCCESS)
        s = add_main(pl, &bulk, cfg, 0, bulk.edge_a || bulk.edge_b ? p->k : round_up(p->k, kwg), ea, eb);
    if (s == CLF_SUCCESS && Mb < M) {   /* rows Mb..M-1, every column */
        product strip = *p;
        strip.m = M - Mb;
        strip.r0 += Mb;
        strip.a.off += p->a_kmajor ? Mb : Mb * p->a.ld;
        strip.c.off += Mb * p->c.ld;
        s = plan_strip(pl, &strip, may_split);
    }
    if (s == CLF_SUCCESS && Nb < N) {   /* columns Nb..N-1 of rows 0..Mb-1 */
        product strip = *p;
        strip.m = Mb;
        strip.n = N - Nb;
        strip.c0 += Nb;
        strip.b.off += p->b_kmajor ? Nb : Nb * p->b.ld;
        strip.c.off += Nb;
        s = plan_strip(pl, &strip, may_split);
    }
    return s;
}

#define FEW_ROWS 128   /* C's rows under which B, stored K x N, is read in place rather than packed */

/* 1 when a single fp32 product on a GPU with few rows (under FEW_ROWS: B is by far the larger operand and is read
 * once or twice) and B stored K x N, which the fast kernel would have to pack, runs the direct kernel in its bucket's
 * tiles instead, reading B where it is: the pass over B (written, then read again) cost more than the direct
 * kernel's scalar loads. Split products split as before, their slices and rest read so. H200 fp32, packed -> in
 * place (CLFORGE_GEMM_PACK=off; scripts/gpu/h200_worst_profile.sh and h200_batch_tiles.sh SEED=41,
 * bench/results/h200/2026-12-04/): 33x6623x2488 7.4 -> 10.5 TFLOP/s (the packs were 55 of 150 us), 35x7949x4950
 * 9.9 -> 14.3, 82x7362x7662 15.0 -> 17.5, 48x5000x3000 10.9 -> 11.8; 175x3687x6066 even (+1%); the build before
 * against the rule on products drawn afterwards (batch-tiles/run2-ab.txt): 53x6197x6063 14.8 -> 20.0, 49x5169x6892
 * 13.1 -> 18.3, 97x4227x6711 16.2 -> 17.7, 39x6745x2501 9.4 -> 12.4, 64x2503x3357 12.1 -> 15.3, 70x4255x2631
 * 9.6 -> 10.3. Not for few columns
 * (A the large operand: 6782x175x2487 -3%, 4573x136x6796 -2%) nor B stored N x K (47x6814x2270 -24%; likely
 * because the direct kernel stored such a B into local memory through one bank a column). With the direct layout,
 * which removes that conflict, B stored N x K is read in place too: H100, few-row A x B^T whose K is not a multiple
 * of 4, +1-39% on 14 of 15 drawn products, -2% on one (see DL_WAYS). */
static int few_rows_in_place(const planner *pl, const product *p, const clf__config *cfg)
{
    if (is_cpu(pl->ctx) || pl->plan->dtype != CLF_F32 || (p->batch != 1 && !p->in_split) || p->m >= FEW_ROWS ||
        (!p->b_kmajor && direct_layout_mode() == DL_OFF) || pack_mode() != PACK_RULE || !own_config(pl->plan))
        return 0;
    int pack_a, pack_b, edge_a, edge_b;
    operand_reads(pl, p, cfg, &pack_a, &pack_b, &edge_a, &edge_b);
    return pack_b;
}

/* One product on the path its configuration names: direct, or packed (falling back to direct when the
 * packs do not fit). may_split: the edge strips may split along K (not inside a split product). */
static clf_status plan_product(planner *pl, const product *p, const clf__config *cfg, int direct, int may_split)
{
    if (!direct && pack_mode() == PACK_OFF) {   /* measurement: the bucket's configuration reads the operands in place */
        pl->plan->path = "direct";
        return add_direct(pl, p, cfg);
    }
    if (!direct && few_rows_in_place(pl, p, cfg)) {
        if (!p->in_split)
            pl->plan->path = "direct";
        return add_direct(pl, p, cfg);
    }
    if (!direct) {
        int fell_back = 0;
        clf_status s = plan_packed(pl, p, cfg, may_split, &fell_back);
        if (s != CLF_SUCCESS || !fell_back)
            return s;
        /* With a configuration forced by the caller, the direct kernel runs that one. */
        if (!pl->cfg_in && (s = direct_config(pl, &cfg)) != CLF_SUCCESS)
            return s;
        pl->plan->path = "direct";
    }
    return add_direct(pl, p, cfg);
}

/* ---- waves ---------------------------------------------------------------------------------------- */

#define WAVE_GRAIN 64         /* K slices of a tail: a multiple of every KWG and vector width */
#define WAVE_TILE_K 128       /* a work-group's fixed cost (prologue, stores) in steps of K: without it, short
                               * slices looked free, and 1000x3000x700 split its 700-deep tail into 320, 320 and
                               * 60 and lost 24% on the H200 (bench/results/h200/2026-12-01/release) */

/* Slices of K for the leftover rows of tiles of a single product in cfg's tiles (bucket's entry: its wave slots),
 * the rows before them in *bulk_rows; 1 when the waves rule leaves the product whole. */
static size_t waves_cut(planner *pl, const product *p, const clf__config *cfg, const char *bucket, size_t *bulk_rows)
{
    size_t mwg = param(cfg, CLF__GEMM_MWG), nwg = param(cfg, CLF__GEMM_NWG);
    if (p->batch != 1 || tile_count(cfg, p->m, p->n) < (double)cus(pl->ctx))   /* no whole wave to keep */
        return 1;
    size_t slots = clf__gemm_wave_slots(pl->ctx, &clf__family_gemm, pl->plan->dtype, bucket, cfg);
    /* Slices of at least SPLIT_K_GRAIN: shorter ones write more partial sums than they save. */
    clf__k_cut cut_k = {p->k, WAVE_GRAIN, WAVE_TILE_K, 0.0};
    size_t best_parts = clf__last_wave_split(p->m, p->n, mwg, nwg, slots, cut_k, SPLIT_K_GRAIN, bulk_rows);
    /* A tail of less than half a row of tiles is an edge strip, which plan_packed already gives the direct
     * kernel (4097^3 runs at cuBLAS's speed that way). */
    return best_parts == 1 || p->m - *bulk_rows * mwg < mwg / 2 ? 1 : best_parts;
}

/* A product whose last wave of tiles would leave most of the device idle (3072^3 in 128 x 128 tiles on 132
 * compute units running two work-groups each: 576 tiles, 2.2 waves) runs its whole waves as they are and
 * the leftover rows of tiles as a product split along K, whose slices fill the last wave. Only where the
 * configuration's work-groups per compute unit were measured (gemm_waves.c). 1 when planned so. */
static int plan_waves(planner *pl, const product *p, const clf__config *cfg, clf_status *s)
{
    size_t mwg = param(cfg, CLF__GEMM_MWG), bulk_rows;
    size_t best_parts = waves_cut(pl, p, cfg, pl->plan->bucket, &bulk_rows);
    if (best_parts == 1)
        return 0;
    product bulk = *p, tail = *p;
    size_t mb = bulk_rows * mwg;
    bulk.m = mb;
    tail.m = p->m - mb;
    tail.r0 += mb;
    tail.a.off += p->a_kmajor ? mb : mb * p->a.ld;
    tail.c.off += mb * p->c.ld;
    pl->plan->path = "waves";
    *s = plan_product(pl, &bulk, cfg, 0, 1);
    /* The model's slices and remainder were two launches; as many even slices in one are no deeper, and more would
     * pass the wave the model fitted them to (2915x1589x2519: 7 x 39 tiles for 264 slots, -3%). */
    if (*s == CLF_SUCCESS)
        *s = plan_split(pl, &tail, cfg, 0, best_parts);
    return 1;
}

/* The call as one row-major product; column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T over
 * the same storage. */
static product normalise(const clf__gemm_call *c)
{
    int col = c->layout == CLF_COL_MAJOR;
    clf__gemm_operand a = {CLF__BUF_USER, c->a, c->a_off, c->lda, c->stride_a};
    clf__gemm_operand b = {CLF__BUF_USER, c->b, c->b_off, c->ldb, c->stride_b};
    product p = {.m = col ? c->n : c->m, .n = col ? c->m : c->n, .k = c->k, .batch = c->batch,
                 .alpha = c->alpha, .beta = c->beta, .a = col ? b : a, .b = col ? a : b,
                 .c = {CLF__BUF_USER, c->c, c->c_off, c->ldc, c->stride_c}, .epi = c->epi != NULL};
    clf_transpose ta = col ? c->tb : c->ta, tb = col ? c->ta : c->tb;
    p.a_kmajor = ta == CLF_TRANS;
    p.b_kmajor = tb == CLF_NO_TRANS;
    p.a_type = col ? clf__gemm_b_type(c) : clf__gemm_a_type(c);
    p.b_type = col ? clf__gemm_a_type(c) : clf__gemm_b_type(c);
    return p;
}

/* ---- wave fill ------------------------------------------------------------------------------------- */

#define FILL_POOR 0.75     /* below this, smaller tiles are considered */
#define FILL_GAIN 0.15     /* and taken when they fill this much more */

/* The share of the busiest compute unit's rounds of tiles that every unit works: tiles / (units * rounds),
 * rounds = ceil(tiles / units). Measured on the H200 (2026-12-01, bench/results/h200/2026-12-01/odd-shapes),
 * a unit's throughput hardly depends on how many of its tiles run at once, so a product's speed follows this
 * share: 1500x700x900 in 64 x 128 tiles (144 tiles, 0.55) ran 18.9 TFLOP/s, in 64 x 64 tiles (264, 1.00) 30.0. */
static double wave_fill(const clf_context *ctx, const clf__config *cfg, const product *p)
{
    double tiles = tile_count(cfg, p->m, p->n) * (double)p->batch, units = (double)cus(ctx);
    return tiles / (units * ceil(tiles / units));
}

/* 1 when plan's main configuration is its bucket's own (resolved), not one forced by CLFORGE_GEMM_CONFIG or the
 * caller: the rules measured on the buckets' configurations apply to it. */
static int own_config(const clf__gemm_plan *plan)
{
    return strcmp(plan->origin_main, "override") != 0 && strcmp(plan->origin_main, "caller") != 0;
}

/* $CLFORGE_GEMM_FILL=off keeps the bucket's configuration whatever its wave fill. */
static int fill_rule_on(void) { return clf__env_rule_on("CLFORGE_GEMM_FILL", "off"); }

/* A GPU product of the medium or large bucket whose tiles leave the compute units poorly balanced (wave_fill
 * under FILL_POOR) runs the skinny bucket's smaller tiles when they fill at least FILL_GAIN more. H200 fp32,
 * shipped configurations: 777x1555x999 21.7 -> 24.9 TFLOP/s, 1500x700x900 18.9 -> 30.0; products that fill
 * well (1000^3, 1234x2345x777, 2000x3000x1000) keep theirs, where the small tiles lost up to 26%. */
static clf_status refill(planner *pl, const product *p)
{
    clf__gemm_plan *plan = pl->plan;
    if (is_cpu(pl->ctx) || !fill_rule_on() || strcmp(plan->origin_main, "override") == 0 ||
        (strcmp(plan->bucket, "medium") != 0 && strcmp(plan->bucket, "large") != 0))
        return CLF_SUCCESS;
    double fill = wave_fill(pl->ctx, &plan->cfg_main, p);
    if (fill >= FILL_POOR)
        return CLF_SUCCESS;
    clf__config small;
    const char *origin;
    clf_status s = clf__config_resolve(pl->ctx, &clf__family_gemm, plan->dtype, "skinny", &small, &origin);
    if (s != CLF_SUCCESS || wave_fill(pl->ctx, &small, p) < fill + FILL_GAIN)
        return s;
    plan->cfg_main = small;
    plan->origin_main = origin;
    plan->bucket = "skinny";
    return CLF_SUCCESS;
}

#define SHORT_SPLIT_MIN_K (5 * SPLIT_K_GRAIN)   /* shorter K lost to the split's launches and partial sums */
#define SHORT_SPLIT_MAX_USE 0.75                /* tiles per compute unit under which a short K is split */

/* Slices of K (1: none) for a single fp32 product on a GPU whose K is too short for split_k_parts (under twice
 * SPLIT_K_MIN_SLICE, at least SHORT_SPLIT_MIN_K) and whose tiles, in the configuration the rules above chose, leave
 * over a quarter of the compute units without one (SHORT_SPLIT_MAX_USE): as many slices of SPLIT_K_GRAIN as give
 * SPLIT_K_WAVES work-groups a unit (the last slice, shorter, in their launch: plan_split). H200 fp32,
 * scripts/gpu/h200_skinny_tiles.sh, bench/results/h200/2026-12-02/skinny-tiles/ (TFLOP/s):
 * - forced splits (run1-sweep.txt), unsplit -> slices of 256: 404x580x1488 (70 tiles of 64 x 64) 11.4 -> 15.0,
 *   530x410x1700 (63; the direct kernel ran 11.5) 9.6 -> 15.5, 820x760x1300 (78 of 64 x 128) 20.1 -> 23.2;
 * - with the rest of K packed, the build before against the rule on unseen shapes (run2-ab.txt, run3-check.txt,
 *   run4-final.txt): gains of 3-51% under 0.6 tiles a unit, -10% to +14% from 0.6 to 0.75, and every K under
 *   1280 gained nothing or lost (544^3 -25%, 480x520x640 -17%, 600x450x900 -17%);
 * - the rest read in place instead of packed (run5-rest-in-place.txt): 8-48% faster again, and steady between
 *   rounds (the packed rest's two extra launches had made those plans vary by up to 25%);
 * - with the rest in place, this rule against splitting also K from 512 (run6-wide-gates.txt): from 0.6 to 0.75
 *   tiles a unit the split gained 18-25% (620x460x1300 13.8 -> 16.3, 760x480x1800 18.1 -> 22.6), under K = 1280 it
 *   lost up to 31% (450x450x1100 10.4 -> 7.2, 600x380x800 11.7 -> 8.1).
 * Where every unit has a tile splitting lost, even when they balance poorly: 672x648x1758 (121 tiles) 21.4 ->
 * 17.9, 1500x700x900 (144 of 64 x 128) 18.9 -> 18.3, 777x1555x999 (169) 21.7 -> 19.8
 * (bench/results/h200/2026-12-01/odd-shapes/). Only the bucket's own configuration (sweeps that force one keep the
 * rule they were measured with), and not under a forced CLFORGE_GEMM_SPLIT_K. */
static size_t short_split(const planner *pl, const clf__config *cfg, const product *p)
{
    const clf__gemm_plan *plan = pl->plan;
    double tiles = tile_count(cfg, p->m, p->n);
    if (is_cpu(pl->ctx) || plan->dtype != CLF_F32 || p->batch != 1 || clf__plan_forced_split() ||
        p->k < SHORT_SPLIT_MIN_K || p->k >= 2 * SPLIT_K_MIN_SLICE || !own_config(plan) ||
        tiles >= SHORT_SPLIT_MAX_USE * (double)cus(pl->ctx))
        return 1;
    return waves_parts(pl->ctx, tiles, p->k / SPLIT_K_GRAIN);
}

static int medium_split_on(void) { return clf__env_rule_on("CLFORGE_GEMM_MEDIUM_SPLIT", "off"); }

/* Slices of K (1: none) for a single fp32 product on a GPU of at least FEW_TILES_ROWS rows and columns and a K of
 * 2048 or more whose tiles leave over a quarter of the compute units without one (SHORT_SPLIT_MAX_USE): slices down
 * to SPLIT_K_GRAIN, as short_split cuts a K of 1280-2047, where split_k_parts' slices of 1024 or more gave a K of
 * 2048-4000 two or three slices, one or two work-groups a unit. H100 fp32, forced splits
 * (scripts/gpu/h200_split_sweep.sh SEED=105, bench/results/h100/2026-12-07c/split-sweep-seed105.txt): 337x468x2965
 * (48 tiles of 64 x 64) 13.0 -> 20.3 TFLOP/s in 12 slices, 516x340x2999 (54) 14.4 -> 18.9; with 110 and 121 tiles
 * (621x658x2804 A^T B, 694x666x2163 A^T B) no split beat the planner's. Only here, after the bucket is chosen:
 * unthin and underfilled judge the bucket's tiles by the slices split_k_parts allows. Only the bucket's own
 * configuration, and not under a forced CLFORGE_GEMM_SPLIT_K or $CLFORGE_GEMM_MEDIUM_SPLIT=off. As shipped (with the
 * slices in one launch) against the build before both, H200 (h200_split_sweep.sh PART=ab SEED=107,
 * bench/results/h200/2026-12-07/medium-split-ab/): +5% over nine products in geometric mean, 378x509x2512
 * 15.2 -> 21.7, but 380x762x4428 A^T B 25.6 -> 24.1 and three more -3%. */
static size_t medium_split(const planner *pl, const clf__config *cfg, const product *p)
{
    double tiles = tile_count(cfg, p->m, p->n);
    if (is_cpu(pl->ctx) || pl->plan->dtype != CLF_F32 || p->batch != 1 || clf__plan_forced_split() ||
        !medium_split_on() || p->k < 2 * SPLIT_K_MIN_SLICE || p->m < FEW_TILES_ROWS || p->n < FEW_TILES_ROWS ||
        !own_config(pl->plan) || tiles >= SHORT_SPLIT_MAX_USE * (double)cus(pl->ctx))
        return 1;
    return waves_parts(pl->ctx, tiles, p->k / SPLIT_K_GRAIN);
}

#define THIN_MIN_USE 0.85   /* the share of the thin configuration's tiles' area that C covers, at least */

/* A product of the thin bucket (128..511 rows or columns, long K) runs the medium or large bucket's tiles instead,
 * which the wave-fill rule may narrow further, when the thin configuration's tiles would be mostly padding or,
 * split along K as far as slices may go, still fewer than the compute units: the thin rule was drawn from
 * products like 256x4096x4096 (64 tiles of 128 x 128 in 4 slices). H200 fp32 (scripts/gpu/h200_underfilled.sh,
 * bench/results/h200/2026-12-02/underfilled/): 900x500x3000 (32 tiles in 2 slices) ran 12.4 TFLOP/s against
 * 22.5 in 64 x 64 tiles; 200x5000x3000 (C covers 78% of the tiles) 16.8 against 20.1; 6159x188x3555 (73%) 16.3
 * against 18.8 in the medium bucket's 64 x 128. */
static clf_status unthin(planner *pl, const product *p)
{
    clf__gemm_plan *plan = pl->plan;
    if (is_cpu(pl->ctx) || strcmp(plan->bucket, "thin") != 0 || strcmp(plan->origin_main, "override") == 0)
        return CLF_SUCCESS;
    const clf__config *cfg = &plan->cfg_main;
    double groups = tile_count(cfg, p->m, p->n) * (double)split_k_parts(pl->ctx, cfg, p->m, p->n, p->k, 0);
    if (groups >= (double)cus(pl->ctx) && tile_use(cfg, p->m, p->n) >= THIN_MIN_USE)
        return CLF_SUCCESS;
    plan->bucket = clf__gemm_bucket_wide(&pl->ctx->info, p->m, p->n);
    return clf__config_resolve(pl->ctx, &clf__family_gemm, plan->dtype, plan->bucket, &plan->cfg_main,
                               &plan->origin_main);
}

/* ---- tiles chosen by their measured times ---------------------------------------------------------- */

#define RETILE_GAIN 1.05   /* another bucket's tiles replace the chosen ones when modelled this much faster */
#define RETILE_MIN_K 768   /* shorter K: a partial last round of tiles ran faster than the busiest unit's model said
                            * (H200, 2614x1006x557: 64 x 64 tiles modelled 1.25x faster, ran 0.91x) */

static const char *const RETILE_BUCKETS[] = {"medium", "large", "skinny"};
#define NRETILE (sizeof RETILE_BUCKETS / sizeof RETILE_BUCKETS[0])

/* $CLFORGE_GEMM_TILES=bucket keeps the bucket's configuration (or the wave-fill rule's) whatever the model says. */
static int retile_rule_on(void) { return clf__env_rule_on("CLFORGE_GEMM_TILES", "bucket"); }

/* Seconds the busiest compute unit takes for p, unsplit, in cfg's tiles (bucket's entry), from the entry's
 * measured "tile_ns" and "wg_per_cu"; 0 where the entry lacks them; -1 where that unit would hold more tiles than
 * the probe measured (the model is not extrapolated). */
static double tiles_time(planner *pl, const char *bucket, const clf__config *cfg, const product *p)
{
    int ns[CLF__ENTRY_INTS_MAX];
    clf_dtype dt = pl->plan->dtype;
    if (clf__config_entry_ints(pl->ctx, &clf__family_gemm, dt, bucket, cfg, "tile_ns", ns, CLF__ENTRY_INTS_MAX) !=
        2 * CLF__TILE_PROBE_ROWS)
        return 0;
    int w = clf__config_entry_int(pl->ctx, &clf__family_gemm, dt, bucket, cfg, "wg_per_cu");
    double per_cu = ceil(tile_count(cfg, p->m, p->n) / (double)cus(pl->ctx));
    if (w <= 0)
        return 0;
    return per_cu > CLF__TILE_PROBE_ROWS ? -1 : clf__gemm_tile_time(ns, w, (size_t)per_cu, p->k);
}

/* 1 when the rules of clf__plan_real would split p in cfg's tiles (bucket's entry) along K. */
static int split_planned(planner *pl, const product *p, const clf__config *cfg, const char *bucket)
{
    size_t slots = clf__gemm_wave_slots(pl->ctx, &clf__family_gemm, pl->plan->dtype, bucket, cfg), rows;
    return split_k_parts(pl->ctx, cfg, p->m, p->n, p->k, slots) > 1 || short_split(pl, cfg, p) > 1 ||
           waves_cut(pl, p, cfg, bucket, &rows) > 1;
}

/* A single GPU product of the medium, large or skinny bucket that those buckets' rules would run unsplit, on at
 * least one and at most 8 tiles per compute unit (the probe's range, for it and for a candidate), with K of at
 * least RETILE_MIN_K, runs whichever of the three buckets' configurations the measured model finds
 * fastest: the busiest compute unit's time for its tiles (ceil(tiles / units)) at this K, from each entry's
 * "tile_ns" (gemm_waves.c). Tile shape and padding, how full the last round of tiles is and how fast a unit runs
 * one, two or more tiles at once all enter through the measurement, where the wave-fill rule below sees only the
 * first two. Products that the split rules cut keep them (their gains were measured against these tiles), and a
 * product given other tiles here runs unsplit, as modelled. 1 when the model decided (the configuration may be
 * unchanged); 0 where an entry lacks the times or the product is one of the split rules': the wave-fill rule
 * decides then. */
static int retile(planner *pl, const product *p, clf_status *s)
{
    clf__gemm_plan *plan = pl->plan;
    int ours = 0;
    for (size_t i = 0; i < NRETILE; i++)
        ours |= strcmp(plan->bucket, RETILE_BUCKETS[i]) == 0;
    if (is_cpu(pl->ctx) || !ours || p->batch != 1 || p->k < RETILE_MIN_K || !own_config(plan) || !retile_rule_on())
        return 0;
    double now = tiles_time(pl, plan->bucket, &plan->cfg_main, p), best = now;
    if (now <= 0)
        return 0;   /* no times, or over 8 tiles a unit (past the probe's range): the rules as before */
    if (tile_count(&plan->cfg_main, p->m, p->n) < (double)cus(pl->ctx) ||
        split_planned(pl, p, &plan->cfg_main, plan->bucket))
        return 0;   /* the split rules' products: the wave-fill rule and the splits, as measured */
    clf__config cand[NRETILE];
    const char *origin[NRETILE];
    int pick = -1;
    for (int i = 0; i < (int)NRETILE; i++) {
        const char *b = RETILE_BUCKETS[i];
        if (strcmp(b, plan->bucket) == 0)
            continue;
        *s = clf__config_resolve(pl->ctx, &clf__family_gemm, plan->dtype, b, &cand[i], &origin[i]);
        if (*s != CLF_SUCCESS)
            return 1;
        double t = tiles_time(pl, b, &cand[i], p);
        if (t == 0)
            return 0;   /* a candidate without times: the model cannot compare */
        if (t > 0 && tile_count(&cand[i], p->m, p->n) >= (double)cus(pl->ctx) && t * RETILE_GAIN < now && t < best)
            best = t, pick = i;
    }
    if (pick >= 0) {
        plan->cfg_main = cand[pick];
        plan->origin_main = origin[pick];
        plan->bucket = RETILE_BUCKETS[pick];
        pl->retiled = 1;
    }
    return 1;
}

/* ---- tiles for batches ------------------------------------------------------------------------------ */

#define BATCH_TILES_GAIN 1.15   /* other tiles replace the bucket's when C covers this much more of their area */

static const char *const BATCH_TILE_BUCKETS[] = {"batched", "medium", "skinny", "batched_small"};
#define NBATCH_TILES (sizeof BATCH_TILE_BUCKETS / sizeof BATCH_TILE_BUCKETS[0])

/* An fp32 batch of the batched buckets on a GPU runs the tiles, among the batched, medium, skinny and
 * batched_small entries', that C covers best when they cover at least BATCH_TILES_GAIN times more than the bucket's
 * (ties: the larger tiles). A batch of small odd matrices has tiles enough for every compute unit whatever their
 * size, so padding is what their size costs: 576 x 52x447x159 in the batched entry's 128 x 128 tiles (C covers 35%)
 * ran 12.1 TFLOP/s on the H200, in 64 x 64 (81%) 23.3. H200 fp32, every entry forced on ten batches drawn at random
 * (scripts/gpu/h200_batch_tiles.sh SEED=41, bench/results/h200/2026-12-04/batch-tiles/run1-sweep.txt): the rule's
 * choice against the bucket's 0.97-1.93x, geometric mean 1.21x; the best forced entry 1.01-1.93x, mean 1.26x. No
 * single entry won everywhere (64 x 32 everywhere: 0.92-1.31x). The read path (packed, edge checks, or the direct
 * kernel for padded NN batches) follows the chosen tiles as before; the batched_small entry's 64 x 32 tiles are no
 * candidate where they would run on the direct kernel: so read, they trailed the best other entry's on all five NN
 * batches of the sweep (by 6-29%), and on the twelve batches drawn next (run2-ab.txt, the build before against the
 * rule with them) they ran 237x391x389 7% slower than the 128 x 128 tiles. In that run four of the twelve changed
 * tiles: 472 x 57x311x253 A.B^T 10.1 -> 18.5 TFLOP/s, 72 x 434x270x233 19.0 -> 20.9, 56 x 354x303x343 24.2 -> 25.5,
 * 56 x 237x391x389 21.2 -> 19.7 (which now keeps its bucket's tiles). CLFORGE_GEMM_TILES=bucket keeps the bucket's. */
static int batch_in_place(const planner *pl, const product *p, const clf__config *cfg);

static clf_status batch_tiles(planner *pl, const product *p)
{
    clf__gemm_plan *plan = pl->plan;
    if (is_cpu(pl->ctx) || plan->dtype != CLF_F32 || p->batch < 2 || strncmp(plan->bucket, "batched", 7) != 0 ||
        !own_config(plan) || !retile_rule_on())
        return CLF_SUCCESS;
    double want = tile_use(&plan->cfg_main, p->m, p->n) * BATCH_TILES_GAIN, best = 0, best_area = 0;
    clf__config cand, pick;
    const char *origin, *pick_origin = NULL, *pick_bucket = NULL;
    for (size_t i = 0; i < NBATCH_TILES; i++) {
        const char *b = BATCH_TILE_BUCKETS[i];
        if (strcmp(b, plan->bucket) == 0)
            continue;
        clf_status s = clf__config_resolve(pl->ctx, &clf__family_gemm, plan->dtype, b, &cand, &origin);
        if (s != CLF_SUCCESS)
            return s;
        if (strcmp(b, "batched_small") == 0 && batch_in_place(pl, p, &cand))
            continue;   /* 64 x 32 tiles on the direct kernel trailed the others' on every NN batch of the sweep */
        double use = tile_use(&cand, p->m, p->n), area = (double)(param(&cand, CLF__GEMM_MWG) * param(&cand, CLF__GEMM_NWG));
        if (use >= want && (use > best * (1 + 1e-9) || (use >= best * (1 - 1e-9) && area > best_area)))
            best = use, best_area = area, pick = cand, pick_origin = origin, pick_bucket = b;
    }
    if (pick_bucket) {
        plan->cfg_main = pick;
        plan->origin_main = pick_origin;
        plan->bucket = pick_bucket;
    }
    return CLF_SUCCESS;
}

/* The bucket and its configuration, or the caller's. */
static clf_status choose_config(planner *pl, const product *p, clf__gemm_path path, int scale_only, int no_split,
                                int *direct)
{
    clf__gemm_plan *plan = pl->plan;
    const char *bucket = clf__gemm_bucket_for(&pl->ctx->info, p->m, p->n, p->k, p->batch);
    if (scale_only || path == CLF__GEMM_DIRECT)
        bucket = "small";
    else if (path == CLF__GEMM_FAST && strcmp(bucket, "small") == 0)
        bucket = "large";
    *direct = strcmp(bucket, "small") == 0;
    plan->bucket = bucket;
    if (pl->cfg_in) {
        if (!clf__family_gemm.valid(pl->cfg_in, &pl->ctx->info, plan->dtype))
            return clf__fail(CLF_ERR_INVALID_ARG, "gemm: configuration is not valid on this device");
        plan->cfg_main = *pl->cfg_in;
        plan->origin_main = "caller";
        return CLF_SUCCESS;
    }
    clf_status s = clf__config_resolve(pl->ctx, &clf__family_gemm, plan->dtype, bucket, &plan->cfg_main,
                                       &plan->origin_main);
    if (s == CLF_SUCCESS && !*direct && path == CLF__GEMM_AUTO && p->batch == 1)
        s = unthin(pl, p);
    if (s == CLF_SUCCESS && !*direct && path == CLF__GEMM_AUTO && p->batch > 1)
        s = batch_tiles(pl, p);
    if (s == CLF_SUCCESS && !*direct && path == CLF__GEMM_AUTO && !retile(pl, p, &s))
        s = refill(pl, p);
    if (s != CLF_SUCCESS || *direct || path != CLF__GEMM_AUTO || !underfilled(pl, &plan->cfg_main, p, no_split) ||
        (!no_split && !scale_only &&
         tile_count(&plan->cfg_main, p->m, p->n) * (double)short_split(pl, &plan->cfg_main, p) >= (double)cus(pl->ctx)))
        return s;
    *direct = 1;
    plan->bucket = "small";
    return clf__config_resolve(pl->ctx, &clf__family_gemm, plan->dtype, "small", &plan->cfg_main,
                               &plan->origin_main);
}

/* CPU devices whose driver wants explicit vectors run packed panels and a register micro-kernel
 * (gemm_cpu.c), unless the caller forces a gemm configuration or path; products of the small bucket stay on
 * the direct kernel's single launch (three launches cost more than their work). 1 when planned so (an epilogue
 * that reads the old C is planned there only when K fits one of the kernel's K blocks: clf__gemm_cpu_plan). */
static int plan_cpu(planner *pl, const product *p, clf__gemm_path path, clf_status *s)
{
    if (pl->cfg_in || path != CLF__GEMM_AUTO || p->alpha == 0.0 || p->k == 0 ||
        strcmp(clf__gemm_bucket_for(&pl->ctx->info, p->m, p->n, p->k, p->batch), "small") == 0 ||
        !clf__gemm_cpu_wanted(pl->ctx))
        return 0;
    clf__cpu_product cp = {p->m, p->n, p->k, p->batch, p->a_kmajor, p->b_kmajor, p->alpha, p->beta, p->a, p->b, p->c,
                           -1, p->epi, p->r0, p->c0, p->a_type, p->b_type};
    int planned = 0;
    *s = clf__gemm_cpu_plan(pl->ctx, pl->plan, &cp, NULL, &planned);
    return *s != CLF_SUCCESS || planned;
}

/* 1 when a batch of row-major A times B stored K x N (NN) that the packing pass would have to pad is better read
 * in place by the direct kernel with the batch bucket's tiles: the pass over every matrix cost more than the
 * bounds-checked loads. H200 fp32, packed -> in place (scripts/gpu/h200_underfilled.sh PART=pack,
 * bench/results/h200/2026-12-02/underfilled/): 152 x 308x103x430 16.5 -> 20.3 TFLOP/s, 56 x 314x478x233 21.3 ->
 * 22.8, 360 x 298x423x47 11.6 -> 14.0, 128 x 200x300x150 15.9 -> 18.0. With B stored N x K the direct kernel's
 * transposed scalar loads lost on two of the four (-5%, -12%), and single products of these sizes lost 5-10% on
 * the direct kernel (the pass is paid for by more work per matrix). fp64 was not measured. With the direct layout
 * every storage of A and B is read so: H100, batches of odd A x B^T and A^T x B, -7 ... +52% (see DL_WAYS). */
static int batch_in_place(const planner *pl, const product *p, const clf__config *cfg)
{
    /* the shape's own bucket, whatever tiles batch_tiles then chose */
    const char *bucket = clf__gemm_bucket_for(&pl->ctx->info, p->m, p->n, p->k, p->batch);
    if (is_cpu(pl->ctx) || pl->plan->dtype != CLF_F32 || p->batch < 2 || strcmp(bucket, "batched") != 0 ||
        ((p->a_kmajor || !p->b_kmajor) && direct_layout_mode() == DL_OFF) || strcmp(pl->plan->origin_main, "override") == 0 ||
        pack_mode() != PACK_RULE)
        return 0;
    int pack_a, pack_b, edge_a, edge_b;
    operand_reads(pl, p, cfg, &pack_a, &pack_b, &edge_a, &edge_b);
    return pack_a || pack_b;   /* what edge checks cannot read in place */
}

/* A real (fp32 or fp64) product in the call's precision: the bucket's configuration on the direct, packed or
 * split-K path. */
clf_status clf__plan_real(planner *pl, product p, clf__gemm_path path, int no_split)
{
    clf__gemm_plan *plan = pl->plan;
    clf_status cs;
    if (plan_cpu(pl, &p, path, &cs))
        return cs;
    int scale_only = p.alpha == 0.0 || p.k == 0;   /* C = beta*C: A and B are not referenced */
    /* 16-bit operands (the portable mixed-precision path) that the CPU kernel's packs did not take are widened
     * into fp32 copies first. */
    if (!scale_only && p.a_type != plan->dtype &&
        (cs = clf__plan_to_f32(pl, p.a_type, p.a_kmajor ? p.k : p.m, p.a_kmajor ? p.m : p.k, p.batch, &p.a)) !=
            CLF_SUCCESS)
        return cs;
    if (!scale_only && p.b_type != plan->dtype &&
        (cs = clf__plan_to_f32(pl, p.b_type, p.b_kmajor ? p.k : p.n, p.b_kmajor ? p.n : p.k, p.batch, &p.b)) !=
            CLF_SUCCESS)
        return cs;
    p.a_type = p.b_type = plan->dtype;
    if (scale_only) {
        p.k = 0;
        p.a = p.b = p.c;   /* any valid buffer will do for the unread operands */
    }
    int direct;
    clf_status s = choose_config(pl, &p, path, scale_only, no_split, &direct);
    if (s != CLF_SUCCESS)
        return s;
    const clf__config *main_cfg = &plan->cfg_main;
    if (!direct && path == CLF__GEMM_AUTO && batch_in_place(pl, &p, main_cfg)) {
        plan->path = "direct";
        return add_direct(pl, &p, main_cfg);
    }
    size_t parts = 1;
    if (pl->retiled)
        no_split = 1;
    if (p.batch == 1 && !scale_only && !no_split) {
        /* Slots count only for the bucket's own configuration on the packed path of a GPU (sweeps that force
         * one keep the rule they were measured with). */
        size_t slots = !is_cpu(pl->ctx) && !direct && own_config(plan)
                           ? clf__gemm_wave_slots(pl->ctx, &clf__family_gemm, plan->dtype, plan->bucket, main_cfg)
                           : 0;
        parts = direct ? small_split(pl, main_cfg, &p) : medium_split(pl, main_cfg, &p);
        if (parts == 1)
            parts = split_k_parts(pl->ctx, main_cfg, p.m, p.n, p.k, slots);
        if (parts == 1 && !direct)
            parts = short_split(pl, main_cfg, &p);
    }
    plan->path = parts > 1 ? "split-k" : direct ? "direct" : "packed";
    if (parts > 1)
        return plan_split(pl, &p, main_cfg, direct, grain_planes(p.k, parts, SPLIT_K_GRAIN));
    if (!direct && !no_split && !scale_only && plan_waves(pl, &p, main_cfg, &s))
        return s;
    return plan_product(pl, &p, main_cfg, direct, !no_split);
}

clf_status clf__gemm_plan_make(clf_context *ctx, const clf__gemm_call *call, const clf__config *cfg,
                               clf__gemm_path path, clf__gemm_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->dtype = call->dtype;
    plan->epi = call->epi;
    planner pl = {ctx, plan, cfg, 0};
    product p = normalise(call);
    if (p.m == 0 || p.n == 0 || p.batch == 0 || ((p.alpha == 0.0 || p.k == 0) && p.beta == 1.0 && !p.epi)) {
        plan->empty = 1;
        plan->path = "none";
        return CLF_SUCCESS;
    }
    if (!call->typed) {
        /* clf_dgemm on fp64 matrix units (IEEE fp64 FMA: no change of result quality), unless the caller forces
         * a gemm configuration or path (tuner, tests). */
        if (!cfg && path == CLF__GEMM_AUTO && p.alpha != 0.0 && p.k > 0 && clf__plan_gemv(&pl, &p))
            return CLF_SUCCESS;
        int dmma = call->dtype == CLF_F64 && p.alpha != 0.0 && p.k > 0 && !cfg && path == CLF__GEMM_AUTO &&
                   call->mma >= 0 && (call->mma > 0 || clf__mma_usable(ctx, CLF__MMA_F64));
        return dmma ? clf__plan_mma(&pl, call, &p, CLF__MMA_F64) : clf__plan_real(&pl, p, path, call->no_split);
    }
    /* Matrix units when the call's types ask for them and the device passed their self-test; else the
     * portable path, which is never less accurate. */
    clf__mma_mode mode = p.alpha != 0.0 && p.k > 0 ? clf__mma_wanted(call) : CLF__MMA_NONE;
    if (call->mma == 0 && !cfg && path == CLF__GEMM_AUTO)
        mode = clf__gemm_split_choice(p.m, p.n, p.k, p.batch, cus(ctx), mode);
    if (mode == CLF__MMA_3XF16 && call->mma == 0 && !clf__mma_usable(ctx, mode))
        mode = CLF__MMA_3XTF32;   /* no wgmma here (or its self-test failed): the same accuracy on tf32 */
    int use = mode != CLF__MMA_NONE && call->mma >= 0 &&
              (call->mma > 0 || (clf__mma_usable(ctx, mode) && !clf__plan_thin_beats_mma(&pl, call, &p, path)));
    return use ? clf__plan_mma(&pl, call, &p, mode) : clf__plan_portable(&pl, call, p, path);
}

int clf__gemm_plan_launches(const clf__gemm_plan *plan) { return plan->nsteps; }
