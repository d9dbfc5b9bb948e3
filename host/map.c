/* map.c — clf_map: binds a parsed expression to buffers and scalars, generates the OpenCL C body that
 * cl/map.cl wraps, launches it; and the `map` kernel family (parameters, defaults, tuning hooks). */
#include "expr.h"
#include "family.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const clf__family clf__family_map;

#define P_VW 0
#define P_EPT 1
#define P_WG 2

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

/* ---- a growable string -------------------------------------------------------------------- */
typedef struct sbuf { char *s; size_t len, cap; int oom; } sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...)
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

/* A literal in the compute type, written so that it reads back exactly ("0.5f", "3.0"). */
static void literal(double v, int f64, char *buf, size_t cap)
{
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
                   pl->p[k].f64 ? "double" : "float", k, k);
    }
    sb_add(&b, "\n#define CLF_MAP_BODY");
    char lit[48];
    for (int i = 0; i < e->nnodes; i++) {
        const clf__ex_node *x = &e->node[i];
        sb_add(&b, " \\\n    const %s t%d = ", x->type == CLF__EX_T_BOOL ? "B" : "V", i);
        switch (x->op) {
        case CLF__EX_NUM:
            literal(x->num, pl->f64, lit, sizeof lit);
            sb_add(&b, "K(%s)", lit);
            break;
        case CLF__EX_LOAD:
            if (pl->p[x->name].scalar)
                sb_add(&b, "K(s%d)", x->name);
            else
                sb_add(&b, "LD%s(b%d, o%d)", pl->p[x->name].f64 ? "64" : "32", x->name, x->name);
            break;
        case CLF__EX_NEG: sb_add(&b, "-t%d", x->a[0]); break;
        case CLF__EX_NOT: sb_add(&b, "!t%d", x->a[0]); break;
        case CLF__EX_SEL: sb_add(&b, "SEL(t%d, t%d, t%d)", x->a[0], x->a[1], x->a[2]); break;
        case CLF__EX_CALL: gen_call(&b, x, pl->f64); break;
        default: sb_add(&b, "t%d %s t%d", x->a[0], bin_op(x->op), x->a[1]); break;
        }
        sb_add(&b, ";");
    }
    for (int i = 0; i < e->nstmts; i++) {
        int k = e->stmt[i].name;
        sb_add(&b, " \\\n    ST%s(b%d, o%d, t%d);", pl->p[k].f64 ? "64" : "32", k, k, e->stmt[i].root);
    }
    sb_add(&b, "\n%s", skeleton);
    if (b.oom) {
        free(b.s);
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "clf_map: out of memory generating the kernel");
    }
    pl->src = b.s;
    return CLF_SUCCESS;
}

/* The buffer a cl_mem lives in and its byte offset there (sub-buffers resolve to their parent). */
static cl_mem mem_root(cl_mem m, size_t *base)
{
    cl_mem parent = NULL;
    size_t off = 0;
    *base = 0;
    if (clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) == CL_SUCCESS && parent &&
        clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof off, &off, NULL) == CL_SUCCESS) {
        *base = off;
        return parent;
    }
    return m;
}

/* Outputs may alias an input element for element; any other overlap with an output is an error. */
static clf_status check_overlap(const map_plan *pl)
{
    const clf__expr *e = &pl->ex;
    for (int i = 0; i < e->nnames; i++) {
        const map_param *a = &pl->p[i];
        if (!a->out || a->scalar)
            continue;
        size_t abase, asz = a->f64 ? 8 : 4;
        cl_mem ar = mem_root(a->mem, &abase);
        size_t a0 = abase + a->off * asz, a1 = a0 + pl->n * asz;
        for (int j = 0; j < e->nnames; j++) {
            const map_param *b = &pl->p[j];
            if (j == i || b->scalar || (b->out && j < i))
                continue;
            size_t bbase, bsz = b->f64 ? 8 : 4;
            if (mem_root(b->mem, &bbase) != ar)
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
            if (args[a].dtype != CLF_F32 && args[a].dtype != CLF_F64)
                return clf__fail(CLF_ERR_UNSUPPORTED, "clf_map: buffer '%s' has storage type %s; map supports f32 and f64",
                                 args[a].name, clf__dtype_name(args[a].dtype));
            p->f64 = args[a].dtype == CLF_F64;
            p->mem = args[a].buffer;
            p->off = args[a].offset;
        } else {
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_map: argument '%s' has an unknown kind %d", args[a].name,
                             (int)args[a].kind);
        }
    }
    size_t maxend = n;
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
        pl->f64 |= p->f64;
        clf_status s = clf__check_buffer(p->mem, p->name, p->off, n, p->f64 ? 8 : 4);
        if (s != CLF_SUCCESS)
            return s;
        if (n && p->off + n > maxend)
            maxend = p->off + n;
        pl->bytes += (double)n * (p->f64 ? 8 : 4) * (p->in + p->out);
    }
    if (pl->f64 && !ctx->info.fp64)
        return clf__fail(CLF_ERR_UNSUPPORTED, "clf_map: %s has no fp64 support, and an f64 buffer needs it", ctx->info.name);
    pl->idx64 = maxend > 0x7fff0000u;
    pl->flops = (double)n * e->nops;
    return check_overlap(pl);
}

static void plan_free(map_plan *pl)
{
    clf__expr_free(&pl->ex);
    free(pl->src);
    pl->src = NULL;
}

/* Parses, binds and generates; on failure everything is freed and nothing was enqueued. */
static clf_status plan_make(clf_context *ctx, const char *expr, size_t n, const clf_map_arg *args, size_t nargs,
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
    if (s == CLF_SUCCESS)
        s = gen_source(pl);
    if (s != CLF_SUCCESS)
        plan_free(pl);
    return s;
}

static clf_status set_arg(cl_kernel k, cl_uint i, size_t size, const void *v)
{
    cl_int err = clSetKernelArg(k, i, size, v);
    return err == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(err, "clSetKernelArg", "clf_map argument %u", i);
}

static clf_status set_idx(cl_kernel k, cl_uint i, int idx64, size_t v)
{
    cl_ulong l = v;
    cl_uint u = (cl_uint)v;
    return idx64 ? set_arg(k, i, sizeof l, &l) : set_arg(k, i, sizeof u, &u);
}

/* Builds (through the program cache) and enqueues the plan with one configuration. */
static clf_status plan_launch(clf_context *ctx, const map_plan *pl, const clf__config *cfg, cl_event *done)
{
    size_t vw = (size_t)cfg->v[P_VW], ept = (size_t)cfg->v[P_EPT], n = pl->n;
    const map_param *fo = &pl->p[pl->first_out];
    size_t head = (vw - fo->off % vw) % vw;
    if (head > n)
        head = n;
    size_t nv = (n - head) / vw;
    int aligned = vw > 1;
    for (int k = 0; k < pl->ex.nnames; k++)
        if (!pl->p[k].scalar && (pl->p[k].off + head) % vw != 0)
            aligned = 0;
    clf__config c = *cfg;
    cl_kernel k = NULL;
    for (;;) {
        char opts[256] = "";
        clf_status s = clf__config_options(&clf__family_map, &c, opts, sizeof opts);
        if (s != CLF_SUCCESS)
            return s;
        size_t len = strlen(opts);
        snprintf(opts + len, sizeof opts - len, " -DCLF_F64=%d -DCLF_IDX=%s -DCLF_ALIGNED=%d", pl->f64,
                 pl->idx64 ? "ulong" : "uint", aligned);
        s = clf__kernel(ctx, pl->src, opts, "clf_map", &k);
        if (s != CLF_SUCCESS)
            return s;
        /* A large expression may not fit the configured work-group: halve it rather than fail. */
        size_t kmax = 0;
        clGetKernelWorkGroupInfo(k, ctx->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL);
        if (kmax == 0 || kmax >= (size_t)c.v[P_WG] || c.v[P_WG] <= 32)
            break;
        clReleaseKernel(k);
        k = NULL;
        c.v[P_WG] /= 2;
    }
    size_t wg = (size_t)c.v[P_WG];
    size_t groups = (nv + wg * ept - 1) / (wg * ept);
    if (groups * wg < 2 * vw)  /* the scalar head and tail need up to 2*(vw-1) work-items */
        groups = (2 * vw + wg - 1) / wg;
    size_t global = groups * wg;
    clf_status s = CLF_SUCCESS;
    cl_uint a = 0;
    for (int i = 0; i < pl->ex.nnames && s == CLF_SUCCESS; i++) {
        const map_param *p = &pl->p[i];
        if (p->scalar) {
            float f = (float)p->value;
            s = pl->f64 ? set_arg(k, a++, sizeof p->value, &p->value) : set_arg(k, a++, sizeof f, &f);
        } else {
            s = set_arg(k, a++, sizeof p->mem, &p->mem);
            if (s == CLF_SUCCESS)
                s = set_idx(k, a++, pl->idx64, p->off);
        }
    }
    if (s == CLF_SUCCESS) s = set_idx(k, a++, pl->idx64, n);
    if (s == CLF_SUCCESS) s = set_idx(k, a++, pl->idx64, head);
    if (s == CLF_SUCCESS) s = set_idx(k, a++, pl->idx64, nv);
    clf__work w = {"map", pl->flops, pl->bytes};
    if (s == CLF_SUCCESS)
        s = clf__enqueue(ctx, k, 1, &global, &wg, &w, done);
    clReleaseKernel(k);
    return s;
}

static clf_status map_config(clf_context *ctx, int f64, clf__config *cfg)
{
    clf_dtype dt = f64 ? CLF_F64 : CLF_F32;
    /* CLFORGE_MAP_CONFIG="VW=4 EPT=2 WG=256" overrides the selection (benchmark sweeps, experiments). */
    const char *env = getenv("CLFORGE_MAP_CONFIG");
    if (env && *env) {
        if (clf__config_parse(&clf__family_map, env, cfg) == CLF_SUCCESS && clf__family_map.valid(cfg, &ctx->info, dt))
            return CLF_SUCCESS;
        clf__warn_once("map-config-env", "CLFORGE_MAP_CONFIG='%s' is not a valid map configuration here; ignored", env);
    }
    clf_status s = clf__config_select(ctx, &clf__family_map, dt, "default", cfg, NULL);
    if (s != CLF_SUCCESS || !clf__family_map.valid(cfg, &ctx->info, dt))
        clf__family_map.default_config(&ctx->info, dt, "default", cfg);
    return CLF_SUCCESS;
}

/* Nothing to compute: still hand back an event when one was asked for. */
static clf_status marker(clf_context *ctx, cl_event *done)
{
    if (!done)
        return CLF_SUCCESS;
    cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, done);
    return err == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(err, "clEnqueueMarkerWithWaitList", "clf_map with n = 0");
}

clf_status clf_map(clf_context *ctx, const char *expr, size_t n, const clf_map_arg *args, size_t nargs,
                   cl_event *done)
{
    map_plan pl;
    if (done)
        *done = NULL;
    clf_status s = plan_make(ctx, expr, n, args, nargs, &pl);
    if (s != CLF_SUCCESS)
        return s;
    if (n == 0) {
        s = marker(ctx, done);
    } else {
        clf__config cfg;
        map_config(ctx, pl.f64, &cfg);
        s = plan_launch(ctx, &pl, &cfg, done);
    }
    plan_free(&pl);
    return s;
}

/* ---- the `map` kernel family ---------------------------------------------------------------- */

static void map_default(const clf_device_info *dev, clf_dtype dt, const char *bucket, clf__config *out)
{
    memset(out, 0, sizeof *out);
    int gpu = (dev->type & CL_DEVICE_TYPE_GPU) != 0;
    /* GPUs: 16-byte vectors, a few per work-item; CPUs (measured on PoCL): 32-byte vectors, small groups. */
    out->v[P_VW] = gpu ? (dt == CLF_F64 ? 2 : 4) : (dt == CLF_F64 ? 4 : 8);
    out->v[P_EPT] = gpu ? 2 : 1;
    out->v[P_WG] = gpu && (dev->max_work_group >= 256 || dev->max_work_group == 0) ? 256 : 64;
}

static int map_valid(const clf__config *cfg, const clf_device_info *dev, clf_dtype dt)
{
    if (dt == CLF_F64 && !dev->fp64)
        return 0;
    if (dt != CLF_F32 && dt != CLF_F64)
        return 0;
    return dev->max_work_group == 0 || (size_t)cfg->v[P_WG] <= dev->max_work_group;
}

/* For map, problem.k is the number of arithmetic operations per element. */
static double map_flops(const clf__problem *p) { return (double)p->n * (double)p->k; }
static double map_bytes(const clf__problem *p) { return (double)p->n * (double)p->m * (p->reads + p->writes); }

/* Tuning problem: y = relu(a*x + b) on buffers larger than the last-level cache. */
typedef struct map_bench {
    clf_context *ctx;
    map_plan pl;
    cl_mem buf[4];      /* y, a, x, b */
    void *ref, *out;
    size_t n, esize;
} map_bench;

/* Elements per buffer for bandwidth measurements: at least twice the device's cache and 16 MiB, at
 * most a quarter of the largest allocation. Shared with copy.c. */
size_t clf__map_bench_elements(clf_context *ctx, size_t esize)
{
    cl_ulong cache = 0;
    clGetDeviceInfo(ctx->dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
    size_t bytes = (size_t)cache * 2;
    if (bytes < ((size_t)16 << 20))
        bytes = (size_t)16 << 20;
    if (ctx->info.max_alloc && bytes > ctx->info.max_alloc / 4)
        bytes = (size_t)(ctx->info.max_alloc / 4);
    return bytes / esize - 1;  /* odd count: the tail path runs too */
}

static void map_bench_destroy(void *state)
{
    map_bench *b = state;
    if (!b)
        return;
    for (int i = 0; i < 4; i++)
        if (b->buf[i])
            clReleaseMemObject(b->buf[i]);
    plan_free(&b->pl);
    free(b->ref);
    free(b->out);
    free(b);
}

static clf_status map_bench_create(clf_context *ctx, clf_dtype dt, const char *bucket, void **state)
{
    if (dt != CLF_F32 && dt != CLF_F64)
        return clf__fail(CLF_ERR_UNSUPPORTED, "map tuning: precision %s is not supported", clf__dtype_name(dt));
    map_bench *b = calloc(1, sizeof *b);
    if (!b)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "map tuning: out of memory");
    b->ctx = ctx;
    b->esize = clf__dtype_size(dt);
    b->n = clf__map_bench_elements(ctx, b->esize);
    size_t bytes = b->n * b->esize;
    void *host = malloc(bytes);
    b->ref = malloc(bytes);
    b->out = malloc(bytes);
    clf_status s = host && b->ref && b->out ? CLF_SUCCESS : clf__fail(CLF_ERR_OUT_OF_MEMORY, "map tuning: out of memory");
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 4 && s == CLF_SUCCESS; i++) {
        for (size_t j = 0; j < b->n; j++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            double r = (double)(seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
            if (dt == CLF_F32) ((float *)host)[j] = (float)r;
            else ((double *)host)[j] = r;
        }
        cl_int err;
        b->buf[i] = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, host, &err);
        if (!b->buf[i])
            s = clf__fail_cl(err, "clCreateBuffer", "map tuning: %zu bytes", bytes);
        if (s == CLF_SUCCESS && i >= 1) {
            /* Accumulate the reference in ref: after i = 1 it holds a, after 2 a*x, after 3 relu(a*x + b). */
            for (size_t j = 0; j < b->n; j++) {
                if (dt == CLF_F32) {
                    float *r = b->ref, h = ((float *)host)[j];
                    r[j] = i == 1 ? h : i == 2 ? r[j] * h : fmaxf(r[j] + h, 0.0f);
                } else {
                    double *r = b->ref, h = ((double *)host)[j];
                    r[j] = i == 1 ? h : i == 2 ? r[j] * h : fmax(r[j] + h, 0.0);
                }
            }
        }
    }
    free(host);
    clf_map_arg args[4] = {
        {.name = "y", .kind = CLF_ARG_BUFFER, .dtype = dt, .buffer = b->buf[0]},
        {.name = "a", .kind = CLF_ARG_BUFFER, .dtype = dt, .buffer = b->buf[1]},
        {.name = "x", .kind = CLF_ARG_BUFFER, .dtype = dt, .buffer = b->buf[2]},
        {.name = "b", .kind = CLF_ARG_BUFFER, .dtype = dt, .buffer = b->buf[3]},
    };
    if (s == CLF_SUCCESS)
        s = plan_make(ctx, "y = relu(a*x + b)", b->n, args, 4, &b->pl);
    if (s != CLF_SUCCESS) {
        map_bench_destroy(b);
        return s;
    }
    *state = b;
    return CLF_SUCCESS;
}

static clf_status map_bench_run(void *state, const clf__config *cfg, cl_event *ev)
{
    map_bench *b = state;
    return plan_launch(b->ctx, &b->pl, cfg, ev);
}

static clf_status map_bench_check(void *state)
{
    map_bench *b = state;
    cl_int err = clEnqueueReadBuffer(b->ctx->queue, b->buf[0], CL_TRUE, 0, b->n * b->esize, b->out, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clf__fail_cl(err, "clEnqueueReadBuffer", "map tuning: reading the result");
    for (size_t j = 0; j < b->n; j++) {
        double got = b->esize == 4 ? ((float *)b->out)[j] : ((double *)b->out)[j];
        double want = b->esize == 4 ? ((float *)b->ref)[j] : ((double *)b->ref)[j];
        double tol = (b->esize == 4 ? 1e-6 : 1e-14) * (1.0 + fabs(want));
        if (!(fabs(got - want) <= tol))
            return clf__fail(CLF_ERR_VERIFY, "map: y[%zu] = %.17g, expected %.17g", j, got, want);
    }
    /* Scribble over y so that the next candidate cannot pass on this one's output. */
    unsigned char zero = 0;
    err = clEnqueueFillBuffer(b->ctx->queue, b->buf[0], &zero, 1, 0, b->n * b->esize, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(err, "clEnqueueFillBuffer", "map tuning: clearing y");
}

static double map_bench_work(void *state) { return ((map_bench *)state)->pl.bytes; }

const clf__family clf__family_map = {
    .name = "map",
    .nparams = 3,
    .params = {{"VW", 5, {1, 2, 4, 8, 16}}, {"EPT", 4, {1, 2, 4, 8}}, {"WG", 6, {32, 64, 128, 256, 512, 1024}}},
    .nbuckets = 1,
    .buckets = {"default"},
    .unit = "GB/s",
    .default_config = map_default,
    .valid = map_valid,
    .flops = map_flops,
    .bytes = map_bytes,
    .bench_create = map_bench_create,
    .bench_run = map_bench_run,
    .bench_check = map_bench_check,
    .bench_work = map_bench_work,
    .bench_destroy = map_bench_destroy,
};
