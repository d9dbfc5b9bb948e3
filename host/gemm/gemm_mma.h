/* gemm_mma.h — the `gemm_mma` kernel family: GEMM on matrix units (NVIDIA mma.sync from OpenCL C through
 * inline PTX, cl/gemm_mma.cl). Other vendors' matrix units would be further modes of this family, behind
 * the same availability check and self-test. */
#ifndef CLFORGE_GEMM_MMA_H
#define CLFORGE_GEMM_MMA_H

#include "gemm.h"

extern const clf__family clf__family_gemm_mma;

/* Parameter order in clf__family_gemm_mma.params. */
enum {
    CLF__MMA_BM, CLF__MMA_BN, CLF__MMA_BK, CLF__MMA_WM, CLF__MMA_WN, CLF__MMA_LDSM, CLF__MMA_STAGES, CLF__MMA_FPIPE,
    CLF__MMA_ASYNC, CLF__MMA_SWZ, CLF__MMA_DK, CLF__MMA_WGMMA, CLF__MMA_PARTS, CLF__MMA_NPARAMS
};

/* What the matrix units multiply (the kernel's MODE); NONE: the portable path. */
typedef enum {
    CLF__MMA_NONE = 0,
    CLF__MMA_F16 = 16,
    CLF__MMA_BF16 = 17,
    CLF__MMA_TF32 = 32,
    CLF__MMA_3XTF32 = 33,
    CLF__MMA_3XF16 = 34,   /* wgmma only; else run as 3XTF32 (the planner) */
    CLF__MMA_F64 = 64
} clf__mma_mode;

/* The mode a typed call asks for (ignoring the device): f16 or bf16 inputs of one type, or fp32 inputs with
 * a TF32 compute mode; NONE otherwise. */
clf__mma_mode clf__mma_wanted(const clf__gemm_call *call);
/* 1 when ctx's device runs mode on matrix units: an NVIDIA GPU of compute capability 8.0 or later whose
 * driver builds the kernel and passes a self-test (a small exact product, run once per device and mode;
 * a failure warns once and the portable path answers from then on). $CLFORGE_MMA=off disables the family;
 * $CLFORGE_MMA_SELFTEST=fail makes the self-test fail (for tests of the fallback), =fail-wgmma only when it
 * runs a wgmma configuration (which then falls back to mma.sync), =fail-kmajor only the test of operands stored
 * K-major (clf__mma_kmajor_config, which then answers 0). */
int clf__mma_usable(clf_context *ctx, clf__mma_mode mode);
/* 1 when configurations with WGMMA=1 must not run on ctx's device: $CLFORGE_WGMMA=off, or a self-test that
 * failed with one and passed without (the warning says so); clf__mma_config then gives the mma.sync default. */
int clf__wgmma_off(clf_context *ctx);
/* The configuration products in mode run before any shape rule of the planner: the resolved one (tuned,
 * shipped, default, override), or the mma.sync default when it is a wgmma one and wgmma is off. */
clf_status clf__mma_config(clf_context *ctx, clf__mma_mode mode, clf__config *out, const char **origin);
/* The mma.sync default of mode's bucket on ctx's device (what answers when wgmma cannot). */
void clf__mma_sync_default(clf_context *ctx, clf__mma_mode mode, clf__config *out);

/* 1 when cfg reads f16/bf16 operands stored K-major in place (the kernel's AKM and BKN): cp.async with ldmatrix,
 * whose .trans form gives the fragments, or wgmma, which reads MN-major operands; else such operands are packed
 * first. */
int clf__mma_reads_kmajor(const clf__config *cfg, clf__mma_mode mode);

/* The configuration for products with few rows whose f16/bf16 operand is stored K-major: the CLF__MMA_KMAJOR
 * bucket's (tuned, shipped or default), when it reads such
 * operands in place and has passed its own self-test on the device (once per process). 0: none. */
int clf__mma_kmajor_config(clf_context *ctx, clf__mma_mode mode, clf__config *out, const char **origin);

/* Storage type of the operands the kernel reads in mode (CLF_F16, CLF_BF16, CLF_F32 or CLF_F64) and the
 * precision its configurations are tuned and stored under. The kernel counts in 32-bit words: n elements of
 * the input type are clf__mma_words(mode, n) words (n must fill whole words). */
clf_dtype clf__mma_input_type(clf__mma_mode mode);
clf_dtype clf__mma_precision(clf__mma_mode mode);
size_t clf__mma_words(clf__mma_mode mode, size_t n);
/* The bucket its configurations are tuned and stored under: "all", or "3x" for 3xTF32. f16 has a third,
 * CLF__MMA_KMAJOR: products of a few rows (at most 64) whose f16/bf16 operand is stored K-major, where the "all"
 * configuration is a wgmma one or would pack that operand first (clf__mma_kmajor_config). */
#define CLF__MMA_KMAJOR "kmajor"
const char *clf__mma_bucket(clf__mma_mode mode);

#endif
