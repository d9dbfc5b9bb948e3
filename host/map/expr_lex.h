/* expr_lex.h — what the map-expression parser (expr.c) shares with its tokenizer (expr_lex.c): the
 * token, the parser state, and the lexer entry points. Private to those two files; libc only. */
#ifndef CLFORGE_EXPR_LEX_H
#define CLFORGE_EXPR_LEX_H

#include "expr.h"

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

/* Sets e->err to "line:col: message" unless an error is already set. */
#if defined(__GNUC__)
void clf__ex_fail(ps *p, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#else
void clf__ex_fail(ps *p, int line, int col, const char *fmt, ...);
#endif
/* Reads the next token into p->t. */
void clf__ex_next(ps *p);
/* Printable description of the current token for messages (in buf, or a literal). */
const char *clf__ex_tok_desc(const ps *p, char *buf, size_t cap);
/* The function named by s[0..len), or -1. */
int clf__ex_fn_lookup(const char *s, size_t len);

#endif
