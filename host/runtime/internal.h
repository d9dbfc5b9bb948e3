/* internal.h — what the modules of libclforge share and nothing outside it sees (clf__ names). */
#ifndef CLFORGE_INTERNAL_H
#define CLFORGE_INTERNAL_H

#include "clforge/clforge.h"

#include <pthread.h>
#include <stdarg.h>

#if defined(__GNUC__)
#define CLF__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLF__PRINTF(f, a)
#endif

struct clf__progcache;  /* program.c */
struct clf__kernelpool; /* kernelpool.c */
struct clf__profile;    /* profile.c */

/* A device buffer grown on demand and reused by every call of a context: allocating per call cost
 * more than a 544^3 SGEMM on the H200. The lock is held from the first command that writes it to the
 * last that reads it; the context's one in-order queue orders everything after that. */
typedef struct clf__scratch {
    pthread_mutex_t lock;
    cl_mem buf;
    size_t bytes;
    size_t zeroed;   /* the bytes of buf zero-filled by clf__scratch_take_zeroed; growing resets it */
} clf__scratch;

/* Pinned staging of large host transfers (transfer.c): mapped CL_MEM_ALLOC_HOST_PTR buffers, one per
 * copying thread, created on the first staged transfer and mapped until the context is destroyed. The
 * lock is held for a whole staged transfer (they share one link to the device anyway). */
#define CLF__STAGING_SLOTS 16                 /* most copying threads $CLFORGE_STAGING_THREADS may ask for */
typedef struct clf__staging {
    pthread_mutex_t lock;
    size_t chunk;                        /* bytes per slot; 0 until the first slot is created */
    int count;                           /* slots created so far (as many as a transfer's threads needed) */
    cl_mem buf[CLF__STAGING_SLOTS];
    void *host[CLF__STAGING_SLOTS];      /* buf[i] mapped */
} clf__staging;

/* Pinned host memory handed to the user (clf_host_alloc): one mapped CL_MEM_ALLOC_HOST_PTR buffer per
 * allocation, listed so that transfers from or to it go direct and the context frees leftovers. */
typedef struct clf__pinned {
    cl_mem buf;
    void *host;
    size_t bytes;
    struct clf__pinned *next;
} clf__pinned;

struct clf_context {
    cl_context cl;
    cl_device_id dev;
    cl_command_queue queue;
    clf_device_info info;
    int queue_profiling;         /* the queue has CL_QUEUE_PROFILING_ENABLE */
    _Atomic int event_timing;    /* -1 unknown, 0 events report nonsense (host timers), 1 sane; read and
                                  * written by every thread that times on this context */
    int no_tuning;
    char cache_dir[1024];        /* "" when the disk cache is off */
    struct clf__progcache *progs;
    struct clf__kernelpool *kernels;  /* kernel objects reused by the ops (kernelpool.c) */
    struct clf__profile *profile;  /* NULL unless CLFORGE_PROFILE=1 */
    pthread_mutex_t lock;        /* guards lazily loaded state below */
    clf__scratch pack;           /* GEMM: packed operands */
    clf__scratch partial;        /* GEMM: split-K partial products (taken before `pack` when both are) */
    clf__scratch convert;        /* GEMM: operands converted between storage types (taken first of the three) */
    clf__scratch red_split;      /* clf_reduce: flags and states of lines split across work-groups (zeroed when grown) */
    clf__scratch split_flags;    /* GEMM: a flag a tile for split products summed by their last slice (zeroed when
                                  * grown; taken after `pack`) */
    unsigned red_split_groups;   /* groups that split launches have started on red_split's buffer (its ticket counter) */
    clf__staging staging;        /* transfers: pinned staging buffers */
    pthread_mutex_t pinned_lock; /* guards pinned */
    clf__pinned *pinned;         /* transfers: the user's pinned allocations */
    /* State of the layers above, owned by them and freed through their hook at destruction. */
    void *tuning;                /* config layer: the tuning database view (tunedb.c) */
    void (*tuning_free)(void *);
    void *configs;               /* config layer: memoised resolved configurations (config.c) */
    void (*configs_free)(void *);
};

/* ---- contexts (context.c) ------------------------------------------------------------------ */
/* Frees everything the context owns (the layers' state through their hooks); the public
 * clf_context_destroy (host/api/context.c) reports the profile first. */
void clf__context_free(clf_context *ctx);
/* ctx->event_timing, and setting it (-1 unknown, 0 host timers, 1 events are sane). */
int clf__event_timing(const clf_context *ctx);
void clf__set_event_timing(clf_context *ctx, int v);
/* Locks sc and makes it at least `bytes` long; *buf gets the buffer. On failure sc is unlocked. */
clf_status clf__scratch_take(clf_context *ctx, clf__scratch *sc, size_t bytes, cl_mem *buf);
/* clf__scratch_take for scratch that must start at zero (flags, ticket counters): a buffer not yet zero-filled since
 * it was made is filled on ctx's queue, ahead of the taker's launches; *fresh (when not NULL) tells whether it was.
 * `what` names it in an error. On failure sc is unlocked. */
clf_status clf__scratch_take_zeroed(clf_context *ctx, clf__scratch *sc, size_t bytes, const char *what, cl_mem *buf,
                                    int *fresh);
void clf__scratch_give(clf__scratch *sc);
/* A launch epoch for flags in zeroed scratch: never 0, under 2^bits, from one process-wide counter, so a flag an
 * earlier launch (of any context) left is not taken for a later one's until the counter comes round. */
unsigned clf__launch_epoch(unsigned bits);

/* ---- transfers (transfer.c) ---------------------------------------------------------------- */
/* Unmaps and releases the staging buffers and the pinned allocations left (context destruction, with the
 * queue still alive). */
void clf__staging_free(clf_context *ctx);

/* ---- errors (error.c) ---------------------------------------------------------------------- */
/* Sets this thread's error message and returns s. */
clf_status clf__fail(clf_status s, const char *fmt, ...) CLF__PRINTF(2, 3);
/* For a failed OpenCL call: "<call>: <CL_NAME> (<code>): <detail>"; returns err unchanged. */
clf_status clf__fail_cl(cl_int err, const char *call, const char *fmt, ...) CLF__PRINTF(3, 4);
/* Appends text (e.g. a build log) to this thread's current message. */
void clf__error_append(const char *text);
void clf__clear_error(void);
/* Between these, failures set no message: for lookups that fail by design and fall back, so that
 * clf_last_error() keeps describing the caller's last real failure. Sections nest. */
void clf__quiet_begin(void);
void clf__quiet_end(void);
/* Prints a warning to stderr once per process per key (e.g. unwritable cache directory). */
void clf__warn_once(const char *key, const char *fmt, ...) CLF__PRINTF(2, 3);
/* s as a whole decimal number in [lo, hi], all of it: 1 and *out, else 0 (*out unchanged). */
int clf__parse_long(const char *s, long lo, long hi, long *out);
/* $name as by clf__parse_long: 1 and *out when it is one; 0 when unset or empty; -1, after one warning that names
 * the variable and the range, for any other value, which callers then treat as unset. */
int clf__env_long(const char *name, long lo, long hi, long *out);
/* 0 when $name is `word`, which turns a rule off (to compare on a device), else 1; another non-empty value warns
 * once and leaves the rule on. */
int clf__env_rule_on(const char *name, const char *word);
/* Which of words (space-separated) the variable `name` holds, counted from 1; 0 when it is unset or empty, and for
 * another value, which warns once. */
int clf__env_word(const char *name, const char *words);

/* ---- kernel sources (sources.c) ------------------------------------------------------------ */
/* The text of cl/<name> (e.g. "gemm.cl"): embedded at build time, or read from $CLFORGE_KERNEL_DIR.
 * The returned string lives until the process ends. */
clf_status clf__source(const char *name, const char **out);

/* ---- devices (device.c) -------------------------------------------------------------------- */
clf_status clf__device_info(cl_platform_id p, cl_device_id d, clf_device_info *out);
/* Resolves a selector to OpenCL handles and info. */
clf_status clf__device_pick(const char *selector, cl_platform_id *p, cl_device_id *d, clf_device_info *info);
/* "gpu", "cpu", "accelerator" or "other": how tuning data and results name a device type. */
const char *clf__device_type_name(cl_device_type t);
/* 1 for a device of NVIDIA's (PCI vendor 0x10de, or "NVIDIA" in the vendor or platform name). */
int clf__device_is_nvidia(const clf_device_info *d);
/* XXH3-64 of bytes as 16 lowercase hex digits (out has room for 17). */
void clf__hash_hex(const void *data, size_t len, char out[17]);

/* ---- programs (program.c) ------------------------------------------------------------------ */
struct clf__progcache *clf__progcache_create(void);
void clf__progcache_destroy(struct clf__progcache *c);
/* A built program for (source, options) on ctx's device: from memory, from the disk cache, or
 * compiled. The program belongs to the context's cache: do not release it. */
clf_status clf__program(clf_context *ctx, const char *source, const char *options, cl_program *out);
/* ptx_retarget.c: 1 when a build's options ask for its PTX to be retargeted to sm_90a (CLF_SM90A); the
 * retarget replaces *prog, built, or fails and leaves it. */
int clf__wants_sm90a(const char *options);
/* $CLFORGE_BUILD_OPTIONS ("" when unset): extra compiler options for every build (program.c). */
const char *clf__extra_build_options(void);
/* ptx (len bytes, NUL-terminated at len at the latest) with ".target sm_90" made "sm_90a" and the "//@sm90a "
 * markers removed, malloc'd; NULL when it is not PTX for sm_90 or sm_90a (or memory is short). */
char *clf__ptx_patch(const char *ptx, size_t len);
clf_status clf__ptx_retarget(clf_context *ctx, cl_program *prog, const char *options);
/* A new kernel from such a program; the caller releases it. */
clf_status clf__kernel(clf_context *ctx, const char *source, const char *options, const char *name,
                       cl_kernel *out);
void clf__cache_stats(const clf_context *ctx, clf_cache_stats *out);

/* ---- the kernel pool (kernelpool.c) --------------------------------------------------------- */
struct clf__kernelpool *clf__kernelpool_create(void);
void clf__kernelpool_destroy(struct clf__kernelpool *p);
/* Borrows a kernel of the program built from (source, options): a pooled one when free, else a new one.
 * The caller sets every argument, enqueues, and hands it back with clf__kernel_give (never releases it). */
clf_status clf__kernel_take(clf_context *ctx, const char *source, const char *options, const char *name,
                            cl_kernel *out);
/* Returns a borrowed kernel to the pool (k may be NULL). */
void clf__kernel_give(clf_context *ctx, cl_kernel k);
/* Kernels held by the pool (tests). */
int clf__kernelpool_size(const clf_context *ctx);

/* ---- launching and timing (launch.c) ------------------------------------------------------- */
/* What one launch does, for the profiler's roofline columns. */
typedef struct clf__work {
    const char *name;    /* e.g. "sgemm", "map", "copy" */
    double flops;
    double bytes;        /* bytes read + written in global memory */
} clf__work;
/* Enqueues an NDRange on ctx's queue. local may be NULL. When done is non-NULL it receives the event
 * (caller releases). work may be NULL; otherwise the launch is recorded when profiling is on. */
clf_status clf__enqueue(clf_context *ctx, cl_kernel k, cl_uint dims, const size_t *global,
                        const size_t *local, const clf__work *work, cl_event *done);
/* Monotonic wall time in seconds. */
double clf__now(void);
/* Duration of a completed event from profiling info; < 0 when not available or not sane. */
double clf__event_seconds(cl_event ev);
/* Something to time: enqueues one run. Set *ev (caller releases) only when the run is a single command
 * whose event spans all of it; leave it NULL for multi-kernel runs, which are then timed on the host. */
typedef clf_status (*clf__run_fn)(void *arg, cl_event *ev);
/* The one timing policy (launch, tuner, `clforge bench`, bench/): the median of reps samples after warmup
 * single runs. A sample is one run timed by its profiling event where the driver reports sane durations
 * (checked against host timers on every sample and over all of them; one bad report switches the context
 * to host timers), or a group of runs back to back timed on the host around clFinish, which keeps the
 * device busy and hides the launch gap of short runs. */
typedef struct clf__timing {
    int warmup;                /* single runs first: compilation, caches, clocks */
    int reps;                  /* samples (at least 1) */
    int group;                 /* runs per sample; 0: from one more run, so a sample lasts group_seconds */
    double group_seconds;
    int max_group;             /* cap on a sized group */
} clf__timing;
/* Seconds per run (median sample / group); *group_used (may be NULL) gets the group. */
clf_status clf__time_runs(clf_context *ctx, clf__run_fn run, void *arg, const clf__timing *how, double *seconds,
                          int *group_used);
/* Runs per sample for runs of `seconds` to last about target: at least 1, at most max_group. */
int clf__time_group(double seconds, double target, int max_group);
/* clf__time_runs with single-run samples. */
clf_status clf__time_median(clf_context *ctx, clf__run_fn run, void *arg, int warmup, int reps,
                            double *median_seconds);

/* ---- argument checking (args.c) ------------------------------------------------------------ */
/* a*b and a+b without overflow; return 0 (and leave *out alone) when it would overflow. */
int clf__mul(size_t a, size_t b, size_t *out);
int clf__add(size_t a, size_t b, size_t *out);
/* Checks that elements [off, off+extent) of elem_size bytes fit in buffer m (CL_MEM_SIZE), with overflow
 * caught. On failure returns CLF_ERR_INVALID_ARG naming argname. extent 0 is always fine. */
clf_status clf__check_buffer(cl_mem m, const char *argname, size_t off, size_t extent, size_t elem_size);
/* The buffer a cl_mem lives in and its byte offset there (sub-buffers resolve to their parent), for
 * overlap checks between arguments. */
cl_mem clf__mem_root(cl_mem m, size_t *base);
/* Where an operand's elements lie, for overlap checks: root buffer and byte range (root NULL: unused). */
typedef struct clf__span {
    cl_mem root;
    size_t lo, hi;   /* bytes [lo, hi) in root */
} clf__span;
/* Elements [off, off + extent) of esz bytes of buf as an operand `name` of op (e.g. "gemm"): buf non-NULL,
 * the range inside it, buf of ctx's OpenCL context; *sp gets its span. extent 0: not referenced (buf may
 * be NULL), an empty span. CLF_ERR_INVALID_ARG naming the operand otherwise. */
clf_status clf__check_operand_buffer(const clf_context *ctx, const char *op, const char *name, cl_mem buf,
                                     size_t off, size_t extent, size_t esz, clf__span *sp);
/* 1 when both spans lie in one root buffer and their byte ranges meet. */
int clf__spans_overlap(const clf__span *x, const clf__span *y);
size_t clf__dtype_size(clf_dtype t);
const char *clf__dtype_name(clf_dtype t);   /* "f32", "f64", "f16", "bf16" */

/* ---- profiler (profile.c) ------------------------------------------------------------------ */
struct clf__profile *clf__profile_create(void);
void clf__profile_destroy(struct clf__profile *p);
/* Records a launch (the event is retained and read later). */
void clf__profile_record(clf_context *ctx, const clf__work *work, cl_event ev);
/* Calls, FLOPs and bytes recorded so far for kernels named name (for tests). */
clf_status clf__profile_totals(clf_context *ctx, const char *name, unsigned long *calls, double *flops, double *bytes);
/* Writes the per-kernel table of everything recorded on ctx; roof (may be NULL) adds the roofline columns. */
clf_status clf__profile_print(clf_context *ctx, FILE *out, const clf_roofline *roof);

#endif
