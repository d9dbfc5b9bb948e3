/* split_scale.cl — 3xF16's row scale, the one rule the packing pass (split_pack in gemm_convert.cl) scales rows by and
 * the matrix-unit store (gemm_mma.cl, MODE 34) scales C back by (taken with `#include "split_scale.cl"`, expanded by
 * host/runtime/sources.c). */

/* The power of two that puts a row whose largest finite magnitude has the float bits `big` in [2^14, 2^15); 0 for a
 * row of zeros. */
static inline int row_exponent(const uint big) { return big ? 14 - ilogb(as_float(big)) : 0; }
