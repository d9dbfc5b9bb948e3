/* map.c — clf_map: binds a parsed expression to buffers and scalars, generates the OpenCL C body that
 * cl/map.cl wraps, and launches it. The `map` family descriptor is in map_family.c. */
#include "map.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a growable string -------------------------------------------------------------------- */
void clf__sb_add(clf__sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && b->len + (size_t)k < b->cap) {
            b->len += (size_t)k;
            return;
        }
        size_t cap = (b->cap ? b->cap * 2 : 4096) + (size_t)k;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}
#define sb_add clf__sb_add
typedef clf__sbuf sbuf;

/* A literal in the compute type, written so that it reads back exactly ("0.5f", "3.0"). */
static void literal(double v, int f64, char *buf, size_t cap)
{
    if (!f64 && isinf((float)v)) {  /* e.g. 1e300 in a float kernel: what a float conversion gives */
        snprintf(buf, cap, "INFINITY");
        return;
    }
    if (f64)
        snprintf(buf, cap, "%.17g", v);
    else
        snprintf(buf, cap, "%.9g", (double)(float)v);
    if (!strpbrk(buf, ".e") && strlen(buf) + 3 < cap)
        strcat(buf, ".0");
    if (!f64 && strlen(buf) + 2 < cap)
        strcat(buf, "f");
}

static const char *fn_code(int fn)
{
    switch (fn) {
    case CLF__FN_ABS: return "fabs(%1)";
    case CLF__FN_MIN: return "fmin(%1, %2)";
    case CLF__FN_MAX: return "fmax(%1, %2)";
    case CLF__FN_EXP: return "exp(%1)";
    case CLF__FN_LOG: return "log(%1)";
    case CLF__FN_SQRT: return "sqrt(%1)";
    case CLF__FN_RSQRT: return "rsqrt(%1)";
    case CLF__FN_TANH: return "tanh(%1)";
    case CLF__FN_SIGMOID: return "%I / (%I + exp(-%1))";
    case CLF__FN_RELU: return "fmax(%1, %O)";
    case CLF__FN_GELU: return "%H * %1 * (%I + erf(%1 * %R))";
    case CLF__FN_POW: return "pow(%1, %2)";
    case CLF__FN_FMA: return "fma(%1, %2, %3)";
    case CLF__FN_CLAMP: return "fmin(fmax(%1, %2), %3)";
    case CLF__FN_FLOOR: return "floor(%1)";
    case CLF__FN_CEIL: return "ceil(%1)";
    default: return NULL;
    }
}

static void gen_call(sbuf *b, const clf__ex_node *x, int f64)
{
    const char *t = fn_code(x->fn);
    char lit[48];
    for (; t && *t; t++) {
        if (*t != '%') {
            sb_add(b, "%c", *t);
            continue;
        }
        t++;
        if (*t >= '1' && *t <= '3') {
            sb_add(b, "t%d", x->a[*t - '1']);
            continue;
        }
        double v = *t == 'I' ? 1.0 : *t == 'O' ? 0.0 : *t == 'H' ? 0.5 : 0.70710678118654752440;
        literal(v, f64, lit, sizeof lit);
        sb_add(b, "K(%s)", lit);
    }
}

static const char *bin_op(int op)
{
    static const char *ops[] = {[CLF__EX_ADD] = "+", [CLF__EX_SUB] = "-", [CLF__EX_MUL] = "*", [CLF__EX_DIV] = "/",
                                [CLF__EX_LT] = "<",  [CLF__EX_LE] = "<=", [CLF__EX_GT] = ">",  [CLF__EX_GE] = ">=",
                                [CLF__EX_EQ] = "==", [CLF__EX_NE] = "!=", [CLF__EX_AND] = "&&", [CLF__EX_OR] = "||"};
    return op >= CLF__EX_ADD && op <= CLF__EX_OR ? ops[op] : "?";
}

const char *clf__ex_dt_macro(clf_dtype dt)
{
    return dt == CLF_F64 ? "64" : dt == CLF_F16 ? "16" : dt == CLF_BF16 ? "BF" : "32";
}

const char *clf__ex_dt_ctype(clf_dtype dt)
{
    return dt == CLF_F64 ? "double" : dt == CLF_F16 ? "half" : dt == CLF_BF16 ? "ushort" : "float";
}

/* fp32 gelu(x) = x/2 (1 + erf(x/sqrt 2)) on devices that build with CLF_ERFC_GELU=1 (CPUs: host/runtime/program.c),
 * whose erf costs ten times a memory-bound map (PoCL: 2.0 against 0.2 ns an element): 1 + erf(u) is 2 - erfc(|u|)
 * for u >= 0 and erfc(|u|) below, and erfc(z) = t exp(-z^2 + P(t)), t = 1 / (1 + z/2), with the Chebyshev fit of
 * Numerical Recipes (section 6.2; fractional error under 1.2e-7 for every z >= 0), so neither side cancels.
 * Temporaries g<i>z, g<i>t, g<i>c ahead of node i's statement; where the macro is 0 they are dead code. */
static void gen_gelu_parts(sbuf *b, int i, int a, const char *sep)
{
    static const char *const coef[] = {"-1.26551223f", "1.00002368f", "0.37409196f", "0.09678418f", "-0.18628806f",
                                       "0.27886807f", "-1.13520398f", "1.48851587f", "-0.82215223f", "0.17087277f"};
    sb_add(b, "%sconst V g%dz = fabs(t%d * K(0.707106769f));", sep, i, a);
    sb_add(b, "%sconst V g%dt = K(1.0f) / (K(1.0f) + K(0.5f) * g%dz);", sep, i, i);
    sb_add(b, "%sconst V g%dc = g%dt * exp(-g%dz * g%dz + ", sep, i, i, i, i);
    for (int j = 0; j < 9; j++)   /* Horner: c0 + t (c1 + t (... + t c9)) */
        sb_add(b, "K(%s) + g%dt * (", coef[j], i);
    sb_add(b, "K(%s)", coef[9]);
    for (int j = 0; j < 9; j++)
        sb_add(b, ")");
    sb_add(b, ");");
}

void clf__ex_emit(sbuf *b, const clf__expr *e, int f64, const char *sep, clf__ex_load_fn load, void *user)
{
    char lit[48];
    for (int i = 0; i < e->nnodes; i++) {
        const clf__ex_node *x = &e->node[i];
        int erfc_gelu = !f64 && x->op == CLF__EX_CALL && x->fn == CLF__FN_GELU;
        if (erfc_gelu)
            gen_gelu_parts(b, i, x->a[0], sep);
        sb_add(b, "%sconst %s t%d = ", sep, x->type == CLF__EX_T_BOOL ? "B" : "V", i);
        if (erfc_gelu)
            sb_add(b, "CLF_ERFC_GELU ? K(0.5f) * t%d * SEL(t%d >= K(0.0f), K(2.0f) - g%dc, g%dc) : ", x->a[0], x->a[0], i, i);
        switch (x->op) {
        case CLF__EX_NUM:
            literal(x->num, f64, lit, sizeof lit);
            sb_add(b, "K(%s)", lit);
            break;
        case CLF__EX_LOAD: load(user, x->name, b); break;
        case CLF__EX_NEG: sb_add(b, "-t%d", x->a[0]); break;
        case CLF__EX_NOT: sb_add(b, "!t%d", x->a[0]); break;
        case CLF__EX_SEL: sb_add(b, "SEL(t%d, t%d, t%d)", x->a[0], x->a[1], x->a[2]); break;
        case CLF__EX_CALL: gen_call(b, x, f64); break;
        default: sb_add(b, "t%d %s t%d", x->a[0], bin_op(x->op), x->a[1]); break;
        }
        sb_add(b, ";");
    }
}

static void map_load(void *user, int k, sbuf *b)
{
    const map_plan *pl = user;
    if (pl->p[k].scalar)
        sb_add(b, "K(s%d)", k);
    else
        sb_add(b, "LD%s(b%d, o%d)", clf__ex_dt_macro(pl->p[k].dt), k, k);
}

/* The program text: parameters and body as macros, one statement per node (no recursion), then the
 * skeleton. Names never appear in it, so equal expressions under other names share one program. */
static clf_status gen_source(map_plan *pl)
{
    const clf__expr *e = &pl->ex;
    const char *skeleton;
    clf_status s = clf__source("map.cl", &skeleton);
    if (s != CLF_SUCCESS)
        return s;
    sbuf b = {0};
    sb_add(&b, "#define CLF_MAP_PARAMS");
    for (int k = 0; k < e->nnames; k++) {
        if (pl->p[k].scalar)
            sb_add(&b, " const CT s%d,", k);
        else
            sb_add(&b, " __global %s%s *b%d, const idx_t o%d,", pl->p[k].out ? "" : "const ",
                   clf__ex_dt_ctype(pl->p[k].dt), k, k);
    }
    sb_add(&b, "\n#define CLF_MAP_BODY");
    clf__ex_emit(&b, e, pl->f64, " \\\n    ", map_load, pl);
    for (int i = 0; i < e->nstmts; i++) {
        int k = e->stmt[i].name;
        sb_add(&b, " \\\n    ST%s(b%d, o%d, t%d);", clf__ex_dt_macro(pl->p[k].dt), k, k, e->stmt[i].root);
    }
    sb_add(&b, "\n%s", skeleton);
    if (b.oom) {
        free(b.s);
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "clf_map: out of memory generating the kernel");
    }
    pl->src = b.s;
    return CLF_SUCCESS;
}

/* Outputs may alias an input element for element; any other overlap with an output is an error. */
static clf_status check_overlap(const map_plan *pl)
{
    const clf__expr *e = &pl->ex;
    for (int i = 0; i < e->nnames; i++) {
        const map_param *a = &pl->p[i];
        if (!a->out || a->scalar)
            continue;
        size_t abase, asz = clf__dtype_size(a->dt);
        cl_mem ar = clf__mem_root(a->mem, &abase);
        size_t a0 = abase + a->off * asz, a1 = a0 + pl->n * asz;
        for (int j = 0; j < e->nnames; j++) {
            const map_param *b = &pl->p[j];
            if (j == i || b->scalar || (b->out && j < i))
                continue;
            size_t bbase, bsz = clf__dtype_size(b->dt);
            if (clf__mem_root(b->mem, &bbase) != ar)
                continue;
            size_t b0 = bbase + b->off * bsz, b1 = b0 + pl->n * bsz;
            if (a1 <= b0 || b1 <= a0)
                continue;
            if (b->out)
                return clf__fail(CLF_ERR_INVALID_ARG, "clf_map: outputs '%s' and '%s' overlap in the same buffer",
                                 a->name, b->name);
            if (a0 != b0 || asz != bsz)
                return clf__fail(CLF_ERR_INVALID_ARG,
                                 "clf_map: output '%s' partially overlaps input '%s' (same buffer, bytes %zu and %zu); "
                                 "only element-for-element aliasing is allowed", a->name, b->name, a0, b0);
        }
    }
    return CLF_SUCCESS;
}

/* Matches names to arguments and checks everything before anything is built or enqueued. */
static clf_status bind(clf_context *ctx, map_plan *pl, size_t n, const clf_map_arg *args, size_t nargs)
{
    clf__expr *e = &pl->ex;
    pl->n = n;
    pl->first_out = e->stmt[0].name;
    if (nargs && !args)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_map: args is NULL but nargs is %zu", nargs);
    for (size_t a = 0; a < nargs; a++) {
        if (!args[a].name)
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_map: argument %zu has no name", a);
        for (size_t b = 0; b < a; b++)
            if (strcmp(args[a].name, args[b].name) == 0)
                return clf__fail(CLF_ERR_INVALID_ARG, "clf_map: argument '%s' is given twice", args[a].name);
        int k = -1;
        for (int i = 0; i < e->nnames; i++)
            if (strcmp(e->name[i], args[a].name) == 0)
                k = i;
        if (k < 0)
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_map: argument '%s' is not used by the expression", args[a].name);
        map_param *p = &pl->p[k];
        p->name = e->name[k];
        if (args[a].kind == CLF_ARG_SCALAR) {
            p->scalar = 1;
            p->value = args[a].value;
        } else if (args[a].kind == CLF_ARG_BUFFER) {
            clf_dtype dt = args[a].dtype;
            if (dt != CLF_F32 && dt != CLF_F64 && dt != CLF_F16 && dt != CLF_BF16)
                return clf__fail(CLF_ERR_UNSUPPORTED, "clf_map: buffer '%s' has an unknown storage type %d",
                                 args[a].name, (int)dt);
            p->dt = dt;
            p->mem = args[a].buffer;
            p->off = args[a].offset;
        } else {
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_map: argument '%s' has an unknown kind %d", args[a].name,
                             (int)args[a].kind);
        }
    }
    size_t maxend = n;
    pl->half = 0;
    for (int k = 0; k < e->nnames; k++) {
        map_param *p = &pl->p[k];
        p->in = e->is_input[k];
        p->out = e->is_output[k];
        if (!p->name)
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_map: no argument for '%s', which the expression %s", e->name[k],
                             e->is_output[k] ? "assigns" : "reads");
        if (p->out && p->scalar)
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_map: output '%s' is a scalar; outputs must be buffers", p->name);
        if (p->scalar)
            continue;
        size_t es = clf__dtype_size(p->dt);
        pl->f64 |= p->dt == CLF_F64;
        pl->half |= es == 2;
        clf_status s = clf__check_buffer(p->mem, p->name, p->off, n, es);
        if (s != CLF_SUCCESS)
            return s;
        if (n && p->off + n > maxend)
            maxend = p->off + n;
        pl->bytes += (double)n * (double)es * (p->in + p->out);
    }
    if (pl->f64 && !ctx->info.fp64)
        return clf__fail(CLF_ERR_UNSUPPORTED, "clf_map: %s has no fp64 support, and an f64 buffer needs it", ctx->info.name);
    pl->idx64 = clf__ew_idx64(maxend);
    pl->flops = (double)n * e->nops;
    return check_overlap(pl);
}

void clf__map_plan_free(map_plan *pl)
{
    clf__expr_free(&pl->ex);
    free(pl->src);
    pl->src = NULL;
}

/* Parses, binds and generates; on failure everything is freed and nothing was enqueued. */
clf_status clf__map_plan_make(clf_context *ctx, const char *expr, size_t n, const clf_map_arg *args, size_t nargs,
                            map_plan *pl)
{
    memset(pl, 0, sizeof *pl);
    if (!ctx || !expr)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_map: ctx and expr must be non-NULL");
    int r = clf__expr_parse(expr, strlen(expr), &pl->ex);
    clf_status s = CLF_SUCCESS;
    if (r == -2)
        s = clf__fail(CLF_ERR_OUT_OF_MEMORY, "clf_map: %s", pl->ex.err);
    else if (r != 0)
        s = clf__fail(CLF_ERR_PARSE, "%s", pl->ex.err);
    if (s == CLF_SUCCESS)
        s = bind(ctx, pl, n, args, nargs);
    if (s == CLF_SUCCESS && !clf__map_memo_find(expr, pl) && (s = gen_source(pl)) == CLF_SUCCESS)
        clf__map_memo_keep(expr, pl);
    if (s != CLF_SUCCESS)
        clf__map_plan_free(pl);
    return s;
}

/* Builds (through the program cache) and enqueues the plan with one configuration. */
clf_status clf__map_plan_launch(clf_context *ctx, const map_plan *pl, const clf__config *cfg, cl_event *done)
{
    clf__ew_geom g;
    clf__ew_split(cfg, pl->n, pl->p[pl->first_out].off, pl->idx64, &g);
    for (int i = 0; i < pl->ex.nnames; i++)
        if (!pl->p[i].scalar)
            clf__ew_align(&g, pl->p[i].off);
    char extra[32];
    snprintf(extra, sizeof extra, " -DCLF_F64=%d", pl->f64);
    cl_kernel k;
    clf_status s = clf__ew_build(ctx, &clf__family_map, cfg, pl->src, "clf_map", extra, &g, &k);
    if (s != CLF_SUCCESS)
        return s;
    cl_uint a = 0;
    for (int i = 0; i < pl->ex.nnames && s == CLF_SUCCESS; i++) {
        const map_param *p = &pl->p[i];
        if (p->scalar) {
            float f = (float)p->value;
            s = pl->f64 ? clf__ew_arg(k, a++, sizeof p->value, &p->value, "clf_map")
                        : clf__ew_arg(k, a++, sizeof f, &f, "clf_map");
        } else {
            s = clf__ew_arg(k, a++, sizeof p->mem, &p->mem, "clf_map");
            if (s == CLF_SUCCESS)
                s = clf__ew_index(k, a++, &g, p->off, "clf_map");
        }
    }
    if (s == CLF_SUCCESS)
        s = clf__ew_tail(k, a, &g, "clf_map");
    clf__work w = {"map", pl->flops, pl->bytes};
    return clf__ew_enqueue(ctx, s, k, &g, &w, done);
}

clf_dtype clf__map_key(const map_plan *pl) { return pl->f64 ? CLF_F64 : pl->half ? CLF_F16 : CLF_F32; }

clf_status clf_map(clf_context *ctx, const char *expr, size_t n, const clf_map_arg *args, size_t nargs,
                   cl_event *done)
{
    map_plan pl;
    if (done)
        *done = NULL;
    clf_status s = clf__map_plan_make(ctx, expr, n, args, nargs, &pl);
    if (s != CLF_SUCCESS)
        return s;
    if (n == 0) {
        s = clf__ew_marker(ctx, done, "clf_map with n = 0");
    } else {
        clf__config cfg;
        s = clf__ew_config(ctx, &clf__family_map, clf__map_key(&pl), &cfg);
        if (s == CLF_SUCCESS)
            s = clf__map_plan_launch(ctx, &pl, &cfg, done);
    }
    clf__map_plan_free(&pl);
    return s;
}
