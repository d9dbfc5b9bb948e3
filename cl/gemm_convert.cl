/* gemm_convert.cl — element conversions between storage types, and the operand packing of the
 * mixed-precision GEMM paths.
 *
 * Storage types (SRC, DST): 16 = IEEE half (read and written with vload_half/vstore_half, core OpenCL
 * 1.2: no cl_khr_fp16 needed), 17 = bfloat16 (the high 16 bits of a float, by shifts), 32 = float,
 * 64 = double (needs cl_khr_fp64). Narrowing rounds to nearest even; NaN stays NaN. */

#ifndef SRC
#define SRC 32
#endif
#ifndef DST
#define DST 32
#endif
/* 1: the source stores K as the outer index (element (r, k) at k*ld + r); 0: element (r, k) at r*ld + k. */
#ifndef SRC_KMAJOR
#define SRC_KMAJOR 0
#endif
/* 3xTF32 on wgmma (SRC = DST = 32): each row is written as three runs of Kp words, each value split into a tf32 high
 * part and a tf32 remainder: 1 (A) as lo, hi, hi; 2 (B) as hi, lo, hi, so that one product of depth 3 Kp is
 * A_lo B_hi + A_hi B_lo + A_hi B_hi. 0: no split. With SCALED (3xF16: SRC 32, DST 16; the split_pack kernel) the
 * parts are f16, of the row scaled by a power of two. */
#ifndef SPLIT3
#define SPLIT3 0
#endif
#ifndef SCALED
#define SCALED 0
#endif
#if SPLIT3 && (SRC != 32 || DST != (SCALED ? 16 : 32))
#error "SPLIT3 splits fp32 words into tf32 parts, or (SCALED) into f16 parts"
#endif

#if SRC == 64 || DST == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double val_t;
#else
typedef float val_t;
#endif

static inline val_t load_val(const __global void *p, ulong i)
{
#if SRC == 16
    return vload_half(i, (const __global half *)p);
#elif SRC == 17
    return as_float((uint)((const __global ushort *)p)[i] << 16);
#elif SRC == 64
    return ((const __global double *)p)[i];
#else
    return ((const __global float *)p)[i];
#endif
}

#include "bf16.cl"

static inline void store_val(__global void *p, ulong i, val_t v)
{
#if DST == 16
    vstore_half_rte((float)v, i, (__global half *)p);
#elif DST == 17
    ((__global ushort *)p)[i] = to_bf16((float)v);
#elif DST == 64
    ((__global double *)p)[i] = v;
#else
    ((__global float *)p)[i] = (float)v;
#endif
}

/* dst[d_off + i] = convert(src[s_off + i]) for i < n: the public clf_convert. */
__kernel void convert_elems(const ulong n, const __global void *src, const ulong s_off, __global void *dst,
                            const ulong d_off)
{
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))
        store_val(dst, d_off + i, load_val(src, s_off + i));
}

/* Packing moves raw bits when both sides have the same type (the matrix units' own input type: the common
 * case), else converts each element through val_t. A work-item writes EPW elements: 16 bytes. */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#if DST == 64
#define EPW 2
#elif DST == 32
#define EPW 4
#else
#define EPW 8
#endif
#if SRC == DST && (SRC == 16 || SRC == 17)
#define ELEM ushort
#elif SRC == DST && SRC == 64
#define ELEM ulong
#elif SRC == DST
#define ELEM uint
#endif
#if SRC == DST
typedef ELEM elem_t;
typedef CAT(ELEM, EPW) elemv_t;
#define PACK_LOAD(p, i) (((const __global elem_t *)(p))[i])
#define PACK_STORE(p, i, v) (((__global elem_t *)(p))[i] = (v))
#else
typedef val_t elem_t;
#define PACK_LOAD(p, i) load_val(p, i)
#define PACK_STORE(p, i, v) store_val(p, i, v)
#endif

/* EPW elements v of a packed row from element at (k of Kp in the row): one vector store where aligned. */
static inline void put_run(__global void *dst, const ulong at, const elem_t *v, const long k, const long Kp)
{
#if SRC == DST
    if (k + EPW <= Kp && at % EPW == 0) {
        *(__global elemv_t *)((__global elem_t *)dst + at) = CAT(vload, EPW)(0, v);
        return;
    }
#endif
    for (int j = 0; j < EPW && k + j < Kp; j++)
        PACK_STORE(dst, at + j, v[j]);
}

#if SPLIT3 && !SCALED
/* fp32 bits to tf32 rounded to nearest, ties away from zero (as cvt.rna), low 13 bits zero, so that the units'
 * truncation of what they read changes nothing. A finite value that would round to inf is truncated instead. */
static inline uint tf32_rna(const uint u)
{
    const uint r = (u + 0x1000u) & 0xffffe000u;
    return (r & 0x7f800000u) == 0x7f800000u ? u & 0xffffe000u : r;
}

/* x = hi + lo to 22 bits; inf and NaN go whole into hi (NaN keeping a high mantissa bit), lo 0. */
static inline void split_tf32(const uint x, uint *hi, uint *lo)
{
    if ((x & 0x7f800000u) == 0x7f800000u) {
        *hi = (x & 0x7fffffu) ? x | 0x400000u : x;
        *lo = 0;
        return;
    }
    *hi = tf32_rna(x);
    *lo = tf32_rna(as_uint(as_float(x) - as_float(*hi)));
}
#endif

#define PK (8 * EPW)
#define PR 32
/* The EPW elements of row r0 + tid / 8 from element k0 + tid % 8 * EPW of the source (zeros past R x K) into v, for a
 * work-group of 32 x 8; a source that runs along R goes through the local tile, so that its reads coalesce too. */
#if SRC_KMAJOR
typedef __local elem_t (*tile_t)[PR + 1];
#define PIECE_TILE __local elem_t tile[PK][PR + 1]   /* in the kernel: local arrays live at its outermost scope */
#else
typedef __local elem_t *tile_t;
#define PIECE_TILE __local elem_t *tile = 0
#endif
static inline void load_piece(const __global void *src, const ulong sb, const long ld, const long R, const long K,
                              const long r0, const long k0, tile_t tile, elem_t *v)
{
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1), tid = ly * 32 + lx;
    const int rr = tid / 8, kk = tid % 8 * EPW;
#if SRC_KMAJOR
    barrier(CLK_LOCAL_MEM_FENCE);   /* a previous piece's reads of the tile are done */
    for (int i = ly; i < PK; i += 8) {
        const long kq = k0 + i, rq = r0 + lx;
        tile[i][lx] = kq < K && rq < R ? PACK_LOAD(src, sb + (ulong)(kq * ld + rq)) : (elem_t)0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < EPW; j++)
        v[j] = tile[kk + j][rr];
#else
    const long r = r0 + rr, k = k0 + kk;
    const ulong from = sb + (ulong)(r * ld + k);
#if SRC == DST
    if (r < R && k + EPW <= K && from % EPW == 0) {
        CAT(vstore, EPW)(*(const __global elemv_t *)((const __global elem_t *)src + from), 0, v);
        return;
    }
#elif SRC == 32 && EPW % 4 == 0
    if (r < R && k + EPW <= K && from % 4 == 0) {   /* 16-byte loads */
        for (int j = 0; j < EPW; j += 4)
            vstore4(*(const __global float4 *)((const __global float *)src + from + j), 0, v + j);
        return;
    }
#endif
    for (int j = 0; j < EPW; j++)
        v[j] = r < R && k + j < K ? PACK_LOAD(src, from + j) : (elem_t)0;
#endif
}

/* One operand of a batch, packed as Rp rows of Kp elements (K contiguous, rows ldd apart), zero beyond
 * R x K. A work-group of 32 x 8 work-items packs a tile of PR rows by PK elements of K; each work-item
 * writes EPW consecutive elements of one row, as one vector store where the destination is aligned (the
 * f16 pack of one element a work-item at a time ran at 1.4 TB/s on the H200). A source that runs along R
 * goes through local memory, so that its reads coalesce too. The host's grid: PK / EPW x 8 work-items a
 * tile. */
__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void convert_pack(const long R, const long K, const long Rp, const long Kp, const __global void *src,
                  const ulong s_off, const long ld, const ulong s_stride, __global void *dst, const ulong d_off,
                  const long ldd, const ulong d_stride)
{
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1), tid = ly * 32 + lx;
    const long k0 = (long)get_group_id(0) * PK, r0 = (long)get_group_id(1) * PR;
    const int rr = tid / 8, kk = tid % 8 * EPW;
    const long r = r0 + rr, k = k0 + kk;
    const ulong sb = s_off + get_global_id(2) * s_stride, db = d_off + get_global_id(2) * d_stride;
    elem_t v[EPW];
    PIECE_TILE;
    load_piece(src, sb, ld, R, K, r0, k0, tile, v);
    if (r >= Rp || k >= Kp)
        return;
    const ulong at = db + (ulong)(r * ldd + k);
#if SPLIT3 && !SCALED
    elem_t run1[EPW], run2[EPW], hi[EPW];
    for (int j = 0; j < EPW; j++) {
        uint lo;
        split_tf32(v[j], &hi[j], &lo);
        /* inf and NaN in the third run only (hi times hi), as 3xF16's split: in a cross term they would meet the
         * partner's remainder, 0 wherever the partner is a tf32 value, and inf x 0 is NaN where fp32 gives inf */
        const uint h = (hi[j] & 0x7f800000u) == 0x7f800000u ? 0u : hi[j];
        run1[j] = SPLIT3 == 1 ? lo : h;
        run2[j] = SPLIT3 == 1 ? h : lo;
    }
    put_run(dst, at, run1, k, Kp);
    put_run(dst, at + (ulong)Kp, run2, k, Kp);
    put_run(dst, at + 2 * (ulong)Kp, hi, k, Kp);
#else
    put_run(dst, at, v, k, Kp);
#endif
}

#if SCALED
/* x (finite, |x| < 65520) rounded to the nearest f16 (ties to even), as a float: 11 significant bits, or a multiple
 * of 2^-24 below 2^-14 (f16's subnormals). By bits: a round trip through vstore_half went by private memory and
 * made the pass compute-bound (H200: 770 GB/s). */
static inline float f16_round(const float x)
{
    if (fabs(x) < 0x1p-14f)
        return rint(x * 0x1p24f) * 0x1p-24f;
    const uint u = as_uint(x);
    return as_float((u + 0xfffu + ((u >> 13) & 1u)) & 0xffffe000u);
}

/* 2^e for e in [-252, 254], as two factors that are normal floats: x * 2^e = (x * p[0]) * p[1], exact wherever
 * the result is normal. */
static inline float2 pow2_pair(const int e)
{
    const int h = e >> 1;
    return (float2)(as_float((uint)(127 + h) << 23), as_float((uint)(127 + e - h) << 23));
}

/* The f16 bits of x, which is an f16 value (f16_round's), inf or NaN. By bits: vstore_half_rte is a software
 * conversion on NVIDIA's driver, and with it the pass ran at 770 GB/s on the H200. */
static inline ushort f16_bits(const float x)
{
    const uint u = as_uint(x), sign = (u >> 16) & 0x8000u, ex = (u >> 23) & 0xffu;
    if (ex == 0xffu)
        return (ushort)(sign | 0x7c00u | ((u & 0x7fffffu) ? 0x200u : 0u));
    if (fabs(x) < 0x1p-14f)
        return (ushort)(sign | (uint)(fabs(x) * 0x1p24f));
    return (ushort)(sign | (ex - 112u) << 10 | ((u >> 13) & 0x3ffu));
}

/* A run of EPW f16 values (f16_round's, inf or NaN) from element `at` (k of Kp in the row): one vector store where
 * aligned. */
static inline void put_half_run(__global void *dst, const ulong at, const float *v, const long k, const long Kp)
{
    ushort b[EPW];
    for (int j = 0; j < EPW; j++)
        b[j] = f16_bits(v[j]);
    if (k + EPW <= Kp && at % EPW == 0) {
        *(__global CAT(ushort, EPW) *)((__global ushort *)dst + at) = CAT(vload, EPW)(0, b);
        return;
    }
    for (int j = 0; j < EPW && k + j < Kp; j++)
        ((__global ushort *)dst)[at + j] = b[j];
}

#include "split_scale.cl"

/* 3xF16's split of the EPW elements v of row r from k (of Kp), scaled by 2^e, into the row's three runs at
 * db + r * ldd. */
static inline void split_put(__global void *dst, const ulong db, const long ldd, const long Kp, const long r,
                             const long k, const float *v, const int e)
{
    const float2 p = pow2_pair(e);   /* e in [-113, 163] */
    float run1[EPW], run2[EPW], run3[EPW];
    for (int j = 0; j < EPW; j++) {
        const float x = v[j] * p.x * p.y;
        if (!isfinite(x)) {
            run1[j] = run2[j] = 0.0f, run3[j] = x;
            continue;
        }
        const float hi = f16_round(x), lo = f16_round(x - hi);
        run1[j] = SPLIT3 == 1 ? lo : hi;
        run2[j] = SPLIT3 == 1 ? hi : lo;
        run3[j] = hi;
    }
    const ulong at = db + (ulong)(r * ldd + k);
    put_half_run(dst, at, run1, k, Kp);
    put_half_run(dst, at + (ulong)Kp, run2, k, Kp);
    put_half_run(dst, at + 2 * (ulong)Kp, run3, k, Kp);
}

/* 3xF16 (SPLIT3 with f16 parts), the convert_pack grid run twice. pass 0: each row's largest finite magnitude, as
 * float bits (which order as the magnitudes do), atomic_max'ed into big[e_off + batch * e_stride + r] (zeroed by the
 * host). pass 1: the row scaled by 2^row_exponent (exact) and split into an f16 high part and an f16 remainder, the
 * pair holding 22 bits of each element above 2^-24 after scaling (below it the remainder, then the value, is lost:
 * 2^-38 of the row's largest), written as three runs like SPLIT3's. inf and NaN go into the third run only (hi times
 * hi), zeros into the others, so that they meet the other operand's high part alone: inf times a remainder of 0
 * would be NaN. */
__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void split_pack(const long R, const long K, const long Rp, const long Kp, const __global void *src, const ulong s_off,
                const long ld, const ulong s_stride, __global void *dst, const ulong d_off, const long ldd,
                const ulong d_stride, __global uint *big, const ulong e_off, const ulong e_stride, const int pass)
{
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1), tid = ly * 32 + lx;
    const long k0 = (long)get_group_id(0) * PK, r0 = (long)get_group_id(1) * PR;
    const int rr = tid / 8, kk = tid % 8 * EPW;
    const long r = r0 + rr, k = k0 + kk;
    const ulong sb = s_off + get_global_id(2) * s_stride, db = d_off + get_global_id(2) * d_stride;
    __global uint *const bp = big + e_off + get_global_id(2) * e_stride;
    float v[EPW];
    PIECE_TILE;   /* elem_t is float here */
    __local float part[256];
    load_piece(src, sb, ld, R, K, r0, k0, tile, v);
    /* pass 0: the row's largest finite magnitude. The barrier is outside any branch and the maximum is read back
     * from local memory: PoCL put the rows' maxima one row off otherwise. */
    float m = 0.0f;
    for (int j = 0; j < EPW; j++)
        m = isfinite(v[j]) ? fmax(m, fabs(v[j])) : m;
    part[tid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (pass == 0) {
        if (tid % 8 == 0) {
            float row_max = part[tid];
            for (int j = 1; j < 8; j++)
                row_max = fmax(row_max, part[tid + j]);
            if (r < R && row_max > 0.0f)
                atomic_max(bp + r, as_uint(row_max));
        }
    } else if (r < Rp && k < Kp) {
        split_put(dst, db, ldd, Kp, r, k, v, row_exponent(r < R ? bp[r] : 0u));
    }
}
#endif

/* ---- CPUs: long contiguous runs --------------------------------------------------------------------------
 * On a CPU driver (PoCL) the kernels above run one work-item after another, each scattered over the buffer
 * (the grid-stride loop) or a few elements of a 32 x 8 tile: 0.6-1.4 GB/s on two cores. Here each work-item
 * takes a whole run of consecutive elements, eight at a time with vector loads and stores, which the CPU's
 * vector units take. */

static inline float8 load8(const __global void *p, ulong i)
{
#if SRC == 16
    return vload_half8(0, (const __global half *)p + i);
#elif SRC == 17
    return as_float8(convert_uint8(vload8(0, (const __global ushort *)p + i)) << 16);
#elif SRC == 64
    return convert_float8(vload8(0, (const __global double *)p + i));
#else
    return vload8(0, (const __global float *)p + i);
#endif
}

static inline void store8(__global void *p, ulong i, float8 v)
{
#if DST == 16
    vstore_half8_rte(v, 0, (__global half *)p + i);
#elif DST == 17
    vstore8(to_bf16x8(v), 0, (__global ushort *)p + i);
#elif DST == 64
    vstore8(convert_double8(v), 0, (__global double *)p + i);
#else
    vstore8(v, 0, (__global float *)p + i);
#endif
}

/* Elements [b, e) of src (from s_off) converted to dst (from d_off). fp64 on both sides keeps its precision. */
static inline void convert_run(const __global void *src, ulong s_off, __global void *dst, ulong d_off, ulong b,
                               ulong e)
{
    ulong i = b;
#if SRC != 64 || DST != 64
    for (; i + 8 <= e; i += 8)
        store8(dst, d_off + i, load8(src, s_off + i));
#endif
    for (; i < e; i++)
        store_val(dst, d_off + i, load_val(src, s_off + i));
}

/* clf_convert on CPUs: work-item g converts elements [g * chunk, (g + 1) * chunk) of the n. */
__kernel void convert_chunks(const ulong n, const ulong chunk, const __global void *src, const ulong s_off,
                             __global void *dst, const ulong d_off)
{
    const ulong b = get_global_id(0) * chunk, e = b + chunk < n ? b + chunk : n;
    if (b < n)
        convert_run(src, s_off, dst, d_off, b, e);
}

/* convert_pack's job on CPUs, for sources whose rows run along K (no transpose): work-item (r, batch item)
 * converts row r's K elements and zeroes the row's padding up to Kp; rows R..Rp-1 are zero. */
__kernel void convert_rows(const long R, const long K, const long Rp, const long Kp, const __global void *src,
                           const ulong s_off, const long ld, const ulong s_stride, __global void *dst,
                           const ulong d_off, const long ldd, const ulong d_stride)
{
    const long r = (long)get_global_id(0);
    if (r >= Rp)
        return;
    const ulong sb = s_off + get_global_id(1) * s_stride + (ulong)(r * ld);
    const ulong db = d_off + get_global_id(1) * d_stride + (ulong)(r * ldd);
    long k = 0;
    if (r < R) {
        convert_run(src, sb, dst, db, 0, (ulong)K);
        k = K;
    }
    for (; k < Kp; k++)
        store_val(dst, db + (ulong)k, (val_t)0);
}
