/* gemm_pack.cl — the GEMM pre-pass: copies (or transposes) one operand into a zero-padded,
 * tile-aligned, K-major scratch matrix dst[r*ldd + c] (r < Rp along K, c < Cp along M or N), so that
 * the fast gemm kernel needs no bounds checks and always loads along the contiguous direction.
 * TRANS=0: source element (r, c) is src[r*lds + c]; TRANS=1: it is src[c*lds + r], and the copy goes
 * through a 32x33 local tile so that both the reads and the writes are coalesced. */

#include "common.cl"

/* 1: the source is stored the other way round (src[c*lds + r]), transposed through local memory;
 * 0: a plain copy. Set by the host per operand. */
#ifndef TRANS
#define TRANS 0
#endif

#define PT 32   /* tile edge; the work-group is PT x 8 and each work-item moves PT/8 elements */

__kernel __attribute__((reqd_work_group_size(PT, 8, 1)))
void gemm_pack(const long R, const long Cn, const long Rp, const long Cp,
               const __global real *restrict src, const ulong s_off, const long lds, const ulong s_stride,
               __global real *restrict dst, const ulong d_off, const long ldd, const ulong d_stride)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    const long c0 = (long)get_group_id(0) * PT, r0 = (long)get_group_id(1) * PT;
    const ulong bat = get_global_id(2);
    src += s_off + bat * s_stride;
    dst += d_off + bat * d_stride;
#if TRANS
    __local real tile[PT][PT + 1];
    for (int q = 0; q < PT; q += 8) {
        const long c = c0 + ly + q, r = r0 + lx;
        tile[ly + q][lx] = (r < R && c < Cn) ? src[c * lds + r] : ZERO;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = 0; q < PT; q += 8) {
        const long r = r0 + ly + q, c = c0 + lx;
        if (r < Rp && c < Cp)
            dst[r * ldd + c] = tile[lx][ly + q];
    }
#else
    for (int q = 0; q < PT; q += 8) {
        const long r = r0 + ly + q, c = c0 + lx;
        if (r < Rp && c < Cp)
            dst[r * ldd + c] = (r < R && c < Cn) ? src[r * lds + c] : ZERO;
    }
#endif
}
