/* test_gemm_mixed.c — mixed-precision GEMM (clf_gemm: f16/bf16/f32 storage, fp32 accumulation, TF32 and
 * 3xTF32 compute modes) and clf_convert, on every device present, against a double-precision host reference
 * over the inputs as the device stores them. Devices with matrix units run them; others run the portable
 * path; the self-test fallback is forced once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_mma.h"
#include "gemm_plan.h"
#include "testutil.h"

/* ---- host encodings -------------------------------------------------------------------------- */

static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return (float)((h & 0x8000) ? -v : v);
}

/* Round to nearest even, as vstore_half_rte: by search over the neighbours of a truncated guess. */
static uint16_t float_to_half(float f)
{
    if (isnan(f))
        return 0x7e00;
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    double a = fabs((double)f);
    if (a >= 65520.0)
        return sign | 0x7c00;
    uint16_t best = 0;
    double err = INFINITY;
    int e;
    frexp(a, &e);
    for (int d = -2; d <= 2; d++) {   /* candidates around the value's exponent */
        int ee = e + d;
        double q = ee - 11 < -24 ? ldexp(1, -24) : ldexp(1, ee - 11);
        double lo = floor(a / q) * q;
        for (int s = 0; s < 2; s++) {
            double c = lo + s * q;
            if (c > 65504.0)
                continue;
            uint16_t h = 0;
            /* encode c exactly (it is representable by construction when in range) */
            if (c != 0) {
                int ce;
                double fr = frexp(c, &ce);   /* c = fr * 2^ce, fr in [0.5, 1) */
                if (ce - 1 < -14)
                    h = (uint16_t)llround(c / ldexp(1, -24));
                else
                    h = (uint16_t)(((ce - 1 + 15) << 10) | ((int)llround(fr * 2048) - 1024));
            }
            double diff = fabs(c - a);
            if (half_to_float(h) != (float)c)
                continue;
            if (diff < err || (diff == err && !(h & 1))) {
                err = diff;
                best = h;
            }
        }
    }
    return sign | best;
}

static float bf16_to_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if (isnan(f))
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static size_t tsize(clf_dtype t) { return t == CLF_F32 ? 4 : 2; }

/* The value a host float has once stored as t. */
static float stored(float x, clf_dtype t)
{
    return t == CLF_F16 ? half_to_float(float_to_half(x)) : t == CLF_BF16 ? bf16_to_float(float_to_bf16(x)) : x;
}

static void encode(const float *x, size_t n, clf_dtype t, void *out)
{
    for (size_t i = 0; i < n; i++) {
        if (t == CLF_F32)
            ((float *)out)[i] = x[i];
        else
            ((uint16_t *)out)[i] = t == CLF_F16 ? float_to_half(x[i]) : float_to_bf16(x[i]);
    }
}

static float decode(const void *in, size_t i, clf_dtype t)
{
    return t == CLF_F32 ? ((const float *)in)[i]
                        : t == CLF_F16 ? half_to_float(((const uint16_t *)in)[i]) : bf16_to_float(((const uint16_t *)in)[i]);
}

/* ---- clf_convert ----------------------------------------------------------------------------- */

/* The matrix units' packing kernel (gemm_convert.cl convert_pack) run directly on every device: each
 * storage type to itself (raw bits: vector loads and stores where aligned, element by element elsewhere)
 * and one converting pair, rows along K or along R (through local memory), odd and aligned leading
 * dimensions and offsets, padding zeroed, a batch, nothing written outside the packed matrices. */
/* fp32 bits to tf32 (low 13 bits zero) rounded to nearest, ties away; a finite value that would round to inf is
 * truncated; and x split into hi + lo, inf and NaN whole in hi (and the SPLIT3 pass writes them into the third run
 * only): what gemm_convert.cl's SPLIT3 writes. */
static uint32_t tf32_rna(uint32_t u)
{
    uint32_t r = (u + 0x1000u) & 0xffffe000u;
    return (r & 0x7f800000u) == 0x7f800000u ? u & 0xffffe000u : r;
}

static void split_tf32(uint32_t x, uint32_t *hi, uint32_t *lo)
{
    if ((x & 0x7f800000u) == 0x7f800000u) {
        *hi = (x & 0x7fffffu) ? x | 0x400000u : x;
        *lo = 0;
        return;
    }
    *hi = tf32_rna(x);
    float fx, fh;
    memcpy(&fx, &x, 4);
    memcpy(&fh, hi, 4);
    float d = fx - fh;
    uint32_t u;
    memcpy(&u, &d, 4);
    *lo = tf32_rna(u);
}

/* split3 (fp32 only): rows of three runs of Kp, each value split into its tf32 parts (1: lo hi hi, 2: hi lo hi); the
 * source then holds normal floats of any exponent, and inf, NaN, FLT_MAX and 0 at fixed places. */
static int pack_case(clf_context *ctx, int src_code, int dst_code, int kmajor, long R, long K, long Rp, long Kp,
                     long ld, size_t soff, size_t doff, size_t batch, int split3, uint64_t *seed)
{
    size_t ss = src_code == 64 ? 8 : src_code == 32 ? 4 : 2, ds = dst_code == 64 ? 8 : dst_code == 32 ? 4 : 2;
    long ldd = split3 ? 3 * Kp : Kp;
    size_t s_stride = (size_t)ld * (size_t)(kmajor ? K : R) + 3, d_stride = (size_t)(Rp * ldd) + 8;
    size_t sn = soff + batch * s_stride, dn = doff + batch * d_stride + 16;
    unsigned char *hs = malloc(sn * ss), *hd = malloc(dn * ds), *want = malloc(dn * ds);
    ck_assert(hs && hd && want);
    for (size_t i = 0; i < sn * ss; i++)
        hs[i] = (unsigned char)clf_test_rand_u64(seed);
    if (src_code != dst_code)   /* converted values: finite floats, rounded to f16 below */
        for (size_t i = 0; i < sn; i++) {
            float f = (float)(clf_test_rand(seed) * 4.0);
            memcpy(hs + i * 4, &f, 4);
        }
    if (split3)   /* no subnormals, which a device may flush */
        for (size_t i = 0; i < sn; i++) {
            static const uint32_t special[] = {0x7f800000u, 0xff800000u, 0x7fc00001u, 0x7f7fffffu, 0xff7ff000u, 0u};
            uint32_t u = (uint32_t)clf_test_rand_u64(seed);
            u = (u & 0x807fffffu) | ((1u + u % 253u) << 23);
            if (i % 37 < 6)
                u = special[i % 37];
            memcpy(hs + i * 4, &u, 4);
        }
    memset(hd, 0xAB, dn * ds);
    memcpy(want, hd, dn * ds);
    for (size_t b = 0; b < batch; b++)
        for (long r = 0; r < Rp; r++)
            for (long k = 0; k < Kp; k++) {
                unsigned char *w = want + (doff + b * d_stride + (size_t)(r * ldd + k)) * ds;
                memset(w, 0, ds);
                if (split3)
                    memset(w + (size_t)Kp * ds, 0, ds), memset(w + 2 * (size_t)Kp * ds, 0, ds);
                if (r >= R || k >= K)
                    continue;
                const unsigned char *v = hs + (soff + b * s_stride + (size_t)(kmajor ? k * ld + r : r * ld + k)) * ss;
                if (split3) {
                    uint32_t x, hi, lo;
                    memcpy(&x, v, 4);
                    split_tf32(x, &hi, &lo);
                    uint32_t h = (hi & 0x7f800000u) == 0x7f800000u ? 0u : hi;   /* inf, NaN: third run only */
                    memcpy(w, split3 == 1 ? &lo : &h, 4);
                    memcpy(w + (size_t)Kp * ds, split3 == 1 ? &h : &lo, 4);
                    memcpy(w + 2 * (size_t)Kp * ds, &hi, 4);
                } else if (src_code == dst_code) {
                    memcpy(w, v, ds);
                } else {
                    float f;
                    memcpy(&f, v, 4);
                    uint16_t h = float_to_half(f);
                    memcpy(w, &h, 2);
                }
            }
    cl_mem src = clf_test_buffer(ctx, sn * ss, hs), dst = clf_test_buffer(ctx, dn * ds, hd);
    char opts[64];
    snprintf(opts, sizeof opts, "-DSRC=%d -DDST=%d -DSRC_KMAJOR=%d -DSPLIT3=%d", src_code, dst_code, kmajor, split3);
    const char *text;
    cl_kernel k = NULL;
    ck_assert_int_eq(clf__source("gemm_convert.cl", &text), CLF_SUCCESS);
    ck_assert_int_eq(clf__kernel_take(ctx, text, opts, "convert_pack", &k), CLF_SUCCESS);
    cl_long a[] = {R, K, Rp, Kp}, l = ld;
    cl_ulong so = soff, sst = s_stride, dof = doff, dst_st = d_stride;
    cl_uint i = 0;
    for (int j = 0; j < 4; j++)
        ck_assert_int_eq(clSetKernelArg(k, i++, 8, &a[j]), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, i++, sizeof src, &src), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, i++, 8, &so), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, i++, 8, &l), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, i++, 8, &sst), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, i++, sizeof dst, &dst), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, i++, 8, &dof), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, i++, 8, &ldd), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, i++, 8, &dst_st), CL_SUCCESS);
    size_t pk = 8 * 16 / ds;   /* elements of K a work-group packs */
    size_t global[3] = {((size_t)Kp + pk - 1) / pk * 32, ((size_t)Rp + 31) / 32 * 8, batch}, local[3] = {32, 8, 1};
    ck_assert_int_eq(clf__enqueue(ctx, k, 3, global, local, NULL, NULL), CLF_SUCCESS);
    clf__kernel_give(ctx, k);
    clf_test_read(ctx, dst, dn * ds, hd);
    int bad = 0;
    for (size_t e = 0; e < dn && !bad; e++)
        if (memcmp(hd + e * ds, want + e * ds, ds) != 0) {
            fprintf(stderr, "convert_pack %d -> %d kmajor %d split3 %d R %ld K %ld Rp %ld Kp %ld ld %ld soff %zu doff "
                            "%zu: element %zu differs\n", src_code, dst_code, kmajor, split3, R, K, Rp, Kp, ld, soff, doff, e);
            bad = 1;
        }
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    free(hs);
    free(hd);
    free(want);
    return bad;
}

START_TEST(pack_kernel)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs), failures = 0;
    ck_assert_int_gt(nctx, 0);
    /* the last two: fp32 split for 3xTF32 on wgmma, as A (lo hi hi) and as B (hi lo hi) */
    static const int codes[][3] = {{16, 16, 0}, {17, 17, 0}, {32, 32, 0}, {64, 64, 0}, {32, 16, 0}, {32, 32, 1}, {32, 32, 2}};
    for (int d = 0; d < nctx && failures == 0; d++) {
        uint64_t seed = 99 + (uint64_t)d;
        int fp64 = clf_context_device(ctxs[d])->fp64;
        for (int c = 0; c < 7 && failures == 0; c++) {
            if (codes[c][0] == 64 && !fp64)
                continue;
            for (int t = 0; t < 4 && failures == 0; t++) {
                int kmajor = t % 2;
                long R = 1 + (long)(clf_test_rand_u64(&seed) % 150), K = 1 + (long)(clf_test_rand_u64(&seed) % 200);
                long Rp = (R + 31) / 32 * 32 + (t == 3 ? 32 : 0), Kp = (K + 15) / 16 * 16;
                /* t 0, 1: leading dimension and offsets odd; t 2: all multiples of 8 (vector loads) */
                long ld = (kmajor ? R : K) + (t < 2 ? 1 + (long)(clf_test_rand_u64(&seed) % 7) : 8);
                if (t == 2)
                    ld = (ld + 7) / 8 * 8;
                size_t soff = t == 2 ? 16 : (size_t)(clf_test_rand_u64(&seed) % 9), doff = t == 2 ? 0 : 8;
                failures += pack_case(ctxs[d], codes[c][0], codes[c][1], kmajor, R, K, Rp, Kp, ld, soff, doff,
                                      1 + (size_t)(t == 1) * 2, codes[c][2], &seed);
            }
        }
    }
    clf_test_contexts_free(ctxs, nctx);
    ck_assert_int_eq(failures, 0);
}
END_TEST

/* split_pack (3xF16's packing pass) on any device, against the host: R x K fp32 rows (K-contiguous or K-major) with
 * magnitudes 2^-40 to 2^40 a row, zeros, inf and NaN; the rows' largest magnitudes (pass 0) and the three f16 runs
 * of each padded row (pass 1), bit for bit. */
static int split_pack_case(clf_context *ctx, int kmajor, int split3, long R, long K, uint64_t *seed)
{
    long Rp = (R + 31) / 32 * 32, Kp = (K + 31) / 32 * 32, ldd = 3 * Kp, ld = (kmajor ? R : K) + 3;
    size_t sn = (size_t)((kmajor ? K : R) * ld), dn = (size_t)(Rp * ldd);
    float *hs = malloc(sn * 4);
    uint16_t *hd = malloc(dn * 2), *want = calloc(dn, 2);
    uint32_t *big = malloc((size_t)R * 4), *want_big = calloc((size_t)R, 4);
    ck_assert(hs && hd && want && big && want_big);
    for (size_t i = 0; i < sn; i++)
        hs[i] = (float)clf_test_rand(seed);
    for (long r = 0; r < R; r++)
        for (long k = 0; k < K; k++) {
            float *x = &hs[kmajor ? k * ld + r : r * ld + k];
            *x = ldexpf(*x, (int)((r * 7) % 81) - 40 - (k % 11 == 3 ? 20 : 0));
            if ((r * 131 + k) % 97 == 5)
                *x = (r + k) % 3 == 0 ? INFINITY : (r + k) % 3 == 1 ? -INFINITY : NAN;
            else if ((r + k) % 53 == 7)
                *x = 0.0f;
        }
    for (long r = 0; r < R; r++) {
        float m = 0;
        for (long k = 0; k < K; k++) {
            float x = hs[kmajor ? k * ld + r : r * ld + k];
            if (isfinite(x) && fabsf(x) > m)
                m = fabsf(x);
        }
        memcpy(&want_big[r], &m, 4);
        int e = m > 0 ? 14 - ilogbf(m) : 0;
        for (long k = 0; k < K; k++) {
            float x = ldexpf(hs[kmajor ? k * ld + r : r * ld + k], e);
            uint16_t run[3] = {0, 0, float_to_half(x)};
            if (isfinite(x)) {
                uint16_t hi = float_to_half(x), lo = float_to_half(x - half_to_float(hi));
                run[0] = split3 == 1 ? lo : hi, run[1] = split3 == 1 ? hi : lo, run[2] = hi;
            }
            for (int q = 0; q < 3; q++)
                want[r * ldd + q * Kp + k] = run[q];
        }
    }
    memset(hd, 0xAB, dn * 2);
    cl_mem src = clf_test_buffer(ctx, sn * 4, hs), dst = clf_test_buffer(ctx, dn * 2, hd);
    cl_mem bm = clf_test_buffer(ctx, (size_t)R * 4 + 8, NULL);
    cl_uint zero = 0;
    ck_assert_int_eq(clEnqueueFillBuffer(clf_context_queue(ctx), bm, &zero, 4, 0, (size_t)R * 4 + 8, 0, NULL, NULL),
                     CL_SUCCESS);
    char opts[96];
    snprintf(opts, sizeof opts, "-DSRC=32 -DDST=16 -DSRC_KMAJOR=%d -DSPLIT3=%d -DSCALED=1", kmajor, split3);
    const char *text;
    cl_kernel k = NULL;
    ck_assert_int_eq(clf__source("gemm_convert.cl", &text), CLF_SUCCESS);
    ck_assert_int_eq(clf__kernel_take(ctx, text, opts, "split_pack", &k), CLF_SUCCESS);
    cl_long a[] = {R, K, Rp, Kp, ld};
    cl_ulong zero64 = 0, boff = 2, bst = (cl_ulong)R;
    cl_int pass = 0;
    const void *v[] = {&a[0], &a[1], &a[2], &a[3], &src, &zero64, &a[4], &zero64, &dst, &zero64, &ldd, &zero64, &bm,
                       &boff, &bst, &pass};
    size_t z[] = {8, 8, 8, 8, sizeof src, 8, 8, 8, sizeof dst, 8, 8, 8, sizeof bm, 8, 8, 4};
    for (cl_uint i = 0; i < 16; i++)
        ck_assert_int_eq(clSetKernelArg(k, i, z[i], v[i]), CL_SUCCESS);
    size_t global[3] = {((size_t)Kp + 63) / 64 * 32, (size_t)Rp / 4, 1}, local[3] = {32, 8, 1};
    ck_assert_int_eq(clf__enqueue(ctx, k, 3, global, local, NULL, NULL), CLF_SUCCESS);
    pass = 1;
    ck_assert_int_eq(clSetKernelArg(k, 15, 4, &pass), CL_SUCCESS);
    ck_assert_int_eq(clf__enqueue(ctx, k, 3, global, local, NULL, NULL), CLF_SUCCESS);
    clf__kernel_give(ctx, k);
    clf_test_read(ctx, dst, dn * 2, hd);
    uint32_t *bh = malloc((size_t)R * 4 + 8);
    ck_assert(bh);
    clf_test_read(ctx, bm, (size_t)R * 4 + 8, bh);
    int bad = 0;
    for (long r = 0; r < R && !bad; r++)
        if (bh[2 + r] != want_big[r]) {
            fprintf(stderr, "split_pack kmajor %d: row %ld largest 0x%08x, want 0x%08x\n", kmajor, r, bh[2 + r], want_big[r]);
            bad = 1;
        }
    for (size_t i = 0; i < dn && !bad; i++) {
        int nan_both = (hd[i] & 0x7c00) == 0x7c00 && (hd[i] & 0x3ff) && (want[i] & 0x7c00) == 0x7c00 && (want[i] & 0x3ff);
        if (hd[i] != want[i] && !nan_both) {
            fprintf(stderr, "split_pack kmajor %d split3 %d R %ld K %ld: row %ld run %ld k %ld = 0x%04x, want 0x%04x\n",
                    kmajor, split3, R, K, (long)(i / (size_t)ldd), (long)(i % (size_t)ldd / (size_t)Kp),
                    (long)(i % (size_t)Kp), hd[i], want[i]);
            bad = 1;
        }
    }
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    clReleaseMemObject(bm);
    free(hs), free(hd), free(want), free(big), free(want_big), free(bh);
    return bad;
}

START_TEST(split_pack_kernel)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs), failures = 0;
    ck_assert_int_gt(nctx, 0);
    for (int d = 0; d < nctx && failures == 0; d++) {
        uint64_t seed = 5 + (uint64_t)d;
        for (int t = 0; t < 4 && failures == 0; t++)
            failures += split_pack_case(ctxs[d], t % 2, 1 + t / 2, 1 + (long)(clf_test_rand_u64(&seed) % 100),
                                        1 + (long)(clf_test_rand_u64(&seed) % 300), &seed);
    }
    clf_test_contexts_free(ctxs, nctx);
    ck_assert_int_eq(failures, 0);
}
END_TEST

START_TEST(convert_round_trips)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    enum { N = 4099 };
    float *x = malloc(N * sizeof *x), *back = malloc(N * sizeof *back + 16);
    uint16_t *h = malloc(N * 2 + 8);
    ck_assert(x && back && h);
    uint64_t seed = 11;
    for (int i = 0; i < N; i++)
        x[i] = (float)(clf_test_rand(&seed) * ldexp(1.0, (int)(i % 40) - 20));
    float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 65504.0f, 65520.0f, 1e-8f, 6e-8f, 3e38f,
                       1.00048828125f /* 1 + 2^-11: a tie */, 1.00146484375f /* 1 + 3*2^-11: a tie */};
    memcpy(x, special, sizeof special);
    for (int d = 0; d < nctx; d++) {
        clf_context *ctx = ctxs[d];
        cl_mem src = clf_test_buffer(ctx, N * 4, x), mid = clf_test_buffer(ctx, N * 2 + 8, NULL);
        cl_mem out = clf_test_buffer(ctx, N * 4 + 16, NULL);
        clf_dtype types[] = {CLF_F16, CLF_BF16};
        for (int t = 0; t < 2; t++) {
            ck_assert_int_eq(clf_convert(ctx, CLF_F32, src, 0, types[t], mid, 3, N, NULL), CLF_SUCCESS);
            clf_test_read(ctx, mid, N * 2 + 8, h - 0);
            for (int i = 0; i < N; i++) {
                uint16_t want = types[t] == CLF_F16 ? float_to_half(x[i]) : float_to_bf16(x[i]);
                uint16_t got = h[3 + i];
                if (isnan(x[i]))
                    ck_assert_msg(isnan(types[t] == CLF_F16 ? half_to_float(got) : bf16_to_float(got)), "NaN lost (type %d)", (int)types[t]);
                else
                    ck_assert_msg(got == want, "type %d, x[%d] = %.9g: got 0x%04x, want 0x%04x", (int)types[t], i,
                                  x[i], got, want);
            }
            ck_assert_int_eq(clf_convert(ctx, types[t], mid, 3, CLF_F32, out, 4, N, NULL), CLF_SUCCESS);
            clf_test_read(ctx, out, N * 4 + 16, back - 0);
            for (int i = 0; i < N; i++)
                if (!isnan(x[i]))
                    ck_assert(back[4 + i] == stored(x[i], types[t]));
        }
        /* Bad input changes nothing. */
        ck_assert_int_eq(clf_convert(ctx, (clf_dtype)9, src, 0, CLF_F16, mid, 0, 4, NULL), CLF_ERR_INVALID_ARG);
        ck_assert_int_eq(clf_convert(ctx, CLF_F32, src, N, CLF_F16, mid, 0, 4, NULL), CLF_ERR_INVALID_ARG);
        ck_assert_int_eq(clf_convert(ctx, CLF_F32, src, 0, CLF_F32, src, 2, 4, NULL), CLF_ERR_INVALID_ARG);
        clReleaseMemObject(src);
        clReleaseMemObject(mid);
        clReleaseMemObject(out);
    }
    free(x);
    free(back);
    free(h);
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* ---- random mixed-precision products -------------------------------------------------------- */

typedef struct mcase {
    clf_gemm_types t;
    clf_layout layout;
    clf_transpose ta, tb;
    size_t m, n, k, batch, lda, ldb, ldc, off;
    float alpha, beta;
} mcase;

/* Error bound per element: fp32 accumulation over k terms, the input rounding of the compute mode, and the
 * rounding of C's storage (docs/gemm.md states the same bounds). */
static double bound(const mcase *c, double mag, double ref, int mma)
{
    double u32 = ldexp(1, -24), in = 0;
    if (c->t.a == CLF_F32 && c->t.compute == CLF_COMPUTE_TF32 && mma)
        in = 2 * ldexp(1, -10);   /* each input to 10 bits: truncated by wgmma, which drops the low 13 bits */
    double out = c->t.c == CLF_F16 ? ldexp(1, -11) : c->t.c == CLF_BF16 ? ldexp(1, -8) : u32;
    return (2.0 * (double)(c->k + 2) * u32 + in) * mag * fabs(c->alpha) + out * fabs(ref) * 1.01 + 1e-6;
}

static int run_case(clf_context *ctx, const mcase *c, uint64_t *seed)
{
    int row = c->layout == CLF_ROW_MAJOR;
    size_t ar = (c->ta == CLF_NO_TRANS) == row ? c->m : c->k, br = (c->tb == CLF_NO_TRANS) == row ? c->k : c->n;
    size_t cr = row ? c->m : c->n;
    size_t sa = ar * c->lda + 5, sb = br * c->ldb + 3, sc = cr * c->ldc + 7;
    size_t na = c->off + c->batch * sa, nb = c->off + c->batch * sb, nc = c->off + c->batch * sc;
    float *fa = malloc(na * 4), *fb = malloc(nb * 4), *fc = malloc(nc * 4), *out = malloc(nc * 4);
    void *ea = malloc(na * 4), *eb = malloc(nb * 4), *ec = malloc(nc * 4);
    ck_assert(fa && fb && fc && out && ea && eb && ec);
    for (size_t i = 0; i < na; i++)
        fa[i] = stored((float)clf_test_rand(seed), c->t.a);
    for (size_t i = 0; i < nb; i++)
        fb[i] = stored((float)clf_test_rand(seed), c->t.b);
    for (size_t i = 0; i < nc; i++)
        fc[i] = c->beta == 0.0f ? NAN : stored((float)clf_test_rand(seed), c->t.c);   /* beta 0 never reads C */
    encode(fa, na, c->t.a, ea);
    encode(fb, nb, c->t.b, eb);
    encode(fc, nc, c->t.c, ec);
    cl_mem A = clf_test_buffer(ctx, na * tsize(c->t.a), ea), B = clf_test_buffer(ctx, nb * tsize(c->t.b), eb);
    cl_mem C = clf_test_buffer(ctx, nc * tsize(c->t.c), ec);
    if (getenv("CLFORGE_TEST_VERBOSE"))
        fprintf(stderr, "case a%d b%d c%d compute %d %s %c%c %zux%zux%zu batch %zu ld %zu %zu %zu off %zu\n", (int)c->t.a,
                (int)c->t.b, (int)c->t.c, (int)c->t.compute, row ? "row" : "col", c->ta == CLF_TRANS ? 'T' : 'N',
                c->tb == CLF_TRANS ? 'T' : 'N', c->m, c->n, c->k, c->batch, c->lda, c->ldb, c->ldc, c->off);
    clf_status s = c->batch == 1
        ? clf_gemm(ctx, &c->t, c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, A, c->off, c->lda, B, c->off,
                   c->ldb, c->beta, C, c->off, c->ldc, NULL)
        : clf_gemm_batched_strided(ctx, &c->t, c->layout, c->ta, c->tb, c->m, c->n, c->k, c->alpha, A, c->off,
                                   c->lda, sa, B, c->off, c->ldb, sb, c->beta, C, c->off, c->ldc, sc, c->batch, NULL);
    ck_assert_msg(s == CLF_SUCCESS, "clf_gemm: %s", clf_last_error());
    clf_test_read(ctx, C, nc * tsize(c->t.c), ec);
    clf__gemm_call probe = {.dtype = CLF_F32, .typed = 1, .a_type = c->t.a, .b_type = c->t.b, .compute = c->t.compute};
    clf__mma_mode mode = clf__mma_wanted(&probe);
    int mma = mode != CLF__MMA_NONE && clf__mma_usable(ctx, mode);
    int bad = 0;
    for (size_t bt = 0; bt < c->batch && !bad; bt++)
        for (size_t i = 0; i < c->m && !bad; i++)
            for (size_t j = 0; j < c->n && !bad; j++) {
                double sum = 0, mag = 0;
                for (size_t p = 0; p < c->k; p++) {
                    size_t ia = c->off + bt * sa + (row ? (c->ta == CLF_NO_TRANS ? i * c->lda + p : p * c->lda + i)
                                                         : (c->ta == CLF_NO_TRANS ? p * c->lda + i : i * c->lda + p));
                    size_t ib = c->off + bt * sb + (row ? (c->tb == CLF_NO_TRANS ? p * c->ldb + j : j * c->ldb + p)
                                                         : (c->tb == CLF_NO_TRANS ? j * c->ldb + p : p * c->ldb + j));
                    sum += (double)fa[ia] * fb[ib];
                    mag += fabs((double)fa[ia] * fb[ib]);
                }
                size_t ic = c->off + bt * sc + (row ? i * c->ldc + j : j * c->ldc + i);
                double ref = c->alpha * sum + (c->beta != 0.0f ? c->beta * (double)fc[ic] : 0.0);
                double got = decode(ec, ic, c->t.c);
                double tol = bound(c, mag + (c->beta != 0.0f ? fabs(c->beta * fc[ic]) : 0), ref, mma);
                if (!(fabs(got - ref) <= tol)) {
                    fprintf(stderr, "mixed gemm a%d b%d c%d compute %d %s %c%c %zux%zux%zu batch %zu: C[%zu][%zu][%zu] = "
                            "%.8g, want %.8g (tol %.3g)\n", (int)c->t.a, (int)c->t.b, (int)c->t.c, (int)c->t.compute,
                            row ? "row" : "col", c->ta == CLF_TRANS ? 'T' : 'N', c->tb == CLF_TRANS ? 'T' : 'N', c->m,
                            c->n, c->k, c->batch, bt, i, j, got, ref, tol);
                    bad = 1;
                }
            }
    /* Outside each matrix, C is untouched. */
    for (size_t bt = 0; bt < c->batch && !bad; bt++)
        for (size_t r = 0; r < cr && !bad; r++)
            for (size_t q = row ? c->n : c->m; q < c->ldc && !bad; q++) {
                size_t ic = c->off + bt * sc + r * c->ldc + q;
                float before = decode(&((char *)ec)[0], ic, c->t.c);
                bad = !(isnan(before) && isnan(fc[ic])) && before != fc[ic];
            }
    clReleaseMemObject(A);
    clReleaseMemObject(B);
    clReleaseMemObject(C);
    free(fa), free(fb), free(fc), free(out), free(ea), free(eb), free(ec);
    return bad;
}

static void random_case(mcase *c, uint64_t *seed, int big)
{
    static const clf_dtype types[] = {CLF_F16, CLF_BF16, CLF_F32};
    uint64_t r = (uint64_t)((clf_test_rand(seed) + 1) * 1e9);
    c->t.a = types[r % 3];
    c->t.b = r % 5 == 0 ? types[(r / 3) % 3] : c->t.a;   /* mostly one input type: the matrix units' case */
    c->t.c = types[(r / 7) % 3];
    c->t.compute = (clf_compute)((r / 11) % 4);
    c->layout = (r / 13) % 2 ? CLF_ROW_MAJOR : CLF_COL_MAJOR;
    c->ta = (r / 17) % 2 ? CLF_TRANS : CLF_NO_TRANS;
    c->tb = (r / 19) % 2 ? CLF_TRANS : CLF_NO_TRANS;
    size_t span = big ? 300 : 70;
    c->m = 1 + (r / 23) % span;
    c->n = 1 + (r / 29) % span;
    c->k = 1 + (r / 31) % (big ? 600 : 90);
    c->batch = (r / 37) % 4 == 0 ? 1 + (r / 41) % 3 : 1;
    int row = c->layout == CLF_ROW_MAJOR;
    size_t acols = (c->ta == CLF_NO_TRANS) == row ? c->k : c->m, bcols = (c->tb == CLF_NO_TRANS) == row ? c->n : c->k;
    size_t ccols = row ? c->n : c->m;
    c->lda = acols + (r / 43) % 3;
    c->ldb = bcols + (r / 47) % 5;
    c->ldc = ccols + (r / 53) % 2;
    c->off = (r / 59) % 3;
    c->alpha = (r / 61) % 4 == 0 ? -0.5f : 1.0f;
    c->beta = (r / 67) % 3 == 0 ? 0.0f : (r / 67) % 3 == 1 ? 1.0f : 0.25f;
}

START_TEST(random_mixed_cases)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    int cases = clf_test_case_count("CLFORGE_GEMM_TEST_CASES", 480) / 4;
    for (int d = 0; d < nctx; d++) {
        uint64_t seed = 1234 + (uint64_t)d;
        int failed = 0;
        for (int i = 0; i < cases; i++) {
            mcase c;
            random_case(&c, &seed, i % 10 == 9);
            failed += run_case(ctxs[d], &c, &seed);
        }
        fprintf(stderr, "gemm_mixed: %d cases on %s, %d failed\n", cases, clf_context_device(ctxs[d])->name, failed);
        ck_assert_int_eq(failed, 0);
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* Products split along K (forced: $CLFORGE_GEMM_SPLIT_K=3): on matrix units the slices write fp32 partial
 * sums and gemm_reduce stores C in its type with alpha and beta; elsewhere the fp32 path splits. Random types,
 * layouts, transposes, offsets and betas, one matrix each, K long enough for three slices; on a device with
 * matrix units the plan must hold the reduction. */
START_TEST(split_k_cases)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    setenv("CLFORGE_GEMM_SPLIT_K", "3", 1);
    int cases = clf_test_case_count("CLFORGE_GEMM_TEST_CASES", 480) / 16;
    for (int d = 0; d < nctx; d++) {
        uint64_t seed = 777 + (uint64_t)d;
        int failed = 0;
        for (int i = 0; i < cases; i++) {
            mcase c;
            random_case(&c, &seed, 0);
            c.batch = 1;
            c.k = 768 + (size_t)((clf_test_rand(&seed) + 1) * 200);   /* three slices of whole stages */
            int row = c.layout == CLF_ROW_MAJOR;
            if ((c.ta == CLF_NO_TRANS) == row)
                c.lda = c.k + c.lda % 3;
            if ((c.tb == CLF_NO_TRANS) != row)
                c.ldb = c.k + c.ldb % 5;
            failed += run_case(ctxs[d], &c, &seed);
        }
        if (clf__mma_usable(ctxs[d], CLF__MMA_F16)) {
            clf__gemm_call call = {.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_TRANS,
                                   .m = 100, .n = 90, .k = 1000, .alpha = 1.0, .lda = 1000, .ldb = 1000, .ldc = 90,
                                   .batch = 1, .typed = 1, .a_type = CLF_F16, .b_type = CLF_F16, .c_type = CLF_BF16};
            clf__gemm_plan plan;
            ck_assert_int_eq(clf__gemm_plan_make(ctxs[d], &call, NULL, CLF__GEMM_AUTO, &plan), CLF_SUCCESS);
            ck_assert_str_eq(plan.path, "mma-split");
        }
        fprintf(stderr, "gemm_mixed: %d split-K cases on %s, %d failed\n", cases, clf_context_device(ctxs[d])->name,
                failed);
        ck_assert_int_eq(failed, 0);
    }
    unsetenv("CLFORGE_GEMM_SPLIT_K");
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* Products of a few hundred rows or columns, which the planner runs on wgmma tiles chosen for the shape (64 x 128 or
 * 64 x 64, derived from the entry: reshape_wgmma in gemm_plan.c): f16, bf16 and tf32 inputs, random C types,
 * layouts, transposes, offsets, alpha and beta (0 over a C of NaN), odd sizes and a short K (the rule looks at the
 * tiles only, and a short K keeps the reference cheap), one batch of two; checked against the reference. On a device
 * whose matrix units run wgmma most of them must take such tiles; elsewhere they run on the path the device has
 * (still checked). */
START_TEST(shape_tiles_cases)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    static const size_t shapes[][4] = {{112, 7168, 40, 1}, {300, 12288, 72, 1}, {177, 9215, 33, 1},
                                       {9216, 176, 50, 1}, {700, 1300, 24, 1}, {833, 2561, 64, 2}};
    static const clf_dtype out[] = {CLF_F32, CLF_F16, CLF_BF16};
    for (int d = 0; d < nctx; d++) {
        uint64_t seed = 9090 + (uint64_t)d;
        int failed = 0, cases = 0, shaped = 0;
        int mma = clf__mma_usable(ctxs[d], CLF__MMA_F16);
        clf__config entry;
        const char *origin;
        int wgmma = mma && clf__mma_config(ctxs[d], CLF__MMA_F16, &entry, &origin) == CLF_SUCCESS &&
                    entry.v[CLF__MMA_WGMMA] && entry.v[CLF__MMA_BM] == 128 && entry.v[CLF__MMA_BN] == 128;
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            for (int rep = 0; rep < (mma ? 3 : 1); rep++, cases++) {
                mcase c;
                random_case(&c, &seed, 0);
                int pick = (int)(cases % 3);
                c.t.a = c.t.b = pick == 0 ? CLF_F16 : pick == 1 ? CLF_BF16 : CLF_F32;
                c.t.compute = pick == 2 ? CLF_COMPUTE_TF32 : CLF_COMPUTE_EXACT;
                c.t.c = out[clf_test_rand_u64(&seed) % 3];
                c.m = shapes[i][0], c.n = shapes[i][1], c.k = shapes[i][2], c.batch = shapes[i][3];
                int row = c.layout == CLF_ROW_MAJOR;
                c.lda = ((c.ta == CLF_NO_TRANS) == row ? c.k : c.m) + c.lda % 3;
                c.ldb = ((c.tb == CLF_NO_TRANS) == row ? c.n : c.k) + c.ldb % 5;
                c.ldc = (row ? c.n : c.m) + c.ldc % 2;
                clf__gemm_call call = {.dtype = CLF_F32, .layout = c.layout, .ta = c.ta, .tb = c.tb, .m = c.m, .n = c.n,
                                       .k = c.k, .alpha = c.alpha, .beta = c.beta, .lda = c.lda, .ldb = c.ldb,
                                       .ldc = c.ldc, .batch = c.batch, .typed = 1, .a_type = c.t.a, .b_type = c.t.b,
                                       .c_type = c.t.c, .compute = c.t.compute};   /* planned as clf_gemm plans it */
                clf__gemm_plan plan;
                if (mma && clf__gemm_plan_make(ctxs[d], &call, NULL, CLF__GEMM_AUTO, &plan) == CLF_SUCCESS)
                    for (int j = 0; j < plan.nsteps; j++)
                        shaped += plan.steps[j].kind == CLF__STEP_MMA && plan.steps[j].u.mma.cfg->v[CLF__MMA_BM] == 64 &&
                                  plan.steps[j].u.mma.cfg->v[CLF__MMA_WM] == 64;
                failed += run_case(ctxs[d], &c, &seed);
            }
        fprintf(stderr, "gemm_mixed: %d shape-tile cases on %s, %d on 64-row wgmma tiles, %d failed\n", cases,
                clf_context_device(ctxs[d])->name, shaped, failed);
        ck_assert_int_eq(failed, 0);
        if (wgmma)
            ck_assert_msg(2 * shaped >= cases, "only %d of %d cases on the tiles chosen for the shape", shaped, cases);
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* f16/bf16 operands stored K-major (B stored K x N, as x W has it; A stored K x M) with rows of K 16-byte aligned,
 * read in place on matrix units that can (the "kmajor" configuration for products of few rows, or an mma.sync
 * "all" configuration): random types of C, odd M, N and K, offsets, batches, alpha and beta, every third case
 * split along K, checked against the reference; where the matrix units run the product, the plan packs no K-major
 * operand. Needs NVIDIA matrix units: elsewhere the cases run on the portable path (still checked). */
START_TEST(kmajor_read_in_place)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    static const clf_dtype in[] = {CLF_F16, CLF_BF16}, out[] = {CLF_F32, CLF_F16, CLF_BF16};
    for (int d = 0; d < nctx; d++) {
        uint64_t seed = 4242 + (uint64_t)d;
        int failed = 0, in_place = 0, mma = clf__mma_usable(ctxs[d], CLF__MMA_F16);
        int cases = mma ? 36 : 6;
        for (int i = 0; i < cases; i++) {
            uint64_t r = (uint64_t)((clf_test_rand(&seed) + 1) * 1e9);
            mcase c = {.t = {in[r % 2], in[r % 2], out[(r / 2) % 3], CLF_COMPUTE_EXACT}, .layout = CLF_ROW_MAJOR,
                       .ta = i % 3 == 1 ? CLF_TRANS : CLF_NO_TRANS, .tb = i % 3 == 2 ? CLF_TRANS : CLF_NO_TRANS,
                       .m = 17 + (r / 7) % 300, .n = 1 + (r / 11) % 400, .k = 1 + (r / 13) % 700,
                       .batch = (r / 17) % 4 == 0 ? 2 : 1, .off = 8 * ((r / 19) % 3),
                       .alpha = (r / 23) % 2 ? 1.0f : -0.75f, .beta = (r / 29) % 3 == 0 ? 0.0f : 0.5f};
            if (c.tb == CLF_TRANS)   /* then A is the K-major one: few columns */
                c.ta = CLF_TRANS, c.n = 17 + c.n % 200, c.m = 65 + c.m;
            int split = i % 3 == 0 && c.batch == 1;
            if (split) {
                c.k = 700 + c.k;
                setenv("CLFORGE_GEMM_SPLIT_K", "3", 1);
            }
            c.lda = (c.ta == CLF_TRANS ? (c.m + 7) / 8 * 8 : c.k) + 8 * ((r / 31) % 2);
            c.ldb = (c.tb == CLF_TRANS ? c.k : (c.n + 7) / 8 * 8) + 8 * ((r / 37) % 2);
            c.ldc = c.n + (r / 41) % 3;
            failed += run_case(ctxs[d], &c, &seed);
            clf__gemm_call call = {.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = c.ta, .tb = c.tb, .m = c.m,
                                   .n = c.n, .k = c.k, .alpha = c.alpha, .beta = c.beta, .lda = c.lda, .ldb = c.ldb,
                                   .ldc = c.ldc, .batch = c.batch, .typed = 1, .a_type = c.t.a, .b_type = c.t.b,
                                   .c_type = c.t.c};
            clf__gemm_plan plan;
            ck_assert_int_eq(clf__gemm_plan_make(ctxs[d], &call, NULL, CLF__GEMM_AUTO, &plan), CLF_SUCCESS);
            if (split)
                unsetenv("CLFORGE_GEMM_SPLIT_K");
            if (!mma || strncmp(plan.path, "mma", 3) != 0)
                continue;   /* the portable path, or thin products on the gemv kernels */
            for (int j = 0; j < plan.nsteps; j++)
                ck_assert_msg(plan.steps[j].kind != CLF__STEP_CONVERT || !plan.steps[j].u.convert.src_kmajor,
                              "%zux%zux%zu %c%c: a K-major operand packed", c.m, c.n, c.k, c.ta == CLF_TRANS ? 'T' : 'N',
                              c.tb == CLF_TRANS ? 'T' : 'N');
            in_place++;
        }
        fprintf(stderr, "gemm_mixed: %d K-major cases on %s (%d on the matrix units), %d failed\n", cases,
                clf_context_device(ctxs[d])->name, in_place, failed);
        ck_assert_int_eq(failed, 0);
        if (mma)
            ck_assert_int_gt(in_place, cases / 2);
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* Operands whose rows are 32-byte aligned are read in place by the matrix units even when M, N or K end
 * inside a tile (K a whole number of 16-byte pieces): the copies zero-fill past the edges, and no pre-pass
 * runs. Row-major A (M x K) and B stored N x K, odd M and N, K not a multiple of any stage, alpha and beta,
 * every C type; on a device with matrix units the plan must have no conversion step. */
START_TEST(edges_read_in_place)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    static const size_t shapes[][3] = {{97, 83, 40}, {131, 259, 200}, {300, 65, 136}, {1, 129, 8}, {257, 1, 1000}};
    static const clf_dtype in[] = {CLF_F16, CLF_BF16, CLF_F32};
    static const clf_dtype out[] = {CLF_F32, CLF_F16, CLF_BF16};
    for (int d = 0; d < nctx; d++) {
        uint64_t seed = 99 + (uint64_t)d;
        int failed = 0, cases = 0;
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (int t = 0; t < 3; t++) {
                mcase c = {.t = {in[t], in[t], out[(si + (size_t)t) % 3], t == 2 ? CLF_COMPUTE_TF32 : CLF_COMPUTE_EXACT},
                           .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_TRANS, .m = shapes[si][0],
                           .n = shapes[si][1], .k = shapes[si][2], .batch = 1, .off = 0,
                           .alpha = si % 2 ? 1.0f : -0.5f, .beta = si % 3 == 0 ? 0.0f : 0.5f};
                /* rows 16-byte aligned (f16, bf16) or 32-byte, every other shape */
                c.lda = c.ldb = si % 2 ? (c.k + 7) / 8 * 8 : (c.k + 15) / 16 * 16;
                c.ldc = c.n + 1;
                failed += run_case(ctxs[d], &c, &seed);
                cases++;
                clf__gemm_call call = {.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_TRANS,
                                       .m = c.m, .n = c.n, .k = c.k, .alpha = 1.0, .lda = c.lda, .ldb = c.ldb, .ldc = c.ldc,
                                       .batch = 1, .typed = 1, .a_type = in[t], .b_type = in[t], .c_type = c.t.c,
                                       .compute = c.t.compute};
                clf__mma_mode mode = clf__mma_wanted(&call);
                clf__config cfg;
                const char *origin;
                if (!clf__mma_usable(ctxs[d], mode) || clf__mma_config(ctxs[d], mode, &cfg, &origin) != CLF_SUCCESS ||
                    !cfg.v[CLF__MMA_ASYNC])
                    continue;
                clf__gemm_plan plan;
                ck_assert_int_eq(clf__gemm_plan_make(ctxs[d], &call, NULL, CLF__GEMM_AUTO, &plan), CLF_SUCCESS);
                if (strncmp(plan.path, "mma", 3) != 0)
                    continue;   /* thin products take the gemv kernels */
                for (int i = 0; i < plan.nsteps; i++)
                    ck_assert_msg(plan.steps[i].kind != CLF__STEP_CONVERT, "%zux%zux%zu: a conversion step", c.m, c.n, c.k);
            }
        fprintf(stderr, "gemm_mixed: %d edge cases on %s, %d failed\n", cases, clf_context_device(ctxs[d])->name, failed);
        ck_assert_int_eq(failed, 0);
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* Thin typed products (m or n within the gemv kernels' thin rule) on every device: random storage types,
 * layouts, transposes, offsets, betas and batches, checked against the reference; the plan is one gemv step that
 * reads the operands and writes C in their own types (a_store, x_store, y_store): no conversions. */
START_TEST(thin_products)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    for (int d = 0; d < nctx; d++) {
        uint64_t seed = 4711 + (uint64_t)d;
        int failed = 0;
        for (int i = 0; i < 24; i++) {
            mcase c;
            random_case(&c, &seed, 1);
            size_t few = 1 + clf_test_rand_u64(&seed) % 8;
            if (i % 2)
                c.m = few;
            else
                c.n = few;
            int row = c.layout == CLF_ROW_MAJOR;
            size_t acols = (c.ta == CLF_NO_TRANS) == row ? c.k : c.m, bcols = (c.tb == CLF_NO_TRANS) == row ? c.n : c.k;
            c.lda = acols + (size_t)(i % 3), c.ldb = bcols + (size_t)(i % 2), c.ldc = (row ? c.n : c.m) + (size_t)(i % 2);
            if (i % 3 == 2)   /* every device: several vectors on gemv_tile (fp32 operands, C in any type) */
                setenv("CLFORGE_GEMV_CONFIG", "THIN=16 TINY=0 TM=2 WG=64", 1);
            failed += run_case(ctxs[d], &c, &seed);
            clf__gemm_call call = {.dtype = CLF_F32, .layout = c.layout, .ta = c.ta, .tb = c.tb, .m = c.m, .n = c.n,
                                   .k = c.k, .alpha = 1.0, .lda = c.lda, .ldb = c.ldb, .ldc = c.ldc, .batch = c.batch,
                                   .typed = 1, .a_type = c.t.a, .b_type = c.t.b, .c_type = c.t.c, .compute = c.t.compute};
            clf__gemm_plan plan;
            ck_assert_int_eq(clf__gemm_plan_make(ctxs[d], &call, NULL, CLF__GEMM_AUTO, &plan), CLF_SUCCESS);
            unsetenv("CLFORGE_GEMV_CONFIG");
            if (strcmp(plan.path, "gemv") != 0 && strcmp(plan.path, "thin") != 0)
                continue;   /* past this device's thin rule */
            for (int s = 0; s < plan.nsteps; s++) {
                const clf__gemm_step *st = &plan.steps[s];
                ck_assert_msg(st->kind == CLF__STEP_GEMV, "%zux%zux%zu: a step other than gemv", c.m, c.n, c.k);
                clf_dtype streamed = c.n <= c.m ? c.t.a : c.t.b, vec = c.n <= c.m ? c.t.b : c.t.a;
                if (c.layout == CLF_COL_MAJOR)
                    streamed = c.m <= c.n ? c.t.b : c.t.a, vec = c.m <= c.n ? c.t.a : c.t.b;
                ck_assert_int_eq(st->u.gemv.a_store, streamed == CLF_F16 ? 16 : streamed == CLF_BF16 ? 17 : 0);
                ck_assert_int_eq(st->u.gemv.x_store, vec == CLF_F16 ? 16 : vec == CLF_BF16 ? 17 : 0);
                ck_assert_int_eq(st->u.gemv.y_store, c.t.c == CLF_F16 ? 16 : c.t.c == CLF_BF16 ? 17 : 0);
            }
        }
        fprintf(stderr, "gemm_mixed: 24 thin cases on %s, %d failed\n", clf_context_device(ctxs[d])->name, failed);
        ck_assert_int_eq(failed, 0);
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* Every f16 bit pattern through the gemv kernels' widening loads (A stored K x M, k = 1, B = 1: C is A exactly):
 * normals, subnormals, zeros, infinities and NaN, exactly (-0 comes out +0: the sum starts at +0). */
START_TEST(thin_f16_widening)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    enum { M = 65536 };
    uint16_t *ha = malloc(M * 2), one = 0x3c00;
    float *hc = malloc(M * 4);
    ck_assert(ha && hc);
    for (int i = 0; i < M; i++)
        ha[i] = (uint16_t)i;
    clf_gemm_types t = {CLF_F16, CLF_F16, CLF_F32, CLF_COMPUTE_EXACT};
    for (int d = 0; d < nctx; d++) {
        cl_mem A = clf_test_buffer(ctxs[d], M * 2, ha), B = clf_test_buffer(ctxs[d], 2, &one);
        cl_mem C = clf_test_buffer(ctxs[d], M * 4, NULL);
        ck_assert_int_eq(clf_gemm(ctxs[d], &t, CLF_ROW_MAJOR, CLF_TRANS, CLF_NO_TRANS, M, 1, 1, 1.0f, A, 0, M, B, 0, 1,
                                  0.0f, C, 0, 1, NULL),
                         CLF_SUCCESS);
        clf_test_read(ctxs[d], C, M * 4, hc);
        int bad = 0;
        for (int i = 0; i < M && bad < 3; i++) {
            float want = half_to_float((uint16_t)i);
            if (isnan(want) ? !isnan(hc[i]) : hc[i] != want) {   /* -0 sums to +0 */
                fprintf(stderr, "f16 0x%04x widened to %a, want %a\n", i, (double)hc[i], (double)want);
                bad++;
            }
        }
        ck_assert_int_eq(bad, 0);
        clReleaseMemObject(A);
        clReleaseMemObject(B);
        clReleaseMemObject(C);
    }
    free(ha);
    free(hc);
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* gemm_reduce, which ends a split product on the matrix units, stores C in f16, bf16 or fp32 (CTYPE): the sum of
 * fp32 partial planes times alpha, plus beta times the old C (never read when beta is 0: NaN there stays out),
 * within C's rounding, and nothing outside the m x n block. Run on every device, so that CI covers the stores
 * that only GPUs with matrix units reach through the planner. */
START_TEST(reduce_stores_c_types)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    enum { M = 5, N = 7, LDC = 9, OFF = 2, PLANES = 3, NC = OFF + M * LDC };
    static const clf_dtype types[] = {CLF_F16, CLF_BF16, CLF_F32};
    const char *src;
    ck_assert_int_eq(clf__source("gemm_reduce.cl", &src), CLF_SUCCESS);
    uint64_t seed = 31;
    for (int d = 0; d < nctx; d++)
        for (int t = 0; t < 3; t++)
            for (int b = 0; b < 2; b++) {
                clf_context *ctx = ctxs[d];
                clf_dtype ct = types[t];
                float p[PLANES * M * N], old[NC], back[NC];
                unsigned char enc[NC * 4], got[NC * 4];
                float alpha = 0.75f, beta = b ? 0.5f : 0.0f;
                clf_test_rand_f32(p, PLANES * M * N, &seed);
                for (int i = 0; i < NC; i++)
                    old[i] = b ? stored((float)clf_test_rand(&seed), ct) : NAN;
                encode(old, NC, ct, enc);
                cl_mem P = clf_test_buffer(ctx, sizeof p, p), C = clf_test_buffer(ctx, NC * tsize(ct), enc);
                char opts[64];
                snprintf(opts, sizeof opts, "-DPRECISION=32 -DCTYPE=%d", ct == CLF_F32 ? 0 : ct == CLF_F16 ? 16 : 17);
                cl_kernel k;
                ck_assert_msg(clf__kernel_take(ctx, src, opts, "gemm_reduce", &k) == CLF_SUCCESS, "%s", clf_last_error());
                cl_long m = M, n = N, ldc = LDC;
                cl_int planes = PLANES;
                cl_ulong plane = M * N, off = OFF;
                const void *v[] = {&m, &n, &planes, &alpha, &beta, &P, &plane, &C, &off, &ldc};
                size_t z[] = {8, 8, 4, 4, 4, sizeof(cl_mem), 8, sizeof(cl_mem), 8, 8};
                for (cl_uint i = 0; i < 10; i++)
                    ck_assert_int_eq(clSetKernelArg(k, i, z[i], v[i]), CL_SUCCESS);
                size_t global = 64, local = 64;
                ck_assert_int_eq(clEnqueueNDRangeKernel(clf_context_queue(ctx), k, 1, NULL, &global, &local, 0, NULL,
                                                        NULL), CL_SUCCESS);
                clf__kernel_give(ctx, k);
                clf_test_read(ctx, C, NC * tsize(ct), got);
                for (int i = 0; i < NC; i++)
                    back[i] = decode(got, (size_t)i, ct);
                double unit = ct == CLF_F16 ? ldexp(1, -11) : ct == CLF_BF16 ? ldexp(1, -8) : ldexp(1, -23);
                for (int i = 0; i < NC; i++) {
                    int r = (i - OFF) / LDC, c = (i - OFF) % LDC;
                    if (i < OFF || c >= N) {   /* outside the block: as it was */
                        ck_assert_msg(back[i] == old[i] || (isnan(back[i]) && isnan(old[i])), "C[%d] was touched", i);
                        continue;
                    }
                    double sum = 0;
                    for (int s2 = 0; s2 < PLANES; s2++)
                        sum += p[s2 * M * N + r * N + c];
                    double ref = alpha * sum + (b ? beta * (double)old[i] : 0.0);
                    ck_assert_msg(fabs(back[i] - ref) <= unit * fabs(ref) + 1e-6, "type %d beta %g: C[%d][%d] = %.8g, want %.8g",
                                  (int)ct, beta, r, c, back[i], ref);
                }
                clReleaseMemObject(P);
                clReleaseMemObject(C);
            }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* 3xTF32 and 3xF16 are fp32-accurate modes: at k = 4096 their error is at most twice the exact fp32 path's. */
START_TEST(three_tf32_is_fp32_accurate)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    enum { M = 64, N = 64, K = 4096 };
    float *a = malloc(M * K * 4), *b = malloc(K * N * 4), *c = malloc(M * N * 4);
    ck_assert(a && b && c);
    uint64_t seed = 5;
    clf_test_rand_f32(a, M * K, &seed);
    clf_test_rand_f32(b, K * N, &seed);
    for (int d = 0; d < nctx; d++) {
        clf_context *ctx = ctxs[d];
        cl_mem A = clf_test_buffer(ctx, M * K * 4, a), B = clf_test_buffer(ctx, K * N * 4, b);
        cl_mem C = clf_test_buffer(ctx, M * N * 4, NULL);
        double err[3];
        const clf_compute modes[] = {CLF_COMPUTE_EXACT, CLF_COMPUTE_3XTF32, CLF_COMPUTE_3XF16};
        for (int mode = 0; mode < 3; mode++) {
            clf_gemm_types t = {CLF_F32, CLF_F32, CLF_F32, modes[mode]};
            ck_assert_int_eq(clf_gemm(ctx, &t, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, M, N, K, 1.0f, A, 0, K, B, 0,
                                      N, 0.0f, C, 0, N, NULL),
                             CLF_SUCCESS);
            clf_test_read(ctx, C, M * N * 4, c);
            double e2 = 0;
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double ref = 0;
                    for (int p = 0; p < K; p++)
                        ref += (double)a[i * K + p] * b[p * N + j];
                    e2 += (c[i * N + j] - ref) * (c[i * N + j] - ref);
                }
            err[mode] = sqrt(e2 / (M * N));
        }
        fprintf(stderr, "gemm_mixed: k = 4096 rms error on %s: fp32 %.3g, 3xTF32 %.3g, 3xF16 %.3g\n",
                clf_context_device(ctx)->name, err[0], err[1], err[2]);
        ck_assert_msg(err[1] <= 2 * err[0] + 1e-7, "3xTF32 error %.3g vs fp32 %.3g", err[1], err[0]);
        ck_assert_msg(err[2] <= 2 * err[0] + 1e-7, "3xF16 error %.3g vs fp32 %.3g", err[2], err[0]);
        clReleaseMemObject(A);
        clReleaseMemObject(B);
        clReleaseMemObject(C);
    }
    free(a), free(b), free(c);
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* The split modes element by element. 3xF16 scales each row of A and column of B by a power of two: rows and
 * columns of magnitudes 2^-60 to 2^60 keep fp32's accuracy (within the bound of the exact path, relative to
 * sum |a b|); 3xTF32 keeps tf32's (fp32's) exponents, over 2^-30 to 2^30 (its remainders of smaller rows would be
 * subnormal, which the units may flush). In both, inf and NaN reach C as they do in fp32, also where they meet an
 * element whose remainder is 0, and a K-major A, B stored N x K, batches and splits along K see the same. */
static void split_mode_elementwise(clf_compute compute, int span)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    enum { M = 150, N = 70, K = 700, BATCH = 2 };
    float *a = malloc(BATCH * M * K * 4), *b = malloc(BATCH * K * N * 4), *c = malloc(BATCH * M * N * 4);
    ck_assert(a && b && c);
    uint64_t seed = 77;
    clf_test_rand_f32(a, BATCH * M * K, &seed);
    clf_test_rand_f32(b, BATCH * K * N, &seed);
    for (int q = 0; q < BATCH; q++) {
        for (int i = 0; i < M; i++)   /* A stored K x M (transposed): row i of A is column i */
            for (int p = 0; p < K; p++)
                a[q * M * K + p * M + i] = ldexpf(a[q * M * K + p * M + i], (i * 37 + q) % (2 * span + 1) - span);
        for (int j = 0; j < N; j++)   /* B stored N x K */
            for (int p = 0; p < K; p++)
                b[q * K * N + j * K + p] = ldexpf(b[q * K * N + j * K + p], (j * 53 + q) % (2 * span + 1) - span);
        for (int j = 0; j < N; j += 3)   /* partners of the infinities below with a remainder of 0 */
            b[q * K * N + j * K + 3] = ldexpf(1.5f, (j * 53 + q) % (2 * span + 1) - span);
        for (int i = 0; i < M; i += 4)
            a[q * M * K + 20 * M + i] = ldexpf(-0.75f, (i * 37 + q) % (2 * span + 1) - span);
    }
    a[3 * M + 5] = INFINITY;           /* A[5][3] */
    a[M * K + 10 * M + 7] = NAN;       /* batch 1, A[7][10] */
    b[9 * K + 20] = -INFINITY;         /* B[20][9] (B^T[9][20]) */
    for (int d = 0; d < nctx; d++) {
        clf_context *ctx = ctxs[d];
        cl_mem A = clf_test_buffer(ctx, BATCH * M * K * 4, a), B = clf_test_buffer(ctx, BATCH * K * N * 4, b);
        cl_mem C = clf_test_buffer(ctx, BATCH * M * N * 4, NULL);
        clf_gemm_types t = {CLF_F32, CLF_F32, CLF_F32, compute};
        for (int split = 0; split < 2; split++) {
            if (split)
                setenv("CLFORGE_GEMM_SPLIT_K", "3", 1);
            clf_status s = split ? clf_gemm(ctx, &t, CLF_ROW_MAJOR, CLF_TRANS, CLF_TRANS, M, N, K, 1.0f, A, 0, M, B, 0,
                                            K, 0.0f, C, 0, N, NULL)
                                 : clf_gemm_batched_strided(ctx, &t, CLF_ROW_MAJOR, CLF_TRANS, CLF_TRANS, M, N, K, 1.0f,
                                                            A, 0, M, M * K, B, 0, K, K * N, 0.0f, C, 0, N, M * N, BATCH,
                                                            NULL);
            unsetenv("CLFORGE_GEMM_SPLIT_K");
            ck_assert_msg(s == CLF_SUCCESS, "clf_gemm compute %d: %s", (int)compute, clf_last_error());
            clf_test_read(ctx, C, (split ? 1 : BATCH) * M * N * 4, c);
            int bad = 0;
            for (int q = 0; q < (split ? 1 : BATCH) && !bad; q++)
                for (int i = 0; i < M && !bad; i++)
                    for (int j = 0; j < N && !bad; j++) {
                        double ref = 0, mag = 0;
                        for (int p = 0; p < K; p++) {
                            double x = (double)a[q * M * K + p * M + i] * b[q * K * N + j * K + p];
                            ref += x;
                            mag += fabs(x);
                        }
                        double got = c[q * M * N + i * N + j];
                        if (!isfinite(ref))
                            bad = !(isnan(ref) ? isnan(got) : got == ref);
                        else
                            bad = !(fabs(got - ref) <= 2.0 * (K + 2) * ldexp(1, -24) * mag + 1e-37);
                        if (bad)
                            fprintf(stderr, "compute %d on %s (split %d): C[%d][%d][%d] = %.9g, want %.9g (sum |ab| %.3g)\n",
                                    (int)compute, clf_context_device(ctx)->name, split, q, i, j, got, ref, mag);
                    }
            ck_assert_int_eq(bad, 0);
        }
        clReleaseMemObject(A);
        clReleaseMemObject(B);
        clReleaseMemObject(C);
    }
    free(a), free(b), free(c);
    clf_test_contexts_free(ctxs, nctx);
}

START_TEST(three_f16_scales_rows) { split_mode_elementwise(CLF_COMPUTE_3XF16, 60); }
END_TEST

START_TEST(three_tf32_elementwise) { split_mode_elementwise(CLF_COMPUTE_3XTF32, 30); }
END_TEST

/* A failing self-test sends every mode to the portable path, which still answers correctly. */
START_TEST(failed_selftest_falls_back)
{
    setenv("CLFORGE_MMA_SELFTEST", "fail", 1);
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    uint64_t seed = 99;
    for (int d = 0; d < nctx; d++) {
        ck_assert_int_eq(clf__mma_usable(ctxs[d], CLF__MMA_F16), 0);
        mcase c = {{CLF_F16, CLF_F16, CLF_F32, CLF_COMPUTE_EXACT}, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_TRANS,
                   130, 70, 96, 1, 96, 96, 70, 0, 1.0f, 0.0f};
        ck_assert_int_eq(run_case(ctxs[d], &c, &seed), 0);
    }
    clf_test_contexts_free(ctxs, nctx);
    unsetenv("CLFORGE_MMA_SELFTEST");
}
END_TEST

/* A self-test that fails only on wgmma turns wgmma off for the device and mma.sync answers (on devices
 * without wgmma nothing changes); CLFORGE_WGMMA=off does the same from the start. Both still answer right. */
static void check_wgmma_off(const char *var, const char *value)
{
    setenv(var, value, 1);
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    uint64_t seed = 7;
    for (int d = 0; d < nctx; d++) {
        int usable = clf__mma_usable(ctxs[d], CLF__MMA_F16);
        if (clf_context_device(ctxs[d])->nv_cc == 90)   /* the default runs wgmma there */
            ck_assert_msg(usable && clf__wgmma_off(ctxs[d]), "mma.sync should answer, wgmma off");
        mcase c = {{CLF_F16, CLF_F16, CLF_F32, CLF_COMPUTE_EXACT}, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_TRANS,
                   130, 70, 96, 1, 96, 96, 70, 0, 1.0f, 0.0f};
        ck_assert_int_eq(run_case(ctxs[d], &c, &seed), 0);
    }
    clf_test_contexts_free(ctxs, nctx);
    unsetenv(var);
}

/* A failed self-test of K-major operands read in place turns that route off for the device: such operands are
 * packed first, as before, and the answers stay right. */
START_TEST(failed_kmajor_selftest_packs)
{
    setenv("CLFORGE_MMA_SELFTEST", "fail-kmajor", 1);
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    for (int d = 0; d < nctx; d++) {
        uint64_t seed = 31 + (uint64_t)d;
        mcase c = {.t = {CLF_F16, CLF_F16, CLF_F16, CLF_COMPUTE_EXACT}, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS,
                   .tb = CLF_NO_TRANS, .m = 100, .n = 136, .k = 200, .batch = 1, .lda = 200, .ldb = 136, .ldc = 136,
                   .alpha = 1.0f};
        ck_assert_int_eq(run_case(ctxs[d], &c, &seed), 0);
        clf__config cfg;
        const char *origin;
        ck_assert_int_eq(clf__mma_kmajor_config(ctxs[d], CLF__MMA_F16, &cfg, &origin), 0);
    }
    clf_test_contexts_free(ctxs, nctx);
    unsetenv("CLFORGE_MMA_SELFTEST");
}
END_TEST

START_TEST(failed_wgmma_selftest_falls_back) { check_wgmma_off("CLFORGE_MMA_SELFTEST", "fail-wgmma"); }
END_TEST

START_TEST(wgmma_off_by_variable) { check_wgmma_off("CLFORGE_WGMMA", "off"); }
END_TEST

/* Argument checks of the typed entry. */
START_TEST(typed_arguments)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    clf_context *ctx = ctxs[0];
    cl_mem x = clf_test_buffer(ctx, 256, NULL);
    clf_gemm_types bad = {(clf_dtype)7, CLF_F16, CLF_F32, CLF_COMPUTE_EXACT};
    ck_assert_int_eq(clf_gemm(ctx, &bad, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, 4, 4, 4, 1, x, 0, 4, x, 0, 4, 0, x,
                              32, 4, NULL),
                     CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf_gemm(ctx, NULL, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, 4, 4, 4, 1, x, 0, 4, x, 0, 4, 0, x,
                              32, 4, NULL),
                     CLF_ERR_INVALID_ARG);
    clf_gemm_types f16 = {CLF_F16, CLF_F16, CLF_F16, CLF_COMPUTE_EXACT};
    /* 4x4 f16 C at element 120 ends at byte 272: past the 256-byte buffer. */
    ck_assert_int_eq(clf_gemm(ctx, &f16, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, 4, 4, 4, 1, x, 0, 4, x, 16, 4, 0,
                              x, 122, 4, NULL),
                     CLF_ERR_INVALID_ARG);
    clf_gemm_types mode = {CLF_F32, CLF_F32, CLF_F32, (clf_compute)5};
    ck_assert_int_eq(clf_gemm(ctx, &mode, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, 4, 4, 4, 1, x, 0, 4, x, 16, 4, 0,
                              x, 32, 4, NULL),
                     CLF_ERR_INVALID_ARG);
    clReleaseMemObject(x);
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

int main(void)
{
    /* the split modes' kernels on every shape: by default small products run as exact fp32 (test_gemm_plan
     * split_rule_classes), and these cases are small */
    setenv("CLFORGE_GEMM_SPLIT_RULE", "off", 1);
    Suite *s = suite_create("gemm_mixed");
    CLF_TEST_ALONE(s, convert_round_trips);
    CLF_TEST_ALONE(s, pack_kernel);
    CLF_TEST_ALONE(s, thin_products);
    CLF_TEST_ALONE(s, thin_f16_widening);
    CLF_TEST_ALONE(s, random_mixed_cases);
    CLF_TEST_ALONE(s, split_k_cases);
    CLF_TEST_ALONE(s, shape_tiles_cases);
    CLF_TEST_ALONE(s, edges_read_in_place);
    CLF_TEST_ALONE(s, reduce_stores_c_types);
    CLF_TEST_ALONE(s, three_tf32_is_fp32_accurate);
    CLF_TEST_ALONE(s, three_f16_scales_rows);
    CLF_TEST_ALONE(s, three_tf32_elementwise);
    CLF_TEST_ALONE(s, split_pack_kernel);
    CLF_TEST_ALONE(s, failed_selftest_falls_back);
    CLF_TEST_ALONE(s, kmajor_read_in_place);
    CLF_TEST_ALONE(s, failed_kmajor_selftest_packs);
    CLF_TEST_ALONE(s, failed_wgmma_selftest_falls_back);
    CLF_TEST_ALONE(s, wgmma_off_by_variable);
    CLF_TEST_ALONE(s, typed_arguments);
    return clf_test_run(s);
}
