/* gemm_pack.cl — the GEMM pre-pass: copies (or transposes) one operand, or both in one launch, into a zero-padded,
 * tile-aligned, K-major scratch matrix dst[r*ldd + c] (r < Rp along K, c < Cp along M or N), so that the fast gemm
 * kernel needs no bounds checks and always loads along the contiguous direction. Transposed: source element (r, c)
 * is src[c*lds + r], and the copy goes through a 32x33 local tile so that both the reads and the writes are
 * coalesced; else it is src[r*lds + c], a plain copy. */

#include "common.cl"

/* 1: the first operand's source is stored the other way round (src[c*lds + r]), transposed through local memory;
 * 0: a plain copy. TRANS2: the same for the second. Set by the host per operand. */
#ifndef TRANS
#define TRANS 0
#endif
#ifndef TRANS2
#define TRANS2 TRANS
#endif

#define PT 32   /* tile edge; the work-group is PT x 8 and each work-item moves PT/8 elements */

/* The PT x PT tile at column c0 and row r0 of one matrix (src and dst at its start). trans is the same for the whole
 * work-group, so its barrier is met by all. */
static inline void pack_tile(const int trans, __local real (*tile)[PT + 1], const long R, const long Cn, const long Rp,
                             const long Cp, const __global real *restrict src, const long lds,
                             __global real *restrict dst, const long ldd, const long c0, const long r0)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    if (trans) {
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
        return;
    }
    for (int q = 0; q < PT; q += 8) {
        const long r = r0 + ly + q, c = c0 + lx;
        if (r < Rp && c < Cp)
            dst[r * ldd + c] = (r < R && c < Cn) ? src[r * lds + c] : ZERO;
    }
}

/* Work-groups along dimension 0 below `split` pack the first operand's column tiles, the rest the second's; dimension
 * 1 runs along K (both operands have Rp rows), dimension 2 over the batch. R_last: the rows along K of both operands
 * in the launch's last batch member (R elsewhere; a split product's last slice, shorter, is zero-padded as any). */
__kernel __attribute__((reqd_work_group_size(PT, 8, 1)))
void gemm_pack(const long split, const long R_last,
               const long R, const long Cn, const long Rp, const long Cp,
               const __global real *restrict src, const ulong s_off, const long lds, const ulong s_stride,
               __global real *restrict dst, const ulong d_off, const long ldd, const ulong d_stride,
               const long R2, const long Cn2, const long Rp2, const long Cp2,
               const __global real *restrict src2, const ulong s_off2, const long lds2, const ulong s_stride2,
               __global real *restrict dst2, const ulong d_off2, const long ldd2, const ulong d_stride2)
{
#if TRANS || TRANS2
    __local real tile[PT][PT + 1];
#else
    __local real tile[1][PT + 1];   /* not used */
#endif
    const long gx = (long)get_group_id(0), r0 = (long)get_group_id(1) * PT;
    const ulong bat = get_global_id(2);
    const int last = bat + 1 == get_global_size(2);
    if (gx < split)
        pack_tile(TRANS, tile, last ? R_last : R, Cn, Rp, Cp, src + s_off + bat * s_stride, lds,
                  dst + d_off + bat * d_stride, ldd, gx * PT, r0);
    else
        pack_tile(TRANS2, tile, last ? R_last : R2, Cn2, Rp2, Cp2, src2 + s_off2 + bat * s_stride2, lds2,
                  dst2 + d_off2 + bat * d_stride2, ldd2, (gx - split) * PT, r0);
}
