/* clforge.h — the one public header of clforge, a portable OpenCL compute backend.
 *
 * Conventions: every function returns a clf_status (0 = success, negative = error) unless noted;
 * out-parameters come last; handles are opaque; *_destroy(NULL) is a no-op. OpenCL objects that
 * the caller passes in (cl_mem, queues) stay the caller's. On failure clf_last_error() holds a
 * message for people (the failing call, the OpenCL error name, a build log), and nothing was
 * enqueued or changed. */
#ifndef CLFORGE_CLFORGE_H
#define CLFORGE_CLFORGE_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CLFORGE_STATIC)
#define CLF_API
#elif defined(_WIN32)
#define CLF_API __declspec(dllimport)
#else
#define CLF_API __attribute__((visibility("default")))
#endif

/* The one place the version is written: CMakeLists.txt reads these lines (project version, package, soname). */
#define CLFORGE_VERSION_MAJOR 0
#define CLFORGE_VERSION_MINOR 2
#define CLFORGE_VERSION_PATCH 0
#define CLFORGE_VERSION_STRING "0.2.0"

/* The library's version string, e.g. "0.2.0" (may differ from the header's if linked dynamically). */
CLF_API const char *clf_version(void);

/* ---------------------------------------------------------------------------------------------
 * Status codes. OpenCL's own codes pass through unchanged (CL_OUT_OF_RESOURCES is -5 in both);
 * clforge's codes live in their own range. One list generates the enum and both string functions.
 */
#define CLF_STATUS_MAP(X)                                                                     \
    X(CLF_SUCCESS, 0, "success")                                                              \
    X(CLF_ERR_INVALID_ARG, -2001, "invalid argument")                                         \
    X(CLF_ERR_UNSUPPORTED, -2002, "not supported on this device")                             \
    X(CLF_ERR_BUILD, -2003, "OpenCL program failed to build")                                 \
    X(CLF_ERR_PARSE, -2004, "expression does not parse")                                      \
    X(CLF_ERR_NO_DEVICE, -2005, "no OpenCL device found or selected")                         \
    X(CLF_ERR_IO, -2006, "file input/output failed")                                          \
    X(CLF_ERR_OUT_OF_MEMORY, -2007, "out of host memory")                                     \
    X(CLF_ERR_VERIFY, -2008, "result does not match the reference")                           \
    X(CLF_ERR_INTERRUPTED, -2009, "interrupted")                                              \
    X(CLF_ERR_INTERNAL, -2010, "internal error")

typedef enum clf_status {
#define CLF__STATUS_ENUM(name, value, msg) name = value,
    CLF_STATUS_MAP(CLF__STATUS_ENUM)
#undef CLF__STATUS_ENUM
    CLF__STATUS_FORCE_INT = -0x7fffffff  /* lets OpenCL's codes pass through in the same type */
} clf_status;

/* Name of a status or OpenCL error code ("CLF_ERR_BUILD", "CL_OUT_OF_RESOURCES"); static string. */
CLF_API const char *clf_status_name(int status);
/* One-line description of a status or OpenCL error code; static string. */
CLF_API const char *clf_status_string(int status);
/* Detail of the last failure on this thread (thread-local, valid until this thread's next clforge
 * call that fails): the failing call, the OpenCL error name, a build log. "" when none. */
CLF_API const char *clf_last_error(void);

/* ---------------------------------------------------------------------------------------------
 * Devices.
 */
typedef struct clf_device_info {
    char name[256];
    char vendor[256];
    char platform[256];        /* platform name */
    char platform_vendor[256];
    char version[128];         /* CL_DEVICE_VERSION */
    char driver[128];          /* CL_DRIVER_VERSION */
    char opencl_c[128];        /* CL_DEVICE_OPENCL_C_VERSION */
    cl_device_type type;
    cl_uint vendor_id;
    cl_uint compute_units;
    cl_uint clock_mhz;
    cl_ulong global_mem;       /* bytes */
    cl_ulong local_mem;        /* bytes */
    cl_ulong max_alloc;        /* bytes */
    size_t max_work_group;
    int fp64, fp16, subgroups; /* 1 when the extension (or core feature) is offered */
    int platform_index, device_index;
    int is_default;            /* the device that a context without a selector gets */
    char key[1024];            /* stable identity string (docs/design-notes.md, "Device key") */
    char id[17];               /* XXH3-64 of key, 16 lowercase hex digits */
    int nv_cc;                 /* NVIDIA compute capability as major * 10 + minor (cl_nv_device_attribute_query), else 0 */
} clf_device_info;

/* Lists every device of every platform into out[0..cap) and sets *count to the number found (which
 * may exceed cap). Returns CLF_ERR_NO_DEVICE with advice when there is no platform at all. */
CLF_API clf_status clf_device_list(clf_device_info *out, size_t cap, size_t *count);

/* Resolves a selector as CLFORGE_DEVICE does — "P:D" indices, "gpu", "cpu", or a case-insensitive
 * substring of device, vendor or platform name; NULL or "" means the default (first GPU, else the
 * first device) — to a device. Names matched: device, device vendor, platform, platform vendor. "gpu" and
 * "cpu" mean the first device of that type; a name must match one device (or be one device's exact
 * name), else CLF_ERR_INVALID_ARG lists the devices it matches. */
CLF_API clf_status clf_device_select(const char *selector, clf_device_info *out);

/* ---------------------------------------------------------------------------------------------
 * Contexts: one device, one in-order queue with profiling, caches.
 *
 * Threads: a context may be used by several threads at once; every op, clf_tune and the queries are
 * safe to call concurrently on one context (its caches, configuration memo, tuning-database view and
 * scratch buffers are locked), and commands from different threads land on the one in-order queue in
 * the order their calls enqueue them. clf_context_destroy must not race with any other call on the
 * same context.
 */
typedef struct clf_context clf_context;

typedef struct clf_context_options {
    const char *device;     /* selector; NULL: $CLFORGE_DEVICE, else the default device */
    const char *cache_dir;  /* NULL: $CLFORGE_CACHE_DIR, else $XDG_CACHE_HOME/clforge, else ~/.cache/clforge */
    int no_disk_cache;      /* 1: keep compiled programs in memory only */
    int no_tuning;          /* 1: ignore the tuning database (as CLFORGE_TUNING=off) */
} clf_context_options;

/* Creates a context on the selected device. opt may be NULL (all defaults). */
CLF_API clf_status clf_context_create(const clf_context_options *opt, clf_context **out);
/* Wraps the caller's context, device and queue (the queue must be in-order). clforge retains them and
 * releases them on destroy; it never owns them otherwise. Timing needs CL_QUEUE_PROFILING_ENABLE;
 * without it clforge times on the host. */
CLF_API clf_status clf_context_wrap(cl_context context, cl_device_id device, cl_command_queue queue,
                                    clf_context **out);
/* Waits for the queue to drain, prints the profile when CLFORGE_PROFILE=1, frees everything. */
CLF_API void clf_context_destroy(clf_context *ctx);
/* The context's device; lives as long as ctx. NULL when ctx is NULL. */
CLF_API const clf_device_info *clf_context_device(const clf_context *ctx);
CLF_API cl_context clf_context_cl(const clf_context *ctx);
CLF_API cl_command_queue clf_context_queue(const clf_context *ctx);
/* Waits for everything enqueued on the context's queue. */
CLF_API clf_status clf_finish(clf_context *ctx);

/* Program-cache statistics since the context was created (for tests and the CLI). */
typedef struct clf_cache_stats {
    unsigned long memory_hits;  /* served from the in-memory cache */
    unsigned long disk_hits;    /* loaded from a binary on disk */
    unsigned long compiles;     /* built from source */
    unsigned long disk_rejects; /* corrupt or refused binaries removed and rebuilt */
    double last_load_seconds;   /* wall time of the last program that was not a memory hit */
} clf_cache_stats;
CLF_API clf_status clf_context_cache_stats(const clf_context *ctx, clf_cache_stats *out);
/* The cache directory in use ("" when the disk cache is off). Lives as long as ctx. */
CLF_API const char *clf_context_cache_dir(const clf_context *ctx);

/* Compiles (or loads from the caches) an OpenCL C program with build options and returns a new
 * kernel object (the caller releases it). For users' own kernels; the ops use the same cache. */
CLF_API clf_status clf_build_kernel(clf_context *ctx, const char *source, const char *options,
                                    const char *kernel_name, cl_kernel *out);

/* ---------------------------------------------------------------------------------------------
 * BLAS level 3. Arguments and semantics follow CBLAS: C = alpha*op(A)*op(B) + beta*C, with
 * offsets in elements. beta == 0 never reads C. Extents are checked against CL_MEM_SIZE first.
 */
typedef enum { CLF_ROW_MAJOR = 101, CLF_COL_MAJOR = 102 } clf_layout;   /* CBLAS values */
typedef enum { CLF_NO_TRANS = 111, CLF_TRANS = 112 } clf_transpose;
typedef enum { CLF_F32, CLF_F64, CLF_F16, CLF_BF16 } clf_dtype;

CLF_API clf_status clf_sgemm(clf_context *ctx, clf_layout layout, clf_transpose ta, clf_transpose tb,
                             size_t m, size_t n, size_t k, float alpha,
                             cl_mem a, size_t a_off, size_t lda, cl_mem b, size_t b_off, size_t ldb,
                             float beta, cl_mem c, size_t c_off, size_t ldc, cl_event *done);
CLF_API clf_status clf_dgemm(clf_context *ctx, clf_layout layout, clf_transpose ta, clf_transpose tb,
                             size_t m, size_t n, size_t k, double alpha,
                             cl_mem a, size_t a_off, size_t lda, cl_mem b, size_t b_off, size_t ldb,
                             double beta, cl_mem c, size_t c_off, size_t ldc, cl_event *done);
/* batch_count independent GEMMs; matrix i starts at x_off + i*stride_x (elements). */
CLF_API clf_status clf_sgemm_batched_strided(clf_context *ctx, clf_layout layout, clf_transpose ta,
                                             clf_transpose tb, size_t m, size_t n, size_t k, float alpha,
                                             cl_mem a, size_t a_off, size_t lda, size_t stride_a,
                                             cl_mem b, size_t b_off, size_t ldb, size_t stride_b,
                                             float beta, cl_mem c, size_t c_off, size_t ldc, size_t stride_c,
                                             size_t batch_count, cl_event *done);
CLF_API clf_status clf_dgemm_batched_strided(clf_context *ctx, clf_layout layout, clf_transpose ta,
                                             clf_transpose tb, size_t m, size_t n, size_t k, double alpha,
                                             cl_mem a, size_t a_off, size_t lda, size_t stride_a,
                                             cl_mem b, size_t b_off, size_t ldb, size_t stride_b,
                                             double beta, cl_mem c, size_t c_off, size_t ldc, size_t stride_c,
                                             size_t batch_count, cl_event *done);
/* BLAS level 2, CBLAS argument order: y = alpha*op(A)*x + beta*y, A stored m x n. Offsets in elements;
 * incx and incy must be positive (negative increments are not supported: CLF_ERR_INVALID_ARG). The checks
 * of clf_sgemm apply: beta == 0 never reads y; alpha == 0 reads neither A nor x (they may be NULL); m or
 * n == 0 changes nothing; y must not overlap A or x. */
CLF_API clf_status clf_sgemv(clf_context *ctx, clf_layout layout, clf_transpose ta, size_t m, size_t n, float alpha,
                             cl_mem a, size_t a_off, size_t lda, cl_mem x, size_t x_off, size_t incx, float beta,
                             cl_mem y, size_t y_off, size_t incy, cl_event *done);
CLF_API clf_status clf_dgemv(clf_context *ctx, clf_layout layout, clf_transpose ta, size_t m, size_t n,
                             double alpha, cl_mem a, size_t a_off, size_t lda, cl_mem x, size_t x_off, size_t incx,
                             double beta, cl_mem y, size_t y_off, size_t incy, cl_event *done);

/* Mixed precision. Storage types of A and B (CLF_F16, CLF_BF16 or CLF_F32; A and B may differ) and of C
 * (CLF_F16, CLF_BF16 or CLF_F32; it may differ from A and B); products always accumulate in fp32. compute
 * says what fp32 inputs may be multiplied in:
 *   CLF_COMPUTE_EXACT  fp32 FMA (the default; what clf_sgemm does);
 *   CLF_COMPUTE_TF32   tensor cores on tf32-rounded inputs (10-bit mantissa: fast, less precise, opt-in);
 *   CLF_COMPUTE_3XTF32 each input split into a tf32 high part and a tf32 remainder, three tensor-core
 *                      products accumulated in fp32: fp32 accuracy, faster than FMA where matrix units exist;
 *   CLF_COMPUTE_3XF16  each row of A and column of B scaled by a power of two (exact), each input then split into
 *                      an f16 high part and an f16 remainder, three f16 tensor-core products accumulated in fp32,
 *                      C scaled back: the same 22 bits an input as 3xTF32 at twice its tensor-core rate; an
 *                      element smaller than 2^-38 of its row's (column's) largest finite one counts as zero.
 *                      It needs wgmma (compute capability 9.0); other devices run it as CLF_COMPUTE_3XTF32.
 *   Both fp32-accurate modes run as exact fp32 FMA where that is faster (products with a side under about 300,
 *   too few tiles to fill the device, short K), and 3xF16 with K < 384 as 3xTF32; $CLFORGE_GEMM_SPLIT_RULE=off
 *   keeps the mode asked for.
 * Devices without matrix units (or whose driver fails clforge's self-test of them) run every mode as exact
 * fp32 FMA over inputs converted to fp32: the result is never less accurate than asked for. f16/bf16
 * inputs are exact products of the rounded inputs, accumulated in fp32, on every device. alpha and beta are
 * applied in fp32. Arguments and checks are those of clf_sgemm (offsets, ld and strides in elements of
 * each operand's own type). */
typedef enum { CLF_COMPUTE_EXACT = 0, CLF_COMPUTE_TF32 = 1, CLF_COMPUTE_3XTF32 = 2, CLF_COMPUTE_3XF16 = 3 } clf_compute;
typedef struct clf_gemm_types {
    clf_dtype a, b, c;
    clf_compute compute;
} clf_gemm_types;
CLF_API clf_status clf_gemm(clf_context *ctx, const clf_gemm_types *types, clf_layout layout, clf_transpose ta,
                            clf_transpose tb, size_t m, size_t n, size_t k, float alpha,
                            cl_mem a, size_t a_off, size_t lda, cl_mem b, size_t b_off, size_t ldb,
                            float beta, cl_mem c, size_t c_off, size_t ldc, cl_event *done);
CLF_API clf_status clf_gemm_batched_strided(clf_context *ctx, const clf_gemm_types *types, clf_layout layout,
                                            clf_transpose ta, clf_transpose tb, size_t m, size_t n, size_t k,
                                            float alpha, cl_mem a, size_t a_off, size_t lda, size_t stride_a,
                                            cl_mem b, size_t b_off, size_t ldb, size_t stride_b,
                                            float beta, cl_mem c, size_t c_off, size_t ldc, size_t stride_c,
                                            size_t batch_count, cl_event *done);
/* GEMM epilogues (see docs/epilogue.md): a program in the clf_map language run on every element of the
 * product inside the GEMM kernel, before the store. It reads
 *   acc   the element as the GEMM without epilogue would store it: alpha*op(A)*op(B) + beta*C;
 *   c     the old value of C's element (read only when the program names it);
 * and the names bound in args: scalars, vectors broadcast along C's rows or columns, and matrices of C's
 * shape. It must assign c (the value stored in C) and may assign more matrices of C's shape (extra
 * outputs). A name it assigns may not be read before the statement that assigns it (c excepted: before
 * its assignment c is the old C). Computation is in the GEMM's precision (fp64 for f64, else fp32). */
typedef enum clf_epilogue_kind {
    CLF_EPI_SCALAR,   /* value */
    CLF_EPI_ROW,      /* one element per row of C (m): row i at offset + i*ld, e.g. a per-row scale */
    CLF_EPI_COL,      /* one element per column of C (n): column j at offset + j*ld, e.g. a bias */
    CLF_EPI_MATRIX    /* m x n in the call's layout with leading dimension ld, e.g. a residual or an output */
} clf_epilogue_kind;
typedef struct clf_epilogue_arg {
    const char *name;          /* as written in the program; "acc" and "c" are reserved */
    clf_epilogue_kind kind;
    clf_dtype dtype;           /* storage type of a buffer: CLF_F32, CLF_F64, CLF_F16 or CLF_BF16 */
    cl_mem buffer;
    size_t offset;             /* elements */
    size_t ld;                 /* MATRIX: leading dimension; ROW/COL: increment between elements (0 means 1) */
    size_t stride;             /* batched calls: elements between the batch's items (0: every item shares one) */
    double value;              /* SCALAR */
} clf_epilogue_arg;
typedef struct clf_epilogue {
    const char *expr;          /* e.g. "pre = acc + bias; c = gelu(pre)" */
    const clf_epilogue_arg *args;
    size_t nargs;
} clf_epilogue;
/* One entry point for every GEMM with an epilogue: types NULL is clf_sgemm, types with a, b and c all
 * CLF_F64 is clf_dgemm, any other types are clf_gemm's; batch_count 1 (strides then unused) is a plain
 * GEMM, more is the batched-strided call. epi NULL: exactly the call without epilogue. Every binding is
 * checked before anything is enqueued (CLF_ERR_INVALID_ARG or CLF_ERR_PARSE naming it). */
CLF_API clf_status clf_gemm_epilogue(clf_context *ctx, const clf_gemm_types *types, clf_layout layout,
                                     clf_transpose ta, clf_transpose tb, size_t m, size_t n, size_t k, double alpha,
                                     cl_mem a, size_t a_off, size_t lda, size_t stride_a,
                                     cl_mem b, size_t b_off, size_t ldb, size_t stride_b,
                                     double beta, cl_mem c, size_t c_off, size_t ldc, size_t stride_c,
                                     size_t batch_count, const clf_epilogue *epi, cl_event *done);
/* dst[dst_off + i] = src[src_off + i] converted from src_type to dst_type (any of the four), for i < n;
 * offsets in elements. Narrowing rounds to nearest even; NaN stays NaN; fp32 -> f16 overflows to inf. */
CLF_API clf_status clf_convert(clf_context *ctx, clf_dtype src_type, cl_mem src, size_t src_off,
                               clf_dtype dst_type, cl_mem dst, size_t dst_off, size_t n, cl_event *done);

/* ---------------------------------------------------------------------------------------------
 * Fused elementwise maps, copies and fills.
 */
/* CLF_ARG_ROW and CLF_ARG_COL (clf_reduce): a vector with one element per row or per column of the matrix. */
typedef enum clf_arg_kind { CLF_ARG_BUFFER, CLF_ARG_SCALAR, CLF_ARG_ROW, CLF_ARG_COL } clf_arg_kind;
typedef struct clf_map_arg {
    const char *name;          /* as written in the expression */
    clf_arg_kind kind;
    clf_dtype dtype;           /* storage type of a buffer (any of the four; f16/bf16 computed in fp32); scalars
                                * are doubles */
    cl_mem buffer; size_t offset;   /* offset in elements */
    double value;
} clf_map_arg;

/* Runs "y = relu(a*x + b); z = y*y" over n elements in one kernel. Names on the left are outputs;
 * every other name is an input (buffer or scalar) found in args. See docs/map.md for the grammar
 * and limits. */
CLF_API clf_status clf_map(clf_context *ctx, const char *expr, size_t n, const clf_map_arg *args,
                           size_t nargs, cl_event *done);
/* Reductions over the rows or the columns of a matrix (see docs/reduce.md): for every line (a row with
 * CLF_REDUCE_ROWS, a column with CLF_REDUCE_COLS) r = post(op over the line of pre(x)), stored to out; with
 * write set, also y = write(x, r) over the whole line (softmax, layer and RMS norm: recipes in the docs).
 * pre, post and write are expressions in the clf_map language (NULL: x, r, none); names they read: x (the
 * element; pre and write), r (post's input, then post's result in write), len (the line's length), and
 * args: scalars and CLF_ARG_ROW / CLF_ARG_COL vectors. max and min propagate NaN. Two ops compute two
 * statistics in one pass, readable in post and write: LSE (r = log of the sum of exp(pre), also rmax and
 * rsum = sum of exp(pre - rmax): softmax in one call) and MOMENTS (r = mean of pre, also mean and var, the
 * population variance, by Welford's method: layer norm in one call). */
typedef enum clf_reduce_op {
    CLF_REDUCE_SUM, CLF_REDUCE_MAX, CLF_REDUCE_MIN, CLF_REDUCE_LSE, CLF_REDUCE_MOMENTS
} clf_reduce_op;
typedef enum clf_reduce_axis { CLF_REDUCE_ROWS, CLF_REDUCE_COLS } clf_reduce_axis;
typedef struct clf_reduce_desc {
    clf_layout layout;                    /* storage order of x (and y) */
    size_t m, n;                          /* x is m x n */
    clf_reduce_axis axis;                 /* ROWS: m results, one per row; COLS: n, one per column */
    clf_reduce_op op;
    const char *pre, *post, *write;
    clf_dtype x_type; cl_mem x; size_t x_off, ldx;              /* offsets and leading dimensions in elements */
    clf_dtype out_type; cl_mem out; size_t out_off;             /* out may be NULL when write is set */
    clf_dtype y_type; cl_mem y; size_t y_off, ldy;              /* with write; y may be x itself (in place) */
} clf_reduce_desc;
CLF_API clf_status clf_reduce(clf_context *ctx, const clf_reduce_desc *desc, const clf_map_arg *args, size_t nargs,
                              cl_event *done);
/* Copies bytes between (or within, without overlap) buffers with vector loads. */
CLF_API clf_status clf_copy(clf_context *ctx, cl_mem src, size_t src_off, cl_mem dst, size_t dst_off,
                            size_t bytes, cl_event *done);
/* Fills bytes of dst with a repeated pattern of 1, 2, 4, 8 or 16 bytes; offset and bytes are
 * multiples of pattern_size. */
CLF_API clf_status clf_fill(clf_context *ctx, cl_mem dst, size_t dst_off, const void *pattern,
                            size_t pattern_size, size_t bytes, cl_event *done);

/* ---------------------------------------------------------------------------------------------
 * Buffers and transfers (see docs/transfer.md). Offsets and sizes in bytes. Every transfer is ordered
 * after everything enqueued before it on the context's in-order queue. bytes == 0 moves nothing (host
 * pointers may then be NULL). A buffer created with CL_MEM_HOST_NO_ACCESS, or without host write
 * (read) access, is refused for uploads (downloads).
 */
/* Creates a read-write device buffer of bytes (> 0, at most the device's max_alloc) in ctx's OpenCL
 * context. The caller owns it: clReleaseMemObject. */
CLF_API clf_status clf_buffer_create(clf_context *ctx, size_t bytes, cl_mem *out);
/* Blocking: copy bytes from host memory src into dst at dst_off, return when src may be reused (the data
 * is on the device). Transfers of at least the staging threshold (CLFORGE_STAGING_THRESHOLD bytes; by
 * default 8 MiB on devices with memory of their own, never on host-memory devices) go through the
 * context's pinned staging buffers: chunks copied into mapped CL_MEM_ALLOC_HOST_PTR buffers by several host
 * threads (CLFORGE_STAGING_THREADS; default all the CPUs, 2 to 16), each chunk's DMA overlapping the copies
 * of the next ones. Below it, one direct write. */
CLF_API clf_status clf_upload(clf_context *ctx, cl_mem dst, size_t dst_off, const void *src, size_t bytes);
/* Blocking: copy bytes of src at src_off into host memory dst; returns when dst holds them. Staged as
 * clf_upload. */
CLF_API clf_status clf_download(clf_context *ctx, cl_mem src, size_t src_off, void *dst, size_t bytes);
/* Asynchronous: enqueue the transfer and return. The host memory (src, dst) must stay valid and
 * untouched until *done completes (or clf_finish returns, when done is NULL). These never stage: the
 * driver reads or writes the host memory itself, which is fastest from pinned host memory (a mapped
 * CL_MEM_ALLOC_HOST_PTR buffer). *done (optional) gets the transfer's event; the caller releases it. */
CLF_API clf_status clf_upload_async(clf_context *ctx, cl_mem dst, size_t dst_off, const void *src, size_t bytes,
                                    cl_event *done);
CLF_API clf_status clf_download_async(clf_context *ctx, cl_mem src, size_t src_off, void *dst, size_t bytes,
                                      cl_event *done);
/* Pinned (page-locked) host memory of bytes (> 0, at most the device's max_alloc) that ctx's device reads
 * and writes by DMA at link speed: a mapped CL_MEM_ALLOC_HOST_PTR buffer. clf_upload and clf_download from
 * or to memory inside such an allocation skip the staging copy, and the asynchronous forms run truly in
 * the background. Free with clf_host_free; clf_context_destroy frees what is left. Thread-safe. */
CLF_API clf_status clf_host_alloc(clf_context *ctx, size_t bytes, void **out);
/* Frees an allocation of clf_host_alloc on ctx (after the transfers enqueued from it before); ptr NULL does
 * nothing. Any other pointer (interior, freed, foreign) is CLF_ERR_INVALID_ARG and changes nothing. */
CLF_API clf_status clf_host_free(clf_context *ctx, void *ptr);

/* ---------------------------------------------------------------------------------------------
 * Autotuning (see docs/tuning.md).
 */
typedef struct clf_tune_options {
    const char *families;      /* comma-separated: "gemm,map,copy"; NULL: all */
    double budget_seconds;     /* per family; <= 0: 60 */
    int exhaustive;            /* 1: try every valid configuration (validation) */
    int quiet;                 /* 1: no progress on stderr */
    volatile int *stop;        /* optional: set to nonzero (e.g. from SIGINT) to stop and keep the best */
} clf_tune_options;

typedef struct clf_tune_entry {
    char family[32];
    char bucket[32];           /* shape class, e.g. "small", "large", "skinny" */
    char precision[8];         /* "f32", "f64" */
    char config[256];          /* "MWG=64 NWG=64 ..." */
    double rate;               /* the best configuration's speed, in unit */
    char unit[8];              /* "GFLOP/s" (compute-bound families) or "GB/s" (memory-bound) */
    int evaluations, failed;
    double seconds;
} clf_tune_entry;

typedef struct clf_tune_report {
    clf_tune_entry entries[64];
    int count;
    char db_path[1024];        /* tuning database written */
} clf_tune_report;

CLF_API clf_status clf_tune(clf_context *ctx, const clf_tune_options *opt, clf_tune_report *report);

/* The configuration that the ops would use now for a family/precision/bucket, and where it came from
 * ("tuned", "stale", "shipped", "default"). For tests and `clforge tune --show`. */
CLF_API clf_status clf_config_in_use(clf_context *ctx, const char *family, const char *precision,
                                     const char *bucket, char *config, size_t config_cap,
                                     char *origin, size_t origin_cap);

/* ---------------------------------------------------------------------------------------------
 * Warm-up: compile ahead of the first call (see docs/install.md, "Cold start").
 */
typedef struct clf_warmup_options {
    const char *families;      /* comma-separated: "gemm,gemm_mma,copy"; NULL: every family. Kernels made
                                * from each call's expressions (map, reduce) cannot be built ahead: those
                                * names are accepted and build nothing */
    const char *precisions;    /* comma-separated "f32,f64,f16,bf16"; NULL: each family's own (gemm: f32, and
                                * f64 where offered; gemm_mma: every mode the matrix units run) */
    const char *buckets;       /* comma-separated GEMM shape buckets ("small,medium"); NULL: every bucket the
                                * device has */
    int threads;               /* programs compiled at once (drivers compile one program on one core);
                                * <= 0: one per core */
} clf_warmup_options;

/* Compiles into ctx's program caches (memory and disk) the kernels the selected families run with the
 * configurations ctx resolves now (tuned, shipped or default), for every transpose of every selected
 * bucket, so that the first call of a later process loads binaries instead of compiling. opt may be NULL
 * (all defaults). Enqueues nothing but clf_copy/clf_fill on a scratch buffer of its own. Every task is
 * attempted; the first failure is returned. clf_context_cache_stats tells what was compiled. */
CLF_API clf_status clf_warmup(clf_context *ctx, const clf_warmup_options *opt);

/* ---------------------------------------------------------------------------------------------
 * Roofline and profiling (see docs/bench.md).
 */
typedef struct clf_roofline {
    double copy_gbs;           /* sustained copy bandwidth, bytes read + written per second / 1e9 */
    double triad_gbs;          /* a[i] = b[i] + s*c[i] */
    double fp32_gflops;        /* independent FMA chains */
    double fp64_gflops;        /* 0 when the device has no fp64 */
    char date[32];
    /* The FMA peak the device's reported properties imply, for a cross-check of the measured one: on CPU
     * devices compute units x clock x SIMD lanes x FMA units x 2 (spec_basis says which figures went in and
     * which were assumed); 0 where the properties do not tell (GPUs, an unknown SIMD width). */
    double fp32_spec_gflops;
    double fp64_spec_gflops;
    char spec_basis[160];
} clf_roofline;

/* Measures the device's roofline (quick: smaller buffers and fewer repeats) and stores it with the
 * device's tuning data; a stored value is reused unless remeasure is 1. */
CLF_API clf_status clf_roofline_get(clf_context *ctx, int quick, int remeasure, clf_roofline *out);
/* Writes the profiler's table (one row per kernel) for everything run on ctx so far. Profiling is on
 * when CLFORGE_PROFILE=1 at context creation. */
CLF_API clf_status clf_profile_report(clf_context *ctx, FILE *out);

#ifdef __cplusplus
}
#endif
#endif /* CLFORGE_CLFORGE_H */
