/* autotune.h — what the autotuner's modules (space, search, prebuild, tune) share; internal. The
 * tuner sits above the ops: it drives them through their family descriptors and stores results through
 * the configuration layer (host/config/config.h). */
#ifndef CLFORGE_AUTOTUNE_H
#define CLFORGE_AUTOTUNE_H

#include <stdint.h>

#include "config.h"

/* ---- space.c ------------------------------------------------------------------------------- */
typedef struct clf__rng { uint64_t s; } clf__rng;
uint64_t clf__rng_next(clf__rng *r);
/* Uniform in [0, n). */
unsigned clf__rng_below(clf__rng *r, unsigned n);
/* Number of parameter combinations (before the validity predicate). */
double clf__space_size(const clf__family *f);
/* The first combination in enumeration order (every parameter at its first value). */
void clf__space_first(const clf__family *f, clf__config *c);
/* Steps c to the next combination in odometer order; 0 when c was the last. */
int clf__space_next(const clf__family *f, clf__config *c);
/* The combination at index (0 .. size-1) of the same odometer order. */
void clf__space_decode(const clf__family *f, uint64_t index, clf__config *c);
/* A pseudo-random permutation of [0, size) that needs no memory (for visiting large spaces once each). */
typedef struct clf__perm { uint64_t size, mask, a, c, x, left; } clf__perm;
void clf__perm_init(clf__perm *p, uint64_t size, clf__rng *r);
/* The next index; 0 when all size of them were given. */
int clf__perm_next(clf__perm *p, uint64_t *out);
/* 1 when every value is among the parameter's allowed values. */
int clf__space_contains(const clf__family *f, const clf__config *c);
/* A random valid configuration (up to `tries` draws); 0 when none was found. */
int clf__space_random(const clf__family *f, const clf_device_info *dev, clf_dtype dt, clf__rng *r,
                      int tries, clf__config *out);
/* Valid configurations one or two steps away from c in one parameter's value list, or with two
 * parameters moved one step each; up to cap of them into out, shuffled. Returns how many. */
int clf__space_neighbors(const clf__family *f, const clf_device_info *dev, clf_dtype dt, const clf__config *c,
                         clf__rng *r, clf__config *out, int cap);
/* Counts valid configurations (of bucket, where the family says: NULL counts all), stopping at limit (the space
 * can be large). */
long clf__space_count_valid(const clf__family *f, const clf_device_info *dev, clf_dtype dt, const char *bucket,
                            long limit);

/* ---- prebuild.c ---------------------------------------------------------------------------- */
#define CLF__PREBUILD_WINDOW 32
typedef struct clf__prebuild clf__prebuild;
/* Builder threads for f's bench_build on state; NULL when the family has no such hook, the device is
 * a CPU, or the host has fewer than three cores ($CLFORGE_TUNE_THREADS overrides the count). No build
 * starts that would end after deadline (clf__now() seconds) at the average build time so far. */
clf__prebuild *clf__prebuild_start(clf_context *ctx, const clf__family *f, void *state, double deadline);
/* The configurations to build next, in order (at most CLF__PREBUILD_WINDOW); replaces what was pending. */
void clf__prebuild_window(clf__prebuild *p, const clf__config *list, int n);
/* Waits for builds in flight and frees p (NULL is fine). */
void clf__prebuild_stop(clf__prebuild *p);

/* ---- search.c ------------------------------------------------------------------------------ */
/* Searches one family/precision/bucket for budget seconds and stores the best; fills e. Returns
 * CLF_ERR_UNSUPPORTED when the family has no benchmark for dt, CLF_ERR_IO when storing failed. */
clf_status clf__tune_task(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                          const clf_tune_options *opt, double budget, uint64_t seed, clf_tune_entry *e);

/* ---- tune.c -------------------------------------------------------------------------------- */
/* 1 when name is in the comma-separated list (NULL: everything is). */
int clf__listed(const char *list, const char *name);

/* Tunes the given families (NULL-terminated) for each precision and bucket, storing results in the
 * database; the entry point of clf_tune, open to the CLI and to tests' own families.
 * precisions: NULL for f32 (and f64 when the device has it), else nprecisions of them.
 * buckets: NULL for all, else a comma-separated list (buckets a family lacks are ignored). */
clf_status clf__tune_families(clf_context *ctx, const clf__family *const *families,
                              const clf_dtype *precisions, int nprecisions, const char *buckets,
                              const clf_tune_options *opt, clf_tune_report *report);

#endif
