/* gemm_epilogue.c — a clf_map program as a GEMM epilogue: binding its names to the call (acc, c and the
 * arguments), checking every binding before anything is built, and generating the store function that
 * the GEMM kernels call for each element of C (cl/common.cl says how a kernel takes it). */
#include "gemm_epilogue.h"
#include "map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPI "gemm epilogue"

static const char *kind_name(clf_epilogue_kind k)
{
    return k == CLF_EPI_SCALAR ? "a scalar" : k == CLF_EPI_ROW ? "a per-row vector" : k == CLF_EPI_COL ? "a per-column vector"
                                                                                                 : "a matrix";
}

static int find_name(const clf__expr *ex, const char *name)
{
    for (int i = 0; i < ex->nnames; i++)
        if (strcmp(ex->name[i], name) == 0)
            return i;
    return -1;
}

/* One argument onto its name; kinds and types are checked here, buffers later. */
static clf_status bind_arg(clf__epi *e, const clf_epilogue_arg *a, size_t idx, const clf__gemm_call *call)
{
    if (!a->name)
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": argument %zu has no name", idx);
    if (strcmp(a->name, "acc") == 0 || strcmp(a->name, "c") == 0)
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": argument '%s' is a reserved name (the accumulator or C)",
                         a->name);
    int k = find_name(&e->ex, a->name);
    if (k < 0)
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": argument '%s' is not used by the program", a->name);
    clf__epi_param *p = &e->p[k];
    if (p->bound)
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": argument '%s' is given twice", a->name);
    if (a->kind != CLF_EPI_SCALAR && a->kind != CLF_EPI_ROW && a->kind != CLF_EPI_COL && a->kind != CLF_EPI_MATRIX)
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": argument '%s' has an unknown kind %d", a->name, (int)a->kind);
    if (a->kind != CLF_EPI_SCALAR && a->dtype != CLF_F32 && a->dtype != CLF_F64 && a->dtype != CLF_F16 &&
        a->dtype != CLF_BF16)
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": buffer '%s' has an unknown storage type %d", a->name,
                         (int)a->dtype);
    if (p->out && a->kind != CLF_EPI_MATRIX)
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": output '%s' is bound as %s; outputs must be matrices of C's shape",
                         a->name, kind_name(a->kind));
    *p = (clf__epi_param){.role = CLF__EPI_ARG, .kind = a->kind, .out = p->out, .dt = a->dtype, .mem = a->buffer,
                          .off = a->offset, .ld = a->ld, .stride = a->stride, .value = a->value, .bound = 1};
    if (a->kind == CLF_EPI_SCALAR)
        p->dt = CLF_F32;
    if (a->kind != CLF_EPI_MATRIX && p->ld == 0)
        p->ld = 1;
    /* The kernels see C row-major: a column-major call's rows are their columns. */
    p->along_rows = (a->kind == CLF_EPI_ROW) == (call->layout == CLF_ROW_MAJOR);
    e->fp64_ext |= a->kind != CLF_EPI_SCALAR && a->dtype == CLF_F64;
    return CLF_SUCCESS;
}

/* acc and c, what the program assigns, and what it must not do. */
static clf_status bind_roles(clf__epi *e)
{
    const clf__expr *ex = &e->ex;
    int kc = find_name(ex, "c"), ka = find_name(ex, "acc");
    if (kc < 0 || !ex->is_output[kc])
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": the program must assign c (the value stored in C)");
    if (ka >= 0 && ex->is_output[ka])
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": the program assigns acc, which is read-only");
    for (int k = 0; k < ex->nnames; k++) {
        e->p[k].out = ex->is_output[k];
        if (k != kc && ex->is_input[k] && ex->is_output[k])
            return clf__fail(CLF_ERR_INVALID_ARG, EPI ": output '%s' is read before the statement that writes it",
                             ex->name[k]);
    }
    e->p[kc].role = CLF__EPI_OLD_C;
    e->reads_c = ex->is_input[kc];
    if (ka >= 0)
        e->p[ka].role = CLF__EPI_ACC;
    return CLF_SUCCESS;
}

static clf_status bind_all(clf_context *ctx, clf__epi *e, const clf_epilogue *epi, const clf__gemm_call *call)
{
    clf_status s = bind_roles(e);
    if (s != CLF_SUCCESS)
        return s;
    if (epi->nargs && !epi->args)
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": args is NULL but nargs is %zu", epi->nargs);
    for (size_t i = 0; i < epi->nargs && s == CLF_SUCCESS; i++)
        s = bind_arg(e, &epi->args[i], i, call);
    for (int k = 0; k < e->ex.nnames && s == CLF_SUCCESS; k++) {
        clf__epi_param *p = &e->p[k];
        if (p->role == CLF__EPI_ARG && !p->bound)
            return clf__fail(CLF_ERR_INVALID_ARG, EPI ": no argument for '%s', which the program %s", e->ex.name[k],
                             p->out ? "assigns" : "reads");
    }
    if (s == CLF_SUCCESS && e->fp64_ext && !ctx->info.fp64)
        return clf__fail(CLF_ERR_UNSUPPORTED, EPI ": %s has no fp64 support, and an f64 buffer needs it", ctx->info.name);
    return s;
}

clf_status clf__epi_make(clf_context *ctx, const clf_epilogue *epi, const clf__gemm_call *call, clf__epi *out)
{
    memset(out, 0, sizeof *out);
    if (!epi->expr)
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": expr is NULL");
    int r = clf__expr_parse(epi->expr, strlen(epi->expr), &out->ex);
    clf_status s = CLF_SUCCESS;
    if (r == -2)
        s = clf__fail(CLF_ERR_OUT_OF_MEMORY, EPI ": %s", out->ex.err);
    else if (r != 0)
        s = clf__fail(CLF_ERR_PARSE, EPI ": %s", out->ex.err);
    out->f64 = call->dtype == CLF_F64;
    out->fp64_ext = out->f64;
    if (s == CLF_SUCCESS)
        s = bind_all(ctx, out, epi, call);
    out->one_matrix = call->batch <= 1;
    if (s != CLF_SUCCESS)
        clf__epi_free(out);
    return s;
}

void clf__epi_free(clf__epi *e) { clf__expr_free(&e->ex); }

/* ---- buffer checks -------------------------------------------------------------------------- */

/* Elements one matrix (or vector) of p spans, and all of them over the batch; 0 on overflow. */
static int param_extent(const clf__epi_param *p, const clf__gemm_call *call, size_t *one, size_t *all)
{
    int row = call->layout == CLF_ROW_MAJOR;
    if (p->kind == CLF_EPI_MATRIX) {
        if (!clf__gemm_extent(row ? call->m : call->n, row ? call->n : call->m, p->ld, one))
            return 0;
    } else {
        size_t count = p->kind == CLF_EPI_ROW ? call->m : call->n;
        if (!clf__gemm_extent(count, 1, p->ld, one))
            return 0;
    }
    if (*one == 0 || call->batch <= 1) {
        *all = *one;
        return 1;
    }
    size_t t;
    return clf__mul(call->batch - 1, p->stride, &t) && clf__add(t, *one, all);
}

static clf_status check_param(const clf_context *ctx, const char *name, const clf__epi_param *p,
                              const clf__gemm_call *call, clf__span *sp)
{
    size_t one, all, inner = call->layout == CLF_ROW_MAJOR ? call->n : call->m;
    if (p->kind == CLF_EPI_MATRIX && p->ld < (inner ? inner : 1))
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": ld of matrix '%s' is %zu, smaller than C's row length %zu", name,
                         p->ld, inner);
    if (!param_extent(p, call, &one, &all))
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": extent of '%s' overflows", name);
    if (p->out && call->batch > 1 && p->stride < one)
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": stride of output '%s' is %zu, smaller than one matrix (%zu elements)",
                         name, p->stride, one);
    clf_status s = clf__check_operand_buffer(ctx, EPI, name, p->mem, p->off, all, clf__dtype_size(p->dt), sp);
    if (s != CLF_SUCCESS) {
        size_t count = p->kind == CLF_EPI_ROW ? call->m : call->n;
        char msg[512];
        snprintf(msg, sizeof msg, "%s", clf_last_error());
        if (p->kind == CLF_EPI_ROW || p->kind == CLF_EPI_COL)   /* say what the broadcast needed */
            clf__fail(s, "%s (%s needs %zu elements, %zu apart, from offset %zu)", msg, kind_name(p->kind), count,
                      p->ld, p->off);
        return s;
    }
    cl_mem_flags flags = 0;
    if (p->out && clGetMemObjectInfo(p->mem, CL_MEM_FLAGS, sizeof flags, &flags, NULL) == CL_SUCCESS &&
        (flags & CL_MEM_READ_ONLY))
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": output '%s' is a CL_MEM_READ_ONLY buffer", name);
    return CLF_SUCCESS;
}

clf_status clf__epi_check(const clf_context *ctx, const clf__epi *e, const clf__gemm_call *call, const clf__span *sa,
                          const clf__span *sb, const clf__span *sc)
{
    clf__span sp[CLF__EX_MAX_NAMES];
    memset(sp, 0, sizeof sp);
    const clf__expr *ex = &e->ex;
    for (int k = 0; k < ex->nnames; k++) {
        const clf__epi_param *p = &e->p[k];
        if (p->role != CLF__EPI_ARG || p->kind == CLF_EPI_SCALAR)
            continue;
        clf_status s = check_param(ctx, ex->name[k], p, call, &sp[k]);
        if (s != CLF_SUCCESS)
            return s;
        if (clf__spans_overlap(&sp[k], sc))
            return clf__fail(CLF_ERR_INVALID_ARG, EPI ": %s '%s' overlaps C in the same buffer%s",
                             p->out ? "output" : "input", ex->name[k], p->out ? "" : " (read C as c)");
        if (p->out && (clf__spans_overlap(&sp[k], sa) || clf__spans_overlap(&sp[k], sb)))
            return clf__fail(CLF_ERR_INVALID_ARG, EPI ": output '%s' overlaps %s in the same buffer", ex->name[k],
                             clf__spans_overlap(&sp[k], sa) ? "A" : "B");
    }
    for (int i = 0; i < ex->nnames; i++)
        for (int j = 0; j < ex->nnames; j++)
            if (i != j && e->p[i].out && sp[i].root && (j < i || !e->p[j].out) && clf__spans_overlap(&sp[i], &sp[j]))
                return clf__fail(CLF_ERR_INVALID_ARG, EPI ": output '%s' overlaps %s '%s' in the same buffer",
                                 ex->name[i], e->p[j].out ? "output" : "input", ex->name[j]);
    return CLF_SUCCESS;
}

/* ---- the store function ---------------------------------------------------------------------- */

/* Element index of name k's current element in its buffer; lane >= 0 (a per-column vector of increment other
 * than 1, in the vector store function): of its element lane columns past the current one. What the binding
 * fixes is written in: a call of one matrix has no batch term, a vector of increment 1 no multiply (so the
 * kernels' unrolled stores see constant offsets between elements rather than a 64-bit product each); the program
 * cache keys on the text. */
static void index_at(clf__sbuf *b, const clf__epi *e, int k, int lane)
{
    const clf__epi_param *p = &e->p[k];
    clf__sb_add(b, "eo%d", k);
    if (!e->one_matrix)
        clf__sb_add(b, " + eb * es%d", k);
    const char *at = p->along_rows ? "er" : "ec";
    if (p->kind == CLF_EPI_MATRIX)
        clf__sb_add(b, " + (ulong)(er * el%d + ec)", k);
    else if (lane >= 0)
        clf__sb_add(b, " + (ulong)((ec + %d) * el%d)", lane, k);
    else if (p->ld == 1)
        clf__sb_add(b, " + (ulong)%s", at);
    else
        clf__sb_add(b, " + (ulong)(%s * el%d)", at, k);
}

static void index_of(clf__sbuf *b, const clf__epi *e, int k) { index_at(b, e, k, -1); }

/* A load of one element of storage type dt at pointer ptr: name k's of e (lane as in index_at), or element 0
 * (e NULL), as a float or double. */
static void raw_load(clf__sbuf *b, clf_dtype dt, const char *ptr, int k, const clf__epi *e, int lane)
{
    if (dt == CLF_F16)
        clf__sb_add(b, "vload_half(");
    else if (dt == CLF_BF16)
        clf__sb_add(b, "as_float((uint)%s[", ptr);
    else
        clf__sb_add(b, "%s[", ptr);
    if (e)
        index_at(b, e, k, lane);
    else
        clf__sb_add(b, "0");
    if (dt == CLF_F16)
        clf__sb_add(b, ", %s)", ptr);
    else
        clf__sb_add(b, dt == CLF_BF16 ? "] << 16)" : "]");
}

/* The same load as the compute type V. */
static void load_code(clf__sbuf *b, clf_dtype dt, const char *ptr, int k, const clf__epi *e)
{
    clf__sb_add(b, "(V)");
    raw_load(b, dt, ptr, k, e, -1);
}

typedef struct gen_ctx {
    const clf__epi *e;
    clf_dtype c_type;            /* C as the kernel stores it */
} gen_ctx;

static void epi_load(void *user, int k, clf__sbuf *b)
{
    const gen_ctx *g = user;
    const clf__epi_param *p = &g->e->p[k];
    char ptr[16];
    snprintf(ptr, sizeof ptr, "ep%d", k);
    if (p->role == CLF__EPI_ACC)
        clf__sb_add(b, "acc");
    else if (p->role == CLF__EPI_OLD_C)
        load_code(b, g->c_type, "cp", k, NULL);
    else if (p->kind == CLF_EPI_SCALAR)
        clf__sb_add(b, "K(es%d)", k);
    else
        load_code(b, p->dt, ptr, k, g->e);
}

/* C (e NULL: element 0 at ptr) or name k's element of e := t<t>, stored in type dt. */
static void store_code(clf__sbuf *b, clf_dtype dt, const char *ptr, int k, const clf__epi *e, int t)
{
    if (dt == CLF_F16) {
        clf__sb_add(b, "clf_epi_half((float)t%d, ", t);
        if (e)
            index_of(b, e, k);
        else
            clf__sb_add(b, "0");
        clf__sb_add(b, ", %s);", ptr);
        return;
    }
    clf__sb_add(b, "%s[", ptr);
    if (e)
        index_of(b, e, k);
    else
        clf__sb_add(b, "0");
    if (dt == CLF_BF16)
        clf__sb_add(b, "] = clf_epi_bf16((float)t%d);", t);
    else
        clf__sb_add(b, "] = (%s)t%d;", clf__ex_dt_ctype(dt), t);
}

/* CLF_EPI_DECL and CLF_EPI_PASS: origin, batch base, then per bound name its pointer, offset, ld and
 * batch stride, or its scalar. */
static void gen_params(clf__sbuf *b, const clf__epi *e, const char *ct)
{
    clf__sb_add(b, "#define CLF_EPI_DECL , const long er0, const long ec0, const ulong eb0");
    for (int k = 0; k < e->ex.nnames; k++) {
        const clf__epi_param *p = &e->p[k];
        if (p->role != CLF__EPI_ARG)
            continue;
        if (p->kind == CLF_EPI_SCALAR)
            clf__sb_add(b, ", const %s es%d", ct, k);
        else
            clf__sb_add(b, ", __global %s%s *ep%d, const ulong eo%d, const long el%d, const ulong es%d",
                        p->out ? "" : "const ", clf__ex_dt_ctype(p->dt), k, k, k, k);
    }
    clf__sb_add(b, "\n#define CLF_EPI_PASS , er0, ec0, eb0");
    for (int k = 0; k < e->ex.nnames; k++) {
        const clf__epi_param *p = &e->p[k];
        if (p->role == CLF__EPI_ARG && p->kind == CLF_EPI_SCALAR)
            clf__sb_add(b, ", es%d", k);
        else if (p->role == CLF__EPI_ARG)
            clf__sb_add(b, ", ep%d, eo%d, el%d, es%d", k, k, k, k);
    }
    clf__sb_add(b, "\n");
}

/* f16 stores: vstore_half_rte, or on NVIDIA's matrix-unit kernel (built with CLF_PTX_CVT) the hardware's
 * round-to-nearest conversion, which stores faster there. */
static const char bf16_fn[] =
    "static inline ushort clf_epi_bf16(const float f)\n{\n    const uint u = as_uint(f);\n"
    "    if ((u & 0x7fffffffu) > 0x7f800000u)\n        return (ushort)((u >> 16) | 0x40u);\n"
    "    return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);\n}\n"
    "static inline void clf_epi_half(const float v, const ulong i, __global half *p)\n{\n"
    "#if defined(CLF_PTX_CVT) && CLF_PTX_CVT\n    uint u;\n"
    "    __asm__(\"cvt.rn.f16x2.f32 %0, %1, %2;\" : \"=r\"(u) : \"f\"(0.0f), \"f\"(v));\n"
    "    ((__global ushort *)p)[i] = (ushort)u;\n#else\n    vstore_half_rte(v, i, p);\n#endif\n}\n";

/* One store function: clf_epilogue stores C through cp; clf_epilogue_v (value != 0) stores the other
 * outputs but returns C's new value, so a kernel can keep its vector stores of whole tiles. Old C is
 * read before any store either way. */
static void gen_fn(clf__sbuf *b, const clf__epi *e, clf_dtype c_type, const char *ct, int value)
{
    clf__sb_add(b, "static inline %s %s(__global %s *cp, const ulong bat, const long lr, const long lc, "
                   "const %s acc CLF_EPI_DECL)\n{\n    const long er = er0 + lr, ec = ec0 + lc;\n    const ulong eb = eb0 + bat;\n",
                value ? ct : "void", value ? "clf_epilogue_v" : "clf_epilogue", clf__ex_dt_ctype(c_type), ct);
    clf__sb_add(b, "#define V %s\n#define B int\n#define K(x) ((V)(x))\n#define SEL(q, t, f) ((q) ? (t) : (f))", ct);
    gen_ctx g = {e, c_type};
    clf__ex_emit(b, &e->ex, e->f64, "\n    ", epi_load, &g);
    int last = -1;
    for (int i = 0; i < e->ex.nstmts; i++) {
        int k = e->ex.stmt[i].name, is_c = e->p[k].role == CLF__EPI_OLD_C;
        char ptr[16];
        snprintf(ptr, sizeof ptr, "ep%d", k);
        if (is_c && value) {
            last = e->ex.stmt[i].root;   /* the last assignment of c is what C holds */
            continue;
        }
        clf__sb_add(b, "\n    ");
        store_code(b, is_c ? c_type : e->p[k].dt, is_c ? "cp" : ptr, k, is_c ? NULL : e, e->ex.stmt[i].root);
    }
    if (value)
        clf__sb_add(b, "\n    return (%s)t%d;", ct, last);
    clf__sb_add(b, "\n#undef V\n#undef B\n#undef K\n#undef SEL\n}\n");
}

/* ---- the vector store function (CPU kernel) ---------------------------------------------------- */

/* A vector of vw lanes from a run of storage type dt at pointer P + I (I written by the caller, then
 * vec_run_load_end), converted to the compute type. */
static void vec_run_load(clf__sbuf *b, clf_dtype dt, int vw, int f64, const char *ptr)
{
    const char *cv = f64 ? "convert_double" : "convert_float";
    if (dt == CLF_F16)
        clf__sb_add(b, "%s%d(vload_half%d(0, %s + ", cv, vw, vw, ptr);
    else if (dt == CLF_BF16)
        clf__sb_add(b, "%s%d(as_float%d(convert_uint%d(vload%d(0, %s + ", cv, vw, vw, vw, vw, ptr);
    else
        clf__sb_add(b, "%s%d(vload%d(0, %s + ", cv, vw, vw, ptr);
}

static void vec_run_load_end(clf__sbuf *b, clf_dtype dt)
{
    clf__sb_add(b, dt == CLF_BF16 ? ")) << 16))" : "))");
}

typedef struct vec_ctx {
    const clf__epi *e;
    int vw;
} vec_ctx;

/* Name k for the vw columns ec .. ec + vw - 1 of row er: a matrix's run, a column vector's run (its increment
 * 1) or its lanes one by one, a row vector's element for every lane, a scalar, acc, or the old C's run. */
static void vec_load(void *user, int k, clf__sbuf *b)
{
    const vec_ctx *g = user;
    const clf__epi_param *p = &g->e->p[k];
    int vw = g->vw, f64 = g->e->f64;
    char ptr[16];
    snprintf(ptr, sizeof ptr, "ep%d", k);
    if (p->role == CLF__EPI_ACC) {
        clf__sb_add(b, "acc");
    } else if (p->role == CLF__EPI_OLD_C) {
        clf__sb_add(b, "vload%d(0, cp)", vw);
    } else if (p->kind == CLF_EPI_SCALAR) {
        clf__sb_add(b, "K(es%d)", k);
    } else if (p->kind != CLF_EPI_MATRIX && p->along_rows) {
        clf__sb_add(b, "K(");
        load_code(b, p->dt, ptr, k, g->e);
        clf__sb_add(b, ")");
    } else if (p->kind == CLF_EPI_MATRIX || p->ld == 1) {   /* a run: the matrix's row, or the vector's */
        vec_run_load(b, p->dt, vw, f64, ptr);
        index_of(b, g->e, k);
        vec_run_load_end(b, p->dt);
    } else {   /* a column vector with an increment: its lanes one by one */
        clf__sb_add(b, "(V)(");
        for (int j = 0; j < vw; j++) {
            clf__sb_add(b, "%s", j ? ", " : "");
            raw_load(b, p->dt, ptr, k, g->e, j);
        }
        clf__sb_add(b, ")");
    }
}

/* clf_epilogue_vec: the program on vw consecutive elements of a row of C (the CPU kernel's vector stores):
 * every load and store is a vector one where the name's elements are contiguous there. C is fp32 or fp64. */
static void gen_vec_fn(clf__sbuf *b, const clf__epi *e, const char *ct, int vw)
{
    const char *bt = e->f64 ? "long" : "int";
    clf__sb_add(b, "#define CLF_EPI_VEC %d\n", vw);
    clf__sb_add(b, "static inline ushort%d clf_epi_bf16v(const float%d f)\n{\n    const uint%d u = as_uint%d(f);\n"
                   "    const uint%d r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16, q = (u >> 16) | 0x40u;\n"
                   "    return convert_ushort%d(select(r, q, (u & 0x7fffffffu) > 0x7f800000u));\n}\n",
                vw, vw, vw, vw, vw, vw);
    clf__sb_add(b, "static inline void clf_epilogue_vec(__global %s *cp, const ulong bat, const long lr, const long lc, "
                   "const %s%d acc CLF_EPI_DECL)\n{\n    const long er = er0 + lr, ec = ec0 + lc;\n"
                   "    const ulong eb = eb0 + bat;\n", ct, ct, vw);
    clf__sb_add(b, "#define V %s%d\n#define B %s%d\n#define K(x) ((V)(x))\n#define SEL(q, t, f) select((f), (t), (q))",
                ct, vw, bt, vw);
    vec_ctx g = {e, vw};
    clf__ex_emit(b, &e->ex, e->f64, "\n    ", vec_load, &g);
    for (int i = 0; i < e->ex.nstmts; i++) {
        int k = e->ex.stmt[i].name, t = e->ex.stmt[i].root;
        const clf__epi_param *p = &e->p[k];
        clf__sb_add(b, "\n    ");
        if (p->role == CLF__EPI_OLD_C) {
            clf__sb_add(b, "vstore%d(t%d, 0, cp);", vw, t);
            continue;
        }
        if (p->dt == CLF_F16)
            clf__sb_add(b, "vstore_half%d_rte(t%d, 0, ep%d + ", vw, t, k);
        else if (p->dt == CLF_BF16)
            clf__sb_add(b, "vstore%d(clf_epi_bf16v(convert_float%d(t%d)), 0, ep%d + ", vw, vw, t, k);
        else
            clf__sb_add(b, "vstore%d(convert_%s%d(t%d), 0, ep%d + ", vw, clf__ex_dt_ctype(p->dt), vw, t, k);
        index_of(b, e, k);   /* outputs are matrices: their run is contiguous */
        clf__sb_add(b, ");");
    }
    clf__sb_add(b, "\n#undef V\n#undef B\n#undef K\n#undef SEL\n}\n");
}

/* 1 when the program calls a function that expands to a long instruction sequence (exp, log, tanh, gelu, ...,
 * and IEEE division and square roots), 0 when it is a few arithmetic instructions an element. */
static int program_is_long(const clf__expr *ex)
{
    for (int i = 0; i < ex->nnodes; i++) {
        const clf__ex_node *n = &ex->node[i];
        if (n->op == CLF__EX_DIV)
            return 1;
        if (n->op != CLF__EX_CALL)
            continue;
        switch (n->fn) {
        case CLF__FN_EXP: case CLF__FN_LOG: case CLF__FN_SQRT: case CLF__FN_RSQRT: case CLF__FN_TANH:
        case CLF__FN_SIGMOID: case CLF__FN_GELU: case CLF__FN_POW:
            return 1;
        default:
            break;
        }
    }
    return 0;
}

/* How the tiled kernel (gemm.cl) stores C through the program: 0 unrolled over the work-item's registers,
 * 1 staged through local memory with the program in one rolled loop over the tile, 2 rolled over the
 * work-item's rows of registers; -1 for a bad $CLFORGE_EPILOGUE_STORE, which overrides the choice. By
 * default a short program is unrolled and a long one rolled. H200 fp32, fused time over the plain GEMM's at
 * 4096x4096x1024, 3000x2000x1000 and 2048^3 (bench/results/h200/2026-12-02/store-launches/run2-stores.txt):
 * `c = acc` unrolled 1.002-1.011, staged 1.011-1.059; `relu(acc + bias)` unrolled 1.014-1.028, staged
 * 1.032-1.094; `gelu(acc + bias)` rolled 1.040-1.105, staged 1.049-1.124, unrolled 1.053-1.219 (the program
 * inlined once per register, 128 times, ran slower than its arithmetic explains). */
static int store_mode(const clf__epi *e)
{
    static const char *const names[] = {"unrolled", "staged", "rolled"};
    const char *env = getenv("CLFORGE_EPILOGUE_STORE");
    if (!env || !*env)
        return program_is_long(&e->ex) ? 2 : 0;
    for (int i = 0; i < 3; i++)
        if (strcmp(env, names[i]) == 0)
            return i;
    return -1;
}

/* The unroll factor of the staged store's loop over units: $CLFORGE_EPILOGUE_UNROLL, 1 to 16 (times VWN copies
 * of the program in the kernel), 1 when unset; -1 for anything else. */
static int store_unroll(void)
{
    const char *env = getenv("CLFORGE_EPILOGUE_UNROLL");
    long v = 1;
    return !env || !*env || clf__parse_long(env, 1, 16, &v) ? (int)v : -1;
}

clf_status clf__epi_source(const clf__epi *e, clf_dtype c_type, int vw, char **out)
{
    const char *ct = e->f64 ? "double" : "float";
    int store = store_mode(e), unroll = store_unroll();
    if (store < 0)
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": CLFORGE_EPILOGUE_STORE is '%s'; it must be staged, rolled or unrolled",
                         getenv("CLFORGE_EPILOGUE_STORE"));
    if (unroll < 0)
        return clf__fail(CLF_ERR_INVALID_ARG, EPI ": CLFORGE_EPILOGUE_UNROLL is '%s'; it must be a whole number from 1 to 16",
                         getenv("CLFORGE_EPILOGUE_UNROLL"));
    clf__sbuf b = {0};
    if (e->fp64_ext)
        clf__sb_add(&b, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    clf__sb_add(&b, "#define CLF_EPI 1\n#define CLF_EPI_STORE %d\n#define CLF_EPI_UNROLL %d\n#define CLF_EPI_CT %s\n",
                store, unroll, clf__ex_dt_ctype(c_type));
    gen_params(&b, e, ct);
    clf__sb_add(&b, "%s", bf16_fn);
    gen_fn(&b, e, c_type, ct, 0);
    gen_fn(&b, e, c_type, ct, 1);
    if (vw > 1 && (c_type == CLF_F32 || c_type == CLF_F64))
        gen_vec_fn(&b, e, ct, vw);
    if (b.oom) {
        free(b.s);
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, EPI ": out of memory generating the kernel");
    }
    *out = b.s;
    return CLF_SUCCESS;
}

static clf_status arg(cl_kernel k, cl_uint i, size_t size, const void *v)
{
    cl_int err = clSetKernelArg(k, i, size, v);
    return err == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(err, "clSetKernelArg", EPI " argument %u", i);
}

clf_status clf__epi_args(cl_kernel k, cl_uint first, const clf__epi *e, size_t r0, size_t c0, size_t bat0)
{
    cl_long r = (cl_long)r0, c = (cl_long)c0;
    cl_ulong bb = bat0;
    cl_uint i = first;
    clf_status s = arg(k, i++, 8, &r);
    if (s == CLF_SUCCESS)
        s = arg(k, i++, 8, &c);
    if (s == CLF_SUCCESS)
        s = arg(k, i++, 8, &bb);
    for (int n = 0; n < e->ex.nnames && s == CLF_SUCCESS; n++) {
        const clf__epi_param *p = &e->p[n];
        if (p->role != CLF__EPI_ARG)
            continue;
        if (p->kind == CLF_EPI_SCALAR) {
            float f = (float)p->value;
            s = e->f64 ? arg(k, i++, sizeof p->value, &p->value) : arg(k, i++, sizeof f, &f);
            continue;
        }
        cl_ulong off = p->off, stride = p->stride;
        cl_long ld = (cl_long)p->ld;
        s = arg(k, i++, sizeof p->mem, &p->mem);
        if (s == CLF_SUCCESS)
            s = arg(k, i++, 8, &off);
        if (s == CLF_SUCCESS)
            s = arg(k, i++, 8, &ld);
        if (s == CLF_SUCCESS)
            s = arg(k, i++, 8, &stride);
    }
    return s;
}

void clf__epi_work(const clf__epi *e, double elems, clf__work *w)
{
    double bytes = 0;   /* vectors are re-read from cache: only matrices count */
    for (int k = 0; k < e->ex.nnames; k++) {
        const clf__epi_param *p = &e->p[k];
        if (p->role == CLF__EPI_ARG && p->kind == CLF_EPI_MATRIX)
            bytes += (double)clf__dtype_size(p->dt);
    }
    w->flops += elems * (double)e->ex.nops;
    w->bytes += elems * bytes;
}
