/* expr_lex.c — tokenizer for map expressions: character classes, locale-independent numbers, tokens
 * and their descriptions, error messages, and the table of built-in functions. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* strtod_l */
#endif
#include "expr_lex.h"

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

int clf__ex_fn_lookup(const char *s, size_t len)
{
    for (int i = 0; i < CLF__FN_COUNT; i++)
        if (strlen(fn_table[i].name) == len && memcmp(fn_table[i].name, s, len) == 0)
            return i;
    return -1;
}

void clf__ex_fail(ps *p, int line, int col, const char *fmt, ...)
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

const char *clf__ex_tok_desc(const ps *p, char *buf, size_t cap)
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
            clf__ex_fail(p, p->line, p->col + (int)m, "expected digits in the exponent of a number");
            return;
        }
        while (is_digit(peekc(p, m))) m++;
        k = m;
    }
    if (is_alpha(peekc(p, k)) || peekc(p, k) == '.') {
        clf__ex_fail(p, p->line, p->col + (int)k, "unexpected character '%c' after number", peekc(p, k));
        return;
    }
    char buf[72];
    if (k >= sizeof buf) {
        clf__ex_fail(p, t->line, t->col, "number too long (limit %d characters)", (int)sizeof buf - 1);
        return;
    }
    memcpy(buf, p->s + p->pos, k);
    buf[k] = 0;
    int range = 0;
    t->num = to_double(buf, &range);
    if (range) {
        clf__ex_fail(p, t->line, t->col, "number '%s' is out of range", buf);
        return;
    }
    t->kind = T_NUM;
    t->len = k;
    advance(p, k);
}

void clf__ex_next(ps *p)
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
        clf__ex_fail(p, p->line, p->col, "unexpected character '%c'", c);
    else
        clf__ex_fail(p, p->line, p->col, "unexpected character '\\x%02x'", c);
    t->kind = T_END;
}
