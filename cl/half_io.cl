/* half_io.cl — 16-bit storage for map.cl, reduce.cl and gemv.cl (taken with `#include "half_io.cl"`). IEEE half is
 * read and written with vload_half / vstore_half_rte, core OpenCL that needs no cl_khr_fp16; bfloat16 is the
 * high half of a float: widened by a shift, narrowed by to_bf16 (bf16.cl), rounding to nearest even.
 * Expects bf16.cl before it (includes are one level deep), CLF_F64 (compute in double) and, for the vector
 * forms, VW > 1, as map.cl defines them. */

#if CLF_F64
/* double -> bfloat16 in one rounding: truncate to float and set the last bit when inexact (round to odd,
 * which keeps the sticky information), then round that float to nearest even. Rounding through a plain
 * float conversion would round twice and miss ties. */
static inline ushort f64_to_bf16(double d)
{
    float f = convert_float_rtz(d);
    return to_bf16(as_float(as_uint(f) | ((double)f != d ? 1u : 0u)));
}
#define CLF_TO_BF16(x) f64_to_bf16(x)
#else
#define CLF_TO_BF16(x) to_bf16(x)
#endif

#if defined(VW) && VW > 1
#define CLF_UV CLF_CAT(uint, VW)
/* to_bf16 on VW lanes at once. */
static inline CLF_CAT(ushort, VW) to_bf16_vf(CLF_CAT(float, VW) f)
{
    CLF_UV u = CLF_CAT(as_uint, VW)(f);
    CLF_UV r = (u + (CLF_UV)0x7fffu + ((u >> 16) & (CLF_UV)1u)) >> 16;
    CLF_UV q = (u >> 16) | (CLF_UV)0x40u;   /* NaN stays a quiet NaN */
    return CLF_CAT(convert_ushort, VW)(select(r, q, (u & (CLF_UV)0x7fffffffu) > (CLF_UV)0x7f800000u));
}
#define CLF_BF16_LOADV(s) CLF_CAT(as_float, VW)(CLF_CAT(convert_uint, VW)(s) << 16)
#if CLF_F64
static inline CLF_CAT(ushort, VW) to_bf16_vd(CLF_CAT(double, VW) d)
{
    CLF_CAT(float, VW) f = CLF_CAT(CLF_CAT(convert_float, VW), _rtz)(d);
    CLF_UV odd = CLF_CAT(convert_uint, VW)(CLF_CAT(convert_double, VW)(f) != d) & (CLF_UV)1u;
    return to_bf16_vf(CLF_CAT(as_float, VW)(CLF_CAT(as_uint, VW)(f) | odd));
}
#define CLF_TO_BF16V(x) to_bf16_vd(x)
#else
#define CLF_TO_BF16V(x) to_bf16_vf(x)
#endif
#endif
