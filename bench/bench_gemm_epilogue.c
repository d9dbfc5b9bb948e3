/* bench_gemm_epilogue.c — what fusing an epilogue into the GEMM saves: C = gelu(A*B + bias) (bias per column)
 * timed three ways on the same device, buffers and process:
 *   plain     the GEMM alone (C = A*B), the floor a fused epilogue can reach;
 *   fused     clf_gemm_epilogue with "c = gelu(acc + bias)";
 *   unfused   the GEMM, then clf_map "c = gelu(c + bias)" over C — clf_map has no broadcast, so its bias is a
 *             full m x n matrix (one more matrix read than a broadcasting kernel would need); and, as the
 *             cheapest conceivable second pass, the GEMM then clf_map "c = gelu(c)" (no bias: less work than
 *             the real thing), reported as unfused_min.
 * fp32 (clf_sgemm) by default, --f16 for f16 A, B, C and bias (clf_gemm, fp32 accumulation). The fused C is
 * checked on sampled entries against a double reference. --compare-unrolled also times the fused call with
 * CLFORGE_EPILOGUE_STORE=unrolled (the tiled kernel's store before staging). Writes every figure as JSON. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clforge/clforge.h"
#include "timer.h"

typedef struct problem {
    clf_context *ctx;
    int f16;
    size_t m, n, k;
    cl_mem a, b, c, bias, bias_full;
    float *ha, *hb, *hbias;      /* values as stored (f16 values are exact in f16) */
} problem;

static uint64_t rng = 88172645463325252ull;
static float urand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* f16 bits of a value with at most 11 significant bits and in the normal range (or zero). */
static uint16_t to_half(float f)
{
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    float a = fabsf(f);
    if (a < 1.0f / 16384)
        return sign;
    int e;
    float fr = frexpf(a, &e);
    return (uint16_t)(sign | (uint32_t)(e + 14) << 10 | ((uint32_t)(fr * 2048.0f) - 1024));
}

static cl_mem upload(clf_context *ctx, const float *h, size_t n, int f16)
{
    size_t esz = f16 ? 2 : 4;
    void *raw = malloc(n * esz);
    for (size_t i = 0; i < n && raw; i++)
        f16 ? (void)(((uint16_t *)raw)[i] = to_half(h[i])) : (void)(((float *)raw)[i] = h[i]);
    cl_int e = -1;
    cl_mem m = raw ? clCreateBuffer(clf_context_cl(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * esz, raw, &e)
                   : NULL;
    free(raw);
    if (!m) {
        fprintf(stderr, "bench_gemm_epilogue: clCreateBuffer(%zu bytes) failed: %d\n", n * esz, e);
        exit(1);
    }
    return m;
}

static float *values(size_t n)
{
    float *h = malloc(n * sizeof *h);
    if (!h) {
        fprintf(stderr, "bench_gemm_epilogue: out of host memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        h[i] = roundf(urand() * 256) / 256;   /* 9 bits: exact in f16 */
    return h;
}

static void problem_init(problem *p, clf_context *ctx, int f16, size_t m, size_t n, size_t k)
{
    *p = (problem){.ctx = ctx, .f16 = f16, .m = m, .n = n, .k = k};
    p->ha = values(m * k), p->hb = values(k * n), p->hbias = values(n);
    float *full = malloc(m * n * sizeof *full), *zero = calloc(m * n, sizeof *zero);
    for (size_t i = 0; full && i < m * n; i++)
        full[i] = p->hbias[i % n];
    p->a = upload(ctx, p->ha, m * k, f16), p->b = upload(ctx, p->hb, k * n, f16);
    p->bias = upload(ctx, p->hbias, n, f16), p->bias_full = upload(ctx, full, m * n, f16);
    p->c = upload(ctx, zero, m * n, f16);
    free(full), free(zero);
}

static void problem_free(problem *p)
{
    cl_mem all[] = {p->a, p->b, p->c, p->bias, p->bias_full};
    for (int i = 0; i < 5; i++)
        clReleaseMemObject(all[i]);
    free(p->ha), free(p->hb), free(p->hbias);
}

static int ok(clf_status s, const char *what)
{
    if (s != CLF_SUCCESS)
        fprintf(stderr, "bench_gemm_epilogue: %s: %s\n", what, clf_last_error());
    return s == CLF_SUCCESS;
}

static clf_status gemm(problem *p, const clf_epilogue *epi)
{
    clf_gemm_types t = {CLF_F16, CLF_F16, CLF_F16, CLF_COMPUTE_EXACT};
    return clf_gemm_epilogue(p->ctx, p->f16 ? &t : NULL, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, p->m, p->n, p->k,
                             1.0, p->a, 0, p->k, 0, p->b, 0, p->n, 0, 0.0, p->c, 0, p->n, 0, 1, epi, NULL);
}

static int run_plain(void *arg) { return ok(gemm(arg, NULL), "plain GEMM"); }

static const char *fused_expr = "c = gelu(acc + bias)";

/* The fused GEMM with fused_expr; bias is bound when the expression reads it (an unused name is an error). */
static int run_fused(void *arg)
{
    problem *p = arg;
    clf_epilogue_arg bias = {.name = "bias", .kind = CLF_EPI_COL, .dtype = p->f16 ? CLF_F16 : CLF_F32,
                             .buffer = p->bias};
    clf_epilogue epi = {fused_expr, &bias, strstr(fused_expr, "bias") ? 1 : 0};
    return ok(gemm(p, &epi), "fused GEMM");
}

static int map_after(problem *p, const char *expr, int with_bias)
{
    clf_dtype t = p->f16 ? CLF_F16 : CLF_F32;
    clf_map_arg args[2] = {{.name = "c", .kind = CLF_ARG_BUFFER, .dtype = t, .buffer = p->c},
                           {.name = "bias", .kind = CLF_ARG_BUFFER, .dtype = t, .buffer = p->bias_full}};
    return ok(gemm(p, NULL), "GEMM") && ok(clf_map(p->ctx, expr, p->m * p->n, args, with_bias ? 2 : 1, NULL), "map");
}

static int run_unfused(void *arg) { return map_after(arg, "c = gelu(c + bias)", 1); }
static int run_unfused_min(void *arg) { return map_after(arg, "c = gelu(c)", 0); }

/* 16 sampled entries of the fused C against gelu(A*B + bias) in double. */
static int verify(problem *p)
{
    size_t esz = p->f16 ? 2 : 4;
    for (int t = 0; t < 16; t++) {
        size_t i = (size_t)(fabsf(urand()) * (float)p->m) % p->m, j = (size_t)(fabsf(urand()) * (float)p->n) % p->n;
        unsigned char raw[4] = {0};
        if (clEnqueueReadBuffer(clf_context_queue(p->ctx), p->c, CL_TRUE, (i * p->n + j) * esz, esz, raw, 0, NULL,
                                NULL) != CL_SUCCESS)
            return 0;
        double ref = p->hbias[j], mag = 0, got;
        for (size_t q = 0; q < p->k; q++)
            ref += (double)p->ha[i * p->k + q] * p->hb[q * p->n + j], mag += fabs((double)p->ha[i * p->k + q]);
        ref = 0.5 * ref * (1 + erf(ref / sqrt(2.0)));
        if (p->f16) {
            uint16_t h;
            memcpy(&h, raw, 2);
            int e = (h >> 10) & 31;
            got = ldexp((double)((h & 1023) | (e ? 1024 : 0)), (e ? e : 1) - 25) * (h & 0x8000 ? -1 : 1);
        } else {
            float f;
            memcpy(&f, raw, 4);
            got = f;
        }
        double tol = (p->f16 ? 1e-3 * fabs(ref) : 0) + 1e-6 * (mag + 1);
        if (!(fabs(got - ref) <= tol)) {
            fprintf(stderr, "bench_gemm_epilogue: C[%zu][%zu] = %.7g, reference %.7g\n", i, j, got, ref);
            return 0;
        }
    }
    return 1;
}

typedef struct options {
    const char *device, *json;
    int f16, reps, nshapes, compare_unrolled, nexprs;
    size_t shapes[16][3];
    const char *exprs[4];   /* --also EXPR: further epilogues timed against the plain GEMM (not checked) */
} options;

static int parse(int argc, char **argv, options *o)
{
    *o = (options){.reps = 7};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--device") && i + 1 < argc) o->device = argv[++i];
        else if (!strcmp(a, "--json") && i + 1 < argc) o->json = argv[++i];
        else if (!strcmp(a, "--reps") && i + 1 < argc) o->reps = atoi(argv[++i]);
        else if (!strcmp(a, "--f16")) o->f16 = 1;
        else if (!strcmp(a, "--compare-unrolled")) o->compare_unrolled = 1;
        else if (!strcmp(a, "--also") && i + 1 < argc && o->nexprs < 4) o->exprs[o->nexprs++] = argv[++i];
        else if (!strcmp(a, "--shape") && i + 1 < argc && o->nshapes < 16) {
            size_t *s = o->shapes[o->nshapes++];
            if (sscanf(argv[++i], "%zux%zux%zu", &s[0], &s[1], &s[2]) != 3 || !s[0] || !s[1] || !s[2])
                return 0;
        } else {
            return 0;
        }
    }
    if (o->reps < 1)
        o->reps = 1;
    if (o->nshapes == 0) {
        size_t d = o->f16 ? 8192 : 4096;
        o->shapes[0][0] = o->shapes[0][1] = d, o->shapes[0][2] = 1024, o->nshapes = 1;
    }
    return 1;
}

static json_t *bench_shape(clf_context *ctx, const options *o, const size_t *s)
{
    problem p;
    problem_init(&p, ctx, o->f16, s[0], s[1], s[2]);
    double tp = clf_bench_time(ctx, run_plain, &p, o->reps, 200);
    double tu = clf_bench_time(ctx, run_unfused, &p, o->reps, 200);
    double tm = clf_bench_time(ctx, run_unfused_min, &p, o->reps, 200);
    double tf = clf_bench_time(ctx, run_fused, &p, o->reps, 200);
    int good = tf > 0 && run_fused(&p) && verify(&p);
    double tr = -1;   /* the unrolled store, when asked: the store is chosen when the kernel's source is made */
    if (o->compare_unrolled) {
        const char *was = getenv("CLFORGE_EPILOGUE_STORE");
        char *keep = was ? strdup(was) : NULL;
        setenv("CLFORGE_EPILOGUE_STORE", "unrolled", 1);
        tr = clf_bench_time(ctx, run_fused, &p, o->reps, 200);
        good = good && tr > 0 && run_fused(&p) && verify(&p);
        keep ? setenv("CLFORGE_EPILOGUE_STORE", keep, 1) : unsetenv("CLFORGE_EPILOGUE_STORE");
        free(keep);
    }
    for (int e = 0; e < o->nexprs; e++) {   /* where the fused time goes: simpler epilogues, same GEMM */
        const char *keep = fused_expr;
        fused_expr = o->exprs[e];
        double te = clf_bench_time(ctx, run_fused, &p, o->reps, 200);
        fused_expr = keep;
        printf("  epilogue \"%s\": %.3f ms, %.3f of plain\n", o->exprs[e], te * 1e3, tp > 0 ? te / tp : 0.0);
    }
    const char *store = getenv("CLFORGE_EPILOGUE_STORE");
    double flops = 2.0 * (double)s[0] * (double)s[1] * (double)s[2];
    json_t *row = json_pack("{s:I, s:I, s:I, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:b}", "m", (json_int_t)s[0],
                            "n", (json_int_t)s[1], "k", (json_int_t)s[2], "dtype", o->f16 ? "f16" : "f32", "plain_ms",
                            tp * 1e3, "fused_ms", tf * 1e3, "unfused_ms", tu * 1e3, "unfused_min_ms", tm * 1e3,
                            "plain_tflops", tp > 0 ? flops / tp / 1e12 : 0.0, "fused_over_plain",
                            tp > 0 ? tf / tp : 0.0, "unfused_over_fused", tf > 0 ? tu / tf : 0.0,
                            "unfused_min_over_fused", tf > 0 ? tm / tf : 0.0, "verified", good);
    const char *unroll = getenv("CLFORGE_EPILOGUE_UNROLL");
    json_object_set_new(row, "epilogue_store", json_string(store && *store ? store : "staged"));
    json_object_set_new(row, "epilogue_unroll", json_integer(unroll && *unroll ? atoi(unroll) : 1));
    if (tr > 0)
        json_object_set_new(row, "fused_unrolled_ms", json_real(tr * 1e3));
    printf("%zux%zux%zu %s  plain %.3f ms (%.1f TFLOP/s)  fused %.3f ms (%.3fx plain)  GEMM+map %.3f ms (%.2fx fused)"
           "  GEMM+map without bias %.3f ms (%.2fx fused)%s\n",
           s[0], s[1], s[2], o->f16 ? "f16" : "f32", tp * 1e3, tp > 0 ? flops / tp / 1e12 : 0.0, tf * 1e3,
           tp > 0 ? tf / tp : 0.0, tu * 1e3, tf > 0 ? tu / tf : 0.0, tm * 1e3, tf > 0 ? tm / tf : 0.0,
           good ? "" : "  (WRONG)");
    if (tr > 0)
        printf("%zux%zux%zu %s  fused with the unrolled store %.3f ms (%.3fx plain)\n", s[0], s[1], s[2],
               o->f16 ? "f16" : "f32", tr * 1e3, tp > 0 ? tr / tp : 0.0);
    fflush(stdout);
    problem_free(&p);
    return row;
}

int main(int argc, char **argv)
{
    options o;
    if (!parse(argc, argv, &o)) {
        fprintf(stderr, "usage: bench_gemm_epilogue [--device SEL] [--f16] [--shape MxNxK]... [--reps N] [--json FILE] [--also EXPR]...\n"
                        "                           [--compare-unrolled]\n"
                        "  C = gelu(A*B + bias): the GEMM alone, fused, and followed by clf_map.\n");
        return 2;
    }
    clf_context_options copt = {.device = o.device};
    clf_context *ctx;
    if (clf_context_create(&copt, &ctx) != CLF_SUCCESS) {
        fprintf(stderr, "bench_gemm_epilogue: %s\n", clf_last_error());
        return 1;
    }
    const clf_device_info *dev = clf_context_device(ctx);
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_t *root = json_pack("{s:s, s:s, s:s, s:s}", "device", dev->name, "driver", dev->driver, "date", date, "timing",
                             "wall time around clFinish, back-to-back runs, median of repeats");
    json_t *rows = json_array();
    json_object_set_new(root, "results", rows);
    printf("# %s  (%s)\n", dev->name, dev->driver);
    int bad = 0;
    for (int i = 0; i < o.nshapes; i++) {
        json_t *row = bench_shape(ctx, &o, o.shapes[i]);
        bad |= !json_is_true(json_object_get(row, "verified"));
        json_array_append_new(rows, row);
    }
    if (o.json && json_dump_file(root, o.json, JSON_INDENT(2)) != 0)
        fprintf(stderr, "bench_gemm_epilogue: cannot write %s\n", o.json);
    json_decref(root);
    clf_context_destroy(ctx);
    return bad;
}
