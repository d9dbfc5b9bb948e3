/* gemm_plan.h — a GEMM call as a plan: the planner (gemm_plan.c) decides once, from a checked call,
 * everything a call does — layout, bucket, configurations, path, packs, edge strips, split-K and scratch —
 * and the executor (gemm_exec.c) builds every kernel the plan names, then enqueues its steps in order.
 * Nothing is decided while enqueuing, and nothing is enqueued before every kernel has built. */
#ifndef CLFORGE_GEMM_PLAN_H
#define CLFORGE_GEMM_PLAN_H

#include "gemm.h"
#include "gemm_mma.h"

/* Where an operand's elements are: the caller's buffer, or one of the context's scratch buffers (bound
 * by the executor when it takes them). */
typedef enum { CLF__BUF_USER, CLF__BUF_PACK, CLF__BUF_PARTIAL, CLF__BUF_CONVERT } clf__buf_kind;

typedef struct clf__gemm_operand {
    clf__buf_kind kind;
    cl_mem buf;                  /* CLF__BUF_USER only */
    size_t off, ld, stride;      /* elements; stride between the matrices of a batch */
} clf__gemm_operand;

typedef enum {
    CLF__STEP_PACK, CLF__STEP_MAIN, CLF__STEP_REDUCE, CLF__STEP_CONVERT, CLF__STEP_MMA, CLF__STEP_GEMV,
    CLF__STEP_CPU_PACK, CLF__STEP_CPU
} clf__step_kind;

/* gemm_pack: R rows (along K) of Cn columns (along M or N) of src, copied K-major and zero-padded to
 * Rp x Cp into dst (a PACK operand), for each matrix of a batch. */
typedef struct clf__pack_operand {
    int trans;                   /* src is stored Cn-major (rows along M or N): transpose while copying */
    size_t rows, cols, rows_pad, cols_pad;
    clf__gemm_operand src, dst;
} clf__pack_operand;

/* One launch packs one operand, or both (A and B of one product: the same rows along K and batch), since a second
 * launch costs about as much as a small product's packing itself. */
typedef struct clf__pack_step {
    int count;                   /* 1 or 2 */
    size_t batch;
    size_t rows_last;            /* the rows along K of the last batch member where fewer (a split's rest), else 0 */
    clf__pack_operand op[2];
} clf__pack_step;

/* gemm_main: row-major C (m x n) = alpha * A B + beta * C over K-major or M/N-major operands. */
typedef struct clf__main_step {
    const clf__config *cfg;      /* points into the plan: cfg_main or cfg_direct */
    int direct;                  /* the direct kernel (any size, reads operands in place) */
    int a_kmajor, b_kmajor;      /* operands stored with K as the outer index */
    int long_index;              /* some extent passes INT_MAX: 64-bit indexing */
    int c_vec;                   /* every row of C starts on a VWN boundary: vector stores */
    size_t m, n, k;              /* k: the K loop (padded to KWG for packed operands) */
    size_t k_flops;              /* the K that counts for FLOPs (unpadded) */
    size_t k_last;               /* the depth of the batch's last member where it is shorter than k (the slices of a
                                  * split product end in a shorter one), else 0 */
    size_t batch;
    double alpha, beta;
    clf__gemm_operand a, b, c;
    int epi;                     /* stores C through the plan's epilogue; r0, c0: where this C starts in the whole */
    size_t r0, c0;
    int edge_a, edge_b;          /* fast kernel: the operand is read in place past its last whole tile (EDGE_A/B) */
    int dlay, dpad_a, dpad_b;    /* direct kernel: bit 0 A, bit 1 B loaded in runs along K into padded local rows */
    int sum;                     /* the batch is a split product's slices, summed by each tile's last (SPLIT_SUM):
                                  * c, alpha, beta, epi are the whole product's, partial the planes (a plane a
                                  * slice), flag_off the first of its tiles' flags in the split_flags scratch */
    clf__gemm_operand partial;
    size_t flag_off;
} clf__main_step;

/* gemm_reduce: C = alpha * (sum of `planes` partial planes of m x n) + beta * C. The planes are in the plan's
 * dtype; C is stored as c_type (the plan's dtype, or f16/bf16 after a split product on the matrix units). */
typedef struct clf__reduce_step {
    size_t m, n, planes;
    double alpha, beta;
    clf__gemm_operand partial, c;
    int epi;                     /* as in clf__main_step */
    size_t r0, c0;
    clf_dtype c_type;
} clf__reduce_step;

/* convert_pack (gemm_convert.cl): rows x cols of src (element (r, c) at r*ld + c, or at c*ld + r when
 * src_kmajor), converted to dst_type and written as rows_pad x cols_pad at dst (row stride dst.ld), zero
 * beyond rows x cols; for each matrix of a batch. */
typedef struct clf__convert_step {
    clf_dtype src_type, dst_type;
    int src_kmajor;
    size_t rows, cols, rows_pad, cols_pad, batch;
    clf__gemm_operand src, dst;
    int by_rows;                 /* CPUs, sources not K-major: convert_rows (a work-item a row), not convert_pack */
    int split3;                  /* 3xTF32 on wgmma: rows of three runs of cols_pad (1: lo hi hi, 2: hi lo hi) */
    int scaled;                  /* 3xF16 (split3, f16 parts): each row scaled by a power of two first (split_pack) */
    size_t scale_off;            /* scaled: the rows' largest magnitudes (float bits, from which the kernels take the
                                  * exponent), 32-bit words at this offset of the convert scratch, rows apart a matrix */
} clf__convert_step;

/* gemm_mma: row-major C (m x n, c_type) = alpha * A B^T + beta * C on matrix units; A (m rows) and B (n rows)
 * K-contiguous, offsets, leading dimensions and strides in 32-bit words; kw words of K (whole stages). */
typedef struct clf__mma_step {
    const clf__config *cfg;      /* a gemm_mma configuration: points into the plan */
    int mode;                    /* clf__mma_mode */
    clf_dtype c_type;
    size_t m, n, kw, batch;
    double alpha, beta;
    clf__gemm_operand a, b, c;
    int epi;                     /* as in clf__main_step (the whole C: origin 0, 0) */
    size_t kv;                   /* elements of K that exist (<= kw's elements) */
    int edge;                    /* an operand read in place has partial tiles: the copies zero-fill them */
    int a_mn, b_mn;              /* A stored K x M, B stored K x N (f16/bf16), read in place: offsets, ld and
                                  * strides in words of that storage (the kernel's AKM, BKN) */
    int split3;                  /* 3xTF32 on wgmma: A and B come split, K three times as long (the flops are a third) */
    int a_gather, b_gather;      /* A (B) read in place although its rows are not 16-byte aligned: each piece gathered
                                  * through registers (the kernel's GA, GB); its offset, ld and stride in elements */
    size_t sa_off, sa_stride, sb_off, sb_stride;   /* 3xF16: the largest magnitudes of A's and B's rows (words in the
                                                    * convert scratch) from the first row, a matrix (grid dimension 1)
                                                    * apart */
    size_t kw_last, kv_last;     /* the batch's last matrix: its kw and kv (a split product's shorter last slice of K;
                                  * kw and kv otherwise) */
} clf__mma_step;

/* Matrix-vector or thin products (gemv.c): for each of nv vectors (x_vstride and y_vstride apart) of each
 * matrix of a batch (the operands' strides), y (rows, incy apart) = alpha * A x + beta * y, A's rows
 * contiguous or its columns; the gemv module builds and splits on its own. Its operands are the caller's, or
 * (typed calls) fp32 copies of the vectors and C in the convert scratch. */
typedef struct clf__gemv_step {
    int a_rows_contiguous;
    size_t rows, cols, incx, incy;
    double alpha, beta;
    clf__gemm_operand a, x, y;   /* ld of a is its lda */
    int y_is_column;             /* y is a column of C (else a row): how the plan's epilogue indexes it */
    size_t nv, batch, x_vstride, y_vstride;
    int a_store, x_store, y_store;   /* storage of a, x and y, as clf__gemv_desc's: 0 the plan's dtype, 16, 17 */
} clf__gemv_step;

/* gemm_cpu_pack (gemm_cpu.c): element (r, k) of src, at r*rs + k*ks, into panels of `width` rows at dst,
 * rows past `rows` zero; for each matrix of a batch. */
typedef struct clf__cpu_pack_step {
    int width;
    size_t rows, k, batch;
    size_t rs, ks;
    clf__gemm_operand src, dst;
    int src16;                   /* 0: src in the plan's precision; 1 IEEE half, 2 bfloat16, widened while packed */
} clf__cpu_pack_step;

/* gemm_cpu (gemm_cpu.c): row-major C (m x n) = alpha * A B + beta * C over A and B packed in panels, or (packed
 * 0) read in place: A's element (i, k) at i*a_rs + k*a_ks, B K-major. */
typedef struct clf__cpu_step {
    const clf__config *cfg;      /* a gemm_cpu configuration: points into the plan */
    int packed;
    size_t a_rs, a_ks;
    size_t m, n, k, batch;
    double alpha, beta;
    clf__gemm_operand a, b, c;
    int epi;                     /* C is stored through the epilogue; r0, c0: where this C starts in the whole */
    size_t r0, c0;
} clf__cpu_step;

typedef struct clf__gemm_step {
    clf__step_kind kind;
    union {
        clf__pack_step pack;
        clf__main_step main;
        clf__reduce_step reduce;
        clf__convert_step convert;
        clf__mma_step mma;
        clf__gemv_step gemv;
        clf__cpu_pack_step cpu_pack;
        clf__cpu_step cpu;
    } u;
} clf__gemm_step;

#define CLF__GEMM_MAX_STEPS 16

typedef struct clf__gemm_plan {
    clf_dtype dtype;
    int empty;                   /* nothing to compute: a marker stands for the call */
    const char *bucket;          /* shape bucket of cfg_main ("small" for the direct kernel) */
    const char *path;            /* "direct", "packed", "split-k": for traces and tests */
    const struct clf__epi *epi;  /* the call's epilogue (NULL: none); steps with epi set store C through it */
    clf__config cfg_main;        /* the bucket's configuration */
    clf__config cfg_direct;      /* the direct kernel's ("small"), when a step uses it */
    const char *origin_main;     /* where they came from ("tuned", "stale", "shipped", "default", ...) */
    const char *origin_direct;
    int have_direct;
    clf__config cfg_mma;         /* matrix units' configuration, when a step uses them */
    const char *origin_mma;
    int mma_mode;                /* clf__mma_mode of the MMA step, 0 when none */
    clf__config cfg_cpu;         /* the gemm_cpu configuration, when the CPU path runs */
    const char *origin_cpu;
    size_t pack_bytes;           /* scratch each buffer needs (0: not used) */
    size_t partial_bytes;
    size_t convert_bytes;
    size_t flag_bytes;           /* split_flags: a 4-byte flag a tile of the split products summed in their launch */
    int nsteps;
    clf__gemm_step steps[CLF__GEMM_MAX_STEPS];
} clf__gemm_plan;

/* Plans a checked call. cfg NULL: configurations are resolved from the tuning database and defaults;
 * else cfg runs the bucket's part and must be valid on the device. path forces the direct or the fast
 * (packed) kernel (tests, tuner); CLF__GEMM_AUTO lets the planner choose. */
clf_status clf__gemm_plan_make(clf_context *ctx, const clf__gemm_call *call, const clf__config *cfg,
                               clf__gemm_path path, clf__gemm_plan *plan);

/* Builds every kernel of plan (through the program cache); with build_only, stops there. Otherwise
 * takes the scratch buffers and enqueues the steps; done (may be NULL) gets the last command's event.
 * A build failure enqueues nothing; *failed_cfg (may be NULL) then names the configuration whose kernel
 * did not build (NULL for a failure of another kind). */
clf_status clf__gemm_exec(clf_context *ctx, const clf__gemm_plan *plan, int build_only, cl_event *done,
                          const clf__config **failed_cfg);

/* What an fp32-accurate mode (3xTF32, 3xF16) of an m x n x k product (batch of them, on a device of cus compute
 * units) runs as: the mode itself, 3xTF32 for a 3xF16 call of short K, or CLF__MMA_NONE (exact fp32) where the
 * split's packing pass and large tiles cost more than they gain; other modes unchanged.
 * $CLFORGE_GEMM_SPLIT_RULE=off keeps every mode. */
clf__mma_mode clf__gemm_split_choice(size_t m, size_t n, size_t k, size_t batch, size_t cus, clf__mma_mode mode);

/* Number of kernel launches of plan. */
int clf__gemm_plan_launches(const clf__gemm_plan *plan);

#endif
