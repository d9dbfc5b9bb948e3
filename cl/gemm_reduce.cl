/* gemm_reduce.cl — the last step of a split-K GEMM: C = alpha * (sum of `planes` partial products) +
 * beta * C. Partial plane s holds its slice of K's product as row-major M x N at P[s*plane + i*N + j].
 * One work-item per element of C over a flat index, so that thin strips (one row or one column) keep
 * every work-group full; with beta == 0, C is never read (NaN in C must not leak into the result).
 * CTYPE: C's storage when it is not `real` (16 f16, 17 bf16: split products on the matrix units, whose
 * partial sums are fp32 whatever C is). */

#include "common.cl"
#include "bf16.cl"

#ifndef CTYPE
#define CTYPE 0
#endif
#if CTYPE == 16
typedef half c_t;
#elif CTYPE == 17
typedef ushort c_t;
#else
typedef real c_t;
#endif

static inline real load_c(const __global c_t *c)
{
#if CTYPE == 16
    return vload_half(0, c);
#elif CTYPE == 17
    return as_float((uint)*c << 16);
#else
    return *c;
#endif
}

__kernel void gemm_reduce(const long M, const long N, const int planes, const real alpha, const real beta,
                          const __global real *restrict P, const ulong plane,
                          __global c_t *restrict C, const ulong c_off, const long ldc CLF_EPI_DECL)
{
    const long idx = get_global_id(0);
    if (idx >= M * N)
        return;
    const long i = idx / N, j = idx - i * N;
    real sum = ZERO;
    for (int s = 0; s < planes; s++)
        sum += P[(ulong)s * plane + (ulong)idx];
    __global c_t *c = C + c_off + (ulong)(i * ldc + j);
    const real v = beta == ZERO ? alpha * sum : alpha * sum + beta * load_c(c);
#if CLF_EPI
    clf_epilogue(c, 0, i, j, v CLF_EPI_PASS);
#elif CTYPE == 16
    vstore_half_rte(v, 0, c);
#elif CTYPE == 17
    *c = to_bf16(v);
#else
    *c = v;
#endif
}
