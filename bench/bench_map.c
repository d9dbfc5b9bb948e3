/* bench_map.c — on one device: clf_copy against the driver's clEnqueueCopyBuffer, the fused map
 * y = relu(a*x + b) against copy bandwidth and against the same work as three separate maps, and a
 * sweep of copy/map configurations; with --half, the 16-bit maps (f16 relu(a*x + b), f32 -> bf16 and
 * bf16 -> f32 casts) against copy bandwidth by bytes moved, and a sweep of their configurations; verifies
 * results, prints a table and writes JSON (--json). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "timer.h"

typedef struct bench {
    clf_context *ctx;
    size_t n, bytes;               /* elements and bytes per buffer */
    cl_mem x, a, b, y, t, u, dst;
    float *hx, *ha, *hb;
} bench;

#define VEC(nm, m) {.name = nm, .kind = CLF_ARG_BUFFER, .dtype = CLF_F32, .buffer = m}

static int run_clf_copy(bench *p) { return clf_copy(p->ctx, p->x, 0, p->dst, 0, p->bytes, NULL) == CLF_SUCCESS; }

static int run_cl_copy(bench *p)
{
    return clEnqueueCopyBuffer(clf_context_queue(p->ctx), p->x, p->dst, 0, 0, p->bytes, 0, NULL, NULL) == CL_SUCCESS;
}

static int run_fused(bench *p)
{
    clf_map_arg args[4] = {VEC("y", p->y), VEC("a", p->a), VEC("x", p->x), VEC("b", p->b)};
    return clf_map(p->ctx, "y = relu(a*x + b)", p->n, args, 4, NULL) == CLF_SUCCESS;
}

/* The same formula as three kernels with two temporaries, as an eager framework runs it. */
static int run_unfused(bench *p)
{
    clf_map_arg m1[3] = {VEC("t", p->t), VEC("a", p->a), VEC("x", p->x)};
    clf_map_arg m2[3] = {VEC("u", p->u), VEC("t", p->t), VEC("b", p->b)};
    clf_map_arg m3[2] = {VEC("y", p->y), VEC("u", p->u)};
    return clf_map(p->ctx, "t = a*x", p->n, m1, 3, NULL) == CLF_SUCCESS &&
           clf_map(p->ctx, "u = t + b", p->n, m2, 3, NULL) == CLF_SUCCESS &&
           clf_map(p->ctx, "y = relu(u)", p->n, m3, 2, NULL) == CLF_SUCCESS;
}

static int run_scalar_ab(bench *p)
{
    clf_map_arg args[4] = {VEC("y", p->y), {.name = "a", .kind = CLF_ARG_SCALAR, .value = 0.5}, VEC("x", p->x),
                           {.name = "b", .kind = CLF_ARG_SCALAR, .value = 0.25}};
    return clf_map(p->ctx, "y = relu(a*x + b)", p->n, args, 4, NULL) == CLF_SUCCESS;
}

/* Times run on p with the shared loop (timer.h). */
typedef struct { bench *p; int (*run)(bench *); } thunk;
static int call_thunk(void *arg) { thunk *t = arg; return t->run(t->p); }
static double time_runs(bench *p, int (*run)(bench *), int reps)
{
    thunk t = {p, run};
    return clf_bench_time(p->ctx, call_thunk, &t, reps, 500);
}

/* Compares a device buffer with a reference computed on the host; returns the number of mismatches. */
static size_t verify(bench *p, cl_mem m, int relu_axpb)
{
    float *got = malloc(p->bytes);
    if (!got || clEnqueueReadBuffer(clf_context_queue(p->ctx), m, CL_TRUE, 0, p->bytes, got, 0, NULL, NULL) != CL_SUCCESS) {
        free(got);
        return p->n;
    }
    size_t bad = 0;
    for (size_t i = 0; i < p->n; i++) {
        float want = relu_axpb ? fmaxf(p->ha[i] * p->hx[i] + p->hb[i], 0.0f) : p->hx[i];
        if (!(fabsf(got[i] - want) <= 1e-6f * (1.0f + fabsf(want))))
            bad++;
    }
    free(got);
    return bad;
}

static json_t *sweep(bench *p, const char *env, int (*run)(bench *), double bytes_per_run, int reps, int small,
                     double *best_gbs, char *best_cfg, size_t cap)
{
    static const int vws[] = {1, 2, 4, 8, 16}, epts[] = {1, 2, 4, 8}, wgs[] = {64, 128, 256, 512};
    json_t *rows = json_array();
    *best_gbs = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 4; k++) {
                if (small && (vws[i] < 4 || epts[j] > 2 || (wgs[k] != 64 && wgs[k] != 256)))
                    continue;
                char cfg[64];
                snprintf(cfg, sizeof cfg, "VW=%d EPT=%d WG=%d", vws[i], epts[j], wgs[k]);
                setenv(env, cfg, 1);
                double t = time_runs(p, run, reps);
                double gbs = t > 0 ? bytes_per_run / t / 1e9 : 0;
                json_array_append_new(rows, json_pack("{s:s, s:f}", "config", cfg, "gbs", gbs));
                if (gbs > *best_gbs) {
                    *best_gbs = gbs;
                    snprintf(best_cfg, cap, "%s", cfg);
                }
            }
    unsetenv(env);
    return rows;
}

/* ---- 16-bit storage: n elements per buffer; x32 holds the f32 input, h[0..3] f16/bf16 buffers ---- */
typedef struct half_bench {
    clf_context *ctx;
    size_t n;
    cl_mem x32, y32, h[4];
} half_bench;

#define HV(nm, m, t) {.name = nm, .kind = CLF_ARG_BUFFER, .dtype = t, .buffer = m}
static int run_f16_relu(void *arg)
{
    half_bench *h = arg;
    clf_map_arg args[4] = {HV("y", h->h[0], CLF_F16), HV("a", h->h[1], CLF_F16), HV("x", h->h[2], CLF_F16),
                           HV("b", h->h[3], CLF_F16)};
    return clf_map(h->ctx, "y = relu(a*x + b)", h->n, args, 4, NULL) == CLF_SUCCESS;
}
static int run_to_bf16(void *arg)
{
    half_bench *h = arg;
    clf_map_arg args[2] = {HV("y", h->h[0], CLF_BF16), HV("x", h->x32, CLF_F32)};
    return clf_map(h->ctx, "y = x", h->n, args, 2, NULL) == CLF_SUCCESS;
}
static int run_from_bf16(void *arg)
{
    half_bench *h = arg;
    clf_map_arg args[2] = {HV("y", h->y32, CLF_F32), HV("x", h->h[0], CLF_BF16)};
    return clf_map(h->ctx, "y = x", h->n, args, 2, NULL) == CLF_SUCCESS;
}

/* Elements whose bf16 round trip (x -> bf16 -> f32) differs from round-to-nearest-even on the host. */
static size_t verify_bf16(half_bench *h, const float *hx)
{
    float *got = malloc(h->n * sizeof(float));
    size_t bad = 0;
    if (!got || clEnqueueReadBuffer(clf_context_queue(h->ctx), h->y32, CL_TRUE, 0, h->n * 4, got, 0, NULL, NULL)) {
        free(got);
        return h->n;
    }
    for (size_t i = 0; i < h->n; i++) {
        uint32_t u, g;
        memcpy(&u, &hx[i], 4), memcpy(&g, &got[i], 4);
        u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
        bad += u != g;
    }
    free(got);
    return bad;
}

/* Times run (and run2, the other cast direction, when given) under each configuration of the map family
 * (CLFORGE_MAP_CONFIG): [{config, gbs[, gbs2]}]. Mixed maps (the casts) and all-16-bit ones share the
 * f16 key, so both sweeps say what that key's entry should be. */
static json_t *sweep_half(half_bench *h, int (*run)(void *), int (*run2)(void *), double bytes, int reps,
                          double copy_gbs)
{
    static const char *cfgs[] = {"VW=2 EPT=1 WG=256", "VW=2 EPT=1 WG=1024", "VW=4 EPT=1 WG=128", "VW=4 EPT=1 WG=256",
                                 "VW=4 EPT=1 WG=512", "VW=4 EPT=2 WG=256", "VW=8 EPT=1 WG=256", "VW=8 EPT=2 WG=256",
                                 "VW=8 EPT=4 WG=256", "VW=16 EPT=1 WG=256"};
    json_t *sw = json_array();
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        setenv("CLFORGE_MAP_CONFIG", cfgs[c], 1);
        double t = clf_bench_time(h->ctx, run, h, reps < 5 ? reps : 5, 500), g = t > 0 ? bytes / t / 1e9 : 0;
        double t2 = run2 ? clf_bench_time(h->ctx, run2, h, reps < 5 ? reps : 5, 500) : 0;
        double g2 = t2 > 0 ? bytes / t2 / 1e9 : 0;
        json_t *e = json_pack("{s:s, s:f}", "config", cfgs[c], "gbs", g);
        if (run2) {
            json_object_set_new(e, "gbs2", json_real(g2));
            printf("  casts %-20s f32->bf16 %8.1f GB/s (%.3f of copy)  bf16->f32 %8.1f GB/s (%.3f)\n", cfgs[c], g,
                   g / copy_gbs, g2, g2 / copy_gbs);
        } else {
            printf("  f16 map %-20s %8.1f GB/s (%.3f of copy)\n", cfgs[c], g, g / copy_gbs);
        }
        json_array_append_new(sw, e);
    }
    unsetenv("CLFORGE_MAP_CONFIG");
    return sw;
}

/* The 16-bit maps as fractions of copy_gbs, by the bytes each moves; sweeps of the f16 map and the casts. */
static json_t *half_maps(clf_context *ctx, const float *hx, size_t n, int reps, double copy_gbs)
{
    half_bench h = {.ctx = ctx, .n = n};
    h.x32 = clf_bench_buffer(ctx, n * 4, hx), h.y32 = clf_bench_buffer(ctx, n * 4, NULL);
    for (int i = 0; i < 4; i++) h.h[i] = clf_bench_buffer(ctx, n * 2, NULL);
    for (int i = 1; i < 4; i++) clf_convert(ctx, CLF_F32, h.x32, 0, CLF_F16, h.h[i], 0, n, NULL);
    struct { const char *name; int (*run)(void *); double bytes; } rows[] = {
        {"f16 y = relu(a*x + b) (3R 1W)", run_f16_relu, 8.0 * (double)n},
        {"f32 -> bf16 cast", run_to_bf16, 6.0 * (double)n},
        {"bf16 -> f32 cast", run_from_bf16, 6.0 * (double)n}};
    json_t *res = json_object();
    for (int i = 0; i < 3; i++) {
        double t = clf_bench_time(ctx, rows[i].run, &h, reps, 500), g = t > 0 ? rows[i].bytes / t / 1e9 : 0;
        printf("%-44s %9.3f ms %8.1f GB/s   / copy bandwidth = %.3f\n", rows[i].name, t * 1e3, g, g / copy_gbs);
        json_object_set_new(res, rows[i].name, json_pack("{s:f, s:f, s:f}", "ms", t * 1e3, "gbs", g,
                                                          "ratio_vs_copy_bandwidth", g / copy_gbs));
    }
    size_t bad = verify_bf16(&h, hx);
    printf("bf16 round trip: %zu elements differ from round-to-nearest-even\n", bad);
    json_object_set_new(res, "bf16_mismatches", json_integer((json_int_t)bad));
    json_object_set_new(res, "f16_sweep", sweep_half(&h, run_f16_relu, NULL, 8.0 * (double)n, reps, copy_gbs));
    json_object_set_new(res, "cast_sweep", sweep_half(&h, run_to_bf16, run_from_bf16, 6.0 * (double)n, reps,
                                                      copy_gbs));
    char cfg[256] = "", org[32] = "";
    clf_config_in_use(ctx, "map", "f16", "default", cfg, sizeof cfg, org, sizeof org);
    json_object_set_new(res, "f16_config", json_pack("{s:s, s:s}", "config", cfg, "origin", org));
    clReleaseMemObject(h.x32), clReleaseMemObject(h.y32);
    for (int i = 0; i < 4; i++) clReleaseMemObject(h.h[i]);
    return res;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_map [--device SEL] [--quick] [--mib N] [--reps N] [--no-sweep] [--half] [--json FILE]\n"
                    "  N MiB per buffer (default 256 on GPUs; 16 with --quick, the default on CPUs)\n");
}

int main(int argc, char **argv)
{
    const char *device = NULL, *json_path = NULL;
    int quick = 0, reps = 9, do_sweep = 1, do_half = 0;
    size_t mib = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(a, "--json") && i + 1 < argc) json_path = argv[++i];
        else if (!strcmp(a, "--mib") && i + 1 < argc) mib = (size_t)atol(argv[++i]);
        else if (!strcmp(a, "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(a, "--quick")) quick = 1;
        else if (!strcmp(a, "--no-sweep")) do_sweep = 0;
        else if (!strcmp(a, "--half")) do_half = 1;
        else {
            usage();
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    clf_context_options opt = {.device = device};
    clf_context *ctx;
    if (clf_context_create(&opt, &ctx) != CLF_SUCCESS) {
        fprintf(stderr, "bench_map: %s\n", clf_last_error());
        return 1;
    }
    const clf_device_info *dev = clf_context_device(ctx);
    int cpu = (dev->type & CL_DEVICE_TYPE_GPU) == 0;
    if (!mib)
        mib = quick || cpu ? 16 : 256;
    bench p = {.ctx = ctx, .bytes = mib << 20};
    p.n = p.bytes / sizeof(float);
    if (dev->max_alloc && p.bytes > dev->max_alloc) {
        fprintf(stderr, "bench_map: %zu MiB exceeds the device's largest allocation\n", mib);
        return 1;
    }
    p.hx = malloc(p.bytes), p.ha = malloc(p.bytes), p.hb = malloc(p.bytes);
    if (!p.hx || !p.ha || !p.hb) {
        fprintf(stderr, "bench_map: out of host memory\n");
        return 1;
    }
    uint64_t s = 88172645463325252ull;
    float *hs[3] = {p.hx, p.ha, p.hb};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < p.n; i++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            hs[k][i] = (float)((double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
        }
    p.x = clf_bench_buffer(ctx, p.bytes, p.hx), p.a = clf_bench_buffer(ctx, p.bytes, p.ha), p.b = clf_bench_buffer(ctx, p.bytes, p.hb);
    p.y = clf_bench_buffer(ctx, p.bytes, NULL), p.t = clf_bench_buffer(ctx, p.bytes, NULL), p.u = clf_bench_buffer(ctx, p.bytes, NULL);
    p.dst = clf_bench_buffer(ctx, p.bytes, NULL);

    char date[32], command[1024] = "";
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    for (int i = 0; i < argc; i++) {
        strncat(command, argv[i], sizeof command - strlen(command) - 2);
        strncat(command, " ", sizeof command - strlen(command) - 1);
    }
    printf("# %s (%s), %zu MiB per buffer, f32\n", dev->name, dev->driver, mib);

    double B = (double)p.bytes;
    double t_clf = time_runs(&p, run_clf_copy, reps);
    size_t bad_copy = verify(&p, p.dst, 0);
    double t_cl = time_runs(&p, run_cl_copy, reps);
    double t_fused = time_runs(&p, run_fused, reps);
    size_t bad_fused = verify(&p, p.y, 1);
    double t_unf = time_runs(&p, run_unfused, reps);
    size_t bad_unf = verify(&p, p.y, 1);
    double t_sc = time_runs(&p, run_scalar_ab, reps);
    if (t_clf < 0 || t_cl < 0 || t_fused < 0 || t_unf < 0 || t_sc < 0) {
        fprintf(stderr, "bench_map: a run failed: %s\n", clf_last_error());
        return 1;
    }
    double g_clf = 2 * B / t_clf / 1e9, g_cl = 2 * B / t_cl / 1e9, g_fused = 4 * B / t_fused / 1e9;
    double g_copy = g_clf > g_cl ? g_clf : g_cl;
    printf("%-44s %9.3f ms %8.1f GB/s\n", "clf_copy", t_clf * 1e3, g_clf);
    printf("%-44s %9.3f ms %8.1f GB/s   clf_copy/driver = %.3f\n", "clEnqueueCopyBuffer", t_cl * 1e3, g_cl, g_clf / g_cl);
    printf("%-44s %9.3f ms %8.1f GB/s   / copy bandwidth = %.3f\n", "fused y = relu(a*x + b) (3 reads, 1 write)",
           t_fused * 1e3, g_fused, g_fused / g_copy);
    printf("%-44s %9.3f ms %8.1f GB/s   fused speed-up = %.2fx\n", "unfused: t = a*x; u = t + b; y = relu(u)",
           t_unf * 1e3, 4 * B / t_unf / 1e9, t_unf / t_fused);
    printf("%-44s %9.3f ms %8.1f GB/s\n", "y = relu(a*x + b), scalar a, b (1R 1W)", t_sc * 1e3, 2 * B / t_sc / 1e9);
    printf("verification: copy %zu, fused %zu, unfused %zu mismatching elements\n", bad_copy, bad_fused, bad_unf);

    char cfg_map[256] = "", org_map[32] = "", cfg_copy[256] = "", org_copy[32] = "";
    clf_config_in_use(ctx, "map", "f32", "default", cfg_map, sizeof cfg_map, org_map, sizeof org_map);
    clf_config_in_use(ctx, "copy", "f32", "default", cfg_copy, sizeof cfg_copy, org_copy, sizeof org_copy);
    json_t *root = json_pack(
        "{s:{s:s, s:s, s:s, s:s, s:s}, s:s, s:s, s:s, s:I, s:s}", "device", "name", dev->name, "vendor", dev->vendor,
        "driver", dev->driver, "key", dev->key, "id", dev->id, "date", date, "command", command, "timing",
        "wall time around clFinish, back-to-back runs of >= 20 ms, median of repeats", "buffer_bytes",
        (json_int_t)p.bytes, "precision", "f32");
    json_object_set_new(root, "copy", json_pack("{s:f, s:f, s:f, s:f, s:f, s:s, s:s, s:I}", "clf_copy_ms", t_clf * 1e3,
                                                "clf_copy_gbs", g_clf, "driver_copy_ms", t_cl * 1e3, "driver_copy_gbs",
                                                g_cl, "ratio_clf_vs_driver", g_clf / g_cl, "config", cfg_copy, "origin",
                                                org_copy, "mismatches", (json_int_t)bad_copy));
    json_object_set_new(root, "map", json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:s, s:I}", "formula",
                                               "y = relu(a*x + b), vectors a, x, b", "fused_ms", t_fused * 1e3,
                                               "fused_gbs", g_fused, "ratio_vs_copy_bandwidth", g_fused / g_copy,
                                               "unfused_ms", t_unf * 1e3, "fused_speedup_vs_unfused", t_unf / t_fused,
                                               "scalar_ab_ms", t_sc * 1e3, "scalar_ab_gbs", 2 * B / t_sc / 1e9,
                                               "config", cfg_map, "origin", org_map, "mismatches",
                                               (json_int_t)(bad_fused + bad_unf)));
    if (do_sweep) {
        double best_c, best_m;
        char bc[64] = "", bm[64] = "";
        int sreps = reps < 5 ? reps : 5;
        json_t *sc = sweep(&p, "CLFORGE_COPY_CONFIG", run_clf_copy, 2 * B, sreps, cpu, &best_c, bc, sizeof bc);
        json_t *sm = sweep(&p, "CLFORGE_MAP_CONFIG", run_fused, 4 * B, sreps, cpu, &best_m, bm, sizeof bm);
        size_t bad_sweep = verify(&p, p.y, 1);
        printf("sweep: best copy %s %.1f GB/s (%.3f of driver), best map %s %.1f GB/s (%.3f of best copy); "
               "last map output %zu mismatches\n", bc, best_c, best_c / g_cl, bm, best_m,
               best_m / (best_c > g_copy ? best_c : g_copy), bad_sweep);
        json_object_set_new(root, "sweep", json_pack("{s:o, s:o, s:s, s:f, s:s, s:f}", "copy", sc, "map", sm,
                                                     "best_copy", bc, "best_copy_gbs", best_c, "best_map", bm,
                                                     "best_map_gbs", best_m));
    }
    if (do_half)
        json_object_set_new(root, "half", half_maps(ctx, p.hx, p.n, reps, g_copy));
    if (json_path && json_dump_file(root, json_path, JSON_INDENT(2)) != 0) {
        fprintf(stderr, "bench_map: cannot write %s\n", json_path);
        return 1;
    }
    json_decref(root);
    cl_mem all[7] = {p.x, p.a, p.b, p.y, p.t, p.u, p.dst};
    for (int i = 0; i < 7; i++)
        clReleaseMemObject(all[i]);
    free(p.hx), free(p.ha), free(p.hb);
    clf_context_destroy(ctx);
    return bad_copy || bad_fused || bad_unf ? 1 : 0;
}
