/* bench_gemv.c — times clforge's matrix-vector product (and CLBlast's, when found) on the same device,
 * buffers and process, against a device copy of A's bytes (clf_copy) as the bandwidth reference. Reports
 * effective GB/s (bytes of A + x + y over the time) and the fraction of the copy's GB/s (bytes read +
 * written); verifies clforge's y on sampled entries; writes every figure as JSON. A shape MxNxK is a thin
 * GEMM instead (C = op(A) op(B), m x n, through clf_sgemm/clf_dgemm, which the planner sends to the same
 * kernels when m or n is small): A, B and C take the places of A, x and y, and the copy is of A's and B's
 * bytes. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clforge/clforge.h"
#include "timer.h"
#ifdef CLF_HAVE_CLBLAST
#include <clblast_c.h>
#endif

typedef struct shape { size_t m, n, k; } shape;   /* k 0: a matrix-vector product */

static const shape default_shapes[] = {
    {4096, 4096, 0}, {8192, 8192, 0}, {1, 4096, 0}, {4096, 1, 0}, {16, 4096, 0}, {4096, 16, 0}, {1000, 1000, 0},
    {4097, 4097, 0}, {1024, 16384, 0}, {16384, 1024, 0}, {1, 4096, 4096}, {8, 4096, 4096}, {16, 4096, 4096},
    {4096, 16, 4096}, {4097, 7, 4097},
};

typedef struct problem {
    clf_context *ctx;
    int f64, row, trans;
    size_t m, n, nx, ny;   /* A is m x n as stored; x and y lengths follow the transpose */
    size_t k;              /* a GEMM: x holds B (k x n as op(B)), y holds C (m x n); 0: matrix-vector */
    int ta, tb;            /* the GEMM's transposes */
    size_t ncopy;          /* elements the reference copy moves */
    cl_mem a, x, y, copy;
    void *ha, *hx;
} problem;

static uint64_t rng_state = 88172645463325252ull;
static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void *random_host(size_t n, int f64)
{
    void *h = malloc(n * (f64 ? 8 : 4));
    if (!h) {
        fprintf(stderr, "bench_gemv: out of host memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        f64 ? (((double *)h)[i] = urand()) : (((float *)h)[i] = (float)urand());
    return h;
}

static void problem_init(problem *p, clf_context *ctx, int f64, int row, int trans, int tb, shape s)
{
    memset(p, 0, sizeof *p);
    *p = (problem){.ctx = ctx, .f64 = f64, .row = row, .trans = trans, .m = s.m, .n = s.n, .k = s.k,
                   .ta = trans, .tb = tb};
    p->nx = trans ? s.m : s.n;
    p->ny = trans ? s.n : s.m;
    size_t na = s.m * s.n;
    if (s.k) {   /* A m x k, B k x n, C m x n */
        na = s.m * s.k;
        p->nx = s.k * s.n;
        p->ny = s.m * s.n;
    }
    size_t esz = f64 ? 8 : 4;
    p->ncopy = s.k ? na + p->nx : na;
    p->ha = random_host(na, f64);
    p->hx = random_host(p->nx, f64);
    p->a = clf_bench_buffer(ctx, na * esz, p->ha);
    p->x = clf_bench_buffer(ctx, p->nx * esz, p->hx);
    p->y = clf_bench_buffer(ctx, p->ny * esz, NULL);
    p->copy = clf_bench_buffer(ctx, 2 * p->ncopy * esz, NULL);   /* copied from its first half to its second */
}

static void problem_free(problem *p)
{
    clReleaseMemObject(p->a);
    clReleaseMemObject(p->x);
    clReleaseMemObject(p->y);
    clReleaseMemObject(p->copy);
    free(p->ha);
    free(p->hx);
}

/* Leading dimensions of the GEMM's stored operands: op(X) is r x c, stored transposed when t. */
static size_t gemm_ld(const problem *p, size_t r, size_t c, int t)
{
    return (p->row != 0) != (t != 0) ? c : r;
}

/* C = op(A) op(B), beta 0. */
static int run_gemm(problem *p)
{
    clf_layout lay = p->row ? CLF_ROW_MAJOR : CLF_COL_MAJOR;
    clf_transpose ta = p->ta ? CLF_TRANS : CLF_NO_TRANS, tb = p->tb ? CLF_TRANS : CLF_NO_TRANS;
    size_t lda = gemm_ld(p, p->m, p->k, p->ta), ldb = gemm_ld(p, p->k, p->n, p->tb), ldc = gemm_ld(p, p->m, p->n, 0);
    clf_status s = p->f64 ? clf_dgemm(p->ctx, lay, ta, tb, p->m, p->n, p->k, 1.0, p->a, 0, lda, p->x, 0, ldb, 0.0,
                                      p->y, 0, ldc, NULL)
                          : clf_sgemm(p->ctx, lay, ta, tb, p->m, p->n, p->k, 1.0f, p->a, 0, lda, p->x, 0, ldb, 0.0f,
                                      p->y, 0, ldc, NULL);
    if (s != CLF_SUCCESS)
        fprintf(stderr, "bench_gemv: clforge gemm: %s\n", clf_last_error());
    return s == CLF_SUCCESS;
}

/* y = A*x or A^T*x, beta 0 (repeated runs give the same y), lda the stored row or column length. */
static int run_clforge(void *arg)
{
    problem *p = arg;
    if (p->k)
        return run_gemm(p);
    clf_layout lay = p->row ? CLF_ROW_MAJOR : CLF_COL_MAJOR;
    clf_transpose t = p->trans ? CLF_TRANS : CLF_NO_TRANS;
    size_t lda = p->row ? p->n : p->m;
    clf_status s = p->f64
        ? clf_dgemv(p->ctx, lay, t, p->m, p->n, 1.0, p->a, 0, lda, p->x, 0, 1, 0.0, p->y, 0, 1, NULL)
        : clf_sgemv(p->ctx, lay, t, p->m, p->n, 1.0f, p->a, 0, lda, p->x, 0, 1, 0.0f, p->y, 0, 1, NULL);
    if (s != CLF_SUCCESS)
        fprintf(stderr, "bench_gemv: clforge: %s\n", clf_last_error());
    return s == CLF_SUCCESS;
}

/* The bandwidth reference: as many bytes as A (a GEMM: A and B) copied within another buffer. */
static int run_copy(void *arg)
{
    problem *p = arg;
    size_t bytes = p->ncopy * (p->f64 ? 8 : 4);
    clf_status s = clf_copy(p->ctx, p->copy, 0, p->copy, bytes, bytes, NULL);
    if (s != CLF_SUCCESS)
        fprintf(stderr, "bench_gemv: clf_copy: %s\n", clf_last_error());
    return s == CLF_SUCCESS;
}

#ifdef CLF_HAVE_CLBLAST
static int run_clblast_gemm(problem *p)
{
    cl_command_queue q = clf_context_queue(p->ctx);
    CLBlastLayout lay = p->row ? CLBlastLayoutRowMajor : CLBlastLayoutColMajor;
    CLBlastTranspose ta = p->ta ? CLBlastTransposeYes : CLBlastTransposeNo;
    CLBlastTranspose tb = p->tb ? CLBlastTransposeYes : CLBlastTransposeNo;
    size_t lda = gemm_ld(p, p->m, p->k, p->ta), ldb = gemm_ld(p, p->k, p->n, p->tb), ldc = gemm_ld(p, p->m, p->n, 0);
    CLBlastStatusCode s = p->f64
        ? CLBlastDgemm(lay, ta, tb, p->m, p->n, p->k, 1.0, p->a, 0, lda, p->x, 0, ldb, 0.0, p->y, 0, ldc, &q, NULL)
        : CLBlastSgemm(lay, ta, tb, p->m, p->n, p->k, 1.0f, p->a, 0, lda, p->x, 0, ldb, 0.0f, p->y, 0, ldc, &q, NULL);
    if (s != CLBlastSuccess)
        fprintf(stderr, "bench_gemv: CLBlast gemm status %d\n", (int)s);
    return s == CLBlastSuccess;
}

static int run_clblast(void *arg)
{
    problem *p = arg;
    if (p->k)
        return run_clblast_gemm(p);
    cl_command_queue q = clf_context_queue(p->ctx);
    CLBlastLayout lay = p->row ? CLBlastLayoutRowMajor : CLBlastLayoutColMajor;
    CLBlastTranspose t = p->trans ? CLBlastTransposeYes : CLBlastTransposeNo;
    size_t lda = p->row ? p->n : p->m;
    CLBlastStatusCode s = p->f64
        ? CLBlastDgemv(lay, t, p->m, p->n, 1.0, p->a, 0, lda, p->x, 0, 1, 0.0, p->y, 0, 1, &q, NULL)
        : CLBlastSgemv(lay, t, p->m, p->n, 1.0f, p->a, 0, lda, p->x, 0, 1, 0.0f, p->y, 0, 1, &q, NULL);
    if (s != CLBlastSuccess)
        fprintf(stderr, "bench_gemv: CLBlast status %d\n", (int)s);
    return s == CLBlastSuccess;
}
#endif

static double host_at(const problem *p, const void *h, size_t i)
{
    return p->f64 ? ((const double *)h)[i] : (double)((const float *)h)[i];
}

/* Entry i of y (a GEMM: element i of the stored C) by the double reference; *mag: the sum of |terms|. */
static double reference(const problem *p, size_t i, double *mag)
{
    double ref = 0;
    *mag = 0;
    if (p->k) {
        size_t r = p->row ? i / p->n : i % p->m, c = p->row ? i % p->n : i / p->m;
        size_t lda = gemm_ld(p, p->m, p->k, p->ta), ldb = gemm_ld(p, p->k, p->n, p->tb);
        for (size_t l = 0; l < p->k; l++) {
            size_t ar = p->ta ? l : r, ac = p->ta ? r : l, br = p->tb ? c : l, bc = p->tb ? l : c;
            double v = host_at(p, p->ha, p->row ? ar * lda + ac : ac * lda + ar) *
                       host_at(p, p->hx, p->row ? br * ldb + bc : bc * ldb + br);
            ref += v;
            *mag += fabs(v);
        }
        return ref;
    }
    for (size_t j = 0; j < p->nx; j++) {
        size_t r = p->trans ? j : i, c = p->trans ? i : j;   /* element (r, c) of the stored A */
        double v = host_at(p, p->ha, p->row ? r * p->n + c : c * p->m + r) * host_at(p, p->hx, j);
        ref += v;
        *mag += fabs(v);
    }
    return ref;
}

/* Checks 32 sampled entries of y (the last among them) against a double reference. */
static int verify(problem *p)
{
    int ok = 1;
    size_t esz = p->f64 ? 8 : 4;
    for (int t = 0; t < 32 && ok; t++) {
        size_t i = t == 0 ? p->ny - 1 : (size_t)(fabs(urand()) * (double)p->ny) % p->ny;
        double got = 0, mag = 0;
        unsigned char raw[8];
        if (clEnqueueReadBuffer(clf_context_queue(p->ctx), p->y, CL_TRUE, i * esz, esz, raw, 0, NULL, NULL) != 0)
            return 0;
        if (p->f64) {
            memcpy(&got, raw, 8);
        } else {
            float g;
            memcpy(&g, raw, 4);
            got = g;
        }
        double ref = reference(p, i, &mag), terms = (double)(p->k ? p->k : p->nx);
        ok = fabs(got - ref) <= 2.0 * (terms + 4) * (p->f64 ? 1.11e-16 : 5.97e-8) * mag + 1e-300;
        if (!ok)
            fprintf(stderr, "bench_gemv: y[%zu] = %.9g, reference %.9g\n", i, got, ref);
    }
    return ok;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_gemv [--device SEL] [--f64] [--trans] [--trans-b] [--col-major] [--shape MxN|MxNxK]...\n"
            "                  [--json FILE] [--reps N] [--no-clblast]\n"
            "  y = op(A)*x with A stored m x n (row-major unless --col-major; op = A^T with --trans).\n"
            "  MxNxK: the GEMM C (m x n) = op(A) op(B) (op(B) = B^T with --trans-b), e.g. 8x4096x4096.\n"
            "  GB/s: bytes of A + x + y (A + B + C) per second; copy: clf_copy of A's (and B's) bytes (read +\n"
            "  written per second).\n");
}

typedef struct options {
    const char *device, *json;
    int f64, trans, trans_b, col, reps, clblast, nshapes;
    shape shapes[64];
} options;

static int parse(int argc, char **argv, options *o)
{
    *o = (options){.reps = 7, .clblast = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--device") && i + 1 < argc) o->device = argv[++i];
        else if (!strcmp(a, "--json") && i + 1 < argc) o->json = argv[++i];
        else if (!strcmp(a, "--reps") && i + 1 < argc) o->reps = atoi(argv[++i]);
        else if (!strcmp(a, "--f64")) o->f64 = 1;
        else if (!strcmp(a, "--trans")) o->trans = 1;
        else if (!strcmp(a, "--trans-b")) o->trans_b = 1;
        else if (!strcmp(a, "--col-major")) o->col = 1;
        else if (!strcmp(a, "--no-clblast")) o->clblast = 0;
        else if (!strcmp(a, "--shape") && i + 1 < argc && o->nshapes < 64) {
            shape s = {0, 0, 0};
            int got = sscanf(argv[++i], "%zux%zux%zu", &s.m, &s.n, &s.k);
            if (got < 2 || !s.m || !s.n || (got == 3 && !s.k))
                return 0;
            o->shapes[o->nshapes++] = s;
        } else {
            return 0;
        }
    }
    if (o->reps < 1)
        o->reps = 1;
    if (o->nshapes == 0)
        for (size_t i = 0; i < sizeof default_shapes / sizeof *default_shapes; i++)
            o->shapes[o->nshapes++] = default_shapes[i];
    return 1;
}

/* Times one shape; prints a line and returns its JSON row. */
static json_t *bench_shape(clf_context *ctx, const options *o, shape s)
{
    problem p;
    problem_init(&p, ctx, o->f64, !o->col, o->trans, o->trans_b, s);
    double esz = o->f64 ? 8 : 4;
    double bytes = esz * ((double)(s.k ? s.m * s.k : s.m * s.n) + (double)p.nx + (double)p.ny);
    double t = clf_bench_time(ctx, run_clforge, &p, o->reps, 1000);
    int ok = t > 0 && verify(&p);
    double tc = clf_bench_time(ctx, run_copy, &p, o->reps, 1000);
    double gbs = t > 0 ? bytes / t / 1e9 : 0, copy_gbs = tc > 0 ? 2.0 * esz * (double)p.ncopy / tc / 1e9 : 0;
    json_t *row = json_pack("{s:I, s:I, s:I, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:b}", "m", (json_int_t)s.m,
                            "n", (json_int_t)s.n, "k", (json_int_t)s.k, "layout", o->col ? "col" : "row", "trans",
                            o->trans ? "T" : "N", "trans_b", o->trans_b ? "T" : "N", "bytes", bytes, "clforge_us",
                            t * 1e6, "clforge_gbs", gbs, "copy_gbs", copy_gbs, "fraction_of_copy",
                            copy_gbs > 0 ? gbs / copy_gbs : 0.0, "verified", ok);
    if (t <= 0)
        json_object_set_new(row, "error", json_string(clf_last_error()));
    char name[64];
    snprintf(name, sizeof name, s.k ? "%zux%zux%zu" : "%zux%zu", s.m, s.n, s.k);
    printf("%-16s %s%s%s clforge %8.1f us %8.1f GB/s (%4.2f of copy %7.1f GB/s)%s", name, o->col ? "col" : "row",
           o->trans ? "T" : "N", s.k ? (o->trans_b ? "T" : "N") : "", t * 1e6, gbs,
           copy_gbs > 0 ? gbs / copy_gbs : 0.0, copy_gbs, ok ? "" : " (WRONG)");
#ifdef CLF_HAVE_CLBLAST
    if (o->clblast) {
        double tb = clf_bench_time(ctx, run_clblast, &p, o->reps, 1000);
        double cb = tb > 0 ? bytes / tb / 1e9 : 0;
        json_object_set_new(row, "clblast_us", json_real(tb * 1e6));
        json_object_set_new(row, "clblast_gbs", json_real(cb));
        json_object_set_new(row, "ratio_vs_clblast", json_real(cb > 0 ? gbs / cb : 0));
        printf("  CLBlast %8.1f GB/s  ratio %.2f", cb, cb > 0 ? gbs / cb : 0.0);
    }
#endif
    printf("\n");
    fflush(stdout);
    problem_free(&p);
    return row;
}

int main(int argc, char **argv)
{
    options o;
    if (!parse(argc, argv, &o)) {
        usage();
        return 2;
    }
    clf_context_options copt = {.device = o.device};
    clf_context *ctx;
    if (clf_context_create(&copt, &ctx) != CLF_SUCCESS) {
        fprintf(stderr, "bench_gemv: %s\n", clf_last_error());
        return 1;
    }
    const clf_device_info *dev = clf_context_device(ctx);
    if (o.f64 && !dev->fp64) {
        fprintf(stderr, "bench_gemv: %s has no fp64\n", dev->name);
        clf_context_destroy(ctx);
        return 1;
    }
    char date[32], command[1024] = "";
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    for (int i = 0; i < argc; i++) {
        strncat(command, argv[i], sizeof command - strlen(command) - 2);
        strncat(command, " ", sizeof command - strlen(command) - 1);
    }
    json_t *devj = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i}", "name", dev->name, "vendor", dev->vendor, "driver",
                             dev->driver, "key", dev->key, "id", dev->id, "compute_units", (int)dev->compute_units);
    json_t *root = json_pack("{s:o, s:s, s:s, s:s, s:s}", "device", devj, "date", date, "command", command,
                             "precision", o.f64 ? "f64" : "f32", "timing",
                             "wall time around clFinish, back-to-back runs of >= 20 ms, median of repeats");
    json_t *rows = json_array();
    json_object_set_new(root, "results", rows);
    printf("# %s  (%s)  %s\n", dev->name, dev->driver, o.f64 ? "f64" : "f32");
    for (int i = 0; i < o.nshapes; i++)
        json_array_append_new(rows, bench_shape(ctx, &o, o.shapes[i]));
    int rc = 0;
    if (o.json && json_dump_file(root, o.json, JSON_INDENT(2)) != 0) {
        fprintf(stderr, "bench_gemv: cannot write %s\n", o.json);
        rc = 1;
    }
    json_decref(root);
    clf_context_destroy(ctx);
    return rc;
}
