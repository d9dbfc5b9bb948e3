/* tunedb.h — the per-device tuning database: tuning/<device-id>.json in the cache directory.
 * Written under flock with write-to-temp + rename; a corrupt, truncated or future-version file is
 * moved aside (.corrupt-<timestamp>), reported once, and replaced; it is never fatal. */
#ifndef CLFORGE_TUNEDB_H
#define CLFORGE_TUNEDB_H

#include <jansson.h>
#include "internal.h"

/* Path of the database for ctx's device ("" when there is no cache directory). */
const char *clf__tunedb_path(clf_context *ctx);
/* Merges value (a JSON object or value; reference stolen) into the file's top-level member
 * `section` ("roofline", or a family entry path), under the file lock, atomically. */
clf_status clf__tunedb_store(clf_context *ctx, const char *section, json_t *value);
/* A new reference to the file's member `section`, or *value = NULL when absent. */
clf_status clf__tunedb_fetch(clf_context *ctx, const char *section, json_t **value);

#endif
