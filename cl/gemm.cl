/* gemm.cl — the gemm kernel family: C = alpha*A*B + beta*C (row-major C) with a register-tiled,
 * local-memory-staged, optionally double-buffered K loop.
 *
 * Element (kk, i) of A and (kk, j) of B; A_KMAJOR / B_KMAJOR say how each operand is stored
 * (1: A[kk*lda + i], B[kk*ldb + j]; 0: A[i*lda + kk], B[j*ldb + kk]). With DIRECT=0 (the fast path)
 * the operands are tile-aligned (the host packs them with gemm_pack.cl when they are not), so the
 * loads are branch-free vector loads. With DIRECT=1 loads are scalar and bounds-checked; used for
 * small problems, where a pre-pass would cost more than it saves. The C store is bounds-checked per
 * tile in both paths. The host prepends the configuration as -D options; the defaults below only
 * keep the file compilable on its own. host/gemm/gemm_family.c (gemm_valid) enforces the
 * constraints named next to each parameter.
 *
 * The steps of the K loop are inline functions whose register arrays (ra, rb, acc and the a, b
 * fragments) are __private pointers indexed only by loop counters of fully unrolled loops with
 * compile-time trip counts, so after inlining every index is a constant and the arrays stay in
 * registers. */

#include "common.cl"

/* ---- tunable parameters (the host's -D options) ---------------------------------------------- */

/* Rows of C (along M) per work-group tile; a multiple of MDIMC * VWM. */
#ifndef MWG
#define MWG 64
#endif
/* Columns of C (along N) per work-group tile; a multiple of NDIMC * VWN. */
#ifndef NWG
#define NWG 64
#endif
/* Depth along K of the tiles staged in local memory per step; a multiple of KWI (and of VWM / VWN
 * when A / B is not K-major on the fast path). Local memory: NBUF * KWG * (LDAS + LDBS) elements. */
#ifndef KWG
#define KWG 16
#endif
/* Work-items along M (local dimension 1); MDIMC * NDIMC is the work-group size (16 to the device
 * maximum), and KWG * MWG / VWM must be a multiple of it. */
#ifndef MDIMC
#define MDIMC 16
#endif
/* Work-items along N (local dimension 0); KWG * NWG / VWN must be a multiple of MDIMC * NDIMC. */
#ifndef NDIMC
#define NDIMC 16
#endif
/* Vector width along M (1, 2, 4 or 8) of A's loads and local reads; divides MWG / MDIMC and MWG + PADA. */
#ifndef VWM
#define VWM 4
#endif
/* Vector width along N (1, 2, 4 or 8) of B's loads, local reads and C's stores; divides NWG / NDIMC
 * and NWG + PADB. */
#ifndef VWN
#define VWN 4
#endif
/* Unroll factor of the inner K loop (the steps taken between loop tests); divides KWG. */
#ifndef KWI
#define KWI 2
#endif
/* Padding, in elements, of each local row of A against bank conflicts; MWG + PADA a multiple of VWM. */
#ifndef PADA
#define PADA 0
#endif
/* Padding, in elements, of each local row of B; NWG + PADB a multiple of VWN. */
#ifndef PADB
#define PADB 0
#endif
/* 1: two local buffers, tile t+1 is loaded into registers while tile t is computed (one barrier per
 * tile); 0: one buffer, two barriers per tile. Doubles the local memory. */
#ifndef DBUF
#define DBUF 1
#endif
/* 1: scalar, bounds-checked loads straight from the caller's matrices (small problems); 0: the fast
 * path, whose operands are tile-aligned (packed if need be) and whose offsets and leading dimensions
 * are multiples of VWM (A) and VWN (B). Set by the host's path choice, not tuned. */
#ifndef DIRECT
#define DIRECT 0
#endif
/* Fast path only: 1 when A (EDGE_A) or B (EDGE_B) is read in place although its tiles overrun the matrix (M, N
 * or K is not a multiple of the tile; the vector dimension and the leading dimension still are multiples of
 * the vector width). Rows and columns past the matrix are clamped to its last (their products land in C's
 * rows or columns past M or N, which are never stored) and K past its end reads zeros. 0: the operand covers
 * whole tiles (packed, or aligned). Set by the host per call, not tuned. */
#ifndef EDGE_A
#define EDGE_A 0
#endif
#ifndef EDGE_B
#define EDGE_B 0
#endif
/* 1: the batch is the slices of a split product, and the last of a tile's slices to finish sums the others' partial
 * tiles and stores C (split_sum_last); 0: each member stores its own C. Set by the host per call. */
#ifndef SPLIT_SUM
#define SPLIT_SUM 0
#endif
/* Storage of A: 1 for A[kk*lda + i] (K-major), 0 for A[i*lda + kk]. Set by the host per call. */
#ifndef A_KMAJOR
#define A_KMAJOR 1
#endif
/* Storage of B: 1 for B[kk*ldb + j] (K-major), 0 for B[j*ldb + kk]. Set by the host per call. */
#ifndef B_KMAJOR
#define B_KMAJOR 1
#endif
/* Direct kernel only, set by the host per call (0 where it does not apply): DLAY bit 0 (A) and bit 1 (B) load an
 * operand stored with K contiguous (A[i*lda + kk], B[j*ldb + kk]) in runs of DL_KL along K, a warp covering
 * 32 / DL_KL columns (fp32), and DPAD_A / DPAD_B pad its local rows so that such a run of rows times columns lands in
 * as many banks (the host picks a row stride of g modulo 2g, g the larger of the vector width and the columns a
 * 128-byte phase covers). Loaded KWG deep instead, the KWG work-items that share a column store into local rows of one
 * stride: one bank with unpadded rows (16- or 32-way), which is where the host sets the bit. */
#ifndef DLAY
#define DLAY 0
#endif
#ifndef DPAD_A
#define DPAD_A 0
#endif
#ifndef DPAD_B
#define DPAD_B 0
#endif
#define DL_KL 8   /* divides every KWG the family allows */
/* PRECISION and LONG_INDEX are defaulted in common.cl. */

/* ---- derived sizes --------------------------------------------------------------------------- */

#define MWI (MWG / MDIMC)        /* rows of C per work-item */
#define NWI (NWG / NDIMC)        /* columns of C per work-item */
#define NTHREADS (MDIMC * NDIMC)
#define LDAS (MWG + PADA + DPAD_A)   /* local row strides, padded against bank conflicts */
#define LDBS (NWG + PADB + BPAD_NK + DPAD_B)   /* BPAD_NK: below */
#define NBUF (DBUF ? 2 : 1)
#define A_BUF_V (KWG * (LDAS / VWM))   /* one local A buffer, in realM vectors */
#define B_BUF_V (KWG * (LDBS / VWN))   /* one local B buffer, in realN vectors */

/* A B stored N x K (not K-major) is scattered transposed into local memory, a column of the tile at a time. With
 * PADB = 0 and NWG a multiple of 32 the KWG / VWN work-items that share a column store into the same bank, a
 * many-way conflict every step of K. BSWZ then XORs the vector index of each local row by that row's group of VWN
 * rows within its buffer (the rows one loaded vector fills), within aligned groups of BSWZ_G vectors; compute_tile
 * reads through the same permutation. BSWZ_G is at most NDIMC (a power of two), so the swizzle touches only a
 * read's work-item bits: (nv * NDIMC + tid_n) ^ s = nv * NDIMC + (tid_n ^ s), one XOR a step of K.
 * Only where a work-item holds at most 32 accumulators: there the scatter is a large share of the local-memory
 * traffic (H200, 64 x 64 tiles: +8-15% on A.B^T of 60-100 rows), where 128 x 128 tiles lost 1.5-4% to the XOR.
 * The direct kernel and padded or K-major B store as loaded. */
#if !DIRECT && !B_KMAJOR && PADB == 0 && MWI * NWI <= 32
#define BSWZ_ON 1
#define BSWZ_G (NWG / VWN < 32 / VWN ? (NWG / VWN < NDIMC ? NWG / VWN : NDIMC) : (32 / VWN < NDIMC ? 32 / VWN : NDIMC))
#define BSWZ(local_row) (((local_row) / VWN) & (BSWZ_G - 1))
#else
#define BSWZ_ON 0
#endif
/* Elsewhere such a B gets its local rows padded by 32 / KWG elements when that is a whole number of vectors: the
 * work-items that share a column then land VWN * 32 / KWG banks apart, one bank each across the warp (128 x 128
 * tiles, KWG 16, VWN 2: rows of 130). gemm_valid counts the padding. */
#if !DIRECT && !B_KMAJOR && PADB == 0 && !BSWZ_ON && 32 % (KWG * VWN) == 0
#define BPAD_NK (32 / KWG)
#else
#define BPAD_NK 0
#endif

#if VWM == 1
typedef real realM;
#elif VWM == 2
typedef real2 realM;
#elif VWM == 4
typedef real4 realM;
#elif VWM == 8
typedef real8 realM;
#endif
#if VWN == 1
typedef real realN;
#elif VWN == 2
typedef real2 realN;
#elif VWN == 4
typedef real4 realN;
#elif VWN == 8
typedef real8 realN;
#endif

#if DIRECT
#define A_LOADS (KWG * MWG / NTHREADS)   /* scalars per work-item per tile */
#define B_LOADS (KWG * NWG / NTHREADS)
typedef real loadA_t;
typedef real loadB_t;
#else
#define A_LOADS (KWG * MWG / VWM / NTHREADS)   /* vectors per work-item per tile */
#define B_LOADS (KWG * NWG / VWN / NTHREADS)
typedef realM loadA_t;
typedef realN loadB_t;
#endif

/* Direct kernel: row (along K) and column of element q of a KWG x xwg tile, for an operand stored K-major (km) or
 * not, in the plain layout (0) or in runs along K (1); DIRECT_RA/CA for A, DIRECT_RB/CB for B, as DLAY says.
 * Macros, so that without DLAY the expressions are those the kernel was measured with. */
#define DIRECT_R0(q, xwg, km) ((km) ? (q) / (xwg) : (q) % KWG)
#define DIRECT_C0(q, xwg, km) ((km) ? (q) % (xwg) : (q) / KWG)
#define DIRECT_R1(q, xwg, km) ((km) ? (q) / (xwg) : (q) / (DL_KL * (xwg)) * DL_KL + (q) % DL_KL)
#define DIRECT_C1(q, xwg, km) ((km) ? (q) % (xwg) : (q) / DL_KL % (xwg))
#if DLAY & 1
#define DIRECT_RA DIRECT_R1
#define DIRECT_CA DIRECT_C1
#else
#define DIRECT_RA DIRECT_R0
#define DIRECT_CA DIRECT_C0
#endif
#if DLAY & 2
#define DIRECT_RB DIRECT_R1
#define DIRECT_CB DIRECT_C1
#else
#define DIRECT_RB DIRECT_R0
#define DIRECT_CB DIRECT_C0
#endif

/* ---- vectors <-> register arrays ------------------------------------------------------------- */

/* arr[0 .. VWM) = the components of v. Callers pass arr + (a constant after unrolling). */
CLF_INLINE void unpack_m(__private real *arr, const realM v)
{
#if VWM == 1
    arr[0] = v;
#else
    arr[0] = v.s0; arr[1] = v.s1;
#if VWM >= 4
    arr[2] = v.s2; arr[3] = v.s3;
#endif
#if VWM == 8
    arr[4] = v.s4; arr[5] = v.s5; arr[6] = v.s6; arr[7] = v.s7;
#endif
#endif
}

/* arr[0 .. VWN) = the components of v. */
CLF_INLINE void unpack_n(__private real *arr, const realN v)
{
#if VWN == 1
    arr[0] = v;
#else
    arr[0] = v.s0; arr[1] = v.s1;
#if VWN >= 4
    arr[2] = v.s2; arr[3] = v.s3;
#endif
#if VWN == 8
    arr[4] = v.s4; arr[5] = v.s5; arr[6] = v.s6; arr[7] = v.s7;
#endif
#endif
}

/* The vector (arr[0], ..., arr[VWN - 1]). */
CLF_INLINE realN pack_n(const __private real *arr)
{
#if VWN == 1
    return arr[0];
#elif VWN == 2
    return (realN)(arr[0], arr[1]);
#elif VWN == 4
    return (realN)(arr[0], arr[1], arr[2], arr[3]);
#else
    return (realN)(arr[0], arr[1], arr[2], arr[3], arr[4], arr[5], arr[6], arr[7]);
#endif
}

/* p[w * st] = component w of v: a transposed store into local memory. */
CLF_INLINE void scatter_m(__local real *p, const int st, const realM v)
{
#if VWM == 1
    p[0] = v;
#else
    p[0] = v.s0; p[st] = v.s1;
#if VWM >= 4
    p[2 * st] = v.s2; p[3 * st] = v.s3;
#endif
#if VWM == 8
    p[4 * st] = v.s4; p[5 * st] = v.s5; p[6 * st] = v.s6; p[7 * st] = v.s7;
#endif
#endif
}

CLF_INLINE void scatter_n(__local real *p, const int st, const realN v)
{
#if VWN == 1
    p[0] = v;
#else
    p[0] = v.s0; p[st] = v.s1;
#if VWN >= 4
    p[2 * st] = v.s2; p[3 * st] = v.s3;
#endif
#if VWN == 8
    p[4 * st] = v.s4; p[5 * st] = v.s5; p[6 * st] = v.s6; p[7 * st] = v.s7;
#endif
#endif
}

/* ---- global -> registers -> local: one KWG-deep tile of A and of B ----------------------------
 * Work-item tid moves elements (or vectors) q = tid + l*NTHREADS, l < A_LOADS (B_LOADS), of the
 * tile, so neighbouring work-items touch neighbouring addresses. A local buffer holds KWG rows of
 * LDAS (LDBS) scalars; row kk holds the tile's elements (k0 + kk, m0 .. m0 + MWG) of A.
 * Fast path: a K-major operand is loaded as vectors along M (N) and stored as they are; one stored
 * the other way round (A[i*lda + kk]) is loaded as vectors along K and scattered transposed into
 * local memory, which saves the host a transposing pre-pass for the common row-major NN case.
 * M, N, K are read by the DIRECT path and by EDGE_A / EDGE_B only. ld is in units of loadA_t / loadB_t. */

/* ra[0 .. A_LOADS) = this work-item's part of A's tile at (k0, m0). */
CLF_INLINE void load_a(__private loadA_t *ra, const __global loadA_t *A, const idx_t ld, const int k0,
                       const int m0, const int M, const int K, const int tid)
{
#pragma unroll
    for (int l = 0; l < A_LOADS; l++) {
        const int q = tid + l * NTHREADS;
#if DIRECT
        const int r = DIRECT_RA(q, MWG, A_KMAJOR), c = DIRECT_CA(q, MWG, A_KMAJOR);
        const int gk = k0 + r, gi = m0 + c;
        ra[l] = (gk < K && gi < M) ? A[A_KMAJOR ? (idx_t)gk * ld + gi : (idx_t)gi * ld + gk] : ZERO;
#elif A_KMAJOR && EDGE_A
        const int gk = k0 + q / (MWG / VWM);
        const loadA_t v = A[(idx_t)min(gk, K - 1) * ld + min(m0 / VWM + q % (MWG / VWM), M / VWM - 1)];
        ra[l] = gk < K ? v : (loadA_t)ZERO;
#elif A_KMAJOR
        ra[l] = A[(idx_t)(k0 + q / (MWG / VWM)) * ld + m0 / VWM + q % (MWG / VWM)];
#elif EDGE_A
        const int kv = k0 / VWM + q % (KWG / VWM);
        const loadA_t v = A[(idx_t)min(m0 + q / (KWG / VWM), M - 1) * ld + min(kv, K / VWM - 1)];
        ra[l] = kv < K / VWM ? v : (loadA_t)ZERO;
#else
        ra[l] = A[(idx_t)(m0 + q / (KWG / VWM)) * ld + k0 / VWM + q % (KWG / VWM)];
#endif
    }
}

/* rb[0 .. B_LOADS) = this work-item's part of B's tile at (k0, n0). */
CLF_INLINE void load_b(__private loadB_t *rb, const __global loadB_t *B, const idx_t ld, const int k0,
                       const int n0, const int N, const int K, const int tid)
{
#pragma unroll
    for (int l = 0; l < B_LOADS; l++) {
        const int q = tid + l * NTHREADS;
#if DIRECT
        const int r = DIRECT_RB(q, NWG, B_KMAJOR), c = DIRECT_CB(q, NWG, B_KMAJOR);
        const int gk = k0 + r, gj = n0 + c;
        rb[l] = (gk < K && gj < N) ? B[B_KMAJOR ? (idx_t)gk * ld + gj : (idx_t)gj * ld + gk] : ZERO;
#elif B_KMAJOR && EDGE_B
        const int gk = k0 + q / (NWG / VWN);
        const loadB_t v = B[(idx_t)min(gk, K - 1) * ld + min(n0 / VWN + q % (NWG / VWN), N / VWN - 1)];
        rb[l] = gk < K ? v : (loadB_t)ZERO;
#elif B_KMAJOR
        rb[l] = B[(idx_t)(k0 + q / (NWG / VWN)) * ld + n0 / VWN + q % (NWG / VWN)];
#elif EDGE_B
        const int kv = k0 / VWN + q % (KWG / VWN);
        const loadB_t v = B[(idx_t)min(n0 + q / (KWG / VWN), N - 1) * ld + min(kv, K / VWN - 1)];
        rb[l] = kv < K / VWN ? v : (loadB_t)ZERO;
#else
        rb[l] = B[(idx_t)(n0 + q / (KWG / VWN)) * ld + k0 / VWN + q % (KWG / VWN)];
#endif
    }
}

/* Local A buffer buf of alm (NBUF buffers of A_BUF_V vectors) = ra, as load_a read it. */
CLF_INLINE void store_a(__local realM *alm, const int buf, const __private loadA_t *ra, const int tid)
{
    __local real *als = (__local real *)alm;
#pragma unroll
    for (int l = 0; l < A_LOADS; l++) {
        const int q = tid + l * NTHREADS;
#if DIRECT
        const int r = DIRECT_RA(q, MWG, A_KMAJOR), c = DIRECT_CA(q, MWG, A_KMAJOR);
        als[(buf * KWG + r) * LDAS + c] = ra[l];
#elif A_KMAJOR
        alm[(buf * KWG + q / (MWG / VWM)) * (LDAS / VWM) + q % (MWG / VWM)] = ra[l];
#else
        scatter_m(als + (buf * KWG + q % (KWG / VWM) * VWM) * LDAS + q / (KWG / VWM), LDAS, ra[l]);
#endif
    }
}

/* Local B buffer buf of blm (NBUF buffers of B_BUF_V vectors) = rb, as load_b read it. */
CLF_INLINE void store_b(__local realN *blm, const int buf, const __private loadB_t *rb, const int tid)
{
    __local real *bls = (__local real *)blm;
#pragma unroll
    for (int l = 0; l < B_LOADS; l++) {
        const int q = tid + l * NTHREADS;
#if DIRECT
        const int r = DIRECT_RB(q, NWG, B_KMAJOR), c = DIRECT_CB(q, NWG, B_KMAJOR);
        bls[(buf * KWG + r) * LDBS + c] = rb[l];
#elif B_KMAJOR
        blm[(buf * KWG + q / (NWG / VWN)) * (LDBS / VWN) + q % (NWG / VWN)] = rb[l];
#else
#if BSWZ_ON
        const int r = q % (KWG / VWN) * VWN, c = q / (KWG / VWN);
        scatter_n(bls + (buf * KWG + r) * LDBS + ((c / VWN) ^ BSWZ(r)) * VWN + c % VWN, LDBS, rb[l]);
#else
        scatter_n(bls + (buf * KWG + q % (KWG / VWN) * VWN) * LDBS + q / (KWG / VWN), LDBS, rb[l]);
#endif
#endif
    }
}

/* ---- the outer product ----------------------------------------------------------------------- */

/* acc += the KWG-deep product of the tiles in local buffer buf of alm and of blm.
 * A work-item's rows are (mv*MDIMC + tid_m)*VWM + s and its columns (nv*NDIMC + tid_n)*VWN + w:
 * neighbouring work-items read neighbouring vectors (no bank conflicts). The loop over kk is
 * left rolled (KWI is the unroll factor); everything inside it is unrolled. */
CLF_INLINE void compute_tile(__private real acc[MWI][NWI], const __local realM *alm, const __local realN *blm,
                             const int buf, const int tid_m, const int tid_n)
{
    for (int kk = 0; kk < KWG; kk += KWI) {
#pragma unroll
        for (int ki = 0; ki < KWI; ki++) {
            const int kr = buf * KWG + kk + ki;
            real a[MWI], b[NWI];
#pragma unroll
            for (int mv = 0; mv < MWI / VWM; mv++)
                unpack_m(a + mv * VWM, alm[kr * (LDAS / VWM) + mv * MDIMC + tid_m]);
#pragma unroll
            for (int nv = 0; nv < NWI / VWN; nv++)
#if BSWZ_ON
                unpack_n(b + nv * VWN, blm[kr * (LDBS / VWN) + nv * NDIMC + (tid_n ^ BSWZ(kk + ki))]);
#else
                unpack_n(b + nv * VWN, blm[kr * (LDBS / VWN) + nv * NDIMC + tid_n]);
#endif
#pragma unroll
            for (int mi = 0; mi < MWI; mi++) {
#pragma unroll
                for (int ni = 0; ni < NWI; ni++)
                    acc[mi][ni] = MAD(a[mi], b[ni], acc[mi][ni]);
            }
        }
    }
}

/* ---- the epilogue ---------------------------------------------------------------------------- */

/* C = alpha*acc + beta*C over this work-item's elements of the tile at (m0, n0). Whole tiles with
 * aligned C (c_vec_ok) take vector stores; edges go element by element. beta == 0 never reads C,
 * so NaN or garbage there cannot leak. */
CLF_INLINE void store_c(__global real *C, const idx_t ldc, const int M, const int N, const int m0, const int n0,
                        const int tid_m, const int tid_n, const real alpha, const real beta, const int c_vec_ok,
                        __private real acc[MWI][NWI], const ulong bat CLF_EPI_DECL)
{
    const int whole = c_vec_ok && m0 + MWG <= M && n0 + NWG <= N;
    const int read_c = beta != ZERO;
#pragma unroll
    for (int mv = 0; mv < MWI / VWM; mv++) {
#pragma unroll
        for (int s = 0; s < VWM; s++) {
            const int mi = mv * VWM + s;
            const int row = m0 + (mv * MDIMC + tid_m) * VWM + s;
#pragma unroll
            for (int nv = 0; nv < NWI / VWN; nv++) {
                const int col = n0 + (nv * NDIMC + tid_n) * VWN;
                if (whole) {
                    __global realN *cp = (__global realN *)(C + (idx_t)row * ldc + col);
                    realN v = alpha * pack_n(acc[mi] + nv * VWN);
                    if (read_c)
                        v += beta * *cp;
#if CLF_EPI
                    /* the epilogue computes C's values element by element; the store stays a vector */
                    real vs[VWN];
                    unpack_n(vs, v);
#pragma unroll
                    for (int w = 0; w < VWN; w++)
                        vs[w] = (real)clf_epilogue_v((__global real *)cp + w, bat, row, col + w, vs[w] CLF_EPI_PASS);
                    *cp = pack_n(vs);
#else
                    *cp = v;
#endif
                } else if (row < M) {
#pragma unroll
                    for (int w = 0; w < VWN; w++) {
                        if (col + w < N) {
                            __global real *cp = C + (idx_t)row * ldc + col + w;
                            real v = alpha * acc[mi][nv * VWN + w];
                            if (read_c)
                                v += beta * *cp;
#if CLF_EPI
                            clf_epilogue(cp, bat, row, col + w, v CLF_EPI_PASS);
#else
                            *cp = v;
#endif
                        }
                    }
                }
            }
        }
    }
}

#if CLF_EPI && CLF_EPI_STORE == 2
/* One of this work-item's rows of C through the program, as store_c stores it: vals holds its NWI values,
 * alpha applied; row is its row in C, whole says the tile is whole and C aligned for vector stores. store_c
 * keeps its own loops: written over this helper, the plain GEMM (no epilogue) ran 1-2.4% slower on the H200
 * (bench/results/h200/2026-12-02/store-launches/run3-ab-refactored-store.txt). */
CLF_INLINE void store_row(__global real *C, const idx_t ldc, const int M, const int N, const int row, const int n0,
                          const int tid_n, const real beta, const int whole, const __private real *vals,
                          const ulong bat CLF_EPI_DECL)
{
    const int read_c = beta != ZERO;
#pragma unroll
    for (int nv = 0; nv < NWI / VWN; nv++) {
        const int col = n0 + (nv * NDIMC + tid_n) * VWN;
        if (whole) {
            __global realN *cp = (__global realN *)(C + (idx_t)row * ldc + col);
            realN v = pack_n(vals + nv * VWN);
            if (read_c)
                v += beta * *cp;
            real vs[VWN];
            unpack_n(vs, v);
#pragma unroll
            for (int w = 0; w < VWN; w++)
                vs[w] = (real)clf_epilogue_v((__global real *)cp + w, bat, row, col + w, vs[w] CLF_EPI_PASS);
            *cp = pack_n(vs);
        } else if (row < M) {
#pragma unroll
            for (int w = 0; w < VWN; w++) {
                if (col + w < N) {
                    __global real *cp = C + (idx_t)row * ldc + col + w;
                    real v = vals[nv * VWN + w];
                    if (read_c)
                        v += beta * *cp;
                    clf_epilogue(cp, bat, row, col + w, v CLF_EPI_PASS);
                }
            }
        }
    }
}

/* The rolled store: the same, in a loop over the work-item's MWI rows that is not unrolled, so the program
 * appears NWI times in the code rather than MWI * NWI (straight-line code that size ran slower than the
 * program's arithmetic explains: sigmoid 1.19x the plain GEMM unrolled). Registers cannot be indexed by a
 * loop variable, so each step stores row 0 and moves the rows below it up by one: (MWI - 1) * NWI register
 * moves a step. alpha * acc goes into new registers first, so the K loop's accumulators are left alone
 * (writing them out constrained their allocation once; see store_c_staged). */
CLF_INLINE void store_c_rolled(__global real *C, const idx_t ldc, const int M, const int N, const int m0,
                               const int n0, const int tid_m, const int tid_n, const real alpha, const real beta,
                               const int c_vec_ok, __private real acc[MWI][NWI], const ulong bat CLF_EPI_DECL)
{
    const int whole = c_vec_ok && m0 + MWG <= M && n0 + NWG <= N;
    real vals[MWI][NWI];
#pragma unroll
    for (int mi = 0; mi < MWI; mi++) {
#pragma unroll
        for (int ni = 0; ni < NWI; ni++)
            vals[mi][ni] = alpha * acc[mi][ni];
    }
#pragma unroll 1
    for (int mi = 0; mi < MWI; mi++) {
        const int row = m0 + (mi / VWM * MDIMC + tid_m) * VWM + mi % VWM;   /* as store_c numbers them */
        store_row(C, ldc, M, N, row, n0, tid_n, beta, whole, vals[0], bat CLF_EPI_PASS);
#pragma unroll
        for (int r = 0; r + 1 < MWI; r++) {
#pragma unroll
            for (int ni = 0; ni < NWI; ni++)
                vals[r][ni] = vals[r + 1][ni];
        }
    }
}
#endif

#if CLF_EPI && CLF_EPI_STORE == 1
/* ---- the staged epilogue store ----------------------------------------------------------------
 * With an epilogue the program must not be unrolled over the work-item's MWI x NWI registers (that
 * inlines it once per element). Instead the tile goes through the local A/B buffers, free once the K
 * loop is done, and the program runs in one rolled loop in which neighbouring work-items take
 * neighbouring columns of C. A unit is what all work-items hold for one (mi, nv): MDIMC rows by
 * NDIMC * VWN columns, stored row-major, so work-item tid writes its vector at tid. Units fill B's
 * buffers first (aligned for realN), then A's; when the tile does not fit, it goes in slices of
 * EPI_UPS units, never more local memory than the K loop's. */
#define EPI_UNIT (NTHREADS * VWN)                      /* reals per unit */
#define EPI_UNITS (MWI * NWI / VWN)                    /* units per tile */
#define EPI_FIT_B (NBUF * KWG * LDBS / EPI_UNIT)       /* units that fit B's buffers (>= 1) */
#define EPI_FIT_A (NBUF * KWG * LDAS / EPI_UNIT)       /* and A's */
#define EPI_FIT (EPI_FIT_A + EPI_FIT_B)
#define EPI_SLICES ((EPI_UNITS + EPI_FIT - 1) / EPI_FIT)
#define EPI_UPS ((EPI_UNITS + EPI_SLICES - 1) / EPI_SLICES)   /* units per slice, balanced */
#if EPI_FIT_B < 1
#error "gemm.cl: one staging unit must fit the local B buffers"
#endif
#define EPI_CAT_(a, b) a##b
#define EPI_CAT(a, b) EPI_CAT_(a, b)
/* Unroll factor of the program's loop (copies of the program in the code): more in flight per work-item
 * against more code; set by the host ($CLFORGE_EPILOGUE_UNROLL), 1 by default. */
#ifndef CLF_EPI_UNROLL
#define CLF_EPI_UNROLL 1
#endif

/* Unit slot `slot` of the staging area, element `at` (a multiple of VWN) = v. */
CLF_INLINE void stage_put(__local realM *alm, __local realN *blm, const int slot, const int at, const realN v)
{
    if (slot < EPI_FIT_B) {
        blm[(slot * EPI_UNIT + at) / VWN] = v;
    } else {
        __local real *p = (__local real *)alm + (slot - EPI_FIT_B) * EPI_UNIT + at;
#if VWN == 1
        *p = v;
#elif VWN <= VWM
        *(__local realN *)p = v;   /* alm is aligned for realM, so for realN too */
#else
        EPI_CAT(vstore, VWN)(v, 0, p);
#endif
    }
}

/* Unit slot `slot` of the staging area (as stage_put laid it out). */
CLF_INLINE const __local real *stage_unit(const __local realM *alm, const __local realN *blm, const int slot)
{
    return slot < EPI_FIT_B ? (const __local real *)blm + slot * EPI_UNIT
                            : (const __local real *)alm + (slot - EPI_FIT_B) * EPI_UNIT;
}

/* C = epilogue(alpha*acc + beta*C) over the tile at (m0, n0), slice by slice: stage this work-item's
 * units of the slice, then every work-item runs the program on elements tid, tid + NTHREADS, ... of each
 * unit (one rolled loop over units, CLF_EPI_UNROLL units a step, VWN elements a unit). Where the k-th of
 * them lies in a unit is the same for every unit, so rows and columns cost an add per element, not the
 * divisions of a flat index. Called by every work-item. */
CLF_INLINE void store_c_staged(__global real *C, const idx_t ldc, const int M, const int N, const int m0,
                               const int n0, const int tid, const real alpha, const real beta,
                               __private real acc[MWI][NWI], __local realM *alm, __local realN *blm,
                               const ulong bat CLF_EPI_DECL)
{
    const int read_c = beta != ZERO;
    int r_in[VWN], c_in[VWN];   /* row and column in a unit of this work-item's k-th element */
#pragma unroll
    for (int k = 0; k < VWN; k++) {
        r_in[k] = (k * NTHREADS + tid) / (NDIMC * VWN);
        c_in[k] = (k * NTHREADS + tid) % (NDIMC * VWN);
    }
#pragma unroll 1
    for (int slice = 0; slice < EPI_SLICES; slice++) {
        barrier(CLK_LOCAL_MEM_FENCE);   /* the K loop's (or the last slice's) reads are done */
#pragma unroll
        for (int mi = 0; mi < MWI; mi++) {
#pragma unroll
            for (int nv = 0; nv < NWI / VWN; nv++) {
                const int u = mi * (NWI / VWN) + nv;
                /* alpha is applied here, not after staging: storing the accumulators themselves as vectors
                 * made the register allocator pair them, and the K loop's FMAs then met three times the
                 * register bank conflicts (H200 PTX through ptxas: 695 against the plain kernel's 217 in
                 * 1024 FFMAs), which cost 20% of the GEMM's time at every K. */
                if (u / EPI_UPS == slice)
                    stage_put(alm, blm, u % EPI_UPS, tid * VWN, alpha * pack_n(acc[mi] + nv * VWN));
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const int u0 = slice * EPI_UPS, u1 = min(u0 + EPI_UPS, EPI_UNITS);
#pragma unroll 1
        for (int ub = u0; ub < u1; ub += CLF_EPI_UNROLL) {
#pragma unroll
            for (int q = 0; q < CLF_EPI_UNROLL; q++) {
                const int u = ub + q;
                if (CLF_EPI_UNROLL > 1 && u >= u1)
                    break;
                const int mi = u / (NWI / VWN), nv = u % (NWI / VWN);
                const int rb = m0 + (mi / VWM) * (MDIMC * VWM) + mi % VWM, cb = n0 + nv * (NDIMC * VWN);
                const __local real *src = stage_unit(alm, blm, u - u0);
#pragma unroll
                for (int k = 0; k < VWN; k++) {
                    const int row = rb + r_in[k] * VWM, col = cb + c_in[k];
                    if (row < M && col < N) {
                        __global real *cp = C + (idx_t)row * ldc + col;
                        real v = src[k * NTHREADS + tid];   /* alpha * acc */
                        if (read_c)
                            v += beta * *cp;
                        clf_epilogue(cp, bat, row, col, v CLF_EPI_PASS);
                    }
                }
            }
        }
    }
}
#endif

#if SPLIT_SUM
/* The arrival of a work-group at its tile's flag: (epoch << 8) | slices arrived so far this launch; a flag of another
 * epoch (a launch before, or a new buffer's zero) counts as none. Returns the arrivals with this one. Called by
 * one work-item. */
CLF_INLINE uint split_arrive(__global uint *flag, const uint epoch)
{
    uint old = *(volatile __global uint *)flag;
    for (;;) {
        const uint want = (old >> 8) == epoch ? old + 1u : (epoch << 8) | 1u;
        const uint seen = atomic_cmpxchg(flag, old, want);
        if (seen == old)
            return want & 0xffu;
        old = seen;
    }
}

/* Orders this work-item's global stores before what follows it (a release), or its later loads after what came
 * before (an acquire), device-wide. */
CLF_INLINE void split_fence(void)
{
#if CLF_NV
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
    mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
}

/* A split product's slice (batch member `me` of `planes`): stores this work-item's accumulators into the slice's
 * plane of P (M x N, row-major), then counts the work-group in at the tile's flag. The last of the tile's slices
 * to arrive resets the flag, adds the other planes' values to its accumulators and returns 1: it stores C as an
 * unsplit product would (alpha, beta, the epilogue). The others return 0. Called by every work-item. */
CLF_INLINE int split_sum_last(__private real acc[MWI][NWI], __global real *P, const ulong p_stride,
                              __global uint *flag, const uint epoch, const int M, const int N, const int m0,
                              const int n0, const int tid_m, const int tid_n, __local uint *arrived)
{
    const uint planes = (uint)get_global_size(2), me = (uint)get_global_id(2);
/* body for each of this work-item's accumulators (mi, ni) inside C, with `at` its index in a plane (rows and
 * columns as store_c numbers them). */
#define SPLIT_EACH(body)                                                                                              \
    _Pragma("unroll") for (int mi = 0; mi < MWI; mi++) {                                                              \
        const int row = m0 + (mi / VWM * MDIMC + tid_m) * VWM + mi % VWM;                                             \
        _Pragma("unroll") for (int ni = 0; ni < NWI; ni++) {                                                          \
            const int col = n0 + (ni / VWN * NDIMC + tid_n) * VWN + ni % VWN;                                         \
            if (row < M && col < N) {                                                                                 \
                const idx_t at = (idx_t)row * N + col;                                                                \
                body;                                                                                                 \
            }                                                                                                         \
        }                                                                                                             \
    }
    __global real *mine = P + me * p_stride;
    SPLIT_EACH(mine[at] = acc[mi][ni])
    split_fence();
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && get_local_id(1) == 0) {
        const uint n = split_arrive(flag, epoch);
        if (n == planes)
            *flag = 0;   /* left clean: no later launch meets this one's count */
        *arrived = n;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (*arrived != planes)
        return 0;
    split_fence();
    for (uint q = 0; q < planes; q++) {
        const volatile __global real *other = P + q * p_stride;   /* volatile: past caches other units filled */
        if (q != me) {
            SPLIT_EACH(acc[mi][ni] += other[at])
        }
    }
#undef SPLIT_EACH
    return 1;
}
#endif

/* ---- the kernel ------------------------------------------------------------------------------ */

/* Arguments: M, N, K are the true sizes (K may be 0: then C = beta*C and A, B are not read).
 * Offsets, leading dimensions and batch strides are in elements; on the fast path the host
 * guarantees they are multiples of the vector widths, and that A, B cover whole tiles.
 * K_last: the depth of the launch's last batch member (K elsewhere): a split product's slices end in a shorter one.
 * SPLIT_SUM: P (p_off, p_stride: the slices' partial planes, rows of N), flags (one a tile, from flag_off) and this
 * launch's epoch (under 2^24); C is the whole product's, the same for every member (c_stride 0). */
__kernel __attribute__((reqd_work_group_size(NDIMC, MDIMC, 1)))
void gemm_main(const int M, const int N, const int K_all, const real alpha, const real beta,
               const __global real *restrict A, const ulong a_off, const long lda, const ulong a_stride,
               const __global real *restrict B, const ulong b_off, const long ldb, const ulong b_stride,
               __global real *C, const ulong c_off, const long ldc, const ulong c_stride,
               const int c_vec_ok, const int K_last
#if SPLIT_SUM
               , __global real *P, const ulong p_off, const ulong p_stride, __global uint *flags,
               const ulong flag_off, const uint epoch
#endif
               CLF_EPI_DECL)
{
    const int tid_n = get_local_id(0), tid_m = get_local_id(1);
    const int tid = tid_m * NDIMC + tid_n;
    const int n0 = get_group_id(0) * NWG, m0 = get_group_id(1) * MWG;
    const ulong bat = get_global_id(2);
    const int K = bat + 1 == get_global_size(2) ? K_last : K_all;
    A += a_off + bat * a_stride;
    B += b_off + bat * b_stride;
    C += c_off + bat * c_stride;

    __local realM alm[NBUF * A_BUF_V];
    __local realN blm[NBUF * B_BUF_V];
    const __global loadA_t *Ag = (const __global loadA_t *)A;
    const __global loadB_t *Bg = (const __global loadB_t *)B;
#if DIRECT
    const idx_t ld_a = (idx_t)lda, ld_b = (idx_t)ldb;
#else
    const idx_t ld_a = (idx_t)(lda / VWM), ld_b = (idx_t)(ldb / VWN);
#endif

    real acc[MWI][NWI];
#pragma unroll
    for (int mi = 0; mi < MWI; mi++) {
#pragma unroll
        for (int ni = 0; ni < NWI; ni++)
            acc[mi][ni] = ZERO;
    }

    const int ktiles = (K + KWG - 1) / KWG;
    loadA_t ra[A_LOADS];
    loadB_t rb[B_LOADS];
#if DBUF
    /* Prefetch tile t+1 into registers while computing tile t from local memory; one barrier per
     * tile, since tile t+1 is written to the other local buffer. */
    if (ktiles > 0) {
        load_a(ra, Ag, ld_a, 0, m0, M, K, tid);
        load_b(rb, Bg, ld_b, 0, n0, N, K, tid);
        store_a(alm, 0, ra, tid);
        store_b(blm, 0, rb, tid);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int t = 0; t < ktiles; t++) {
        const int buf = t & 1;
        const int more = t + 1 < ktiles;
        if (more) {
            load_a(ra, Ag, ld_a, (t + 1) * KWG, m0, M, K, tid);
            load_b(rb, Bg, ld_b, (t + 1) * KWG, n0, N, K, tid);
        }
        compute_tile(acc, alm, blm, buf, tid_m, tid_n);
        if (more) {
            store_a(alm, buf ^ 1, ra, tid);
            store_b(blm, buf ^ 1, rb, tid);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#else
    for (int t = 0; t < ktiles; t++) {
        load_a(ra, Ag, ld_a, t * KWG, m0, M, K, tid);
        load_b(rb, Bg, ld_b, t * KWG, n0, N, K, tid);
        barrier(CLK_LOCAL_MEM_FENCE);
        store_a(alm, 0, ra, tid);
        store_b(blm, 0, rb, tid);
        barrier(CLK_LOCAL_MEM_FENCE);
        compute_tile(acc, alm, blm, 0, tid_m, tid_n);
    }
#endif

#if SPLIT_SUM
    __local uint arrived;
    const ulong tile = get_group_id(1) * get_num_groups(0) + get_group_id(0);
    if (!split_sum_last(acc, P + p_off, p_stride, flags + flag_off + tile, epoch, M, N, m0, n0, tid_m, tid_n,
                        &arrived))
        return;
    const ulong cbat = 0;   /* the epilogue's batch index: the product's, not the slice's */
#else
    const ulong cbat = bat;
#endif
#if CLF_EPI && CLF_EPI_STORE == 1
    store_c_staged(C, (idx_t)ldc, M, N, m0, n0, tid, alpha, beta, acc, alm, blm, cbat CLF_EPI_PASS);
#elif CLF_EPI && CLF_EPI_STORE == 2
    store_c_rolled(C, (idx_t)ldc, M, N, m0, n0, tid_m, tid_n, alpha, beta, c_vec_ok, acc, cbat CLF_EPI_PASS);
#else
    store_c(C, (idx_t)ldc, M, N, m0, n0, tid_m, tid_n, alpha, beta, c_vec_ok, acc, cbat CLF_EPI_PASS);
#endif
}
