/* scalar_expr.cl — sets the generated expressions' macros (V, B, K, SEL) to scalars of CT: where a kernel runs
 * an expression one element at a time (map.cl's head and tail, reduce.cl's kernels; reduce.cl's line kernel
 * comes back here from simd_expr.cl for its scalar statistics). May be included any number of times. */
#undef V
#undef B
#undef K
#undef SEL
#define V CT
#define B int
#define K(x) ((CT)(x))
#define SEL(c, t, e) ((c) ? (t) : (e))
