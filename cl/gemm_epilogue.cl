/* gemm_epilogue.cl — the store hook of the GEMM kernels (gemm.cl, gemm_reduce.cl, gemm_mma.cl). With an
 * epilogue, host/gemm/gemm_epilogue.c puts before the kernel file:
 *   CLF_EPI 1, CLF_EPI_CT (C's pointer type),
 *   CLF_EPI_DECL / CLF_EPI_PASS: the epilogue's kernel parameters, appended to the kernel's and to every
 *     helper's parameter list between the kernel and the store (", const long er0, ...", ", er0, ..."),
 *   clf_epilogue(cp, bat, row, col, v CLF_EPI_PASS): stores element (row, col) of batch item bat, whose
 *     plain GEMM value is v, at cp (and the program's other outputs).
 * A kernel calls clf_epilogue where it would write *cp = v; row and col count from its own C's origin.
 * Without an epilogue the hook is empty and the kernel is unchanged. */
#ifndef CLF_EPI
#define CLF_EPI 0
#define CLF_EPI_DECL
#define CLF_EPI_PASS
#endif
