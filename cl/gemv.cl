/* gemv.cl — matrix-vector products y = alpha*A*x + beta*y. Memory-bound: every element of A is loaded
 * once, with vector loads along A's contiguous dimension, consecutive work-items on consecutive vectors.
 *
 * The host describes A as L lines of W contiguous elements, lda apart: element (l, w) is
 * A[a_off + l*lda + w]. Two kernels, by which dimension is reduced:
 *   gemv_rows  y[l] = sum_w A(l, w) x[w]  (the contiguous dimension is reduced): a team of TEAM
 *              work-items per line (RPG lines per work-group) strides along it with VW-wide loads, and
 *              the team's sums meet in local memory;
 *   gemv_cols  y[w] = sum_l A(l, w) x[l]  (the contiguous dimension is the output): each work-item owns
 *              CW vectors of VW consecutive outputs, TX*VW apart, so that TX work-items side by side
 *              load consecutive vectors (GPUs: CW 1) or one work-item a long contiguous run (CPUs: TX 1);
 *              TY work-items go along the lines, and their sums meet in local memory.
 * When there are too few outputs to fill the device, the reduced dimension is split into slices of
 * `chunk` (dimension 1 of the grid): each slice writes its raw sum to P[s*nout + i] and gemv_reduce
 * adds the slices and applies alpha and beta (two passes, no atomics). With one slice (P unused, may be
 * NULL) the kernels apply alpha and beta themselves. beta == 0 never reads y, so NaN there cannot leak. */

/* The GEMM epilogue's store hook (cl/common.cl explains it): empty without an epilogue. */
#ifndef CLF_EPI
#define CLF_EPI 0
#define CLF_EPI_DECL
#define CLF_EPI_PASS
#endif
#ifndef EPI_ROWS
#define EPI_ROWS 1    /* with a GEMM's epilogue: y is a column of C (element i is row i), else a row */
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
#ifndef TEAM
#define TEAM 64       /* gemv_rows: work-items per line, a power of two */
#endif
#ifndef RPG
#define RPG 4         /* gemv_rows: lines per work-group */
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
#define ALIGNED 0     /* 1: a_off and lda are multiples of VW, so every vector of A is VW-aligned */
#endif
#ifndef X_UNIT
#define X_UNIT 0      /* gemv_rows: 1 when incx == 1 (x is read with vector loads too) */
#endif
#ifndef RWG
#define RWG 64        /* gemv_reduce: work-group size */
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
#if ALIGNED || VW == 1
#define LOAD_A(p) (*(const __global realv *)(p))
#else
#define LOAD_A(p) VLOAD(p)
#endif

#define INL static inline __attribute__((always_inline))

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
INL realv load_x(const __global real *x, int c, ulong incx)
{
#if X_UNIT
    (void)incx;
    return VLOAD(x + c);
#else
    real t[VW];
    for (int k = 0; k < VW; k++)
        t[k] = x[(ulong)(c + k) * incx];
#if VW == 1
    return t[0];
#else
    return CAT(vload, VW)(0, t);
#endif
#endif
}

/* The one place y is written (y[i]): beta == 0 must not read it. */
INL void store_y(__global real *y, real sum, real alpha, real beta, const int i CLF_EPI_DECL)
{
    const real v = beta == ZERO ? alpha * sum : alpha * sum + beta * *y;
#if CLF_EPI
    clf_epilogue(y, 0, EPI_ROWS ? i : 0, EPI_ROWS ? 0 : i, v CLF_EPI_PASS);
#else
    *y = v;
#endif
}

/* This work-item's part of dot(row[c0..c1), x[c0..c1)); c0 is a multiple of VW. */
INL real row_part(const __global real *row, const __global real *x, ulong incx, int c0, int c1, int t)
{
    const int step = TEAM * VW;
    realv acc = (realv)(ZERO);
    int c = c0 + t * VW;
    for (; c + (LU - 1) * step + VW <= c1; c += LU * step) {
        realv a[LU], b[LU];
        for (int j = 0; j < LU; j++) {
            a[j] = LOAD_A(row + c + j * step);
            b[j] = load_x(x, c + j * step, incx);
        }
        for (int j = 0; j < LU; j++)
            acc += a[j] * b[j];
    }
    for (; c + VW <= c1; c += step)
        acc += LOAD_A(row + c) * load_x(x, c, incx);
    real sum = hsum(acc);
    for (int e = c1 - (c1 - c0) % VW + t; e < c1; e += TEAM)
        sum += row[e] * x[(ulong)e * incx];
    return sum;
}

__kernel __attribute__((reqd_work_group_size(TEAM * RPG, 1, 1)))
void gemv_rows(const int L, const int W, const int chunk, const real alpha, const real beta,
               const __global real *restrict A, const ulong a_off, const ulong lda,
               const __global real *restrict x, const ulong x_off, const ulong incx,
               __global real *restrict y, const ulong y_off, const ulong incy, __global real *restrict P CLF_EPI_DECL)
{
    __local real red[TEAM * RPG];
    const int lid = (int)get_local_id(0), t = lid % TEAM;
    const int line = (int)get_group_id(0) * RPG + lid / TEAM, s = (int)get_group_id(1);
    const int c0 = s * chunk, c1 = c0 + min(chunk, W - c0);
    real sum = ZERO;
    if (line < L)
        sum = row_part(A + a_off + (ulong)line * lda, x + x_off, incx, c0, c1, t);
    red[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = TEAM / 2; h > 0; h >>= 1) {
        if (t < h)
            red[lid] += red[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t != 0 || line >= L)
        return;
    if (get_num_groups(1) > 1)
        P[(ulong)s * (ulong)L + (ulong)line] = red[lid];
    else
        store_y(y + y_off + (ulong)line * incy, red[lid], alpha, beta, line CLF_EPI_PASS);
}

/* Sums over lines l, l+TY, ... < l1 of A(line, w) * x[line] for this work-item's CW vectors of outputs, which
 * start at a, a + TX*VW, ... (a points into line 0); left: outputs from a to the end of the line. */
INL void col_part(realv *acc, const __global real *a, ulong lda, const __global real *x, ulong incx, int l, int l1,
                  int left)
{
    const __global real *p = a + (ulong)l * lda;
    const ulong pstep = (ulong)TY * lda;
    if (left >= ((CW - 1) * TX + 1) * VW) {
        for (; l + (LU - 1) * TY < l1; l += LU * TY, p += LU * pstep) {
            realv v[LU][CW];
            real xs[LU];
            for (int j = 0; j < LU; j++) {
                xs[j] = x[(ulong)(l + j * TY) * incx];
                for (int k = 0; k < CW; k++)
                    v[j][k] = LOAD_A(p + (ulong)j * pstep + k * TX * VW);
            }
            for (int j = 0; j < LU; j++)
                for (int k = 0; k < CW; k++)
                    acc[k] += v[j][k] * xs[j];
        }
        for (; l < l1; l += TY, p += pstep) {
            const real xv = x[(ulong)l * incx];
            for (int k = 0; k < CW; k++)
                acc[k] += LOAD_A(p + k * TX * VW) * xv;
        }
        return;
    }
    /* The end of the line: scalar loads of the elements that exist. */
    real part[CW][VW];
    for (int k = 0; k < CW; k++)
        for (int e = 0; e < VW; e++)
            part[k][e] = ZERO;
    for (; l < l1; l += TY, p += pstep) {
        const real xv = x[(ulong)l * incx];
        for (int k = 0; k < CW; k++)
            for (int e = 0; e < VW; e++)
                if (k * TX * VW + e < left)
                    part[k][e] += p[k * TX * VW + e] * xv;
    }
    for (int k = 0; k < CW; k++)
#if VW == 1
        acc[k] = part[k][0];
#else
        acc[k] = CAT(vload, VW)(0, part[k]);
#endif
}

__kernel __attribute__((reqd_work_group_size(TX, TY, 1)))
void gemv_cols(const int L, const int W, const int chunk, const real alpha, const real beta,
               const __global real *restrict A, const ulong a_off, const ulong lda,
               const __global real *restrict x, const ulong x_off, const ulong incx,
               __global real *restrict y, const ulong y_off, const ulong incy, __global real *restrict P CLF_EPI_DECL)
{
    __local realv red[TY][CW][TX];
    const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    const int wt = (int)get_group_id(0) * (TX * VW * CW) + tx * VW, s = (int)get_group_id(1);
    const int l0 = s * chunk, l1 = l0 + min(chunk, L - l0);
    realv acc[CW];
    for (int k = 0; k < CW; k++)
        acc[k] = (realv)(ZERO);
    if (wt < W)
        col_part(acc, A + a_off + wt, lda, x + x_off, incx, l0 + ty, l1, W - wt);
    for (int k = 0; k < CW; k++)
        red[ty][k][tx] = acc[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = TY / 2; h > 0; h >>= 1) {
        if (ty < h)
            for (int k = 0; k < CW; k++)
                red[ty][k][tx] += red[ty + h][k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (ty != 0)
        return;
    for (int k = 0; k < CW; k++) {
        const int w0 = wt + k * TX * VW;
        if (w0 >= W)
            break;
        real out[VW];
#if VW == 1
        out[0] = red[0][k][tx];
#else
        CAT(vstore, VW)(red[0][k][tx], 0, out);
#endif
        for (int e = 0; e < min(VW, W - w0); e++) {
            if (get_num_groups(1) > 1)
                P[(ulong)s * (ulong)W + (ulong)(w0 + e)] = out[e];
            else
                store_y(y + y_off + (ulong)(w0 + e) * incy, out[e], alpha, beta, w0 + e CLF_EPI_PASS);
        }
    }
}

/* Second pass of a split call, or the whole of a call that reads no A (nsplit 0: y = beta*y). */
__kernel __attribute__((reqd_work_group_size(RWG, 1, 1)))
void gemv_reduce(const int n, const int nsplit, const real alpha, const real beta, const __global real *restrict P,
                 __global real *restrict y, const ulong y_off, const ulong incy CLF_EPI_DECL)
{
    const int i = (int)get_global_id(0);
    if (i >= n)
        return;
    real sum = ZERO;
    for (int s = 0; s < nsplit; s++)
        sum += P[(ulong)s * (ulong)n + (ulong)i];
    store_y(y + y_off + (ulong)i * incy, sum, alpha, beta, i CLF_EPI_PASS);
}
