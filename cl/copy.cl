/* copy.cl — vectorized copy and fill over elements of type CLF_T (uchar, ushort, uint, ulong; uint4 with
 * VW 1), the `copy` family's kernels. Elements [0, head) and [head + nv*VW, n) take the scalar path;
 * the nv vectors between take the vector path, with aligned vector pointers when both sides are
 * aligned there (CLF_ALIGNED). */
#ifndef VW
#define VW 4
#endif
#ifndef EPT
#define EPT 1
#endif
#ifndef WG
#define WG 256
#endif
#ifndef CLF_T
#define CLF_T uint
#endif
#ifndef CLF_IDX
#define CLF_IDX ulong
#endif
#ifndef CLF_ALIGNED
#define CLF_ALIGNED 0
#endif
#define CLF_CAT_(a, b) a##b
#define CLF_CAT(a, b) CLF_CAT_(a, b)

typedef CLF_IDX idx_t;
typedef CLF_T T;
#if VW > 1
typedef CLF_CAT(CLF_T, VW) TV;
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void clf_copy(__global const T *src, const idx_t so, __global T *dst, const idx_t dof, const idx_t n,
              const idx_t head, const idx_t nv)
{
    const idx_t tail0 = head + nv * VW;
    const idx_t gid = get_global_id(0);
    if (gid < head + (n - tail0)) {
        const idx_t i = gid < head ? gid : tail0 + (gid - head);
        dst[dof + i] = src[so + i];
    }
    const idx_t first = (idx_t)get_group_id(0) * (WG * EPT) + get_local_id(0);
    for (int j = 0; j < EPT; j++) {
        const idx_t v = first + (idx_t)j * WG;
        if (v >= nv)
            break;
#if VW == 1
        dst[dof + head + v] = src[so + head + v];
#elif CLF_ALIGNED
        ((__global TV *)(dst + dof + head))[v] = ((__global const TV *)(src + so + head))[v];
#else
        CLF_CAT(vstore, VW)(CLF_CAT(vload, VW)(v, src + so + head), v, dst + dof + head);
#endif
    }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void clf_fill(__global T *dst, const idx_t dof, const T pattern, const idx_t n, const idx_t head, const idx_t nv)
{
    const idx_t tail0 = head + nv * VW;
    const idx_t gid = get_global_id(0);
    if (gid < head + (n - tail0)) {
        const idx_t i = gid < head ? gid : tail0 + (gid - head);
        dst[dof + i] = pattern;
    }
#if VW > 1
    const TV value = (TV)(pattern);
#endif
    const idx_t first = (idx_t)get_group_id(0) * (WG * EPT) + get_local_id(0);
    for (int j = 0; j < EPT; j++) {
        const idx_t v = first + (idx_t)j * WG;
        if (v >= nv)
            break;
#if VW == 1
        dst[dof + head + v] = pattern;
#elif CLF_ALIGNED
        ((__global TV *)(dst + dof + head))[v] = value;
#else
        CLF_CAT(vstore, VW)(value, v, dst + dof + head);
#endif
    }
}
