/* bench_gemm_mixed.c — times clforge's mixed-precision GEMM (clf_gemm) per compute mode: f16 and bf16 inputs
 * with fp32 accumulation, fp32 inputs in TF32 and 3xTF32 and exact fp32, and fp64 (clf_dgemm), on the shapes
 * given; checks sampled entries against a double reference over the inputs as stored; writes JSON. The
 * cuBLAS figures come from torch_gemm.py --dtype in the same GPU script. --clblast also times CLBlast's
 * strided-batched GEMM on the same buffers, transposes and batch for the f32 and f64 modes. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gemm_mma.h"
#include "gemm_waves.h"
#include "timer.h"
#ifdef CLF_HAVE_CLBLAST
#include <clblast_c.h>
#endif

typedef struct mode {
    const char *name;
    clf_gemm_types t;
    int f64;
} mode;

static const mode modes[] = {
    {"f16", {CLF_F16, CLF_F16, CLF_F32, CLF_COMPUTE_EXACT}, 0},
    {"bf16", {CLF_BF16, CLF_BF16, CLF_F32, CLF_COMPUTE_EXACT}, 0},
    {"f16h", {CLF_F16, CLF_F16, CLF_F16, CLF_COMPUTE_EXACT}, 0},     /* C stored in the inputs' type, as */
    {"bf16h", {CLF_BF16, CLF_BF16, CLF_BF16, CLF_COMPUTE_EXACT}, 0}, /* torch.matmul stores it */
    {"tf32", {CLF_F32, CLF_F32, CLF_F32, CLF_COMPUTE_TF32}, 0},
    {"3xtf32", {CLF_F32, CLF_F32, CLF_F32, CLF_COMPUTE_3XTF32}, 0},
    {"3xf16", {CLF_F32, CLF_F32, CLF_F32, CLF_COMPUTE_3XF16}, 0},
    {"f32", {CLF_F32, CLF_F32, CLF_F32, CLF_COMPUTE_EXACT}, 0},
    {"f64", {CLF_F64, CLF_F64, CLF_F64, CLF_COMPUTE_EXACT}, 1},
};

typedef struct bench {
    clf_context *ctx;
    const mode *md;
    size_t m, n, k, batch;
    int at, bt;             /* A stored K x M, B stored N x K (transposed) */
    cl_mem a, b, c;
    float *ha, *hb;         /* inputs as stored (rounded to the storage type) */
} bench;

static double urand(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static cl_mem buffer(clf_context *ctx, size_t bytes, const void *host)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clf_context_cl(ctx), CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)host, &e);
    if (!m) {
        fprintf(stderr, "bench_gemm_mixed: clCreateBuffer(%zu bytes): %d\n", bytes, e);
        exit(1);
    }
    return m;
}

/* An operand of n random values in [-1, 1), stored as type t; *host gets the stored values as floats. */
static cl_mem operand(clf_context *ctx, size_t n, clf_dtype t, uint64_t *seed, float **host)
{
    float *h = malloc(n * 4);
    double *d = t == CLF_F64 ? malloc(n * 8) : NULL;
    if (!h || (t == CLF_F64 && !d))
        exit(1);
    for (size_t i = 0; i < n; i++)
        h[i] = (float)urand(seed);
    if (t == CLF_F64) {
        for (size_t i = 0; i < n; i++)
            d[i] = h[i];
        cl_mem m = buffer(ctx, n * 8, d);
        free(d);
        *host = h;
        return m;
    }
    cl_mem f = buffer(ctx, n * 4, h);
    if (t == CLF_F32) {
        *host = h;
        return f;
    }
    cl_mem out = buffer(ctx, n * 2, NULL);
    if (clf_convert(ctx, CLF_F32, f, 0, t, out, 0, n, NULL) != CLF_SUCCESS ||
        clf_convert(ctx, t, out, 0, CLF_F32, f, 0, n, NULL) != CLF_SUCCESS ||
        clEnqueueReadBuffer(clf_context_queue(ctx), f, CL_TRUE, 0, n * 4, h, 0, NULL, NULL) != CL_SUCCESS) {
        fprintf(stderr, "bench_gemm_mixed: convert: %s\n", clf_last_error());
        exit(1);
    }
    clReleaseMemObject(f);
    *host = h;
    return out;
}

static int run(void *arg)
{
    bench *b = arg;
    size_t lda = b->at ? b->m : b->k, ldb = b->bt ? b->k : b->n, sa = b->m * b->k, sb = b->k * b->n, sc = b->m * b->n;
    clf_transpose ta = b->at ? CLF_TRANS : CLF_NO_TRANS, tb = b->bt ? CLF_TRANS : CLF_NO_TRANS;
    clf_status s;
    if (b->md->f64)
        s = clf_dgemm_batched_strided(b->ctx, CLF_ROW_MAJOR, ta, tb, b->m, b->n, b->k, 1.0, b->a, 0, lda, sa, b->b, 0,
                                      ldb, sb, 0.0, b->c, 0, b->n, sc, b->batch, NULL);
    else if (b->md->t.a == CLF_F32 && b->md->t.compute == CLF_COMPUTE_EXACT)   /* what a clf_sgemm user gets */
        s = b->batch == 1 ? clf_sgemm(b->ctx, CLF_ROW_MAJOR, ta, tb, b->m, b->n, b->k, 1.0f, b->a, 0, lda, b->b, 0, ldb,
                                      0.0f, b->c, 0, b->n, NULL)
                          : clf_sgemm_batched_strided(b->ctx, CLF_ROW_MAJOR, ta, tb, b->m, b->n, b->k, 1.0f, b->a, 0,
                                                      lda, sa, b->b, 0, ldb, sb, 0.0f, b->c, 0, b->n, sc, b->batch, NULL);
    else
        s = clf_gemm_batched_strided(b->ctx, &b->md->t, CLF_ROW_MAJOR, ta, tb, b->m, b->n, b->k, 1.0f, b->a, 0, lda,
                                     sa, b->b, 0, ldb, sb, 0.0f, b->c, 0, b->n, sc, b->batch, NULL);
    if (s != CLF_SUCCESS)
        fprintf(stderr, "bench_gemm_mixed: %s\n", clf_last_error());
    return s == CLF_SUCCESS;
}

#ifdef CLF_HAVE_CLBLAST
/* CLBlast on the same call: S/DgemmStridedBatched, row-major, the same transposes, strides and batch. */
static int run_clblast(void *arg)
{
    bench *b = arg;
    size_t lda = b->at ? b->m : b->k, ldb = b->bt ? b->k : b->n, sa = b->m * b->k, sb = b->k * b->n, sc = b->m * b->n;
    CLBlastTranspose ta = b->at ? CLBlastTransposeYes : CLBlastTransposeNo;
    CLBlastTranspose tb = b->bt ? CLBlastTransposeYes : CLBlastTransposeNo;
    cl_command_queue q = clf_context_queue(b->ctx);
    CLBlastStatusCode s = b->md->f64
        ? CLBlastDgemmStridedBatched(CLBlastLayoutRowMajor, ta, tb, b->m, b->n, b->k, 1.0, b->a, 0, lda, sa, b->b, 0,
                                     ldb, sb, 0.0, b->c, 0, b->n, sc, b->batch, &q, NULL)
        : CLBlastSgemmStridedBatched(CLBlastLayoutRowMajor, ta, tb, b->m, b->n, b->k, 1.0f, b->a, 0, lda, sa, b->b, 0,
                                     ldb, sb, 0.0f, b->c, 0, b->n, sc, b->batch, &q, NULL);
    if (s != CLBlastSuccess)
        fprintf(stderr, "bench_gemm_mixed: CLBlast status %d\n", (int)s);
    return s == CLBlastSuccess;
}
#endif

/* GFLOP/s of CLBlast on b's call (f32 and f64 modes), or 0 when it is not asked, not built in, or fails. */
static double clblast_gflops(bench *b, int asked, int reps)
{
    int exact = b->md->f64 || (b->md->t.a == CLF_F32 && b->md->t.compute == CLF_COMPUTE_EXACT);
    if (!asked || !exact)
        return 0;
#ifdef CLF_HAVE_CLBLAST
    double sec = clf_bench_time(b->ctx, run_clblast, b, reps, 50);
    return sec > 0 ? 2.0 * (double)b->m * (double)b->n * (double)b->k * (double)b->batch / sec / 1e9 : 0;
#else
    (void)reps;
    return 0;
#endif
}

/* Element at of C stored as f16 or bf16, as a double (converted by clf_convert, so no host decoder). */
static double half_value(bench *b, size_t at)
{
    cl_mem one = buffer(b->ctx, 4, NULL);
    float v = NAN;
    if (clf_convert(b->ctx, b->md->t.c, b->c, at, CLF_F32, one, 0, 1, NULL) == CLF_SUCCESS)
        clEnqueueReadBuffer(clf_context_queue(b->ctx), one, CL_TRUE, 0, 4, &v, 0, NULL, NULL);
    clReleaseMemObject(one);
    return v;
}

/* Largest relative error over 64 sampled entries, against the stored inputs' exact product. */
static double check(bench *b, uint64_t *seed)
{
    double worst = 0;
    for (int t = 0; t < 64; t++) {
        size_t i = (size_t)((urand(seed) + 1) / 2 * (double)b->m) % b->m, j = (size_t)((urand(seed) + 1) / 2 * (double)b->n) % b->n;
        double got, ref = 0, mag = 0;
        if (b->md->f64) {
            clEnqueueReadBuffer(clf_context_queue(b->ctx), b->c, CL_TRUE, (i * b->n + j) * 8, 8, &got, 0, NULL, NULL);
        } else if (b->md->t.c != CLF_F32) {   /* f16 or bf16: widened on the device */
            got = half_value(b, i * b->n + j);
        } else {
            float g;
            clEnqueueReadBuffer(clf_context_queue(b->ctx), b->c, CL_TRUE, (i * b->n + j) * 4, 4, &g, 0, NULL, NULL);
            got = g;
        }
        for (size_t p = 0; p < b->k; p++) {   /* the first matrix of a batch */
            double x = (double)(b->at ? b->ha[p * b->m + i] : b->ha[i * b->k + p]) *
                       (b->bt ? b->hb[j * b->k + p] : b->hb[p * b->n + j]);
            ref += x;
            mag += fabs(x);
        }
        double e = fabs(got - ref) / (mag > 0 ? mag : 1);
        worst = isnan(got) ? INFINITY : e > worst ? e : worst;
    }
    return worst;
}

/* --waves: work-groups per compute unit of each listed mode's matrix-unit configuration (the probe of
 * gemm_waves.c, which the tuner stores in gemm_mma entries for the planner's split rule). */
static int waves_report(clf_context *ctx, const char *only)
{
    static const struct { const char *name; clf__mma_mode mode; } ms[] = {
        {"f16", CLF__MMA_F16}, {"tf32", CLF__MMA_TF32}, {"3xtf32", CLF__MMA_3XTF32}, {"f64", CLF__MMA_F64}};
    int rc = 0;
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        if (only && !strstr(only, ms[i].name))
            continue;
        clf__config cfg;
        const char *origin;
        double t[8];
        int per_cu = 0;
        clf_dtype prec = clf__mma_precision(ms[i].mode);
        clf_status s = clf__mma_usable(ctx, ms[i].mode) ? clf__mma_config(ctx, ms[i].mode, &cfg, &origin)
                                                          : clf__fail(CLF_ERR_UNSUPPORTED, "no usable matrix units");
        if (s == CLF_SUCCESS)
            s = clf__gemm_measure_wg_per_cu(ctx, &clf__family_gemm_mma, prec, clf__mma_bucket(ms[i].mode), &cfg,
                                            &per_cu, t);
        if (s != CLF_SUCCESS) {
            fprintf(stderr, "bench_gemm_mixed: --waves %s: %s\n", ms[i].name, clf_last_error());
            rc = 1;
            continue;
        }
        printf("%-7s wg_per_cu %d  (ms for 1..8 rows of tiles:", ms[i].name, per_cu);
        for (int j = 0; j < 8; j++)
            printf(" %.4f", t[j] * 1e3);
        printf(")\n");
    }
    return rc;
}

/* 1 when name is in the comma-separated list (NULL: every mode is). */
static int listed(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *device = NULL, *json_path = NULL, *only = NULL;
    size_t shapes[32][3];
    int nshapes = 0, reps = 7, bt = 0, at = 0, clblast = 0, waves = 0;
    size_t batch = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
        else if (!strcmp(argv[i], "--modes") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bt")) bt = 1;
        else if (!strcmp(argv[i], "--at")) at = 1;
        else if (!strcmp(argv[i], "--clblast")) clblast = 1;
        else if (!strcmp(argv[i], "--waves")) waves = 1;
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc && atoi(argv[i + 1]) > 0) batch = (size_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--shape") && i + 1 < argc && nshapes < 32 &&
                 sscanf(argv[i + 1], "%zux%zux%zu", &shapes[nshapes][0], &shapes[nshapes][1], &shapes[nshapes][2]) == 3) {
            nshapes++, i++;
        } else {
            fprintf(stderr, "usage: bench_gemm_mixed [--device SEL] [--json FILE] [--modes f16,bf16,f16h,bf16h,tf32,3xtf32,3xf16,f32,f64]\n"
                            "                        [--reps N] [--at] [--bt] [--batch N] [--clblast] [--shape MxNxK]...\n"
                            "                        [--waves]\n"
                            "  f16, bf16: C in fp32; f16h, bf16h: C in f16/bf16 (as torch.matmul stores it)\n"
                            "  --at: A stored transposed (K x M); --bt: B stored transposed (N x K), the layout\n"
                            "  matrix units read in place; --batch N: N matrices each (strided batch);\n"
                            "  --waves: work-groups per compute unit of each mode's matrix-unit configuration\n");
            return 2;
        }
    }
    if (!nshapes) {
        size_t def[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}};
        memcpy(shapes, def, sizeof def);
        nshapes = 2;
    }
    clf_context *ctx;
    clf_context_options opt = {.device = device};
    if (clf_context_create(&opt, &ctx) != CLF_SUCCESS) {
        fprintf(stderr, "bench_gemm_mixed: %s\n", clf_last_error());
        return 1;
    }
    if (waves) {
        int rc = waves_report(ctx, only);
        clf_context_destroy(ctx);
        return rc;
    }
    json_t *rows = json_array();
    uint64_t seed = 42;
    printf("device: %s\n", clf_context_device(ctx)->name);
    for (int si = 0; si < nshapes; si++)
        for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
            const mode *md = &modes[mi];
            if (!listed(only, md->name) || (md->f64 && !clf_context_device(ctx)->fp64))
                continue;
            bench b = {ctx, md, shapes[si][0], shapes[si][1], shapes[si][2], batch, at, bt, NULL, NULL, NULL, NULL, NULL};
            b.a = operand(ctx, b.m * b.k * batch, md->t.a, &seed, &b.ha);
            b.b = operand(ctx, b.k * b.n * batch, md->t.b, &seed, &b.hb);
            b.c = buffer(ctx, b.m * b.n * batch * (md->f64 ? 8 : md->t.c == CLF_F32 ? 4 : 2), NULL);
            double sec = clf_bench_time(ctx, run, &b, reps, 50);
            double err = sec > 0 ? check(&b, &seed) : INFINITY;
            double tflops = sec > 0 ? 2.0 * (double)b.m * (double)b.n * (double)b.k * (double)batch / sec / 1e12 : 0;
            double cb = clblast_gflops(&b, clblast, reps);
            printf("%zux%5zux%5zux%5zu %c%c %-7s %10.1f GFLOP/s   max rel. error %.2e", batch, b.m, b.n, b.k, at ? 'T' : 'N', bt ? 'T' : 'N', md->name,
                   tflops * 1e3, err);
            if (cb > 0)
                printf("   CLBlast %.1f GFLOP/s, ratio %.2f", cb, tflops * 1e3 / cb);
            printf("\n");
            fflush(stdout);
            json_array_append_new(rows, json_pack("{s:I, s:I, s:I, s:I, s:b, s:b, s:s, s:f, s:f, s:f}", "m",
                                                  (json_int_t)b.m, "n", (json_int_t)b.n, "k", (json_int_t)b.k, "batch",
                                                  (json_int_t)batch, "a_transposed", at, "b_transposed", bt, "mode",
                                                  md->name, "seconds", sec, "tflops", tflops, "max_rel_error",
                                                  isfinite(err) ? err : -1.0));
            if (cb > 0)
                json_object_set_new(json_array_get(rows, json_array_size(rows) - 1), "clblast_gflops", json_real(cb));
            clReleaseMemObject(b.a);
            clReleaseMemObject(b.b);
            clReleaseMemObject(b.c);
            free(b.ha);
            free(b.hb);
        }
    if (json_path) {
        char date[32];
        time_t now = time(NULL);
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        json_t *doc = json_pack("{s:s, s:s, s:s, s:b, s:s, s:o}", "device", clf_context_device(ctx)->name, "driver",
                                clf_context_device(ctx)->driver, "date", date, "b_transposed", bt, "timing",
                                "wall time around clFinish over back-to-back runs, median", "results", rows);
        json_dump_file(doc, json_path, JSON_INDENT(2));
        json_decref(doc);
    } else {
        json_decref(rows);
    }
    clf_context_destroy(ctx);
    return 0;
}
