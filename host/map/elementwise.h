/* elementwise.h — what the elementwise ops share: map (map.c, map_family.c) and copy/fill (copy.c). One
 * parameter table, heuristic default and validity rule for both families, the configuration lookup, and
 * the launcher: a scalar head that aligns the lead buffer to VW, whole vectors, a scalar tail; the
 * work-group halved when a kernel cannot take the configured one; index arguments of 32 or 64 bits.
 * Names: clf__ew_ ("elementwise"). */
#ifndef CLFORGE_ELEMENTWISE_H
#define CLFORGE_ELEMENTWISE_H

#include "config.h"

/* Parameter order of the elementwise families (map and copy). */
#define CLF__P_VW 0
#define CLF__P_EPT 1
#define CLF__P_WG 2

/* The shape both elementwise family descriptors share: parameters, one bucket, measured in GB/s. */
#define CLF__EW_FAMILY_SHAPE                                                                                          \
    .nparams = 3,                                                                                                     \
    .params = {{"VW", 5, {1, 2, 4, 8, 16}}, {"EPT", 4, {1, 2, 4, 8}}, {"WG", 6, {32, 64, 128, 256, 512, 1024}}},   \
    .nbuckets = 1, .buckets = {"default"}, .unit = "GB/s"

/* Launch geometry of n elements: [0, head) scalar (aligning the lead buffer to VW), nv whole vectors,
 * then a scalar tail up to n. */
typedef struct clf__ew_geom {
    size_t n, head, nv;
    size_t vw, ept;
    size_t global, local;
    int idx64;                 /* index arguments are 64-bit (cl_ulong), else 32-bit (cl_uint) */
    int aligned;               /* every vector operand is VW-aligned after the head (-DCLF_ALIGNED) */
} clf__ew_geom;

/* 1 when element indices up to end (offsets included) need 64 bits. */
static inline int clf__ew_idx64(size_t end) { return end > 0x7fff0000u; }

/* The heuristic configuration for elements of esize bytes: 16-byte vectors, two per work-item, groups
 * of 256 on GPUs; 32-byte vectors, one per work-item, groups of 64 on CPUs (measured on PoCL). */
void clf__ew_default(const clf_device_info *dev, size_t esize, clf__config *out);
/* 1 when cfg's work-group fits dev. */
int clf__ew_valid(const clf__config *cfg, const clf_device_info *dev);
/* The configuration of family f for dt (the one "default" bucket), overrides included. */
clf_status clf__ew_config(clf_context *ctx, const clf__family *f, clf_dtype dt, clf__config *out);

/* Head and vector count for n elements with cfg's VW and EPT, the lead buffer at element offset lead_off.
 * Sets aligned to VW > 1; clear it with clf__ew_align for each operand. */
void clf__ew_split(const clf__config *cfg, size_t n, size_t lead_off, int idx64, clf__ew_geom *g);
/* Clears g->aligned unless an operand at element offset off is VW-aligned after the head. */
void clf__ew_align(clf__ew_geom *g, size_t off);
/* Builds kernel `name` of src with cfg's options, then extra, then the index type and alignment, through
 * the program cache; halves the work-group (down to 32) while the kernel cannot take it, then sets g's
 * global and local sizes. */
clf_status clf__ew_build(clf_context *ctx, const clf__family *f, const clf__config *cfg, const char *src,
                         const char *name, const char *extra, clf__ew_geom *g, cl_kernel *k);
/* Kernel argument i; what names the op in the error. */
clf_status clf__ew_arg(cl_kernel k, cl_uint i, size_t size, const void *v, const char *what);
/* Kernel argument i as an index (g->idx64 decides its width). */
clf_status clf__ew_index(cl_kernel k, cl_uint i, const clf__ew_geom *g, size_t v, const char *what);
/* The trailing n, head, nv arguments from i on. */
clf_status clf__ew_tail(cl_kernel k, cl_uint i, const clf__ew_geom *g, const char *what);
/* Enqueues k over g (when s is CLF_SUCCESS) and releases k; returns the first failure. */
clf_status clf__ew_enqueue(clf_context *ctx, clf_status s, cl_kernel k, const clf__ew_geom *g,
                           const clf__work *work, cl_event *done);
/* Nothing to compute: still hands back an event when one was asked for. */
clf_status clf__ew_marker(clf_context *ctx, cl_event *done, const char *what);
/* Elements of esize bytes per buffer for bandwidth measurements (tuning): beyond the device's caches. */
size_t clf__ew_bench_elements(clf_context *ctx, size_t esize);

#endif
