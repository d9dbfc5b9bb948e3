/* map.cl — skeleton of a fused elementwise kernel. host/map.c prepends CLF_MAP_PARAMS (the kernel's
 * buffer/offset/scalar parameters) and CLF_MAP_BODY (the expression as one statement per operation,
 * written with the macros V, B, K, SEL, LD<t>, ST<t> that each path below defines; <t> is the storage
 * type: 32 float, 64 double, 16 IEEE half, BF bfloat16 — see half_io.cl).
 * Elements [0, head) and [head + nv*VW, n) take the scalar path; the nv vectors between take the
 * vector path, with aligned vector pointers when every buffer is aligned there (CLF_ALIGNED). */
#ifndef VW
#define VW 4
#endif
#ifndef EPT
#define EPT 1
#endif
#ifndef WG
#define WG 256
#endif
#ifndef CLF_IDX
#define CLF_IDX ulong
#endif
#ifndef CLF_ALIGNED
#define CLF_ALIGNED 0
#endif
#ifndef CLF_F64
#define CLF_F64 0
#endif

#if CLF_F64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define CT double
#define CBT long
#else
#define CT float
#define CBT int
#endif
#define CLF_CAT_(a, b) a##b
#define CLF_CAT(a, b) CLF_CAT_(a, b)

typedef CLF_IDX idx_t;

#include "bf16.cl"
#include "half_io.cl"

#ifndef CLF_MAP_PARAMS
/* Lets the skeleton compile alone (CLFORGE_KERNEL_DIR development): y = x. */
#define CLF_MAP_PARAMS __global float *b0, const idx_t o0, __global const float *b1, const idx_t o1,
#define CLF_MAP_BODY const V t0 = LD32(b1, o1); ST32(b0, o0, t0);
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void clf_map(CLF_MAP_PARAMS const idx_t n, const idx_t head, const idx_t nv)
{
    const idx_t tail0 = head + nv * VW;
    const idx_t gid = get_global_id(0);

    /* Scalar path: the unaligned head and the tail, one element per work-item. */
    if (gid < head + (n - tail0)) {
        const idx_t i = gid < head ? gid : tail0 + (gid - head);
#include "scalar_expr.cl"
#define LD32(p, o) ((CT)(p)[(o) + i])
#define LD64(p, o) ((CT)(p)[(o) + i])
#define LD16(p, o) ((CT)vload_half((o) + i, p))
#define LDBF(p, o) ((CT)bf16_to_f32((p)[(o) + i]))
#define ST32(p, o, x) ((p)[(o) + i] = (float)(x))
#define ST64(p, o, x) ((p)[(o) + i] = (double)(x))
#define ST16(p, o, x) vstore_half_rte((x), (o) + i, p)
#define STBF(p, o, x) ((p)[(o) + i] = CLF_TO_BF16(x))
        CLF_MAP_BODY
#undef V
#undef B
#undef K
#undef SEL
#undef LD32
#undef LD64
#undef LD16
#undef LDBF
#undef ST32
#undef ST64
#undef ST16
#undef STBF
    }

    /* Vector path: EPT vectors per work-item, strided by WG so that each step is coalesced. */
    const idx_t first = (idx_t)get_group_id(0) * (WG * EPT) + get_local_id(0);
    for (int j = 0; j < EPT; j++) {
        const idx_t v = first + (idx_t)j * WG;
        if (v >= nv)
            break;
#if VW == 1
        const idx_t i = head + v;
#include "scalar_expr.cl"
#define LD32(p, o) ((CT)(p)[(o) + i])
#define LD64(p, o) ((CT)(p)[(o) + i])
#define LD16(p, o) ((CT)vload_half((o) + i, p))
#define LDBF(p, o) ((CT)bf16_to_f32((p)[(o) + i]))
#define ST32(p, o, x) ((p)[(o) + i] = (float)(x))
#define ST64(p, o, x) ((p)[(o) + i] = (double)(x))
#define ST16(p, o, x) vstore_half_rte((x), (o) + i, p)
#define STBF(p, o, x) ((p)[(o) + i] = CLF_TO_BF16(x))
#else
#define V CLF_CAT(CT, VW)
#define B CLF_CAT(CBT, VW)
#define K(x) ((V)(x))
#define SEL(c, t, e) select((e), (t), (c))
#if CLF_F64
#define CV32(x) CLF_CAT(convert_double, VW)(x)
#define CV64(x) (x)
#define SV32(x) CLF_CAT(convert_float, VW)(x)
#define SV64(x) (x)
#else
#define CV32(x) (x)
#define SV32(x) (x)
#endif
#if CLF_ALIGNED
/* Every buffer's element head is aligned to VW here, so whole vectors can be loaded directly. */
#define LD32(p, o) CV32(((__global const CLF_CAT(float, VW) *)((p) + (o) + head))[v])
#define LD64(p, o) CV64(((__global const CLF_CAT(double, VW) *)((p) + (o) + head))[v])
#define ST32(p, o, x) (((__global CLF_CAT(float, VW) *)((p) + (o) + head))[v] = SV32(x))
#define ST64(p, o, x) (((__global CLF_CAT(double, VW) *)((p) + (o) + head))[v] = SV64(x))
#define LD16(p, o) CV32(CLF_CAT(vloada_half, VW)(v, (p) + (o) + head))
#define LDBF(p, o) CV32(CLF_BF16_LOADV(((__global const CLF_CAT(ushort, VW) *)((p) + (o) + head))[v]))
#define ST16(p, o, x) CLF_CAT(CLF_CAT(vstorea_half, VW), _rte)((x), v, (p) + (o) + head)
#define STBF(p, o, x) (((__global CLF_CAT(ushort, VW) *)((p) + (o) + head))[v] = CLF_TO_BF16V(x))
#else
#define LD32(p, o) CV32(CLF_CAT(vload, VW)(v, (p) + (o) + head))
#define LD64(p, o) CV64(CLF_CAT(vload, VW)(v, (p) + (o) + head))
#define ST32(p, o, x) CLF_CAT(vstore, VW)(SV32(x), v, (p) + (o) + head)
#define ST64(p, o, x) CLF_CAT(vstore, VW)(SV64(x), v, (p) + (o) + head)
#define LD16(p, o) CV32(CLF_CAT(vload_half, VW)(v, (p) + (o) + head))
#define LDBF(p, o) CV32(CLF_BF16_LOADV(CLF_CAT(vload, VW)(v, (p) + (o) + head)))
#define ST16(p, o, x) CLF_CAT(CLF_CAT(vstore_half, VW), _rte)((x), v, (p) + (o) + head)
#define STBF(p, o, x) CLF_CAT(vstore, VW)(CLF_TO_BF16V(x), v, (p) + (o) + head)
#endif
#endif
        CLF_MAP_BODY
    }
}
