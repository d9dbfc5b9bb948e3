/* gemm_mma.cl — GEMM on NVIDIA matrix units (compute capability 8.0 and later) through inline PTX
 * `mma.sync`, from OpenCL C. Built only for devices whose self-test passed (host/gemm/gemm_mma.c).
 *
 * Operands are K-contiguous: A is M x K and B is N x K, row r at r*ld (in 32-bit words), each zero-padded
 * to whole BM x BK and BN x BK tiles (the convert_pack pre-pass of gemm_convert.cl writes them so, or the
 * caller's buffer already is); with AKM and BKN, f16/bf16 operands stored K-major are read in place instead (see
 * MN_AT). The kernel works in 32-bit words: a word holds two K-neighbours in f16 or bf16, or one tf32/fp32
 * value. Rows start on 32-byte boundaries (8 words). Both mma shapes used here take 8 words of K per step, and
 * their fragments sit at the same word positions, so one loop serves every mode:
 *   m16n8k16 (f16, bf16):  A rows g, g+8, words t, t+4;  B column g, words t, t+4
 *   m16n8k8  (tf32):       the same word positions, one value per word
 * where g = lane / 4 and t = lane % 4. C fragments: rows g and g+8, columns 2t and 2t+1. In local memory
 * each group of 8 words of K is stored interleaved (0 4 1 5 2 6 3 7), so that words t and t+4 are
 * neighbours: one 64-bit load fetches both.
 *
 * Each work-group computes a BM x BN tile of C with (BM/WM) x (BN/WN) warps of WM x WN; tiles of A and B
 * pass through local memory, double-buffered, with the next tile's global loads in flight (in registers)
 * during the current tile's products. */

/* Tunable parameters (host/gemm/gemm_mma.c validates them together). */
#ifndef BM
#define BM 128   /* rows of C per work-group */
#endif
#ifndef BN
#define BN 128   /* columns of C per work-group */
#endif
#ifndef BK
#define BK 32    /* K elements per local-memory stage: a multiple of 8 words */
#endif
#ifndef WM
#define WM 64    /* rows per warp: a multiple of 16 */
#endif
#ifndef WN
#define WN 32    /* columns per warp: a multiple of 8 */
#endif
#ifndef STAGES
#define STAGES 2   /* local-memory buffers: 2 overlap a stage's stores with the next stage's products (one
                    * barrier per stage); 1 leaves room for twice the K per stage (two barriers per stage) */
#endif
#ifndef FPIPE
#define FPIPE 0   /* 1: load the next K-step's fragments before this step's products (more registers); with
                   * WGMMA, keep a stage's products in flight while the next stage is waited for */
#endif
#ifndef ASYNC
#define ASYNC 0   /* 1: global -> local memory by cp.async, STAGES (2-4) deep, with no register staging; the loads
                   * of the next STAGES - 1 stages are in flight while a stage computes */
#endif
#ifndef EDGE
#define EDGE 0    /* 1 (ASYNC): partial tiles of operands read in place are zero-filled by the copies (copy_async) */
#endif
#ifndef AKM
#define AKM 0     /* 1 (f16/bf16, ASYNC with ldmatrix or WGMMA): A is stored K x M (M contiguous) and read in place: a
                   * stage holds BK rows of BM elements (the MN-major layout below), whose fragments come by
                   * ldmatrix.trans, or which wgmma reads as an M-major operand */
#endif
#ifndef BKN
#define BKN 0     /* 1 (likewise): B is stored K x N (N contiguous), as x W has it, and read in place */
#endif
#ifndef GA
#define GA 0      /* 1 (ASYNC, A K-contiguous): A's rows are not 16-byte aligned (an odd leading dimension or offset), so
                   * cp.async cannot copy them: each 16-byte piece is gathered through registers instead (copy_gather),
                   * and A's offset, leading dimension and stride are in elements, not words */
#endif
#ifndef GB
#define GB 0      /* 1: likewise for B (stored N x K) */
#endif
#ifndef SWZ
#define SWZ 0     /* 1 (ldmatrix only): rows unpadded, their 16-byte chunks XOR-swizzled by row so that the 8 rows
                   * an ldmatrix phase reads fall on distinct banks: more stages fit in 48 KiB */
#endif
#ifndef WGMMA
#define WGMMA 0   /* 1 (f16, bf16, tf32; compute capability 9.0): warpgroups of 4 warps multiply 64 x WN tiles with
                   * wgmma.mma_async, which reads both operands straight from local memory; needs ASYNC and SWZ,
                   * whose layout is the one wgmma's 32/64/128-byte swizzle modes expect */
#endif
#ifndef PARTS
#define PARTS 1   /* 3xTF32 on wgmma (MODE 33, WGMMA): each stage's products are summed from zero over WN / PARTS columns
                   * of the warpgroup at a time, in registers of their own, then added into the accumulators with
                   * round-to-nearest adds: fewer extra registers than a second accumulator of the whole tile */
#endif
#ifndef LDSM
#define LDSM 0   /* fragments from local memory: 0 64-bit loads (interleaved layout), 1 ldmatrix (natural layout,
                  * 64-bit shared address), 2 ldmatrix with a 32-bit shared address; the tuner verifies which
                  * form this driver gets right */
#endif
/* What the matrix units multiply: 16 f16, 17 bf16, 32 tf32, 33 3xTF32 (fp32 split into a tf32 high part
 * and a tf32 remainder, three products: fp32 accuracy), 34 3xF16 (wgmma only: fp32 scaled by a power of two per
 * row of A and of B, split into an f16 high part and an f16 remainder by the packing pass, three f16 products;
 * the store scales C back), 64 fp64 (m8n8k4 DMMA: IEEE fp64 fused multiply-add, a double being two words here).
 * Set by the host. */
#ifndef MODE
#define MODE 16
#endif
/* Storage of C: 16 f16, 17 bf16, 32 float, 64 double (MODE 64 only). */
#ifndef CTYPE
#define CTYPE 32
#endif

/* 16-bit elements: f16, bf16 and 3xF16's split parts */
#define HALF_IN (MODE == 16 || MODE == 17 || MODE == 34)
#if MODE == 34 && (!WGMMA || AKM || BKN || GA || GB)
#error "3xF16 runs on wgmma over operands packed by the split pass"
#endif
#if HALF_IN
#define BKW (BK / 2)   /* words of K per stage */
#elif MODE == 64
#define BKW (BK * 2)
#else
#define BKW BK
#endif
#ifndef DK
#define DK 4      /* fp64 (MODE 64) matrix-unit shape: 4 m8n8k4 (compute capability 8.x), 16 m16n8k16 (9.0 on) */
#endif
#if MODE == 64 && DK == 4
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
#define MT (WM / 8)                    /* m8 tiles per warp */
#define ACC_N (MT * (WN / 8) * 2)      /* accumulators per thread */
#elif MODE == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
#define MT (WM / 16)                   /* m16 tiles per warp */
#define ACC_N (MT * (WN / 8) * 4)
#elif WGMMA
typedef float acc_t;
#define MT 1                           /* a warp holds 16 rows of its warpgroup's 64 x WN accumulator */
#define ACC_N ((WN / 8) * 4)
#else
typedef float acc_t;
#define MT (WM / 16)                   /* m16 tiles per warp */
#define ACC_N (MT * (WN / 8) * 4)
#endif
/* Local rows are LDW words apart. 64-bit fragment loads: LDW = 8 or 24 mod 32, so that a half-warp's
 * (4 rows x 4 lanes x 2 words) fall on 32 distinct banks. ldmatrix: LDW = 4 mod 8, so that the 8 rows of
 * 16 bytes each phase reads do. */
#if SWZ
#define PADW 0
#elif MODE == 64
#define PADW 8   /* rows LDW/2 = 4 or 12 mod 16 doubles apart: a half-warp's 4 rows x 4 doubles hit distinct banks */
#elif LDSM
#define PADW 4
#else
#define PADW (BKW % 16 == 8 ? 16 : 8)
#endif
#define LDW (BKW + PADW)
#define CPR (BKW / 4)                  /* 16-byte chunks per row */
/* Word w of row r of a stage: chunk (w / 4) of the row, XOR-swizzled when SWZ. Eight consecutive rows at one
 * logical chunk then cover all 32 banks: with 8 or more chunks a row, chunk ^ (r % 8); with fewer, rows share
 * a 128-byte line and the swizzle steps every 8 / CPR rows. */
#if SWZ && CPR >= 8
#define SWZ_OF(r) ((r) & 7)
#elif SWZ
#define SWZ_OF(r) (((r) / (8 / CPR)) & (CPR - 1))
#else
#define SWZ_OF(r) 0
#endif
#define WORD_AT(r, w) ((r) * LDW + ((((w) >> 2) ^ SWZ_OF(r)) << 2) + ((w) & 3))
/* An operand read in place from K-major storage (AKM, BKN) keeps that layout in local memory: a stage is BK rows
 * (one per element of K) of R elements (R / 2 words, BM or BN, a multiple of 64), each row's 16-byte chunks
 * XOR-swizzled by k % 8, so that the 8 consecutive rows of K that an ldmatrix.trans phase reads at one chunk
 * fall on distinct banks. It takes BK * R / 2 words: no more than the K-contiguous layout's stage. For wgmma the
 * rows are cut into the 128-byte swizzle's atoms (8 rows of K x 64 elements, 1024 bytes), atoms along the row
 * 1024 bytes apart and groups of 8 rows of K R / 64 atoms apart: the canonical MN-major layout, whose leading
 * and stride byte offsets (1024 and 16 R) the descriptor gives (smem_desc_mn). */
#if WGMMA
#define MN_AT(R, k, w) (((w) >> 5 << 8) + ((k) >> 3) * ((R) / 64 << 8) + (((k) & 7) << 5) + \
                        (((((w) >> 2) & 7) ^ ((k) & 7)) << 2) + ((w) & 3))
#else
#define MN_AT(R, k, w) ((k) * ((R) / 2) + ((((w) >> 2) ^ ((k) & 7)) << 2) + ((w) & 3))
#endif
#if (AKM || BKN) && (!(MODE == 16 || MODE == 17) || !ASYNC || !(LDSM || WGMMA))
#error "AKM and BKN need f16/bf16 and ASYNC with ldmatrix or WGMMA"
#endif
#if (GA || GB) && (!ASYNC || (GA && AKM) || (GB && BKN))
#error "GA and GB need ASYNC and an operand stored K-contiguous"
#endif
#if (AKM && BM % 64) || (BKN && BN % 64)
#error "an operand read from K-major storage needs tiles of a multiple of 64 rows"
#endif
#define WARPS_M (BM / WM)
#define WARPS_N (BN / WN)
#if WGMMA
#define THREADS (WARPS_M * WARPS_N * 128)   /* WM = 64: one warpgroup per WM x WN tile */
#else
#define THREADS (WARPS_M * WARPS_N * 32)
#endif
#define NT (WN / 8)                    /* n8 tiles per warp */
#define A_PIECES (BM * BKW / 8)             /* 8-word (uint8) pieces of a stage of A */
#define B_PIECES (BN * BKW / 8)
#define A_VECS ((A_PIECES + THREADS - 1) / THREADS)   /* per thread; the last round may be partial */
#define B_VECS ((B_PIECES + THREADS - 1) / THREADS)
#define GROUP_M 8                      /* work-groups along M that share B panels in L2 */

#if MODE != 64
static inline void mma_step(float *d, const uint *a, const uint *b)
{
#if MODE == 16
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(d[0]), "f"(d[1]), "f"(d[2]), "f"(d[3]));
#elif MODE == 17
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(d[0]), "f"(d[1]), "f"(d[2]), "f"(d[3]));
#else
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(d[0]), "f"(d[1]), "f"(d[2]), "f"(d[3]));
#endif
}

#if MODE == 32 || MODE == 33
/* fp32 -> tf32, rounded to nearest (ties away), as the matrix units expect. */
static inline uint to_tf32(uint x)
{
    uint r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(as_float(x)));
    return r;
}
#endif
#if MODE == 33
/* 1 for the bits of inf or NaN: 3xTF32 lets them into the product through hi times hi only (compute_stage) */
static inline int special_word(const uint w) { return (w & 0x7f800000u) == 0x7f800000u; }
#endif

/* Fragment words of one m16 tile of A (a) and one n8 tile of B (b) from local memory, at word kk. For
 * 3xTF32, lo gets the tf32 remainders. */
/* TF32 staged through registers is rounded once, as it goes to local memory (stash), rather than by every
 * warp that loads it as a fragment. */
#define TF32_AT_STASH (MODE == 32 && !ASYNC)

static inline void split_words(const uint *w, uint *hi, uint *lo, int n)
{
#pragma unroll
    for (int i = 0; i < n; i++) {
#if TF32_AT_STASH
        hi[i] = w[i];
#elif MODE == 32 || MODE == 33
        hi[i] = to_tf32(w[i]);
#if MODE == 33
        lo[i] = special_word(w[i]) ? 0u : to_tf32(as_uint(as_float(w[i]) - as_float(hi[i])));
#endif
#else
        hi[i] = w[i];
#endif
    }
}

#if LDSM
/* Four 8x8 matrices of 16-bit elements (8 rows of 4 words) in one instruction; lane l gives the address of
 * row l % 8 of matrix l / 8 and receives, of each matrix, the word of row l / 4 at column l % 4 — exactly the
 * mma fragment word positions. The .trans form reads the matrices from MN-major storage (rows of local memory
 * are K; AKM, BKN) and hands lane l, of each, the two elements of K 2 (l % 4) and 2 (l % 4) + 1 in column l / 4:
 * again the word the fragment wants. */
#if LDSM == 2
#define LDSM_X4(op, p, r) asm volatile(op " {%0,%1,%2,%3}, [%4];" : "=r"((r)[0]), "=r"((r)[1]), "=r"((r)[2]), \
                                       "=r"((r)[3]) : "r"((uint)(ulong)(p)) : "memory")
#else
#define LDSM_X4(op, p, r) asm volatile(op " {%0,%1,%2,%3}, [%4];" : "=r"((r)[0]), "=r"((r)[1]), "=r"((r)[2]), \
                                       "=r"((r)[3]) : "l"((ulong)(p)) : "memory")
#endif
static inline void ldsm_x4(const __local uint *p, uint *r)
{
    LDSM_X4("ldmatrix.sync.aligned.m8n8.x4.shared.b16", p, r);
}
#if AKM || BKN
static inline void ldsm_x4_t(const __local uint *p, uint *r)
{
    LDSM_X4("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", p, r);
}
#endif

/* A: matrices (rows 0-7, words 0-3), (rows 8-15, words 0-3), (rows 0-7, words 4-7), (rows 8-15, words 4-7). */
static inline void load_a(const __local uint *As, int row, int kk, uint *hi, uint *lo)
{
    const int l = (int)get_local_id(0) & 31, mi = l >> 3;
    uint w[4];
#if AKM   /* lane l gives row k = 2 kk + l % 8 (+ 8) of the matrix at columns row (+ 8) */
    ldsm_x4_t(As + MN_AT(BM, 2 * kk + (l & 7) + (mi >> 1) * 8, (row + (mi & 1) * 8) / 2), w);
#else
    ldsm_x4(As + WORD_AT(row + (l & 7) + (mi & 1) * 8, kk + (mi >> 1) * 4), w);
#endif
    split_words(w, hi, lo, 4);
}

/* B, two n8 tiles at once: (cols 0-7, words 0-3), (cols 0-7, words 4-7), (cols 8-15, words 0-3), (8-15, 4-7). */
static inline void load_b2(const __local uint *Bs, int col, int kk, uint *hi0, uint *lo0, uint *hi1, uint *lo1)
{
    const int l = (int)get_local_id(0) & 31, mi = l >> 3;
    uint w[4];
#if BKN
    ldsm_x4_t(Bs + MN_AT(BN, 2 * kk + (l & 7) + (mi & 1) * 8, (col + (mi >> 1) * 8) / 2), w);
#else
    ldsm_x4(Bs + WORD_AT(col + (l & 7) + (mi >> 1) * 8, kk + (mi & 1) * 4), w);
#endif
    split_words(w, hi0, lo0, 2);
    split_words(w + 2, hi1, lo1, 2);
}
#else
static inline void load_a(const __local uint *As, int row, int kk, uint *hi, uint *lo)
{
    const int g = (int)(get_local_id(0) & 31) >> 2, t = (int)get_local_id(0) & 3;
    /* Typed loads (not vload2, which may assume 4-byte alignment) so that each is one 64-bit access. */
    const uint2 r0 = *(const __local uint2 *)(As + (row + g) * LDW + kk + 2 * t);       /* words t, t+4, row g */
    const uint2 r1 = *(const __local uint2 *)(As + (row + g + 8) * LDW + kk + 2 * t);   /* and of row g+8 */
    uint w[4] = {r0.x, r1.x, r0.y, r1.y};
    split_words(w, hi, lo, 4);
}

static inline void load_b(const __local uint *Bs, int col, int kk, uint *hi, uint *lo)
{
    const int g = (int)(get_local_id(0) & 31) >> 2, t = (int)get_local_id(0) & 3;
    const uint2 r = *(const __local uint2 *)(Bs + (col + g) * LDW + kk + 2 * t);
    uint w[2] = {r.x, r.y};
    split_words(w, hi, lo, 2);
}
#endif

/* The fragments of one K-step (8 words) for this warp's tiles. */
static inline void load_frags(const __local uint *As, const __local uint *Bs, int wm0, int wn0, int kk,
                              uint (*ah)[4], uint (*al)[4], uint (*bh)[2], uint (*bl)[2])
{
#pragma unroll
    for (int i = 0; i < MT; i++)
        load_a(As, wm0 + i * 16, kk, ah[i], al[i]);
#if LDSM
#pragma unroll
    for (int j = 0; j < NT; j += 2)
        load_b2(Bs, wn0 + j * 8, kk, bh[j], bl[j], bh[j + 1], bl[j + 1]);
#else
#pragma unroll
    for (int j = 0; j < NT; j++)
        load_b(Bs, wn0 + j * 8, kk, bh[j], bl[j]);
#endif
}

#if MODE == 33
/* hi words with inf and NaN replaced by 0 */
static inline void finite_words(const uint *h, uint *f, int n)
{
#pragma unroll
    for (int i = 0; i < n; i++)
        f[i] = special_word(h[i]) ? 0u : h[i];
}
#endif

/* One stage's products: BKW words of K for this warp's WM x WN accumulators. 3xTF32 sums each stage's three
 * products from zero on the matrix units, whose accumulation truncates, and adds the stage into acc with
 * ordinary (round-to-nearest) fp32 adds: truncation over the whole of K would cost the accuracy the split
 * bought (Ootomo & Yokota, 2022). */
static inline void compute_stage(const __local uint *As, const __local uint *Bs, int wm0, int wn0, float *acc)
{
#if MODE == 33
    float part[MT * NT * 4];
#pragma unroll
    for (int i = 0; i < MT * NT * 4; i++)
        part[i] = 0.0f;
    float *d = part;
#else
    float *d = acc;
#endif
    uint ah[2][MT][4], al[2][MT][4], bh[2][NT][2], bl[2][NT][2];
    if (FPIPE)
        load_frags(As, Bs, wm0, wn0, 0, ah[0], al[0], bh[0], bl[0]);
#pragma unroll
    for (int kk = 0; kk < BKW; kk += 8) {
        const int c = (kk / 8) & 1 & FPIPE;   /* which fragment set: a constant once unrolled */
        if (FPIPE && kk + 8 < BKW)
            load_frags(As, Bs, wm0, wn0, kk + 8, ah[c ^ 1], al[c ^ 1], bh[c ^ 1], bl[c ^ 1]);
        if (!FPIPE)
            load_frags(As, Bs, wm0, wn0, kk, ah[0], al[0], bh[0], bl[0]);
#if MODE == 33
        /* inf and NaN enter through hi times hi only: in a cross term they would meet the partner's remainder, 0
         * wherever the partner is a tf32 value, and inf x 0 is NaN where fp32 gives inf. Once a fragment, not
         * once a pair: per pair the ALU work held the H200's mma.sync 3xTF32 at 34 TFLOP/s against 55. */
        uint bf[NT][2];
#pragma unroll
        for (int j = 0; j < NT; j++)
            finite_words(bh[c][j], bf[j], 2);
#endif
#pragma unroll
        for (int i = 0; i < MT; i++) {
#if MODE == 33
            uint af[4];   /* A's masks a row of tiles at a time: fewer registers live than all of them */
            finite_words(ah[c][i], af, 4);
#endif
#pragma unroll
            for (int j = 0; j < NT; j++) {
#if MODE == 33
                mma_step(d + (i * NT + j) * 4, al[c][i], bf[j]);   /* small terms first */
                mma_step(d + (i * NT + j) * 4, af, bl[c][j]);
#endif
                mma_step(d + (i * NT + j) * 4, ah[c][i], bh[c][j]);
            }
        }
    }
#if MODE == 33
#pragma unroll
    for (int i = 0; i < MT * NT * 4; i++)
        acc[i] += part[i];
#endif
}

#endif

#if WGMMA && MODE == 64
#error "wgmma serves f16, bf16, tf32 and 3xTF32 only"
#endif
/* PARTS serves 3xTF32 on wgmma only, and there FPIPE pipelines the parts of a stage; elsewhere (and FPIPE with one
 * part) they change nothing: the tuner's space, which cannot tell 3xTF32 from tf32, still draws such
 * configurations, and they must build */
/* the split modes sum each stage from zero */
#define SPLIT_SUMS (MODE == 33 || MODE == 34)
#if WGMMA && SPLIT_SUMS
#define NPARTS PARTS
#else
#define NPARTS 1
#endif
#define PART_PIPE (FPIPE && NPARTS > 1)
#if WGMMA
/* The wgmma instructions are written behind "//@sm90a ": NVIDIA's OpenCL compiler emits PTX for sm_90, where
 * they do not assemble, so its PTX carries them as comments; the host then retargets the program's PTX to
 * sm_90a, uncovers them and builds it again (host/runtime/ptx_retarget.c). scripts/gpu/ptx_probe.c checks
 * the instructions, the descriptors and the accumulator layout on the device. */
#define STR_(x) #x
#define STR(x) STR_(x)
#define WG_FENCE() asm volatile("//@sm90a wgmma.fence.sync.aligned;" ::: "memory")
#define WG_COMMIT() asm volatile("//@sm90a wgmma.commit_group.sync.aligned;" ::: "memory")
#define WG_WAIT0() asm volatile("//@sm90a wgmma.wait_group.sync.aligned 0;" ::: "memory")
#define WG_WAIT1() asm volatile("//@sm90a wgmma.wait_group.sync.aligned 1;" ::: "memory")
#define R0 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15"
#define R1 "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31"
#define R2 "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47"
#define R3 "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
#define R4 "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79"
#define R5 "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95"
#define R6 "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111"
#define R7 "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
#define O8(d, b) "+f"(d[(b)]), "+f"(d[(b) + 1]), "+f"(d[(b) + 2]), "+f"(d[(b) + 3]), "+f"(d[(b) + 4]), "+f"(d[(b) + 5]), \
                 "+f"(d[(b) + 6]), "+f"(d[(b) + 7])
#define O32(d, b) O8(d, b), O8(d, (b) + 8), O8(d, (b) + 16), O8(d, (b) + 24)
/* One instruction multiplies 64 x WGN: the warpgroup's WN columns, or a part of them (NPARTS). */
#define WGN (WN / NPARTS)
#if WGN == 32
#define WGN_S "32"
#define WG_REGS R0
#define WG_OUTS(d) O8(d, 0), O8(d, 8)
#define WG_INS "%16, %17, p"
#define WG_ONE "%18"
#elif WGN == 64
#define WGN_S "64"
#define WG_REGS R0 "," R1
#define WG_OUTS(d) O32(d, 0)
#define WG_INS "%32, %33, p"
#define WG_ONE "%34"
#elif WGN == 128
#define WGN_S "128"
#define WG_REGS R0 "," R1 "," R2 "," R3
#define WG_OUTS(d) O32(d, 0), O32(d, 32)
#define WG_INS "%64, %65, p"
#define WG_ONE "%66"
#else
#define WGN_S "256"
#define WG_REGS R0 "," R1 "," R2 "," R3 "," R4 "," R5 "," R6 "," R7
#define WG_OUTS(d) O32(d, 0), O32(d, 32), O32(d, 64), O32(d, 96)
#define WG_INS "%128, %129, p"
#define WG_ONE "%130"
#endif
#if HALF_IN
#if MODE == 16 || MODE == 34
#define WG_SHAPE "k16.f32.f16.f16"
#else
#define WG_SHAPE "k16.f32.bf16.bf16"
#endif
/* scale A and B by 1; each operand K-major (0), or MN-major (1: AKM, BKN) */
#define WG_IMM ", 1, 1, " STR(AKM) ", " STR(BKN)
#else
#define WG_SHAPE "k8.f32.tf32.tf32"   /* the units read fp32 words and use their upper 19 bits */
#define WG_IMM ", 1, 1"
#endif
/* Rows of BKW words: 128, 64 or 32 bytes, the swizzle mode of that width (1, 2, 3); 8-row groups apart. */
#define ROWB (BKW * 4)
#define SWZ_MODE (ROWB == 128 ? 1 : ROWB == 64 ? 2 : 3)

static inline ulong smem_desc(const __local uint *p)
{
    const uint a = (uint)(ulong)p;
    return (ulong)((a & 0x3FFFF) >> 4) | (1ul << 16) | ((ulong)(8 * ROWB >> 4) << 32) | ((ulong)SWZ_MODE << 62);
}

#if AKM || BKN
/* An MN-major stage of R elements a row (MN_AT): 128-byte swizzle, atoms along MN 1024 bytes apart (leading byte
 * offset), groups of 8 rows of K 16 R bytes apart (stride byte offset). */
static inline ulong smem_desc_mn(const __local uint *p, const int R)
{
    const uint a = (uint)(ulong)p;
    return (ulong)((a & 0x3FFFF) >> 4) | ((ulong)(1024 >> 4) << 16) | ((ulong)R << 32) | (1ul << 62);
}
#endif
/* Descriptors of this warpgroup's part of a stage, and how far one 16-byte step of K (one wgmma) moves them, in
 * the descriptor's 16-byte units: 32 bytes along a K-contiguous row, two groups of 8 rows down an MN-major stage. */
#if AKM
#define DESC_A(As, wgi) smem_desc_mn((As) + (wgi) / WARPS_N * 256, BM)
#define STEP_A (2ul * BM)
#else
#define DESC_A(As, wgi) smem_desc((As) + (wgi) / WARPS_N * 64 * BKW)
#define STEP_A 2ul
#endif
#if BKN
#define DESC_B(Bs, wgi) smem_desc_mn((Bs) + (wgi) % WARPS_N * WN / 64 * 256, BN)
#define STEP_B (2ul * BN)
#else
#define DESC_B(Bs, wgi) smem_desc((Bs) + (wgi) % WARPS_N * WN * BKW)
#define STEP_B 2ul
#endif

/* One stage: this warpgroup's 64 x WN accumulator += its 64 rows of A times its WN rows of B, BKW / 8 wgmma
 * steps of 32 bytes of K each (the descriptor's start moves 2 x 16 bytes a step; the swizzle is applied by the
 * hardware on the address bits, so the start may sit inside a swizzled row). Issued as one group, which runs
 * while the caller goes on; wgmma_wait says when the products have read local memory. part: which WGN columns
 * of the warpgroup's WN (0 when NPARTS is 1); fresh: the first step ignores acc's values (its scale-d is 0), so the
 * group's sum starts from zero. */
static inline void wgmma_issue(const __local uint *As, const __local uint *Bs, int wgi, int part, int fresh, float *acc)
{
    const ulong da = DESC_A(As, wgi), db = DESC_B(Bs, wgi) + (ulong)(part * WGN * BKW / 4);
    WG_FENCE();
#pragma unroll
    for (int k = 0; k < BKW / 8; k++)
        asm volatile("//@sm90a { .reg .pred p; setp.ne.b32 p, " WG_ONE ", 0; wgmma.mma_async.sync.aligned.m64n" WGN_S
                     WG_SHAPE " {" WG_REGS "}, " WG_INS WG_IMM "; }"
                     : WG_OUTS(acc) : "l"(da + STEP_A * (ulong)k), "l"(db + STEP_B * (ulong)k), "r"(fresh && k == 0 ? 0 : 1)
                     : "memory");
    WG_COMMIT();
}

/* Waits until at most `pending` (0 or 1, a constant) of this warpgroup's stages are still in flight; acc: the n
 * registers they write. */
static inline void wgmma_wait(float *acc, const int n, const int pending)
{
    if (pending)
        WG_WAIT1();
    else
        WG_WAIT0();
#pragma unroll
    for (int i = 0; i < n; i++)
        asm volatile("" : "+f"(acc[i]) :: "memory");   /* no use of acc moves above the wait */
}
#endif

#if MODE == 64 && DK == 16
/* fp64 on compute capability 9.0: d (rows g and g+8, columns 2t and 2t+1 of a 16x8 tile, as the f32 C
 * fragment) += a (a[r] at row g + 8 (r % 2), k t + 4 (r / 2)) * b (b[r] at k t + 4 r, column g). Twice the
 * products per instruction of m8n8k4 (scripts/gpu/ptx_probe.c checks the fragment positions). */
static inline void mma_f64_k16(double *d, const double *a, const double *b)
{
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
        "{%12,%13,%14,%15}, {%0,%1,%2,%3};"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
          "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}

static inline void compute_stage64(const __local uint *As, const __local uint *Bs, int wm0, int wn0, double *acc)
{
    const int g = (int)(get_local_id(0) & 31) >> 2, t = (int)get_local_id(0) & 3;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
        double a[MT][8], b[NT][4];
#pragma unroll
        for (int i = 0; i < MT; i++)
#pragma unroll
            for (int r = 0; r < 8; r++)
                a[i][r] = ((const __local double *)(As + (wm0 + i * 16 + g + 8 * (r & 1)) * LDW))[kk + t + 4 * (r >> 1)];
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                b[j][r] = ((const __local double *)(Bs + (wn0 + j * 8 + g) * LDW))[kk + t + 4 * r];
#pragma unroll
        for (int i = 0; i < MT; i++)
#pragma unroll
            for (int j = 0; j < NT; j++)
                mma_f64_k16(acc + (i * NT + j) * 4, a[i], b[j]);
    }
}
#define COMPUTE_STAGE compute_stage64
#elif MODE == 64
/* fp64: d (2 accumulators, row g, columns 2t and 2t+1 of an 8x8 tile) += a (row g, k t) * b (k t, column g). */
static inline void mma_f64(double *d, double a, double b)
{
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(d[0]), "=d"(d[1]) : "d"(a), "d"(b), "d"(d[0]), "d"(d[1]));
}

static inline void compute_stage64(const __local uint *As, const __local uint *Bs, int wm0, int wn0, double *acc)
{
    const int g = (int)(get_local_id(0) & 31) >> 2, t = (int)get_local_id(0) & 3;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 4) {
        double a[MT], b[NT];
#pragma unroll
        for (int i = 0; i < MT; i++)
            a[i] = ((const __local double *)(As + (wm0 + i * 8 + g) * LDW))[kk + t];
#pragma unroll
        for (int j = 0; j < NT; j++)
            b[j] = ((const __local double *)(Bs + (wn0 + j * 8 + g) * LDW))[kk + t];
#pragma unroll
        for (int i = 0; i < MT; i++)
#pragma unroll
            for (int j = 0; j < NT; j++)
                mma_f64(acc + (i * NT + j) * 2, a[i], b[j]);
    }
}
#define COMPUTE_STAGE compute_stage64
#else
#define COMPUTE_STAGE compute_stage
#endif

/* Global -> registers: this thread's share of one stage of A (rows ld words apart) or B, in 8-word pieces. */
static inline void fetch(const __global uint8 *X, ulong base, long ld, int kw, uint8 *r, int nvec, int pieces)
{
#pragma unroll
    for (int i = 0; i < nvec; i++) {
        const int v = (int)get_local_id(0) + i * THREADS, row = v / (BKW / 8), c8 = v % (BKW / 8);
        if (pieces % THREADS == 0 || v < pieces)
            r[i] = X[(base + (ulong)((long)row * ld) + (ulong)kw) / 8 + (ulong)c8];
    }
}

/* Registers -> local memory, each 8-word piece interleaved (0 4 1 5 2 6 3 7) for 64-bit fragment loads, or
 * in natural order for ldmatrix. */
static inline void stash(__local uint *S, const uint8 *r, int nvec, int pieces)
{
#pragma unroll
    for (int i = 0; i < nvec; i++) {
        const int v = (int)get_local_id(0) + i * THREADS, row = v / (BKW / 8), c8 = v % (BKW / 8);
#if TF32_AT_STASH
        const uint8 x = (uint8)(to_tf32(r[i].s0), to_tf32(r[i].s1), to_tf32(r[i].s2), to_tf32(r[i].s3),
                                to_tf32(r[i].s4), to_tf32(r[i].s5), to_tf32(r[i].s6), to_tf32(r[i].s7));
#else
        const uint8 x = r[i];
#endif
        if (pieces % THREADS == 0 || v < pieces) {
#if LDSM || MODE == 64   /* natural order (rows only 16-byte aligned when LDW = 4 mod 8) */
            *(__local uint4 *)(S + WORD_AT(row, c8 * 8)) = x.lo;
            *(__local uint4 *)(S + WORD_AT(row, c8 * 8 + 4)) = x.hi;
#else
            *(__local uint8 *)(S + row * LDW + c8 * 8) = (uint8)(x.s0, x.s4, x.s1, x.s5, x.s2, x.s6, x.s3, x.s7);
#endif
        }
    }
}

#if ASYNC
/* One stage of A (rows ld words apart, from word kw) or B, global -> local memory in 16-byte cp.async copies
 * that bypass registers; the caller commits them as one group. */
/* EDGE: the operands are read in place although their last tile has rows past M (N) or their K ends inside a
 * stage; the copies of those 16-byte pieces read nothing and write zeros (cp.async's source size 0), so no
 * pre-pass pads them. rows: the tile's rows that exist; kv: the words of K that exist (a multiple of 4). */
static inline void copy_async(__local uint *S, const __global uint4 *X, ulong base, long ld, int kw, int chunks,
                              int rows, int kv)
{
#pragma unroll
    for (int i = 0; i < (chunks + THREADS - 1) / THREADS; i++) {
        const int v = (int)get_local_id(0) + i * THREADS, row = v / CPR, c = v % CPR;
        if (chunks % THREADS == 0 || v < chunks) {
#if EDGE
            const int in = row < rows && kw + c * 4 < kv;
            const __global uint4 *src = X + (in ? (base + (ulong)((long)row * ld) + (ulong)kw) / 4 + (ulong)c : base / 4);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "l"((ulong)(S + WORD_AT(row, c * 4))),
                         "l"(src), "r"(in ? 16 : 0) : "memory");
#else
            const __global uint4 *src = X + (base + (ulong)((long)row * ld) + (ulong)kw) / 4 + (ulong)c;
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "l"((ulong)(S + WORD_AT(row, c * 4))),
                         "l"(src) : "memory");
#endif
        }
    }
}

#if AKM || BKN
/* One stage of an operand stored K-major (AKM, BKN), read in place: BK rows of K (ld words apart, from row k0),
 * each R elements of the tile from word base, into the MN-major layout. Pieces past the matrix (rows of K from kv
 * on, elements of the row from `cols` on) read nothing or part of their 16 bytes and are zero-filled, so any K,
 * M and N work; rows of K past K must be zeros, since the other operand's padding meets them. */
static inline void copy_async_mn(__local uint *S, const __global uint4 *X, ulong base, long ld, int k0, const int R,
                                 int cols, int kv)
{
    const int cpr = R / 8, chunks = BK * cpr;   /* 16-byte chunks: 8 elements */
#pragma unroll
    for (int i = 0; i < (chunks + THREADS - 1) / THREADS; i++) {
        const int v = (int)get_local_id(0) + i * THREADS, k = v / cpr, c = v % cpr;
        if (chunks % THREADS == 0 || v < chunks) {
            const int bytes = k0 + k < kv ? clamp((cols - c * 8) * 2, 0, 16) : 0;
            const __global uint4 *src = X + (bytes ? (base + (ulong)((long)(k0 + k) * ld)) / 4 + (ulong)c : base / 4);
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "l"((ulong)(S + MN_AT(R, k, c * 4))),
                         "l"(src), "r"(bytes) : "memory");
        }
    }
}
#endif

#if GA || GB
/* The elements of an operand read by gathering, as raw bits: EPP of them fill a 16-byte piece. */
#if MODE == 16 || MODE == 17
typedef ushort gelem_t;
#define EPP 8
#elif MODE == 64
typedef ulong gelem_t;
#define EPP 2
#else
typedef uint gelem_t;
#define EPP 4
#endif

/* The piece of EPP elements (16 bytes) from element `at` of X, of which n (<= 0: none) exist, as the words w[0..4]
 * and a shift sh that gather_put turns into the piece: loaded now, used a stage later, so that the loads' latency is
 * spent while the stage's products run. A whole f16/bf16 piece is read as the 4-byte words that cover it (five when
 * it starts on an odd element, which then needs one element past the piece: n > EPP); wider elements are 4-byte
 * aligned already. Pieces at the edges are read element by element, zeros past them, and assembled at once. */
static inline void gather_get(const __global gelem_t *X, ulong at, int n, uint *w, uint *sh)
{
#if MODE == 16 || MODE == 17
    const int odd = (int)(at & 1);
    if (n > EPP || (n == EPP && !odd)) {
        const __global uint *p = (const __global uint *)(X + (at - (ulong)odd));
        w[0] = p[0], w[1] = p[1], w[2] = p[2], w[3] = p[3], w[4] = odd ? p[4] : 0u;
        *sh = odd ? 16u : 0u;
        return;
    }
#else
    if (n >= EPP) {
        const __global uint *p = (const __global uint *)(X + at);
        w[0] = p[0], w[1] = p[1], w[2] = p[2], w[3] = p[3], w[4] = 0u;
        *sh = 0u;
        return;
    }
#endif
    gelem_t e[EPP];
#pragma unroll
    for (int j = 0; j < EPP; j++)
        e[j] = j < n ? X[at + (ulong)j] : (gelem_t)0;
#if MODE == 16 || MODE == 17
    const uint4 v = as_uint4(vload8(0, e));
#elif MODE == 64
    const uint4 v = as_uint4(vload2(0, e));
#else
    const uint4 v = vload4(0, e);
#endif
    w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w, w[4] = 0u;
    *sh = 0u;
}

/* Pieces of a stage of an operand gathered (GA, GB) per thread; the last round may be partial. */
#define GP(rows) ((rows * CPR + THREADS - 1) / THREADS)

/* Loads (gather_get) this thread's pieces of one stage of a gathered operand from element k0 of each row: rows ld
 * elements apart from element base, of which `rows` exist with kv elements of K each. */
static inline void gather_stage(const __global gelem_t *X, ulong base, long ld, int k0, const int R, int rows, int kv,
                                uint (*w)[5], uint *sh)
{
#pragma unroll
    for (int i = 0; i < GP(R); i++) {
        const int v = (int)get_local_id(0) + i * THREADS, row = v / CPR, c = v % CPR;
        const int k = k0 + c * EPP, n = (R * CPR) % THREADS == 0 || v < R * CPR ? (row < rows ? kv - k : 0) : 0;
        gather_get(X, n > 0 ? base + (ulong)((long)row * ld) + (ulong)k : base, n, w[i], &sh[i]);
    }
}

/* Stores the pieces gather_stage loaded where copy_async would have put them. */
static inline void gather_put(__local uint *S, const int R, uint (*w)[5], const uint *sh)
{
#pragma unroll
    for (int i = 0; i < GP(R); i++) {
        const int v = (int)get_local_id(0) + i * THREADS, row = v / CPR, c = v % CPR;
        if ((R * CPR) % THREADS == 0 || v < R * CPR)
            *(__local uint4 *)(S + WORD_AT(row, c * 4)) =
                (uint4)((uint)(upsample(w[i][1], w[i][0]) >> sh[i]), (uint)(upsample(w[i][2], w[i][1]) >> sh[i]),
                        (uint)(upsample(w[i][3], w[i][2]) >> sh[i]), (uint)(upsample(w[i][4], w[i][3]) >> sh[i]));
    }
}
#endif

static inline void async_commit(void) { asm volatile("cp.async.commit_group;" ::: "memory"); }

/* Stages loaded ahead of the one computing: all the other buffers. */
#define AHEAD (STAGES - 1)
/* Waits until this thread's copies of the oldest outstanding stage have landed (AHEAD - 1 younger ones may
 * still be in flight). */
#if AHEAD == 1
#define ASYNC_WAIT() asm volatile("cp.async.wait_group 0;" ::: "memory")
#elif AHEAD == 2
#define ASYNC_WAIT() asm volatile("cp.async.wait_group 1;" ::: "memory")
#else
#define ASYNC_WAIT() asm volatile("cp.async.wait_group 2;" ::: "memory")
#endif
#endif

#include "bf16.cl"
#include "split_scale.cl"
/* The GEMM epilogue's store hook (cl/common.cl explains it): empty without an epilogue. */
#ifndef CLF_EPI
#define CLF_EPI 0
#define CLF_EPI_DECL
#define CLF_EPI_PASS
#endif

#if CTYPE == 16
/* Two floats as f16 (lo in the low half), rounded to nearest even by the hardware's conversion: vstore_half_rte
 * made an f16 C slower to store than an fp32 one twice its size (H200, 4096^3: 363 against 376 TFLOP/s). */
static inline uint f16x2_rn(float lo, float hi)
{
    uint u;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(u) : "f"(hi), "f"(lo));
    return u;
}
#endif

/* With an epilogue, element (row, col) of batch item bat is stored by it (cl/common.cl explains the hook). */
#if CLF_EPI
#define STORE(p, plain) clf_epilogue(p, bat, row, col, v CLF_EPI_PASS)
#else
#define STORE(p, plain) plain
#endif

static inline void store_c(__global void *C, ulong i, acc_t v, acc_t beta, const ulong bat, const int row,
                           const int col CLF_EPI_DECL)
{
#if CTYPE == 64
    __global double *c = (__global double *)C;
    if (beta != 0.0)
        v += beta * c[i];
    STORE(c + i, c[i] = v);
#elif CTYPE == 16
    if (beta != 0.0f)
        v += beta * vload_half(i, (const __global half *)C);
    STORE((__global half *)C + i, ((__global ushort *)C)[i] = (ushort)f16x2_rn(v, 0.0f));
#elif CTYPE == 17
    __global ushort *c = (__global ushort *)C;
    if (beta != 0.0f)
        v += beta * as_float((uint)c[i] << 16);
    STORE(c + i, c[i] = to_bf16(v));
#else
    __global float *c = (__global float *)C;
    if (beta != 0.0f)
        v += beta * c[i];
    STORE(c + i, c[i] = v);
#endif
}

/* Elements i and i + 1 of C (i even: a 4-byte f16/bf16 pair or an 8-byte fp32 one, aligned) in one store; a
 * thread holds such neighbours in every accumulator tile. beta2 adds beta times their old values. */
static inline void beta2(__global void *C, ulong i, acc_t *v0, acc_t *v1, acc_t beta)
{
    if (beta == 0)
        return;
#if CTYPE == 64
    const double2 o = vload2(0, (__global double *)C + i);
#elif CTYPE == 16
    const float2 o = vload_half2(i / 2, (__global half *)C);
#elif CTYPE == 17
    const uint u = *(__global uint *)((__global ushort *)C + i);
    const float2 o = (float2)(as_float(u << 16), as_float(u & 0xffff0000u));
#else
    const float2 o = vload2(0, (__global float *)C + i);
#endif
    *v0 += beta * o.x, *v1 += beta * o.y;
}

static inline void put_c2(__global void *C, ulong i, acc_t v0, acc_t v1)
{
#if CTYPE == 64
    vstore2((double2)(v0, v1), 0, (__global double *)C + i);
#elif CTYPE == 16
    *(__global uint *)((__global ushort *)C + i) = f16x2_rn(v0, v1);
#elif CTYPE == 17
    *(__global uint *)((__global ushort *)C + i) = (uint)to_bf16(v0) | ((uint)to_bf16(v1) << 16);
#else
    vstore2((float2)(v0, v1), 0, (__global float *)C + i);
#endif
}

#if ASYNC   /* one stage of A or B into local memory, from its K-contiguous or (AKM, BKN) K-major storage */
#if AKM
#define COPY_A(S, st) copy_async_mn(S, A4, abase, lda, (st) * BK, BM, rows_a, Kv)
#elif GA   /* into registers; GATHER_PUT stores them a stage later (the prologue's at once) */
#define COPY_A(S, st) gather_stage((const __global gelem_t *)A, abase, lda, (st) * BK, BM, rows_a, Kv, ga_w, ga_sh)
#else
#define COPY_A(S, st) copy_async(S, A4, abase, lda, (st) * BKW, BM * CPR, rows_a, kvw)
#endif
#if BKN
#define COPY_B(S, st) copy_async_mn(S, B4, bbase, ldb, (st) * BK, BN, rows_b, Kv)
#elif GB
#define COPY_B(S, st) gather_stage((const __global gelem_t *)B, bbase, ldb, (st) * BK, BN, rows_b, Kv, gb_w, gb_sh)
#else
#define COPY_B(S, st) copy_async(S, B4, bbase, ldb, (st) * BKW, BN * CPR, rows_b, kvw)
#endif
/* Gathered operands (GA, GB): their pieces of the stage put into buffer b, from the registers COPY_A/COPY_B filled. */
#if GA && GB
#define GATHER_PUT(b) (gather_put(As + (b) * BM * LDW, BM, ga_w, ga_sh), gather_put(Bs + (b) * BN * LDW, BN, gb_w, gb_sh))
#elif GA
#define GATHER_PUT(b) gather_put(As + (b) * BM * LDW, BM, ga_w, ga_sh)
#elif GB
#define GATHER_PUT(b) gather_put(Bs + (b) * BN * LDW, BN, gb_w, gb_sh)
#endif
#endif

/* C (M x N, row-major, ldc) = alpha * A B^T + beta * C for each matrix of a batch (dimension 1 of the
 * grid). K is Kw words, a multiple of BKW, of which Kv elements exist (EDGE, AKM, BKN, GA, GB); the launch's last
 * matrix has Kw_last and Kv_last instead (a split product's shorter last slice of K). Offsets and strides
 * of A and B are in words and multiples of 8 (of 4 with ASYNC: cp.async copies 16 bytes); lda and ldb are in
 * words; those of an operand gathered (GA, GB) are in elements, any value. A is M x K (K contiguous) or, with AKM, K x M; B is N x K or, with BKN, K x N. Work-groups: THREADS x 1,
 * one per BM x BN tile, in GROUP_M swizzled order. */
__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void gemm_mma(const int M, const int N, const int Kw_all, const int Kv_all, const int Kw_last, const int Kv_last,
              const acc_t alpha, const acc_t beta,
              const __global uint8 *restrict A, const ulong a_off, const long lda, const ulong a_stride,
              const __global uint8 *restrict B, const ulong b_off, const long ldb, const ulong b_stride,
              __global void *restrict C, const ulong c_off, const long ldc, const ulong c_stride
#if MODE == 34   /* row r of A (of B) was scaled by the exponent of scl[sa_off + batch * sa_stride + r] (sb_...) */
              , const __global uint *restrict scl, const ulong sa_off, const ulong sa_stride, const ulong sb_off,
              const ulong sb_stride
#endif
              CLF_EPI_DECL)
{
    /* Declared as uint8: 32-byte aligned, so that rows (LDW words apart) start on 16 or 32-byte boundaries. */
#if WGMMA   /* wgmma's swizzle repeats every 8 rows: stages start on 1024-byte boundaries */
    __local uint8 As8[(STAGES * BM * LDW + 7) / 8] __attribute__((aligned(1024)));
    __local uint8 Bs8[(STAGES * BN * LDW + 7) / 8] __attribute__((aligned(1024)));
#else
    __local uint8 As8[(STAGES * BM * LDW + 7) / 8];
    __local uint8 Bs8[(STAGES * BN * LDW + 7) / 8];
#endif
    __local uint *As = (__local uint *)As8, *Bs = (__local uint *)Bs8;   /* stage s at s * BM * LDW */
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int pid = (int)get_group_id(0), per_group = GROUP_M * tiles_n, first_m = pid / per_group * GROUP_M;
    const int gsize = min(tiles_m - first_m, GROUP_M);
    const int tm = first_m + (pid % per_group) % gsize, tn = (pid % per_group) / gsize;
    const ulong batch = get_group_id(1);
    const int last = batch + 1 == get_num_groups(1), Kw = last ? Kw_last : Kw_all, Kv = last ? Kv_last : Kv_all;
    const int warp = (int)get_local_id(0) >> 5;
#if WGMMA
    const int wgi = warp >> 2;   /* warpgroup; its warp (warp & 3) holds rows 16 (warp & 3) .. + 15 of its tile */
    const int wm0 = (wgi / WARPS_N) * 64 + (warp & 3) * 16, wn0 = (wgi % WARPS_N) * WN;
#else
    const int wm0 = (warp / WARPS_N) * WM, wn0 = (warp % WARPS_N) * WN;
#endif
#if AKM   /* the tile's first column, in words */
    const ulong abase = a_off + batch * a_stride + (ulong)(tm * BM / 2);
#else
    const ulong abase = a_off + batch * a_stride + (ulong)((long)tm * BM * lda);
#endif
#if BKN
    const ulong bbase = b_off + batch * b_stride + (ulong)(tn * BN / 2);
#else
    const ulong bbase = b_off + batch * b_stride + (ulong)((long)tn * BN * ldb);
#endif
    const int rows_a = M - tm * BM, rows_b = N - tn * BN;   /* EDGE: the rows of the tiles that exist */
#if HALF_IN   /* words of K that exist */
    const int kvw = Kv / 2;
#elif MODE == 64
    const int kvw = Kv * 2;
#else
    const int kvw = Kv;
#endif

    acc_t acc[ACC_N];
#pragma unroll
    for (int i = 0; i < ACC_N; i++)
        acc[i] = 0;
#if WGMMA && SPLIT_SUMS
    float part[ACC_N / NPARTS], part2[PART_PIPE ? ACC_N / NPARTS : 1];   /* a stage's sums; each group's first
                                                                       * step overwrites them */
#pragma unroll
    for (int i = 0; i < ACC_N / NPARTS; i++)
        part[i] = 0.0f;
#pragma unroll
    for (int i = 0; i < (PART_PIPE ? ACC_N / NPARTS : 1); i++)
        part2[i] = 0.0f;
#endif
    const int stages = Kw / BKW;
#if ASYNC
    /* STAGES buffers in a ring: stage s computes from buffer s % STAGES while stages s + 1 .. s + STAGES - 1
     * are in flight; the barrier after each wait also tells that everyone is done with the buffer refilled. */
    const __global uint4 *A4 = (const __global uint4 *)A, *B4 = (const __global uint4 *)B;
#if GA
    uint ga_w[GP(BM)][5], ga_sh[GP(BM)];
#endif
#if GB
    uint gb_w[GP(BN)][5], gb_sh[GP(BN)];
#endif
    for (int st = 0; st < AHEAD; st++) {
        if (st < stages) {
            COPY_A(As + st * BM * LDW, st);
            COPY_B(Bs + st * BN * LDW, st);
#if GA || GB
            GATHER_PUT(st);
#endif
        }
        async_commit();
    }
    int cur = 0, fill = AHEAD;
#if GA || GB
    int pend = -1;   /* the buffer whose gathered pieces wait in registers */
#endif
    for (int s = 0; s < stages; s++) {
#if GA || GB
        if (pend >= 0)   /* before the barrier that makes them everyone's */
            GATHER_PUT(pend);
        pend = -1;
#endif
        ASYNC_WAIT();
#if WGMMA
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   /* cp.async's writes, seen by wgmma's reads */
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
#if WGMMA && SPLIT_SUMS
        /* 3xTF32 and 3xF16: the operands come split (A's K as lo, hi, hi runs, B's as hi, lo, hi); each part of the
         * warpgroup's columns sums this stage from zero, and the sum is added into acc rounding to nearest (the
         * units' own accumulation truncates: over the whole of K it cost the accuracy the split bought). */
#pragma unroll
        for (int h = 0; h < NPARTS; h++) {
            /* FPIPE: two sets of part registers, so that part h runs while part h - 1's sum is added */
            float *const p = PART_PIPE && (h & 1) ? part2 : part, *const q = PART_PIPE && (h & 1) ? part : part2;
            wgmma_issue(As + cur * BM * LDW, Bs + cur * BN * LDW, wgi, h, 1, p);
            if (h == 0) {   /* the refill's copies are issued while the first part runs */
                if (s + AHEAD < stages) {
                    COPY_A(As + fill * BM * LDW, s + AHEAD);
                    COPY_B(Bs + fill * BN * LDW, s + AHEAD);
#if GA || GB
                    pend = fill;
#endif
                }
                async_commit();
            }
            if (PART_PIPE && h > 0) {
                wgmma_wait(q, ACC_N / NPARTS, 1);
#pragma unroll
                for (int i = 0; i < ACC_N / NPARTS; i++)
                    acc[(h - 1) * (ACC_N / NPARTS) + i] += q[i];
            }
            if (!PART_PIPE || h + 1 == NPARTS) {
                wgmma_wait(p, ACC_N / NPARTS, 0);
#pragma unroll
                for (int i = 0; i < ACC_N / NPARTS; i++)
                    acc[h * (ACC_N / NPARTS) + i] += p[i];
            }
        }
#else
#if WGMMA   /* the products start first; the refill's copies are issued while they run */
        wgmma_issue(As + cur * BM * LDW, Bs + cur * BN * LDW, wgi, 0, 0, acc);
#if FPIPE   /* this stage's products stay in flight: wait for the previous stage's, everyone's, then refill its buffer */
        wgmma_wait(acc, ACC_N, 1);
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
#endif
        if (s + AHEAD < stages) {
            COPY_A(As + fill * BM * LDW, s + AHEAD);
            COPY_B(Bs + fill * BN * LDW, s + AHEAD);
#if GA || GB
            pend = fill;
#endif
        }
        async_commit();
#endif
#if !WGMMA
        COMPUTE_STAGE(As + cur * BM * LDW, Bs + cur * BN * LDW, wm0, wn0, acc);
#elif !SPLIT_SUMS && !FPIPE
        wgmma_wait(acc, ACC_N, 0);
#endif
        cur = cur + 1 == STAGES ? 0 : cur + 1;
        fill = fill + 1 == STAGES ? 0 : fill + 1;
    }
#if WGMMA && FPIPE && MODE != 33
    wgmma_wait(acc, ACC_N, 0);
#endif
#else
    uint8 ra[A_VECS], rb[B_VECS];
    /* The next stage's global loads are in flight (in registers) during this stage's products. */
    fetch(A, abase, lda, 0, ra, A_VECS, A_PIECES);
    fetch(B, bbase, ldb, 0, rb, B_VECS, B_PIECES);
#if STAGES == 1
    for (int s = 0; s < stages; s++) {
        if (s > 0)
            barrier(CLK_LOCAL_MEM_FENCE);   /* everyone is done reading the previous stage */
        stash(As, ra, A_VECS, A_PIECES);
        stash(Bs, rb, B_VECS, B_PIECES);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (s + 1 < stages) {
            fetch(A, abase, lda, (s + 1) * BKW, ra, A_VECS, A_PIECES);
            fetch(B, bbase, ldb, (s + 1) * BKW, rb, B_VECS, B_PIECES);
        }
        COMPUTE_STAGE(As, Bs, wm0, wn0, acc);
    }
#else
    stash(As, ra, A_VECS, A_PIECES);
    stash(Bs, rb, B_VECS, B_PIECES);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 0; s < stages; s++) {
        const int cur = s & 1;
        if (s + 1 < stages) {
            fetch(A, abase, lda, (s + 1) * BKW, ra, A_VECS, A_PIECES);
            fetch(B, bbase, ldb, (s + 1) * BKW, rb, B_VECS, B_PIECES);
        }
        COMPUTE_STAGE(As + cur * BM * LDW, Bs + cur * BN * LDW, wm0, wn0, acc);
        if (s + 1 < stages) {
            stash(As + (cur ^ 1) * BM * LDW, ra, A_VECS, A_PIECES);
            stash(Bs + (cur ^ 1) * BN * LDW, rb, B_VECS, B_PIECES);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
#endif

    const int g = (int)(get_local_id(0) & 31) >> 2, t = (int)get_local_id(0) & 3;
    const ulong cb = c_off + batch * c_stride;
#if MODE == 64 && DK == 4
    const int halves = 1, tile_m = 8;   /* DMMA m8n8k4: one row (g) of two columns per 8x8 tile */
#else
    const int halves = 2, tile_m = 16;  /* rows g and g+8 of two columns per 16x8 tile */
#endif
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int h = 0; h < halves; h++) {
                const int row = tm * BM + wm0 + i * tile_m + g + h * 8, col = tn * BN + wn0 + j * 8 + 2 * t;
                if (row >= M)
                    continue;
#if MODE == 34   /* the product of the scaled rows, scaled back (one rounding, where C is subnormal) */
                const int ea = row_exponent(scl[sa_off + batch * sa_stride + (ulong)row]);
                const ulong sbi = sb_off + batch * sb_stride + (ulong)col;
                const acc_t d[2] = {
                    ldexp(acc[(i * NT + j) * 2 * halves + 2 * h], col < N ? -(ea + row_exponent(scl[sbi])) : 0),
                    ldexp(acc[(i * NT + j) * 2 * halves + 2 * h + 1], col + 1 < N ? -(ea + row_exponent(scl[sbi + 1])) : 0)};
#else
                const acc_t *d = acc + (i * NT + j) * 2 * halves + 2 * h;
#endif
                const ulong at = cb + (ulong)((long)row * ldc + col);
                if (col + 1 < N && (at & 1) == 0) {   /* both neighbours: one store */
                    acc_t v0 = alpha * d[0], v1 = alpha * d[1];
                    beta2(C, at, &v0, &v1, beta);
#if CLF_EPI   /* the epilogue stores its other outputs and gives C's values */
                    v0 = clf_epilogue_v((__global CLF_EPI_CT *)C + at, batch, row, col, v0 CLF_EPI_PASS);
                    v1 = clf_epilogue_v((__global CLF_EPI_CT *)C + at + 1, batch, row, col + 1, v1 CLF_EPI_PASS);
#endif
                    put_c2(C, at, v0, v1);
                    continue;
                }
                if (col < N)
                    store_c(C, at, alpha * d[0], beta, batch, row, col CLF_EPI_PASS);
                if (col + 1 < N)
                    store_c(C, at + 1, alpha * d[1], beta, batch, row, col + 1 CLF_EPI_PASS);
            }
}
