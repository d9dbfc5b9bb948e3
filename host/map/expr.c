/* expr.c — recursive-descent parser for map expressions, with bounded depth (tokens: expr_lex.c). */
#include "expr_lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_op(const ps *p, int op) { return !p->failed && p->t.kind == T_OP && p->t.op == op; }

static int add_node(ps *p, int op, int type, int line, int col)
{
    clf__expr *e = p->e;
    if (p->failed)
        return -1;
    if (e->nnodes >= CLF__EX_MAX_NODES) {
        clf__ex_fail(p, line, col, "expression too large (limit %d operations)", CLF__EX_MAX_NODES);
        return -1;
    }
    if (e->nnodes == e->cap) {
        int cap = e->cap ? e->cap * 2 : 64;
        clf__ex_node *n = realloc(e->node, (size_t)cap * sizeof *n);
        if (!n) {
            p->failed = 2;
            return -1;
        }
        e->node = n;
        e->cap = cap;
    }
    clf__ex_node *n = &e->node[e->nnodes];
    memset(n, 0, sizeof *n);
    n->op = (unsigned char)op;
    n->type = (unsigned char)type;
    n->line = line;
    n->col = col;
    n->a[0] = n->a[1] = n->a[2] = -1;
    n->name = -1;
    if (op != CLF__EX_NUM && op != CLF__EX_LOAD)
        e->nops++;
    return e->nnodes++;
}

static int enter(ps *p)
{
    if (++p->depth > CLF__EX_MAX_DEPTH) {
        clf__ex_fail(p, p->t.line, p->t.col, "expression nested too deeply (limit %d levels)", CLF__EX_MAX_DEPTH);
        return 0;
    }
    return 1;
}

/* Checks that node x has type want; what names the construct for the message. */
static int need(ps *p, int x, int want, int line, int col, const char *what)
{
    if (x < 0 || p->failed)
        return 0;
    if (p->e->node[x].type != want) {
        if (want == CLF__EX_T_NUM)
            clf__ex_fail(p, line, col, "%s must be a number, not a condition (use where(c, 1, 0))", what);
        else
            clf__ex_fail(p, line, col, "%s must be a condition (a comparison), not a number", what);
        return 0;
    }
    return 1;
}

static int binary(ps *p, int op, int type, int x, int y, const tok *at, int operand_type)
{
    char what[48];
    snprintf(what, sizeof what, "operand of '%.*s'", (int)at->len, p->s + at->start);
    if (!need(p, x, operand_type, at->line, at->col, what) || !need(p, y, operand_type, at->line, at->col, what))
        return -1;
    int n = add_node(p, op, type, at->line, at->col);
    if (n >= 0) {
        p->e->node[n].a[0] = x;
        p->e->node[n].a[1] = y;
    }
    return n;
}

static int p_ternary(ps *p);

static int name_index(ps *p, const tok *t)
{
    clf__expr *e = p->e;
    if (t->len > CLF__EX_MAX_NAME) {
        clf__ex_fail(p, t->line, t->col, "name too long (limit %d characters)", CLF__EX_MAX_NAME);
        return -1;
    }
    for (int i = 0; i < e->nnames; i++)
        if (strlen(e->name[i]) == t->len && memcmp(e->name[i], p->s + t->start, t->len) == 0)
            return i;
    if (e->nnames >= CLF__EX_MAX_NAMES) {
        clf__ex_fail(p, t->line, t->col, "too many names (limit %d)", CLF__EX_MAX_NAMES);
        return -1;
    }
    memcpy(e->name[e->nnames], p->s + t->start, t->len);
    e->name[e->nnames][t->len] = 0;
    p->cur[e->nnames] = -1;
    return e->nnames++;
}

static int p_call(ps *p, tok name, int fn)
{
    int args[3] = {-1, -1, -1}, nargs = 0;
    clf__ex_next(p);  /* past '(' */
    if (!is_op(p, ')')) {
        for (;;) {
            int a = p_ternary(p);
            if (a < 0)
                return -1;
            if (nargs < 3)
                args[nargs] = a;
            nargs++;
            if (!is_op(p, ','))
                break;
            clf__ex_next(p);
        }
    }
    if (p->failed)
        return -1;
    if (!is_op(p, ')')) {
        char d[64];
        clf__ex_fail(p, p->t.line, p->t.col, "expected ')' after argument list, found %s",
                     clf__ex_tok_desc(p, d, sizeof d));
        return -1;
    }
    int arity = clf__ex_fn_arity(fn);
    if (nargs != arity) {
        clf__ex_fail(p, name.line, name.col, "function '%s' takes %d argument%s, got %d", clf__ex_fn_name(fn), arity,
                     arity == 1 ? "" : "s", nargs);
        return -1;
    }
    for (int i = 0; i < nargs; i++) {
        int want = (fn == CLF__FN_WHERE && i == 0) ? CLF__EX_T_BOOL : CLF__EX_T_NUM;
        char what[48];
        snprintf(what, sizeof what, "argument %d of '%s'", i + 1, clf__ex_fn_name(fn));
        if (!need(p, args[i], want, name.line, name.col, what))
            return -1;
    }
    clf__ex_next(p);
    int n = fn == CLF__FN_WHERE ? add_node(p, CLF__EX_SEL, CLF__EX_T_NUM, name.line, name.col)
                                : add_node(p, CLF__EX_CALL, CLF__EX_T_NUM, name.line, name.col);
    if (n >= 0) {
        clf__ex_node *x = &p->e->node[n];
        x->fn = (unsigned char)fn;
        x->nargs = (unsigned char)nargs;
        memcpy(x->a, args, sizeof args);
    }
    return n;
}

static int p_primary(ps *p)
{
    tok t = p->t;
    char d[64];
    if (p->failed)
        return -1;
    if (t.kind == T_NUM) {
        int n = add_node(p, CLF__EX_NUM, CLF__EX_T_NUM, t.line, t.col);
        if (n >= 0)
            p->e->node[n].num = t.num;
        clf__ex_next(p);
        return n;
    }
    if (t.kind == T_NAME) {
        int fn = clf__ex_fn_lookup(p->s + t.start, t.len);
        clf__ex_next(p);  /* '(' right after a name makes a call */
        if (is_op(p, '(')) {
            if (fn < 0) {
                clf__ex_fail(p, t.line, t.col, "unknown function '%.*s'", (int)(t.len < 40 ? t.len : 40),
                             p->s + t.start);
                return -1;
            }
            return p_call(p, t, fn);
        }
        if (fn >= 0) {
            clf__ex_fail(p, t.line, t.col, "'%s' is a function: expected '(' after it", clf__ex_fn_name(fn));
            return -1;
        }
        int k = name_index(p, &t);
        if (k < 0)
            return -1;
        if (p->cur[k] >= 0)
            return p->cur[k];
        int n = add_node(p, CLF__EX_LOAD, CLF__EX_T_NUM, t.line, t.col);
        if (n >= 0) {
            p->e->node[n].name = k;
            p->e->is_input[k] = 1;
            p->cur[k] = n;
        }
        return n;
    }
    if (is_op(p, '(')) {
        clf__ex_next(p);
        int x = p_ternary(p);
        if (x < 0)
            return -1;
        if (!is_op(p, ')')) {
            clf__ex_fail(p, p->t.line, p->t.col, "expected ')' to close '(' at %d:%d, found %s", t.line, t.col,
                         clf__ex_tok_desc(p, d, sizeof d));
            return -1;
        }
        clf__ex_next(p);
        return x;
    }
    clf__ex_fail(p, t.line, t.col, "expected a number, a name or '(', found %s", clf__ex_tok_desc(p, d, sizeof d));
    return -1;
}

static int p_unary(ps *p)
{
    if (is_op(p, '-') || is_op(p, '!') || is_op(p, '+')) {
        tok t = p->t;
        if (!enter(p))
            return -1;
        clf__ex_next(p);
        int x = p_unary(p);
        p->depth--;
        if (x < 0 || t.op == '+')
            return x;
        int neg = t.op == '-';
        if (!need(p, x, neg ? CLF__EX_T_NUM : CLF__EX_T_BOOL, t.line, t.col, neg ? "operand of '-'" : "operand of '!'"))
            return -1;
        int n = add_node(p, neg ? CLF__EX_NEG : CLF__EX_NOT, neg ? CLF__EX_T_NUM : CLF__EX_T_BOOL, t.line, t.col);
        if (n >= 0)
            p->e->node[n].a[0] = x;
        return n;
    }
    return p_primary(p);
}

/* Binary operators by precedence level, loosest first; comparisons (level 2) do not chain. */
static const struct { int tok, op, result, operand; } bin_ops[] = {
    {OP_OR, CLF__EX_OR, CLF__EX_T_BOOL, CLF__EX_T_BOOL}, {OP_AND, CLF__EX_AND, CLF__EX_T_BOOL, CLF__EX_T_BOOL},
    {'<', CLF__EX_LT, CLF__EX_T_BOOL, CLF__EX_T_NUM},    {OP_LE, CLF__EX_LE, CLF__EX_T_BOOL, CLF__EX_T_NUM},
    {'>', CLF__EX_GT, CLF__EX_T_BOOL, CLF__EX_T_NUM},    {OP_GE, CLF__EX_GE, CLF__EX_T_BOOL, CLF__EX_T_NUM},
    {OP_EQ, CLF__EX_EQ, CLF__EX_T_BOOL, CLF__EX_T_NUM},  {OP_NE, CLF__EX_NE, CLF__EX_T_BOOL, CLF__EX_T_NUM},
    {'+', CLF__EX_ADD, CLF__EX_T_NUM, CLF__EX_T_NUM},    {'-', CLF__EX_SUB, CLF__EX_T_NUM, CLF__EX_T_NUM},
    {'*', CLF__EX_MUL, CLF__EX_T_NUM, CLF__EX_T_NUM},    {'/', CLF__EX_DIV, CLF__EX_T_NUM, CLF__EX_T_NUM},
};
static const int level_first[] = {0, 1, 2, 8, 10, 12};  /* bin_ops[level_first[l] .. level_first[l+1]) */
#define LEVELS 5
#define LEVEL_CMP 2

static int bin_lookup(const ps *p, int level)
{
    if (p->failed || p->t.kind != T_OP)
        return -1;
    for (int i = level_first[level]; i < level_first[level + 1]; i++)
        if (bin_ops[i].tok == p->t.op)
            return i;
    return -1;
}

/* level := next-level (op next-level)*; recursion here is bounded by LEVELS per nesting level. */
static int p_level(ps *p, int level)
{
    if (level == LEVELS)
        return p_unary(p);
    int x = p_level(p, level + 1), k;
    while (x >= 0 && (k = bin_lookup(p, level)) >= 0) {
        tok t = p->t;
        clf__ex_next(p);
        int y = p_level(p, level + 1);
        x = y < 0 ? -1 : binary(p, bin_ops[k].op, bin_ops[k].result, x, y, &t, bin_ops[k].operand);
        if (x >= 0 && level == LEVEL_CMP && bin_lookup(p, level) >= 0) {
            clf__ex_fail(p, p->t.line, p->t.col, "comparisons cannot be chained; combine them with '&&'");
            return -1;
        }
    }
    return x;
}

/* ternary := or ['?' ternary ':' ternary]; every nesting passes through here or p_unary. */
static int p_ternary(ps *p)
{
    if (!enter(p))
        return -1;
    int c = p_level(p, 0);
    if (c >= 0 && is_op(p, '?')) {
        tok q = p->t;
        int ok = need(p, c, CLF__EX_T_BOOL, q.line, q.col, "condition of '?:'");
        clf__ex_next(p);
        int x = ok ? p_ternary(p) : -1, y = -1;
        if (x >= 0 && !is_op(p, ':')) {
            char d[64];
            clf__ex_fail(p, p->t.line, p->t.col, "expected ':' in '?:' begun at %d:%d, found %s", q.line, q.col,
                         clf__ex_tok_desc(p, d, sizeof d));
            x = -1;
        }
        if (x >= 0) {
            clf__ex_next(p);
            y = p_ternary(p);
        }
        int s = -1;
        if (y >= 0 && need(p, x, CLF__EX_T_NUM, q.line, q.col, "branch of '?:'") &&
            need(p, y, CLF__EX_T_NUM, q.line, q.col, "branch of '?:'"))
            s = add_node(p, CLF__EX_SEL, CLF__EX_T_NUM, q.line, q.col);
        if (s >= 0) {
            p->e->node[s].a[0] = c;
            p->e->node[s].a[1] = x;
            p->e->node[s].a[2] = y;
        }
        c = s;
    }
    p->depth--;
    return c;
}

/* stmt := name '=' ternary */
static void p_stmt(ps *p)
{
    clf__expr *e = p->e;
    tok t = p->t;
    char d[64];
    if (t.kind != T_NAME) {
        clf__ex_fail(p, t.line, t.col, "expected an output name at the start of a statement, found %s",
                     clf__ex_tok_desc(p, d, sizeof d));
        return;
    }
    int fn = clf__ex_fn_lookup(p->s + t.start, t.len);
    if (fn >= 0) {
        clf__ex_fail(p, t.line, t.col, "'%s' is a function and cannot be an output", clf__ex_fn_name(fn));
        return;
    }
    int k = name_index(p, &t);
    if (k < 0)
        return;
    if (e->is_output[k]) {
        clf__ex_fail(p, t.line, t.col, "output '%s' is assigned twice", e->name[k]);
        return;
    }
    clf__ex_next(p);
    if (!is_op(p, '=')) {
        clf__ex_fail(p, p->t.line, p->t.col, "expected '=' after output name '%s', found %s", e->name[k],
                     clf__ex_tok_desc(p, d, sizeof d));
        return;
    }
    clf__ex_next(p);
    int root = p_ternary(p);
    if (root < 0)
        return;
    char what[96];
    snprintf(what, sizeof what, "value assigned to '%s'", e->name[k]);
    if (!need(p, root, CLF__EX_T_NUM, t.line, t.col, what))
        return;
    e->is_output[k] = 1;
    e->stmt[e->nstmts].name = k;
    e->stmt[e->nstmts].root = root;
    e->nstmts++;
    p->cur[k] = root;
}

int clf__expr_parse(const char *text, size_t len, clf__expr *e)
{
    memset(e, 0, sizeof *e);
    ps p;
    memset(&p, 0, sizeof p);
    p.s = text ? text : "";
    p.len = text ? len : 0;
    p.line = p.col = 1;
    p.e = e;
    if (p.len > CLF__EX_MAX_LEN) {
        clf__ex_fail(&p, 1, 1, "expression too long (%zu characters; limit %d)", p.len, CLF__EX_MAX_LEN);
        return -1;
    }
    clf__ex_next(&p);
    if (!p.failed && p.t.kind == T_END)
        clf__ex_fail(&p, 1, 1, "empty expression: expected a statement such as 'y = x + 1'");
    while (!p.failed && p.t.kind != T_END) {
        p_stmt(&p);
        if (p.failed)
            break;
        if (is_op(&p, ';')) {
            clf__ex_next(&p);
        } else if (p.t.kind != T_END) {
            char d[64];
            clf__ex_fail(&p, p.t.line, p.t.col, "expected ';' or end of expression after a statement, found %s",
                         clf__ex_tok_desc(&p, d, sizeof d));
        }
    }
    if (p.failed == 2) {
        snprintf(e->err, sizeof e->err, "out of memory while parsing the expression");
        return -2;
    }
    return p.failed ? -1 : 0;
}

void clf__expr_free(clf__expr *e)
{
    if (!e)
        return;
    free(e->node);
    e->node = NULL;
    e->nnodes = e->cap = 0;
}
