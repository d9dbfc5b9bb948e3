/* testutil.h — shared helpers for the Check suites: one context per OpenCL device present, random data,
 * a per-suite temporary directory, and a main() that runs a suite. */
#ifndef CLFORGE_TESTUTIL_H
#define CLFORGE_TESTUTIL_H

#include <check.h>
#include <jansson.h>
#include <stdint.h>

#include "clforge/clforge.h"

/* Creates one context per OpenCL device present (every platform), each with the disk cache in
 * clf_test_tmpdir()/cache; $CLFORGE_TEST_DEVICES ("P:D,P:D") limits the devices. Returns the count (0 fails the calling test). Free with clf_test_contexts_free. */
int clf_test_contexts(clf_context ***out);
void clf_test_contexts_free(clf_context **ctxs, int n);
/* A directory for this suite's files: $CLFORGE_TEST_TMP, else /tmp/clforge-test-<pid>; created on first use. */
const char *clf_test_tmpdir(void);
/* How many random cases a suite runs: $env when it is a positive number (the GPU scripts ask for more), else
 * fallback. */
int clf_test_case_count(const char *env, int fallback);
/* Deterministic pseudo-random numbers (xorshift64*), uniform in [-1, 1). */
double clf_test_rand(uint64_t *state);
/* The same generator's raw 64-bit output. */
uint64_t clf_test_rand_u64(uint64_t *state);
/* An alpha (is_beta 0) or beta for BLAS tests: mostly the special values (0, 1, -1, ...), else random. */
double clf_test_pick_scalar(uint64_t *state, int is_beta);
void clf_test_rand_f32(float *x, size_t n, uint64_t *state);
void clf_test_rand_f64(double *x, size_t n, uint64_t *state);
/* A test case with a timeout fit for slow CPU devices. */
TCase *clf_test_tcase(const char *name);
/* Adds test t to s in a case of its own, named after it (so that CK_RUN_CASE can pick one test). */
#define CLF_TEST_ALONE(s, t) clf_test_add_alone((s), #t, (t))
void clf_test_add_alone(Suite *s, const char *name, const TTest *t);
/* Every device present, or those $CLFORGE_TEST_DEVICES ("P:D,P:D") names, as clf_test_contexts picks them, into
 * *out (calloc'd; the caller frees it); for tests that make their own contexts (a cache directory each). */
int clf_test_devices(clf_device_info **out);
/* stderr into file until clf_test_capture_end, which restores it and returns what was written (up to 16 KiB,
 * in a static buffer): the warnings a test expects. */
int clf_test_capture_begin(const char *file);
char *clf_test_capture_end(int saved, const char *file);
/* Runs the suite (fork mode unless CK_FORK=no) and returns the process exit code. */
int clf_test_run(Suite *s);
/* Buffer helpers: create a buffer initialised from host data (NULL: zeroed), read it back. Abort the test on failure. */
cl_mem clf_test_buffer(clf_context *ctx, size_t bytes, const void *host);
/* ctx's tuning database, parsed; fails the calling test unless it parses and has the current format. */
json_t *clf_test_load_tunedb(clf_context *ctx);
void clf_test_read(clf_context *ctx, cl_mem buf, size_t bytes, void *host);

#endif
