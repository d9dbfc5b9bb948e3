/* gemv.cl — matrix-vector products y = alpha*A*x + beta*y, and thin products (NV right-hand vectors at
 * once: A is read once for all of them). Memory-bound: every element of A is loaded once, with vector loads
 * along A's contiguous dimension, consecutive work-items on consecutive vectors.
 *
 * The host describes A as L lines of W contiguous elements, lda apart: element (l, w) is
 * A[a_off + l*lda + w]. Vector v (< NV) of x starts xvs elements after vector 0, its entries incx apart; y
 * likewise with yvs and incy. Matrix b of a batch (dimension 2 of the grid) adds b*a_bs, b*x_bs and b*y_bs.
 * Three kernels; gemv_tile (several vectors, either layout: -DTILE=1, described where it is defined) and two by
 * which dimension is reduced:
 *   gemv_rows  y[l] = sum_w A(l, w) x[w]  (the contiguous dimension is reduced): a team of TEAM
 *              work-items per line (RPG lines per work-group) strides along it with VW-wide loads, and
 *              the team's sums meet in local memory; a line whose start is not VW-aligned is read with
 *              scalar loads up to the first aligned element, then with aligned vectors;
 *   gemv_cols  y[w] = sum_l A(l, w) x[l]  (the contiguous dimension is the output): each work-item owns
 *              CW vectors of VW consecutive outputs, TX*VW apart, so that TX work-items side by side
 *              load consecutive vectors (GPUs) or one work-item a long contiguous run (CPUs: TX 1);
 *              TY work-items go along the lines, and their sums meet in local memory.
 * With XL > 0 (several vectors), the vectors' entries that a work-group is about to use are staged in local
 * memory, XL lines (gemv_cols: one line's NV entries side by side, read as 4-vectors that all work-items of a
 * line share) or XL columns (gemv_rows: each vector's run of entries contiguous, read as VW-vectors beside
 * A's): each entry of x is then fetched from global memory once per work-group instead of once per line or
 * work-item, and the reads of a line's vectors cost as many local accesses as a 4-vector of A does.
 * When there are too few outputs to fill the device, the reduced dimension is split into slices of
 * `chunk` (dimension 1 of the grid): each slice writes its raw sum to P[(j*nsplit + s)*nout + i] (j: matrix
 * times NV plus vector) and gemv_reduce adds the slices and applies alpha and beta (two passes, no
 * atomics). With one slice (P unused, may be NULL) the kernels apply alpha and beta themselves. beta == 0
 * never reads y, so NaN there cannot leak. */

/* The GEMM epilogue's store hook (cl/common.cl explains it): empty without an epilogue. */
#ifndef CLF_EPI
#define CLF_EPI 0
#define CLF_EPI_DECL
#define CLF_EPI_PASS
#endif
#ifndef EPI_ROWS
#define EPI_ROWS 1    /* with a GEMM's epilogue: y is a column of C (element i of vector v is (i, v)), else a row */
#endif

#ifndef PRECISION
#define PRECISION 32
#endif
#ifndef VW
#define VW 4          /* elements per vector load of A: 1, 2, 4, 8 or 16 */
#endif
#ifndef LU
#define LU 4          /* vector loads in flight per work-item (unrolled) */
#endif
#ifndef NV
#define NV 1          /* right-hand vectors per matrix, 1..16: NV sums per output kept in registers */
#endif
#ifndef TEAM
#define TEAM 64       /* gemv_rows: work-items per line, a power of two */
#endif
#ifndef RPG
#define RPG 4         /* gemv_rows: teams per work-group */
#endif
#ifndef RPT
#define RPT 1         /* gemv_rows: consecutive lines per work-item (they share the loads of x) */
#endif
#ifndef X_NVEC
#define X_NVEC 0      /* gemv_rows: 1 when xvs == 1 and NV is even: a column's NV entries in NV/NVW vector loads */
#endif
#ifndef NVW
#define NVW 2         /* with X_NVEC: the largest of 16, 8, 4, 2 that divides NV */
#endif
#ifndef TX
#define TX 64         /* gemv_cols: work-items along the outputs */
#endif
#ifndef TY
#define TY 4          /* gemv_cols: work-items along the lines, a power of two */
#endif
#ifndef CW
#define CW 1          /* gemv_cols: vectors of outputs per work-item, TX*VW elements apart */
#endif
#ifndef ALIGNED
#define ALIGNED 0     /* 1: a_off, lda and a_bs are multiples of VW, so every vector of A is VW-aligned */
#endif
#ifndef X_UNIT
#define X_UNIT 0      /* gemv_rows: 1 when incx == 1 (x is read with vector loads too) */
#endif
#ifndef XL
#define XL 0          /* > 0: the vectors' entries of XL lines (cols) or columns (rows) are staged in local memory */
#endif
#ifndef X_VFAST
#define X_VFAST 0     /* staging: consecutive work-items fetch consecutive vectors (xvs < incx), else consecutive entries */
#endif
#ifndef RWG
#define RWG 64        /* gemv_reduce: work-group size */
#endif
#ifndef RCH
#define RCH 1         /* sums per work-item that meet in local memory at once (several vectors or lines) */
#endif

#if PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define REAL double   /* a macro, so that vector type names can be pasted from it */
#define ZERO 0.0
#else
#define REAL float
#define ZERO 0.0f
#endif
typedef REAL real;

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#if VW == 1
typedef real realv;
#define VLOAD(p) (*(p))
#else
typedef CAT(REAL, VW) realv;
#define VLOAD(p) CAT(vload, VW)(0, p)
#endif
typedef CAT(REAL, 4) real4;
#define NVP ((NV + 3) / 4 * 4)   /* gemv_cols staging: a line's NV entries padded to whole 4-vectors */
#define XLP (XL + VW)            /* gemv_rows staging: a vector's run of XL entries, padded against bank conflicts */
#if XL && X_NVEC
#error "XL and X_NVEC exclude each other: staged entries are read per vector"
#endif
/* Storage of A, the vectors x and y: A_STORE, X_STORE, Y_STORE 0 as `real`, 16 IEEE half, 17 bfloat16 (fp32
 * products only). 16-bit elements are widened as they are loaded and y is rounded to nearest even as it is
 * stored, so a typed thin product streams half the bytes and needs no conversion launches. astore, xstore,
 * ystore: the element types. LOAD_AV: an aligned vector of A (the rows kernel aligns its own, see row_part);
 * A_VLOAD: any vector; A_AT(p, i): element i; X_AT, X_VLOAD likewise for x; Y_AT / Y_PUT: one element of y. */
#ifndef A_STORE
#define A_STORE 0
#endif
#ifndef X_STORE
#define X_STORE 0
#endif
#ifndef Y_STORE
#define Y_STORE 0
#endif
#if A_STORE || X_STORE || Y_STORE
#define CLF_CAT(a, b) CAT(a, b)
#include "bf16.cl"
#include "half_io.cl"
/* W_AT_<code>(p, i): element i of a 16-bit buffer as a float; W_VLOAD_<code>(p): VW of them (any alignment),
 * W_VLOADA_<code>(p): VW of them from an aligned address. IEEE half vectors are loaded as 16-bit integers and
 * widened by h2f, as bfloat16 is: on the H200 a thin product's vloada_half4 ran at a third of the bfloat16
 * loads' speed, and PoCL's vload_half8 faulted on a 2-byte aligned address (x86-64, PoCL 3.1). On NVIDIA h2f is
 * the hardware's conversion (CLF_PTX_CVT). */
#define W_AT_16(p, i) vload_half(i, (const __global half *)(p))
#define W_AT_17(p, i) bf16_to_f32((p)[i])
#if VW == 1
#define W_VLOAD_16(p) W_AT_16(p, 0)
#define W_VLOAD_17(p) W_AT_17(p, 0)
#define W_VLOADA_16(p) W_AT_16(p, 0)
#define W_VLOADA_17(p) W_AT_17(p, 0)
#else
#define W_VLOAD_16(p) h2f(CAT(vload, VW)(0, p))
#define W_VLOAD_17(p) CLF_BF16_LOADV(CAT(vload, VW)(0, p))
#define W_VLOADA_16(p) h2f(*(const __global CAT(ushort, VW) *)(p))
#define W_VLOADA_17(p) CLF_BF16_LOADV(*(const __global CAT(ushort, VW) *)(p))
#endif
#endif
#if A_STORE
typedef ushort astore;
#define LOAD_AV CAT(W_VLOADA_, A_STORE)
#define A_VLOAD CAT(W_VLOAD_, A_STORE)
#define A_AT CAT(W_AT_, A_STORE)
#else
typedef real astore;
#define LOAD_AV(p) (*(const __global realv *)(p))
#define A_VLOAD(p) VLOAD(p)
#define A_AT(p, i) ((p)[i])
#endif
#if X_STORE
typedef ushort xstore;
#define X_AT CAT(W_AT_, X_STORE)
#define X_VLOAD CAT(W_VLOAD_, X_STORE)
#else
typedef real xstore;
#define X_AT(p, i) ((p)[i])
#define X_VLOAD(p) VLOAD(p)
#endif
#if X_STORE && X_NVEC
#error "X_NVEC loads the vectors as reals"
#endif
#if Y_STORE
typedef ushort ystore;
#define Y_AT(p) CAT(W_AT_, Y_STORE)(p, 0)
#if Y_STORE == 16
#define Y_PUT(p, v) vstore_half_rte((v), 0, (__global half *)(p))
#else
#define Y_PUT(p, v) (*(p) = to_bf16(v))
#endif
#else
typedef real ystore;
#define Y_AT(p) (*(p))
#define Y_PUT(p, v) (*(p) = (v))
#endif
#if CLF_EPI && Y_STORE
#error "the epilogue stores y as reals"
#endif

#if ALIGNED || VW == 1
#define LOAD_A(p) LOAD_AV(p)
#else
#define LOAD_A(p) A_VLOAD(p)
#endif

#define INL static inline __attribute__((always_inline))

#if (A_STORE == 16 || X_STORE == 16) && VW > 1 && defined(CLF_PTX_CVT) && CLF_PTX_CVT
/* NVIDIA (the host sets CLF_PTX_CVT there): IEEE half bits to float by the hardware's exact conversion, the two
 * halves of a word at a time: three instructions a pair where the arithmetic below takes about ten an element. */
INL float2 h2f2(uint w)
{
    float lo, hi;
    asm("{ .reg .b16 l, h; mov.b32 {l, h}, %2; cvt.f32.f16 %0, l; cvt.f32.f16 %1, h; }" : "=f"(lo), "=f"(hi) : "r"(w));
    return (float2)(lo, hi);
}

INL realv h2f(CAT(ushort, VW) h)
{
#if VW == 2
    return h2f2(as_uint(h));
#elif VW == 4
    const uint2 w = as_uint2(h);
    return (float4)(h2f2(w.x), h2f2(w.y));
#elif VW == 8
    const uint4 w = as_uint4(h);
    return (float8)(h2f2(w.s0), h2f2(w.s1), h2f2(w.s2), h2f2(w.s3));
#else
    const uint8 w = as_uint8(h);
    return (float16)(h2f2(w.s0), h2f2(w.s1), h2f2(w.s2), h2f2(w.s3), h2f2(w.s4), h2f2(w.s5), h2f2(w.s6), h2f2(w.s7));
#endif
}
#elif (A_STORE == 16 || X_STORE == 16) && VW > 1
typedef CAT(uint, VW) uintv;
/* IEEE half bits to float, exactly: normal numbers rebiased, subnormals scaled, infinities and NaN kept. */
INL realv h2f(CAT(ushort, VW) h)
{
    const uintv u = CAT(convert_uint, VW)(h), em = u & 0x7fffu;
    uintv bits = select((em << 13) + (112u << 23), (em << 13) | 0x7f800000u, em >= (uintv)0x7c00u);
    bits = select(bits, CAT(as_uint, VW)(CAT(convert_float, VW)(em) * 0x1p-24f), em < (uintv)0x400u);
    return CAT(as_float, VW)(bits | ((u & 0x8000u) << 16));
}
#endif

INL real hsum(realv v)
{
#if VW == 1
    return v;
#elif VW == 2
    return v.s0 + v.s1;
#elif VW == 4
    return (v.s0 + v.s1) + (v.s2 + v.s3);
#elif VW == 8
    const CAT(REAL, 4) h = v.lo + v.hi;
    return (h.s0 + h.s1) + (h.s2 + h.s3);
#else
    const CAT(REAL, 8) h8 = v.lo + v.hi;
    const CAT(REAL, 4) h = h8.lo + h8.hi;
    return (h.s0 + h.s1) + (h.s2 + h.s3);
#endif
}

/* VW elements of x starting at element c (x already offset). */
INL realv load_x(const __global xstore *x, int c, ulong incx)
{
#if X_UNIT
    (void)incx;
    return X_VLOAD(x + c);
#else
    real t[VW];
    for (int k = 0; k < VW; k++)
        t[k] = X_AT(x, (ulong)(c + k) * incx);
#if VW == 1
    return t[0];
#else
    return CAT(vload, VW)(0, t);
#endif
#endif
}

/* The one place y is written (y[i] of vector v of matrix b): beta == 0 must not read it. */
INL void store_y(__global ystore *y, real sum, real alpha, real beta, const int b, const int i, const int v CLF_EPI_DECL)
{
    const real val = beta == ZERO ? alpha * sum : alpha * sum + beta * Y_AT(y);
#if CLF_EPI
    clf_epilogue(y, b, EPI_ROWS ? i : v, EPI_ROWS ? v : i, val CLF_EPI_PASS);
#else
    (void)b, (void)i, (void)v;
    Y_PUT(y, val);
#endif
}

/* Copies entries i0 .. i0+n-1 of the NV vectors into local memory, entry i of vector v at dst[v*vs + i*is];
 * all nwi work-items of the group take part (between two barriers). Consecutive work-items fetch neighbours
 * in global memory: consecutive vectors when X_VFAST (their entries of one column adjacent), else consecutive
 * entries of one vector. */
INL void stage_x(__local real *dst, int vs, int is, const __global xstore *x, ulong xvs, ulong incx, int i0, int n,
                 int lid, int nwi)
{
    for (int e = lid; e < n * NV; e += nwi) {
#if X_VFAST
        const int v = e % NV, i = e / NV;
#else
        const int v = e / n, i = e % n;
#endif
        dst[v * vs + i * is] = X_AT(x, v * xvs + (ulong)(i0 + i) * incx);
    }
}

#if RPT > 1 || ALIGNED || XL
#define ROW_AV(p) LOAD_A(p)   /* lines share columns (several a work-item, or staged entries): no per-line alignment */
#else
#define ROW_AV(p) LOAD_AV(p)  /* row_part aligns the line's vectors */
#endif

/* Accumulators of a work-item's line: one NV-wide vector (X_NVEC); NV scalars (several vectors: RPT x NV
 * registers, whatever VW); one VW-wide vector (one vector: no horizontal add until the end). */
#if X_NVEC
typedef CAT(REAL, NVW) realn; /* NVW of the NV vectors' entries at one column, contiguous in x (xvs == 1) */
#define ACC_T realn
#define ACC_N (NV / NVW)
#elif NV > 1
#define ACC_T real
#define ACC_N NV
#else
#define ACC_T realv
#define ACC_N 1
#endif

/* acc + dot(a, b), element by element (the compiler contracts each step to a multiply-add). */
INL real dot_acc(real acc, realv a, realv b)
{
#if VW == 1
    return acc + a * b;
#else
    real ae[VW], be[VW];
    CAT(vstore, VW)(a, 0, ae);
    CAT(vstore, VW)(b, 0, be);
    for (int e = 0; e < VW; e++)
        acc += ae[e] * be[e];
    return acc;
#endif
}

/* acc[r][.] += line r's vector a[r] (at column c) times the vectors of x there. */
INL void row_fma(ACC_T acc[RPT][ACC_N], const realv a[RPT], const __global xstore *x, ulong xvs, ulong incx, int c)
{
#if X_NVEC
    (void)xvs;
    real ae[RPT][VW];
    for (int r = 0; r < RPT; r++) {
#if VW == 1
        ae[r][0] = a[r];
#else
        CAT(vstore, VW)(a[r], 0, ae[r]);
#endif
    }
    for (int e = 0; e < VW; e++)
        for (int h = 0; h < ACC_N; h++) {
            const realn xe = CAT(vload, NVW)(0, x + (ulong)(c + e) * incx + h * NVW);
            for (int r = 0; r < RPT; r++)
                acc[r][h] += ae[r][e] * xe;
        }
#elif NV > 1
    for (int v = 0; v < NV; v++) {
        const realv xv = load_x(x + v * xvs, c, incx);
        for (int r = 0; r < RPT; r++)
            acc[r][v] = dot_acc(acc[r][v], a[r], xv);
    }
#else
    const realv xv = load_x(x, c, incx);
    (void)xvs;
    for (int r = 0; r < RPT; r++)
        acc[r][0] += a[r] * xv;
#endif
}

/* The sums of acc, per line and vector. */
INL void row_sums(real sum[RPT][NV], ACC_T acc[RPT][ACC_N])
{
    for (int r = 0; r < RPT; r++) {
#if X_NVEC
        for (int h = 0; h < ACC_N; h++)
            CAT(vstore, NVW)(acc[r][h], 0, sum[r] + h * NVW);
#elif NV > 1
        for (int v = 0; v < NV; v++)
            sum[r][v] = acc[r][v];
#else
        sum[r][0] = hsum(acc[r][0]);
#endif
    }
}

#if XL
/* row_fma with the vectors' entries staged in local memory (c: the column within the staged run). */
INL void row_fma_staged(ACC_T acc[RPT][ACC_N], const realv a[RPT], const __local realv *xs, int c)
{
    for (int v = 0; v < NV; v++) {
        const realv xv = xs[(v * XLP + c) / VW];
        for (int r = 0; r < RPT; r++)
#if NV > 1
            acc[r][v] = dot_acc(acc[r][v], a[r], xv);
#else
            acc[r][0] += a[r] * xv;
#endif
    }
}
#define XS_PARAM , __local realv *xs, int wc
#define XS_PASS , xs, wc
#define ROW_FMA(acc, a, c) row_fma_staged(acc, a, xs, (c) - wc)
#else
#define XS_PARAM
#define XS_PASS
#define ROW_FMA(acc, a, c) row_fma(acc, a, x, xvs, incx, c)
#endif

/* The whole vectors of the work-item's lines from column c (its first) up to ce, TEAM*VW apart. */
INL void row_run(ACC_T acc[RPT][ACC_N], const __global astore *row, ulong lda, int last, const __global xstore *x,
                 ulong xvs, ulong incx, int c, int ce XS_PARAM)
{
    const int step = TEAM * VW;
    for (; c + (LU - 1) * step + VW <= ce; c += LU * step) {
        realv a[LU][RPT];
        for (int j = 0; j < LU; j++)
            for (int r = 0; r < RPT; r++)
                a[j][r] = ROW_AV(row + min(r, last) * lda + c + j * step);
        for (int j = 0; j < LU; j++)
            ROW_FMA(acc, a[j], c + j * step);
    }
    for (; c + VW <= ce; c += step) {
        realv a[RPT];
        for (int r = 0; r < RPT; r++)
            a[r] = ROW_AV(row + min(r, last) * lda + c);
        ROW_FMA(acc, a, c);
    }
}

/* This work-item's part of dot(line r [c0..c1), x_v[c0..c1)) for its RPT lines (lda apart from row; lines
 * past `last` repeat line `last`, read but never stored) and every vector v; base: the first line's element
 * index in A (its alignment). With one line a work-item, scalar loads up to the line's first VW-aligned
 * element, then aligned vectors; scalar loads after the last whole vector. With XL, every work-item of the
 * group (lid) stages each run of XL columns of the vectors and then reads them from xs. */
INL void row_part(real sum[RPT][NV], const __global astore *row, ulong lda, int last, ulong base,
                  const __global xstore *x, ulong xvs, ulong incx, int c0, int c1, int t
#if XL
                  , __local realv *xs, int lid
#endif
                  )
{
#if ALIGNED || RPT > 1 || XL
    const int head = 0;
    (void)base;
#else
    const int head = min(c1 - c0, (int)((VW - (base + (ulong)c0) % VW) % VW));
#endif
    const int cb = c0 + head, ce = c1 - (c1 - cb) % VW;
    ACC_T acc[RPT][ACC_N];
    for (int r = 0; r < RPT; r++)
        for (int v = 0; v < ACC_N; v++)
            acc[r][v] = (ACC_T)(ZERO);
#if XL
    for (int wc = cb; wc < ce; wc += XL) {   /* the same trips for every work-item: barriers inside */
        const int n = min(XL, ce - wc);
        barrier(CLK_LOCAL_MEM_FENCE);
        stage_x((__local real *)xs, XLP, 1, x, xvs, incx, wc, n, lid, TEAM * RPG);
        barrier(CLK_LOCAL_MEM_FENCE);
        row_run(acc, row, lda, last, x, xvs, incx, wc + t * VW, wc + n, xs, wc);
    }
#else
    row_run(acc, row, lda, last, x, xvs, incx, cb + t * VW, ce);
#endif
    row_sums(sum, acc);
    for (int e = c0 + t; e < cb; e += TEAM)
        for (int r = 0; r < RPT; r++)
            for (int v = 0; v < NV; v++)
                sum[r][v] += A_AT(row, min(r, last) * lda + e) * X_AT(x, v * xvs + (ulong)e * incx);
    for (int e = ce + t; e < c1; e += TEAM)
        for (int r = 0; r < RPT; r++)
            for (int v = 0; v < NV; v++)
                sum[r][v] += A_AT(row, min(r, last) * lda + e) * X_AT(x, v * xvs + (ulong)e * incx);
}

/* Stores the sum of line `line` (when it exists) for vector v: y, or its slice's partial sum when split. */
INL void rows_out(real total, int line, int v, int L, int b, int s, int nsplit, real alpha, real beta,
                  __global ystore *y, ulong yb, ulong incy, ulong yvs, __global real *P CLF_EPI_DECL)
{
    if (line >= L)
        return;
    if (nsplit > 1)
        P[((ulong)(b * NV + v) * (ulong)nsplit + (ulong)s) * (ulong)L + (ulong)line] = total;
    else
        store_y(y + yb + v * yvs + (ulong)line * incy, total, alpha, beta, b, line, v CLF_EPI_PASS);
}

#ifndef TILE
#define TILE 0
#endif
#if !TILE   /* a gemv_tile program builds only that kernel and gemv_reduce */
__kernel __attribute__((reqd_work_group_size(TEAM * RPG, 1, 1)))
void gemv_rows(const int L, const int W, const int chunk, const real alpha, const real beta,
               const __global astore *restrict A, const ulong a_off, const ulong lda,
               const __global xstore *restrict x, const ulong x_off, const ulong incx,
               __global ystore *restrict y, const ulong y_off, const ulong incy, __global real *restrict P,
               const ulong xvs, const ulong yvs, const ulong a_bs, const ulong x_bs, const ulong y_bs CLF_EPI_DECL)
{
    const int lid = (int)get_local_id(0), t = lid % TEAM;
    const int line0 = ((int)get_group_id(0) * RPG + lid / TEAM) * RPT, s = (int)get_group_id(1);
    const int b = (int)get_group_id(2), c0 = s * chunk, c1 = c0 + min(chunk, W - c0), nsplit = (int)get_num_groups(1);
    /* Lines past L repeat the last one (read, never stored): every work-item runs the same loop. */
    const int first = min(line0, L - 1), last = min(RPT, L - first) - 1;
    const ulong base = a_off + (ulong)b * a_bs + (ulong)first * lda;
    real sum[RPT][NV];
#if XL
    __local realv xs[NV * XLP / VW];
    row_part(sum, A + base, lda, last, base, x + x_off + (ulong)b * x_bs, xvs, incx, c0, c1, t, xs, lid);
#else
    row_part(sum, A + base, lda, last, base, x + x_off + (ulong)b * x_bs, xvs, incx, c0, c1, t);
#endif
#if TEAM > 1 && RPT * NV > 1
    /* RPT x NV sums a work-item: RCH of them at a time go to local memory, and the team's work-items each add
     * up the team's entries of one (a padded row per sum: the team's reads fall in different banks). */
#define WGP (TEAM * RPG + 1)
    __local real red[RCH * WGP];
    const int team0 = lid - t;
#pragma unroll
    for (int q0 = 0; q0 < RPT * NV; q0 += RCH) {
#pragma unroll
        for (int j = 0; j < RCH; j++)
            if (q0 + j < RPT * NV)
                red[j * WGP + lid] = sum[(q0 + j) / NV][(q0 + j) % NV];
        barrier(CLK_LOCAL_MEM_FENCE);
        /* A trip count the same for every work-item and no early exit: PoCL and llvmpipe skipped the later
         * trips of a loop starting at t after a barrier, and PoCL those after a `break` here (f64, two rounds). */
        for (int jj = 0; jj < (RCH + TEAM - 1) / TEAM; jj++) {
            const int j = t + jj * TEAM;
            if (j < RCH && q0 + j < RPT * NV) {
                real total = ZERO;
                for (int u = 0; u < TEAM; u++)
                    total += red[j * WGP + team0 + u];
                const int q = q0 + j;
                rows_out(total, line0 + q / NV, q % NV, L, b, s, nsplit, alpha, beta, y, y_off + (ulong)b * y_bs,
                         incy, yvs, P CLF_EPI_PASS);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#elif TEAM > 1
    __local real red[TEAM * RPG];
    red[lid] = sum[0][0];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = TEAM / 2; h > 0; h >>= 1) {
        if (t < h)
            red[lid] += red[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0)
        rows_out(red[lid], line0, 0, L, b, s, nsplit, alpha, beta, y, y_off + (ulong)b * y_bs, incy, yvs,
                 P CLF_EPI_PASS);
#else
    for (int r = 0; r < RPT; r++)
        for (int v = 0; v < NV; v++)
            rows_out(sum[r][v], line0 + r, v, L, b, s, nsplit, alpha, beta, y, y_off + (ulong)b * y_bs, incy, yvs,
                     P CLF_EPI_PASS);
#endif
}

#endif

/* Vector k of this work-item's outputs in the line at p; past the line's end (left: outputs from the
 * work-item's first to the end of the line) zero. full: every vector is whole (a constant after inlining). */
INL realv load_cols(const __global astore *p, int k, int left, const int full)
{
    if (full || left >= (k * TX + 1) * VW)
        return LOAD_A(p + k * TX * VW);
    real t[VW];
    for (int e = 0; e < VW; e++)
        t[e] = k * TX * VW + e < left ? A_AT(p, k * TX * VW + e) : ZERO;
#if VW == 1
    return t[0];
#else
    return CAT(vload, VW)(0, t);
#endif
}

/* The NV vectors' entries at line `line`: from global memory, or (XL) from the staged lines, of which the
 * first is lc: the 4-vectors that every work-item of the line reads alike. */
#if XL
#define XC_PARAM const __local real4 *xs, int lc
#define XC_PASS xs, lc
INL void line_x(real xv[NV], XC_PARAM, int line)
{
    for (int q = 0; q < NVP / 4; q++) {
        const real4 t = xs[(line - lc) * (NVP / 4) + q];
        const real e[4] = {t.s0, t.s1, t.s2, t.s3};
        for (int u = 0; u < 4; u++)
            if (4 * q + u < NV)
                xv[4 * q + u] = e[u];
    }
}
#else
#define XC_PARAM const __global xstore *x, ulong xvs, ulong incx
#define XC_PASS x, xvs, incx
INL void line_x(real xv[NV], XC_PARAM, int line)
{
    for (int v = 0; v < NV; v++)
        xv[v] = X_AT(x, v * xvs + (ulong)line * incx);
}
#endif

/* Sums over lines l, l+TY, ... < l1 of A(line, w) * x_v[line] for this work-item's CW vectors of outputs,
 * which start at a, a + TX*VW, ... (a points into line 0); left: outputs from a to the end of the line. */
INL void col_loop(realv acc[NV][CW], const __global astore *a, ulong lda, XC_PARAM, int l, int l1, int left,
                  const int full)
{
    const __global astore *p = a + (ulong)l * lda;
    const ulong pstep = (ulong)TY * lda;
    for (; l + (LU - 1) * TY < l1; l += LU * TY, p += LU * pstep) {
        realv va[LU][CW];
        for (int j = 0; j < LU; j++)
            for (int k = 0; k < CW; k++)
                va[j][k] = load_cols(p + (ulong)j * pstep, k, left, full);
        for (int j = 0; j < LU; j++) {
            real xv[NV];
            line_x(xv, XC_PASS, l + j * TY);
            for (int v = 0; v < NV; v++)
                for (int k = 0; k < CW; k++)
                    acc[v][k] += va[j][k] * xv[v];
        }
    }
    for (; l < l1; l += TY, p += pstep) {
        realv va[CW];
        for (int k = 0; k < CW; k++)
            va[k] = load_cols(p, k, left, full);
        real xv[NV];
        line_x(xv, XC_PASS, l);
        for (int v = 0; v < NV; v++)
            for (int k = 0; k < CW; k++)
                acc[v][k] += va[k] * xv[v];
    }
}

/* col_loop, specialised for whole vectors (every work-item but the last of a line) and the line's end (left
 * may be 0 or less: a work-item past the end, which loads nothing but takes part in the staging). */
INL void col_part(realv acc[NV][CW], const __global astore *a, ulong lda, XC_PARAM, int l, int l1, int left)
{
    if (left >= ((CW - 1) * TX + 1) * VW)
        col_loop(acc, a, lda, XC_PASS, l, l1, left, 1);
    else
        col_loop(acc, a, lda, XC_PASS, l, l1, left, 0);
}

/* Writes the VW outputs of vector k of this work-item, starting at output w0 (< W), for vector v of matrix b. */
INL void cols_out(realv sum, int w0, int W, int v, int b, int s, int nsplit, real alpha, real beta,
                  __global ystore *y, ulong yv, ulong incy, __global real *P CLF_EPI_DECL)
{
    real out[VW];
#if VW == 1
    out[0] = sum;
#else
    CAT(vstore, VW)(sum, 0, out);
#endif
    for (int e = 0; e < min(VW, W - w0); e++) {
        if (nsplit > 1)
            P[((ulong)(b * NV + v) * (ulong)nsplit + (ulong)s) * (ulong)W + (ulong)(w0 + e)] = out[e];
        else
            store_y(y + yv + (ulong)(w0 + e) * incy, out[e], alpha, beta, b, w0 + e, v CLF_EPI_PASS);
    }
}

#if !TILE
__kernel __attribute__((reqd_work_group_size(TX, TY, 1)))
void gemv_cols(const int L, const int W, const int chunk, const real alpha, const real beta,
               const __global astore *restrict A, const ulong a_off, const ulong lda,
               const __global xstore *restrict x, const ulong x_off, const ulong incx,
               __global ystore *restrict y, const ulong y_off, const ulong incy, __global real *restrict P,
               const ulong xvs, const ulong yvs, const ulong a_bs, const ulong x_bs, const ulong y_bs CLF_EPI_DECL)
{
    const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    const int wt = (int)get_group_id(0) * (TX * VW * CW) + tx * VW, s = (int)get_group_id(1);
    const int b = (int)get_group_id(2), nsplit = (int)get_num_groups(1);
    const int l0 = s * chunk, l1 = l0 + min(chunk, L - l0);
    realv acc[NV][CW];
    for (int v = 0; v < NV; v++)
        for (int k = 0; k < CW; k++)
            acc[v][k] = (realv)(ZERO);
#if XL
    __local real4 xs[XL * NVP / 4];
    for (int lc = l0; lc < l1; lc += XL) {   /* the same trips for every work-item: barriers inside */
        const int n = min(XL, l1 - lc);
        barrier(CLK_LOCAL_MEM_FENCE);
        stage_x((__local real *)xs, 1, NVP, x + x_off + (ulong)b * x_bs, xvs, incx, lc, n, ty * TX + tx, TX * TY);
        barrier(CLK_LOCAL_MEM_FENCE);
        col_part(acc, A + a_off + (ulong)b * a_bs + wt, lda, xs, lc, lc + ty, lc + n, W - wt);
    }
#else
    if (wt < W)
        col_part(acc, A + a_off + (ulong)b * a_bs + wt, lda, x + x_off + (ulong)b * x_bs, xvs, incx, l0 + ty, l1,
                 W - wt);
#endif
#if TY > 1 && NV * CW > 1
    /* NV x CW vectors of sums a work-item: RCH of them at a time go to local memory, and the work-items of a
     * column of the group each add up the column's entries of one. */
#define GP (TX * TY + 1)
    __local realv red[RCH * GP];
#pragma unroll
    for (int q0 = 0; q0 < NV * CW; q0 += RCH) {
#pragma unroll
        for (int j = 0; j < RCH; j++)
            if (q0 + j < NV * CW)
                red[j * GP + ty * TX + tx] = acc[(q0 + j) / CW][(q0 + j) % CW];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int jj = 0; jj < (RCH + TY - 1) / TY; jj++) {   /* the same trips everywhere, as in gemv_rows */
            const int j = ty + jj * TY;
            if (j < RCH && q0 + j < NV * CW) {
                realv total = (realv)(ZERO);
                for (int u = 0; u < TY; u++)
                    total += red[j * GP + u * TX + tx];
                const int q = q0 + j, v = q / CW, w0 = wt + (q % CW) * TX * VW;
                if (w0 < W)
                    cols_out(total, w0, W, v, b, s, nsplit, alpha, beta, y, y_off + (ulong)b * y_bs + v * yvs, incy,
                             P CLF_EPI_PASS);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#else
#if TY > 1
    __local realv red[TY][TX];
    red[ty][tx] = acc[0][0];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = TY / 2; h > 0; h >>= 1) {
        if (ty < h)
            red[ty][tx] += red[ty + h][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    acc[0][0] = red[0][tx];
#endif
    if (ty == 0)
        for (int v = 0; v < NV; v++)
            for (int k = 0; k < CW; k++) {
                const int w0 = wt + k * TX * VW;
                if (w0 < W)
                    cols_out(acc[v][k], w0, W, v, b, s, nsplit, alpha, beta, y, y_off + (ulong)b * y_bs + v * yvs,
                             incy, P CLF_EPI_PASS);
            }
#endif
}

#endif

#if TILE
/* gemv_tile: several vectors, A staged through local memory (TILE_COLS 0: the reduced dimension is A's
 * contiguous one, as in gemv_rows; 1: the outputs are, as in gemv_cols). In gemv_rows each work-item reads the
 * vectors' entries at its own columns, so a 16-vector product makes 16 local reads for each element of A. Here a
 * work-group takes BL = TLN x TM outputs and, BK entries of the reduced dimension at a time, stages A's BK x BL
 * block transposed (As[k][o]) and the vectors' BK x NV entries (Xs[k][v]). The TLN work-items of a row of the
 * group (a warp on NVIDIA) hold TM outputs each, TLN apart, and share one k: each step they read TM entries of
 * As, adjacent across them, and NV/4 4-vectors of Xs that they all read alike (one broadcast each), for TM x NV
 * multiply-adds. TKG such rows split each block's k among them, and their sums meet in local memory at the end.
 * The next block is fetched into registers while this one is multiplied. */
#ifndef TILE_COLS
#define TILE_COLS 0
#endif
#ifndef TM
#define TM 4          /* outputs per work-item, TLN apart */
#endif
#ifndef BK
#define BK 32         /* entries of the reduced dimension staged at a time (a multiple of VW and of TKG) */
#endif
#ifndef TWG
#define TWG 256       /* work-items per work-group, a multiple of TLN */
#endif
#define TLN 32                 /* work-items along the outputs */
#define TKG (TWG / TLN)        /* rows of work-items along the reduced dimension */
#define BL (TLN * TM)          /* outputs per work-group */
#define XNP ((NV + 3) / 4 * 4) /* a row of Xs: NV entries padded to whole 4-vectors (zero past NV) */
/* Xs's row stride: when consecutive work-items store one vector's consecutive entries (X_VFAST 0), a stride of 4
 * times an even number puts a warp's stores in fewer than eight groups of banks (rows of 16: two), so it is padded
 * to 4 times an odd one. (Rotating the 4-vectors by row instead cost the reads more than it saved: on the H200
 * 4096x16x4096 A.B went from 34.5 to 40.5 us.) */
#if X_VFAST || (XNP / 4) % 2
#define XLD XNP
#else
#define XLD (XNP + 4)
#endif
#if TILE_COLS
#define LDT (BL + VW)          /* As row: aligned for the vector stores of a line's outputs */
#else
#define LDT (BL + 1)           /* As row: odd, so that the transposing stores of a line's vectors spread over banks */
#endif
#define TAV ((BK * LDT + VW - 1) / VW)   /* As in vectors */
#define NLD ((BL * BK / VW + TWG - 1) / TWG)   /* vectors of A a work-item fetches per block */
#define NXL ((BK * NV + TWG - 1) / TWG)        /* entries of the vectors a work-item fetches per block */
#define NVC (BK * LDT / (TKG * BL) < NV ? BK * LDT / (TKG * BL) : NV)   /* sums per output meeting at once */
#if BK % VW || BK % TKG || TWG % TLN || NVC < 1
#error "gemv_tile: BK must be a multiple of VW and of TWG / 32"
#endif

/* Where fetch q of a block lies: A's vector q at reduced index TILE_AK(q), output TILE_AO(q) of the block (along
 * the contiguous dimension: neighbours fetch neighbours); the vectors' entry q at TILE_XK(q), vector TILE_XV(q). */
/* TILE_AT(o, k): where output o, reduced index k lies in A from a block's corner (lda: the caller's). */
#if TILE_COLS
#define TILE_AK(q) ((q) / (BL / VW))
#define TILE_AO(q) ((q) % (BL / VW) * VW)
#define TILE_AT(o, k) ((ulong)(k) * lda + (ulong)(o))
#else
#define TILE_AO(q) ((q) / (BK / VW))
#define TILE_AK(q) ((q) % (BK / VW) * VW)
#define TILE_AT(o, k) ((ulong)(o) * lda + (ulong)(k))
#endif
#if X_VFAST
#define TILE_XV(q) ((q) % NV)
#define TILE_XK(q) ((q) / NV)
#else
#define TILE_XK(q) ((q) % BK)
#define TILE_XV(q) ((q) / BK)
#endif

/* VW elements at p, those from `left` on zero (not read). */
INL realv tile_load(const __global real *p, int left)
{
    if (left >= VW)
        return LOAD_A(p);
    real t[VW];
    for (int e = 0; e < VW; e++)
        t[e] = e < left ? p[e] : ZERO;
#if VW == 1
    return t[0];
#else
    return CAT(vload, VW)(0, t);
#endif
}

/* Fetches block c (its first reduced index, relative to a) into registers: A's vectors, then the vectors'
 * entries; nleft outputs and kleft reduced indexes remain from the block's corner. */
INL void tile_fetch(realv ra[NLD], real rx[NXL], const __global real *a, ulong lda, const __global real *x, ulong xvs,
                    ulong incx, int nleft, int kleft, int t)
{
#pragma unroll
    for (int j = 0; j < NLD; j++) {
        const int q = t + j * TWG, k = TILE_AK(q), o = TILE_AO(q);
#if TILE_COLS
        const int left = k < kleft ? nleft - o : 0;
#else
        const int left = o < nleft ? kleft - k : 0;
#endif
        ra[j] = q < BL * BK / VW ? tile_load(a + TILE_AT(o, k), left) : (realv)(ZERO);
    }
#pragma unroll
    for (int j = 0; j < NXL; j++) {
        const int q = t + j * TWG, k = TILE_XK(q);
        rx[j] = q < BK * NV && k < kleft ? x[TILE_XV(q) * xvs + (ulong)k * incx] : ZERO;
    }
}

/* The fetched block into As and Xs (between two barriers). */
INL void tile_put(__local real *As, __local real *Xs, const realv ra[NLD], const real rx[NXL], int t)
{
#pragma unroll
    for (int j = 0; j < NLD; j++) {
        const int q = t + j * TWG;
        if (q >= BL * BK / VW)   /* no `break` in a loop near barriers: PoCL (see gemv_rows) */
            continue;
        const int k = TILE_AK(q), o = TILE_AO(q);
#if TILE_COLS
        *(__local realv *)(As + k * LDT + o) = ra[j];
#elif VW == 1
        As[k * LDT + o] = ra[j];
#else
        real e[VW];
        CAT(vstore, VW)(ra[j], 0, e);
#pragma unroll
        for (int u = 0; u < VW; u++)
            As[(k + u) * LDT + o] = e[u];
#endif
    }
#pragma unroll
    for (int j = 0; j < NXL; j++) {
        const int q = t + j * TWG;
        if (q < BK * NV)
            Xs[TILE_XK(q) * XLD + TILE_XV(q)] = rx[j];
    }
}

__kernel __attribute__((reqd_work_group_size(TWG, 1, 1)))
void gemv_tile(const int L, const int W, const int chunk, const real alpha, const real beta,
               const __global real *restrict A, const ulong a_off, const ulong lda,
               const __global real *restrict x, const ulong x_off, const ulong incx,
               __global ystore *restrict y, const ulong y_off, const ulong incy, __global real *restrict P,
               const ulong xvs, const ulong yvs, const ulong a_bs, const ulong x_bs, const ulong y_bs CLF_EPI_DECL)
{
    __local realv As_v[TAV];
    __local real4 Xs_v[BK * XLD / 4];
    __local real *As = (__local real *)As_v, *Xs = (__local real *)Xs_v;
    const int t = (int)get_local_id(0), r = t % TLN, g = t / TLN;
    const int s = (int)get_group_id(1), b = (int)get_group_id(2), nsplit = (int)get_num_groups(1);
#if TILE_COLS
    const int nout = W, len = L;
#else
    const int nout = L, len = W;
#endif
    const int o0 = (int)get_group_id(0) * BL, nleft = nout - o0, c0 = s * chunk, c1 = c0 + min(chunk, len - c0);
    const __global real *a = A + a_off + (ulong)b * a_bs + TILE_AT(o0, c0);
    const __global real *xb = x + x_off + (ulong)b * x_bs + (ulong)c0 * incx;
    for (int j = 0; j < (BK * XLD + TWG - 1) / TWG; j++)   /* the padding entries stay zero */
        if (t + j * TWG < BK * XLD)
            Xs[t + j * TWG] = ZERO;
    real acc[TM][XNP];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int v = 0; v < XNP; v++)
            acc[i][v] = ZERO;
    realv ra[NLD];
    real rx[NXL];
    tile_fetch(ra, rx, a, lda, xb, xvs, incx, nleft, c1 - c0, t);
    for (int c = c0; c < c1; c += BK) {   /* the same trips for every work-item: barriers inside */
        barrier(CLK_LOCAL_MEM_FENCE);
        tile_put(As, Xs, ra, rx, t);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (c + BK < c1) {
            const int k = c + BK - c0;
            tile_fetch(ra, rx, a + TILE_AT(0, k), lda, xb + (ulong)k * incx, xvs, incx, nleft, c1 - c - BK, t);
        }
#pragma unroll 2
        for (int kk = 0; kk < BK / TKG; kk++) {
            const int k = kk * TKG + g;
            real av[TM];
#pragma unroll
            for (int i = 0; i < TM; i++)
                av[i] = As[k * LDT + r + i * TLN];
#pragma unroll
            for (int q = 0; q < XNP / 4; q++) {
                const real4 xv = Xs_v[k * (XLD / 4) + q];
#pragma unroll
                for (int i = 0; i < TM; i++) {
                    acc[i][4 * q] = fma(av[i], xv.s0, acc[i][4 * q]);
                    acc[i][4 * q + 1] = fma(av[i], xv.s1, acc[i][4 * q + 1]);
                    acc[i][4 * q + 2] = fma(av[i], xv.s2, acc[i][4 * q + 2]);
                    acc[i][4 * q + 3] = fma(av[i], xv.s3, acc[i][4 * q + 3]);
                }
            }
        }
    }
    /* The TKG rows' sums of each output meet in As, NVC vectors at a time; then one work-item an (output,
     * vector) adds them, neighbours on neighbouring outputs. */
    const ulong yb = y_off + (ulong)b * y_bs;
#pragma unroll
    for (int v0 = 0; v0 < NV; v0 += NVC) {
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int u = 0; u < NVC; u++)
            if (v0 + u < NV)
#pragma unroll
                for (int i = 0; i < TM; i++)
                    As[(g * NVC + u) * BL + r + i * TLN] = acc[i][v0 + u];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int jj = 0; jj < (BL * NVC + TWG - 1) / TWG; jj++) {   /* the same trips everywhere (gemv_rows) */
            const int q = t + jj * TWG, o = q % BL, v = v0 + q / BL;
            if (q < BL * NVC && v < NV && o < nleft) {
                real total = ZERO;
                for (int h = 0; h < TKG; h++)
                    total += As[(h * NVC + q / BL) * BL + o];
                rows_out(total, o0 + o, v, nout, b, s, nsplit, alpha, beta, y, yb, incy, yvs, P CLF_EPI_PASS);
            }
        }
    }
}
#endif

/* Second pass of a split call, or the whole of a call that reads no A (nsplit 0: y = beta*y). Dimension 1
 * of the grid: j = matrix * NV + vector. */
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1)))
void gemv_reduce(const int n, const int nsplit, const real alpha, const real beta, const __global real *restrict P,
                 __global ystore *restrict y, const ulong y_off, const ulong incy, const ulong yvs, const ulong y_bs
                 CLF_EPI_DECL)
{
    const int i = (int)get_global_id(0), j = (int)get_global_id(1), b = j / NV, v = j % NV;
    if (i >= n)
        return;
    real sum = ZERO;
    for (int s = 0; s < nsplit; s++)
        sum += P[((ulong)j * (ulong)nsplit + (ulong)s) * (ulong)n + (ulong)i];
    store_y(y + y_off + (ulong)b * y_bs + v * yvs + (ulong)i * incy, sum, alpha, beta, b, i, v CLF_EPI_PASS);
}
