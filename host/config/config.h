/* config.h — the runtime configuration layer: which parameters a kernel family runs with on this device.
 * Below the ops, above the runtime. It holds the per-device tuning database (tunedb.c:
 * tuning/<device-id>.json in the cache directory, written under flock with write-to-temp + rename; a
 * corrupt, truncated or future-version file is moved aside, reported once, and replaced, never fatal),
 * the shipped defaults compiled into the library, and the lookup chain over them (config.c), memoised per
 * context. */
#ifndef CLFORGE_CONFIG_H
#define CLFORGE_CONFIG_H

#include <jansson.h>

#include "family.h"

#define CLF__TUNEDB_FORMAT 1   /* files with a higher "format" come from a newer clforge: moved aside */

/* ---- tunedb.c ------------------------------------------------------------------------------ */
/* "tuned/<family>/<precision>/<bucket>": where an entry lives in a database file. */
void clf__tunedb_entry_path(const char *family, const char *precision, const char *bucket, char *out,
                            size_t cap);
/* Like clf__tunedb_fetch, but from the newest database of a device with the same name and another
 * driver (a "stale" result). *driver (may be NULL) gets that file's driver version, valid until ctx
 * is destroyed. *value = NULL when there is none. */
clf_status clf__tunedb_fetch_stale(clf_context *ctx, const char *section, json_t **value,
                                   const char **driver);
/* Member `section` ("a/b/c") of a parsed database document; borrowed reference or NULL. */
json_t *clf__tunedb_get(json_t *doc, const char *section);


/* Path of the database for ctx's device ("" when there is no cache directory). */
const char *clf__tunedb_path(clf_context *ctx);
/* Merges value (a JSON object or value; reference stolen) into the file's top-level member
 * `section` ("roofline", or a family entry path), under the file lock, atomically. */
clf_status clf__tunedb_store(clf_context *ctx, const char *section, json_t *value);
/* A new reference to the file's member `section`, or *value = NULL when absent. */
clf_status clf__tunedb_fetch(clf_context *ctx, const char *section, json_t **value);

/* ---- lookup (config.c) ------------------------------------------------------------------------------ */
/* The configuration tuned for ctx's device (its database, exact key), or 0 when there is none, it does
 * not pass the family's validity check, or CLFORGE_TUNING=off. */
int clf__tuned_config(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket, clf__config *out);
/* An integer field (e.g. "wg_per_cu") that the tuned or shipped entry of (f, dt, bucket) records next to cfg,
 * when that entry's configuration is cfg; 0 otherwise. */
int clf__config_entry_int(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                          const clf__config *cfg, const char *field);
#define CLF__ENTRY_INTS_MAX 16
/* The same for a field that is an array of positive integers (e.g. "tile_ns"): copies up to max of them into
 * out and returns how many; 0 when the entry lacks the field or holds anything else there. */
int clf__config_entry_ints(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                           const clf__config *cfg, const char *field, int *out, int max);
/* The shipped default for ctx's device, or 0 when no shipped file matches or it lacks the entry. */
int clf__shipped_config(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                        clf__config *out);
/* The bucket name used in the database: bucket, else the family's first bucket, else "all". */
const char *clf__bucket_name(const clf__family *f, const char *bucket);

/* The configuration the ops use for (family, dtype, bucket): tuning database (exact device key, then
 * same name with another driver: "stale"), shipped defaults ("shipped"), the family's heuristic
 * ("default"). origin may be NULL. */
clf_status clf__config_select(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                              clf__config *out, const char **origin);

/* The configuration an op runs with for (family, dtype, bucket): the lookup chain of
 * clf__config_select, then the $CLFORGE_<FAMILY>_CONFIG override ("NAME=V ...", any subset of the
 * parameters) on top; the result is checked against the device. Memoised per context, so an op makes
 * no file-system call; a tuning result stored through clf__tunedb_store (or clf__config_forget) is
 * seen by the next call. An override that does not parse or is not valid here fails with
 * CLF_ERR_INVALID_ARG naming the variable, for every family alike. origin may be NULL. */
clf_status clf__config_resolve(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                               clf__config *out, const char **origin);
/* Sets cfg aside for (family, dtype, bucket) on ctx: its kernel did not build on this driver. Lookups on ctx
 * then skip a tuned, stale or shipped entry equal to it and answer with the next source of the chain.
 * Warns once, naming origin. Returns 0 when nothing was set aside (no memory). */
int clf__config_set_aside(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                          const clf__config *cfg, const char *origin);
/* 1 the first time it is asked about (family, dtype, bucket, cfg) on ctx, then 0: the caller checks a
 * configuration of another driver's tuning (origin "stale") on first use, once per context. */
int clf__config_first_use(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                          const clf__config *cfg);
/* Drops ctx's memoised configurations (after a tune stored a result). */
void clf__config_forget(clf_context *ctx);

#endif
