/* expr.c — tokenizer and recursive-descent parser for map expressions, with bounded depth. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* strtod_l */
#endif
#include "expr.h"

#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; int arity; } fn_table[CLF__FN_COUNT] = {
    [CLF__FN_ABS] = {"abs", 1},     [CLF__FN_MIN] = {"min", 2},         [CLF__FN_MAX] = {"max", 2},
    [CLF__FN_EXP] = {"exp", 1},     [CLF__FN_LOG] = {"log", 1},         [CLF__FN_SQRT] = {"sqrt", 1},
    [CLF__FN_RSQRT] = {"rsqrt", 1}, [CLF__FN_TANH] = {"tanh", 1},       [CLF__FN_SIGMOID] = {"sigmoid", 1},
    [CLF__FN_RELU] = {"relu", 1},   [CLF__FN_GELU] = {"gelu", 1},       [CLF__FN_POW] = {"pow", 2},
    [CLF__FN_FMA] = {"fma", 3},     [CLF__FN_CLAMP] = {"clamp", 3},     [CLF__FN_WHERE] = {"where", 3},
    [CLF__FN_FLOOR] = {"floor", 1}, [CLF__FN_CEIL] = {"ceil", 1},
};

const char *clf__ex_fn_name(int fn) { return fn >= 0 && fn < CLF__FN_COUNT ? fn_table[fn].name : "?"; }
int clf__ex_fn_arity(int fn) { return fn >= 0 && fn < CLF__FN_COUNT ? fn_table[fn].arity : 0; }

static int fn_lookup(const char *s, size_t len)
{
    for (int i = 0; i < CLF__FN_COUNT; i++)
        if (strlen(fn_table[i].name) == len && memcmp(fn_table[i].name, s, len) == 0)
            return i;
    return -1;
}

/* Tokens. Two-character operators get one-letter codes. */
enum { T_END, T_NUM, T_NAME, T_OP };
enum { OP_LE = 'L', OP_GE = 'G', OP_EQ = 'E', OP_NE = 'N', OP_AND = 'A', OP_OR = 'O' };

typedef struct tok {
    int kind, op;
    size_t start, len;
    int line, col;
    double num;
} tok;

typedef struct ps {
    const char *s;
    size_t len, pos;
    int line, col;
    tok t;
    clf__expr *e;
    int depth;
    int failed;                       /* 0 ok, 1 error message set, 2 out of memory */
    int cur[CLF__EX_MAX_NAMES];       /* node holding each name's current value, -1 none yet */
} ps;

#if defined(__GNUC__)
static void fail(ps *p, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#endif
static void fail(ps *p, int line, int col, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = 1;
    int k = snprintf(p->e->err, sizeof p->e->err, "%d:%d: ", line, col);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->e->err + k, sizeof p->e->err - (size_t)k, fmt, ap);
    va_end(ap);
}

/* Printable description of the current token for messages. */
static const char *tok_desc(const ps *p, char *buf, size_t cap)
{
    const tok *t = &p->t;
    switch (t->kind) {
    case T_END: return "end of expression";
    case T_NUM: snprintf(buf, cap, "number '%.*s'", (int)(t->len < 24 ? t->len : 24), p->s + t->start); return buf;
    case T_NAME: snprintf(buf, cap, "name '%.*s'", (int)(t->len < 24 ? t->len : 24), p->s + t->start); return buf;
    default: snprintf(buf, cap, "'%.*s'", (int)t->len, p->s + t->start); return buf;
    }
}

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

static int peekc(const ps *p, size_t k) { return p->pos + k < p->len ? (unsigned char)p->s[p->pos + k] : -1; }

static void advance(ps *p, size_t k)
{
    p->pos += k;
    p->col += (int)k;
}

static locale_t c_locale;
static void make_c_locale(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

/* Decimal text to double independent of the process locale (a ',' locale must not change results). */
static double to_double(const char *text, int *range_error)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_c_locale);
    errno = 0;
    double v = c_locale ? strtod_l(text, NULL, c_locale) : strtod(text, NULL);
    *range_error = errno == ERANGE && (v > 1.0 || v < -1.0);
    return v;
}

static void lex_number(ps *p)
{
    tok *t = &p->t;
    size_t k = 0;
    while (is_digit(peekc(p, k))) k++;
    if (peekc(p, k) == '.') {
        k++;
        while (is_digit(peekc(p, k))) k++;
    }
    if (peekc(p, k) == 'e' || peekc(p, k) == 'E') {
        size_t m = k + 1;
        if (peekc(p, m) == '+' || peekc(p, m) == '-') m++;
        if (!is_digit(peekc(p, m))) {
            fail(p, p->line, p->col + (int)m, "expected digits in the exponent of a number");
            return;
        }
        while (is_digit(peekc(p, m))) m++;
        k = m;
    }
    if (is_alpha(peekc(p, k)) || peekc(p, k) == '.') {
        fail(p, p->line, p->col + (int)k, "unexpected character '%c' after number", peekc(p, k));
        return;
    }
    char buf[72];
    if (k >= sizeof buf) {
        fail(p, t->line, t->col, "number too long (limit %d characters)", (int)sizeof buf - 1);
        return;
    }
    memcpy(buf, p->s + p->pos, k);
    buf[k] = 0;
    int range = 0;
    t->num = to_double(buf, &range);
    if (range) {
        fail(p, t->line, t->col, "number '%s' is out of range", buf);
        return;
    }
    t->kind = T_NUM;
    t->len = k;
    advance(p, k);
}

/* Reads the next token into p->t. */
static void next(ps *p)
{
    for (;;) {
        int c = peekc(p, 0);
        if (c == ' ' || c == '\t' || c == '\r') {
            advance(p, 1);
        } else if (c == '\n') {
            p->pos++;
            p->line++;
            p->col = 1;
        } else {
            break;
        }
    }
    tok *t = &p->t;
    t->start = p->pos;
    t->line = p->line;
    t->col = p->col;
    t->len = 0;
    int c = peekc(p, 0);
    if (c < 0) {
        t->kind = T_END;
        return;
    }
    if (is_digit(c) || (c == '.' && is_digit(peekc(p, 1)))) {
        lex_number(p);
        return;
    }
    if (is_alpha(c)) {
        size_t k = 1;
        while (is_alpha(peekc(p, k)) || is_digit(peekc(p, k))) k++;
        t->kind = T_NAME;
        t->len = k;
        advance(p, k);
        return;
    }
    static const char two[][3] = {"<=", ">=", "==", "!=", "&&", "||"};
    static const char code[] = {OP_LE, OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR};
    for (int i = 0; i < 6; i++) {
        if (c == two[i][0] && peekc(p, 1) == two[i][1]) {
            t->kind = T_OP;
            t->op = code[i];
            t->len = 2;
            advance(p, 2);
            return;
        }
    }
    if (c && strchr("+-*/<>!?:(),=;", c)) {
        t->kind = T_OP;
        t->op = c;
        t->len = 1;
        advance(p, 1);
        return;
    }
    if (c >= 0x20 && c < 0x7f)
        fail(p, p->line, p->col, "unexpected character '%c'", c);
    else
        fail(p, p->line, p->col, "unexpected character '\\x%02x'", c);
    t->kind = T_END;
}

static int is_op(const ps *p, int op) { return !p->failed && p->t.kind == T_OP && p->t.op == op; }

static int add_node(ps *p, int op, int type, int line, int col)
{
    clf__expr *e = p->e;
    if (p->failed)
        return -1;
    if (e->nnodes >= CLF__EX_MAX_NODES) {
        fail(p, line, col, "expression too large (limit %d operations)", CLF__EX_MAX_NODES);
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
        fail(p, p->t.line, p->t.col, "expression nested too deeply (limit %d levels)", CLF__EX_MAX_DEPTH);
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
            fail(p, line, col, "%s must be a number, not a condition (use where(c, 1, 0))", what);
        else
            fail(p, line, col, "%s must be a condition (a comparison), not a number", what);
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
        fail(p, t->line, t->col, "name too long (limit %d characters)", CLF__EX_MAX_NAME);
        return -1;
    }
    for (int i = 0; i < e->nnames; i++)
        if (strlen(e->name[i]) == t->len && memcmp(e->name[i], p->s + t->start, t->len) == 0)
            return i;
    if (e->nnames >= CLF__EX_MAX_NAMES) {
        fail(p, t->line, t->col, "too many names (limit %d)", CLF__EX_MAX_NAMES);
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
    next(p);  /* past '(' */
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
            next(p);
        }
    }
    if (p->failed)
        return -1;
    if (!is_op(p, ')')) {
        char d[64];
        fail(p, p->t.line, p->t.col, "expected ')' after argument list, found %s", tok_desc(p, d, sizeof d));
        return -1;
    }
    int arity = fn_table[fn].arity;
    if (nargs != arity) {
        fail(p, name.line, name.col, "function '%s' takes %d argument%s, got %d", fn_table[fn].name, arity,
             arity == 1 ? "" : "s", nargs);
        return -1;
    }
    for (int i = 0; i < nargs; i++) {
        int want = (fn == CLF__FN_WHERE && i == 0) ? CLF__EX_T_BOOL : CLF__EX_T_NUM;
        char what[48];
        snprintf(what, sizeof what, "argument %d of '%s'", i + 1, fn_table[fn].name);
        if (!need(p, args[i], want, name.line, name.col, what))
            return -1;
    }
    next(p);
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
        next(p);
        return n;
    }
    if (t.kind == T_NAME) {
        int fn = fn_lookup(p->s + t.start, t.len);
        next(p);  /* '(' right after a name makes a call */
        if (is_op(p, '(')) {
            if (fn < 0) {
                fail(p, t.line, t.col, "unknown function '%.*s'", (int)(t.len < 40 ? t.len : 40), p->s + t.start);
                return -1;
            }
            return p_call(p, t, fn);
        }
        if (fn >= 0) {
            fail(p, t.line, t.col, "'%s' is a function: expected '(' after it", fn_table[fn].name);
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
        next(p);
        int x = p_ternary(p);
        if (x < 0)
            return -1;
        if (!is_op(p, ')')) {
            fail(p, p->t.line, p->t.col, "expected ')' to close '(' at %d:%d, found %s", t.line, t.col,
                 tok_desc(p, d, sizeof d));
            return -1;
        }
        next(p);
        return x;
    }
    fail(p, t.line, t.col, "expected a number, a name or '(', found %s", tok_desc(p, d, sizeof d));
    return -1;
}

static int p_unary(ps *p)
{
    if (is_op(p, '-') || is_op(p, '!') || is_op(p, '+')) {
        tok t = p->t;
        if (!enter(p))
            return -1;
        next(p);
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
        next(p);
        int y = p_level(p, level + 1);
        x = y < 0 ? -1 : binary(p, bin_ops[k].op, bin_ops[k].result, x, y, &t, bin_ops[k].operand);
        if (x >= 0 && level == LEVEL_CMP && bin_lookup(p, level) >= 0) {
            fail(p, p->t.line, p->t.col, "comparisons cannot be chained; combine them with '&&'");
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
        next(p);
        int x = ok ? p_ternary(p) : -1, y = -1;
        if (x >= 0 && !is_op(p, ':')) {
            char d[64];
            fail(p, p->t.line, p->t.col, "expected ':' in '?:' begun at %d:%d, found %s", q.line, q.col,
                 tok_desc(p, d, sizeof d));
            x = -1;
        }
        if (x >= 0) {
            next(p);
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
        fail(p, t.line, t.col, "expected an output name at the start of a statement, found %s", tok_desc(p, d, sizeof d));
        return;
    }
    int fn = fn_lookup(p->s + t.start, t.len);
    if (fn >= 0) {
        fail(p, t.line, t.col, "'%s' is a function and cannot be an output", fn_table[fn].name);
        return;
    }
    int k = name_index(p, &t);
    if (k < 0)
        return;
    if (e->is_output[k]) {
        fail(p, t.line, t.col, "output '%s' is assigned twice", e->name[k]);
        return;
    }
    next(p);
    if (!is_op(p, '=')) {
        fail(p, p->t.line, p->t.col, "expected '=' after output name '%s', found %s", e->name[k], tok_desc(p, d, sizeof d));
        return;
    }
    next(p);
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
        fail(&p, 1, 1, "expression too long (%zu characters; limit %d)", p.len, CLF__EX_MAX_LEN);
        return -1;
    }
    next(&p);
    if (!p.failed && p.t.kind == T_END)
        fail(&p, 1, 1, "empty expression: expected a statement such as 'y = x + 1'");
    while (!p.failed && p.t.kind != T_END) {
        p_stmt(&p);
        if (p.failed)
            break;
        if (is_op(&p, ';')) {
            next(&p);
        } else if (p.t.kind != T_END) {
            char d[64];
            fail(&p, p.t.line, p.t.col, "expected ';' or end of expression after a statement, found %s",
                 tok_desc(&p, d, sizeof d));
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
