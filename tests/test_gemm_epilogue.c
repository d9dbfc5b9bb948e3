/* test_gemm_epilogue.c — GEMM epilogues (clf_gemm_epilogue): random programs generated from the map grammar
 * (functions, conditions, row/column/matrix broadcasts, scalars, extra outputs) over random shapes, layouts,
 * transposes, offsets, leading dimensions and batches, in fp32, fp64 and the typed (f16/bf16) calls, on the
 * direct, packed and split-K paths; checked against GEMM-then-map on the CPU; every bad binding. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "gemm.h"
#include "gemm_epilogue.h"
#include "testutil.h"

/* ---- host storage of the four types ------------------------------------------------------------ */

static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 1024), e - 25);
    return h & 0x8000 ? -v : v;
}

/* f exactly representable in f16 and zero or normal (every value the tests store as f16 is). */
static uint16_t float_to_half(float f)
{
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    float a = fabsf(f);
    if (a == 0)
        return sign;
    int e;
    float fr = frexpf(a, &e);   /* a = fr * 2^e, fr in [0.5, 1) */
    uint32_t mant = (uint32_t)(fr * 2048.0f);
    return (uint16_t)(sign | (uint32_t)(e + 14) << 10 | (mant - 1024));
}

static size_t tsize(clf_dtype t) { return t == CLF_F64 ? 8 : t == CLF_F32 ? 4 : 2; }

static double get(clf_dtype t, const void *p, size_t i)
{
    switch (t) {
    case CLF_F64: return ((const double *)p)[i];
    case CLF_F32: return ((const float *)p)[i];
    case CLF_F16: return half_to_float(((const uint16_t *)p)[i]);
    default: {
        uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    }
}

static void put(clf_dtype t, void *p, size_t i, double v)
{
    if (t == CLF_F64) {
        ((double *)p)[i] = v;
    } else if (t == CLF_F32) {
        ((float *)p)[i] = (float)v;
    } else if (t == CLF_F16) {
        ((uint16_t *)p)[i] = float_to_half((float)v);
    } else {   /* bf16: values are made exact in bf16 below, so truncation is exact */
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        ((uint16_t *)p)[i] = (uint16_t)(u >> 16);
    }
}

/* A random value exactly representable in t (few mantissa bits: f16, bf16 and tf32 store it exactly). */
static double rnd(uint64_t *s, clf_dtype t)
{
    double v = clf_test_rand(s);
    return t == CLF_F32 || t == CLF_F64 ? v : round(v * 64) / 64;
}

/* ---- the reference: the parsed program evaluated per element ---------------------------------- */

static double fl(double v, int f32) { return f32 ? (double)(float)v : v; }

static double call_fn(const clf__ex_node *x, const double *t, int f32)
{
    double a = t[x->a[0]], b = x->nargs > 1 ? t[x->a[1]] : 0, c = x->nargs > 2 ? t[x->a[2]] : 0;
    switch (x->fn) {
    case CLF__FN_ABS: return fabs(a);
    case CLF__FN_MIN: return fmin(a, b);
    case CLF__FN_MAX: return fmax(a, b);
    case CLF__FN_EXP: return exp(a);
    case CLF__FN_TANH: return tanh(a);
    case CLF__FN_SIGMOID: return 1 / (1 + exp(-a));
    case CLF__FN_RELU: return fmax(a, 0);
    case CLF__FN_GELU: return 0.5 * a * (1 + erf(a * fl(0.70710678118654752440, f32)));
    case CLF__FN_FMA: return fma(a, b, c);
    case CLF__FN_CLAMP: return fmin(fmax(a, b), c);
    case CLF__FN_WHERE: return a != 0 ? b : c;
    case CLF__FN_SQRT: return sqrt(a);
    default: return NAN;   /* not generated */
    }
}

/* Evaluates every node given each input name's value; out[name] gets the value each statement stores. */
static void eval(const clf__expr *e, const double *in, int f32, double *t, double *out)
{
    for (int i = 0; i < e->nnodes; i++) {
        const clf__ex_node *x = &e->node[i];
        double a = x->op == CLF__EX_NUM || x->op == CLF__EX_LOAD ? 0 : t[x->a[0]];
        double b = x->op >= CLF__EX_ADD && x->op <= CLF__EX_OR ? t[x->a[1]] : 0, v;
        switch (x->op) {
        case CLF__EX_NUM: v = fl(x->num, f32); break;
        case CLF__EX_LOAD: v = in[x->name]; break;
        case CLF__EX_NEG: v = -a; break;
        case CLF__EX_NOT: v = !a; break;
        case CLF__EX_ADD: v = a + b; break;
        case CLF__EX_SUB: v = a - b; break;
        case CLF__EX_MUL: v = a * b; break;
        case CLF__EX_DIV: v = a / b; break;
        case CLF__EX_LT: v = a < b; break;
        case CLF__EX_LE: v = a <= b; break;
        case CLF__EX_GT: v = a > b; break;
        case CLF__EX_GE: v = a >= b; break;
        case CLF__EX_EQ: v = a == b; break;
        case CLF__EX_NE: v = a != b; break;
        case CLF__EX_AND: v = a != 0 && b != 0; break;
        case CLF__EX_OR: v = a != 0 || b != 0; break;
        case CLF__EX_SEL: v = a != 0 ? t[x->a[1]] : t[x->a[2]]; break;
        default: v = call_fn(x, t, f32); break;
        }
        t[i] = x->type == CLF__EX_T_BOOL ? v : fl(v, f32);
    }
    for (int i = 0; i < e->nstmts; i++)
        out[e->stmt[i].name] = t[e->stmt[i].root];
}

/* ---- random programs ---------------------------------------------------------------------------- */

typedef struct gen {
    uint64_t *s;
    char *b;
    size_t len, cap;
    int have_pre;
    int cond_ok;   /* conditions compare sums and products of loads only: exact in both precisions */
} gen;

static unsigned pick(uint64_t *s, unsigned n) { return (unsigned)(clf_test_rand_u64(s) % n); }

static void out(gen *g, const char *t)
{
    size_t l = strlen(t);
    if (g->len + l < g->cap) {
        memcpy(g->b + g->len, t, l + 1);
        g->len += l;
    }
}

static void leaf(gen *g)
{
    static const char *names[] = {"acc", "acc", "c", "bias", "scale", "res", "s", "0.5", "-1.25", "2"};
    unsigned i = pick(g->s, 10 + (unsigned)g->have_pre);
    out(g, i == 10 ? "pre" : names[i]);
}

static void simple(gen *g, int d)
{
    if (d == 0 || pick(g->s, 3) == 0) {
        leaf(g);
        return;
    }
    static const char *ops[] = {" + ", " - ", " * "};
    out(g, "(");
    simple(g, d - 1);
    out(g, ops[pick(g->s, 3)]);
    simple(g, d - 1);
    out(g, ")");
}

static void expr(gen *g, int d)
{
    static const char *fn1[] = {"relu(", "gelu(", "tanh(", "sigmoid(", "abs(", "-("};
    static const char *fn2[] = {"min(", "max("};
    static const char *cmp[] = {" < ", " <= ", " > ", " >= ", " != "};
    unsigned w = d == 0 ? 0 : pick(g->s, 8);
    switch (w) {
    case 0: leaf(g); return;
    case 1: case 2:
        out(g, fn1[pick(g->s, 6)]), expr(g, d - 1), out(g, ")");
        return;
    case 3:
        out(g, fn2[pick(g->s, 2)]), expr(g, d - 1), out(g, ", "), expr(g, d - 1), out(g, ")");
        return;
    case 4:
        out(g, "clamp("), expr(g, d - 1), out(g, ", -1, 1)");
        return;
    case 5:
        if (!g->cond_ok)
            break;
        out(g, "("), simple(g, 1), out(g, cmp[pick(g->s, 5)]), simple(g, 1), out(g, pick(g->s, 2) ? " && " : " || ");
        simple(g, 1), out(g, " > 0 ? "), expr(g, d - 1), out(g, " : "), expr(g, d - 1), out(g, ")");
        return;
    case 6:
        out(g, "fma("), expr(g, d - 1), out(g, ", "), expr(g, d - 1), out(g, ", "), expr(g, d - 1), out(g, ")");
        return;
    default: break;
    }
    static const char *ops[] = {" + ", " - ", " * "};
    out(g, "("), expr(g, d - 1), out(g, ops[pick(g->s, 3)]), expr(g, d - 1), out(g, ")");
}

/* "[pre = E;] c = E[; aux = E]", E of depth up to 3. */
static void program(uint64_t *s, int cond_ok, char *b, size_t cap)
{
    gen g = {s, b, 0, cap, 0, cond_ok};
    b[0] = '\0';
    if (pick(s, 2)) {
        out(&g, "pre = "), expr(&g, 1 + (int)pick(s, 3)), out(&g, "; ");
        g.have_pre = 1;
    }
    out(&g, "c = "), expr(&g, 1 + (int)pick(s, 3));
    if (pick(s, 3) == 0)
        out(&g, "; aux = "), expr(&g, 1 + (int)pick(s, 2));
}

/* ---- one random case ---------------------------------------------------------------------------- */

/* A stored operand: batch items of outer x inner (ld apart), stride apart, from off. */
typedef struct mat {
    clf_dtype t;
    size_t outer, inner, off, ld, stride, one, elems;
    void *h;                 /* host copy as uploaded */
    cl_mem buf;
} mat;

static void mat_make(clf_context *ctx, mat *x, clf_dtype t, size_t outer, size_t inner, size_t batch, int share,
                     uint64_t *s, int exact)
{
    x->t = t, x->outer = outer, x->inner = inner;
    x->off = pick(s, 4);
    x->ld = inner + pick(s, 3);
    x->one = (outer - 1) * x->ld + inner;
    x->stride = share ? 0 : x->one + pick(s, 4);
    x->elems = x->off + (batch - 1) * x->stride + x->one + pick(s, 3);
    x->h = malloc(x->elems * tsize(t));
    for (size_t i = 0; i < x->elems; i++)
        put(t, x->h, i, rnd(s, exact ? CLF_F16 : t));
    x->buf = clf_test_buffer(ctx, x->elems * tsize(t), x->h);
}

static void mat_free(mat *x)
{
    free(x->h);
    if (x->buf)
        clReleaseMemObject(x->buf);
    memset(x, 0, sizeof *x);
}

/* Element (i, j) of batch item b of a matrix stored in the call's layout (row: i*ld + j). */
static size_t at(const mat *x, int row, size_t b, size_t i, size_t j)
{
    return x->off + b * x->stride + (row ? i * x->ld + j : j * x->ld + i);
}

typedef struct ecase {
    int f64, typed;
    clf_gemm_types types;    /* typed: storage types; else all f32 or all f64 */
    clf_layout layout;
    clf_transpose ta, tb;
    size_t m, n, k, batch;
    double alpha, beta;
    char prog[2048];
    const clf__config *cfg;  /* a forced configuration of the tiled kernel (and path), or NULL: as planned */
    clf__gemm_path path;
} ecase;

typedef struct bound {       /* the arguments of one case, by expression name */
    mat mats[CLF__EX_MAX_NAMES];
    clf_epilogue_arg args[CLF__EX_MAX_NAMES];
    int kind[CLF__EX_MAX_NAMES];   /* -1: acc or c */
    size_t nargs;
} bound;

static clf_dtype any_type(uint64_t *s, int fp64)
{
    static const clf_dtype t[] = {CLF_F32, CLF_F32, CLF_F16, CLF_BF16, CLF_F64};
    return t[pick(s, fp64 ? 5 : 4)];
}

/* Binds every name of e: bias per column, scale per row, res an input matrix, s a scalar, pre and aux outputs. */
static void bind_names(clf_context *ctx, const ecase *c, const clf__expr *e, bound *bd, uint64_t *s)
{
    int row = c->layout == CLF_ROW_MAJOR, fp64 = clf_context_device(ctx)->fp64;
    memset(bd, 0, sizeof *bd);
    for (int k = 0; k < e->nnames; k++) {
        const char *nm = e->name[k];
        bd->kind[k] = -1;
        if (!strcmp(nm, "acc") || !strcmp(nm, "c"))
            continue;
        clf_epilogue_arg *a = &bd->args[bd->nargs++];
        a->name = nm;
        if (!strcmp(nm, "s")) {
            a->kind = CLF_EPI_SCALAR, a->value = clf_test_rand(s) * 2;
        } else if (!strcmp(nm, "bias") || !strcmp(nm, "scale")) {
            int col = !strcmp(nm, "bias");
            a->kind = col ? CLF_EPI_COL : CLF_EPI_ROW;
            mat_make(ctx, &bd->mats[k], any_type(s, fp64), col ? c->n : c->m, 1, c->batch, (int)pick(s, 2), s, 0);
            /* a vector is stored as count x 1: its "ld" is the increment */
            a->ld = bd->mats[k].ld;
        } else {
            a->kind = CLF_EPI_MATRIX;
            mat_make(ctx, &bd->mats[k], any_type(s, fp64), row ? c->m : c->n, row ? c->n : c->m, c->batch,
                     e->is_output[k] ? 0 : (int)pick(s, 2), s, 0);
            a->ld = bd->mats[k].ld;
        }
        bd->kind[k] = (int)a->kind;
        if (a->kind != CLF_EPI_SCALAR) {
            a->dtype = bd->mats[k].t, a->buffer = bd->mats[k].buf, a->offset = bd->mats[k].off;
            a->stride = bd->mats[k].stride;
        }
    }
}

/* The call of clf_gemm_epilogue (fp32 or fp64) with c->cfg and c->path forced on the tiled kernel. */
static clf_status run_forced(clf_context *ctx, const ecase *c, const mat *A, const mat *B, const mat *C,
                             const clf_epilogue *epi)
{
    clf__gemm_call call = {.dtype = c->f64 ? CLF_F64 : CLF_F32, .layout = c->layout, .ta = c->ta, .tb = c->tb,
                           .m = c->m, .n = c->n, .k = c->k, .alpha = c->alpha, .beta = c->beta,
                           .a = A->buf, .a_off = A->off, .lda = A->ld, .stride_a = A->stride,
                           .b = B->buf, .b_off = B->off, .ldb = B->ld, .stride_b = B->stride,
                           .c = C->buf, .c_off = C->off, .ldc = C->ld, .stride_c = C->stride, .batch = c->batch};
    if (!c->f64)
        call.alpha = (float)c->alpha, call.beta = (float)c->beta;
    clf__epi e;
    clf_status s = clf__epi_make(ctx, epi, &call, &e);
    if (s != CLF_SUCCESS)
        return s;
    call.epi = &e;
    s = clf__gemm_check(ctx, &call);
    if (s == CLF_SUCCESS)
        s = clf__gemm_run(ctx, &call, c->cfg, c->path, NULL, NULL);
    clf__epi_free(&e);
    return s;
}

static clf_status run_call(clf_context *ctx, const ecase *c, const mat *A, const mat *B, const mat *C,
                           const clf_epilogue *epi)
{
    if (c->cfg)
        return run_forced(ctx, c, A, B, C, epi);
    return clf_gemm_epilogue(ctx, c->typed || c->f64 ? &c->types : NULL, c->layout, c->ta, c->tb, c->m, c->n, c->k,
                             c->alpha, A->buf, A->off, A->ld, A->stride, B->buf, B->off, B->ld, B->stride, c->beta,
                             C->buf, C->off, C->ld, C->stride, c->batch, epi, NULL);
}

/* Relative size of a storage type's rounding. */
static double type_eps(clf_dtype t)
{
    return t == CLF_F64 ? 2.3e-16 : t == CLF_F32 ? 1.2e-7 : t == CLF_F16 ? 9.8e-4 : 7.9e-3;
}

/* The spacing of a type's subnormals: a correctly rounded store of a tiny value is off by up to half of it,
 * which no relative tolerance covers (f16's is 6e-8, so values near 1e-6 round at the percent level). */
static double type_tiny(clf_dtype t)
{
    return t == CLF_F64 ? 4.9e-324 : t == CLF_F32 ? 1.4e-45 : t == CLF_F16 ? 5.97e-8 : 9.2e-41;
}

/* The identity epilogue's C against the CPU's alpha*op(A)op(B) + beta*C; 0 when it matches. */
static int check_plain(const ecase *c, const mat *A, const mat *B, const mat *C, const void *acc)
{
    int row = c->layout == CLF_ROW_MAJOR;
    int a_mk = (c->ta == CLF_NO_TRANS) == row, b_kn = (c->tb == CLF_NO_TRANS) == row;
    double eps = c->f64 ? 2.3e-16 : 1.2e-7;
    for (size_t b = 0; b < c->batch; b++)
        for (size_t i = 0; i < c->m; i++)
            for (size_t j = 0; j < c->n; j++) {
                double sum = 0, mag = 0;
                for (size_t p = 0; p < c->k; p++) {
                    double x = get(A->t, A->h, A->off + b * A->stride + (a_mk ? i * A->ld + p : p * A->ld + i));
                    double y = get(B->t, B->h, B->off + b * B->stride + (b_kn ? p * B->ld + j : j * B->ld + p));
                    sum += x * y, mag += fabs(x * y);
                }
                size_t ci = at(C, row, b, i, j);
                double c0 = c->beta != 0 ? get(C->t, C->h, ci) : 0;
                double ref = c->alpha * sum + c->beta * c0, got = get(C->t, acc, ci);
                double tol = 4 * eps * (double)(c->k + 2) * (fabs(c->alpha) * mag + fabs(c->beta * c0)) +
                             type_eps(C->t) * fabs(ref) + 1e-30;
                if (!(fabs(got - ref) <= tol)) {
                    fprintf(stderr, "plain GEMM: C[%zu][%zu][%zu] = %g, expected %g\n", b, i, j, got, ref);
                    return 1;
                }
            }
    return 0;
}

/* Values of every input name at element (b, i, j). */
static void inputs_at(const ecase *c, const clf__expr *e, const bound *bd, const mat *C, const void *acc, size_t b,
                      size_t i, size_t j, double *in)
{
    int row = c->layout == CLF_ROW_MAJOR;
    size_t ci = at(C, row, b, i, j);
    for (int k = 0; k < e->nnames; k++) {
        const mat *x = &bd->mats[k];
        if (!strcmp(e->name[k], "acc"))
            in[k] = get(C->t, acc, ci);
        else if (!strcmp(e->name[k], "c"))
            in[k] = get(C->t, C->h, ci);
        else if (bd->kind[k] == CLF_EPI_SCALAR)
            for (size_t a = 0; a < bd->nargs; a++)
                if (!strcmp(bd->args[a].name, e->name[k]))
                    in[k] = fl(bd->args[a].value, !c->f64);
        if (bd->kind[k] == CLF_EPI_ROW || bd->kind[k] == CLF_EPI_COL)
            in[k] = get(x->t, x->h, x->off + b * x->stride + (bd->kind[k] == CLF_EPI_ROW ? i : j) * x->ld);
        else if (bd->kind[k] == CLF_EPI_MATRIX && !e->is_output[k])
            in[k] = get(x->t, x->h, at(x, row, b, i, j));
    }
}

/* Every element of a stored result: inside C's region as the reference says, elsewhere untouched. */
typedef struct result {
    const mat *x;            /* as uploaded */
    void *got;               /* read back */
    unsigned char *seen;
} result;

static int compare(const ecase *c, const clf__expr *e, const bound *bd, const mat *C, const void *acc, result *res)
{
    int row = c->layout == CLF_ROW_MAJOR, bad = 0;
    double eps = c->f64 ? 2.3e-16 : c->typed && C->t != CLF_F32 ? 4 * type_eps(C->t) : 1.2e-7;
    double in[CLF__EX_MAX_NAMES] = {0}, outv[CLF__EX_MAX_NAMES] = {0};
    double *t = malloc(sizeof(double) * (size_t)e->nnodes);
    for (size_t b = 0; b < c->batch && !bad; b++)
        for (size_t i = 0; i < c->m && !bad; i++)
            for (size_t j = 0; j < c->n && !bad; j++) {
                inputs_at(c, e, bd, C, acc, b, i, j, in);
                eval(e, in, !c->f64, t, outv);
                double mag = 1;
                for (int q = 0; q < e->nnodes; q++)
                    if (e->node[q].type != CLF__EX_T_BOOL && fabs(t[q]) > mag)
                        mag = fabs(t[q]);
                for (int k = 0; k < e->nnames && !bad; k++) {
                    if (!e->is_output[k])
                        continue;
                    result *r = &res[k];
                    size_t idx = at(r->x, row, b, i, j);
                    double got = get(r->x->t, r->got, idx), ref = outv[k];
                    double tol = 32 * eps * (double)e->nnodes * mag + type_eps(r->x->t) * fabs(ref) + type_tiny(r->x->t);
                    r->seen[idx] = 1;
                    if (!(fabs(got - ref) <= tol) && !(isnan(ref) && isnan(got))) {
                        fprintf(stderr, "%s[%zu][%zu][%zu] = %.9g, expected %.9g (program \"%s\")\n", e->name[k], b, i,
                                j, got, ref, c->prog);
                        bad = 1;
                    }
                }
            }
    free(t);
    for (int k = 0; k < e->nnames && !bad; k++) {
        if (!e->is_output[k])
            continue;
        size_t es = tsize(res[k].x->t);
        for (size_t q = 0; q < res[k].x->elems && !bad; q++)
            if (!res[k].seen[q] && memcmp((char *)res[k].got + q * es, (char *)res[k].x->h + q * es, es) != 0) {
                fprintf(stderr, "%s: element %zu outside the result was written\n", e->name[k], q);
                bad = 1;
            }
    }
    return bad;
}

static void *read_mat(clf_context *ctx, const mat *x)
{
    void *h = malloc(x->elems * tsize(x->t));
    clf_test_read(ctx, x->buf, x->elems * tsize(x->t), h);
    return h;
}

/* The fused call against the identity epilogue's product mapped on the CPU; 0 when it matches. */
static int fused_matches(clf_context *ctx, const ecase *c, const clf__expr *e, const mat *A, const mat *B, mat *C,
                         const void *acc, uint64_t *s)
{
    bound bd;
    bind_names(ctx, c, e, &bd, s);
    clf_epilogue epi = {c->prog, bd.args, bd.nargs};
    clf_status st = run_call(ctx, c, A, B, C, &epi);
    int bad = st != CLF_SUCCESS;
    if (bad)
        fprintf(stderr, "program \"%s\": %s\n", c->prog, clf_last_error());
    result res[CLF__EX_MAX_NAMES];
    memset(res, 0, sizeof res);
    for (int k = 0; k < e->nnames && !bad; k++) {
        if (!e->is_output[k])
            continue;
        res[k].x = !strcmp(e->name[k], "c") ? C : &bd.mats[k];
        res[k].got = read_mat(ctx, res[k].x);
        res[k].seen = calloc(res[k].x->elems, 1);
    }
    if (!bad)
        bad = compare(c, e, &bd, C, acc, res);
    for (int k = 0; k < CLF__EX_MAX_NAMES; k++) {
        free(res[k].got);
        free(res[k].seen);
        mat_free(&bd.mats[k]);
    }
    return bad;
}

static int run_case(clf_context *ctx, const ecase *c, uint64_t *s)
{
    clf__expr e;
    if (clf__expr_parse(c->prog, strlen(c->prog), &e) != 0) {
        fprintf(stderr, "generated program \"%s\" does not parse: %s\n", c->prog, e.err);
        clf__expr_free(&e);
        return 1;
    }
    int row = c->layout == CLF_ROW_MAJOR;
    int a_mk = (c->ta == CLF_NO_TRANS) == row, b_kn = (c->tb == CLF_NO_TRANS) == row;
    clf_dtype at_ = c->typed ? c->types.a : c->f64 ? CLF_F64 : CLF_F32;
    clf_dtype bt = c->typed ? c->types.b : at_, ct = c->typed ? c->types.c : at_;
    mat A, B, C, Cid;
    mat_make(ctx, &A, at_, a_mk ? c->m : c->k, a_mk ? c->k : c->m, c->batch, 0, s, c->typed);
    mat_make(ctx, &B, bt, b_kn ? c->k : c->n, b_kn ? c->n : c->k, c->batch, 0, s, c->typed);
    mat_make(ctx, &C, ct, row ? c->m : c->n, row ? c->n : c->m, c->batch, 0, s, c->typed);
    Cid = C;
    Cid.buf = clf_test_buffer(ctx, C.elems * tsize(ct), C.h);
    clf_epilogue identity = {"c = acc", NULL, 0};
    int bad = run_call(ctx, c, &A, &B, &Cid, &identity) != CLF_SUCCESS;
    if (bad)
        fprintf(stderr, "identity epilogue: %s\n", clf_last_error());
    void *acc = bad ? NULL : read_mat(ctx, &Cid);
    if (!bad)
        bad = check_plain(c, &A, &B, &C, acc);
    if (!bad)
        bad = fused_matches(ctx, c, &e, &A, &B, &C, acc, s);
    if (bad)
        fprintf(stderr, "  case: %s%s %s %c%c m %zu n %zu k %zu batch %zu alpha %g beta %g\n", c->f64 ? "f64" : "f32",
                c->typed ? " typed" : "", row ? "row" : "col", c->ta == CLF_TRANS ? 'T' : 'N',
                c->tb == CLF_TRANS ? 'T' : 'N', c->m, c->n, c->k, c->batch, c->alpha, c->beta);
    free(acc);
    clReleaseMemObject(Cid.buf);
    Cid.buf = NULL;
    mat_free(&A), mat_free(&B), mat_free(&C);
    clf__expr_free(&e);
    return bad;
}

/* ---- the suites ----------------------------------------------------------------------------------- */

static size_t dim(uint64_t *s)
{
    static const size_t pool[] = {1, 2, 3, 7, 16, 17, 31, 33, 64, 65, 100, 129, 150};
    return pick(s, 4) ? 1 + pick(s, 90) : pool[pick(s, 13)];
}

static void make_case(uint64_t *s, int mode, ecase *c)
{
    memset(c, 0, sizeof *c);
    c->f64 = mode == 1;
    c->typed = mode == 2;
    if (c->f64)
        c->types = (clf_gemm_types){CLF_F64, CLF_F64, CLF_F64, CLF_COMPUTE_EXACT};
    if (c->typed) {
        static const clf_dtype in[] = {CLF_F16, CLF_BF16, CLF_F32}, out_[] = {CLF_F32, CLF_F16, CLF_BF16};
        static const clf_compute cm[] = {CLF_COMPUTE_EXACT, CLF_COMPUTE_TF32, CLF_COMPUTE_3XTF32};
        c->types = (clf_gemm_types){in[pick(s, 3)], in[pick(s, 3)], out_[pick(s, 3)], cm[pick(s, 3)]};
    }
    c->layout = pick(s, 2) ? CLF_ROW_MAJOR : CLF_COL_MAJOR;
    c->ta = pick(s, 2) ? CLF_TRANS : CLF_NO_TRANS;
    c->tb = pick(s, 2) ? CLF_TRANS : CLF_NO_TRANS;
    c->m = dim(s), c->n = dim(s), c->k = dim(s);
    int few = (int)pick(s, 6);
    if (few == 0)   /* one row or one column of C: the gemv kernels */
        *(pick(s, 2) ? &c->m : &c->n) = 1;
    else if (few == 1)   /* 2 to 16: thin products, on GPUs the gemv kernels' several vectors (gemv_tile) */
        *(pick(s, 2) ? &c->m : &c->n) = 2 + pick(s, 15);
    c->batch = pick(s, 4) == 0 ? 2 + pick(s, 3) : 1;
    c->alpha = clf_test_pick_scalar(s, 0);
    c->beta = clf_test_pick_scalar(s, 1);
    if (c->typed)   /* exact in every storage type */
        c->alpha = round(c->alpha * 8) / 8, c->beta = round(c->beta * 8) / 8;
    program(s, !c->typed, c->prog, sizeof c->prog);
}

static int run_cases(int mode, int count, const char *what)
{
    count = clf_test_case_count("CLFORGE_EPI_TEST_CASES", count);   /* more on fast devices (the GPU script) */
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs), failures = 0;
    ck_assert_int_gt(nctx, 0);
    for (int d = 0; d < nctx; d++) {
        if (mode == 1 && !clf_context_device(ctxs[d])->fp64)
            continue;
        uint64_t seed = 0x9e3779b97f4a7c15u ^ (uint64_t)(d * 7919 + mode * 31);
        int before = failures;
        for (int t = 0; t < count && failures < 3; t++) {
            ecase c;
            make_case(&seed, mode, &c);
            if (getenv("CLFORGE_TEST_VERBOSE"))
                fprintf(stderr, "case %d: %s\n", t, c.prog);
            failures += run_case(ctxs[d], &c, &seed);
        }
        fprintf(stderr, "gemm epilogue (%s): %d random cases on %s, %d failed\n", what, count,
                clf_context_device(ctxs[d])->name, failures - before);
    }
    clf_test_contexts_free(ctxs, nctx);
    return failures;
}

START_TEST(random_f32) { ck_assert_int_eq(run_cases(0, 12, "f32"), 0); }
END_TEST

START_TEST(random_f64) { ck_assert_int_eq(run_cases(1, 6, "f64"), 0); }
END_TEST

START_TEST(random_typed) { ck_assert_int_eq(run_cases(2, 8, "typed"), 0); }
END_TEST

/* Random programs on products past the small bucket (m*n*k > 64^3), fp32 and fp64: on CPU devices with explicit
 * vectors they run the gemm_cpu kernel, whose whole vectors of C go through the program as vector code
 * (clf_epilogue_vec: runs of matrices and per-column vectors, lanes gathered when a vector's increment is not
 * 1, per-row vectors and scalars broadcast) and its edges through the scalar one. */
START_TEST(vector_stores)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs), failures = 0;
    ck_assert_int_gt(nctx, 0);
    for (int d = 0; d < nctx && failures == 0; d++) {
        uint64_t seed = 777 + (uint64_t)d;
        for (int t = 0; t < 8 && failures == 0; t++) {
            ecase c;
            int f64 = t % 2 && clf_context_device(ctxs[d])->fp64;
            make_case(&seed, f64, &c);
            c.m = 70 + pick(&seed, 90), c.n = 70 + pick(&seed, 90), c.k = 60 + pick(&seed, 60), c.batch = 1 + (t == 3);
            failures += run_case(ctxs[d], &c, &seed);
        }
    }
    clf_test_contexts_free(ctxs, nctx);
    ck_assert_int_eq(failures, 0);
}
END_TEST

/* The program prog over fixed shapes {m, n, k} on every device (random layouts, transposes, alpha and beta), each
 * once and, with split, once more split along K in 3 where K >= 512; batched: every other shape a batch of 2.
 * Stops at the first failure; the failures. */
static int run_shapes(const size_t (*shapes)[3], size_t count, const char *prog, uint64_t seed0, int split,
                      int batched)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs), failures = 0;
    ck_assert_int_gt(nctx, 0);
    for (int d = 0; d < nctx && failures == 0; d++) {
        uint64_t seed = seed0 + (uint64_t)d;
        for (size_t i = 0; i < count && failures == 0; i++) {
            for (int part = 0; part < 1 + (split && shapes[i][2] >= 512) && failures == 0; part++) {
                ecase c;
                make_case(&seed, 0, &c);
                c.m = shapes[i][0], c.n = shapes[i][1], c.k = shapes[i][2], c.batch = batched ? 1 + i % 2 : 1;
                snprintf(c.prog, sizeof c.prog, "%s", prog);
                if (part)
                    setenv("CLFORGE_GEMM_SPLIT_K", "3", 1);
                failures += run_case(ctxs[d], &c, &seed);
                unsetenv("CLFORGE_GEMM_SPLIT_K");
            }
        }
    }
    clf_test_contexts_free(ctxs, nctx);
    return failures;
}

/* Larger products, where the planner packs (with edge strips) or splits K; split-K forced through
 * CLFORGE_GEMM_SPLIT_K, since CPU devices never split on their own. */
START_TEST(paths)
{
    static const size_t shapes[][3] = {{300, 257, 96}, {130, 700, 33}, {77, 61, 1100}, {1, 300, 900}, {260, 1, 700}};
    ck_assert_int_eq(run_shapes(shapes, sizeof shapes / sizeof shapes[0],
                                "pre = acc * scale + bias; c = gelu(pre) + res * s", 12345, 1, 0), 0);
}
END_TEST

/* Split products whose slices sum themselves in their launch (CLFORGE_GEMM_SPLIT_SUM=fused, K forced into 3 slices):
 * the last slice of each tile applies the program, with the product's batch index and the tile's rows and columns,
 * reading the old C and writing an extra output; the tiled kernel forced (fast and direct path alternately, each
 * store), so that CPU devices run it too. */
START_TEST(split_summed_in_launch)
{
    static const char *const cfgs[] = {
        "MWG=32 NWG=64 KWG=8 MDIMC=8 NDIMC=16 VWM=1 VWN=4 KWI=2 PADA=0 PADB=0 DBUF=0",
        "MWG=64 NWG=32 KWG=16 MDIMC=8 NDIMC=8 VWM=2 VWN=2 KWI=4 PADA=2 PADB=0 DBUF=1",
    };
    static const char *const progs[] = {"pre = acc * scale + bias; c = gelu(pre) + res * s", "c = c * 0.5 + relu(acc)"};
    static const char *const stores[] = {"staged", "rolled", "unrolled"};
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs), failures = 0;
    ck_assert_int_gt(nctx, 0);
    setenv("CLFORGE_GEMM_SPLIT_SUM", "fused", 1);
    setenv("CLFORGE_GEMM_SPLIT_K", "3", 1);
    for (int d = 0; d < nctx && failures == 0; d++) {
        uint64_t seed = 9191 + (uint64_t)d;
        for (int i = 0; i < 6 && failures == 0; i++) {
            clf__config cfg;
            ck_assert_int_eq(clf__config_parse(&clf__family_gemm, cfgs[i % 2], &cfg), 0);
            ecase c;
            make_case(&seed, 0, &c);
            c.m = 20 + c.m % 150, c.n = 20 + c.n % 150, c.k = 800 + (size_t)i * 37, c.batch = 1;
            snprintf(c.prog, sizeof c.prog, "%s", progs[i % 2]);
            c.cfg = &cfg;
            c.path = i % 3 ? CLF__GEMM_FAST : CLF__GEMM_DIRECT;
            if (!clf__family_gemm.valid(&cfg, clf_context_device(ctxs[d]), CLF_F32))
                continue;
            setenv("CLFORGE_EPILOGUE_STORE", stores[i % 3], 1);
            failures += run_case(ctxs[d], &c, &seed);
            unsetenv("CLFORGE_EPILOGUE_STORE");
        }
    }
    unsetenv("CLFORGE_GEMM_SPLIT_K");
    unsetenv("CLFORGE_GEMM_SPLIT_SUM");
    clf_test_contexts_free(ctxs, nctx);
    ck_assert_int_eq(failures, 0);
}
END_TEST

/* A program that reads the old C, on products that CPU devices run on their own kernel when K fits one of its K
 * blocks (KC: 256 to 1024) and on the tiled kernel otherwise (between K blocks C holds partial sums). */
START_TEST(old_c_across_k_blocks)
{
    static const size_t shapes[][3] = {{300, 257, 96}, {130, 700, 250}, {90, 70, 1000}, {70, 90, 1500}, {66, 40, 2600}};
    ck_assert_int_eq(run_shapes(shapes, sizeof shapes / sizeof shapes[0], "c = c * 0.5 + relu(acc + bias)", 777, 0, 1),
                     0);
}
END_TEST

/* The tiled kernel's stores through the program (cl/gemm.cl), under configurations that stage the tile in one
 * slice or several (the last one short), in B's local buffers only or in A's too (with vstore where VWN > VWM),
 * single and double buffered, vector widths 1 to 8, on the fast and the direct path (alternately: only the
 * loads differ), in both precisions; the H200's tuned fp32 configuration first. Each configuration runs the
 * staged store and the rolled one (one row of registers a step, the others moved up; MWI from 1 to 16); the
 * first also the unrolled store. On the direct path the staged loop over units goes 3 at a time
 * (CLFORGE_EPILOGUE_UNROLL, which leaves a partial last step). m and n stay above 1 (gemv takes those). */
START_TEST(store_configs)
{
    static const char *const cfgs[] = {
        "MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=8 VWM=4 VWN=2 KWI=8 PADA=4 PADB=0 DBUF=1",   /* 2 slices, A and B */
        "MWG=16 NWG=16 KWG=8 MDIMC=4 NDIMC=4 VWM=1 VWN=1 KWI=1 PADA=1 PADB=2 DBUF=0",       /* 1 slice, A and B */
        "MWG=64 NWG=32 KWG=8 MDIMC=8 NDIMC=4 VWM=8 VWN=8 KWI=8 PADA=0 PADB=0 DBUF=1",       /* 2 slices */
        "MWG=64 NWG=32 KWG=8 MDIMC=16 NDIMC=4 VWM=1 VWN=2 KWI=1 PADA=1 PADB=0 DBUF=0",      /* 3 slices, vstore2 */
        "MWG=32 NWG=64 KWG=8 MDIMC=8 NDIMC=16 VWM=1 VWN=4 KWI=2 PADA=0 PADB=0 DBUF=0",      /* 4 slices, B only */
        "MWG=64 NWG=64 KWG=32 MDIMC=16 NDIMC=8 VWM=4 VWN=1 KWI=2 PADA=4 PADB=1 DBUF=0",     /* 1 slice */
        "MWG=16 NWG=64 KWG=16 MDIMC=16 NDIMC=16 VWM=1 VWN=4 KWI=2 PADA=0 PADB=0 DBUF=1",    /* one row of registers */
        "MWG=128 NWG=32 KWG=16 MDIMC=8 NDIMC=8 VWM=2 VWN=2 KWI=4 PADA=2 PADB=0 DBUF=0",     /* 16 rows */
    };
    enum { NCFG = sizeof cfgs / sizeof cfgs[0] };
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs), failures = 0;
    ck_assert_int_gt(nctx, 0);
    for (int d = 0; d < nctx && failures == 0; d++) {
        uint64_t seed = 4242 + (uint64_t)d;
        int fp64 = clf_context_device(ctxs[d])->fp64;
        for (int i = 0; i < NCFG && failures == 0; i++) {
            clf__config cfg;
            ck_assert_int_eq(clf__config_parse(&clf__family_gemm, cfgs[i], &cfg), 0);
            ecase c;
            make_case(&seed, i == 3 && fp64, &c);   /* one fp64 case */
            c.m = c.m < 2 ? 2 + c.m : c.m, c.n = c.n < 2 ? 150 : c.n;
            c.cfg = &cfg;
            c.path = i % 2 ? CLF__GEMM_DIRECT : CLF__GEMM_FAST;
            if (!clf__family_gemm.valid(&cfg, clf_context_device(ctxs[d]), c.f64 ? CLF_F64 : CLF_F32))
                continue;
            if (getenv("CLFORGE_TEST_VERBOSE"))
                fprintf(stderr, "config %s, %s path: %s\n", cfgs[i], i % 2 ? "direct" : "fast", c.prog);
            static const char *const stores[] = {"staged", "rolled", "unrolled"};
            for (int st = 0; st < (i == 0 ? 3 : 2) && failures == 0; st++) {
                setenv("CLFORGE_EPILOGUE_STORE", stores[st], 1);
                if (i % 2)
                    setenv("CLFORGE_EPILOGUE_UNROLL", "3", 1);
                failures += run_case(ctxs[d], &c, &seed);
                unsetenv("CLFORGE_EPILOGUE_UNROLL");
                unsetenv("CLFORGE_EPILOGUE_STORE");
                if (failures)
                    fprintf(stderr, "  configuration %s, %s path, %s store\n", cfgs[i], i % 2 ? "direct" : "fast",
                            stores[st]);
            }
        }
    }
    clf_test_contexts_free(ctxs, nctx);
    ck_assert_int_eq(failures, 0);
}
END_TEST

/* The tiled kernel's store follows the program: short programs unrolled (CLF_EPI_STORE 0), programs with a
 * function that expands to a long sequence, or a division, rolled (2); CLFORGE_EPILOGUE_STORE overrides. */
START_TEST(store_follows_the_program)
{
    static const struct { const char *prog; int store; } cases[] = {
        {"c = acc", 0}, {"c = relu(acc + bias)", 0}, {"c = clamp(fma(acc, 2, bias), -1, 1)", 0},
        {"c = acc > 0 ? acc : 0.1 * acc", 0}, {"c = floor(abs(acc)) + max(bias, 1)", 0},
        {"c = gelu(acc + bias)", 2}, {"c = acc / bias", 2}, {"c = acc * sigmoid(acc)", 2}, {"c = exp(acc)", 2},
        {"c = sqrt(abs(acc))", 2}, {"c = pow(acc, 2)", 2}, {"c = relu(acc); aux = tanh(bias)", 2},
    };
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    cl_mem b = clf_test_buffer(ctxs[0], 4096, NULL), x = clf_test_buffer(ctxs[0], 4096, NULL);
    clf_epilogue_arg args[] = {{.name = "bias", .kind = CLF_EPI_COL, .dtype = CLF_F32, .buffer = b},
                               {.name = "aux", .kind = CLF_EPI_MATRIX, .dtype = CLF_F32, .buffer = x, .ld = 16}};
    clf__gemm_call call = {.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_NO_TRANS, .m = 16,
                           .n = 16, .k = 16, .alpha = 1.0, .lda = 16, .ldb = 16, .ldc = 16, .batch = 1};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int forced = 0; forced < 2; forced++) {
            if (forced)
                setenv("CLFORGE_EPILOGUE_STORE", "staged", 1);
            size_t nargs = strstr(cases[i].prog, "aux") ? 2 : strstr(cases[i].prog, "bias") ? 1 : 0;
            clf_epilogue epi = {cases[i].prog, args, nargs};
            clf__epi e;
            ck_assert_msg(clf__epi_make(ctxs[0], &epi, &call, &e) == CLF_SUCCESS, "%s: %s", cases[i].prog,
                          clf_last_error());
            char *src = NULL, want[32];
            ck_assert_int_eq(clf__epi_source(&e, CLF_F32, 1, &src), CLF_SUCCESS);
            snprintf(want, sizeof want, "#define CLF_EPI_STORE %d\n", forced ? 1 : cases[i].store);
            ck_assert_msg(strstr(src, want) != NULL, "%s: want %s", cases[i].prog, want);
            free(src);
            clf__epi_free(&e);
            unsetenv("CLFORGE_EPILOGUE_STORE");
        }
    }
    clReleaseMemObject(b);
    clReleaseMemObject(x);
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* The generated indices leave out what the binding fixes: no batch term in a call of one matrix, no multiply by
 * a vector's increment of 1; with a batch and an increment of 2 both are there. (random_f32 and friends check
 * that each form computes the right elements.) */
START_TEST(indices_follow_the_binding)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    cl_mem b = clf_test_buffer(ctxs[0], 4096, NULL), x = clf_test_buffer(ctxs[0], 4096, NULL);
    for (int fixed = 0; fixed < 2; fixed++) {
        clf_epilogue_arg args[] = {{.name = "bias", .kind = CLF_EPI_COL, .dtype = CLF_F32, .buffer = b,
                                    .ld = fixed ? 1 : 2, .stride = 40},
                                   {.name = "res", .kind = CLF_EPI_MATRIX, .dtype = CLF_F32, .buffer = x, .ld = 16,
                                    .stride = 256}};
        clf__gemm_call call = {.dtype = CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS, .tb = CLF_NO_TRANS,
                               .m = 16, .n = 16, .k = 16, .alpha = 1.0, .lda = 16, .ldb = 16, .ldc = 16,
                               .stride_a = 256, .stride_b = 256, .stride_c = 256, .batch = fixed ? 1 : 2};
        clf_epilogue epi = {"c = acc + bias + res", args, 2};
        clf__epi e;
        ck_assert_msg(clf__epi_make(ctxs[0], &epi, &call, &e) == CLF_SUCCESS, "%s", clf_last_error());
        int k_bias = -1;   /* the bias's number among the program's names */
        for (int k = 0; k < e.ex.nnames; k++)
            if (e.p[k].role == CLF__EPI_ARG && e.p[k].kind == CLF_EPI_COL)
                k_bias = k;
        ck_assert_int_ge(k_bias, 0);
        char batch_term[32], multiply[32];
        snprintf(batch_term, sizeof batch_term, "eb * es%d", k_bias);
        snprintf(multiply, sizeof multiply, "ec * el%d", k_bias);
        for (int vw = 1; vw <= 4; vw += 3) {   /* the scalar store function, and the CPU kernel's vector one */
            char *src = NULL;
            ck_assert_int_eq(clf__epi_source(&e, CLF_F32, vw, &src), CLF_SUCCESS);
            ck_assert_msg((strstr(src, batch_term) != NULL) == !fixed, "vw %d, %s: batch term %s", vw,
                          fixed ? "one matrix" : "a batch", fixed ? "present" : "missing");
            ck_assert_msg((strstr(src, multiply) != NULL) == !fixed, "vw %d, increment %d: multiply %s", vw,
                          fixed ? 1 : 2, fixed ? "present" : "missing");
            free(src);
        }
        clf__epi_free(&e);
    }
    clReleaseMemObject(b);
    clReleaseMemObject(x);
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* A bad CLFORGE_EPILOGUE_STORE or CLFORGE_EPILOGUE_UNROLL fails the call with a message naming it, and C is
 * unchanged. */
START_TEST(bad_store_env)
{
    static const char *const bad[][2] = {{"CLFORGE_EPILOGUE_STORE", "fast"}, {"CLFORGE_EPILOGUE_UNROLL", "0"},
                                         {"CLFORGE_EPILOGUE_UNROLL", "17"}, {"CLFORGE_EPILOGUE_UNROLL", "2x"}};
    enum { N = 20 };
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nctx, 0);
    for (int d = 0; d < nctx; d++) {
        uint64_t seed = 99;
        float h[N * N], back[N * N];
        clf_test_rand_f32(h, N * N, &seed);
        cl_mem a = clf_test_buffer(ctxs[d], sizeof h, h), c = clf_test_buffer(ctxs[d], sizeof h, h);
        clf_epilogue epi = {"c = relu(acc)", NULL, 0};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            setenv(bad[i][0], bad[i][1], 1);
            clf_status st = clf_gemm_epilogue(ctxs[d], NULL, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, N, N, N, 1.0,
                                              a, 0, N, 0, a, 0, N, 0, 0.0, c, 0, N, 0, 1, &epi, NULL);
            unsetenv(bad[i][0]);
            ck_assert_int_eq(st, CLF_ERR_INVALID_ARG);
            ck_assert_msg(strstr(clf_last_error(), bad[i][0]), "message: %s", clf_last_error());
            ck_assert_int_eq(clEnqueueReadBuffer(clf_context_queue(ctxs[d]), c, CL_TRUE, 0, sizeof back, back, 0, NULL,
                                                 NULL), CL_SUCCESS);
            ck_assert_int_eq(memcmp(back, h, sizeof h), 0);
        }
        clReleaseMemObject(a);
        clReleaseMemObject(c);
    }
    clf_test_contexts_free(ctxs, nctx);
}
END_TEST

/* ---- bad bindings ----------------------------------------------------------------------------------- */

enum { EM = 8, EN = 6, EK = 5, EB = 2 };   /* the call: row-major, batch of 2, matrices packed one after another */

typedef struct bad_case {
    const char *prog;
    const char *want;        /* in the message */
    clf_status status;
    void (*edit)(clf_epilogue_arg *args, size_t *nargs, cl_mem *bufs);
} bad_case;

/* bufs: 0 A (room for a pre), 1 B, 2 C, 3 bias (EN), 4 scale (EM), 5 res (room for a pre), 6 pre, 7 a short buffer (EN-1),
 * 8 (EM-1), 9 (EM*EN-1); the matrices and vectors serve both batch items (stride 0) unless edited. */
static void e_short_bias(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, a[0].buffer = b[7]; }
static void e_short_scale(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, a[1].buffer = b[8]; }
static void e_short_res(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, a[2].buffer = b[9]; }
static void e_offset_res(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, (void)b, a[2].offset = EM * EN + 1; }
static void e_inc_bias(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, (void)b, a[0].ld = 2; }
static void e_extra(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)b, a[(*n)++] = (clf_epilogue_arg){.name = "zzz"}; }
static void e_missing(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)b, a[0] = a[--*n]; }
static void e_pre_is_res(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, a[3].buffer = b[5]; }
static void e_pre_is_c(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, a[3].buffer = b[2]; }
static void e_pre_is_a(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, a[3].buffer = b[0]; }
static void e_res_is_c(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, a[2].buffer = b[2]; }
static void e_pre_col(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, (void)b, a[3].kind = CLF_EPI_COL; }
static void e_pre_scalar(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, (void)b, a[3].kind = CLF_EPI_SCALAR; }
static void e_reserved(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, (void)b, a[1].name = "c"; }
static void e_twice(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)b, a[(*n)++] = a[0]; }
static void e_dtype(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, (void)b, a[0].dtype = (clf_dtype)9; }
static void e_kind(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, (void)b, a[0].kind = (clf_epilogue_kind)7; }
static void e_ld(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, (void)b, a[2].ld = EN - 1; }
static void e_pre_shared(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, (void)b, a[3].stride = 0; }
static void e_noname(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)n, (void)b, a[1].name = NULL; }
static void e_none(clf_epilogue_arg *a, size_t *n, cl_mem *b) { (void)a, (void)n, (void)b; }

#define FULL "pre = acc * scale + bias + res; c = gelu(pre)"

static const bad_case bad_cases[] = {
    {FULL, "bias", CLF_ERR_INVALID_ARG, e_short_bias},
    {FULL, "scale", CLF_ERR_INVALID_ARG, e_short_scale},
    {FULL, "res", CLF_ERR_INVALID_ARG, e_short_res},
    {FULL, "res", CLF_ERR_INVALID_ARG, e_offset_res},
    {FULL, "bias", CLF_ERR_INVALID_ARG, e_inc_bias},
    {FULL, "zzz", CLF_ERR_INVALID_ARG, e_extra},
    {FULL, "bias", CLF_ERR_INVALID_ARG, e_missing},
    {FULL, "'pre' overlaps input 'res'", CLF_ERR_INVALID_ARG, e_pre_is_res},
    {FULL, "'pre' overlaps C", CLF_ERR_INVALID_ARG, e_pre_is_c},
    {FULL, "'pre' overlaps A", CLF_ERR_INVALID_ARG, e_pre_is_a},
    {FULL, "'res' overlaps C", CLF_ERR_INVALID_ARG, e_res_is_c},
    {FULL, "output 'pre'", CLF_ERR_INVALID_ARG, e_pre_col},
    {FULL, "output 'pre'", CLF_ERR_INVALID_ARG, e_pre_scalar},
    {FULL, "'c' is a reserved", CLF_ERR_INVALID_ARG, e_reserved},
    {FULL, "'bias' is given twice", CLF_ERR_INVALID_ARG, e_twice},
    {FULL, "'bias'", CLF_ERR_INVALID_ARG, e_dtype},
    {FULL, "'bias'", CLF_ERR_INVALID_ARG, e_kind},
    {FULL, "'res'", CLF_ERR_INVALID_ARG, e_ld},
    {FULL, "'pre'", CLF_ERR_INVALID_ARG, e_pre_shared},
    {FULL, "argument 1 has no name", CLF_ERR_INVALID_ARG, e_noname},
    {"c = pre + acc * scale + bias + res; pre = acc", "'pre' is read before", CLF_ERR_INVALID_ARG, e_none},
    {"pre = acc * scale + bias + res", "must assign c", CLF_ERR_INVALID_ARG, e_none},
    {"acc = acc * scale + bias + res; c = acc; pre = c", "assigns acc", CLF_ERR_INVALID_ARG, e_none},
    {"pre = acc * scale + bias + res; c = gelu(pre", "", CLF_ERR_PARSE, e_none},
};

static int bad_binding(clf_context *ctx, const bad_case *bc, cl_mem *bufs, const float *c0, const float *pre0)
{
    clf_epilogue_arg args[8] = {
        {.name = "bias", .kind = CLF_EPI_COL, .dtype = CLF_F32, .buffer = bufs[3]},
        {.name = "scale", .kind = CLF_EPI_ROW, .dtype = CLF_F32, .buffer = bufs[4]},
        {.name = "res", .kind = CLF_EPI_MATRIX, .dtype = CLF_F32, .buffer = bufs[5], .ld = EN},
        {.name = "pre", .kind = CLF_EPI_MATRIX, .dtype = CLF_F32, .buffer = bufs[6], .ld = EN, .stride = EM * EN},
    };
    size_t nargs = 4;
    bc->edit(args, &nargs, bufs);
    clf_epilogue epi = {bc->prog, args, nargs};
    cl_event ev = (cl_event)1;
    clf_status s = clf_gemm_epilogue(ctx, NULL, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, EM, EN, EK, 1.0, bufs[0], 0,
                                     EK, EM * EK, bufs[1], 0, EN, EK * EN, 0.0, bufs[2], 0, EN, EM * EN, EB, &epi, &ev);
    float c[EB * EM * EN], pre[EB * EM * EN];
    clf_test_read(ctx, bufs[2], sizeof c, c);
    clf_test_read(ctx, bufs[6], sizeof pre, pre);
    int bad = s != bc->status || !strstr(clf_last_error(), bc->want) || ev != NULL || memcmp(c, c0, sizeof c) != 0 ||
              memcmp(pre, pre0, sizeof pre) != 0;
    if (bad)
        fprintf(stderr, "bad binding (want \"%s\"): status %d, message \"%s\"%s\n", bc->want, (int)s, clf_last_error(),
                memcmp(c, c0, sizeof c) || memcmp(pre, pre0, sizeof pre) ? ", and a result changed" : "");
    return bad;
}

START_TEST(bad_bindings)
{
    clf_context **ctxs;
    int nctx = clf_test_contexts(&ctxs), failures = 0;
    ck_assert_int_gt(nctx, 0);
    static const size_t sizes[10] = {EB * EM * EN, EB * EK * EN, EB * EM * EN, EN, EM, EB * EM * EN, EB * EM * EN,
                                     EN - 1, EM - 1, EM * EN - 1};
    for (int d = 0; d < nctx; d++) {
        uint64_t seed = 777;
        cl_mem bufs[10];
        float *host[10];
        for (int i = 0; i < 10; i++) {
            host[i] = malloc(sizes[i] * sizeof(float));
            clf_test_rand_f32(host[i], sizes[i], &seed);
            bufs[i] = clf_test_buffer(ctxs[d], sizes[i] * sizeof(float), host[i]);
        }
        for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
            failures += bad_binding(ctxs[d], &bad_cases[i], bufs, host[2], host[6]);
        /* the good binding runs */
        bad_case good = {FULL, "", CLF_SUCCESS, e_none};
        clf_epilogue_arg args[4] = {
            {.name = "bias", .kind = CLF_EPI_COL, .dtype = CLF_F32, .buffer = bufs[3]},
            {.name = "scale", .kind = CLF_EPI_ROW, .dtype = CLF_F32, .buffer = bufs[4]},
            {.name = "res", .kind = CLF_EPI_MATRIX, .dtype = CLF_F32, .buffer = bufs[5], .ld = EN},
            {.name = "pre", .kind = CLF_EPI_MATRIX, .dtype = CLF_F32, .buffer = bufs[6], .ld = EN, .stride = EM * EN}};
        clf_epilogue epi = {good.prog, args, 4};
        ck_assert_int_eq(clf_gemm_epilogue(ctxs[d], NULL, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, EM, EN, EK, 1.0,
                                           bufs[0], 0, EK, EM * EK, bufs[1], 0, EN, EK * EN, 0.0, bufs[2], 0, EN,
                                           EM * EN, EB, &epi, NULL),
                         CLF_SUCCESS);
        for (int i = 0; i < 10; i++) {
            clReleaseMemObject(bufs[i]);
            free(host[i]);
        }
    }
    clf_test_contexts_free(ctxs, nctx);
    ck_assert_int_eq(failures, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gemm_epilogue");
    CLF_TEST_ALONE(s, random_f32);
    CLF_TEST_ALONE(s, random_f64);
    CLF_TEST_ALONE(s, random_typed);
    CLF_TEST_ALONE(s, vector_stores);
    CLF_TEST_ALONE(s, paths);
    CLF_TEST_ALONE(s, split_summed_in_launch);
    CLF_TEST_ALONE(s, old_c_across_k_blocks);
    CLF_TEST_ALONE(s, store_configs);
    CLF_TEST_ALONE(s, store_follows_the_program);
    CLF_TEST_ALONE(s, indices_follow_the_binding);
    CLF_TEST_ALONE(s, bad_store_env);
    CLF_TEST_ALONE(s, bad_bindings);
    return clf_test_run(s);
}
