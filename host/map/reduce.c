/* reduce.c — clf_reduce: checks a line reduction and its arguments, parses its three expressions (pre,
 * post, write) with the map language, generates the macros that cl/reduce.cl wraps, and launches it. The
 * `reduce` family descriptor is in reduce_family.c. */
#include "reduce.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *part_name[RED_NPARTS] = {"pre", "post", "write"};
#define HIDDEN "__clf_v"

/* The two extra statistics of the two-statistic ops, readable in post and write (NULL: none). */
static const char *extra_name(clf_reduce_op op, int k)
{
    if (op == CLF_REDUCE_LSE)
        return k ? "rsum" : "rmax";
    if (op == CLF_REDUCE_MOMENTS)
        return k ? "var" : "mean";
    return NULL;
}

static int reserved_name(clf_reduce_op op, const char *nm)
{
    for (int k = 0; k < 2; k++)
        if (extra_name(op, k) && !strcmp(nm, extra_name(op, k)))
            return 1;
    return !strcmp(nm, "x") || !strcmp(nm, "r") || !strcmp(nm, "len");
}

static int dtype_ok(clf_dtype t) { return t == CLF_F32 || t == CLF_F64 || t == CLF_F16 || t == CLF_BF16; }

/* Parses one expression as the program "__clf_v =\n<text>", so that positions in messages are the user's
 * text's (line numbers shifted back by one). */
static clf_status parse_part(int part, const char *text, clf__expr *e)
{
    size_t len = strlen(text), pre = strlen(HIDDEN " =\n");
    char *prog = malloc(pre + len + 1);
    if (!prog)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "clf_reduce: out of memory");
    memcpy(prog, HIDDEN " =\n", pre);
    memcpy(prog + pre, text, len + 1);
    int r = clf__expr_parse(prog, pre + len, e);
    free(prog);
    if (r == -2)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "clf_reduce: %s: %s", part_name[part], e->err);
    if (r != 0) {
        int line = 0, col = 0, at = 0;
        if (sscanf(e->err, "%d:%d:%n", &line, &col, &at) == 2 && line > 1)
            return clf__fail(CLF_ERR_PARSE, "clf_reduce: %s: %d:%d:%s", part_name[part], line - 1, col, e->err + at);
        return clf__fail(CLF_ERR_PARSE, "clf_reduce: %s: %s", part_name[part], e->err);
    }
    if (e->nstmts != 1)
        return clf__fail(CLF_ERR_PARSE, "clf_reduce: %s must be one expression, not statements", part_name[part]);
    for (int k = 0; k < e->nnames; k++)
        if (strncmp(e->name[k], "__clf", 5) == 0 && strcmp(e->name[k], HIDDEN) != 0)
            return clf__fail(CLF_ERR_PARSE, "clf_reduce: %s: names starting with __clf are reserved", part_name[part]);
    if (e->is_input[e->stmt[0].name])
        return clf__fail(CLF_ERR_PARSE, "clf_reduce: %s: names starting with __clf are reserved", part_name[part]);
    return CLF_SUCCESS;
}

/* Where a matrix operand lies: the element after its last one, as an extent from off. */
static size_t mat_extent(const red_plan *pl, size_t ld)
{
    size_t rows = pl->d.layout == CLF_ROW_MAJOR ? pl->d.m : pl->d.n;   /* outer count */
    size_t inner = pl->d.layout == CLF_ROW_MAJOR ? pl->d.n : pl->d.m;
    return rows == 0 || inner == 0 ? 0 : (rows - 1) * ld + inner;
}

static clf_status check_matrix(clf_context *ctx, const red_plan *pl, const char *name, clf_dtype t, cl_mem m,
                               size_t off, size_t ld, clf__span *sp)
{
    size_t inner = pl->d.layout == CLF_ROW_MAJOR ? pl->d.n : pl->d.m;
    if (!dtype_ok(t))
        return clf__fail(CLF_ERR_UNSUPPORTED, "clf_reduce: %s has an unknown storage type %d", name, (int)t);
    if (ld < inner || ld == 0)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: ld%s (%zu) is smaller than the %s length %zu (or 0)", name,
                         ld, pl->d.layout == CLF_ROW_MAJOR ? "row" : "column", inner);
    return clf__check_operand_buffer(ctx, "clf_reduce", name, m, off, mat_extent(pl, ld), clf__dtype_size(t), sp);
}

/* The shape, the matrix operands and their overlaps. */
static clf_status check_desc(clf_context *ctx, red_plan *pl)
{
    const clf_reduce_desc *d = &pl->d;
    if (d->layout != CLF_ROW_MAJOR && d->layout != CLF_COL_MAJOR)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: layout %d is neither CLF_ROW_MAJOR nor CLF_COL_MAJOR",
                         (int)d->layout);
    if (d->axis != CLF_REDUCE_ROWS && d->axis != CLF_REDUCE_COLS)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: axis %d is unknown", (int)d->axis);
    if (d->op != CLF_REDUCE_SUM && d->op != CLF_REDUCE_MAX && d->op != CLF_REDUCE_MIN && d->op != CLF_REDUCE_LSE &&
        d->op != CLF_REDUCE_MOMENTS)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: op %d is unknown (sum, max, min, lse or moments)",
                         (int)d->op);
    if (!d->out && !d->write)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: out is NULL and there is no write: nothing to compute");
    pl->lines = d->axis == CLF_REDUCE_ROWS ? d->m : d->n;
    pl->len = d->axis == CLF_REDUCE_ROWS ? d->n : d->m;
    pl->strided = (d->axis == CLF_REDUCE_ROWS) != (d->layout == CLF_ROW_MAJOR);
    clf__span sx, so = {0}, sy = {0};
    clf_status s = check_matrix(ctx, pl, "x", d->x_type, d->x, d->x_off, d->ldx, &sx);
    if (s == CLF_SUCCESS && d->out && !dtype_ok(d->out_type))
        s = clf__fail(CLF_ERR_UNSUPPORTED, "clf_reduce: out has an unknown storage type %d", (int)d->out_type);
    if (s == CLF_SUCCESS && d->out)
        s = clf__check_operand_buffer(ctx, "clf_reduce", "out", d->out, d->out_off, pl->lines,
                                      clf__dtype_size(d->out_type), &so);
    if (s == CLF_SUCCESS && d->write)
        s = check_matrix(ctx, pl, "y", d->y_type, d->y, d->y_off, d->ldy, &sy);
    if (s != CLF_SUCCESS)
        return s;
    pl->out_span = so, pl->y_span = sy;
    if (d->out && (clf__spans_overlap(&so, &sx) || clf__spans_overlap(&so, &sy)))
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: out overlaps %s", clf__spans_overlap(&so, &sx) ? "x" : "y");
    int same = sx.root == sy.root && sx.lo == sy.lo && d->ldx == d->ldy && d->x_type == d->y_type;
    if (d->write && clf__spans_overlap(&sx, &sy) && !same)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: y overlaps x without being x itself (same buffer, offset, "
                         "ld and type)");
    pl->f64 = d->x_type == CLF_F64 || (d->out && d->out_type == CLF_F64) || (d->write && d->y_type == CLF_F64);
    size_t end = d->x_off + mat_extent(pl, d->ldx);
    if (d->write && d->y_off + mat_extent(pl, d->ldy) > end)
        end = d->y_off + mat_extent(pl, d->ldy);
    pl->idx64 = clf__ew_idx64(end + pl->lines + d->out_off);
    return CLF_SUCCESS;
}

static clf_status bind_one(clf_context *ctx, red_plan *pl, const clf_map_arg *a, red_arg *r)
{
    r->name = a->name;
    if (a->kind == CLF_ARG_SCALAR) {
        r->scalar = 1;
        r->value = a->value;
        return CLF_SUCCESS;
    }
    if (a->kind != CLF_ARG_ROW && a->kind != CLF_ARG_COL)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: argument '%s' has kind %d; use CLF_ARG_SCALAR, CLF_ARG_ROW "
                         "or CLF_ARG_COL", a->name, (int)a->kind);
    if (!dtype_ok(a->dtype))
        return clf__fail(CLF_ERR_UNSUPPORTED, "clf_reduce: argument '%s' has an unknown storage type %d", a->name,
                         (int)a->dtype);
    r->per_line = (a->kind == CLF_ARG_ROW) == (pl->d.axis == CLF_REDUCE_ROWS);
    r->dt = a->dtype;
    r->mem = a->buffer;
    r->off = a->offset;
    pl->f64 |= a->dtype == CLF_F64;
    size_t count = a->kind == CLF_ARG_ROW ? pl->d.m : pl->d.n;
    pl->idx64 |= clf__ew_idx64(a->offset + count);
    clf__span sp;
    clf_status s = clf__check_operand_buffer(ctx, "clf_reduce", a->name, a->buffer, a->offset, count,
                                             clf__dtype_size(a->dtype), &sp);
    if (s == CLF_SUCCESS && (clf__spans_overlap(&sp, &pl->out_span) || clf__spans_overlap(&sp, &pl->y_span)))
        s = clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: argument '%s' overlaps %s, which the call writes", a->name,
                      clf__spans_overlap(&sp, &pl->out_span) ? "out" : "y");
    return s;
}

static clf_status bind_args(clf_context *ctx, red_plan *pl, const clf_map_arg *args, size_t nargs)
{
    if (nargs && !args)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: args is NULL but nargs is %zu", nargs);
    if (nargs > CLF__EX_MAX_NAMES)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: %zu arguments (limit %d)", nargs, CLF__EX_MAX_NAMES);
    for (size_t a = 0; a < nargs; a++) {
        if (!args[a].name)
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: argument %zu has no name", a);
        if (reserved_name(pl->d.op, args[a].name))
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: argument '%s' has a reserved name (x, r, len; rmax, "
                             "rsum with lse; mean, var with moments)", args[a].name);
        for (size_t b = 0; b < a; b++)
            if (strcmp(args[a].name, args[b].name) == 0)
                return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: argument '%s' is given twice", args[a].name);
        clf_status s = bind_one(ctx, pl, &args[a], &pl->arg[a]);
        if (s != CLF_SUCCESS)
            return s;
    }
    pl->nargs = (int)nargs;
    return CLF_SUCCESS;
}

/* What name k of part p refers to: -1 x, -2 r, -3 len, -4 the hidden output, -6 / -7 the op's first / second
 * extra statistic, else an argument index. */
static int resolve(const red_plan *pl, int p, int k)
{
    const char *nm = pl->ex[p].name[k];
    if (!strcmp(nm, HIDDEN)) return -4;
    if (!strcmp(nm, "x")) return -1;
    if (!strcmp(nm, "r")) return -2;
    if (!strcmp(nm, "len")) return -3;
    for (int e = 0; e < 2; e++)
        if (extra_name(pl->d.op, e) && !strcmp(nm, extra_name(pl->d.op, e)))
            return -6 - e;
    for (int a = 0; a < pl->nargs; a++)
        if (!strcmp(pl->arg[a].name, nm))
            return a;
    return -5;
}

/* Every name read is available to its part, and every argument is read somewhere. */
static clf_status check_names(red_plan *pl)
{
    for (int p = 0; p < RED_NPARTS; p++) {
        for (int k = 0; pl->has_part[p] && k < pl->ex[p].nnames; k++) {
            int w = resolve(pl, p, k);
            const char *nm = pl->ex[p].name[k];
            if (w == -5)
                return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: %s: no argument for '%s'", part_name[p], nm);
            if ((w == -1 && p == RED_POST) || ((w == -2 || w <= -6) && p == RED_PRE))
                return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: %s cannot read '%s' (pre reads x, post reads r "
                                 "and the op's statistics, write reads all)", part_name[p], nm);
            if (w >= 0 && p == RED_POST && !pl->arg[w].scalar && !pl->arg[w].per_line)
                return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: post cannot read '%s', a vector along the line "
                                 "(post runs once per line)", nm);
            if (w >= 0)
                pl->arg[w].used = 1;
        }
    }
    for (int a = 0; a < pl->nargs; a++)
        if (!pl->arg[a].used)
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: argument '%s' is not used by pre, post or write",
                             pl->arg[a].name);
    return CLF_SUCCESS;
}

/* vec: 1 the row kernel's whole-vector write (CLF_RED_WRITEV), where a vector along the line is read from the
 * av<k> its CLF_RED_ARGV loaded, element c of the vector at j0; 2 the line kernel's vector forms (CLF_RED_PREW,
 * CLF_RED_WRITEW), where it is loaded as a vector from j. */
typedef struct load_ctx { const red_plan *pl; int part, vec; } load_ctx;

static void red_load(void *user, int k, clf__sbuf *b)
{
    const load_ctx *lc = user;
    int w = resolve(lc->pl, lc->part, k);
    if (w == -1) clf__sb_add(b, "xv");
    else if (w == -2) clf__sb_add(b, "rv");
    else if (w == -3) clf__sb_add(b, "lenv");
    else if (w <= -6) clf__sb_add(b, "e%dv", -5 - w);
    else if (lc->pl->arg[w].scalar) clf__sb_add(b, "K(s%d)", w);
    else if (lc->vec == 2 && !lc->pl->arg[w].per_line)   /* the line kernel's vectors from j */
        clf__sb_add(b, "LDW_%s(b%d, o%d + j)", clf__ex_dt_macro(lc->pl->arg[w].dt), w, w);
    else if (lc->vec && !lc->pl->arg[w].per_line) clf__sb_add(b, "av%d[c]", w);
    else clf__sb_add(b, "LD_%s(b%d, o%d + %s)", clf__ex_dt_macro(lc->pl->arg[w].dt), w, w,
                     lc->pl->arg[w].per_line ? "line" : "j");
}

/* 1 when part p reads argument a. */
static int part_reads(const red_plan *pl, int p, int a)
{
    for (int k = 0; pl->has_part[p] && k < pl->ex[p].nnames; k++)
        if (resolve(pl, p, k) == a)
            return 1;
    return 0;
}

/* 1 when argument a is a vector along the line (not a scalar, not one value a line) that the write pass reads. */
static int write_reads_vector(const red_plan *pl, int a)
{
    return !pl->arg[a].scalar && !pl->arg[a].per_line && part_reads(pl, RED_WRITE, a);
}

/* 1 when the write pass reads any vector along the line. */
static int write_reads_any_vector(const red_plan *pl)
{
    for (int a = 0; a < pl->nargs; a++)
        if (write_reads_vector(pl, a))
            return 1;
    return 0;
}

/* CLF_RED_ARGV: each vector along the line that write reads, VEC elements from j0 with one vector load (its
 * offset is a multiple of VEC: row_vec), instead of an element load per position; gathered element by element in
 * the aligned frame (LDA_* of cl/reduce.cl). */
static void gen_argv(clf__sbuf *b, const red_plan *pl)
{
    clf__sb_add(b, "#define CLF_RED_ARGV");
    for (int a = 0; a < pl->nargs; a++)
        if (write_reads_vector(pl, a))
            clf__sb_add(b, " \\\n    CT av%d[VEC]; UNPACK(av%d, 0, LDA_%s(b%d, o%d + j0));", a, a,
                        clf__ex_dt_macro(pl->arg[a].dt), a, a);
    clf__sb_add(b, "\n");
}

static void gen_part_as(clf__sbuf *b, const red_plan *pl, int p, int vec, const char *macro, const char *fin)
{
    load_ctx lc = {pl, p, vec};
    clf__sb_add(b, "#define %s", macro);
    clf__ex_emit(b, &pl->ex[p], pl->f64, " \\\n    ", red_load, &lc);
    clf__sb_add(b, " \\\n    ");
    clf__sb_add(b, fin, pl->ex[p].stmt[0].root);
    clf__sb_add(b, "\n");
}

static void gen_part(clf__sbuf *b, const red_plan *pl, int p, const char *macro, const char *fin)
{
    gen_part_as(b, pl, p, 0, macro, fin);
}

/* CLF_XK / CLF_YK of cl/reduce.cl: which vector load and store the row kernel uses. */
static int storage_kind(clf_dtype t) { return t == CLF_F32 ? 0 : t == CLF_F64 ? 1 : t == CLF_F16 ? 2 : 3; }

static clf_status gen_source(red_plan *pl)
{
    const clf_reduce_desc *d = &pl->d;
    const char *skeleton;
    clf_status s = clf__source("reduce.cl", &skeleton);
    if (s != CLF_SUCCESS)
        return s;
    clf__sbuf b = {0};
    clf__sb_add(&b, "#define CLF_X_T %s\n#define LDX(i) LD_%s(x, i)\n#define CLF_RED_PARAMS",
                clf__ex_dt_ctype(d->x_type), clf__ex_dt_macro(d->x_type));
    for (int a = 0; a < pl->nargs; a++) {
        if (pl->arg[a].scalar)
            clf__sb_add(&b, " const CT s%d,", a);
        else
            clf__sb_add(&b, " __global const %s *b%d, const idx_t o%d,", clf__ex_dt_ctype(pl->arg[a].dt), a, a);
    }
    if (d->out)
        clf__sb_add(&b, " __global %s *out, const idx_t oo,", clf__ex_dt_ctype(d->out_type));
    if (d->write)
        clf__sb_add(&b, " __global %s *y, const idx_t yo, const idx_t ldy,", clf__ex_dt_ctype(d->y_type));
    const clf_dtype yt = d->write ? d->y_type : CLF_F32;
    clf__sb_add(&b, "\n#define STO(i, v) ST_%s(out, i, v)\n#define STY(i, v) ST_%s(y, i, v)\n",
                clf__ex_dt_macro(d->out ? d->out_type : CLF_F32), clf__ex_dt_macro(yt));
    clf__sb_add(&b, "#define CLF_Y_T %s\n#define STY_ONE(p, i, v) ST_%s(p, i, v)\n", clf__ex_dt_ctype(yt),
                clf__ex_dt_macro(yt));
    clf__sb_add(&b, "#define CLF_XK %d\n#define CLF_YK %d\n", storage_kind(d->x_type),
                storage_kind(d->write ? d->y_type : CLF_F32));
    gen_part(&b, pl, RED_PRE, "CLF_RED_PRE", "pv = t%d;");
    gen_part_as(&b, pl, RED_PRE, 2, "CLF_RED_PREW", "pv = t%d;");
    gen_part(&b, pl, RED_POST, "CLF_RED_POST", "po = t%d;");
    if (d->write) {   /* the row kernel's whole vectors take the value (wv) and store it with its neighbours */
        gen_part(&b, pl, RED_WRITE, "CLF_RED_WRITE", "STY(ELEM(yo, ldy, line, j), t%d);");
        gen_part_as(&b, pl, RED_WRITE, 1, "CLF_RED_WRITEV", "wv = t%d;");
        gen_part_as(&b, pl, RED_WRITE, 2, "CLF_RED_WRITEW", "wv = t%d;");
        gen_argv(&b, pl);
    }
    clf__sb_add(&b, "%s", skeleton);
    if (b.oom) {
        free(b.s);
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "clf_reduce: out of memory generating the kernel");
    }
    pl->src = b.s;
    return CLF_SUCCESS;
}

void clf__red_plan_free(red_plan *pl)
{
    for (int p = 0; p < RED_NPARTS; p++)
        clf__expr_free(&pl->ex[p]);
    free(pl->src);
    pl->src = NULL;
}

static clf_status parse_parts(red_plan *pl)
{
    const char *text[RED_NPARTS] = {pl->d.pre ? pl->d.pre : "x", pl->d.post ? pl->d.post : "r", pl->d.write};
    for (int p = 0; p < RED_NPARTS; p++) {
        if (!text[p])
            continue;
        pl->has_part[p] = 1;
        clf_status s = parse_part(p, text[p], &pl->ex[p]);
        if (s != CLF_SUCCESS)
            return s;
    }
    return CLF_SUCCESS;
}

static void plan_work(red_plan *pl)
{
    const clf_reduce_desc *d = &pl->d;
    double elems = (double)pl->lines * (double)pl->len;
    pl->bytes = elems * (double)clf__dtype_size(d->x_type) * (d->write ? 2 : 1);   /* write re-reads x: cached */
    if (d->write)
        pl->bytes += elems * ((double)clf__dtype_size(d->y_type) - (double)clf__dtype_size(d->x_type));
    if (d->out)
        pl->bytes += (double)pl->lines * (double)clf__dtype_size(d->out_type);
    pl->flops = elems * (pl->ex[RED_PRE].nops + 1 + (d->write ? pl->ex[RED_WRITE].nops : 0));
    pl->fallback = pl->strided ? "cols" : pl->len < 512 ? "short" : "rows";
    /* Contiguous lines with a write pass go to the row kernel when they fit its registers (clf_reduce). */
    pl->bucket = d->write && !pl->strided ? "fused" : pl->fallback;
}

clf_status clf__red_plan_make(clf_context *ctx, const clf_reduce_desc *desc, const clf_map_arg *args, size_t nargs,
                              red_plan *pl)
{
    memset(pl, 0, sizeof *pl);
    if (!ctx || !desc)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: ctx and desc must be non-NULL");
    pl->d = *desc;
    clf_status s = check_desc(ctx, pl);
    if (s == CLF_SUCCESS)
        s = bind_args(ctx, pl, args, nargs);
    if (s == CLF_SUCCESS)
        s = parse_parts(pl);
    if (s == CLF_SUCCESS)
        s = check_names(pl);
    if (s == CLF_SUCCESS && pl->f64 && !ctx->info.fp64)
        s = clf__fail(CLF_ERR_UNSUPPORTED, "clf_reduce: %s has no fp64 support, and an f64 buffer needs it",
                      ctx->info.name);
    if (s == CLF_SUCCESS)
        s = gen_source(pl);
    if (s != CLF_SUCCESS) {
        clf__red_plan_free(pl);
        return s;
    }
    plan_work(pl);
    return CLF_SUCCESS;
}

/* Work-items per line: the configured team, but no wider than the line needs. */
static int team_width(const red_plan *pl, const clf__config *c)
{
    size_t need = (pl->len + (size_t)c->v[CLF__R_UNR] - 1) / (size_t)c->v[CLF__R_UNR];
    int lpl = 1;
    while (lpl < c->v[CLF__R_LPL] && (size_t)lpl < need)
        lpl *= 2;
    return lpl > c->v[CLF__R_WG] ? c->v[CLF__R_WG] : lpl;
}

/* The vectors along the line start at multiples of vec (CLF_RED_ARGV loads them by whole vectors). */
static int args_aligned(const red_plan *pl, size_t vec)
{
    for (int a = 0; a < pl->nargs; a++)
        if (!pl->arg[a].scalar && !pl->arg[a].per_line && pl->arg[a].off % vec)
            return 0;
    return 1;
}

/* The vectors of a line of nvec that a work-item of a team of lpl holds: at least one. */
static size_t row_vecs(size_t nvec, int lpl) { return nvec ? (nvec + (size_t)lpl - 1) / (size_t)lpl : 1; }

/* The elements of lines it holds: its vectors', twice that with the next line's (unr > 1). */
static size_t row_held(size_t nvec, int lpl, int vec, int unr)
{
    return row_vecs(nvec, lpl) * (size_t)vec * (unr > 1 ? 2u : 1u);
}

/* x, y and the vectors along the line start every line on a multiple of vec. */
static int lines_aligned(const red_plan *pl, size_t vec)
{
    const clf_reduce_desc *d = &pl->d;
    return !(d->x_off % vec || d->ldx % vec || d->y_off % vec || d->ldy % vec) && args_aligned(pl, vec);
}

/* cfg's VEC, narrowed until x and y start every line equally far past a multiple of it; *frame: 1 when that is not
 * 0 for every line, or the vectors along the line start elsewhere (the row kernel then reads each line in the
 * aligned frame around it, CLF_FRAME of cl/reduce.cl). Rows of 8191 floats had run one element a load, at 0.6 of
 * the aligned 8192's speed. */
static int row_vec(const red_plan *pl, const clf__config *c, int *frame)
{
    const clf_reduce_desc *d = &pl->d;
    /* $CLFORGE_REDUCE_FRAME=off: such lines run element by element, as before the frame (measurements) */
    int vec = c->v[CLF__R_VEC], framed = clf__env_rule_on("CLFORGE_REDUCE_FRAME", "off");
    *frame = 0;
    for (; vec > 1; vec /= 2) {   /* buffers themselves are aligned far beyond a vector */
        size_t v = (size_t)vec;
        if (lines_aligned(pl, v))
            return vec;
        if (framed && d->x_off % v == d->y_off % v && d->ldx % v == d->ldy % v) {
            *frame = 1;
            return vec;
        }
    }
    return 1;
}

/* The vectors that hold a line of len in the frame (one more where the line starts past a vector boundary). */
static size_t frame_vecs(size_t len, int vec, int frame)
{
    return (len + (size_t)(frame ? 2 * vec - 2 : vec - 1)) / (size_t)vec;
}

/* The configuration's WG is a floor: a line too long for its team widens the team, and the work-group with
 * it, up to wg_cap work-items (the H200's best for 8192-long lines, 128, would otherwise send 16384-long ones
 * to the generic kernel). */
static int row_geom(const red_plan *pl, const clf__config *c, int wg_cap, clf__red_row *g)
{
    const clf_reduce_desc *d = &pl->d;
    if (!d->write || pl->strided)
        return 0;
    int frame, vec = row_vec(pl, c, &frame), wg = c->v[CLF__R_WG] > wg_cap ? c->v[CLF__R_WG] : wg_cap;
    size_t nvec = frame_vecs(pl->len, vec, frame), cap = CLF__RED_ROW_BYTES / (pl->f64 ? 8 : 4);
    int lpl = 1, unr = c->v[CLF__R_UNR];
    while (lpl < c->v[CLF__R_LPL] && lpl < wg && (size_t)lpl < nvec)
        lpl *= 2;
    /* Half the team when that makes every work-item's vectors whole: a line of 768 is 192 vectors of 4, which
     * 128 work-items hold as 2 and 1 (half the team leaves the whole-line path), 64 as 3 each. H200, layer
     * norm of 65536 x 768: 3279 -> 4102 GB/s, softmax 4021 -> 4080; 16384 x 2304: 3723 -> 3910
     * (bench/results/h200/2026-12-02/reduce-shfl/run6.txt). */
    if (lpl >= 64 && nvec % (size_t)lpl && nvec % (size_t)(lpl / 2) == 0 && row_held(nvec, lpl / 2, vec, unr) <= cap)
        lpl /= 2;
    for (;;) {
        while (lpl < wg && row_held(nvec, lpl, vec, unr) > cap)
            lpl *= 2;   /* a wider team before giving up: the line fits in registers when the group does */
        if (row_held(nvec, lpl, vec, unr) <= cap) {
            g->vec = vec, g->lpl = lpl, g->nv = (int)row_vecs(nvec, lpl), g->unr = unr, g->frame = frame;
            g->wg = lpl > c->v[CLF__R_WG] ? lpl : c->v[CLF__R_WG];
            return 1;
        }
        if (unr == 1)
            return 0;
        unr = 1;   /* no room for the next line: one line per team */
    }
}

/* The storage types the line kernel loads and stores along a line (f64 only computes in double, which it
 * does not). */
static int line_storage(clf_dtype t) { return t == CLF_F32 || t == CLF_F16 || t == CLF_BF16; }

int clf__red_line_device(const clf_device_info *dev)
{
    return (dev->type & CL_DEVICE_TYPE_CPU) && !strstr(dev->platform, "rusticl") &&
           strncmp(dev->name, "llvmpipe", 8) != 0;
}

int clf__red_line_ok(const red_plan *pl, const clf__config *cfg, const clf_device_info *dev)
{
    const clf_reduce_desc *d = &pl->d;
    if (!clf__red_line_device(dev) || cfg->v[CLF__R_LPL] != 1 || pl->strided || pl->f64 ||
        !line_storage(d->x_type) || (d->write && !line_storage(d->y_type)))
        return 0;
    for (int a = 0; a < pl->nargs; a++)
        if (!pl->arg[a].scalar && !pl->arg[a].per_line && !line_storage(pl->arg[a].dt))
            return 0;
    return 1;
}

int clf__red_row_wg_max(const clf_device_info *dev)
{
    return dev->max_work_group && dev->max_work_group < CLF__RED_ROW_WG_MAX ? (int)dev->max_work_group
                                                                            : CLF__RED_ROW_WG_MAX;
}

int clf__red_row_geom(const red_plan *pl, const clf__config *c, const clf_device_info *dev, clf__red_row *g)
{
    return row_geom(pl, c, clf__red_row_wg_max(dev), g);
}

/* CLF_WSPLIT1 of cl/reduce.cl: a split line of single elements (VEC 1: not aligned) whose write reads vectors along
 * the line (g and b of a layer norm) is written 16 elements at a time, their values first, then their stores, so
 * that the loads of a batch are in flight together (between stores the compiler must assume y aliases them).
 * H200, GB/s, one-call layer norm 4096 x 50257: element by element 1711-1721, 4 at a time 2020, 8 2044, 16
 * 2046-2056; the softmax of the same lines (no such loads) lost 1.5% with it, and the unsplit row kernel lost on
 * every odd shape (8192 x 8191 softmax 2621 -> 2189, 16384 x 4095 3415 -> 2769, layer norm 2-8%), so only there
 * (bench/results/h200/2026-12-03/long-lines/reduce-ab/). */
static int wsplit1(const red_plan *pl, int split) { return split && write_reads_any_vector(pl) ? 16 : 0; }

/* CLF_STCS of cl/reduce.cl: y stored with the streaming cache hint (evict first) on NVIDIA GPUs, for split lines
 * and for unsplit lines of at least STCS_MIN_LEN in the aligned frame whose write reads vectors along the line
 * (gathered element by element there: g and b of a layer norm, which stay in the cache while y streams past).
 * H200, GB/s, plain stores -> .cs (bench/results/h200/2026-12-03/reduce-frame/): layer norm 8192 x 8191 3065 ->
 * 3487, 16384 x 4095 3507 -> 3779, and on shapes drawn after the rule (run2-stcs-ab.txt) 8192 x 4097 3260 -> 3526,
 * 4096 x 6143 2713 -> 2741; shorter lines lost up to 2% (30000 x 999, 20000 x 1537, 12288 x 2049; 4096 x 3001 varied
 * by 30% between rounds either way); softmax and aligned unsplit lines gained nothing (within 2%); the loads of x
 * with the same hint lost up to 10%. */
#define STCS_MIN_LEN 4000
static int stcs(const red_plan *pl, const clf__red_row *rg, int split, int nv_gpu)
{
    if (!nv_gpu || !rg)
        return 0;
    if (split)   /* softmax 2048 x 32768 2776 -> 2909, 4096 x 50257 2788 -> 2831, and on shapes drawn after the rule
                  * (run5-stcs-split-ab.txt) 3000 x 40000 2803 -> 2910, 1024 x 65537 2684 -> 2719; layer norm within
                  * 0.5% either way */
        return 1;
    return rg->frame && pl->len >= STCS_MIN_LEN && write_reads_any_vector(pl);
}

/* The -D options of one build: the family's parameters, then what the plan fixes (rg: the row kernel's).
 * fast (NVIDIA devices): fp32 builds with -cl-unsafe-math-optimizations. exp, log and division become the
 * hardware's approximations (within about 2 ulp) and sums may be reassociated; NaN and infinities keep their
 * meaning (the option does not assume finite math). The H200's one-call softmax of 8192 x 8192 went from 3057
 * to 3933 GB/s (torch.compile: 3555), -cl-denorms-are-zero and -cl-finite-math-only alone changed nothing
 * (bench/results/h200/2026-12-01/thin-staged/final.txt). Measured on NVIDIA only, so only there. */
static clf_status build_options(const red_plan *pl, const clf__config *c, const clf__red_row *rg, int linek,
                                int split, int fast, int nv_gpu, char *opts, size_t cap)
{
    clf_status s = clf__config_options(&clf__family_reduce, c, opts, cap);
    if (s != CLF_SUCCESS)
        return s;
    int cache = 0;   /* generic kernel with a write pass: lines of up to 32 elements per work-item stay in registers */
    size_t need = (pl->len + (size_t)c->v[CLF__R_LPL] - 1) / (size_t)c->v[CLF__R_LPL];
    while (!rg && !linek && pl->d.write && need <= 32 && (size_t)cache < need)
        cache = cache ? cache * 2 : 1;
    size_t len = strlen(opts);
    snprintf(opts + len, cap - len, " -DCLF_F64=%d -DCLF_STRIDED=%d -DCLF_OP=%d -DCLF_HAS_OUT=%d -DCLF_HAS_Y=%d "
             "-DCLF_CACHE=%d -DCLF_IDX=%s -DCLF_ROWK=%d -DNV=%d -DCLF_LINEK=%d -DCLF_SPLIT=%d -DCLF_WSPLIT1=%d "
             "-DCLF_FRAME=%d -DCLF_STCS=%d",
             pl->f64, pl->strided, (int)pl->d.op, pl->d.out != NULL, pl->d.write != NULL, cache,
             pl->idx64 ? "ulong" : "uint", rg != NULL, rg ? rg->nv : 1, linek, split, wsplit1(pl, split),
             rg ? rg->frame : 0, stcs(pl, rg, split, nv_gpu));
    if (fast && !pl->f64) {
        len = strlen(opts);
        snprintf(opts + len, cap - len, " -cl-unsafe-math-optimizations");
    }
    if (nv_gpu) {   /* inline PTX: the lanes of a line meet by warp shuffles (cl/reduce.cl, CLF_SHFL) */
        len = strlen(opts);
        snprintf(opts + len, cap - len, " -DCLF_NV=1");
    }
    if (strlen(opts) + 1 >= cap)   /* a cut option would build another kernel than the one planned */
        return clf__fail(CLF_ERR_INTERNAL, "clf_reduce: build options longer than %zu bytes", cap - 1);
    return CLF_SUCCESS;
}

/* The kernel of one build with c (rg: the row kernel's shape, NULL for the generic or line kernel), from the
 * program cache; *kmax: the work-group it can take (0 when the driver does not say). */
static clf_status take_kernel(clf_context *ctx, const red_plan *pl, const clf__config *c, const clf__red_row *rg,
                              int linek, int split, cl_kernel *k, size_t *kmax)
{
    char opts[400] = "";
    const int nv = clf__device_is_nvidia(&ctx->info);
    clf_status s = build_options(pl, c, rg, linek, split, nv, nv && (ctx->info.type & CL_DEVICE_TYPE_GPU), opts,
                                 sizeof opts);
    if (s == CLF_SUCCESS)
        s = clf__kernel_take(ctx, pl->src, opts, "clf_reduce", k);
    if (s != CLF_SUCCESS)
        return s;
    *kmax = 0;
    clGetKernelWorkGroupInfo(*k, ctx->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof *kmax, kmax, NULL);
    return CLF_SUCCESS;
}

/* Builds with cfg, halving the work-group while the kernel cannot take it. *rowk: the row kernel is wanted;
 * cleared when halving leaves the line too long for it (the generic kernel then runs with c). */
static clf_status red_build(clf_context *ctx, const red_plan *pl, int linek, int *rowk, clf__config *c,
                            cl_kernel *k)
{
    int wg_cap = clf__red_row_wg_max(&ctx->info);   /* a work-group the device cannot take would not build */
    for (;;) {
        clf__red_row rg;
        if (*rowk && !row_geom(pl, c, wg_cap, &rg))
            *rowk = 0;
        if (*rowk)   /* VEC, unread by the generic kernel, is pinned there so that equal kernels share a program */
            c->v[CLF__R_WG] = rg.wg, c->v[CLF__R_LPL] = rg.lpl, c->v[CLF__R_VEC] = rg.vec, c->v[CLF__R_UNR] = rg.unr;
        else
            c->v[CLF__R_LPL] = team_width(pl, c), c->v[CLF__R_VEC] = 1;
        size_t kmax;
        clf_status s = take_kernel(ctx, pl, c, *rowk ? &rg : NULL, linek, 0, k, &kmax);
        if (s != CLF_SUCCESS)
            return s;
        if (kmax == 0 || kmax >= (size_t)c->v[CLF__R_WG] || c->v[CLF__R_WG] <= 32)
            return CLF_SUCCESS;
        clf__kernel_give(ctx, *k);
        *k = NULL;
        c->v[CLF__R_WG] /= 2;
        wg_cap = c->v[CLF__R_WG];   /* the row kernel may not widen past what the device took */
    }
}

/* A split launch's arguments after y's (cl/reduce.cl, SPLIT_PARAMS). */
typedef struct split_args {
    cl_mem buf;
    cl_uint tbase, sst_off, epoch, nch, blk;
} split_args;

static clf_status set_args(const red_plan *pl, cl_kernel k, int idx64, const split_args *sp)
{
    clf__ew_geom g = {.idx64 = idx64};
    const clf_reduce_desc *d = &pl->d;
    cl_uint a = 0;
    clf_status s = clf__ew_arg(k, a++, sizeof d->x, &d->x, "clf_reduce");
    size_t idx[4] = {d->x_off, d->ldx, pl->lines, pl->len};
    for (int i = 0; i < 4 && s == CLF_SUCCESS; i++)
        s = clf__ew_index(k, a++, &g, idx[i], "clf_reduce");
    for (int i = 0; i < pl->nargs && s == CLF_SUCCESS; i++) {
        const red_arg *r = &pl->arg[i];
        float f = (float)r->value;
        if (r->scalar)
            s = pl->f64 ? clf__ew_arg(k, a++, sizeof r->value, &r->value, "clf_reduce")
                        : clf__ew_arg(k, a++, sizeof f, &f, "clf_reduce");
        else if ((s = clf__ew_arg(k, a++, sizeof r->mem, &r->mem, "clf_reduce")) == CLF_SUCCESS)
            s = clf__ew_index(k, a++, &g, r->off, "clf_reduce");
    }
    if (d->out && s == CLF_SUCCESS && (s = clf__ew_arg(k, a++, sizeof d->out, &d->out, "clf_reduce")) == CLF_SUCCESS)
        s = clf__ew_index(k, a++, &g, d->out_off, "clf_reduce");
    if (d->write && s == CLF_SUCCESS && (s = clf__ew_arg(k, a++, sizeof d->y, &d->y, "clf_reduce")) == CLF_SUCCESS) {
        s = clf__ew_index(k, a++, &g, d->y_off, "clf_reduce");
        if (s == CLF_SUCCESS)
            s = clf__ew_index(k, a++, &g, d->ldy, "clf_reduce");
    }
    if (sp && s == CLF_SUCCESS) {
        const cl_uint *w[] = {&sp->tbase, &sp->sst_off, &sp->epoch, &sp->nch, &sp->blk};
        s = clf__ew_arg(k, a++, sizeof sp->buf, &sp->buf, "clf_reduce");
        for (int i = 0; i < 5 && s == CLF_SUCCESS; i++)
            s = clf__ew_arg(k, a++, sizeof *w[i], w[i], "clf_reduce");
    }
    int zero = 0;
    return s == CLF_SUCCESS ? clf__ew_arg(k, a, sizeof zero, &zero, "clf_reduce") : s;
}

clf_status clf__red_plan_launch(clf_context *ctx, const red_plan *pl, const clf__config *cfg, int rowk,
                                cl_event *done)
{
    clf__config c = *cfg;
    cl_kernel k;
    const int linek = clf__red_line_ok(pl, cfg, &ctx->info);
    if (linek)
        rowk = 0;
    clf_status s = red_build(ctx, pl, linek, &rowk, &c, &k);
    if (s != CLF_SUCCESS)
        return s;
    s = set_args(pl, k, pl->idx64, NULL);
    size_t per = (size_t)(c.v[CLF__R_WG] / c.v[CLF__R_LPL]) * (size_t)(rowk ? c.v[CLF__R_UNR] : 1);   /* lines */
    size_t local = (size_t)c.v[CLF__R_WG], global = (pl->lines + per - 1) / per * local;
    clf__work w = {"reduce", pl->flops, pl->bytes};
    if (s == CLF_SUCCESS)
        s = clf__enqueue(ctx, k, 1, &global, &local, &w, done);
    clf__kernel_give(ctx, k);
    return s;
}

/* ---- Lines split across work-groups (cl/reduce.cl, CLF_SPLIT) ------------------------------------------------
 * The row kernel holds a line in one group's registers; a line longer than its configured group holds widens the
 * group (up to 1024 work-items), and then one group fills a compute unit and nothing overlaps its loads with its
 * reduction and stores: lines of 32768 floats ran at half of copy speed on the H200. A split launch cuts each line
 * into nch chunks of the configured group's size, two passes in one launch: pass 1 publishes each chunk's state,
 * pass 2 merges the line's states and writes its chunk, reading it again one block of chunks later, from L2. */

/* $CLFORGE_REDUCE_SPLIT: "off" never splits, "on" splits every line longer than one group's chunk, on any device
 * (for tests and measurements; CPU drivers run it too, slowly), unset or "auto" as split_plan says; another value
 * warns once and counts as "auto". */
static int split_env(void)
{
    int w = clf__env_word("CLFORGE_REDUCE_SPLIT", "auto on off");
    return w == 2 ? 1 : w == 3 ? -1 : 0;
}

/* Chunks a block (split_task in cl/reduce.cl; rounded to whole lines): $CLFORGE_REDUCE_SPLIT_BLOCK (1 to 1048576),
 * else two groups a compute unit, one for the moments (layer norm). A block's chunks are read again after the next
 * block's first reads: smaller blocks find more of them in L2, larger ones wait less for their first pass. H200
 * (WG=128 groups), GB/s of the one-call softmax / layer norm by block, 2048 x 32768: 132 2639 / 2780, 198 2712 /
 * 2968, 264 2774 / 2582, 528 2741 / 2530, 1056 2534 / 2362; 512 x 152064: 132 2379 / 2717, 264 2761 / 2604, 528
 * 2673 / 2398 (bench/results/h200/2026-12-03/long-lines/); again, 132 / 264 / 528: 2048 x 32768 softmax 2666 /
 * 2797 / 2739, layer norm 2802 / 2572 / 2516; 4096 x 24576 softmax 2731 / 2850 / 2765, layer norm 2850 / 2590 /
 * 2559; 4096 x 50257 layer norm 1720 / 1701 / 1052 (long-lines/run-configs/). */
static size_t split_block(const clf_context *ctx, clf_reduce_op op)
{
    long v;
    if (clf__env_long("CLFORGE_REDUCE_SPLIT_BLOCK", 1, 1048576, &v) > 0)
        return (size_t)v;
    return (op == CLF_REDUCE_MOMENTS ? 1 : 2) * (size_t)(ctx->info.compute_units ? ctx->info.compute_units : 1);
}

typedef struct red_split {
    clf__red_row g;   /* one chunk a group: lpl = wg, unr 1 */
    size_t nch, blk;
} red_split;

/* Splits lines of at least SPLIT_CHUNKS_MIN chunks by default (NVIDIA GPUs, where the flags' acquire and release are
 * inline PTX and where it was measured): lines of 16384 floats, which the row kernel holds in groups of 256,
 * ran as fast unsplit (H200, 4096 x 16384: 3933 GB/s). */
#define SPLIT_CHUNKS_MIN 3

/* 1 when pl's lines are to be split under cfg (the fused bucket's) on ctx's device; *sp: the chunks. */
static int split_plan(const clf_context *ctx, const red_plan *pl, const clf__config *cfg, red_split *sp)
{
    int env = split_env();
    if (env < 0 || !pl->d.write || pl->strided || pl->lines == 0)
        return 0;
    if (env == 0 && !((ctx->info.type & CL_DEVICE_TYPE_GPU) && clf__device_is_nvidia(&ctx->info)))
        return 0;
    int frame, vec = row_vec(pl, cfg, &frame), team = cfg->v[CLF__R_WG];
    size_t cap = CLF__RED_ROW_BYTES / (pl->f64 ? 8 : 4), per = (size_t)team * (cap / (size_t)vec);
    size_t flen = frame_vecs(pl->len, vec, frame);   /* in vectors from here */
    size_t nch = (flen + per - 1) / per;
    if (nch < (env > 0 ? 2u : SPLIT_CHUNKS_MIN) || nch > (size_t)team)   /* pass 2 merges a line's states in red[] */
        return 0;
    size_t nv = (flen + nch * (size_t)team - 1) / (nch * (size_t)team);
    sp->g = (clf__red_row){vec, team, (int)nv, 1, team, frame};
    sp->nch = nch;
    sp->blk = split_block(ctx, pl->d.op);
    return 1;
}

/* The split launch of sp; *taken 0 (nothing enqueued) when the device cannot run the chunk's group. */
static clf_status split_launch(clf_context *ctx, const red_plan *pl, const clf__config *cfg, const red_split *sp,
                               int *taken, cl_event *done)
{
    *taken = 0;
    clf__config c = *cfg;
    c.v[CLF__R_WG] = c.v[CLF__R_LPL] = sp->g.wg, c.v[CLF__R_VEC] = sp->g.vec, c.v[CLF__R_UNR] = 1;
    cl_kernel k = NULL;
    size_t kmax;
    clf_status s = take_kernel(ctx, pl, &c, &sp->g, 0, 1, &k, &kmax);
    if (s != CLF_SUCCESS)
        return s;
    if (kmax < (size_t)sp->g.wg) {
        clf__kernel_give(ctx, k);
        return CLF_SUCCESS;
    }
    *taken = 1;
    /* whole lines a block: a pass-2 group waits for its line's chunks, which must all be in pass 1 of its block */
    size_t ntask = pl->lines * sp->nch, blk = (sp->blk + sp->nch / 2) / sp->nch * sp->nch;
    blk = blk < sp->nch ? sp->nch : blk < ntask ? blk : ntask;
    size_t nb = (ntask + blk - 1) / blk, groups = blk + 2 * blk * nb, flag_bytes = 32 + (ntask * 4 + 31) / 32 * 32;
    size_t bytes = flag_bytes + ntask * 32;   /* the ticket counter, flags, states (at most 24 bytes: fp64 moments) */
    if (groups > (size_t)UINT_MAX) {   /* tickets are 32-bit (a chunk is at least 64 elements: far from it) */
        clf__kernel_give(ctx, k);
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_reduce: %zu lines of %zu chunks are too many to split", pl->lines,
                         sp->nch);
    }
    cl_mem buf;
    int fresh;   /* a new buffer, zeroed: the counter from 0, and no flag holds an epoch by chance */
    s = clf__scratch_take_zeroed(ctx, &ctx->red_split, bytes, "clf_reduce split flags", &buf, &fresh);
    if (s == CLF_SUCCESS) {
        if (fresh)
            ctx->red_split_groups = 0;
        cl_uint epoch = clf__launch_epoch(32);   /* a flag from an earlier launch never equals this one's */
        split_args a = {buf, ctx->red_split_groups, (cl_uint)(flag_bytes / 4), epoch, (cl_uint)sp->nch, (cl_uint)blk};
        s = set_args(pl, k, pl->idx64, &a);
        size_t local = (size_t)sp->g.wg, global = groups * local;
        clf__work w = {"reduce", pl->flops, pl->bytes};
        if (s == CLF_SUCCESS)
            s = clf__enqueue(ctx, k, 1, &global, &local, &w, done);
        if (s == CLF_SUCCESS)   /* every group takes a ticket (the counter wraps with unsigned arithmetic) */
            ctx->red_split_groups += (unsigned)groups;
        clf__scratch_give(&ctx->red_split);
    }
    clf__kernel_give(ctx, k);
    return s;
}

clf_status clf_reduce(clf_context *ctx, const clf_reduce_desc *desc, const clf_map_arg *args, size_t nargs,
                      cl_event *done)
{
    red_plan pl;
    if (done)
        *done = NULL;
    clf_status s = clf__red_plan_make(ctx, desc, args, nargs, &pl);
    if (s != CLF_SUCCESS)
        return s;
    if (pl.lines == 0) {
        s = clf__ew_marker(ctx, done, "clf_reduce with no lines");
    } else {
        clf__config cfg;
        clf__red_row rg;
        clf_dtype dt = pl.f64 ? CLF_F64 : CLF_F32;
        s = clf__config_resolve(ctx, &clf__family_reduce, dt, pl.bucket, &cfg, NULL);
        red_split sp;
        int taken = 0;
        if (s == CLF_SUCCESS && !strcmp(pl.bucket, "fused") && split_plan(ctx, &pl, &cfg, &sp))
            s = split_launch(ctx, &pl, &cfg, &sp, &taken, done);
        if (s != CLF_SUCCESS || taken) {
            clf__red_plan_free(&pl);
            return s;
        }
        int linek = s == CLF_SUCCESS && clf__red_line_ok(&pl, &cfg, &ctx->info);
        int rowk = s == CLF_SUCCESS && !linek && !strcmp(pl.bucket, "fused") &&
                   clf__red_row_geom(&pl, &cfg, &ctx->info, &rg);
        if (s == CLF_SUCCESS && !rowk && !linek && strcmp(pl.bucket, pl.fallback))   /* too long for the row kernel */
            s = clf__config_resolve(ctx, &clf__family_reduce, dt, pl.fallback, &cfg, NULL);
        if (s == CLF_SUCCESS)
            s = clf__red_plan_launch(ctx, &pl, &cfg, rowk, done);
    }
    clf__red_plan_free(&pl);
    return s;
}
