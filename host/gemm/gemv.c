/* gemv.c — matrix-vector products (cl/gemv.cl): launch parameters, the plan of one call (which kernel,
 * how the reduced dimension is split), enqueueing it, and the public clf_[sd]gemv with their argument
 * checks (the rules of clf_sgemm: extents against CL_MEM_SIZE, y not overlapping what is read). */
#include "gemv.h"
#include "gemm_epilogue.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SPLIT 4096   /* slices: dimension 1 of the grid stays far below every driver's limit (65535) */
#define RWG 64           /* gemv_reduce's work-group */
#define RED_BYTES 16384  /* local memory for the sums of several vectors or lines meeting at once */

/* ---- launch parameters -------------------------------------------------------------------- */

static int pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }
static size_t pow2_ceil(size_t v)
{
    size_t p = 1;
    while (p < v)
        p *= 2;
    return p;
}

/* Local memory the kernels declare: the group's sums of VW elements (cols) or of one (rows), RED_BYTES' worth
 * when several meet at once, else one per work-item plus a padding column. PoCL aborts the process on a kernel
 * whose __local arrays exceed the device's, so every configuration is checked against this. */
size_t clf__gemv_local_bytes(int wg, int vw, size_t esz)
{
    size_t one = (size_t)(wg + 1) * (size_t)vw * esz;
    return one > RED_BYTES ? one : RED_BYTES;
}

static clf_status params_check(const clf_device_info *dev, clf_dtype dt, const clf__gemv_params *p)
{
    size_t wg_max = dev->max_work_group ? dev->max_work_group : 256;
    if (!pow2(p->wg) || (size_t)p->wg > wg_max || p->wg > 1024)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: WG=%d must be a power of two up to %zu", p->wg,
                         wg_max < 1024 ? wg_max : 1024);
    if (!pow2(p->vw) || p->vw > 16)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: VW=%d must be 1, 2, 4, 8 or 16", p->vw);
    if (p->lu < 1 || p->lu > 8 || p->cw < 1 || p->cw > 64 || p->gpb < 1 || p->gpb > 1024 || p->split < 0 ||
        p->split > MAX_SPLIT)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: LU=%d CW=%d GPB=%d SPLIT=%d: LU in 1..8, CW in 1..64, GPB in "
                         "1..1024, SPLIT in 0..%d", p->lu, p->cw, p->gpb, p->split, MAX_SPLIT);
    if ((p->team && (!pow2(p->team) || p->team > p->wg)) || (p->tx && (!pow2(p->tx) || p->tx > p->wg)))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: TEAM=%d and TX=%d must be 0 or powers of two up to WG=%d",
                         p->team, p->tx, p->wg);
    if (p->thin < 0 || p->thin > CLF__GEMV_NV_MAX || p->tiny < 0 || p->tiny > 64 || p->rpt < 0 || p->rpt > 8 ||
        p->xl < 0 || p->xl > 4096)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: THIN=%d TINY=%d RPT=%d XL=%d: THIN in 0..%d, TINY in 0..64, RPT "
                         "in 0..8, XL in 0..4096", p->thin, p->tiny, p->rpt, p->xl, CLF__GEMV_NV_MAX);
    if ((p->tm && (!pow2(p->tm) || p->tm > 8)) || (p->bk && p->bk != 16 && p->bk != 32 && p->bk != 64))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: TM=%d BK=%d: TM 0, 1, 2, 4 or 8, BK 0, 16, 32 or 64", p->tm,
                         p->bk);
    size_t local = clf__gemv_local_bytes(p->wg, p->vw, clf__dtype_size(dt));
    if (dev->local_mem && local > dev->local_mem)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: WG=%d x VW=%d needs %zu bytes of local memory; the device has "
                         "%llu", p->wg, p->vw, local, (unsigned long long)dev->local_mem);
    return CLF_SUCCESS;
}

static clf_status params_parse(const char *text, clf__gemv_params *p)
{
    static const char *const names[] = {"WG", "VW", "LU", "GPB", "TEAM", "TX", "CW", "SPLIT", "THIN", "TINY", "RPT",
                                        "XL", "TM", "BK"};
    int *fields[] = {&p->wg, &p->vw, &p->lu, &p->gpb, &p->team, &p->tx, &p->cw, &p->split, &p->thin, &p->tiny,
                     &p->rpt, &p->xl, &p->tm, &p->bk};
    const int count = (int)(sizeof names / sizeof names[0]);
    const char *s = text;
    while (*s) {
        if (*s == ' ' || *s == '\t' || *s == ',') {
            s++;
            continue;
        }
        char name[16];
        int value, used = 0;
        if (sscanf(s, "%15[A-Z]=%d%n", name, &value, &used) != 2)
            return clf__fail(CLF_ERR_INVALID_ARG, "CLFORGE_GEMV_CONFIG: cannot read \"%s\" (NAME=VALUE pairs)", s);
        int i = 0;
        while (i < count && strcmp(name, names[i]) != 0)
            i++;
        if (i == count)
            return clf__fail(CLF_ERR_INVALID_ARG, "CLFORGE_GEMV_CONFIG: unknown parameter %s (WG, VW, LU, GPB, "
                             "TEAM, TX, CW, SPLIT, THIN, TINY, RPT, XL, TM, BK)", name);
        *fields[i] = value;
        s += used;
    }
    return CLF_SUCCESS;
}

void clf__gemv_params_from_config(const clf_device_info *dev, const clf__config *cfg, clf__gemv_params *out)
{
    const int *v = cfg->v;
    int cpu = (dev->type & CL_DEVICE_TYPE_CPU) != 0;
    /* THIN: on PoCL the CPU GEMM path beat the thin kernels 2-20x. TINY: on the H200, synchronous per call, 32^3
     * took 28.2-28.4 us on the gemv kernels and 17.1-18.5 on the direct GEMM kernel (CLBlast 19.6-21.4), while
     * 8^3 and 16^3 stay ahead there (15.2-22.6 against CLBlast's 19.2-27.1;
     * bench/results/h200/2026-12-01/percall-tiny.txt); CPUs keep 32^3 (docs/gemm.md). THIN on GPUs: every product
     * of up to 32 vectors (H200 fp32, 17-32 rows or columns, 24 drawn products NN, A.B^T and A^T.B: 2.2x the tiled
     * kernels' 64 x 64 tiles, 0.56-1.00x cuBLAS against 0.25-0.49x; bench/results/h200/2026-12-03/thin32/). */
    *out = (clf__gemv_params){.wg = v[CLF__GV_WG], .vw = v[CLF__GV_VW], .lu = v[CLF__GV_LU], .gpb = v[CLF__GV_GPB],
                              .team = v[CLF__GV_TEAM], .tx = v[CLF__GV_TX], .cw = v[CLF__GV_CW], .rpt = v[CLF__GV_RPT],
                              .xl = v[CLF__GV_XL], .tm = v[CLF__GV_TM], .bk = v[CLF__GV_BK], .thin = cpu ? 1 : CLF__GEMV_NV_MAX,
                              .tiny = cpu ? 32 : 24};
}

/* $CLFORGE_GEMV_CONFIG on top of p (it names any subset, including the untuned SPLIT, THIN and TINY), then the
 * device's limits. Returns 1 in *overridden when the variable is set. */
static clf_status params_finish(const clf_device_info *dev, clf_dtype dt, clf__gemv_params *p, int *overridden)
{
    const char *env = getenv("CLFORGE_GEMV_CONFIG");
    *overridden = env && *env;
    if (*overridden) {
        clf_status s = params_parse(env, p);
        if (s != CLF_SUCCESS)
            return s;
    }
    return params_check(dev, dt, p);
}

clf_status clf__gemv_params_get(const clf_device_info *dev, clf_dtype dt, clf__gemv_params *out)
{
    clf__config cfg;
    memset(&cfg, 0, sizeof cfg);
    clf__family_gemv.default_config(dev, dt, NULL, &cfg);
    clf__gemv_params_from_config(dev, &cfg, out);
    int overridden;
    return params_finish(dev, dt, out, &overridden);
}

/* The family configuration behind the parameters too (cfg, origin: what clf__config_resolve answered). */
static clf_status params_resolve(clf_context *ctx, clf_dtype dt, const char *bucket, clf__gemv_params *out,
                                 clf__config *cfg, const char **origin)
{
    clf_status s = clf__config_resolve(ctx, &clf__family_gemv, dt, bucket, cfg, origin);
    if (s != CLF_SUCCESS)
        return s;
    clf__gemv_params_from_config(&ctx->info, cfg, out);
    int overridden;
    s = params_finish(&ctx->info, dt, out, &overridden);
    if (overridden)
        *origin = "override";
    return s;
}

clf_status clf__gemv_params_for(clf_context *ctx, clf_dtype dt, const char *bucket, clf__gemv_params *out,
                                const char **origin)
{
    if (!ctx || !out)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv params: NULL argument");
    clf__config cfg;
    const char *dummy;
    return params_resolve(ctx, dt, bucket, out, &cfg, origin ? origin : &dummy);
}

/* ---- planning ----------------------------------------------------------------------------- */

enum { K_ROWS, K_COLS, K_SCALE, K_TILE };

/* One call as the kernels see it: L lines of W contiguous elements, lda apart (gemv.cl), for nv vectors of
 * each of batch matrices. */
typedef struct gemv_plan {
    int kind, prec, a_store, x_store, y_store;
    size_t L, W, lda, nout;      /* nout: outputs per vector (L for rows, W for cols) */
    size_t nv, batch, esz;
    size_t chunk, nsplit;        /* slices of the reduced dimension */
    int team, rpg, rpt, tx, ty, aligned, x_unit, x_nvec, nvw;
    int rch;                     /* sums a work-item puts in local memory at once (-DRCH) */
    int tiny;                    /* at most TINY^3 multiply-adds a matrix: one pass, no reduction in local memory */
    int xl, x_vfast;             /* entries of the vectors staged in local memory at a time (0: none); with xl,
                                  * 1 when they are fetched vector-fastest (xvs < incx) */
    int lu;                      /* LU as built (-DLU): the parameter, lowered by unrolled_lu */
    int tile_cols, tm, bk;       /* K_TILE: the outputs are A's contiguous dimension; outputs a work-item, block */
    size_t global[3], local[3];
} gemv_plan;

static size_t target_groups(clf_context *ctx, const clf__gemv_params *p)
{
    return (size_t)(ctx->info.compute_units ? ctx->info.compute_units : 1) * (size_t)p->gpb;
}

/* Slices for `groups` work-groups (all matrices) over a reduced dimension of `len`, each slice at least
 * min_chunk long (a multiple of align); sets chunk and nsplit. A quarter of the target keeps one pass: the
 * reduce launch is a fixed cost on products read in ~20 us (H200, 64 MiB), assumed larger than that of a
 * partly filled device (not measured yet; GPB=32 splits as eagerly as GPB=8 did before). */
static void plan_split(clf_context *ctx, const clf__gemv_params *p, size_t groups, size_t len, size_t min_chunk,
                       size_t align, gemv_plan *pl)
{
    size_t target = target_groups(ctx, p);
    int one = 4 * groups >= target || pl->tiny;
    size_t want = p->split ? (size_t)p->split : one ? 1 : (target + groups - 1) / groups;
    size_t most = len / (min_chunk ? min_chunk : 1);
    if (!p->split && want > most)
        want = most;
    if (want > MAX_SPLIT)
        want = MAX_SPLIT;
    if (want < 1)
        want = 1;
    size_t chunk = (len + want - 1) / want;
    chunk = (chunk + align - 1) / align * align;
    pl->chunk = chunk;
    pl->nsplit = (len + chunk - 1) / chunk;
}

/* Sums (of vw elements each) that a work-group of wg puts in local memory at once: nq (all of them) when
 * they fit in 16 KiB, which leaves room for several groups on a compute unit. */
static int red_chunk(size_t wg, size_t vw, size_t esz, size_t nq)
{
    size_t fit = RED_BYTES / ((wg + 1) * vw * esz);
    return (int)(fit < 1 ? 1 : fit < nq ? fit : nq);
}

/* Vector loads in flight per work-item: LU, lowered while the multiply-adds they feed (LU x per_load) exceed 512.
 * NVIDIA's compiler left a larger consumption loop rolled, so the loaded vectors went through a stack frame
 * (gemv_rows, 16 vectors, LU=8 RPT=2: 1024; at 8 vectors, 512, the loop was unrolled; docs/gemm.md). */
static int unrolled_lu(int lu, size_t per_load)
{
    while (lu > 1 && (size_t)lu * per_load > 512)
        lu /= 2;
    return lu;
}

static void plan_rows(clf_context *ctx, const clf__gemv_params *p, gemv_plan *pl)
{
    /* Several vectors: a work-item takes a few lines, which share its loads of x (GPUs: 4). */
    int gpu = !(ctx->info.type & CL_DEVICE_TYPE_CPU);
    pl->rpt = p->rpt ? p->rpt : pl->nv > 1 && gpu && !pl->tiny ? 4 : 1;
    /* A team long enough that each member has about LU vectors of its line: short lines get several lines
     * per group instead of one group each with a work-item per vector. */
    size_t vw = (size_t)p->vw, nvec = (pl->W + vw - 1) / vw;
    pl->lu = unrolled_lu(p->lu, (size_t)pl->rpt * pl->nv * vw);
    size_t per = (nvec + (size_t)pl->lu - 1) / (size_t)pl->lu;
    pl->team = p->team ? p->team : (int)(pow2_ceil(per) < (size_t)p->wg ? pow2_ceil(per) : (size_t)p->wg);
    if (pl->tiny && !p->team)
        pl->team = 1;
    size_t rpg = (size_t)(p->wg / pl->team), blocks = (pl->L + (size_t)pl->rpt - 1) / (size_t)pl->rpt;
    pl->rpg = (int)(pow2_ceil(blocks) < rpg ? pow2_ceil(blocks) : rpg);
    size_t groups = (blocks + (size_t)pl->rpg - 1) / (size_t)pl->rpg;
    plan_split(ctx, p, groups * pl->batch, pl->W, (size_t)pl->team * vw * (size_t)pl->lu, vw, pl);
    pl->local[0] = (size_t)(pl->team * pl->rpg);
    pl->rch = red_chunk(pl->local[0], 1, pl->esz, (size_t)pl->rpt * pl->nv);
    pl->global[0] = groups * pl->local[0];
    pl->global[1] = pl->nsplit;
    pl->nout = pl->L;
}

/* Work-items along the outputs: the most (up to 64) that still give the device its groups, but no fewer
 * than fill a 32-byte sector of a line; the rest of the group goes along the lines. With several vectors,
 * at most 16 along the lines: the group's reduction runs once per vector. */
static size_t cols_tx(clf_context *ctx, const clf__gemv_params *p, const gemv_plan *pl, size_t nvec, size_t esz)
{
    size_t tx_max = p->wg < 64 ? (size_t)p->wg : 64, tx_min = 32 / ((size_t)p->vw * esz);
    if (pl->nv > 1 && (size_t)p->wg / 16 > tx_min)
        tx_min = (size_t)p->wg / 16;
    if (tx_min < 1)
        tx_min = 1;
    if (tx_min > tx_max)
        tx_min = tx_max;
    size_t tx = pow2_ceil(nvec) < tx_max ? pow2_ceil(nvec) : tx_max;
    while (tx > tx_min && (nvec + tx - 1) / tx * pl->batch < target_groups(ctx, p))
        tx /= 2;
    return tx;
}

static void plan_cols(clf_context *ctx, const clf__gemv_params *p, size_t esz, gemv_plan *pl)
{
    size_t vw = (size_t)p->vw, cw = (size_t)p->cw, nvec = (pl->W + vw * cw - 1) / (vw * cw);
    pl->lu = unrolled_lu(p->lu, pl->nv * cw * vw);
    pl->tx = p->tx ? p->tx : (int)cols_tx(ctx, p, pl, nvec, esz);
    size_t ty = pl->tiny ? 1 : (size_t)(p->wg / pl->tx);
    pl->ty = (int)(pow2_ceil(pl->L) < ty ? pow2_ceil(pl->L) : ty);
    size_t groups = (nvec + (size_t)pl->tx - 1) / (size_t)pl->tx;   /* nvec: runs of CW vectors */
    /* At least 32 lines a slice: the partial sums then cost at most 1/32 of A's traffic. */
    size_t min_lines = (size_t)pl->ty * (size_t)pl->lu > 32 ? (size_t)pl->ty * (size_t)pl->lu : 32;
    plan_split(ctx, p, groups * pl->batch, pl->L, min_lines, 1, pl);
    pl->local[0] = (size_t)pl->tx;
    pl->local[1] = (size_t)pl->ty;
    pl->rch = red_chunk(pl->local[0] * pl->local[1], vw, esz, pl->nv * cw);
    pl->global[0] = groups * pl->local[0];
    pl->global[1] = pl->nsplit * pl->local[1];
    pl->nout = pl->W;
}

/* Entries of each vector that a work-group stages in local memory at a time (-DXL): XL rounded up to whole
 * units (rows: a team's step, TEAM x VW columns; cols: TY lines, one each for the group's work-items along
 * the lines), fewer units while the staging buffer does not fit beside the reduction's in the device's local
 * memory, 0 when not one unit does. Only with several vectors and not tiny: one vector's entries are already
 * shared by the work-items that load them alike (cols) and are few next to A's; a tiny call has no loop. */
static int staged_len(clf_context *ctx, const clf__gemv_params *p, const gemv_plan *pl)
{
    if (!p->xl || pl->nv < 2 || pl->tiny)
        return 0;
    int rows = pl->kind == K_ROWS;
    size_t esz = pl->esz, vw = (size_t)p->vw, unit = rows ? (size_t)pl->team * vw : (size_t)pl->ty;
    size_t nvp = (pl->nv + 3) / 4 * 4, wg = rows ? (size_t)(pl->team * pl->rpg) : (size_t)(pl->tx * pl->ty);
    size_t have = ctx->info.local_mem ? (size_t)ctx->info.local_mem : 32768;
    size_t red = clf__gemv_local_bytes((int)wg, p->vw, esz);
    if (red >= have)
        return 0;
    size_t units = ((size_t)p->xl + unit - 1) / unit;
    for (; units > 0; units--) {
        size_t len = units * unit;
        size_t bytes = rows ? pl->nv * (len + vw) * esz : len * nvp * esz;
        if (bytes <= have - red)
            return (int)len;
    }
    return 0;
}

/* gemv_tile for several vectors when p asks for it (TM > 0): TM lowered until a work-item holds at most
 * 64 sums (TM x the vectors padded to 4), BK halved while A's block and the vectors' entries do not fit in the
 * device's local memory (at most 48 KiB, what NVIDIA's driver gives a kernel). 0 when the configuration cannot
 * run it (fewer than 32 work-items, BK not a multiple of VW and of WG / 32): the other kernels then run. */
static int plan_tile(clf_context *ctx, const clf__gemv_params *p, const clf__gemv_desc *d, gemv_plan *pl)
{
    if (!p->tm || pl->nv < 2 || pl->tiny || d->a_store || d->x_store || p->wg < 32)
        return 0;
    size_t nvp = (pl->nv + 3) / 4 * 4, vw = (size_t)p->vw, tkg = (size_t)p->wg / 32;
    int tm = p->tm;
    while (tm > 1 && (size_t)tm * nvp > 64)
        tm /= 2;
    size_t bl = 32 * (size_t)tm, bk = p->bk ? (size_t)p->bk : 32;
    size_t have = ctx->info.local_mem ? (size_t)ctx->info.local_mem : 32768;
    if (have > 49152)
        have = 49152;
    for (;;) {
        size_t ldt = pl->kind == K_COLS ? bl + vw : bl + 1;
        size_t bytes = ((bk * ldt + vw - 1) / vw * vw + bk * nvp) * pl->esz;
        if (bytes <= have)
            break;
        if (bk <= 8)
            return 0;
        bk /= 2;
    }
    if (bk % vw || bk % tkg)
        return 0;
    pl->tile_cols = pl->kind == K_COLS;
    pl->kind = K_TILE;
    pl->tm = tm, pl->bk = (int)bk;
    size_t nout = pl->tile_cols ? pl->W : pl->L, len = pl->tile_cols ? pl->L : pl->W;
    size_t blocks = (nout + bl - 1) / bl;
    plan_split(ctx, p, blocks * pl->batch, len, 2 * bk, bk, pl);
    pl->local[0] = (size_t)p->wg;
    pl->global[0] = blocks * (size_t)p->wg;
    pl->global[1] = pl->nsplit;
    pl->nout = nout;
    pl->x_vfast = d->x_vstride < d->incx;
    return 1;
}

/* Lines of one element with lda 1 are one contiguous line: the other kernel streams it with vectors. */
static int swaps_kernel(const clf__gemv_desc *d)
{
    size_t lines = d->a_rows_contiguous ? d->rows : d->cols, width = d->a_rows_contiguous ? d->cols : d->rows;
    return width == 1 && d->lda == 1 && lines > 1;
}

const char *clf__gemv_bucket(int a_rows_contiguous, size_t nv)
{
    if (nv > CLF__GEMV_THIN_NV)
        return a_rows_contiguous ? "wide_rows" : "wide_cols";
    if (nv > 1)
        return a_rows_contiguous ? "thin_rows" : "thin_cols";
    return a_rows_contiguous ? "rows" : "cols";
}

/* The bucket of the kernel that runs d. */
static const char *desc_bucket(const clf__gemv_desc *d)
{
    return clf__gemv_bucket(swaps_kernel(d) ? !d->a_rows_contiguous : d->a_rows_contiguous, d->nv);
}

/* Chooses the kernel and its geometry; rows, cols >= 1 and alpha != 0 here. */
static void plan_make(clf_context *ctx, const clf__gemv_params *p, clf_dtype dt, const clf__gemv_desc *d,
                      gemv_plan *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->prec = dt == CLF_F64 ? 64 : 32;
    pl->a_store = d->a_store, pl->x_store = d->x_store, pl->y_store = d->y_store;
    pl->nv = d->nv, pl->batch = d->batch, pl->esz = clf__dtype_size(dt);
    pl->kind = d->a_rows_contiguous ? K_ROWS : K_COLS;
    pl->L = d->a_rows_contiguous ? d->rows : d->cols;
    pl->W = d->a_rows_contiguous ? d->cols : d->rows;
    pl->lda = d->lda;
    if (swaps_kernel(d)) {
        pl->kind = pl->kind == K_ROWS ? K_COLS : K_ROWS;
        pl->W = pl->L;
        pl->L = 1;
        pl->lda = pl->W;
    }
    size_t vw = (size_t)p->vw;
    pl->aligned = vw == 1 || (d->a_off % vw == 0 && (pl->lda % vw == 0 || pl->L == 1) &&
                              (d->batch == 1 || d->a_stride % vw == 0));
    pl->local[1] = pl->local[2] = 1;
    pl->global[2] = d->batch;
    double tiny = (double)p->tiny;
    pl->tiny = (double)d->rows * (double)d->cols * (double)d->nv <= tiny * tiny * tiny;
    if (plan_tile(ctx, p, d, pl))
        return;
    if (pl->kind == K_ROWS) {
        pl->x_unit = d->incx == 1;
        pl->nvw = d->nv % 16 == 0 ? 16 : d->nv % 8 == 0 ? 8 : d->nv % 4 == 0 ? 4 : 2;
        pl->x_nvec = !pl->x_unit && d->x_vstride == 1 && d->nv % 2 == 0 && !d->x_store;
        plan_rows(ctx, p, pl);
    } else {
        plan_cols(ctx, p, clf__dtype_size(dt), pl);
    }
    pl->xl = staged_len(ctx, p, pl);
    if (pl->xl)
        pl->x_nvec = 0;
    pl->x_vfast = pl->xl && d->x_vstride < d->incx;
}

/* ---- enqueueing --------------------------------------------------------------------------- */

/* The main kernel (and gemv_reduce, from the same program). SCALE plans use a fixed option set. */
static clf_status plan_kernels(clf_context *ctx, const clf__gemv_params *p, const gemv_plan *pl,
                               const clf__epi *epi, int epi_rows, cl_kernel *main_k, cl_kernel *reduce_k)
{
    char opts[400];
    if (pl->kind == K_SCALE)
        snprintf(opts, sizeof opts, "-DPRECISION=%d -DNV=%zu -DRWG=%d -DY_STORE=%d", pl->prec, pl->nv, RWG, pl->y_store);
    else if (pl->kind == K_TILE)
        snprintf(opts, sizeof opts, "-DPRECISION=%d -DNV=%zu -DVW=%d -DTILE=1 -DTILE_COLS=%d -DTM=%d -DBK=%d -DTWG=%d "
                 "-DALIGNED=%d -DX_VFAST=%d -DRWG=%d -DY_STORE=%d", pl->prec, pl->nv, p->vw, pl->tile_cols, pl->tm,
                 pl->bk, p->wg, pl->aligned, pl->x_vfast, RWG, pl->y_store);
    else
        snprintf(opts, sizeof opts, "-DPRECISION=%d -DNV=%zu -DVW=%d -DLU=%d -DTEAM=%d -DRPG=%d -DRPT=%d -DTX=%d "
                 "-DTY=%d -DCW=%d -DALIGNED=%d -DX_UNIT=%d -DX_NVEC=%d -DNVW=%d -DRCH=%d -DRWG=%d -DXL=%d -DX_VFAST=%d "
                 "-DA_STORE=%d -DX_STORE=%d -DY_STORE=%d",
                 pl->prec,
                 pl->nv, p->vw, pl->lu, pl->kind == K_ROWS ? pl->team : 1, pl->kind == K_ROWS ? pl->rpg : 1,
                 pl->kind == K_ROWS ? pl->rpt : 1, pl->kind == K_COLS ? pl->tx : 1,
                 pl->kind == K_COLS ? pl->ty : 1, pl->kind == K_COLS ? p->cw : 1, pl->aligned, pl->x_unit,
                 pl->x_nvec, pl->x_nvec ? pl->nvw : 2, pl->rch, RWG, pl->xl, pl->x_vfast, pl->a_store,
                 pl->x_store, pl->y_store);
    /* NVIDIA GPUs widen f16 with the hardware's conversion (inline PTX), which is exact as the portable arithmetic */
    if ((pl->a_store == 16 || pl->x_store == 16) && clf__device_is_nvidia(&ctx->info) &&
        (ctx->info.type & CL_DEVICE_TYPE_GPU)) {
        size_t len = strlen(opts);
        snprintf(opts + len, sizeof opts - len, " -DCLF_PTX_CVT=1");
    }
    const char *src;
    char *pre = NULL, *all = NULL;
    clf_status s = clf__source("gemv.cl", &src);
    if (s == CLF_SUCCESS && epi) {   /* the GEMM's epilogue stores y (gemm_epilogue.h) */
        size_t len = strlen(opts);
        snprintf(opts + len, sizeof opts - len, " -DEPI_ROWS=%d", epi_rows);
        s = clf__epi_source(epi, pl->prec == 64 ? CLF_F64 : CLF_F32, 0, &pre);
        if (s == CLF_SUCCESS && !(all = malloc(strlen(pre) + strlen(src) + 1)))
            s = clf__fail(CLF_ERR_OUT_OF_MEMORY, "gemv: out of memory");
        if (s == CLF_SUCCESS)
            src = strcat(strcpy(all, pre), src);
    }
    if (s == CLF_SUCCESS && pl->kind != K_SCALE)
        s = clf__kernel_take(ctx, src, opts,
                             pl->kind == K_TILE ? "gemv_tile" : pl->kind == K_ROWS ? "gemv_rows" : "gemv_cols", main_k);
    if (s == CLF_SUCCESS && (pl->kind == K_SCALE || pl->nsplit > 1))
        s = clf__kernel_take(ctx, src, opts, "gemv_reduce", reduce_k);
    free(pre);
    free(all);
    return s;
}

static clf_status set_args(cl_kernel k, const void *const *vals, const size_t *sizes, int n)
{
    for (int i = 0; i < n; i++) {
        cl_int e = clSetKernelArg(k, (cl_uint)i, sizes[i], vals[i]);
        if (e != CL_SUCCESS)
            return clf__fail_cl(e, "clSetKernelArg", "gemv argument %d", i);
    }
    return CLF_SUCCESS;
}

/* The scalars alpha and beta as the kernel's `real`. */
typedef struct scalars {
    float fa, fb;
    double da, db;
    size_t esz;
    const void *pa, *pb;
} scalars;

static void scalars_init(scalars *sc, clf_dtype dt, double alpha, double beta)
{
    sc->fa = (float)alpha, sc->fb = (float)beta, sc->da = alpha, sc->db = beta;
    sc->esz = clf__dtype_size(dt);
    sc->pa = dt == CLF_F64 ? (const void *)&sc->da : (const void *)&sc->fa;
    sc->pb = dt == CLF_F64 ? (const void *)&sc->db : (const void *)&sc->fb;
}

typedef struct gemv_bufs {
    const clf__gemv_desc *d;
    cl_mem partial;
    const clf__epi *epi;         /* a GEMM's epilogue stores y (NULL: none); epi_rows: y runs along C's rows */
    int epi_rows;
    int build_only;              /* the tuner's builder threads: build the kernels, enqueue nothing */
    int launches;                /* kernels enqueued */
} gemv_bufs;

static clf_status enqueue_main(clf_context *ctx, const gemv_plan *pl, const scalars *sc, const gemv_bufs *b,
                               cl_kernel k, cl_event *done)
{
    const clf__gemv_desc *d = b->d;
    cl_int L = (cl_int)pl->L, W = (cl_int)pl->W, chunk = (cl_int)pl->chunk;
    cl_ulong aoff = d->a_off, lda = pl->lda, xoff = d->x_off, incx = d->incx, yoff = d->y_off, incy = d->incy;
    cl_ulong xvs = d->x_vstride, yvs = d->y_vstride, abs_ = d->a_stride, xbs = d->x_stride, ybs = d->y_stride;
    cl_mem partial = pl->nsplit > 1 ? b->partial : NULL;
    const void *v[] = {&L, &W, &chunk, sc->pa, sc->pb, &d->a, &aoff, &lda, &d->x, &xoff, &incx, &d->y, &yoff,
                       &incy, &partial, &xvs, &yvs, &abs_, &xbs, &ybs};
    size_t z[] = {4, 4, 4, sc->esz, sc->esz, sizeof(cl_mem), 8, 8, sizeof(cl_mem), 8, 8, sizeof(cl_mem), 8, 8,
                  sizeof(cl_mem), 8, 8, 8, 8, 8};
    clf_status s = set_args(k, v, z, 20);
    if (s == CLF_SUCCESS && b->epi)
        s = clf__epi_args(k, 20, b->epi, 0, 0, 0);
    if (s != CLF_SUCCESS)
        return s;
    double esz = (double)sc->esz, nv = (double)pl->nv, bat = (double)pl->batch, nout = (double)pl->nout * nv;
    /* the vectors are as long as the reduced dimension: W when A's contiguous one is reduced */
    int reduces_w = pl->kind == K_ROWS || (pl->kind == K_TILE && !pl->tile_cols);
    double lw = (double)pl->L * (double)pl->W, xlen = (double)(reduces_w ? pl->W : pl->L) * nv;
    /* bytes of A, x and what is written: the partial sums (fp32) when split, else y in its storage */
    double aesz = pl->a_store ? 2.0 : esz, xesz = pl->x_store ? 2.0 : esz, yesz = pl->y_store ? 2.0 : esz;
    double out = pl->nsplit > 1 ? esz * (double)pl->nsplit * nout : yesz * nout * (sc->db != 0.0 ? 2.0 : 1.0);
    clf__work w = {pl->prec == 64 ? "dgemv" : "sgemv", 2.0 * lw * nv * bat, bat * (aesz * lw + xesz * xlen + out)};
    return clf__enqueue(ctx, k, 3, pl->global, pl->local, &w, done);
}

/* gemv_reduce over nsplit slices (0: y = beta*y, P unused). */
static clf_status enqueue_reduce(clf_context *ctx, const gemv_plan *pl, const scalars *sc, const gemv_bufs *b,
                                 cl_kernel k, cl_event *done)
{
    const clf__gemv_desc *d = b->d;
    cl_int n = (cl_int)pl->nout, ns = pl->kind == K_SCALE ? 0 : (cl_int)pl->nsplit;
    cl_ulong yoff = d->y_off, incy = d->incy, yvs = d->y_vstride, ybs = d->y_stride;
    cl_mem partial = ns ? b->partial : NULL;
    const void *v[] = {&n, &ns, sc->pa, sc->pb, &partial, &d->y, &yoff, &incy, &yvs, &ybs};
    size_t z[] = {4, 4, sc->esz, sc->esz, sizeof(cl_mem), sizeof(cl_mem), 8, 8, 8, 8};
    clf_status s = set_args(k, v, z, 10);
    if (s == CLF_SUCCESS && b->epi)
        s = clf__epi_args(k, 10, b->epi, 0, 0, 0);
    if (s != CLF_SUCCESS)
        return s;
    size_t local[2] = {RWG, 1}, global[2] = {(pl->nout + RWG - 1) / RWG * RWG, pl->nv * pl->batch};
    double nout = (double)pl->nout * (double)global[1];
    double yesz = pl->y_store ? 2.0 : (double)sc->esz;
    clf__work w = {pl->prec == 64 ? "dgemv_reduce" : "sgemv_reduce", (double)ns * nout,
                   (double)sc->esz * (double)ns * nout + yesz * nout * (sc->db != 0.0 ? 2.0 : 1.0)};
    return clf__enqueue(ctx, k, 2, global, local, &w, done);
}

/* Builds first (a build failure enqueues nothing), then enqueues holding the partial scratch if split. */
static clf_status plan_run(clf_context *ctx, const clf__gemv_params *p, const gemv_plan *pl, const scalars *sc,
                           gemv_bufs *b, cl_event *done)
{
    cl_kernel mk = NULL, rk = NULL;
    clf_status s = plan_kernels(ctx, p, pl, b->epi, b->epi_rows, &mk, &rk);
    int split = pl->kind != K_SCALE && pl->nsplit > 1;
    if (b->build_only) {
        clf__kernel_give(ctx, mk);
        clf__kernel_give(ctx, rk);
        return s;
    }
    b->launches = (pl->kind != K_SCALE) + (split || pl->kind == K_SCALE);
    if (s == CLF_SUCCESS && split)
        s = clf__scratch_take(ctx, &ctx->partial, pl->nsplit * pl->nout * pl->nv * pl->batch * sc->esz,
                              &b->partial);
    if (s == CLF_SUCCESS) {
        if (pl->kind != K_SCALE)
            s = enqueue_main(ctx, pl, sc, b, mk, split ? NULL : done);
        if (s == CLF_SUCCESS && (split || pl->kind == K_SCALE))
            s = enqueue_reduce(ctx, pl, sc, b, rk, done);
        if (split)
            clf__scratch_give(&ctx->partial);
    }
    clf__kernel_give(ctx, mk);
    clf__kernel_give(ctx, rk);
    return s;
}

static clf_status marker(clf_context *ctx, cl_event *done)
{
    if (!done)
        return CLF_SUCCESS;
    cl_int e = clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, done);
    return e == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(e, "clEnqueueMarkerWithWaitList", "gemv with nothing to do");
}

/* The limits the kernels' int indexes and grid take (the caller has checked the buffers). */
static clf_status desc_check(clf_dtype dt, const clf__gemv_desc *d)
{
    if ((dt != CLF_F32 && dt != CLF_F64) || d->rows > CLF__GEMV_MAX || d->cols > CLF__GEMV_MAX || d->nv < 1 ||
        d->nv > CLF__GEMV_NV_MAX || d->batch < 1 || d->batch > CLF__GEMV_MAX)
        return clf__fail(CLF_ERR_INTERNAL, "gemv: dtype %d, %zu x %zu, %zu vectors, batch %zu outside what the "
                         "kernels take", (int)dt, d->rows, d->cols, d->nv, d->batch);
    return CLF_SUCCESS;
}

/* Plans b's call with p (both checked) and runs it, or only builds its kernels. */
static clf_status gemv_exec(clf_context *ctx, const clf__gemv_params *p, clf_dtype dt, gemv_bufs *b, cl_event *done)
{
    const clf__gemv_desc *d = b->d;
    if (d->rows == 0 || (d->alpha == 0.0 && d->beta == 1.0 && !b->epi))
        return b->build_only ? CLF_SUCCESS : marker(ctx, done);
    gemv_plan pl;
    clf__gemv_params wide;
    /* A 16-bit A with 2..8 vectors: loads as wide in bytes as the fp32 configuration's. H200, f16 weights stored
     * K x N, GFLOP/s (bench/results/h200/2026-12-01/thin-half/): 4x4096x4096 4310 -> 6092; but one vector lost
     * (1x4096x4096 1857 -> 1291, 1x14336x4096 2500 -> 1330) and 16 gained nothing (11990 -> 11372). */
    if (d->a_store && p->vw <= 8 && d->nv >= 2 && d->nv <= CLF__GEMV_THIN_NV) {
        wide = *p;
        wide.vw *= 2;
        p = &wide;
    }
    if (d->cols == 0 || d->alpha == 0.0) {   /* y = beta*y: A and x are not read (BLAS: not referenced) */
        memset(&pl, 0, sizeof pl);
        pl.kind = K_SCALE;
        pl.prec = dt == CLF_F64 ? 64 : 32;
        pl.nout = d->rows, pl.nv = d->nv, pl.batch = d->batch;
    } else {
        plan_make(ctx, p, dt, d, &pl);
    }
    scalars sc;
    scalars_init(&sc, dt, d->alpha, d->beta);
    return plan_run(ctx, p, &pl, &sc, b, done);
}

/* Runs b's call with the configuration of its bucket. One from the tuning database or the shipped defaults
 * whose kernel does not build with this driver is set aside (warned once), and the next source's configuration
 * runs instead. */
static clf_status gemv_configured(clf_context *ctx, clf_dtype dt, gemv_bufs *b, cl_event *done)
{
    const char *bucket = desc_bucket(b->d), *origin = "default";
    clf__gemv_params p;
    clf__config cfg;
    clf_status s = params_resolve(ctx, dt, bucket, &p, &cfg, &origin);
    if (s == CLF_SUCCESS)
        s = gemv_exec(ctx, &p, dt, b, done);
    int stored = !strcmp(origin, "tuned") || !strcmp(origin, "stale") || !strcmp(origin, "shipped");
    if (s != CLF_ERR_BUILD || !stored || !clf__config_set_aside(ctx, &clf__family_gemv, dt, bucket, &cfg, origin))
        return s;
    s = params_resolve(ctx, dt, bucket, &p, &cfg, &origin);
    return s == CLF_SUCCESS ? gemv_exec(ctx, &p, dt, b, done) : s;
}

/* The checks and the run of clf__gemv_enqueue_desc and clf__gemv_bench_run. */
static clf_status gemv_run(clf_context *ctx, const clf__gemv_params *params, clf_dtype dt, gemv_bufs *b,
                           cl_event *done)
{
    if (done)
        *done = NULL;
    if (!ctx)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: ctx is NULL");
    clf_status s = desc_check(dt, b->d);
    if (s == CLF_SUCCESS && params)
        s = params_check(&ctx->info, dt, params);
    if (s != CLF_SUCCESS)
        return s;
    return params ? gemv_exec(ctx, params, dt, b, done) : gemv_configured(ctx, dt, b, done);
}

clf_status clf__gemv_enqueue_desc(clf_context *ctx, const clf__gemv_params *params, clf_dtype dt,
                                  const clf__gemv_desc *d, const clf__epi *epi, int epi_rows, cl_event *done)
{
    gemv_bufs b = {.d = d, .epi = epi, .epi_rows = epi_rows};
    return gemv_run(ctx, params, dt, &b, done);
}

clf_status clf__gemv_bench_run(clf_context *ctx, const clf__gemv_params *params, clf_dtype dt,
                               const clf__gemv_desc *d, int build_only, int *launches, cl_event *done)
{
    gemv_bufs b = {.d = d, .build_only = build_only};
    clf_status s = gemv_run(ctx, params, dt, &b, build_only ? NULL : done);
    if (launches)
        *launches = b.launches;
    return s;
}

clf_status clf__gemv_enqueue_with(clf_context *ctx, const clf__gemv_params *params, clf_dtype dt,
                                  int a_rows_contiguous, size_t rows, size_t cols, double alpha, cl_mem a,
                                  size_t a_off, size_t lda, cl_mem x, size_t x_off, size_t incx, double beta,
                                  cl_mem y, size_t y_off, size_t incy, cl_event *done)
{
    clf__gemv_desc d = {a_rows_contiguous, rows, cols, 1, 1, alpha, beta, a, a_off, lda, 0, x, x_off, incx, 0, 0,
                        y, y_off, incy, 0, 0, 0, 0, 0};
    return clf__gemv_enqueue_desc(ctx, params, dt, &d, NULL, 0, done);
}

clf_status clf__gemv_enqueue(clf_context *ctx, clf_dtype dt, int a_rows_contiguous, size_t rows, size_t cols,
                             double alpha, cl_mem a, size_t a_off, size_t lda, cl_mem x, size_t x_off, size_t incx,
                             double beta, cl_mem y, size_t y_off, size_t incy, cl_event *done)
{
    return clf__gemv_enqueue_with(ctx, NULL, dt, a_rows_contiguous, rows, cols, alpha, a, a_off, lda, x, x_off,
                                  incx, beta, y, y_off, incy, done);
}

/* ---- argument checks ---------------------------------------------------------------------- */

typedef struct gemv_call {
    clf_dtype dt;
    clf_layout layout;
    clf_transpose ta;
    size_t m, n;
    double alpha, beta;
    cl_mem a; size_t a_off, lda;
    cl_mem x; size_t x_off, incx;
    cl_mem y; size_t y_off, incy;
} gemv_call;

/* Elements [off, off + extent) of buf: in the buffer, of ctx's OpenCL context; extent 0: not referenced. */
static clf_status check_operand(clf_context *ctx, const char *name, cl_mem buf, size_t off, size_t extent,
                                size_t esz, clf__span *sp)
{
    return clf__check_operand_buffer(ctx, "gemv", name, buf, off, extent, esz, sp);
}

/* Elements spanned by a vector of len entries inc apart (0 when len is 0). */
static int vec_extent(size_t len, size_t inc, size_t *out)
{
    size_t t;
    if (len == 0) {
        *out = 0;
        return 1;
    }
    return clf__mul(len - 1, inc, &t) && clf__add(t, 1, out);
}

static clf_status check_scalars(clf_context *ctx, const gemv_call *c)
{
    if (!ctx)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: ctx is NULL");
    if (c->layout != CLF_ROW_MAJOR && c->layout != CLF_COL_MAJOR)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: layout %d is neither CLF_ROW_MAJOR nor CLF_COL_MAJOR",
                         (int)c->layout);
    if (c->ta != CLF_NO_TRANS && c->ta != CLF_TRANS)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: ta %d is neither CLF_NO_TRANS nor CLF_TRANS", (int)c->ta);
    if (c->dt == CLF_F64 && !ctx->info.fp64)
        return clf__fail(CLF_ERR_UNSUPPORTED, "dgemv: device \"%s\" has no fp64 (cl_khr_fp64)", ctx->info.name);
    const char *names[] = {"incx", "incy"};
    size_t incs[] = {c->incx, c->incy};
    for (int i = 0; i < 2; i++) {
        if (incs[i] == 0)
            return clf__fail(CLF_ERR_INVALID_ARG, "gemv: %s is 0; it must be positive", names[i]);
        if (incs[i] > (size_t)PTRDIFF_MAX)
            return clf__fail(CLF_ERR_INVALID_ARG, "gemv: %s = %zu (a negative increment cast to size_t?): only "
                             "positive increments are supported", names[i], incs[i]);
    }
    if (c->m > CLF__GEMV_MAX || c->n > CLF__GEMV_MAX)
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: m and n must be at most %zu (got %zu, %zu)", CLF__GEMV_MAX,
                         c->m, c->n);
    size_t inner = c->layout == CLF_ROW_MAJOR ? c->n : c->m;
    if (c->lda < (inner > 1 ? inner : 1))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: lda = %zu is smaller than the stored %s length %zu", c->lda,
                         c->layout == CLF_ROW_MAJOR ? "row" : "column", inner > 1 ? inner : 1);
    return CLF_SUCCESS;
}

/* y is written: writable, and not overlapping A or x (BLAS leaves that undefined; with the buffers in hand
 * a library can refuse it). Spans are compared whole, so a strided y interleaved with x is refused too. */
static clf_status check_y(const gemv_call *c, const clf__span *sa, const clf__span *sx, const clf__span *sy)
{
    if (!sy->root)
        return CLF_SUCCESS;
    cl_mem_flags flags = 0;
    if (clGetMemObjectInfo(c->y, CL_MEM_FLAGS, sizeof flags, &flags, NULL) == CL_SUCCESS &&
        (flags & CL_MEM_READ_ONLY))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: y is a CL_MEM_READ_ONLY buffer");
    if (clf__spans_overlap(sy, sa))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: y (bytes %zu..%zu) overlaps A (bytes %zu..%zu) in the same "
                         "buffer", sy->lo, sy->hi - 1, sa->lo, sa->hi - 1);
    if (clf__spans_overlap(sy, sx))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: y (bytes %zu..%zu) overlaps x (bytes %zu..%zu) in the same "
                         "buffer", sy->lo, sy->hi - 1, sx->lo, sx->hi - 1);
    return CLF_SUCCESS;
}

static clf_status gemv_check(clf_context *ctx, const gemv_call *c)
{
    clf_status s = check_scalars(ctx, c);
    if (s != CLF_SUCCESS)
        return s;
    int row = c->layout == CLF_ROW_MAJOR, nt = c->ta == CLF_NO_TRANS;
    /* BLAS: nothing is referenced when m or n is 0; A and x are not when alpha is 0; y is not written
     * when alpha is 0 and beta is 1. Those may then be NULL. */
    int any = c->m && c->n, reads = any && c->alpha != 0.0, writes = any && !(c->alpha == 0.0 && c->beta == 1.0);
    size_t outer = row ? c->m : c->n, inner = row ? c->n : c->m, ea = 0, ex, ey, t;
    if (reads && (!clf__mul(outer - 1, c->lda, &t) || !clf__add(t, inner, &ea)))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: extent of A overflows (%zu x lda %zu)", outer, c->lda);
    if (!vec_extent(reads ? (nt ? c->n : c->m) : 0, c->incx, &ex))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: extent of x overflows (incx %zu)", c->incx);
    if (!vec_extent(writes ? (nt ? c->m : c->n) : 0, c->incy, &ey))
        return clf__fail(CLF_ERR_INVALID_ARG, "gemv: extent of y overflows (incy %zu)", c->incy);
    size_t esz = clf__dtype_size(c->dt);
    clf__span sa, sx, sy;
    if ((s = check_operand(ctx, "A", c->a, c->a_off, ea, esz, &sa)) != CLF_SUCCESS ||
        (s = check_operand(ctx, "x", c->x, c->x_off, ex, esz, &sx)) != CLF_SUCCESS ||
        (s = check_operand(ctx, "y", c->y, c->y_off, ey, esz, &sy)) != CLF_SUCCESS)
        return s;
    return check_y(c, &sa, &sx, &sy);
}

/* ---- public entry points ------------------------------------------------------------------ */

static clf_status gemv_public(clf_context *ctx, const gemv_call *c, cl_event *done)
{
    if (done)
        *done = NULL;
    clf_status s = gemv_check(ctx, c);
    if (s != CLF_SUCCESS)
        return s;
    if (c->m == 0 || c->n == 0)   /* BLAS quick return: y is not touched even when its length is not 0 */
        return marker(ctx, done);
    /* op(A) is rows x cols; its rows are contiguous for row-major NoTrans and column-major Trans. */
    int nt = c->ta == CLF_NO_TRANS;
    return clf__gemv_enqueue(ctx, c->dt, (c->layout == CLF_ROW_MAJOR) == nt, nt ? c->m : c->n, nt ? c->n : c->m,
                             c->alpha, c->a, c->a_off, c->lda, c->x, c->x_off, c->incx, c->beta, c->y, c->y_off,
                             c->incy, done);
}

CLF_API clf_status clf_sgemv(clf_context *ctx, clf_layout layout, clf_transpose ta, size_t m, size_t n, float alpha,
                             cl_mem a, size_t a_off, size_t lda, cl_mem x, size_t x_off, size_t incx, float beta,
                             cl_mem y, size_t y_off, size_t incy, cl_event *done)
{
    gemv_call c = {CLF_F32, layout, ta, m, n, alpha, beta, a, a_off, lda, x, x_off, incx, y, y_off, incy};
    return gemv_public(ctx, &c, done);
}

CLF_API clf_status clf_dgemv(clf_context *ctx, clf_layout layout, clf_transpose ta, size_t m, size_t n,
                             double alpha, cl_mem a, size_t a_off, size_t lda, cl_mem x, size_t x_off, size_t incx,
                             double beta, cl_mem y, size_t y_off, size_t incy, cl_event *done)
{
    gemv_call c = {CLF_F64, layout, ta, m, n, alpha, beta, a, a_off, lda, x, x_off, incx, y, y_off, incy};
    return gemv_public(ctx, &c, done);
}
