/* gemm_epilogue.h — GEMM epilogues (gemm_epilogue.c): a clf_map program bound to a GEMM call, checked, and
 * turned into one store function (clf_epilogue) that every GEMM kernel calls in place of its store of C.
 * The planner marks which steps store C through it; the executor prepends its source to those steps'
 * kernels and appends its arguments after theirs. */
#ifndef CLFORGE_GEMM_EPILOGUE_H
#define CLFORGE_GEMM_EPILOGUE_H

#include "gemm.h"
#include "expr.h"

/* One name of the program: the accumulator, the old C, or a bound argument. */
typedef struct clf__epi_param {
    enum { CLF__EPI_ARG, CLF__EPI_ACC, CLF__EPI_OLD_C } role;
    clf_epilogue_kind kind;
    int along_rows;              /* ROW/COL vectors: indexed by the kernels' (row-major) row, else column */
    int out;                     /* assigned by the program */
    int bound;                   /* an argument was given for it */
    clf_dtype dt;
    cl_mem mem;
    size_t off, ld, stride;      /* elements; ld of a vector is its increment */
    double value;
} clf__epi_param;

typedef struct clf__epi {
    clf__expr ex;
    int f64;                     /* computes in double (fp64 GEMM) */
    int fp64_ext;                /* the source needs cl_khr_fp64 (double compute or an f64 buffer) */
    int reads_c;                 /* the program reads the old C */
    int one_matrix;              /* the call has one matrix: indices leave the batch term out */
    clf__epi_param p[CLF__EX_MAX_NAMES];
} clf__epi;

/* Parses epi->expr and binds it to epi->args for call (layout, sizes, batch, precision); names, kinds and
 * types are checked here, buffers by clf__epi_check. On failure nothing is left to free. */
clf_status clf__epi_make(clf_context *ctx, const clf_epilogue *epi, const clf__gemm_call *call, clf__epi *out);
void clf__epi_free(clf__epi *e);
/* Every bound buffer: inside its cl_mem, of ctx, outputs writable and overlapping nothing else (A, B, C,
 * the other arguments), inputs not overlapping C or an output. sa, sb, sc: spans of A, B and C. */
clf_status clf__epi_check(const clf_context *ctx, const clf__epi *e, const clf__gemm_call *call, const clf__span *sa,
                          const clf__span *sb, const clf__span *sc);
/* The source that goes before a kernel file: CLF_EPI, CLF_EPI_DECL / CLF_EPI_PASS (the extra kernel
 * parameters) and clf_epilogue(cp, bat, row, col, acc CLF_EPI_PASS) storing into C of type c_type; with vw > 1
 * (an fp32 or fp64 C) also clf_epilogue_vec, the same on vw consecutive elements of a row as vectors, and
 * CLF_EPI_VEC defined to vw. *out is malloc'ed. */
clf_status clf__epi_source(const clf__epi *e, clf_dtype c_type, int vw, char **out);
/* Sets the kernel arguments of CLF_EPI_DECL from index first: the origin (r0, c0) of the kernel's C within
 * the whole row-major C, the batch index of its first matrix, then the bound names. */
clf_status clf__epi_args(cl_kernel k, cl_uint first, const clf__epi *e, size_t r0, size_t c0, size_t bat0);
/* Adds to w (a launch's profiler record) the epilogue's operations and matrix bytes over elems elements of C. */
void clf__epi_work(const clf__epi *e, double elems, clf__work *w);

#endif
