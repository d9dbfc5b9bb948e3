/* gemm_cpu.cl — GEMM for CPU devices, laid out as BLIS lays out its CPU kernels rather than as a GPU tile:
 * one work-item per work-group (the group is a core's unit of work; PoCL runs it as a plain function with no
 * work-item loop around it) computes a block of MR*MI rows by NR*NI columns of C with an explicit MR x NR
 * register micro-kernel, NR = VW*NV elements of explicit vectors, so that every multiply-add fills the SIMD
 * lanes without the work-group vectorizer's help. Both operands come packed by gemm_cpu_pack into panels
 * that the micro-kernel reads with unit stride: A in panels of MR rows (element (r, k) of a panel at
 * k*MR + r), B in panels of NR columns ((k, c) at k*NR + c). K runs in blocks of KC so that one B
 * micro-panel (KC x NR) stays in L1 while the MI micro-tiles of the block stream their A micro-panels
 * from L2; C takes the partial sums between K blocks. No barriers. Small products skip the packing (PACKED=0)
 * and read A and a K-major B where they are; products whose C's rows (columns) fit one block have the work-item
 * copy B (A) itself, a K block at a time, into local memory, which on a CPU is ordinary memory (PACKED=2 to 5).
 *
 * Row-major C (M x N) = alpha * A B + beta * C for each matrix of a batch (dimension 2 of the grid). */

#include "common.cl"

/* Micro-tile: MR rows by NV vectors of VW elements. Defaults: AVX2 fp32 (BLIS's 6 x 16 Haswell shape). */
#ifndef MR
#define MR 6
#endif
#ifndef VW
#define VW 8
#endif
#ifndef NV
#define NV 2
#endif
/* Micro-tiles per work-item along M and N, and the K block. */
#ifndef MI
#define MI 8
#endif
#ifndef NI
#define NI 4
#endif
#ifndef KC
#define KC 256
#endif
/* 0: grid dimension 0 runs along N (consecutive work-groups share an A block); 1: along M (they share B). */
#ifndef ORDER
#define ORDER 0
#endif
/* 1: A and B come packed (gemm_cpu_pack); 0: read where they are, A's element (i, k) at i*a_rs + k*a_ks and B
 * K-major (row k at k*ldb), which saves the two pack launches that dominate small products; 2: A packed, B K-major
 * read where it is and copied by the work-item, a K block at a time, into NI panels in local memory (products of
 * one row block: each element of B is copied once, where the pack launch writes all of B and the kernel reads it
 * back; read in place, B's rows of one panel are ldb apart and meet in a few cache sets); 3: B packed, A with K
 * contiguous (element (i, k) at i*a_rs + k) copied by the work-item, a K block at a time, into rows of local memory
 * (products of one column block: the same saving for A); 4: as 3 for an A stored K-major (at k*a_ks + i), copied
 * into micro-panels laid out as the pack lays them out; 5: as 2 for a B stored N x K (at j*ldb + k). */
#ifndef PACKED
#define PACKED 1
#endif
/* gemm_cpu_pack: the panel width (MR for A, NR for B) and the K run each work-item copies. */
#ifndef PW
#define PW 8
#endif
#define PACK_K 256

#define NR (VW * NV)

#if PRECISION == 64
#define RBASE double
#else
#define RBASE float
#endif
#define CLF_CAT_(a, b) a##b
#define CLF_CAT(a, b) CLF_CAT_(a, b)
typedef CLF_CAT(RBASE, VW) rvec;
#define VLOAD CLF_CAT(vload, VW)
#define VSTORE CLF_CAT(vstore, VW)

/* Every final value of C goes through these two (a scalar at an edge, a vector inside), so that an
 * epilogue (clf_epilogue, common.cl) is applied in one place; row and col locate element i (the vector's
 * first) in this batch item's C. */
CLF_INLINE void store_c(__global real *c, long i, ulong bat, long row, long col, real v CLF_EPI_DECL)
{
#if CLF_EPI
    clf_epilogue(c + i, bat, row, col, v CLF_EPI_PASS);
#else
    c[i] = v;
#endif
}
CLF_INLINE void store_cv(__global real *c, long i, ulong bat, long row, long col, rvec v CLF_EPI_DECL)
{
#if CLF_EPI && defined(CLF_EPI_VEC) && CLF_EPI_VEC == VW   /* the program as vector code (gemm_epilogue.c) */
    clf_epilogue_vec(c + i, bat, row, col, v CLF_EPI_PASS);
#elif CLF_EPI
    real t[VW];
    VSTORE(v, 0, t);
    for (int e = 0; e < VW; e++)
        clf_epilogue(c + i + e, bat, row, col + e, t[e] CLF_EPI_PASS);
#else
    VSTORE(v, 0, c + i);
#endif
}

/* One micro-tile's partial sum acc (not yet scaled) into C at row i0, column j0: the first K block scales
 * by alpha and adds beta*C (C is not read when beta is 0), later blocks add to the partial sum there, and
 * the last one stores through store_c. */
#define CLF_STORE_ROW(r, v)                                                                         \
    do {                                                                                            \
        long at = crow + (long)(v) * VW;                                                            \
        rvec x = alpha * acc[r][v];                                                                 \
        if (full) {                                                                                 \
            if (!first)                                                                             \
                x += VLOAD(0, c + at);                                                              \
            else if (beta != ZERO)                                                                  \
                x += beta * VLOAD(0, c + at);                                                       \
            if (last)                                                                               \
                store_cv(c, at, (ulong)batch, i0 + (r), j0 + (v) * VW, x CLF_EPI_PASS);             \
            else                                                                                    \
                VSTORE(x, 0, c + at);                                                               \
        } else {                                                                                    \
            real t[VW];                                                                             \
            VSTORE(x, 0, t);                                                                        \
            for (int e = 0; e < VW; e++) {                                                          \
                int col = j0 + (v) * VW + e;                                                        \
                if (col >= N)                                                                       \
                    break;                                                                          \
                real y = t[e];                                                                      \
                if (!first)                                                                         \
                    y += c[at + e];                                                                 \
                else if (beta != ZERO)                                                              \
                    y += beta * c[at + e];                                                          \
                if (last)                                                                           \
                    store_c(c, at + e, (ulong)batch, i0 + (r), col, y CLF_EPI_PASS);                \
                else                                                                                \
                    c[at + e] = y;                                                                  \
            }                                                                                       \
        }                                                                                           \
    } while (0)

/* One K step of the micro-kernel: NV vectors of B's row, MR broadcasts of A's column. */
#define CLF_KSTEP(LOAD_B, A_AT)                                                                     \
    do {                                                                                            \
        rvec bv[NV];                                                                                \
        _Pragma("unroll") for (int v = 0; v < NV; v++) bv[v] = LOAD_B(v);                           \
        _Pragma("unroll") for (int r = 0; r < MR; r++) {                                            \
            const rvec av = (rvec)(A_AT(r));                                                        \
            _Pragma("unroll") for (int v = 0; v < NV; v++) acc[r][v] = MAD(av, bv[v], acc[r][v]);   \
        }                                                                                           \
    } while (0)

#if PACKED
#define CLF_B_PANEL(v) VLOAD(v, b)
#define CLF_A_PANEL(r) apan[r]
#endif
#if PACKED == 3
/* A's rows as copied into local memory, ALD apart (padded so that a micro-tile's rows fall in different cache sets) */
#define ALD (KC + VW)
#define CLF_A_LOCAL(r) arow[(r) * ALD]
#endif
#if PACKED != 1
#define CLF_B_ROW(v) VLOAD(0, b + (v) * VW)
/* An edge tile's columns past N read as zero. */
#define CLF_B_EDGE(v) edge_row(b + (v) * VW, j0 + (v) * VW, N)
#define CLF_A_SRC(r) apan[a_row[r]]
CLF_INLINE rvec edge_row(const __global real *p, int col, int n)
{
    real t[VW];
    for (int e = 0; e < VW; e++)
        t[e] = col + e < n ? p[e] : ZERO;
    return VLOAD(0, t);
}
#endif

__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void gemm_cpu(const int M, const int N, const int K, const real alpha, const real beta,
              const __global real *restrict ap, const ulong a_off, const ulong a_stride,
              const __global real *restrict bp, const ulong b_off, const ulong b_stride,
              __global real *restrict c, const ulong c_off, const long ldc, const ulong c_stride,
              const long a_rs, const long a_ks, const long ldb CLF_EPI_DECL)
{
#if ORDER == 0
    const int i_blk = (int)get_global_id(1), j_blk = (int)get_global_id(0);
#else
    const int i_blk = (int)get_global_id(0), j_blk = (int)get_global_id(1);
#endif
    const long batch = (long)get_global_id(2);
    ap += a_off + (ulong)batch * a_stride;
    bp += b_off + (ulong)batch * b_stride;
    c += c_off + (ulong)batch * c_stride;
#if PACKED == 2 || PACKED == 5
    __local real bloc[NI * KC * NR];   /* panel jn's element (k, c) at (jn*KC + k)*NR + c */
#elif PACKED == 3
    __local real aloc[MI * MR * ALD];   /* row r of the block's A at r*ALD */
#elif PACKED == 4
    __local real aloc[MI * KC * MR];    /* micro-panel im's element (k, r) at (im*KC + k)*MR + r */
#endif
    for (int k0 = 0; k0 < K; k0 += KC) {
        const int kc = K - k0 < KC ? K - k0 : KC;
        const int first = k0 == 0, last = k0 + KC >= K;
#if PACKED == 2
        /* This block's rows of B into NI panels, a panel at a time: each load then walks B with one stride (ldb),
         * which the hardware's stride prefetcher follows (along the row first, PoCL, 2-core EPYC: slower than the
         * pack launch). Columns past N are zero. */
        for (int jn = 0; jn < NI; jn++) {
            const int j0 = (j_blk * NI + jn) * NR;
            if (j0 >= N)
                break;
            const __global real *src = bp + (long)k0 * ldb + j0;
            __local real *d = bloc + jn * KC * NR;
            if (j0 + NR <= N) {
                for (int k = 0; k < kc; k++, src += ldb, d += NR)
#pragma unroll
                    for (int v = 0; v < NV; v++)
                        VSTORE(VLOAD(v, src), v, d);
            } else {
                for (int k = 0; k < kc; k++, src += ldb, d += NR)
                    for (int v = 0; v < NV; v++)
                        VSTORE(edge_row(src + v * VW, j0 + v * VW, N), v, d);
            }
        }
#elif PACKED == 5
        /* B stored N x K (element (k, j) at j*ldb + k): this block's NI panels, a column of a panel at a time (a
         * run along K of B, read in order); columns past N as zero. */
        for (int jn = 0; jn < NI; jn++) {
            const int j0 = (j_blk * NI + jn) * NR;
            if (j0 >= N)
                break;
            __local real *d = bloc + jn * KC * NR;
            for (int cc = 0; cc < NR; cc++) {
                const __global real *src = bp + (long)(j0 + cc < N ? j0 + cc : 0) * ldb + k0;
                if (j0 + cc < N)
                    for (int k = 0; k < kc; k++)
                        d[k * NR + cc] = src[k];
                else
                    for (int k = 0; k < kc; k++)
                        d[k * NR + cc] = ZERO;
            }
        }
#endif
#if PACKED == 3
        /* This block's rows of A (K contiguous), a K block at a time, as vectors along K; rows past M repeat row
         * M-1 (their sums are never stored). */
        for (int r = 0; r < MI * MR; r++) {
            const int row = i_blk * MI * MR + r < M ? i_blk * MI * MR + r : M - 1;
            const __global real *src = ap + (long)row * a_rs + k0;
            __local real *d = aloc + r * ALD;
            int k = 0;
            for (; k + VW <= kc; k += VW)
                VSTORE(VLOAD(0, src + k), 0, d + k);
            for (; k < kc; k++)
                d[k] = src[k];
        }
#elif PACKED == 4
        /* A stored K-major (element (i, k) at k*a_ks + i): this block's micro-panels, a K block at a time, each in
         * the packed panels' layout (a micro-panel's MR rows of one k adjacent, as they are in A); rows past M
         * repeat row M-1 (their sums are never stored). */
        for (int im = 0; im < MI; im++) {
            const int i0 = (i_blk * MI + im) * MR;
            if (i0 >= M)
                break;
            const __global real *src = ap + (long)k0 * a_ks + i0;
            __local real *d = aloc + im * KC * MR;
            if (i0 + MR <= M) {
                for (int k = 0; k < kc; k++, src += a_ks, d += MR)
#pragma unroll
                    for (int r = 0; r < MR; r++)
                        d[r] = src[r];
            } else {
                for (int k = 0; k < kc; k++, src += a_ks, d += MR)
                    for (int r = 0; r < MR; r++)
                        d[r] = src[i0 + r < M ? r : M - 1 - i0];
            }
        }
#endif
        for (int jn = 0; jn < NI; jn++) {
            const int j0 = (j_blk * NI + jn) * NR;
            if (j0 >= N)
                break;
            const int full_n = j0 + NR <= N;
            for (int im = 0; im < MI; im++) {
                const int i0 = (i_blk * MI + im) * MR;
                if (i0 >= M)
                    break;
                rvec acc[MR][NV];
#pragma unroll
                for (int r = 0; r < MR; r++)
#pragma unroll
                    for (int v = 0; v < NV; v++)
                        acc[r][v] = (rvec)(ZERO);
#if PACKED == 2 || PACKED == 5
                const __global real *apan = ap + (long)i0 * K + (long)k0 * MR;
                const __local real *b = bloc + jn * KC * NR;
                for (int k = 0; k < kc; k++, apan += MR, b += NR)
                    CLF_KSTEP(CLF_B_PANEL, CLF_A_PANEL);
#elif PACKED == 3
                const __local real *arow = aloc + im * MR * ALD;
                const __global real *b = bp + (long)j0 * K + (long)k0 * NR;
                for (int k = 0; k < kc; k++, arow++, b += NR)
                    CLF_KSTEP(CLF_B_PANEL, CLF_A_LOCAL);
#elif PACKED == 4
                const __local real *apan = aloc + im * KC * MR;
                const __global real *b = bp + (long)j0 * K + (long)k0 * NR;
                for (int k = 0; k < kc; k++, apan += MR, b += NR)
                    CLF_KSTEP(CLF_B_PANEL, CLF_A_PANEL);
#elif PACKED
                const __global real *apan = ap + (long)i0 * K + (long)k0 * MR;
                const __global real *b = bp + (long)j0 * K + (long)k0 * NR;
                for (int k = 0; k < kc; k++, apan += MR, b += NR)
                    CLF_KSTEP(CLF_B_PANEL, CLF_A_PANEL);
#else
                /* Rows past M read row M-1: their sums are never stored. */
                long a_row[MR];
#pragma unroll
                for (int r = 0; r < MR; r++)
                    a_row[r] = (long)(i0 + r < M ? r : M - 1 - i0) * a_rs;
                const __global real *apan = ap + (long)i0 * a_rs + (long)k0 * a_ks;
                const __global real *b = bp + (long)k0 * ldb + j0;
                if (full_n)
                    for (int k = 0; k < kc; k++, apan += a_ks, b += ldb)
                        CLF_KSTEP(CLF_B_ROW, CLF_A_SRC);
                else
                    for (int k = 0; k < kc; k++, apan += a_ks, b += ldb)
                        CLF_KSTEP(CLF_B_EDGE, CLF_A_SRC);
#endif
#pragma unroll
                for (int r = 0; r < MR; r++) {
                    if (i0 + r < M) {
                        const long crow = (long)(i0 + r) * ldc + j0;
#pragma unroll
                        for (int v = 0; v < NV; v++) {
                            const int full = full_n;
                            CLF_STORE_ROW(r, v);
                        }
                    }
                }
            }
        }
    }
}

/* gemm_cpu_pack's source: 0 in the kernel's precision; 1 IEEE half, 2 bfloat16 (16-bit storage, fp32 kernels only),
 * widened while packing, which spares the portable mixed-precision path a conversion pass over the operand. */
#ifndef SRC16
#define SRC16 0
#endif
#if SRC16
typedef ushort src_t;
#else
typedef real src_t;
#endif
#include "bf16.cl"
#if SRC16 == 1
#define SRC_AT(p, i) vload_half((i), (const __global half *)(p))
#define SRC_V4(p) vload_half4(0, (const __global half *)(p))
#elif SRC16 == 2
#define SRC_AT(p, i) bf16_to_f32((p)[i])
#define SRC_V4(p) as_float4(convert_uint4(vload4(0, (p))) << 16)
#else
#define SRC_AT(p, i) (p)[i]
#define SRC_V4(p) vload4(0, (p))
#endif

/* Packs one operand into panels of PW rows of R (M for A, N for B): element (r, k) of the source, at
 * src[r*rs + k*ks] (the strides say which way it is stored), goes to panel r/PW at k*PW + r%PW, and rows
 * past R are zero. Grid: (K runs of PACK_K, panels, batch); one work-item per group. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void gemm_cpu_pack(const int R, const int K, const __global src_t *restrict src, const ulong s_off, const long rs,
                   const long ks, const ulong s_stride, __global real *restrict dst, const ulong d_off,
                   const ulong d_stride)
{
    const int k0 = (int)get_global_id(0) * PACK_K, p = (int)get_global_id(1);
    const long batch = (long)get_global_id(2);
    const int kend = K - k0 < PACK_K ? K : k0 + PACK_K;
    src += s_off + (ulong)batch * s_stride;
    dst += d_off + (ulong)batch * d_stride + (long)p * PW * K;
    const int r0 = p * PW, rows = R - r0 < PW ? R - r0 : PW;
#if PW % 4 == 0
    if (rows == PW && rs == 1) {
        /* Stored K-major (B of a row-major NN product): a panel's PW elements of one k are adjacent, so they are
         * copied as vectors. Element by element, PoCL copied them at 5-8 GB/s, a quarter of a 1024^3 SGEMM's time. */
        for (int k = k0; k < kend; k++) {
            const __global src_t *s = src + r0 + (long)k * ks;
            __global real *d = dst + (long)k * PW;
#pragma unroll
            for (int w = 0; w < PW; w += 4)
                vstore4(SRC_V4(s + w), 0, d + w);
        }
        return;
    }
#endif
    if (rows == PW) {
        for (int k = k0; k < kend; k++)
#pragma unroll
            for (int w = 0; w < PW; w++)
                dst[(long)k * PW + w] = SRC_AT(src, (long)(r0 + w) * rs + (long)k * ks);
    } else {
        for (int k = k0; k < kend; k++)
            for (int w = 0; w < PW; w++)
                dst[(long)k * PW + w] = w < rows ? SRC_AT(src, (long)(r0 + w) * rs + (long)k * ks) : ZERO;
    }
}
