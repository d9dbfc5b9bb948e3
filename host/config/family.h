/* family.h — the kernel-family descriptor: one struct per tunable kernel family (gemm, map, copy, gemv, ...).
 * The ops use it to build and launch; the autotuner uses the same struct to enumerate, build, run
 * and verify candidates; the profiler uses its FLOP and byte formulas. Adding a family touches its
 * own file, its .cl source and the registry list in family.c. */
#ifndef CLFORGE_FAMILY_H
#define CLFORGE_FAMILY_H

#include "internal.h"

#define CLF__MAX_PARAMS 16
#define CLF__MAX_VALUES 16

typedef struct clf__param {
    const char *name;              /* becomes -D<name>=<value> */
    int nvalues;
    int values[CLF__MAX_VALUES];   /* allowed values */
    int optional;                  /* 1: a stored configuration may lack it (it then takes values[0]), so that
                                    * configurations stored before the parameter existed still parse */
} clf__param;

/* One configuration: a value per parameter, in the family's parameter order. */
typedef struct clf__config {
    int v[CLF__MAX_PARAMS];
} clf__config;

/* A concrete call, for launch geometry, FLOPs and bytes; each family reads only its own fields. */
typedef struct clf__problem {
    clf_dtype dtype;
    size_t m, n, k;                /* gemm: C is m x n, inner dimension k; map/copy: n elements */
    size_t elem_size;              /* map/copy: bytes per element (copy: 1 when 0) */
    size_t flops_per_elem;         /* map: arithmetic operations per element */
    size_t batch;                  /* gemm: batch count */
    int reads, writes;             /* map: buffers read and written per element */
    double beta;                   /* gemm: C is read only when beta is not 0 */
} clf__problem;

typedef struct clf__family {
    const char *name;              /* "gemm" */
    int nparams;
    clf__param params[CLF__MAX_PARAMS];
    int nbuckets;
    const char *buckets[8];        /* shape classes tuned separately ("small", "large", "skinny") */
    const char *unit;              /* what the tuner maximises: "GFLOP/s" or "GB/s" */
    int nprecisions;               /* precisions the tuner tunes by default (0: f32, and f64 where offered) */
    clf_dtype precisions[4];
    int own_override;              /* 1: the op applies $CLFORGE_<FAMILY>_CONFIG itself (gemv: its keys go beyond
                                    * the tuned parameters), so clf__config_resolve applies none */

    /* The heuristic configuration for a device type when nothing is tuned or shipped. */
    void (*default_config)(const clf_device_info *dev, clf_dtype dt, const char *bucket, clf__config *out);
    /* 1 when cfg can run on dev (local memory, work-group limits, divisibility between parameters). */
    int (*valid)(const clf__config *cfg, const clf_device_info *dev, clf_dtype dt);
    /* Optional (NULL: every valid configuration): 1 when cfg is worth tuning in bucket, 0 when it only repeats
     * another there (a parameter the bucket's kernel ignores set to another value). The tuner skips the rest. */
    int (*in_bucket)(const clf__config *cfg, const char *bucket);
    /* Work of one call, for the profiler and the tuner's speed figure. */
    double (*flops)(const clf__problem *p);
    double (*bytes)(const clf__problem *p);

    /* Tuning: a benchmark problem of one bucket on real random data, with a reference answer. */
    clf_status (*bench_create)(clf_context *ctx, clf_dtype dt, const char *bucket, void **state);
    /* Enqueue one run with cfg (building it through the program cache); *ev gets the last event or NULL. */
    clf_status (*bench_run)(void *state, const clf__config *cfg, cl_event *ev);
    /* Checks the last run's output against the reference: CLF_SUCCESS or CLF_ERR_VERIFY (with message). */
    clf_status (*bench_check)(void *state);
    /* Work of one run in the family's unit's numerator (FLOPs or bytes). */
    double (*bench_work)(void *state);
    void (*bench_destroy)(void *state);
    /* Optional (NULL: not offered): builds, through the program cache, every program bench_run(cfg)
     * would use, enqueuing nothing. Called from several threads at once on one state, so the tuner can
     * compile upcoming candidates in parallel on a GPU while it times others. */
    clf_status (*bench_build)(void *state, const clf__config *cfg);
} clf__family;

/* All families, NULL-terminated; and lookup by name (NULL if unknown). */
extern const clf__family *const clf__families[];
const clf__family *clf__family_find(const char *name);

/* "-DMWG=64 -DNWG=64 ..." for cfg (appends to buf; returns CLF_ERR_INTERNAL if cap is too small). */
clf_status clf__config_options(const clf__family *f, const clf__config *cfg, char *buf, size_t cap);
/* "MWG=64 NWG=64 ..." and back; parse returns CLF_ERR_PARSE on unknown names or disallowed values. */
void clf__config_format(const clf__family *f, const clf__config *cfg, char *buf, size_t cap);
clf_status clf__config_parse(const clf__family *f, const char *text, clf__config *out);
/* f's in_bucket hook on cfg, or 1 when the family has none or bucket is NULL (every bucket). */
int clf__config_in_bucket(const clf__family *f, const clf__config *cfg, const char *bucket);
/* Index of a parameter by name, -1 if absent. */
int clf__param_index(const clf__family *f, const char *name);

#endif
