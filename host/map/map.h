/* map.h — what map.c (plans: parse, bind, generate, launch) shares with map_family.c (the `map`
 * kernel family and its tuning hooks); both launch through elementwise.h, as copy.c does. */
#ifndef CLFORGE_MAP_H
#define CLFORGE_MAP_H

#include "elementwise.h"
#include "expr.h"

extern const clf__family clf__family_map, clf__family_copy;

/* One kernel parameter per expression name, in order of first appearance (so the argument array's
 * order never changes the generated program). */
typedef struct map_param {
    const char *name;
    int scalar, in, out;
    clf_dtype dt;        /* storage type of a buffer (f32, f64, f16, bf16) */
    cl_mem mem;
    size_t off;
    double value;
} map_param;

typedef struct map_plan {
    clf__expr ex;
    char *src;           /* generated source: parameter and body macros + cl/map.cl */
    int f64;             /* compute in double (some buffer is f64) */
    int half;            /* some buffer is 16-bit (f16 or bf16): tuned under the f16 key (unless f64) */
    int idx64;           /* indices need 64 bits */
    size_t n;
    int first_out;       /* name whose offset decides the aligned head */
    map_param p[CLF__EX_MAX_NAMES];
    double bytes, flops;
} map_plan;

/* A growable string for generated source; oom is set (and the text dropped) when memory runs out. */
typedef struct clf__sbuf { char *s; size_t len, cap; int oom; } clf__sbuf;
void clf__sb_add(clf__sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends one statement per node of e, each "<sep>const V t<i> = ...;", in evaluation order (operands
 * first), computing in double when f64. A load of name k is written by load(user, k, b). The kernel
 * defines V (number), B (condition), K (literal or scalar), SEL and whatever load writes. */
typedef void (*clf__ex_load_fn)(void *user, int name, clf__sbuf *b);
void clf__ex_emit(clf__sbuf *b, const clf__expr *e, int f64, const char *sep, clf__ex_load_fn load, void *user);
/* Suffix of the load/store macros of a storage type: "32", "64", "16" (IEEE half), "BF" (bfloat16), and the
 * OpenCL C type of its pointers ("float", "double", "half", "ushort"). */
const char *clf__ex_dt_macro(clf_dtype dt);
const char *clf__ex_dt_ctype(clf_dtype dt);

/* Parses expr, binds it to args and generates its source; on failure nothing is left to free. */
clf_status clf__map_plan_make(clf_context *ctx, const char *expr, size_t n, const clf_map_arg *args, size_t nargs,
                              map_plan *pl);
/* Builds (through the program cache) and enqueues the plan with one configuration. */
clf_status clf__map_plan_launch(clf_context *ctx, const map_plan *pl, const clf__config *cfg, cl_event *done);
void clf__map_plan_free(map_plan *pl);
/* The process-wide memo of generated sources (map_memo.c), keyed by expr and what pl's source depends on
 * besides it (bind done): find sets pl->src to a copy and returns 1 when it holds one; keep remembers
 * pl->src. */
int clf__map_memo_find(const char *expr, map_plan *pl);
void clf__map_memo_keep(const char *expr, const map_plan *pl);
/* The precision a plan's configuration is tuned under: f64 when it computes in double, f16 when every
 * buffer is 16-bit (f16 or bf16: twice the elements per byte moved), else f32. */
clf_dtype clf__map_key(const map_plan *pl);

#endif
