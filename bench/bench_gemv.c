/* bench_gemv.c — times clforge's matrix-vector product (and CLBlast's, when found) on the same device,
 * buffers and process, against a device copy of A's bytes (clf_copy) as the bandwidth reference. Reports
 * effective GB/s (bytes of A + x + y over the time) and the fraction of the copy's GB/s (bytes read +
 * written); verifies clforge's y on sampled entries; writes every figure as JSON. */
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

typedef struct shape { size_t m, n; } shape;

static const shape default_shapes[] = {
    {4096, 4096}, {8192, 8192}, {1, 4096}, {4096, 1}, {16, 4096}, {4096, 16}, {1000, 1000}, {4097, 4097},
    {1024, 16384}, {16384, 1024},
};

typedef struct problem {
    clf_context *ctx;
    int f64, row, trans;
    size_t m, n, nx, ny;   /* A is m x n as stored; x and y lengths follow the transpose */
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

static void problem_init(problem *p, clf_context *ctx, int f64, int row, int trans, shape s)
{
    memset(p, 0, sizeof *p);
    *p = (problem){.ctx = ctx, .f64 = f64, .row = row, .trans = trans, .m = s.m, .n = s.n};
    p->nx = trans ? s.m : s.n;
    p->ny = trans ? s.n : s.m;
    size_t esz = f64 ? 8 : 4;
    p->ha = random_host(s.m * s.n, f64);
    p->hx = random_host(p->nx, f64);
    p->a = clf_bench_buffer(ctx, s.m * s.n * esz, p->ha);
    p->x = clf_bench_buffer(ctx, p->nx * esz, p->hx);
    p->y = clf_bench_buffer(ctx, p->ny * esz, NULL);
    p->copy = clf_bench_buffer(ctx, s.m * s.n * esz, NULL);
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

/* y = A*x or A^T*x, beta 0 (repeated runs give the same y), lda the stored row or column length. */
static int run_clforge(void *arg)
{
    problem *p = arg;
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

/* The bandwidth reference: A's bytes copied to another buffer. */
static int run_copy(void *arg)
{
    problem *p = arg;
    clf_status s = clf_copy(p->ctx, p->a, 0, p->copy, 0, p->m * p->n * (p->f64 ? 8 : 4), NULL);
    if (s != CLF_SUCCESS)
        fprintf(stderr, "bench_gemv: clf_copy: %s\n", clf_last_error());
    return s == CLF_SUCCESS;
}

#ifdef CLF_HAVE_CLBLAST
static int run_clblast(void *arg)
{
    problem *p = arg;
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

/* Checks 32 sampled entries of y (the last among them) against a double reference. */
static int verify(problem *p)
{
    int ok = 1;
    size_t esz = p->f64 ? 8 : 4;
    for (int t = 0; t < 32 && ok; t++) {
        size_t i = t == 0 ? p->ny - 1 : (size_t)(fabs(urand()) * (double)p->ny) % p->ny;
        double got = 0, ref = 0, mag = 0;
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
        for (size_t j = 0; j < p->nx; j++) {
            size_t r = p->trans ? j : i, c = p->trans ? i : j;   /* element (r, c) of the stored A */
            size_t at = p->row ? r * p->n + c : c * p->m + r;
            double v = p->f64 ? ((double *)p->ha)[at] * ((double *)p->hx)[j]
                              : (double)((float *)p->ha)[at] * (double)((float *)p->hx)[j];
            ref += v;
            mag += fabs(v);
        }
        ok = fabs(got - ref) <= 2.0 * (double)(p->nx + 4) * (p->f64 ? 1.11e-16 : 5.97e-8) * mag + 1e-300;
        if (!ok)
            fprintf(stderr, "bench_gemv: y[%zu] = %.9g, reference %.9g\n", i, got, ref);
    }
    return ok;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_gemv [--device SEL] [--f64] [--trans] [--col-major] [--shape MxN]... [--json FILE]\n"
            "                  [--reps N] [--no-clblast]\n"
            "  y = op(A)*x with A stored m x n (row-major unless --col-major; op = A^T with --trans).\n"
            "  GB/s: bytes of A + x + y per second; copy: clf_copy of A's bytes (read + written per second).\n");
}

typedef struct options {
    const char *device, *json;
    int f64, trans, col, reps, clblast, nshapes;
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
        else if (!strcmp(a, "--col-major")) o->col = 1;
        else if (!strcmp(a, "--no-clblast")) o->clblast = 0;
        else if (!strcmp(a, "--shape") && i + 1 < argc && o->nshapes < 64) {
            shape s;
            if (sscanf(argv[++i], "%zux%zu", &s.m, &s.n) != 2 || !s.m || !s.n)
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
    problem_init(&p, ctx, o->f64, !o->col, o->trans, s);
    double esz = o->f64 ? 8 : 4;
    double bytes = esz * ((double)s.m * (double)s.n + (double)p.nx + (double)p.ny);
    double t = clf_bench_time(ctx, run_clforge, &p, o->reps, 1000);
    int ok = t > 0 && verify(&p);
    double tc = clf_bench_time(ctx, run_copy, &p, o->reps, 1000);
    double gbs = t > 0 ? bytes / t / 1e9 : 0, copy_gbs = tc > 0 ? 2.0 * esz * (double)s.m * (double)s.n / tc / 1e9 : 0;
    json_t *row = json_pack("{s:I, s:I, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:b}", "m", (json_int_t)s.m, "n",
                            (json_int_t)s.n, "layout", o->col ? "col" : "row", "trans", o->trans ? "T" : "N", "bytes",
                            bytes, "clforge_us", t * 1e6, "clforge_gbs", gbs, "copy_gbs", copy_gbs,
                            "fraction_of_copy", copy_gbs > 0 ? gbs / copy_gbs : 0.0, "verified", ok);
    if (t <= 0)
        json_object_set_new(row, "error", json_string(clf_last_error()));
    printf("%6zux%-6zu %s%s clforge %8.1f us %8.1f GB/s (%4.2f of copy %7.1f GB/s)%s", s.m, s.n, o->col ? "col" : "row",
           o->trans ? "T" : "N", t * 1e6, gbs, copy_gbs > 0 ? gbs / copy_gbs : 0.0, copy_gbs, ok ? "" : " (WRONG)");
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
