/* map_family.c — the `map` kernel family: parameters, heuristic defaults, validity, work formulas and
 * the tuning problem y = relu(a*x + b) that the autotuner drives through the descriptor. */
#include "map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void map_default(const clf_device_info *dev, clf_dtype dt, const char *bucket, clf__config *out)
{
    clf__ew_default(dev, dt == CLF_F64 ? 8 : 4, out);
}

static int map_valid(const clf__config *cfg, const clf_device_info *dev, clf_dtype dt)
{
    if (dt == CLF_F64 && !dev->fp64)
        return 0;
    if (dt != CLF_F32 && dt != CLF_F64)
        return 0;
    return clf__ew_valid(cfg, dev);
}

static double map_flops(const clf__problem *p) { return (double)p->n * (double)p->flops_per_elem; }
static double map_bytes(const clf__problem *p)
{
    return (double)p->n * (double)p->elem_size * (p->reads + p->writes);
}

/* Tuning problem: y = relu(a*x + b) on buffers larger than the last-level cache. */
typedef struct map_bench {
    clf_context *ctx;
    map_plan pl;
    cl_mem buf[4];      /* y, a, x, b */
    void *ref, *out;
    size_t n, esize;
} map_bench;

static void map_bench_destroy(void *state)
{
    map_bench *b = state;
    if (!b)
        return;
    for (int i = 0; i < 4; i++)
        if (b->buf[i])
            clReleaseMemObject(b->buf[i]);
    clf__map_plan_free(&b->pl);
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
    b->n = clf__ew_bench_elements(ctx, b->esize);
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
        s = clf__map_plan_make(ctx, "y = relu(a*x + b)", b->n, args, 4, &b->pl);
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
    return clf__map_plan_launch(b->ctx, &b->pl, cfg, ev);
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
    CLF__EW_FAMILY_SHAPE,
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
