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
    int scalar, f64, in, out;
    cl_mem mem;
    size_t off;
    double value;
} map_param;

typedef struct map_plan {
    clf__expr ex;
    char *src;           /* generated source: parameter and body macros + cl/map.cl */
    int f64;             /* compute in double (some buffer is f64) */
    int idx64;           /* indices need 64 bits */
    size_t n;
    int first_out;       /* name whose offset decides the aligned head */
    map_param p[CLF__EX_MAX_NAMES];
    double bytes, flops;
} map_plan;

/* Parses expr, binds it to args and generates its source; on failure nothing is left to free. */
clf_status clf__map_plan_make(clf_context *ctx, const char *expr, size_t n, const clf_map_arg *args, size_t nargs,
                              map_plan *pl);
/* Builds (through the program cache) and enqueues the plan with one configuration. */
clf_status clf__map_plan_launch(clf_context *ctx, const map_plan *pl, const clf__config *cfg, cl_event *done);
void clf__map_plan_free(map_plan *pl);

#endif
