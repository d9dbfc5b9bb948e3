/* gemm_reduce.cl — the last step of a split-K GEMM: C = alpha * (sum of `planes` partial products) +
 * beta * C. Partial plane s holds its slice of K's product as row-major M x N at P[s*plane + i*N + j].
 * One work-item per element of C over a flat index, so that thin strips (one row or one column) keep
 * every work-group full; with beta == 0, C is never read (NaN in C must not leak into the result). */

#include "common.cl"

__kernel void gemm_reduce(const long M, const long N, const int planes, const real alpha, const real beta,
                          const __global real *restrict P, const ulong plane,
                          __global real *restrict C, const ulong c_off, const long ldc CLF_EPI_DECL)
{
    const long idx = get_global_id(0);
    if (idx >= M * N)
        return;
    const long i = idx / N, j = idx - i * N;
    real sum = ZERO;
    for (int s = 0; s < planes; s++)
        sum += P[(ulong)s * plane + (ulong)idx];
    __global real *c = C + c_off + (ulong)(i * ldc + j);
    const real v = beta == ZERO ? alpha * sum : alpha * sum + beta * *c;
#if CLF_EPI
    clf_epilogue(c, 0, i, j, v CLF_EPI_PASS);
#else
    *c = v;
#endif
}
