/* gemm.h — GEMM internals shared by the gemm op (gemm.c, gemm_run.c), its kernel-family descriptor
 * (gemm_family.c), and the tests and benches that drive a configuration or a path directly. */
#ifndef CLFORGE_GEMM_H
#define CLFORGE_GEMM_H

#include "config.h"

extern const clf__family clf__family_gemm;
/* Work of a GEMM problem for the tuner's rates (gemm and gemm_cpu share them): 2mnk flops per item; A, B and
 * C once each (C twice when beta != 0 reads it). */
double clf__gemm_problem_flops(const clf__problem *p);
double clf__gemm_problem_bytes(const clf__problem *p);

/* Parameter order in clf__family_gemm.params (and in clf__config.v). */
enum {
    CLF__GEMM_MWG, CLF__GEMM_NWG, CLF__GEMM_KWG, CLF__GEMM_MDIMC, CLF__GEMM_NDIMC, CLF__GEMM_VWM,
    CLF__GEMM_VWN, CLF__GEMM_KWI, CLF__GEMM_PADA, CLF__GEMM_PADB, CLF__GEMM_DBUF, CLF__GEMM_NPARAMS
};

/* The shape bucket of one m x n x k product on dev (see docs/gemm.md): "small" when m*n*k <= 2^27
 * (2^18 on CPU devices), else "skinny" when min(m, n) < 128 (512 on CPU devices), else on GPUs "thin"
 * when min(m, n) < 512 and k >= 2048, else "medium" when m*n <= 2^21 or, on a GPU, m*n < 1.75 * 128^2
 * * compute units, else "large". dev NULL: the GPU rules without the compute-unit term. Static strings. */
const char *clf__gemm_bucket(const clf_device_info *dev, size_t m, size_t n, size_t k);
/* The last two of those rules: "medium" or "large" by m*n alone (the planner's bucket for a thin product whose
 * tiles would fill the device poorly). */
const char *clf__gemm_bucket_wide(const clf_device_info *dev, size_t m, size_t n);
/* Local memory (bytes) of a gemm kernel of configuration cfg with esz-byte elements whose local rows of A and B
 * carry extra_a and extra_b elements beyond MWG + PADA and NWG + PADB (cl/gemm.cl's BPAD_NK, DPAD_A, DPAD_B). */
size_t clf__gemm_local_bytes(const clf__config *cfg, size_t esz, size_t extra_a, size_t extra_b);
/* The bucket of a batch of such products: "batched" when each is "small" but all together exceed the small
 * bucket's work (a launch over batch x tiles on the packed kernel), else clf__gemm_bucket's. */
const char *clf__gemm_bucket_for(const clf_device_info *dev, size_t m, size_t n, size_t k, size_t batch);

/* One call, exactly as the public API takes it (offsets, leading dimensions, strides in elements). */
typedef struct clf__gemm_call {
    clf_dtype dtype;               /* CLF_F32 or CLF_F64 */
    clf_layout layout;
    clf_transpose ta, tb;
    size_t m, n, k;
    double alpha, beta;
    cl_mem a; size_t a_off, lda, stride_a;
    cl_mem b; size_t b_off, ldb, stride_b;
    cl_mem c; size_t c_off, ldc, stride_c;
    size_t batch;                  /* 1 for a plain GEMM */
    int build_only;                /* 1: compile the kernels the call would run, enqueue nothing (tuner prebuild) */
    int no_split;                  /* 1: never split K (the slices of a split call) */
    /* Mixed precision (clf_gemm): when typed is 1, A, B and C are stored as a_type, b_type and c_type and
     * fp32 inputs are multiplied as compute says; dtype is then CLF_F32, the accumulation type. */
    int typed;
    clf_dtype a_type, b_type, c_type;
    clf_compute compute;
    int mma;                       /* matrix units: 0 as the planner decides, -1 never, 1 always (self-test) */
    const clf__config *mma_cfg;    /* gemm_mma configuration forced by the tuner; NULL: resolved */
    const struct clf__epi *epi;    /* epilogue (gemm_epilogue.h) every store of C goes through; NULL: none */
} clf__gemm_call;

/* Storage types of the operands (dtype for all three unless typed). */
clf_dtype clf__gemm_a_type(const clf__gemm_call *c);
clf_dtype clf__gemm_b_type(const clf__gemm_call *c);
clf_dtype clf__gemm_c_type(const clf__gemm_call *c);

/* The -DSRC / -DDST code of a storage type in cl/gemm_convert.cl (convert.c). */
int clf__convert_code(clf_dtype t);

/* Element extent of one stored matrix of `outer` rows of `inner` elements, ld apart; 0 on overflow. */
int clf__gemm_extent(size_t outer, size_t inner, size_t ld, size_t *out);

/* Which kernel does the work: chosen by bucket (AUTO), or forced (tests, tuner). */
typedef enum { CLF__GEMM_AUTO, CLF__GEMM_DIRECT, CLF__GEMM_FAST } clf__gemm_path;

/* Checks every argument of call against the device and the buffers' sizes; CLF_ERR_INVALID_ARG
 * (or CLF_ERR_UNSUPPORTED for fp64 on a device without it) with a message naming the argument. */
clf_status clf__gemm_check(clf_context *ctx, const clf__gemm_call *call);

/* Plans and enqueues a checked call (gemm_plan.h). cfg NULL: the resolved configuration for the call's
 * bucket (with the CLFORGE_GEMM_CONFIG override), and a resolved configuration whose kernel fails to
 * build is set aside for the next one of the lookup chain; else cfg as given (it must be valid for the
 * device). *launches (may be NULL) gets the number of kernels enqueued. done (may be NULL) gets the last
 * event. With call->build_only, compiles what the call would run and enqueues nothing. */
clf_status clf__gemm_run(clf_context *ctx, const clf__gemm_call *call, const clf__config *cfg,
                         clf__gemm_path path, int *launches, cl_event *done);

#endif
