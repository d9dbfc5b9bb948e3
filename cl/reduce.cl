/* reduce.cl — reduction of every line (row or column) of a matrix: r = POST(op over the line of PRE(x)),
 * then optionally y = WRITE(x, r) over the same line. host/map/reduce.c prepends the generated macros:
 *   CLF_RED_PARAMS  scalar and vector parameters of the expressions, then out / y as present
 *   CLF_RED_PRE     statements setting pv from xv (the element) — loads LDL (per line), LDP (per position)
 *   CLF_RED_POST    statements setting po from rv (and e1v, e2v: see below)
 *   CLF_RED_WRITE   statements storing into y from xv and rv, e1v, e2v (only with CLF_HAS_Y)
 *   LDX(i), STO(i, v), STY(i, v)  the matrix load and the stores, in their storage types
 * Layout: CLF_STRIDED = 0: a line is contiguous (element j of line l at xo + l*ldx + j); a team of LPL
 * work-items reads it with consecutive addresses, WG/LPL lines per group. CLF_STRIDED = 1: lines are
 * adjacent (element j at xo + j*ldx + l); WG/LPL consecutive lines per group read side by side
 * (coalesced), each split into LPL slices along j. UNR independent loads per work-item per step. */
#ifndef WG
#define WG 256     /* work-group size */
#endif
#ifndef LPL
#define LPL 256    /* work-items per line, a power of two dividing WG */
#endif
#ifndef UNR
#define UNR 4      /* loads in flight per work-item; row kernel: lines per team in sequence */
#endif
#ifndef CLF_IDX
#define CLF_IDX ulong
#endif
#ifndef CLF_F64
#define CLF_F64 0
#endif
#ifndef CLF_STRIDED
#define CLF_STRIDED 0
#endif
#ifndef CLF_OP
#define CLF_OP 0   /* 0 sum, 1 max, 2 min, 3 lse, 4 moments */
#endif
#ifndef CLF_HAS_OUT
#define CLF_HAS_OUT 1
#endif
#ifndef CLF_HAS_Y
#define CLF_HAS_Y 0
#endif
#ifndef CLF_LINEK
#define CLF_LINEK 0   /* 1: the line kernel (CPUs): a work-item per contiguous line, vectors of LW along it (below) */
#endif
#ifndef CLF_ROWK
#define CLF_ROWK 0   /* 1: the row kernel (contiguous lines with a write pass): each of a line's LPL work-items
                      * holds NV vectors of VEC elements of it in registers, read once, reduced, written once */
#endif
#ifndef VEC
#define VEC 1      /* row kernel: elements per load and store (the host checks the alignment of x and y) */
#endif
#ifndef NV
#define NV 1       /* row kernel: vectors per work-item; a line is at most NV*VEC*LPL long */
#endif
#ifndef CLF_XK
#define CLF_XK 0   /* storage of x and y: 0 f32, 1 f64, 2 f16, 3 bf16 (the vector forms of the row kernel) */
#endif
#ifndef CLF_YK
#define CLF_YK 0
#endif
#ifndef CLF_NV
#define CLF_NV 0     /* 1: an NVIDIA GPU (inline PTX) */
#endif
#ifndef CLF_SHFL
#define CLF_SHFL CLF_NV   /* 1: a line's states meet by warp shuffles first (lines of whole warps), then in red[] */
#endif
#ifndef CLF_WSPLIT1
#define CLF_WSPLIT1 0   /* row kernel, VEC 1 (lines not aligned): single elements written so many at a time (0: one by
                         * one); the host asks for it where it gains (reduce.c, wsplit1) */
#endif
#ifndef CLF_WSPLIT
#define CLF_WSPLIT (VEC == 1 ? CLF_WSPLIT1 : 4)  /* row kernel: whole lines written so many vectors at a time, values
                                                 * then stores (0: one by one) */
#endif
#ifndef CLF_FRAME
#define CLF_FRAME 0   /* row kernel, VEC > 1: lines need not start on a multiple of VEC (x and y start theirs equally
                       * far past one); a line is read in the aligned frame around it (FRAME_SKEW) and the vectors
                       * along the line that the write pass reads are gathered element by element (LDA_*) */
#endif
#ifndef CLF_STCS
#define CLF_STCS 0    /* row kernel, NVIDIA: y stored with the streaming cache hint (below) */
#endif
#ifndef CLF_SPLIT
#define CLF_SPLIT 0   /* 1 (row kernel, NVIDIA): a line is cut into chunks of NV*VEC*LPL, one group each, in one launch of
                       * two passes (split_task): a pass-1 group publishes its chunk's state, a pass-2 group merges the
                       * line's states and writes its chunk */
#endif
#ifndef CLF_CACHE
#define CLF_CACHE 0   /* > 0: a line is at most CLF_CACHE*LPL long; each work-item keeps its elements in
                       * registers from the reduction for the write pass (the host sets it with a write) */
#endif

#if CLF_F64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define CT double
#else
#define CT float
#endif
typedef CLF_IDX idx_t;

#include "bf16.cl"
#include "half_io.cl"

#include "scalar_expr.cl"
#define LD_32(p, i) ((CT)(p)[i])
#define LD_64(p, i) ((CT)(p)[i])
#define LD_16(p, i) ((CT)vload_half((i), (p)))
#define LD_BF(p, i) ((CT)bf16_to_f32((p)[i]))
#define ST_32(p, i, v) ((p)[i] = (float)(v))
#define ST_64(p, i, v) ((p)[i] = (double)(v))
#define ST_16(p, i, v) vstore_half_rte((CT)(v), (i), (p))
#define ST_BF(p, i, v) ((p)[i] = CLF_TO_BF16((CT)(v)))

/* The state of a line's reduction (st_t); a block of pre values v that a work-item holds in registers is
 * folded into a fresh state b by ST_P1(b, t, v) over the block, ST_N(b, count of the block), ST_MID(b, t),
 * ST_P2(b, v) over the block (t: a CT scratch), then merged into the running one; ST_COMB merges two states,
 * ST_FIN(a, rv, e1v, e2v) gives r and the op's two extra names. max and min propagate NaN (fmax/fmin would drop it); sum is IEEE
 * addition. */
#if CLF_OP <= 2
#if CLF_OP == 0
#define IDENT K(0)
#define COMBINE(a, b) ((a) + (b))
#elif CLF_OP == 1
#define IDENT K(-INFINITY)
#define COMBINE(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))
#else
#define IDENT K(INFINITY)
#define COMBINE(a, b) (((a) < (b) || (a) != (a)) ? (a) : (b))
#endif
typedef CT st_t;
#define ST_INIT(a) ((a) = IDENT)
#define ST_P1(b, t, v) ((b) = COMBINE((b), (v)))
#define ST_MID(b, t)
#define ST_P2(b, v)
#define ST_COMB(a, b) COMBINE(a, b)
#define ST_FIN(a, rv, e1v, e2v) ((rv) = (a), (e1v) = K(0), (e2v) = K(0))
#define ST_N(b, c)
#define NEEDS_SHIFT 0
#elif CLF_OP == 3
/* lse (online softmax): maximum m and s = sum of exp(v - m); a block takes its own maximum first (one exp
 * per value), states merge by rescaling to the larger maximum; equal maxima scale by 1 (exp(inf - inf)
 * would be NaN). A NaN never becomes m (comparisons fail) but makes s NaN. */
typedef struct { CT m, s; } st_t;
#define ST_INIT(a) ((a).m = K(-INFINITY), (a).s = K(0))
#define SCALE(mi, m) ((mi) == (m) ? K(1) : exp((mi) - (m)))
static inline st_t st_comb(st_t a, st_t b)
{
    st_t r;
    r.m = a.m > b.m ? a.m : b.m;
    r.s = a.s * SCALE(a.m, r.m) + b.s * SCALE(b.m, r.m);
    return r;
}
#define ST_P1(b, t, v) if ((v) > (b).m) (b).m = (v)
#define ST_MID(b, t)
#define ST_P2(b, v) ((b).s += SCALE((v), (b).m))
#define ST_COMB(a, b) st_comb(a, b)
#define ST_FIN(a, rv, e1v, e2v) ((e1v) = (a).m, (e2v) = (a).s, (rv) = (a).m + log((a).s))
#define ST_N(b, c)
#define NEEDS_SHIFT 0
#else
/* moments: count, mean and M2 of v - shift (shift: the line's first pre value, so that a large common
 * offset cancels before any rounding); a block's by two passes over its registers, states merged pairwise
 * (Welford / Chan et al.). A NaN or an infinity makes M2 NaN; the mean is then reported NaN too. */
typedef struct { idx_t n; CT mean, m2; } st_t;
#define ST_INIT(a) ((a).n = 0, (a).mean = K(0), (a).m2 = K(0))
static inline st_t st_comb(st_t a, st_t b)
{
    if (b.n == 0)
        return a;
    if (a.n == 0)
        return b;
    st_t r;
    r.n = a.n + b.n;
    const CT d = b.mean - a.mean, fb = (CT)b.n / (CT)r.n;
    r.mean = a.mean + d * fb;
    r.m2 = a.m2 + b.m2 + d * d * (CT)a.n * fb;
    return r;
}
#define ST_P1(b, t, v) ((t) += (v) - shift)
#define ST_N(b, c) ((b).n = (idx_t)(c))
#define ST_MID(b, t) (b).mean = (b).n ? (t) / (CT)(b).n : K(0);
#define ST_P2(b, v) ((b).m2 += ((v) - shift - (b).mean) * ((v) - shift - (b).mean))
#define ST_COMB(a, b) st_comb(a, b)
#define ST_FIN(a, rv, e1v, e2v) \
    ((e2v) = (a).m2 / (CT)(a).n, (e1v) = (e2v) != (e2v) ? K(NAN) : shift + (a).mean, (rv) = (e1v))
#define NEEDS_SHIFT 1
#endif

#if CLF_STRIDED
#define ELEM(o, ld, line, j) ((o) + (j) * (ld) + (line))
#define SUB (lid % (WG / LPL))
#define LANE (lid / (WG / LPL))
#define STEP (WG / LPL)   /* distance in red[] between neighbouring lanes of a line */
#else
#define ELEM(o, ld, line, j) ((o) + (line) * (ld) + (j))
#define SUB (lid / LPL)
#define LANE (lid % LPL)
#define STEP 1
#endif

/* RED_TREE_AND_POST(b): a line's partial results b of its LPL lanes merged (below: by warp shuffles, or by a
 * tree of fan-in 8 in red[]), then finished by lane 0 (LINE_FINISH). Macros, not functions: CLF_RED_POST may
 * name the kernel's arguments. Both kernels use them with lid, lane, sub, line, live, red, res* and oo in
 * scope. */
#if CLF_HAS_OUT
#define STO_OUT(p, v) STO(p, v)
#else
#define STO_OUT(p, v)
#endif
/* Lane 0 of a line, with the line's merged state fin: the post expression, the output, and res/res1/res2[sub]
 * for the write pass. */
#define LINE_FINISH(fin)                                                                                    \
    {                                                                                                       \
        CT rv, e1v, e2v;                                                                                    \
        ST_FIN(fin, rv, e1v, e2v);                                                                          \
        CT po = rv;                                                                                         \
        { CLF_RED_POST }                                                                                    \
        STO_OUT(oo + line, po);                                                                             \
        res[sub] = po;                                                                                      \
        res1[sub] = e1v;                                                                                    \
        res2[sub] = e2v;                                                                                    \
    }
#if CLF_SHFL && !CLF_STRIDED && LPL >= 32 && !(CLF_OP == 3 && LPL > 128)
/* On NVIDIA GPUs a line's lanes are whole warps (32 work-items): their states meet by butterfly shuffles
 * (inline PTX, no barrier), the warps' in red[] after one barrier, folded by lane 0. Not for lse over teams
 * wider than 128: the H200's compiler then gave the softmax of 4096 x 16384 172 registers a work-item (the
 * tree: 128, two work-groups of 256 per compute unit) and it ran at 0.65 of the tree's speed. */
static inline uint shfl_u(const uint v, const int o)
{
    uint r;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(o));
    return r;
}
#if CLF_F64
static inline CT shfl_c(const CT v, const int o)
{
    uint2 w = as_uint2(v);
    w.x = shfl_u(w.x, o), w.y = shfl_u(w.y, o);
    return as_double(w);
}
#else
static inline CT shfl_c(const CT v, const int o) { return as_float(shfl_u(as_uint(v), o)); }
#endif
static inline st_t shfl_st(const st_t a, const int o)
{
#if CLF_OP <= 2
    return shfl_c(a, o);
#elif CLF_OP == 3
    return a;   /* unused: WARP_FOLD folds lse by its parts */
#else
    st_t r;
    r.n = (idx_t)shfl_u((uint)a.n, o);
    if (sizeof(idx_t) > 4)
        r.n |= (idx_t)shfl_u((uint)((ulong)a.n >> 16 >> 16), o) << 16 << 16;
    r.mean = shfl_c(a.mean, o), r.m2 = shfl_c(a.m2, o);
    return r;
#endif
}
#if CLF_OP == 3
/* lse: the warp's maximum first, then the sums rescaled to it once and added (one exp a work-item, where
 * merging states pairwise takes two a step). */
#define WARP_FOLD(s_)                                                                                       \
    {                                                                                                       \
        CT m_ = (s_).m;                                                                                     \
        _Pragma("unroll") for (int o = 16; o > 0; o >>= 1) {                                                \
            const CT t_ = shfl_c(m_, o);                                                                    \
            m_ = t_ > m_ ? t_ : m_;                                                                         \
        }                                                                                                   \
        CT z_ = (s_).s * SCALE((s_).m, m_);                                                                 \
        _Pragma("unroll") for (int o = 16; o > 0; o >>= 1)                                                  \
            z_ += shfl_c(z_, o);                                                                            \
        (s_).m = m_, (s_).s = z_;                                                                           \
    }
#else
#define WARP_FOLD(s_)                                                                                       \
    _Pragma("unroll") for (int o = 16; o > 0; o >>= 1) {                                                    \
        const st_t t_ = shfl_st(s_, o);                                                                     \
        s_ = ST_COMB(s_, t_);                                                                               \
    }
#endif
#define RED_TREE_THEN(b, FINISH)                                                                            \
    {                                                                                                       \
        st_t s_ = (b);                                                                                      \
        WARP_FOLD(s_);                                                                                      \
        if ((lid & 31) == 0)                                                                                \
            red[lid >> 5] = s_;                                                                             \
    }                                                                                                       \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                           \
    if (lane == 0 && live) {                                                                                \
        st_t fin = red[lid >> 5];                                                                           \
        for (int q = 1; q < LPL / 32; q++) {                                                                \
            const st_t t_ = red[(lid >> 5) + q];                                                            \
            fin = ST_COMB(fin, t_);                                                                         \
        }                                                                                                   \
        FINISH(fin);                                                                                        \
    }
#else
/* The tree: 3 barriers for 256 lanes, not 8 (lanes below nw fold in lanes lane + q*nw). */
#define RED_TREE_THEN(b, FINISH)                                                                            \
    red[lid] = (b);                                                                                         \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                           \
    for (int w = LPL; w > 1;) {                                                                             \
        const int nw = w >= 8 ? w / 8 : 1;                                                                  \
        if (lane < nw) {                                                                                    \
            st_t a = red[lid];                                                                              \
            for (int q = 1; q < w / nw; q++)                                                                \
                a = ST_COMB(a, red[lid + q * nw * STEP]);                                                   \
            red[lid] = a;                                                                                   \
        }                                                                                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
        w = nw;                                                                                             \
    }                                                                                                       \
    if (lane == 0 && live) {                                                                                \
        const st_t fin = red[lid];                                                                          \
        FINISH(fin);                                                                                        \
    }
#endif
#define RED_TREE_AND_POST(b) RED_TREE_THEN(b, LINE_FINISH)

#if CLF_ROWK
/* Whole vectors of x and y at element index i (a multiple of VEC from an aligned start), in CT. */
#define CLF_CAT_(a, b) a##b
#define CLF_CAT(a, b) CLF_CAT_(a, b)
/* LDV_<storage>(p, i): the VEC elements of p from element i (a multiple of VEC from an aligned start), in CT:
 * the line's vectors, and those of the vectors along the line that the write pass reads (CLF_RED_ARGV). */
#if VEC == 1
#define LDV_32(p, i) LD_32(p, i)
#define LDV_64(p, i) LD_64(p, i)
#define LDV_16(p, i) LD_16(p, i)
#define LDV_BF(p, i) LD_BF(p, i)
#define LDA_32(p, i) LD_32(p, i)
#define LDA_64(p, i) LD_64(p, i)
#define LDA_16(p, i) LD_16(p, i)
#define LDA_BF(p, i) LD_BF(p, i)
#define LDXV(i) LDX(i)
#if CLF_WSPLIT
#define STYV(i, v) STY(i, v)
#endif
#define PACK(w) (w)[0]
#define UNPACK(a, o, v) ((a)[o] = (v))
#else
#define CTV CLF_CAT(CT, VEC)
#define TOV(v) CLF_CAT(convert_, CTV)(v)
#define LDV_32(p, i) TOV(*(__global const CLF_CAT(float, VEC) *)((p) + (i)))
#define LDV_64(p, i) TOV(*(__global const CLF_CAT(double, VEC) *)((p) + (i)))
#define LDV_16(p, i) TOV(CLF_CAT(vloada_half, VEC)(0, (p) + (i)))
#define LDV_BF(p, i) \
    TOV(CLF_CAT(as_float, VEC)(CLF_CAT(convert_uint, VEC)(*(__global const CLF_CAT(ushort, VEC) *)((p) + (i))) << 16))
/* LDA_<storage>(p, i): LDV_<storage> for the vectors along the line, which in the aligned frame start anywhere:
 * element by element there (they are small and read by every line: from the cache) */
#if CLF_FRAME && VEC == 2
#define GATHER(L, p, i) ((CTV)(L(p, i), L(p, (i) + 1)))
#elif CLF_FRAME
#define GATHER(L, p, i) ((CTV)(L(p, i), L(p, (i) + 1), L(p, (i) + 2), L(p, (i) + 3)))
#endif
#if CLF_FRAME
#define LDA_32(p, i) GATHER(LD_32, p, i)
#define LDA_64(p, i) GATHER(LD_64, p, i)
#define LDA_16(p, i) GATHER(LD_16, p, i)
#define LDA_BF(p, i) GATHER(LD_BF, p, i)
#else
#define LDA_32(p, i) LDV_32(p, i)
#define LDA_64(p, i) LDV_64(p, i)
#define LDA_16(p, i) LDV_16(p, i)
#define LDA_BF(p, i) LDV_BF(p, i)
#endif
#if CLF_XK == 0
#define LDXV(i) LDV_32(x, i)
#elif CLF_XK == 1
#define LDXV(i) LDV_64(x, i)
#elif CLF_XK == 2
#define LDXV(i) LDV_16(x, i)
#else
#define LDXV(i) LDV_BF(x, i)
#endif
/* CLF_STCS (NVIDIA, fp32 vectors of 4; the host sets it, reduce.c stcs): y's stores with the streaming cache hint
 * (.cs, evict first), as each element of y is written once */
#if CLF_NV && VEC == 4 && CLF_YK == 0 && !CLF_F64 && CLF_STCS
static inline void st_cs4(__global float *p, const float4 v)
{
    asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
                 : "memory");
}
#define STYV(i, v) st_cs4(y + (i), (v))
#elif CLF_YK == 0
#define STYV(i, v) (*(__global CLF_CAT(float, VEC) *)(y + (i)) = CLF_CAT(convert_float, VEC)(v))
#elif CLF_YK == 1
#define STYV(i, v) (*(__global CLF_CAT(double, VEC) *)(y + (i)) = CLF_CAT(convert_double, VEC)(v))
#elif CLF_YK == 2
#define STYV(i, v) CLF_CAT(CLF_CAT(vstorea_half, VEC), _rte)((v), 0, y + (i))
#endif
#if VEC == 2
#define PACK(w) ((CTV)((w)[0], (w)[1]))
#define UNPACK(a, o, v) ((a)[o] = (v).s0, (a)[(o) + 1] = (v).s1)
#else
#define PACK(w) ((CTV)((w)[0], (w)[1], (w)[2], (w)[3]))
#define UNPACK(a, o, v) ((a)[o] = (v).s0, (a)[(o) + 1] = (v).s1, (a)[(o) + 2] = (v).s2, (a)[(o) + 3] = (v).s3)
#endif
#endif
/* Element j of the line starts vector k of this work-item at J0(k); vectors of a team are adjacent; coff: where
 * the team's chunk of the line starts (0 but with CLF_SPLIT); skew: how far the line starts past a multiple of VEC
 * (CLF_FRAME; else 0). In the frame, the first vector starts skew elements before the line: its J0 wraps around
 * (idx_t is unsigned), so element tests j < len leave those elements out, and a vector is whole only when WHOLE. */
#define J0(k) (coff + ((idx_t)lane + (idx_t)((k) * LPL)) * (idx_t)VEC - skew)
/* ALL_WHOLE: every vector of this work-item whole (J0 grows with k: when the first does not wrap, none does). Without
 * the frame the tests are written exactly as before it: the extra test, redundant there, cost the H200's softmax
 * of 8192 x 8192 8% (the compiler scheduled the kernel differently). */
#if CLF_FRAME
#define FRAME_SKEW(base) ((base) & (idx_t)(VEC - 1))
#define WHOLE(j0) ((j0) < len && (j0) + (idx_t)VEC <= len)
#define ALL_WHOLE() (WHOLE(J0(0)) && J0(NV - 1) + (idx_t)VEC <= len)
#else
#define FRAME_SKEW(base) ((idx_t)0)
#define WHOLE(j0) ((j0) + VEC <= len)
#define ALL_WHOLE() (J0(NV - 1) + VEC <= len)
#endif
/* The write pass's values of this work-item's vector k, all of it inside the line, into dst[0 .. VEC); j0
 * (= J0(k)) in scope, which CLF_RED_ARGV's loads read. */
#define WRITE_VALUES(k, dst)                                                                                \
    {                                                                                                       \
        CLF_RED_ARGV                                                                                        \
        _Pragma("unroll") for (int c = 0; c < VEC; c++)                                                     \
        {                                                                                                   \
            const idx_t j = j0 + (idx_t)c;                                                                  \
            const CT xv = xs[(k) * VEC + c];                                                                \
            CT wv;                                                                                          \
            { CLF_RED_WRITEV }                                                                              \
            (dst)[c] = wv;                                                                                  \
        }                                                                                                   \
    }
#endif

#ifndef CLF_RED_PARAMS
/* Lets the skeleton compile alone (CLFORGE_KERNEL_DIR development): out = sum of the line. */
#define CLF_RED_PARAMS __global float *out, const idx_t oo,
#define CLF_RED_PRE pv = xv;
#define CLF_RED_POST po = rv;
#define LDX(i) LD_32(x, i)
#define STO(i, v) ST_32(out, i, v)
#define CLF_X_T float
#endif
#ifndef CLF_RED_ARGV
#define CLF_RED_ARGV   /* the write pass's vectors along the line: VEC elements each, as av<k>[VEC] */
#endif

#if CLF_LINEK
/* The line kernel (CPUs): one work-item per contiguous line, no barriers, computing in fp32. The line is swept
 * in vectors of LW elements (the CPU's SIMD width), once per pass: the op's passes (max, then the sums of
 * exp for lse; the sum, then the squares of the deviations for moments), then the write. The line stays in
 * the core's cache between passes, and the expressions run on whole vectors (vector exp and the like; the
 * other kernels leave a CPU one element a work-item and the barriers of a team's tree). The last, partial
 * vector is loaded with zeros past the end, folded under a mask and stored element by element. */
#define LW 8
#define VT float8
/* LDW_<storage>(p, i): the vector of p from element i, in fp32, with left elements of the line from there
 * (zeros past them). f16 goes element by element (vload_half8 faulted on PoCL at addresses aligned to 2
 * bytes only), bf16 by a vector of ushort widened by a shift. */
#define LDW_32(p, i) (left >= LW ? vload8(0, (p) + (i)) : ld_part((p) + (i), (int)left))
#define LDW_16(p, i) ld_part16((p) + (i), (int)min(left, (idx_t)LW))
#define LDW_BF(p, i) \
    (left >= LW ? as_float8(convert_uint8(vload8(0, (p) + (i))) << 16) : ld_part_bf((p) + (i), (int)left))
static inline VT ld_part(__global const float *p, const int n)
{
    float t[LW];
    for (int c = 0; c < LW; c++)
        t[c] = c < n ? p[c] : 0.0f;
    return vload8(0, t);
}
static inline VT ld_part16(__global const half *p, const int n)
{
    float t[LW];
    for (int c = 0; c < LW; c++)
        t[c] = c < n ? vload_half(c, p) : 0.0f;
    return vload8(0, t);
}
static inline VT ld_part_bf(__global const ushort *p, const int n)
{
    float t[LW];
    for (int c = 0; c < LW; c++)
        t[c] = c < n ? bf16_to_f32(p[c]) : 0.0f;
    return vload8(0, t);
}
#if CLF_XK == 0
#define LDXW(i) LDW_32(x, i)
#elif CLF_XK == 2
#define LDXW(i) LDW_16(x, i)
#else
#define LDXW(i) LDW_BF(x, i)
#endif
/* The first n elements of v into y from element i, in y's storage type. */
static inline void st_part(__global CLF_Y_T *p, const VT v, const int n)
{
    float t[LW];
    vstore8(v, 0, t);
    for (int c = 0; c < n; c++)
        STY_ONE(p, c, t[c]);
}
/* The lanes of v that hold elements of the line (all but the last vector's tail). */
#define MASKED(v, id) select((VT)(id), (v), (int8)(0, 1, 2, 3, 4, 5, 6, 7) < (int8)((int)min(left, (idx_t)LW)))
/* The vectors of a line: from element j, left elements of the line from there. */
#define FOR_LINE_VECTORS for (idx_t j = 0, left = len; j < len; j += LW, left = len - j)
/* Each pass: for every vector of the line, xv (the elements) and pv (pre of them). */
#define LINE_PASS(body)                                                                                     \
    FOR_LINE_VECTORS {                                                                                      \
        const VT xv = LDXW(base + j);                                                                       \
        VT pv;                                                                                              \
        { CLF_RED_PREW }                                                                                    \
        body                                                                                                \
    }
#if CLF_OP == 1
#define KEEP(acc, q) (((acc) > (q)) | isnan(acc))   /* max: the running value stays (NaN propagates) */
#else
#define KEEP(acc, q) (((acc) < (q)) | isnan(acc))
#endif

static inline CT hsum(const VT v) { const float4 a = v.lo + v.hi; const float2 b = a.lo + a.hi; return b.x + b.y; }

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void clf_reduce(__global const CLF_X_T *x, const idx_t xo, const idx_t ldx, const idx_t lines, const idx_t len,
                CLF_RED_PARAMS const int unused)
{
    const idx_t line = (idx_t)get_global_id(0);
    const int sub = 0, live = line < lines;   /* sub: LINE_FINISH's index into res* */
    const CT lenv = (CT)len;
    const idx_t base = xo + line * ldx;
    CT res[1], res1[1], res2[1], shift = K(0);   /* res*: LINE_FINISH's results; shift: moments' (ST_FIN) */
    st_t fin;
    ST_INIT(fin);
    /* The expressions on whole vectors */
#include "simd_expr.cl"
    if (live && len > 0) {
#if CLF_OP == 0
        VT acc = (VT)(0.0f);
        LINE_PASS(acc += MASKED(pv, 0.0f);)
        fin = hsum(acc);
#elif CLF_OP <= 2
        VT acc = (VT)(IDENT);
        LINE_PASS(const VT q = MASKED(pv, IDENT); acc = select(q, acc, KEEP(acc, q));)
        float t[LW];
        vstore8(acc, 0, t);
        for (int c = 0; c < LW; c++)
            fin = COMBINE(fin, t[c]);
#elif CLF_OP == 3
        VT m = (VT)(-INFINITY), s = (VT)(0.0f);
        LINE_PASS(const VT q = MASKED(pv, -INFINITY); m = select(m, q, q > m);)
        float t[LW];
        vstore8(m, 0, t);
        for (int c = 0; c < LW; c++)
            fin.m = t[c] > fin.m ? t[c] : fin.m;
        const VT mx = (VT)(fin.m);
        LINE_PASS(s += MASKED(select(exp(pv - mx), (VT)(1.0f), pv == mx), 0.0f);)
        fin.s = hsum(s);
#else
        {   /* shift: pre of the line's first element */
            const idx_t j = 0, left = 1;
            const VT xv = (VT)(LDX(base));
            VT pv;
            { CLF_RED_PREW }
            shift = pv.s0;
        }
        const VT sh = (VT)(shift);
        VT t = (VT)(0.0f), q2 = (VT)(0.0f);
        LINE_PASS(t += MASKED(pv - sh, 0.0f);)
        fin.n = len;
        fin.mean = hsum(t) / (CT)len;
        const VT mu = (VT)(fin.mean);
        LINE_PASS(const VT d = pv - sh - mu; q2 += MASKED(d * d, 0.0f);)
        fin.m2 = hsum(q2);
#endif
    }
    /* back to scalars: the post expression and the statistics */
#include "scalar_expr.cl"
    if (live)
        LINE_FINISH(fin);
#if CLF_HAS_Y
    const CT rv = res[0], e1v = res1[0], e2v = res2[0];
#include "simd_expr.cl"
    if (live) {
        FOR_LINE_VECTORS {
            const VT xv = LDXW(base + j);
            VT wv;
            { CLF_RED_WRITEW }
#if CLF_YK == 0
            if (left >= LW) {
                vstore8(wv, 0, y + ELEM(yo, ldy, line, j));
                continue;
            }
#endif
            st_part(y + ELEM(yo, ldy, line, j), wv, (int)min(left, (idx_t)LW));
        }
    }
#endif
}
#elif CLF_ROWK
/* Elements of the line (len long) in this work-item's vectors: its count for the moments. */
static inline int row_count(const idx_t coff, const idx_t skew, const idx_t len, const int lane, const int live)
{
    int c = 0;
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const idx_t j0 = J0(k);
#if CLF_FRAME
#pragma unroll
        for (int e = 0; e < VEC; e++)
            c += live && j0 + (idx_t)e < len;
#else
        c += !live || j0 >= len ? 0 : len - j0 >= (idx_t)VEC ? VEC : (int)(len - j0);
#endif
    }
    return c;
}

/* Loads a line (elements from base) into xs: NV vectors of VEC per work-item, whole vectors back to back
 * when all of this work-item's lie inside the line (bytes in flight keep memory busy), else element by
 * element past the end; 0 outside. */
static inline void row_load(__global const CLF_X_T *x, const idx_t base, const idx_t coff, const idx_t len, const int lane,
                            const int live, CT *xs)
{
    const idx_t skew = FRAME_SKEW(base);
    if (live && ALL_WHOLE()) {
#pragma unroll
        for (int k = 0; k < NV; k++)
            UNPACK(xs, k * VEC, LDXV(base + J0(k)));
    } else {
#pragma unroll
        for (int k = 0; k < NV; k++) {
            const idx_t j0 = J0(k);
            if (live && WHOLE(j0)) {
                UNPACK(xs, k * VEC, LDXV(base + j0));
            } else {
#pragma unroll
                for (int c = 0; c < VEC; c++)
                    xs[k * VEC + c] = live && j0 + (idx_t)c < len ? LDX(base + j0 + (idx_t)c) : K(0);
            }
        }
    }
}

#if CLF_SPLIT
#if UNR != 1 || WG != LPL
#error "CLF_SPLIT: one chunk a group (WG == LPL), UNR 1"
#endif
/* sbuf: word 0 counts the groups that have started (tbase: its value when this launch began), from word 8 a flag a
 * chunk, from word sst_off a state a chunk; epoch: this launch's number, never 0 (flags of earlier launches hold
 * other ones, a new buffer zeros); nch: chunks a line; blk: chunks a block. */
#define SPLIT_PARAMS __global uint *sbuf, const uint tbase, const uint sst_off, const uint epoch, const uint nch, \
                     const uint blk,
/* The chunk (task: line * nch + chunk) and pass (the return value, 1 for the second) of the g-th group to start.
 * The groups of blk chunks (a block) read them in pass 1, then those of the next block do, then pass 2 of the first
 * block runs: a chunk is read again one block after its first read, while it is still in L2. g counts the groups in
 * the order they start (a ticket, not get_group_id), and a block holds whole lines (blk: a multiple of nch), so a
 * pass-2 group waits only for groups of its own block's pass 1, which have started
 * before it and wait for nothing: no order of starting the groups can deadlock. Groups past the last chunk have
 * no line (first >= lines) and run through without loads or stores: an early return before the barriers made PoCL
 * take the first work-item's branches for every work-item. */
static inline int split_task(const idx_t g, const uint blk, idx_t *task)
{
    const idx_t w = (idx_t)blk;
    if (g < w) {
        *task = g;
        return 0;
    }
    const idx_t h = g - w, k = h / (2 * w), r = h % (2 * w);
    *task = r < w ? (k + 1) * w + r : k * w + (r - w);
    return r >= w;
}
/* Pass 1: the chunk's state, then its flag set to this launch's epoch (release: the state is visible first). */
static inline void split_publish(__global st_t *st, __global uint *flag, const st_t v, const uint epoch)
{
    *st = v;
#if CLF_NV
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(epoch) : "memory");
#else   /* OpenCL 1.2: the fence orders the state's store before the flag's */
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    atomic_xchg(flag, epoch);
#endif
}
#define SPLIT_PUBLISH(fin) split_publish(sst + task, sflag + task, fin, epoch)
/* Pass 2: waits for a chunk's flag (acquire), then copies its state into red[q]. */
static inline void split_take(__global uint *flag, __global const st_t *st, const uint epoch, __local st_t *red,
                              const int q)
{
#if CLF_NV
    uint v;
    do
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    while (v != epoch);
#else
    while (atomic_or((volatile __global uint *)flag, 0u) != epoch)
        ;
    mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
    red[q] = *st;
}
#else
#define SPLIT_PARAMS
#endif

/* The row kernel: each team of LPL work-items takes UNR lines in sequence (line i of team sub of group g:
 * (g*UNR + i)*(WG/LPL) + sub), holds each in registers (xs), reduces it, merges with the tree, and writes it
 * from registers; the next line's loads (xn) are issued before the current one is reduced, so they are in
 * flight through its reduction, barriers and stores. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void clf_reduce(__global const CLF_X_T *x, const idx_t xo, const idx_t ldx, const idx_t lines, const idx_t len,
                CLF_RED_PARAMS SPLIT_PARAMS const int unused)
{
    const int lid = (int)get_local_id(0);
    const int sub = SUB, lane = LANE;
    const CT lenv = (CT)len;
#if CLF_SPLIT
    __local uint ticket;
    if (lid == 0)
        ticket = atomic_inc(sbuf) - tbase;
    barrier(CLK_LOCAL_MEM_FENCE);
    idx_t task;
    const int pass2 = split_task((idx_t)ticket, blk, &task);   /* past the last chunk: first >= lines, not live */
    const idx_t first = task / nch, coff = task % nch * (idx_t)(NV * VEC * LPL);
    __global uint *sflag = sbuf + 8;
    __global st_t *sst = (__global st_t *)(sbuf + sst_off);
#else
    const idx_t first = (idx_t)get_group_id(0) * (idx_t)(UNR * (WG / LPL)) + (idx_t)sub, coff = 0;
#endif
    __local st_t red[WG];
    __local CT res[WG / LPL], res1[WG / LPL], res2[WG / LPL];
    CT xs[NV * VEC], xn[NV * VEC];
    row_load(x, xo + first * ldx, coff, len, lane, first < lines, xs);
#if NEEDS_SHIFT
    CT x0 = first < lines && len > 0 ? LDX(xo + first * ldx) : K(0), x0n = K(0);   /* the line's first element */
#endif
#pragma unroll
    for (int i = 0; i < UNR; i++) {   /* unrolled: xs and xn swap by renaming, not by copies */
        const idx_t line = first + (idx_t)(i * (WG / LPL)), next = line + (idx_t)(WG / LPL);
        const int live = line < lines;
        const idx_t skew = FRAME_SKEW(xo + line * ldx);
        if (i + 1 < UNR) {
            row_load(x, xo + next * ldx, coff, len, lane, next < lines, xn);
#if NEEDS_SHIFT
            x0n = next < lines && len > 0 ? LDX(xo + next * ldx) : K(0);
#endif
        }
#if NEEDS_SHIFT
        CT shift;
        {
            const idx_t j = 0;
            const CT xv = x0;
            CT pv;
            { CLF_RED_PRE }
            shift = pv;
        }
#endif
        const int full = live && ALL_WHOLE();
#if CLF_SPLIT
        if (pass2) {   /* the line's state from its chunks' (in chunk order: every chunk of a line gets the same) */
            if (lane < (int)nch && first < lines)
                split_take(sflag + first * nch + (idx_t)lane, sst + first * nch + (idx_t)lane, epoch, red, lane);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lane == 0) {
                st_t fin = red[0];
                for (uint q = 1; q < nch; q++)
                    fin = ST_COMB(fin, red[q]);
                LINE_FINISH(fin);
            }
        } else {
#endif
        st_t b;
        ST_INIT(b);
        CT t = K(0);
#pragma unroll
        for (int e = 0; e < NV * VEC; e++) {
            const idx_t j = J0(e / VEC) + (idx_t)(e % VEC);
            if (full || (live && j < len)) {
                const CT xv = xs[e];
                CT pv;
                { CLF_RED_PRE }
                ST_P1(b, t, pv);
            }
        }
        ST_N(b, full ? NV * VEC : row_count(coff, skew, len, lane, live));
        ST_MID(b, t)
#pragma unroll
        for (int e = 0; e < NV * VEC; e++) {
            const idx_t j = J0(e / VEC) + (idx_t)(e % VEC);
            if (full || (live && j < len)) {
                const CT xv = xs[e];
                CT pv;
                { CLF_RED_PRE }
                ST_P2(b, pv);
            }
        }
        /* The tree (as in the generic kernel). Reusing red and res for the next line is safe: every
         * work-item passes the barrier before res is read only after its last read of red, and reads res
         * before it reaches the next line's first barrier. */
#if CLF_SPLIT
        RED_TREE_THEN(b, SPLIT_PUBLISH)   /* pass 1 ends with its chunk's state */
        }
#else
        RED_TREE_AND_POST(b)
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
#if CLF_SPLIT
        if (live && pass2) {
#else
        if (live) {
#endif
            const CT rv = res[sub], e1v = res1[sub], e2v = res2[sub];
#if defined(STYV) && CLF_WSPLIT
            /* A line whose vectors are all whole is written CLF_WSPLIT vectors at a time in two phases: their
             * values first, in place of the line's elements, then their stores. The loads of the write's
             * vectors along the line (g and b of a layer norm) of a batch are then issued together; between
             * stores, the compiler would have to assume y aliases them and wait for each load in turn. */
            if (full) {
#pragma unroll
                for (int k0 = 0; k0 < NV; k0 += CLF_WSPLIT) {
#pragma unroll
                    for (int k = k0; k < k0 + CLF_WSPLIT && k < NV; k++) {
                        const idx_t j0 = J0(k);
                        WRITE_VALUES(k, xs + k * VEC);
                    }
#pragma unroll
                    for (int k = k0; k < k0 + CLF_WSPLIT && k < NV; k++)
                        STYV(ELEM(yo, ldy, line, J0(k)), PACK(xs + k * VEC));
                }
            } else
#endif
#pragma unroll
            for (int k = 0; k < NV; k++) {
                const idx_t j0 = J0(k);
#if defined(STYV)
                if (WHOLE(j0)) {   /* a whole vector: computed element by element, stored at once */
                    CT w[VEC];
                    WRITE_VALUES(k, w);
                    STYV(ELEM(yo, ldy, line, j0), PACK(w));
                    continue;
                }
#endif
#pragma unroll
                for (int c = 0; c < VEC; c++) {
                    const idx_t j = j0 + (idx_t)c;
                    const CT xv = xs[k * VEC + c];
                    if (j < len) { CLF_RED_WRITE }
                }
            }
        }
        if (i + 1 < UNR) {
#pragma unroll
            for (int e = 0; e < NV * VEC; e++)
                xs[e] = xn[e];
#if NEEDS_SHIFT
            x0 = x0n;
#endif
        }
    }
}
#else
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void clf_reduce(__global const CLF_X_T *x, const idx_t xo, const idx_t ldx, const idx_t lines, const idx_t len,
                CLF_RED_PARAMS const int unused)
{
    const int lid = (int)get_local_id(0);
    const int sub = SUB, lane = LANE;
    const idx_t line = (idx_t)get_group_id(0) * (WG / LPL) + (idx_t)sub;
    const int live = line < lines;
    const CT lenv = (CT)len;
    st_t acc;
    ST_INIT(acc);
#if NEEDS_SHIFT
    CT shift = K(0);
    if (live && len > 0) {
        const idx_t j = 0;
        const CT xv = LDX(ELEM(xo, ldx, line, j));
        CT pv;
        { CLF_RED_PRE }
        shift = pv;
    }
#endif
#if CLF_CACHE
    CT keep[CLF_CACHE], pvs[CLF_CACHE];
#pragma unroll
    for (int k = 0; k < CLF_CACHE; k++) {
        const idx_t j = (idx_t)lane + (idx_t)(k * LPL);
        const int ok = live && j < len;
        const CT xv = ok ? LDX(ELEM(xo, ldx, line, j)) : K(0);
        keep[k] = xv;
        CT pv = K(0);
        if (ok) { CLF_RED_PRE }
        pvs[k] = pv;
    }
    {
        st_t b;
        ST_INIT(b);
        CT t = K(0);
        int cnt = 0;
#pragma unroll
        for (int k = 0; k < CLF_CACHE; k++)
            if (live && (idx_t)lane + (idx_t)(k * LPL) < len) { ST_P1(b, t, pvs[k]); cnt++; }
        ST_N(b, cnt);
        ST_MID(b, t)
#pragma unroll
        for (int k = 0; k < CLF_CACHE; k++)
            if (live && (idx_t)lane + (idx_t)(k * LPL) < len) { ST_P2(b, pvs[k]); }
        acc = ST_COMB(acc, b);
    }
#else
    if (live) {
        for (idx_t j0 = (idx_t)lane; j0 < len; j0 += (idx_t)(LPL * UNR)) {
            CT part[UNR];
#pragma unroll
            for (int u = 0; u < UNR; u++) {
                const idx_t j = j0 + (idx_t)(u * LPL);
                const CT xv = j < len ? LDX(ELEM(xo, ldx, line, j)) : K(0);
                CT pv = K(0);
                if (j < len) { CLF_RED_PRE }
                part[u] = pv;
            }
            st_t b;
            ST_INIT(b);
            CT t = K(0);
            int cnt = 0;
#pragma unroll
            for (int u = 0; u < UNR; u++)
                if (j0 + (idx_t)(u * LPL) < len) { ST_P1(b, t, part[u]); cnt++; }
            ST_N(b, cnt);
            ST_MID(b, t)
#pragma unroll
            for (int u = 0; u < UNR; u++)
                if (j0 + (idx_t)(u * LPL) < len) { ST_P2(b, part[u]); }
            acc = ST_COMB(acc, b);
        }
    }
#endif
    __local st_t red[WG];
    __local CT res[WG / LPL], res1[WG / LPL], res2[WG / LPL];
    RED_TREE_AND_POST(acc)
#if CLF_HAS_Y
    barrier(CLK_LOCAL_MEM_FENCE);
    if (live) {
        const CT rv = res[sub], e1v = res1[sub], e2v = res2[sub];
#if CLF_CACHE
#pragma unroll
        for (int k = 0; k < CLF_CACHE; k++) {
            const idx_t j = (idx_t)lane + (idx_t)(k * LPL);
            const CT xv = keep[k];
            if (j < len) { CLF_RED_WRITE }
        }
#else
        for (idx_t j = (idx_t)lane; j < len; j += LPL) {
            const CT xv = LDX(ELEM(xo, ldx, line, j));
            { CLF_RED_WRITE }
        }
#endif
    }
#endif
}
#endif
