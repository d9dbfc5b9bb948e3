/* gemm_waves.h — how many work-groups of a GEMM configuration a device runs at once, measured, and what the
 * planner makes of it: a product whose last wave of tiles would leave most of the device idle runs its
 * whole waves as they are and the leftover rows of tiles split along K (gemm_plan.c). */
#ifndef CLFORGE_GEMM_WAVES_H
#define CLFORGE_GEMM_WAVES_H

#include "gemm.h"

#include <jansson.h>

/* Work-groups of cfg's kernel (family f: gemm's packed kernel, or gemm_mma) resident at once on ctx's device:
 * compute units x the "wg_per_cu" measured with cfg (its tuning entry, tuned or shipped, when that entry holds
 * cfg), or $CLFORGE_GEMM_WG_PER_CU ("off": 0). 0 when not known: the planner then leaves waves alone. */
size_t clf__gemm_wave_slots(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                            const clf__config *cfg);

/* Measures cfg's work-groups per compute unit on a GPU (f: gemm's packed kernel, or gemm_mma in the mode of
 * dt and bucket): products of j x (compute units) whole tiles, j = 1..8, K = 512, never split; the answer is
 * the j after which one more row of tiles costs the most (the first full extra wave). times (may be NULL) gets
 * the 8 median times in seconds. CPU devices: CLF_ERR_UNSUPPORTED. */
clf_status clf__gemm_measure_wg_per_cu(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                                       const clf__config *cfg, int *out, double *times);

#define CLF__TILE_PROBE_ROWS 8
#define CLF__TILE_PROBE_K0 512
#define CLF__TILE_PROBE_K1 2048

/* Measures the time (ns) of products of j x (compute units) whole tiles of cfg, j = 1..8, at K = 512 (ns[0..8))
 * and K = 2048 (ns[8..16)), never split: a compute unit's time for j tiles of cfg at each depth ("tile_ns" of a
 * gemm tuning entry). The K = 512 pass is the waves probe's: wg_per_cu (may be NULL) gets what
 * clf__gemm_measure_wg_per_cu would, and ns[0..8) its times, as soon as that pass succeeds (also when the K = 2048
 * pass then fails). GPUs only, as clf__gemm_measure_wg_per_cu. */
clf_status clf__gemm_measure_tile_ns(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                                     const clf__config *cfg, int *ns, int *wg_per_cu);

/* Seconds a compute unit takes for per_cu tiles of depth k, from a "tile_ns" profile (16 values, as measured
 * above) and the configuration's wg_per_cu: linear in k through the two depths, and past 8 tiles each further
 * wave costs what the last measured one did. 0 for per_cu 0. */
double clf__gemm_tile_time(const int *ns, int wg_per_cu, size_t per_cu, size_t k);

/* The tuner's hook: adds "wg_per_cu" (measured as above) to a gemm or gemm_mma tuning entry on GPUs, and to a
 * gemm entry "tile_ns", for the buckets the wave and tile rules serve (not "small", whose products run the
 * direct kernel, nor "batched"); nothing elsewhere. */
void clf__gemm_describe_entry(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                              const clf__config *cfg, json_t *entry);

/* ---- the split model: how long a product's work-groups take when K is cut (gemm_plan.c, gemm_plan_typed.c) */

#define CLF__SPLIT_K_MAX 32   /* slices of K, at most */
#define CLF__WAVE_GAIN 0.9    /* cut only when the estimate is at least 10% faster */

/* How a K of k is cut: slices a multiple of grain long, fixed: a work-group's fixed cost in the same unit;
 * plane_cost: writing and reading back one work-group's partial sums, in full-K waves per wave of slices (0
 * where it was not modelled: the fp32 kernel's rules were measured without it). */
typedef struct clf__k_cut {
    size_t k, grain, fixed;
    double plane_cost;
} clf__k_cut;

/* The number of slices (1: none) that runs units work-groups fastest, slots at once, over slices of at least
 * min_slice; *t gets its time in full-K waves. */
size_t clf__best_split(size_t units, size_t slots, const clf__k_cut *c, size_t min_slice, double *t);

/* The last-wave rule of both kernels: an m x n product in bm x bn tiles, slots work-groups at once, whose last
 * wave would be partly idle. *bulk_rows gets the rows of tiles that fill whole waves; the answer is the number
 * of K slices (1: keep the plan) that runs the other rows fastest, when that beats the plain plan by
 * CLF__WAVE_GAIN. */
size_t clf__last_wave_split(size_t m, size_t n, size_t bm, size_t bn, size_t slots, clf__k_cut c, size_t min_slice,
                            size_t *bulk_rows);

#endif
