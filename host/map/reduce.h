/* reduce.h — what reduce.c (clf_reduce: checks, code generation, launch) shares with reduce_family.c (the
 * `reduce` kernel family and its tuning problem). */
#ifndef CLFORGE_REDUCE_H
#define CLFORGE_REDUCE_H

#include "map.h"

extern const clf__family clf__family_reduce;

/* Parameter order of the reduce family. */
#define CLF__R_WG 0
#define CLF__R_LPL 1
#define CLF__R_UNR 2
#define CLF__R_VEC 3

/* Registers per work-item the row kernel may hold lines in (with UNR > 1 the current and the next one):
 * 64 floats or 32 doubles. */
#define CLF__RED_ROW_BYTES 256u

/* One bound argument of the expressions. */
typedef struct red_arg {
    const char *name;
    int scalar, per_line;   /* a vector indexed by line (else by position along the line) */
    clf_dtype dt;
    cl_mem mem;
    size_t off;
    double value;
    int used;
} red_arg;

enum { RED_PRE, RED_POST, RED_WRITE, RED_NPARTS };

typedef struct red_plan {
    clf_reduce_desc d;
    int strided;           /* lines are adjacent in memory, their elements ldx apart */
    size_t lines, len;
    int f64, idx64;
    clf__expr ex[RED_NPARTS];
    int has_part[RED_NPARTS];
    red_arg arg[CLF__EX_MAX_NAMES];
    int nargs;
    char *src;
    const char *bucket;    /* "fused" (contiguous lines with a write pass), else the fallback */
    const char *fallback;  /* "rows", "short" or "cols": the generic kernel's bucket */
    clf__span out_span, y_span;   /* for overlap checks against the vector arguments */
    double bytes, flops;
} red_plan;

/* Checks desc and args, parses the expressions and generates the source; nothing enqueued. On failure nothing
 * is left to free. */
clf_status clf__red_plan_make(clf_context *ctx, const clf_reduce_desc *desc, const clf_map_arg *args, size_t nargs,
                              red_plan *pl);
void clf__red_plan_free(red_plan *pl);
/* The row kernel's shape under cfg on dev: vector width (narrowed to what the alignment of x and y allows; frame 1
 * where lines start past a vector boundary and are read in the aligned frame around them),
 * work-items per line (narrowed to the line, widened to fit), vectors per work-item, lines per team (UNR, 1 when
 * the next line's registers do not fit beside the current one's), and the work-group: cfg's WG, widened with
 * the team for long lines up to clf__red_row_wg_max(dev). 0 when the plan has no write pass, its lines are
 * strided, or a line needs more than CLF__RED_ROW_BYTES per work-item even then. */
#define CLF__RED_ROW_WG_MAX 1024
typedef struct clf__red_row { int vec, lpl, nv, unr, wg, frame; } clf__red_row;
int clf__red_row_geom(const red_plan *pl, const clf__config *cfg, const clf_device_info *dev, clf__red_row *g);
/* The widest work-group the row kernel widens to on dev: CLF__RED_ROW_WG_MAX, or less where dev takes less. */
int clf__red_row_wg_max(const clf_device_info *dev);
/* 1 for the CPUs that take the line kernel: not Mesa's llvmpipe (rusticl), where a row of 1000003 was summed
 * only up to element 2^19, the 65536th vector (llvmpipe caps loops near there, as far as we can tell; a loop
 * split into blocks of 4096 vectors stopped at the same element). */
int clf__red_line_device(const clf_device_info *dev);
/* 1 when the plan runs on the line kernel under cfg on dev: a CPU, cfg's LPL of 1, contiguous lines, fp32
 * compute, x, y and the vectors along the line stored in f32, f16 or bf16 (a work-item per line, SIMD vectors
 * along it). */
int clf__red_line_ok(const red_plan *pl, const clf__config *cfg, const clf_device_info *dev);
/* Builds (program cache) and enqueues the plan with cfg: the line kernel where clf__red_line_ok, else the row
 * kernel when rowk and the line fits, else the generic one. */
clf_status clf__red_plan_launch(clf_context *ctx, const red_plan *pl, const clf__config *cfg, int rowk,
                                cl_event *done);

#endif
