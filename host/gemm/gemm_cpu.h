/* gemm_cpu.h — GEMM for CPU devices (gemm_cpu.c, cl/gemm_cpu.cl): packed panels and an explicit register
 * micro-kernel per one-item work-group, the way BLIS structures a CPU GEMM. The planner (gemm_plan.c)
 * chooses it by device; its configuration is the `gemm_cpu` family (gemm_cpu_family.c). */
#ifndef CLFORGE_GEMM_CPU_H
#define CLFORGE_GEMM_CPU_H

#include "gemm_plan.h"

extern const clf__family clf__family_gemm_cpu;

/* Parameter order in clf__family_gemm_cpu.params (and in clf__config.v). */
enum {
    CLF__CPU_MR, CLF__CPU_VW, CLF__CPU_NV, CLF__CPU_MI, CLF__CPU_NI, CLF__CPU_KC, CLF__CPU_ORDER, CLF__CPU_NPARAMS
};

/* One row-major product for the CPU path: C (m x n) = alpha * op(A) op(B) + beta * C, A stored K-major
 * (k x m) when a_kmajor, B K-major (k x n) when b_kmajor. */
typedef struct clf__cpu_product {
    size_t m, n, k, batch;
    int a_kmajor, b_kmajor;
    double alpha, beta;
    clf__gemm_operand a, b, c;
    int pack;                    /* 1: pack A and B; 0: read them in place (needs b_kmajor); 2: pack A, the kernel
                                  * copies B (needs b_kmajor); -1: as the planner decides ($CLFORGE_GEMM_CPU_PACK
                                  * forces) */
    int epi;                     /* store C through the plan's epilogue; r0, c0: this C's origin in the whole */
    size_t r0, c0;
    clf_dtype a_type, b_type;    /* CLF_F16 or CLF_BF16: A or B stored so, widened by the packs (which then always
                                  * run); any other value: stored in the plan's precision */
} clf__cpu_product;

/* 1 when products on ctx's device run on gemm_cpu by default: a CPU device whose driver asks for explicit
 * vectors (CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT of 4 or more: PoCL). A driver that prefers width 1
 * (Mesa rusticl on llvmpipe) runs work-items as SIMD lanes, which one-item groups would leave idle. */
int clf__gemm_cpu_wanted(clf_context *ctx);

/* SIMD register width of dev in bytes (from its preferred float vector width; 32 when unknown). */
size_t clf__cpu_simd_bytes(const clf_device_info *dev);

/* Appends the CPU path's steps (two packs, the kernel) for p to plan. cfg NULL: the resolved gemm_cpu
 * configuration, with fewer micro-tiles per work-item when the product has too few blocks to keep every
 * core busy; else cfg exactly (it must be valid). *planned is 0, with nothing added, when the packed
 * operands would not fit in one allocation or an extent passes the kernel's int range. */
clf_status clf__gemm_cpu_plan(clf_context *ctx, clf__gemm_plan *plan, const clf__cpu_product *p,
                              const clf__config *cfg, int *planned);

/* Build options, source file and kernel name of a CPU step. */
clf_status clf__gemm_cpu_options(clf_dtype dt, const clf__gemm_step *st, char *opts, size_t cap, const char **file,
                                 const char **name);

/* Enqueues a CPU step with its operands bound: x, y (pack: src, dst) and z (kernel: a, b, c); epi: the plan's
 * epilogue, whose arguments follow the kernel's when the step stores through it. */
clf_status clf__gemm_cpu_enqueue(clf_context *ctx, clf_dtype dt, const clf__gemm_step *st, const struct clf__epi *epi,
                                 cl_kernel k, cl_mem x, cl_mem y, cl_mem z, cl_event *done);

#endif
