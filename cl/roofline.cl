/* roofline.cl — roofline calibration kernels: copy and triad bandwidth, FMA peak (fp32 and fp64).
 * Built with -DREAL=float|double -DVEC=<REAL or REALn> for the FMA kernel; -DCLF_FP64 enables doubles. */
#ifdef CLF_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifndef REAL
#define REAL float
#endif
#ifndef VEC
#define VEC REAL
#endif
#ifndef BVEC
#define BVEC float4
#endif

/* One BVEC (float4, float8 or float16) per work-item; n counts BVECs and the guard lets the global size
 * round up to the group. (Grid-stride loops measured 8x slower on PoCL, whose work-group vectorizer
 * dislikes them.) */
__kernel void clf_rl_copy(__global const BVEC *restrict src, __global BVEC *restrict dst, uint n)
{
    uint i = get_global_id(0);
    if (i < n)
        dst[i] = src[i];
}

/* STREAM's triad: a = b + s*c. */
__kernel void clf_rl_triad(__global BVEC *restrict a, __global const BVEC *restrict b,
                           __global const BVEC *restrict c, float s, uint n)
{
    uint i = get_global_id(0);
    if (i < n)
        a[i] = b[i] + s * c[i];
}

/* Sixteen independent multiply-add chains per work-item, eight steps of each per loop trip, so the
 * pipeline never waits on a previous result. a and b come from the host so nothing folds away; the
 * sum is written so nothing is dead. FLOPs per work-item: iters * 8 * 16 * 2 * (lanes of VEC). */
#if defined(CLF_USE_FMA) || (defined(CLF_FP64) && defined(FP_FAST_FMA)) || (!defined(CLF_FP64) && defined(FP_FAST_FMAF))
#define CLF_RL_STEP(x) x = fma(x, a, b)   /* GPUs, vector CPUs (FMA3, AVX-512), and where fma is said fast */
#else
#define CLF_RL_STEP(x) x = mad(x, a, b)   /* CPUs: fused where the hardware has FMA, never emulated */
#endif
#define CLF_RL_STEP16 \
    CLF_RL_STEP(x0); CLF_RL_STEP(x1); CLF_RL_STEP(x2); CLF_RL_STEP(x3); \
    CLF_RL_STEP(x4); CLF_RL_STEP(x5); CLF_RL_STEP(x6); CLF_RL_STEP(x7); \
    CLF_RL_STEP(x8); CLF_RL_STEP(x9); CLF_RL_STEP(x10); CLF_RL_STEP(x11); \
    CLF_RL_STEP(x12); CLF_RL_STEP(x13); CLF_RL_STEP(x14); CLF_RL_STEP(x15)

__kernel void clf_rl_fma(__global VEC *out, REAL a_, REAL b_, int iters)
{
    VEC a = (VEC)(a_), b = (VEC)(b_);
    VEC x0 = (VEC)((REAL)get_global_id(0) * (REAL)1e-7);
    VEC x1 = x0 + (REAL)0.1, x2 = x0 + (REAL)0.2, x3 = x0 + (REAL)0.3;
    VEC x4 = x0 + (REAL)0.4, x5 = x0 + (REAL)0.5, x6 = x0 + (REAL)0.6, x7 = x0 + (REAL)0.7;
    VEC x8 = x0 - (REAL)0.1, x9 = x0 - (REAL)0.2, x10 = x0 - (REAL)0.3, x11 = x0 - (REAL)0.4;
    VEC x12 = x0 - (REAL)0.5, x13 = x0 - (REAL)0.6, x14 = x0 - (REAL)0.7, x15 = x0 - (REAL)0.8;
    for (int i = 0; i < iters; i++) {
        CLF_RL_STEP16; CLF_RL_STEP16; CLF_RL_STEP16; CLF_RL_STEP16;
        CLF_RL_STEP16; CLF_RL_STEP16; CLF_RL_STEP16; CLF_RL_STEP16;
    }
    out[get_global_id(0)] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7)) +
                            ((x8 + x9) + (x10 + x11)) + ((x12 + x13) + (x14 + x15));
}
