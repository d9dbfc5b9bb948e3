/* gemm.cl — the gemm kernel family: C = alpha*A*B + beta*C (row-major C) with a register-tiled,
 * local-memory-staged, optionally double-buffered K loop.
 *
 * Element (kk, i) of A and (kk, j) of B; A_KMAJOR / B_KMAJOR say how each operand is stored
 * (1: A[kk*lda + i], B[kk*ldb + j]; 0: A[i*lda + kk], B[j*ldb + kk]). With DIRECT=0 (the fast path)
 * the operands are tile-aligned (the host packs them with gemm_pack.cl when they are not), so the
 * loads are branch-free vector loads. With DIRECT=1 loads are scalar and bounds-checked; used for
 * small problems, where a pre-pass would cost more than it saves. The C store is bounds-checked per tile in both paths. The host prepends the
 * configuration as -D options; the defaults below only keep the file compilable on its own. */

#ifndef PRECISION
#define PRECISION 32
#endif
#ifndef MWG
#define MWG 64
#endif
#ifndef NWG
#define NWG 64
#endif
#ifndef KWG
#define KWG 16
#endif
#ifndef MDIMC
#define MDIMC 16
#endif
#ifndef NDIMC
#define NDIMC 16
#endif
#ifndef VWM
#define VWM 4
#endif
#ifndef VWN
#define VWN 4
#endif
#ifndef KWI
#define KWI 2
#endif
#ifndef PADA
#define PADA 0
#endif
#ifndef PADB
#define PADB 0
#endif
#ifndef DBUF
#define DBUF 1
#endif
#ifndef DIRECT
#define DIRECT 0
#endif
#ifndef A_KMAJOR
#define A_KMAJOR 1
#endif
#ifndef B_KMAJOR
#define B_KMAJOR 1
#endif
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

/* Index arithmetic inside one matrix is 32-bit unless the host says a matrix is larger. */
#if LONG_INDEX
typedef long idx_t;
#else
typedef int idx_t;
#endif

#define MWI (MWG / MDIMC)        /* rows of C per work-item */
#define NWI (NWG / NDIMC)        /* columns of C per work-item */
#define NTHREADS (MDIMC * NDIMC)
#define LDAS (MWG + PADA)        /* local row strides, padded against bank conflicts */
#define LDBS (NWG + PADB)
#define NBUF (DBUF ? 2 : 1)

/* Vector types of width VWM / VWN and helpers to move them in and out of scalar register arrays
 * (constant indices only, so that the arrays stay in registers). */
#if VWM == 1
typedef real realM;
#define UNPACK_M(arr, base, v) arr[base] = (v)
#elif VWM == 2
typedef real2 realM;
#define UNPACK_M(arr, base, v) do { arr[base] = (v).s0; arr[(base) + 1] = (v).s1; } while (0)
#elif VWM == 4
typedef real4 realM;
#define UNPACK_M(arr, base, v) do { arr[base] = (v).s0; arr[(base) + 1] = (v).s1; \
    arr[(base) + 2] = (v).s2; arr[(base) + 3] = (v).s3; } while (0)
#elif VWM == 8
typedef real8 realM;
#define UNPACK_M(arr, base, v) do { arr[base] = (v).s0; arr[(base) + 1] = (v).s1; \
    arr[(base) + 2] = (v).s2; arr[(base) + 3] = (v).s3; arr[(base) + 4] = (v).s4; \
    arr[(base) + 5] = (v).s5; arr[(base) + 6] = (v).s6; arr[(base) + 7] = (v).s7; } while (0)
#endif

#if VWN == 1
typedef real realN;
#define UNPACK_N(arr, base, v) arr[base] = (v)
#define PACK_N(arr, base) (arr[base])
#elif VWN == 2
typedef real2 realN;
#define UNPACK_N(arr, base, v) do { arr[base] = (v).s0; arr[(base) + 1] = (v).s1; } while (0)
#define PACK_N(arr, base) ((real2)(arr[base], arr[(base) + 1]))
#elif VWN == 4
typedef real4 realN;
#define UNPACK_N(arr, base, v) do { arr[base] = (v).s0; arr[(base) + 1] = (v).s1; \
    arr[(base) + 2] = (v).s2; arr[(base) + 3] = (v).s3; } while (0)
#define PACK_N(arr, base) ((real4)(arr[base], arr[(base) + 1], arr[(base) + 2], arr[(base) + 3]))
#elif VWN == 8
typedef real8 realN;
#define UNPACK_N(arr, base, v) do { arr[base] = (v).s0; arr[(base) + 1] = (v).s1; \
    arr[(base) + 2] = (v).s2; arr[(base) + 3] = (v).s3; arr[(base) + 4] = (v).s4; \
    arr[(base) + 5] = (v).s5; arr[(base) + 6] = (v).s6; arr[(base) + 7] = (v).s7; } while (0)
#define PACK_N(arr, base) ((real8)(arr[base], arr[(base) + 1], arr[(base) + 2], arr[(base) + 3], \
    arr[(base) + 4], arr[(base) + 5], arr[(base) + 6], arr[(base) + 7]))
#endif

/* Stores the components of a vector st elements apart (a transposed store into local memory). */
#if VWM == 1
#define SCATTER_M(p, st, v) (p)[0] = (v)
#elif VWM == 2
#define SCATTER_M(p, st, v) do { (p)[0] = (v).s0; (p)[st] = (v).s1; } while (0)
#elif VWM == 4
#define SCATTER_M(p, st, v) do { (p)[0] = (v).s0; (p)[st] = (v).s1; (p)[2 * (st)] = (v).s2; \
    (p)[3 * (st)] = (v).s3; } while (0)
#elif VWM == 8
#define SCATTER_M(p, st, v) do { (p)[0] = (v).s0; (p)[st] = (v).s1; (p)[2 * (st)] = (v).s2; \
    (p)[3 * (st)] = (v).s3; (p)[4 * (st)] = (v).s4; (p)[5 * (st)] = (v).s5; (p)[6 * (st)] = (v).s6; \
    (p)[7 * (st)] = (v).s7; } while (0)
#endif
#if VWN == 1
#define SCATTER_N(p, st, v) (p)[0] = (v)
#elif VWN == 2
#define SCATTER_N(p, st, v) do { (p)[0] = (v).s0; (p)[st] = (v).s1; } while (0)
#elif VWN == 4
#define SCATTER_N(p, st, v) do { (p)[0] = (v).s0; (p)[st] = (v).s1; (p)[2 * (st)] = (v).s2; \
    (p)[3 * (st)] = (v).s3; } while (0)
#elif VWN == 8
#define SCATTER_N(p, st, v) do { (p)[0] = (v).s0; (p)[st] = (v).s1; (p)[2 * (st)] = (v).s2; \
    (p)[3 * (st)] = (v).s3; (p)[4 * (st)] = (v).s4; (p)[5 * (st)] = (v).s5; (p)[6 * (st)] = (v).s6; \
    (p)[7 * (st)] = (v).s7; } while (0)
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

/* Global -> registers for the tile starting at k0. */
#if DIRECT
#define LOAD_TILES(k0)                                                                          \
    do {                                                                                        \
        _Pragma("unroll")                                                                       \
        for (int l = 0; l < A_LOADS; l++) {                                                     \
            const int q = tid + l * NTHREADS;                                                   \
            const int r = A_KMAJOR ? q / MWG : q % KWG;                                         \
            const int c = A_KMAJOR ? q % MWG : q / KWG;                                         \
            const int gk = (k0) + r, gi = m0 + c;                                               \
            ra[l] = (gk < K && gi < M)                                                          \
                ? A[A_KMAJOR ? (idx_t)gk * ld_a + gi : (idx_t)gi * ld_a + gk] : ZERO;           \
        }                                                                                       \
        _Pragma("unroll")                                                                       \
        for (int l = 0; l < B_LOADS; l++) {                                                     \
            const int q = tid + l * NTHREADS;                                                   \
            const int r = B_KMAJOR ? q / NWG : q % KWG;                                         \
            const int c = B_KMAJOR ? q % NWG : q / KWG;                                         \
            const int gk = (k0) + r, gj = n0 + c;                                               \
            rb[l] = (gk < K && gj < N)                                                          \
                ? B[B_KMAJOR ? (idx_t)gk * ld_b + gj : (idx_t)gj * ld_b + gk] : ZERO;           \
        }                                                                                       \
    } while (0)
#define STORE_TILES(buf)                                                                        \
    do {                                                                                        \
        _Pragma("unroll")                                                                       \
        for (int l = 0; l < A_LOADS; l++) {                                                     \
            const int q = tid + l * NTHREADS;                                                   \
            const int r = A_KMAJOR ? q / MWG : q % KWG;                                         \
            const int c = A_KMAJOR ? q % MWG : q / KWG;                                         \
            als[((buf) * KWG + r) * LDAS + c] = ra[l];                                          \
        }                                                                                       \
        _Pragma("unroll")                                                                       \
        for (int l = 0; l < B_LOADS; l++) {                                                     \
            const int q = tid + l * NTHREADS;                                                   \
            const int r = B_KMAJOR ? q / NWG : q % KWG;                                         \
            const int c = B_KMAJOR ? q % NWG : q / KWG;                                         \
            bls[((buf) * KWG + r) * LDBS + c] = rb[l];                                          \
        }                                                                                       \
    } while (0)
#else
/* Fast path. A K-major operand is loaded as vectors along M (N) and stored as they are; one stored
 * the other way round (A[i*lda + kk]) is loaded as vectors along K and scattered transposed into
 * local memory, which saves the host a transposing pre-pass for the common row-major NN case. */
#if A_KMAJOR
#define A_GLOBAL(q, k0) Av[(idx_t)((k0) + (q) / (MWG / VWM)) * ld_a + m0 / VWM + (q) % (MWG / VWM)]
#define A_LOCAL(buf, q, v) alm[((buf) * KWG + (q) / (MWG / VWM)) * (LDAS / VWM) + (q) % (MWG / VWM)] = (v)
#else
#define A_GLOBAL(q, k0) Av[(idx_t)(m0 + (q) / (KWG / VWM)) * ld_a + (k0) / VWM + (q) % (KWG / VWM)]
#define A_LOCAL(buf, q, v) SCATTER_M(als + ((buf) * KWG + (q) % (KWG / VWM) * VWM) * LDAS + (q) / (KWG / VWM), LDAS, v)
#endif
#if B_KMAJOR
#define B_GLOBAL(q, k0) Bv[(idx_t)((k0) + (q) / (NWG / VWN)) * ld_b + n0 / VWN + (q) % (NWG / VWN)]
#define B_LOCAL(buf, q, v) blm[((buf) * KWG + (q) / (NWG / VWN)) * (LDBS / VWN) + (q) % (NWG / VWN)] = (v)
#else
#define B_GLOBAL(q, k0) Bv[(idx_t)(n0 + (q) / (KWG / VWN)) * ld_b + (k0) / VWN + (q) % (KWG / VWN)]
#define B_LOCAL(buf, q, v) SCATTER_N(bls + ((buf) * KWG + (q) % (KWG / VWN) * VWN) * LDBS + (q) / (KWG / VWN), LDBS, v)
#endif
#define LOAD_TILES(k0)                                                                          \
    do {                                                                                        \
        _Pragma("unroll")                                                                       \
        for (int l = 0; l < A_LOADS; l++)                                                       \
            ra[l] = A_GLOBAL(tid + l * NTHREADS, k0);                                           \
        _Pragma("unroll")                                                                       \
        for (int l = 0; l < B_LOADS; l++)                                                       \
            rb[l] = B_GLOBAL(tid + l * NTHREADS, k0);                                           \
    } while (0)
#define STORE_TILES(buf)                                                                        \
    do {                                                                                        \
        _Pragma("unroll")                                                                       \
        for (int l = 0; l < A_LOADS; l++)                                                       \
            A_LOCAL(buf, tid + l * NTHREADS, ra[l]);                                            \
        _Pragma("unroll")                                                                       \
        for (int l = 0; l < B_LOADS; l++)                                                       \
            B_LOCAL(buf, tid + l * NTHREADS, rb[l]);                                            \
    } while (0)
#endif

/* One KWG-deep step of the outer product from local buffer buf. A work-item's rows are
 * (mv*MDIMC + tid_m)*VWM + s: neighbouring work-items read neighbouring vectors (no conflicts). */
#define COMPUTE_TILE(buf)                                                                       \
    do {                                                                                        \
        for (int kk = 0; kk < KWG; kk += KWI) {                                                 \
            _Pragma("unroll")                                                                   \
            for (int ki = 0; ki < KWI; ki++) {                                                  \
                const int kr = (buf) * KWG + kk + ki;                                           \
                real a[MWI], b[NWI];                                                            \
                _Pragma("unroll")                                                               \
                for (int mv = 0; mv < MWI / VWM; mv++) {                                        \
                    const realM v = alm[kr * (LDAS / VWM) + mv * MDIMC + tid_m];                \
                    UNPACK_M(a, mv * VWM, v);                                                   \
                }                                                                               \
                _Pragma("unroll")                                                               \
                for (int nv = 0; nv < NWI / VWN; nv++) {                                        \
                    const realN v = blm[kr * (LDBS / VWN) + nv * NDIMC + tid_n];                \
                    UNPACK_N(b, nv * VWN, v);                                                   \
                }                                                                               \
                _Pragma("unroll")                                                               \
                for (int mi = 0; mi < MWI; mi++) {                                              \
                    _Pragma("unroll")                                                           \
                    for (int ni = 0; ni < NWI; ni++)                                            \
                        acc[mi][ni] = MAD(a[mi], b[ni], acc[mi][ni]);                           \
                }                                                                               \
            }                                                                                   \
        }                                                                                       \
    } while (0)

/* Arguments: M, N, K are the true sizes (K may be 0: then C = beta*C and A, B are not read).
 * Offsets, leading dimensions and batch strides are in elements; on the fast path the host
 * guarantees they are multiples of the vector widths, and that A, B cover whole tiles. */
__kernel __attribute__((reqd_work_group_size(NDIMC, MDIMC, 1)))
void gemm_main(const int M, const int N, const int K, const real alpha, const real beta,
               const __global real *restrict A, const ulong a_off, const long lda, const ulong a_stride,
               const __global real *restrict B, const ulong b_off, const long ldb, const ulong b_stride,
               __global real *C, const ulong c_off, const long ldc, const ulong c_stride,
               const int c_vec_ok)
{
    const int tid_n = get_local_id(0), tid_m = get_local_id(1);
    const int tid = tid_m * NDIMC + tid_n;
    const int n0 = get_group_id(0) * NWG, m0 = get_group_id(1) * MWG;
    const ulong bat = get_global_id(2);
    A += a_off + bat * a_stride;
    B += b_off + bat * b_stride;
    C += c_off + bat * c_stride;

    __local realM alm[NBUF * KWG * LDAS / VWM];
    __local realN blm[NBUF * KWG * LDBS / VWN];
    __local real *als = (__local real *)alm;   /* scalar views for direct and transposed stores */
    __local real *bls = (__local real *)blm;
#if DIRECT
    const idx_t ld_a = (idx_t)lda, ld_b = (idx_t)ldb;
#else
    const __global realM *Av = (const __global realM *)A;
    const __global realN *Bv = (const __global realN *)B;
    const idx_t ld_a = (idx_t)(lda / VWM), ld_b = (idx_t)(ldb / VWN);
#endif

    real acc[MWI][NWI];
    _Pragma("unroll")
    for (int mi = 0; mi < MWI; mi++) {
        _Pragma("unroll")
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
        LOAD_TILES(0);
        STORE_TILES(0);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int t = 0; t < ktiles; t++) {
        const int buf = t & 1;
        const int more = t + 1 < ktiles;
        if (more)
            LOAD_TILES((t + 1) * KWG);
        COMPUTE_TILE(buf);
        if (more)
            STORE_TILES(buf ^ 1);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#else
    for (int t = 0; t < ktiles; t++) {
        LOAD_TILES(t * KWG);
        barrier(CLK_LOCAL_MEM_FENCE);
        STORE_TILES(0);
        barrier(CLK_LOCAL_MEM_FENCE);
        COMPUTE_TILE(0);
    }
#endif

    /* Epilogue: whole tiles with aligned C take vector stores; edges go element by element.
     * beta == 0 never reads C, so NaN or garbage there cannot leak. */
    const int whole = c_vec_ok && m0 + MWG <= M && n0 + NWG <= N;
    const int read_c = beta != ZERO;
    _Pragma("unroll")
    for (int mv = 0; mv < MWI / VWM; mv++) {
        _Pragma("unroll")
        for (int s = 0; s < VWM; s++) {
            const int mi = mv * VWM + s;
            const int row = m0 + (mv * MDIMC + tid_m) * VWM + s;
            _Pragma("unroll")
            for (int nv = 0; nv < NWI / VWN; nv++) {
                const int col = n0 + (nv * NDIMC + tid_n) * VWN;
                if (whole) {
                    __global realN *cp = (__global realN *)(C + (idx_t)row * (idx_t)ldc + col);
                    realN v = alpha * PACK_N(acc[mi], nv * VWN);
                    if (read_c)
                        v += beta * *cp;
                    *cp = v;
                } else if (row < M) {
                    _Pragma("unroll")
                    for (int w = 0; w < VWN; w++) {
                        if (col + w < N) {
                            __global real *cp = C + (idx_t)row * (idx_t)ldc + col + w;
                            real v = alpha * acc[mi][nv * VWN + w];
                            if (read_c)
                                v += beta * *cp;
                            *cp = v;
                        }
                    }
                }
            }
        }
    }
}
