/* bf16.cl — bfloat16 conversion shared by gemm_convert.cl and gemm_mma.cl (taken with `#include "bf16.cl"`,
 * expanded by host/runtime/sources.c). bfloat16 is the high 16 bits of a float; no extension is needed. */

/* bfloat16 bits -> float: the high half of the float, exactly. */
static inline float bf16_to_f32(ushort h) { return as_float((uint)h << 16); }

/* float -> bfloat16 bits, rounded to nearest even; a NaN stays a (quiet) NaN. */
static inline ushort to_bf16(float f)
{
    uint u = as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (ushort)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (ushort)(u >> 16);
}

/* to_bf16 on eight lanes at once (the same rounding and NaN rule, as vector operations). */
static inline ushort8 to_bf16x8(float8 f)
{
    const uint8 u = as_uint8(f);
    const uint8 rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16, quiet = (u >> 16) | 0x40u;
    return convert_ushort8(select(rounded, quiet, (u & 0x7fffffffu) > 0x7f800000u));
}
