/* common.cl — the preamble shared by the gemm family's kernels (gemm.cl, gemm_pack.cl,
 * gemm_reduce.cl): precision types, multiply-add, index type, the inline-function qualifier and the
 * epilogue's store hook.
 * Kernel files take it with a line `#include "common.cl"`, which host/runtime/sources.c expands
 * textually when the source is fetched (one level, files of cl/ only); the OpenCL compiler never
 * sees the directive. */

/* Element type: 32 (float) or 64 (double, needs cl_khr_fp64). Set by the host for every gemm kernel. */
#ifndef PRECISION
#define PRECISION 32
#endif
/* Index arithmetic inside one matrix: 0 for 32-bit (int), 1 for 64-bit (long); the host sets 1 when
 * an element offset of some matrix does not fit in an int. */
#ifndef LONG_INDEX
#define LONG_INDEX 0
#endif

#if PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
typedef double4 real4;
typedef double8 real8;
#define ZERO 0.0
#ifdef FP_FAST_FMA
#define MAD(a, b, c) fma(a, b, c)
#else
#define MAD(a, b, c) ((a) * (b) + (c))
#endif
#else
typedef float real;
typedef float2 real2;
typedef float4 real4;
typedef float8 real8;
#define ZERO 0.0f
#ifdef FP_FAST_FMAF
#define MAD(a, b, c) fma(a, b, c)
#else
#define MAD(a, b, c) ((a) * (b) + (c))
#endif
#endif

#if LONG_INDEX
typedef long idx_t;
#else
typedef int idx_t;
#endif

/* Helpers that take register arrays as __private pointers must be inlined: only then are those
 * arrays indexed by constants (after unrolling) and kept in registers. `static` gives them internal
 * linkage (OpenCL C 1.2), so a compiler that declines to inline still links. */
#ifndef CLF_INLINE
#define CLF_INLINE static inline __attribute__((always_inline))
#endif

/* ---- the store hook of the GEMM kernels (gemm.cl, gemm_reduce.cl; gemm_mma.cl and gemv.cl repeat these
 * defaults, since they do not include this file). With an epilogue, host/gemm/gemm_epilogue.c puts before
 * the kernel file:
 *   CLF_EPI 1, CLF_EPI_CT (C's pointer type),
 *   CLF_EPI_DECL / CLF_EPI_PASS: the epilogue's kernel parameters, appended to the kernel's and to every
 *     helper's parameter list between the kernel and the store (", const long er0, ...", ", er0, ..."),
 *   clf_epilogue(cp, bat, row, col, v CLF_EPI_PASS): stores element (row, col) of batch item bat, whose
 *     plain GEMM value is v, at cp (and the program's other outputs);
 *   clf_epilogue_v(...): the same, but returns C's new value instead of storing it (whole vector tiles),
 *   CLF_EPI_STORE: how gemm.cl stores its tile through the program: 1 staged through local memory with
 *     clf_epilogue in one rolled loop, 2 in a rolled loop over the work-item's rows of registers, 0 unrolled
 *     over its registers.
 * A kernel calls clf_epilogue where it would write *cp = v; row and col count from its own C's origin.
 * Without an epilogue the hook is empty and the kernel is unchanged. */
#ifndef CLF_EPI
#define CLF_EPI 0
#define CLF_EPI_DECL
#define CLF_EPI_PASS
#endif
