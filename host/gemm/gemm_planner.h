/* gemm_planner.h — what the planner's two modules share (not installed, not for other modules): gemm_plan.c plans
 * fp32 and fp64 products on the gemm kernels and owns the entry point; gemm_plan_typed.c plans typed products
 * (matrix units, the portable mixed-precision path) and thin ones (the gemv kernels). */
#ifndef CLFORGE_GEMM_PLANNER_H
#define CLFORGE_GEMM_PLANNER_H

#include "gemm_plan.h"

/* One row-major product to plan: the whole call, a slice of K, or an edge strip. */
typedef struct product {
    size_t m, n, k, batch;
    int a_kmajor, b_kmajor;
    clf_dtype a_type, b_type;     /* storage types (they follow A and B when a column-major call swaps them) */
    double alpha, beta;
    clf__gemm_operand a, b, c;
    int epi;                      /* C is stored through the epilogue; r0, c0: where this C starts in the whole */
    size_t r0, c0;
    int edge_a, edge_b;           /* read in place past the last whole tile (operand_reads) */
    int in_split;                 /* the slices of a split product: no edge strips (plan_packed) */
    size_t k_last;                /* the last batch member's shorter K (a split's last slice), 0: none */
    const struct product *whole;  /* the slices of a split product summed in their launch: the product they sum to */
} product;

typedef struct planner {
    clf_context *ctx;
    clf__gemm_plan *plan;
    const clf__config *cfg_in;    /* forced by the caller (tuner, tests), or NULL */
    int retiled;                  /* retile chose the tiles for the product unsplit: no rule splits it */
} planner;

static inline size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }
static inline size_t cus(const clf_context *ctx) { return ctx->info.compute_units ? ctx->info.compute_units : 1; }
static inline int is_cpu(const clf_context *ctx) { return (ctx->info.type & CL_DEVICE_TYPE_CPU) != 0; }

/* gemm_plan.c */
clf__gemm_step *clf__plan_add_step(planner *pl, clf__step_kind kind);   /* NULL (error set) when the plan is full */
clf_status clf__plan_too_many_steps(void);
long clf__plan_forced_split(void);   /* $CLFORGE_GEMM_SPLIT_K, or 0 */
/* A real (fp32 or fp64) product on the gemm kernels; no_split: none of the rules may cut K. */
clf_status clf__plan_real(planner *pl, product p, clf__gemm_path path, int no_split);

/* gemm_plan_typed.c */
int clf__plan_gemv(planner *pl, const product *p);   /* 1 when planned on the gemv kernels */
clf_status clf__plan_mma(planner *pl, const clf__gemm_call *call, const product *p, clf__mma_mode mode);
clf_status clf__plan_portable(planner *pl, const clf__gemm_call *call, product p, clf__gemm_path path);
int clf__plan_thin_beats_mma(planner *pl, const clf__gemm_call *call, const product *p, clf__gemm_path path);
/* An f16/bf16 operand widened into an fp32 copy (a convert step); o then names the copy. */
clf_status clf__plan_to_f32(planner *pl, clf_dtype type, size_t outer, size_t inner, size_t batch,
                            clf__gemm_operand *o);

#endif
