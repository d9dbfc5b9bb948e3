/* simd_expr.cl — switches the generated expressions' macros (V, B, K, SEL; scalar in reduce.cl's other kernels)
 * to vectors of VT (8 floats), so that an expression runs on a whole vector of a line: reduce.cl's line kernel
 * takes it with `#include "simd_expr.cl"` wherever it enters vector code, and may take it more than once. */
#undef V
#undef B
#undef K
#undef SEL
#define V VT
#define B int8
#define K(x) ((V)(x))
#define SEL(c, t, e) select((e), (t), (c))
