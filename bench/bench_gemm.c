/* bench_gemm.c — times clforge's GEMM and CLBlast's on the same device, buffers and process (wall
 * time around clFinish over back-to-back runs, median of repeats), verifies clforge's result on
 * sampled entries, and writes every figure as JSON. --sweep times a list of configurations. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gemm.h"
#include "gemm_cpu.h"
#include "gemm_mma.h"
#include "gemm_waves.h"
#include "timer.h"
#ifdef CLF_HAVE_CLBLAST
#include <clblast_c.h>
#endif

typedef struct shape { size_t m, n, k; } shape;

static const shape full_shapes[] = {
    {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096},
    {8192, 8192, 8192}, {4097, 4097, 4097}, {8191, 8191, 8191}, {1000, 3000, 700}, {64, 4096, 4096},
    {4096, 64, 4096}, {4096, 4096, 64},
};
static const shape quick_shapes[] = {{256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {1000, 3000, 700}};

typedef struct problem {
    clf_context *ctx;
    int f64;
    size_t m, n, k;
    cl_mem a, b, c;
    void *ha, *hb;
} problem;

static uint64_t rng_state = 88172645463325252ull;
static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void problem_init(problem *p, clf_context *ctx, int f64, shape s)
{
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->f64 = f64;
    p->m = s.m;
    p->n = s.n;
    p->k = s.k;
    size_t esz = f64 ? 8 : 4;
    p->ha = malloc(s.m * s.k * esz);
    p->hb = malloc(s.k * s.n * esz);
    if (!p->ha || !p->hb) {
        fprintf(stderr, "bench_gemm: out of host memory\n");
        exit(1);
    }
    for (size_t i = 0; i < s.m * s.k; i++)
        f64 ? (((double *)p->ha)[i] = urand()) : (((float *)p->ha)[i] = (float)urand());
    for (size_t i = 0; i < s.k * s.n; i++)
        f64 ? (((double *)p->hb)[i] = urand()) : (((float *)p->hb)[i] = (float)urand());
    p->a = clf_bench_buffer(ctx, s.m * s.k * esz, p->ha);
    p->b = clf_bench_buffer(ctx, s.k * s.n * esz, p->hb);
    p->c = clf_bench_buffer(ctx, s.m * s.n * esz, NULL);
}

static void problem_free(problem *p)
{
    clReleaseMemObject(p->a);
    clReleaseMemObject(p->b);
    clReleaseMemObject(p->c);
    free(p->ha);
    free(p->hb);
}

/* Row-major NN, C = A*B (beta 0, so repeated runs give the same C). */
static int run_clforge(problem *p)
{
    clf_status s = p->f64
        ? clf_dgemm(p->ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, p->m, p->n, p->k, 1.0, p->a, 0, p->k, p->b, 0,
                    p->n, 0.0, p->c, 0, p->n, NULL)
        : clf_sgemm(p->ctx, CLF_ROW_MAJOR, CLF_NO_TRANS, CLF_NO_TRANS, p->m, p->n, p->k, 1.0f, p->a, 0, p->k, p->b,
                    0, p->n, 0.0f, p->c, 0, p->n, NULL);
    if (s != CLF_SUCCESS)
        fprintf(stderr, "bench_gemm: clforge: %s\n", clf_last_error());
    return s == CLF_SUCCESS;
}

#ifdef CLF_HAVE_CLBLAST
static int run_clblast(problem *p)
{
    cl_command_queue q = clf_context_queue(p->ctx);
    CLBlastStatusCode s = p->f64
        ? CLBlastDgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, p->m, p->n, p->k, 1.0, p->a,
                       0, p->k, p->b, 0, p->n, 0.0, p->c, 0, p->n, &q, NULL)
        : CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, p->m, p->n, p->k, 1.0f, p->a,
                       0, p->k, p->b, 0, p->n, 0.0f, p->c, 0, p->n, &q, NULL);
    if (s != CLBlastSuccess)
        fprintf(stderr, "bench_gemm: CLBlast status %d\n", (int)s);
    return s == CLBlastSuccess;
}
#endif

/* Times run on p with the shared loop (timer.h). */
typedef struct { problem *p; int (*run)(problem *); } thunk;
static int call_thunk(void *arg) { thunk *t = arg; return t->run(t->p); }
static double time_runs(problem *p, int (*run)(problem *), int reps)
{
    thunk t = {p, run};
    return clf_bench_time(p->ctx, call_thunk, &t, reps, 200);
}

/* Checks 64 sampled entries of C (and that none is NaN among them) against a double reference. */
static int verify(problem *p)
{
    size_t esz = p->f64 ? 8 : 4, m = p->m, n = p->n, k = p->k;
    int ok = 1;
    for (int t = 0; t < 64 && ok; t++) {
        size_t i = t == 0 ? m - 1 : (size_t)(fabs(urand()) * (double)m) % m;
        size_t j = t == 0 ? n - 1 : (size_t)(fabs(urand()) * (double)n) % n;
        double got, ref = 0, mag = 0;
        if (p->f64) {
            clEnqueueReadBuffer(clf_context_queue(p->ctx), p->c, CL_TRUE, (i * n + j) * esz, esz, &got, 0, NULL, NULL);
        } else {
            float g;
            clEnqueueReadBuffer(clf_context_queue(p->ctx), p->c, CL_TRUE, (i * n + j) * esz, esz, &g, 0, NULL, NULL);
            got = g;
        }
        for (size_t l = 0; l < k; l++) {
            double x = p->f64 ? ((double *)p->ha)[i * k + l] * ((double *)p->hb)[l * n + j]
                              : (double)((float *)p->ha)[i * k + l] * (double)((float *)p->hb)[l * n + j];
            ref += x;
            mag += fabs(x);
        }
        double u = p->f64 ? 1.11e-16 : 5.97e-8;
        ok = fabs(got - ref) <= 2.0 * (double)(k + 4) * u * mag + 1e-300;
        if (!ok)
            fprintf(stderr, "bench_gemm: C[%zu][%zu] = %.9g, reference %.9g\n", i, j, got, ref);
    }
    return ok;
}

/* The path the planner takes for p (row-major NN, beta 0, as run_clforge calls it), the configuration its
 * first kernel step runs (gemm, gemm_mma or gemm_cpu; "" for the gemv kernels) into cfgtext, and the bucket
 * that configuration came from where the planner chose one (*bucket: it may move a product to smaller tiles). */
static const char *plan_path(problem *p, char *cfgtext, size_t cap, const char **bucket)
{
    clf__gemm_call call = {.dtype = p->f64 ? CLF_F64 : CLF_F32, .layout = CLF_ROW_MAJOR, .ta = CLF_NO_TRANS,
                           .tb = CLF_NO_TRANS, .m = p->m, .n = p->n, .k = p->k, .alpha = 1.0, .a = p->a, .lda = p->k,
                           .b = p->b, .ldb = p->n, .c = p->c, .ldc = p->n, .batch = 1};
    static clf__gemm_plan plan;   /* large: off the stack */
    cfgtext[0] = '\0';
    if (clf__gemm_plan_make(p->ctx, &call, NULL, CLF__GEMM_AUTO, &plan) != CLF_SUCCESS)
        return "?";
    if (plan.bucket)
        *bucket = plan.bucket;
    for (int i = 0; i < plan.nsteps; i++) {
        const clf__gemm_step *st = &plan.steps[i];
        const clf__family *f = st->kind == CLF__STEP_MAIN  ? &clf__family_gemm
                               : st->kind == CLF__STEP_MMA ? &clf__family_gemm_mma
                               : st->kind == CLF__STEP_CPU ? &clf__family_gemm_cpu
                                                           : NULL;
        if (f) {
            const clf__config *cfg = st->kind == CLF__STEP_MAIN  ? st->u.main.cfg
                                     : st->kind == CLF__STEP_MMA ? st->u.mma.cfg
                                                                 : st->u.cpu.cfg;
            clf__config_format(f, cfg, cfgtext, cap);
            break;
        }
    }
    return plan.path;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_gemm [--device SEL] [--quick] [--f64] [--json FILE] [--reps N] [--max-gflop X]\n"
            "                  [--shape MxNxK]... [--sweep FILE] [--no-clblast] [--waves BUCKET,...]\n"
            "  --sweep FILE: time every configuration in FILE (one per line, NAME=V pairs, partial\n"
            "                sets allowed: they override the selected configuration as CLFORGE_GEMM_CONFIG\n"
            "                does) on the shapes given with --shape (default 4096^3).\n"
            "  --waves BUCKETS: measure how many work-groups of each bucket's configuration share a compute\n"
            "                unit (GPUs; the \"wg_per_cu\" of tuning entries) and print the probe's times, then\n"
            "                the times of 1..8 tiles per unit at K = 512 and 2048 (\"tile_ns\").\n");
}

/* --waves: the probe of gemm_waves.c on each listed bucket's selected configuration. */
static int waves_report(clf_context *ctx, int f64, const char *list)
{
    clf_dtype dt = f64 ? CLF_F64 : CLF_F32;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    int rc = 0;
    for (char *b = strtok(buf, ","); b; b = strtok(NULL, ",")) {
        clf__config cfg;
        const char *origin = NULL;
        char text[256];
        int per_cu = 0, ns[2 * CLF__TILE_PROBE_ROWS];
        clf_status s = clf__config_resolve(ctx, &clf__family_gemm, dt, b, &cfg, &origin);
        if (s == CLF_SUCCESS)   /* one probe: its K = 512 pass is the waves probe */
            s = clf__gemm_measure_tile_ns(ctx, &clf__family_gemm, dt, b, &cfg, ns, &per_cu);
        if (per_cu > 0) {
            clf__config_format(&clf__family_gemm, &cfg, text, sizeof text);
            printf("%-8s %s (%s): wg_per_cu %d; ms for 1..8 rows of tiles per compute unit:", b, text, origin, per_cu);
            for (int j = 0; j < CLF__TILE_PROBE_ROWS; j++)
                printf(" %.3f", ns[j] * 1e-6);
            printf("\n");
        }
        if (s != CLF_SUCCESS) {
            fprintf(stderr, "bench_gemm: --waves %s: %s\n", b, clf_last_error());
            rc = 1;
            continue;
        }
        printf("%-8s \"tile_ns\": [", b);   /* as the tuner stores it */
        for (int j = 0; j < 2 * CLF__TILE_PROBE_ROWS; j++)
            printf("%s%d", j ? ", " : "", ns[j]);
        printf("]\n");
    }
    return rc;
}

static json_t *device_json(clf_context *ctx)
{
    const clf_device_info *d = clf_context_device(ctx);
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i}", "name", d->name, "vendor", d->vendor, "driver", d->driver,
                     "key", d->key, "id", d->id, "compute_units", (int)d->compute_units);
}

int main(int argc, char **argv)
{
    const char *device = NULL, *json_path = NULL, *sweep = NULL, *waves = NULL;
    int quick = 0, f64 = 0, reps = 7, clblast = 1;
    double max_gflop = -1;
    shape shapes[64];
    int nshapes = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(a, "--json") && i + 1 < argc) json_path = argv[++i];
        else if (!strcmp(a, "--sweep") && i + 1 < argc) sweep = argv[++i];
        else if (!strcmp(a, "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(a, "--max-gflop") && i + 1 < argc) max_gflop = atof(argv[++i]);
        else if (!strcmp(a, "--quick")) quick = 1;
        else if (!strcmp(a, "--f64")) f64 = 1;
        else if (!strcmp(a, "--no-clblast")) clblast = 0;
        else if (!strcmp(a, "--waves") && i + 1 < argc) waves = argv[++i];
        else if (!strcmp(a, "--shape") && i + 1 < argc && nshapes < 64) {
            shape s;
            if (sscanf(argv[++i], "%zux%zux%zu", &s.m, &s.n, &s.k) != 3 || !s.m || !s.n || !s.k) {
                usage();
                return 2;
            }
            shapes[nshapes++] = s;
        } else {
            usage();
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    clf_context_options opt = {.device = device};
    clf_context *ctx;
    if (clf_context_create(&opt, &ctx) != CLF_SUCCESS) {
        fprintf(stderr, "bench_gemm: %s\n", clf_last_error());
        return 1;
    }
    const clf_device_info *dev = clf_context_device(ctx);
    if (f64 && !dev->fp64) {
        fprintf(stderr, "bench_gemm: %s has no fp64\n", dev->name);
        clf_context_destroy(ctx);
        return 1;
    }
    if (waves) {
        int rc = waves_report(ctx, f64, waves);
        clf_context_destroy(ctx);
        return rc;
    }
    if (max_gflop < 0)   /* CPU devices: skip shapes that would take minutes */
        max_gflop = (dev->type & CL_DEVICE_TYPE_CPU) ? 5.0 : 1e9;
    if (nshapes == 0) {
        const shape *src = quick ? quick_shapes : full_shapes;
        int cnt = quick ? (int)(sizeof quick_shapes / sizeof *quick_shapes) : (int)(sizeof full_shapes / sizeof *full_shapes);
        if (sweep) {
            src = &full_shapes[4];   /* 4096^3 */
            cnt = 1;
        }
        for (int i = 0; i < cnt; i++)
            shapes[nshapes++] = src[i];
    }
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    char command[1024] = "";
    for (int i = 0; i < argc; i++) {
        strncat(command, argv[i], sizeof command - strlen(command) - 2);
        strncat(command, " ", sizeof command - strlen(command) - 1);
    }
    json_t *root = json_pack("{s:o, s:s, s:s, s:s, s:s}", "device", device_json(ctx), "date", date, "command",
                             command, "precision", f64 ? "f64" : "f32", "timing",
                             "wall time around clFinish, back-to-back runs of >= 20 ms, median of repeats");
    json_t *rows = json_array();
    json_object_set_new(root, "results", rows);
    printf("# %s  (%s)  %s\n", dev->name, dev->driver, f64 ? "f64" : "f32");

    /* The list of configurations to sweep (or one empty entry: the selected configuration). */
    char *lines[512];
    int nlines = 0;
    if (sweep) {
        FILE *f = fopen(sweep, "r");
        if (!f) {
            fprintf(stderr, "bench_gemm: cannot open %s\n", sweep);
            return 1;
        }
        char buf[512];
        while (nlines < 512 && fgets(buf, sizeof buf, f)) {
            buf[strcspn(buf, "\r\n#")] = '\0';
            if (strspn(buf, " \t") < strlen(buf))
                lines[nlines++] = strdup(buf);
        }
        fclose(f);
    } else {
        lines[nlines++] = NULL;
    }

    for (int si = 0; si < nshapes; si++) {
        shape s = shapes[si];
        double flop = 2.0 * (double)s.m * (double)s.n * (double)s.k;
        if (flop / 1e9 > max_gflop) {
            printf("%5zux%5zux%5zu  skipped (%.0f GFLOP > --max-gflop %.0f)\n", s.m, s.n, s.k, flop / 1e9, max_gflop);
            continue;
        }
        problem p;
        problem_init(&p, ctx, f64, s);
        for (int li = 0; li < nlines; li++) {
            const char *bucket = clf__gemm_bucket(dev, s.m, s.n, s.k);
            if (lines[li])
                setenv("CLFORGE_GEMM_CONFIG", lines[li], 1);
            char cfgtext[256];
            const char *path = plan_path(&p, cfgtext, sizeof cfgtext, &bucket);
            double t = time_runs(&p, run_clforge, reps);
            int ok = t > 0 && verify(&p);
            double gf = t > 0 ? flop / t / 1e9 : 0;
            json_t *row = json_pack("{s:I, s:I, s:I, s:s, s:s, s:s, s:f, s:f, s:b}", "m", (json_int_t)s.m, "n",
                                    (json_int_t)s.n, "k", (json_int_t)s.k, "bucket", bucket, "path", path, "config",
                                    cfgtext, "clforge_ms", t * 1e3, "clforge_gflops", gf, "verified", ok);
            if (t <= 0)
                json_object_set_new(row, "error", json_string(clf_last_error()));
            double cb = 0;
#ifdef CLF_HAVE_CLBLAST
            if (clblast && !sweep) {
                double tc = time_runs(&p, run_clblast, reps);
                cb = tc > 0 ? flop / tc / 1e9 : 0;
                json_object_set_new(row, "clblast_ms", json_real(tc * 1e3));
                json_object_set_new(row, "clblast_gflops", json_real(cb));
                json_object_set_new(row, "ratio_vs_clblast", json_real(cb > 0 ? gf / cb : 0));
            }
#endif
            json_array_append_new(rows, row);
            printf("%5zux%5zux%5zu  %-6s %-7s clforge %9.1f GFLOP/s%s", s.m, s.n, s.k,
                   strcmp(path, "cpu") ? bucket : "cpu", path, gf, ok ? "" : " (WRONG)");
            if (cb > 0)
                printf("  CLBlast %9.1f GFLOP/s  ratio %.2f", cb, gf / cb);
            printf("  [%s]\n", cfgtext);
            fflush(stdout);
            if (lines[li])
                unsetenv("CLFORGE_GEMM_CONFIG");
        }
        problem_free(&p);
    }
    int rc = 0;
    if (json_path && json_dump_file(root, json_path, JSON_INDENT(2)) != 0) {
        fprintf(stderr, "bench_gemm: cannot write %s\n", json_path);
        rc = 1;
    }
    json_decref(root);
    for (int i = 0; i < nlines; i++)
        free(lines[i]);
    clf_context_destroy(ctx);
    return rc;
}
