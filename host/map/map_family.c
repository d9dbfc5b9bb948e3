/* map_family.c — the `map` kernel family: parameters, heuristic defaults, validity, work formulas and
 * the tuning problem y = relu(a*x + b) that the autotuner drives through the descriptor. Precisions:
 * f32, f64, and f16, the key of maps with a 16-bit buffer (f16 or bf16) and none f64 (see clf__map_key). */
#include "map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Maps with 16-bit buffers (key f16) on GPUs: VW=4 EPT=1, 8-byte accesses to 16-bit buffers and 16-byte ones
 * to f32 buffers of mixed maps (H200: 0.92 of copy for f16 relu(a*x + b), where VW=8 EPT=2 gave 0.66 and
 * VW=16 0.22). */
static void map_default(const clf_device_info *dev, clf_dtype dt, const char *bucket, clf__config *out)
{
    (void)bucket;
    int gpu = (dev->type & CL_DEVICE_TYPE_GPU) != 0;
    clf__ew_default(dev, dt == CLF_F16 && gpu ? 4 : clf__dtype_size(dt), out);
    if (dt == CLF_F16 && gpu)
        out->v[CLF__P_EPT] = 1;
}

static int map_valid(const clf__config *cfg, const clf_device_info *dev, clf_dtype dt)
{
    if (dt == CLF_F64 && !dev->fp64)
        return 0;
    if (dt != CLF_F32 && dt != CLF_F64 && dt != CLF_F16)
        return 0;
    return clf__ew_valid(cfg, dev);
}

static double map_flops(const clf__problem *p) { return (double)p->n * (double)p->flops_per_elem; }
static double map_bytes(const clf__problem *p)
{
    return (double)p->n * (double)p->elem_size * (p->reads + p->writes);
}

/* Tuning problem: y = relu(a*x + b) on buffers larger than the last-level cache. f16 data is made and
 * checked through fp32 staging buffers and clf_convert (exact for the widening, RNE for the narrowing). */
typedef struct map_bench {
    clf_context *ctx;
    clf_dtype dt;
    map_plan pl;
    cl_mem buf[4];      /* y, a, x, b */
    cl_mem stage;       /* f16: an fp32 copy of one buffer */
    float *out;         /* f32 and f16: staging for reads and writes */
    double *ref64, *out64;  /* the reference and the result as doubles */
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
    if (b->stage)
        clReleaseMemObject(b->stage);
    clf__map_plan_free(&b->pl);
    free(b->out), free(b->ref64), free(b->out64);
    free(b);
}

/* Reads buffer i as doubles (an f16 buffer through the fp32 staging buffer). */
static clf_status read_values(map_bench *b, int i, double *out)
{
    cl_int err = CL_SUCCESS;
    if (b->dt == CLF_F64)
        err = clEnqueueReadBuffer(b->ctx->queue, b->buf[i], CL_TRUE, 0, b->n * 8, out, 0, NULL, NULL);
    else {
        clf_status s = b->dt == CLF_F16 ? clf_convert(b->ctx, CLF_F16, b->buf[i], 0, CLF_F32, b->stage, 0, b->n, NULL)
                                        : CLF_SUCCESS;
        if (s != CLF_SUCCESS)
            return s;
        err = clEnqueueReadBuffer(b->ctx->queue, b->dt == CLF_F16 ? b->stage : b->buf[i], CL_TRUE, 0, b->n * 4,
                                  b->out, 0, NULL, NULL);
        for (size_t j = 0; err == CL_SUCCESS && j < b->n; j++)
            out[j] = b->out[j];
    }
    return err == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(err, "clEnqueueReadBuffer", "map tuning: reading back");
}

/* Fills buffer i with values in [-1, 1) and folds it into the reference (a, then a*x, then relu(a*x + b)). */
static clf_status fill_input(map_bench *b, int i, uint64_t *seed, double *host)
{
    size_t wide = b->dt == CLF_F64 ? 8 : 4;
    for (size_t j = 0; j < b->n; j++) {
        *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
        double r = (double)(*seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        if (wide == 4) b->out[j] = (float)r;
        else host[j] = r;
    }
    cl_mem dst = b->dt == CLF_F16 ? b->stage : b->buf[i];
    cl_int err = clEnqueueWriteBuffer(b->ctx->queue, dst, CL_TRUE, 0, b->n * wide, wide == 4 ? (void *)b->out : host,
                                      0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clf__fail_cl(err, "clEnqueueWriteBuffer", "map tuning: %zu bytes", b->n * wide);
    clf_status s = b->dt == CLF_F16 ? clf_convert(b->ctx, CLF_F32, b->stage, 0, CLF_F16, b->buf[i], 0, b->n, NULL)
                                    : CLF_SUCCESS;
    if (s == CLF_SUCCESS)
        s = read_values(b, i, host);   /* the values as stored (f16 rounds) */
    for (size_t j = 0; s == CLF_SUCCESS && j < b->n; j++) {
        double h = host[j], *r = b->ref64;
        r[j] = i == 1 ? h : i == 2 ? r[j] * h : fmax(r[j] + h, 0.0);
    }
    return s;
}

static clf_status map_bench_alloc(map_bench *b)
{
    size_t bytes = b->n * b->esize;
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < 4 && err == CL_SUCCESS; i++)
        b->buf[i] = clCreateBuffer(b->ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err == CL_SUCCESS && b->dt == CLF_F16)
        b->stage = clCreateBuffer(b->ctx->cl, CL_MEM_READ_WRITE, b->n * 4, NULL, &err);
    if (err != CL_SUCCESS)
        return clf__fail_cl(err, "clCreateBuffer", "map tuning: %zu bytes", bytes);
    b->out = malloc(b->n * sizeof(float));
    b->ref64 = malloc(b->n * sizeof(double));
    b->out64 = malloc(b->n * sizeof(double));
    return b->out && b->ref64 && b->out64 ? CLF_SUCCESS : clf__fail(CLF_ERR_OUT_OF_MEMORY, "map tuning: out of memory");
}

static clf_status map_bench_create(clf_context *ctx, clf_dtype dt, const char *bucket, void **state)
{
    if (dt != CLF_F32 && dt != CLF_F64 && dt != CLF_F16)
        return clf__fail(CLF_ERR_UNSUPPORTED, "map tuning: precision %s is not supported", clf__dtype_name(dt));
    if (dt == CLF_F64 && !ctx->info.fp64)
        return clf__fail(CLF_ERR_UNSUPPORTED, "map tuning: %s has no fp64", ctx->info.name);
    map_bench *b = calloc(1, sizeof *b);
    if (!b)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "map tuning: out of memory");
    b->ctx = ctx;
    b->dt = dt;
    b->esize = clf__dtype_size(dt);
    b->n = clf__ew_bench_elements(ctx, b->esize);
    clf_status s = map_bench_alloc(b);
    double *host = s == CLF_SUCCESS ? malloc(b->n * sizeof(double)) : NULL;
    if (s == CLF_SUCCESS && !host)
        s = clf__fail(CLF_ERR_OUT_OF_MEMORY, "map tuning: out of memory");
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int i = 1; i < 4 && s == CLF_SUCCESS; i++)
        s = fill_input(b, i, &seed, host);
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

/* f16: within one rounding of the fp32 result (the compiler may contract a*x + b into an fma). */
static clf_status map_bench_check(void *state)
{
    map_bench *b = state;
    clf_status s = read_values(b, 0, b->out64);
    if (s != CLF_SUCCESS)
        return s;
    double rel = b->dt == CLF_F16 ? 1.0 / 1024 : b->dt == CLF_F32 ? 1e-6 : 1e-14;
    for (size_t j = 0; j < b->n; j++) {
        double got = b->out64[j], want = b->dt == CLF_F32 ? (double)(float)b->ref64[j] : b->ref64[j];
        if (!(fabs(got - want) <= rel * (1.0 + fabs(want))))
            return clf__fail(CLF_ERR_VERIFY, "map: y[%zu] = %.17g, expected %.17g", j, got, want);
    }
    /* Scribble over y so that the next candidate cannot pass on this one's output. */
    unsigned char zero = 0;
    cl_int err = clEnqueueFillBuffer(b->ctx->queue, b->buf[0], &zero, 1, 0, b->n * b->esize, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(err, "clEnqueueFillBuffer", "map tuning: clearing y");
}

static double map_bench_work(void *state) { return ((map_bench *)state)->pl.bytes; }

const clf__family clf__family_map = {
    .name = "map",
    CLF__EW_FAMILY_SHAPE,
    .nprecisions = 3,
    .precisions = {CLF_F32, CLF_F16, CLF_F64},   /* f16: every buffer 16-bit (f16 or bf16) */
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
