/* gemv.h — the matrix-vector op (gemv.c, cl/gemv.cl): clf_sgemv/clf_dgemv, the internal entry that the
 * GEMM planner calls for thin products, and the `gemv` kernel family that `clforge tune` searches
 * (gemv_family.c). */
#ifndef CLFORGE_GEMV_H
#define CLFORGE_GEMV_H

#include "config.h"

/* The kernels' launch parameters (-D values of cl/gemv.cl, plus how the host splits the reduction). 0 in
 * team, tx or split: chosen per call from the shape. */
typedef struct clf__gemv_params {
    int wg;      /* work-items per work-group (a power of two) */
    int vw;      /* elements per vector load of A: 1, 2, 4, 8 or 16 */
    int lu;      /* vector loads in flight per work-item, 1..8 */
    int gpb;     /* work-groups per compute unit that the split aims for */
    int team;    /* rows kernel: work-items per line (power of two <= wg); 0: from the line's length */
    int tx;      /* cols kernel: work-items along the outputs (power of two <= wg); 0: from the shape */
    int cw;      /* cols kernel: vectors of outputs per work-item, 1..8 */
    int split;   /* slices of the reduced dimension; 0: enough to reach gpb groups per compute unit */
    int thin;    /* GEMM products with up to thin rows or columns of C run on these kernels (0 or 1: only one) */
    int tiny;    /* GEMM products of at most tiny^3 multiply-adds with min(m, n) <= CLF__GEMV_NV_MAX too; 0: none */
    int rpt;     /* rows kernel: lines per work-item, 1..8, sharing its loads of x; 0: 4 for several vectors on GPUs */
    int xl;      /* several vectors: their entries for xl lines (cols) or columns (rows) at a time are staged in local
                  * memory, 0..4096; 0: read from global memory where they are used */
    int tm;      /* several vectors on GPUs: 0 the kernels above, else gemv_tile with tm outputs per work-item (1, 2,
                  * 4, 8; fewer when tm x the vectors exceed 64 sums) */
    int bk;      /* gemv_tile: entries of the reduced dimension staged at a time (16, 32, 64; 0: 32) */
} clf__gemv_params;

#define CLF__GEMV_NV_MAX 32   /* right-hand vectors one launch keeps in registers */
#define CLF__GEMV_THIN_NV 8   /* the most vectors of the thin buckets; more go to the wide ones */

/* The gemv family's parameters, in its order: the launch parameters above that the tuner searches. SPLIT
 * (shape-specific), THIN and TINY (which GEMMs come here, not how the kernels run) are not tuned. */
enum { CLF__GV_WG, CLF__GV_VW, CLF__GV_LU, CLF__GV_GPB, CLF__GV_TEAM, CLF__GV_TX, CLF__GV_CW, CLF__GV_RPT,
       CLF__GV_XL, CLF__GV_TM, CLF__GV_BK, CLF__GV_NPARAMS };
extern const clf__family clf__family_gemv;

/* The family's bucket for a call: one vector ("rows": the contiguous dimension of A is reduced, y = A x with
 * A row-major; "cols": the output is contiguous, y = A^T x), 2 to CLF__GEMV_THIN_NV ("thin_rows",
 * "thin_cols") or more ("wide_rows", "wide_cols"). */
const char *clf__gemv_bucket(int a_rows_contiguous, size_t nv);

/* Bytes of local memory the kernels declare for a work-group of wg with loads of vw elements of esz bytes. */
size_t clf__gemv_local_bytes(int wg, int vw, size_t esz);

/* The launch parameters of a family configuration; SPLIT 0 and the device type's THIN and TINY. */
void clf__gemv_params_from_config(const clf_device_info *dev, const clf__config *cfg, clf__gemv_params *out);

/* The family's heuristic for dev and dt, then $CLFORGE_GEMV_CONFIG when set ("WG=256 VW=4 LU=4 GPB=8 TEAM=0 TX=0
 * CW=1 SPLIT=0 THIN=16 TINY=32 RPT=0 XL=0 TM=0 BK=0", any subset). GPUs: 256 work-items, 16-byte loads, neighbours on
 * neighbouring vectors. CPUs (a work-group runs as a loop on one core): a work-item per line, 32-byte loads,
 * contiguous runs. An invalid override fails with CLF_ERR_INVALID_ARG. No tuning database is read: the GEMM
 * planner asks this for THIN and TINY only. */
clf_status clf__gemv_params_get(const clf_device_info *dev, clf_dtype dt, clf__gemv_params *out);

/* What the ops run with for bucket: the configuration clf__config_resolve finds for the gemv family (tuning
 * database, shipped defaults, heuristic; memoised per context), then $CLFORGE_GEMV_CONFIG on top. origin (may be
 * NULL) gets "tuned", "stale", "shipped", "default" or "override". */
clf_status clf__gemv_params_for(clf_context *ctx, clf_dtype dt, const char *bucket, clf__gemv_params *out,
                                const char **origin);

/* A batch of thin products: for each matrix b < batch and vector v < nv, with op(A) rows x cols,
 *     y_v[i] = alpha * sum_{j < cols} A(i, j) x_v[j] + beta * y_v[i]
 * where A(i, j) = a[a_off + b*a_stride + i*lda + j] when a_rows_contiguous is 1, else
 * a[a_off + b*a_stride + j*lda + i]; x_v[j] = x[x_off + b*x_stride + v*x_vstride + j*incx]; y_v[i] likewise
 * with y_off, y_stride, y_vstride and incy. Offsets and strides in elements. */
typedef struct clf__gemv_desc {
    int a_rows_contiguous;
    size_t rows, cols, nv, batch;   /* nv in 1..CLF__GEMV_NV_MAX */
    double alpha, beta;
    cl_mem a; size_t a_off, lda, a_stride;
    cl_mem x; size_t x_off, incx, x_vstride, x_stride;
    cl_mem y; size_t y_off, incy, y_vstride, y_stride;
    int a_store, x_store, y_store;  /* storage of A, x and y (fp32 products only): 0 as dt, 16 f16, 17 bf16 (widened
                                     * as loaded, y rounded to nearest even as stored; y_store needs no epilogue) */
} clf__gemv_desc;

/* Enqueues d (rules of clf__gemv_enqueue below) with params (NULL: clf__gemv_params_for's, for d's bucket);
 * with epi, each y_v[i] of matrix b is stored through the GEMM's epilogue as element (i, v) of C's matrix b
 * when epi_rows is 1 (the vectors are columns of C), else as element (v, i). */
struct clf__epi;
clf_status clf__gemv_enqueue_desc(clf_context *ctx, const clf__gemv_params *params, clf_dtype dt,
                                  const clf__gemv_desc *d, const struct clf__epi *epi, int epi_rows, cl_event *done);

/* For the tuner: as clf__gemv_enqueue_desc with params and no epilogue; build_only builds the kernels and
 * enqueues nothing; *launches (may be NULL) gets the number of kernels enqueued (done is the last one's). */
clf_status clf__gemv_bench_run(clf_context *ctx, const clf__gemv_params *params, clf_dtype dt,
                               const clf__gemv_desc *d, int build_only, int *launches, cl_event *done);

/* Computes, for i < rows,
 *     y[y_off + i*incy] = alpha * sum_{j < cols} A(i, j) * x[x_off + j*incx] + beta * y[y_off + i*incy]
 * where A(i, j) = a[a_off + i*lda + j] when a_rows_contiguous is 1 (each row of A contiguous), and
 * a[a_off + j*lda + i] when it is 0 (each column contiguous); offsets, lda and increments are in elements
 * of dt (CLF_F32 or CLF_F64). beta == 0 never reads y; alpha == 0 or cols == 0 reads neither A nor x
 * (y = beta*y); alpha == 0 with beta == 1, or rows == 0, enqueues only a marker. Every argument must
 * already be valid (checked as clf_sgemv checks them: extents inside the buffers, y not overlapping A or
 * x, rows and cols at most CLF__GEMV_MAX); nothing is enqueued when a kernel fails to build. done (may be
 * NULL) gets the event of the last command. When the reduction is split it holds ctx->partial from the
 * first command to the last: the caller must not hold it. */
#define CLF__GEMV_MAX ((size_t)1 << 30)
clf_status clf__gemv_enqueue(clf_context *ctx, clf_dtype dt, int a_rows_contiguous, size_t rows, size_t cols,
                             double alpha, cl_mem a, size_t a_off, size_t lda, cl_mem x, size_t x_off, size_t incx,
                             double beta, cl_mem y, size_t y_off, size_t incy, cl_event *done);

/* As clf__gemv_enqueue with the parameters given (tests, tuner); NULL: clf__gemv_params_for's. */
clf_status clf__gemv_enqueue_with(clf_context *ctx, const clf__gemv_params *params, clf_dtype dt,
                                  int a_rows_contiguous, size_t rows, size_t cols, double alpha, cl_mem a,
                                  size_t a_off, size_t lda, cl_mem x, size_t x_off, size_t incx, double beta,
                                  cl_mem y, size_t y_off, size_t incy, cl_event *done);

#endif
