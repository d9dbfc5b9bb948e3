/* cmd_tune.c — `clforge tune`: autotunes kernel families on one device and prints what it found. */
#include "autotune.h"
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile int tune_stop;

static void on_sigint(int sig)
{
    (void)sig;
    tune_stop = 1;   /* the tuner finishes the candidate in flight, stores the best, and returns */
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: clforge tune [--device SEL] [--family LIST] [--budget SECONDS] [--precision LIST]\n"
            "                    [--bucket LIST] [--exhaustive] [--json FILE] [--quiet]\n"
            "       clforge tune --show [--device SEL] [--family LIST]\n"
            "Searches each family's configurations on the device (budget per family, default 60 s),\n"
            "verifies every candidate against a reference, and stores the best in the tuning database.\n"
            "  --device SEL      \"P:D\", gpu, cpu or a name substring (default: $CLFORGE_DEVICE)\n"
            "  --family LIST     comma-separated families (default: all)\n"
            "  --budget SECONDS  search time per family (default 60)\n"
            "  --precision LIST  f32, f64, f16 (default: f32, and f64 where the device has it; f16: the\n"
            "                    gemm_mma family's f16/bf16 configurations)\n"
            "  --bucket LIST     shape buckets (default: all; gemm has small, medium, large, thin, skinny);\n"
            "                    a bucket that no listed family tunes on this device is an error\n"
            "  --exhaustive      every valid configuration (validation; slow)\n"
            "  --json FILE       write the results as JSON (format clforge-tune/1; \"-\": stdout, and the\n"
            "                    summary goes to stderr)\n"
            "  --quiet           no progress or notes on stderr, only errors\n"
            "  --show            print the configuration in use now and where it comes from\n"
            "Families:");
    for (int i = 0; clf__families[i]; i++)
        fprintf(out, " %s", clf__families[i]->name);
    fprintf(out, "\n");
}

/* 1 when every name in the comma-separated list is a known family (a list of any length). */
static int families_known(const char *list)
{
    char *buf = strdup(list);
    if (!buf) {
        fprintf(stderr, "clforge tune: out of memory\n");
        return 0;
    }
    int ok = 1;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && ok; t = strtok_r(NULL, ",", &save))
        if (!clf__family_find(t)) {
            fprintf(stderr, "clforge tune: unknown family '%.64s%s'\n", t, strlen(t) > 64 ? "...' (cut)" : "'");
            ok = 0;
        }
    free(buf);
    return ok;
}


/* 1 when every name in the comma-separated list is a bucket of one of the families. */
static int buckets_known(const clf__family *const *list, const char *buckets)
{
    char *buf = strdup(buckets);
    if (!buf) {
        fprintf(stderr, "clforge tune: out of memory\n");
        return 0;
    }
    int ok = 1;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && ok; t = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; list[i] && !found; i++)
            for (int b = 0; b < list[i]->nbuckets; b++)
                found |= strcmp(list[i]->buckets[b], t) == 0;
        if (!found) {
            fprintf(stderr, "clforge tune: no family here has a bucket '%.64s%s'\n", t,
                    strlen(t) > 64 ? "...' (cut)" : "'");
            ok = 0;
        }
    }
    free(buf);
    return ok;
}

#define BUCKET_W 13   /* the longest bucket name ("batched_small"), so that the columns line up */

static int show(clf_context *ctx, const char *families)
{
    printf("%-8s %-5s %-*s %-9s %s\n", "family", "prec", BUCKET_W, "bucket", "origin", "configuration");
    for (int i = 0; clf__families[i]; i++) {
        const clf__family *f = clf__families[i];
        if (!clf__listed(families, f->name))
            continue;
        static const char *const precs[] = {"f32", "f64"};
        for (int p = 0; p < 2; p++) {
            if (p == 1 && !ctx->info.fp64)
                continue;
            int nb = f->nbuckets > 0 ? f->nbuckets : 1;
            for (int b = 0; b < nb; b++) {
                const char *bucket = f->nbuckets > 0 ? f->buckets[b] : NULL;
                char cfg[256], origin[16];
                clf_status s = clf_config_in_use(ctx, f->name, precs[p], bucket, cfg, sizeof cfg, origin,
                                                 sizeof origin);
                if (s != CLF_SUCCESS) {
                    fprintf(stderr, "clforge tune: %s\n", clf_last_error());
                    return 1;
                }
                printf("%-8s %-5s %-*s %-9s %s\n", f->name, precs[p], BUCKET_W, bucket ? bucket : "-", origin, cfg);
            }
        }
    }
    return 0;
}

/* The stored entry of a tuned result (NULL when none): its strategy and single_evaluation flag. */
static json_t *stored_entry(clf_context *ctx, const clf_tune_entry *e)
{
    char section[160];
    json_t *stored = NULL;
    clf__tunedb_entry_path(e->family, e->precision, e->bucket, section, sizeof section);
    if (!e->config[0] || clf__tunedb_fetch(ctx, section, &stored) != CLF_SUCCESS) return NULL;
    return stored;
}

static void summary(FILE *f, clf_context *ctx, const clf_tune_report *r)
{
    fprintf(f, "%-8s %-*s %-5s %-44s %12s %6s %6s %8s\n", "family", BUCKET_W, "bucket", "prec", "best configuration",
            "speed", "evals", "failed", "time");
    int single = 0;
    for (int i = 0; i < r->count; i++) {
        const clf_tune_entry *e = &r->entries[i];
        char speed[32];
        if (e->rate > 0)
            snprintf(speed, sizeof speed, e->rate >= 100 ? "%.0f %s" : "%.3g %s", e->rate, e->unit);
        else
            snprintf(speed, sizeof speed, "-");
        json_t *st = stored_entry(ctx, e);
        int one = st && json_is_true(json_object_get(st, "single_evaluation"));
        json_decref(st);
        single |= one;
        fprintf(f, "%-8s %-*s %-5s %-44s %12s %6d %6d %7.1fs%s\n", e->family, BUCKET_W, e->bucket, e->precision,
                e->config[0] ? e->config : "(none found)", speed, e->evaluations, e->failed, e->seconds, one ? " *" : "");
    }
    if (single)
        fprintf(f, "* one configuration measured: nothing to compare it with (a larger --budget helps)\n");
    if (r->db_path[0])
        fprintf(f, "tuning database: %s\n", r->db_path);
}

static int write_json(const char *path, clf_context *ctx, const clf_tune_options *o,
                      const clf_tune_report *r, double wall, clf_status st)
{
    json_t *entries = json_array();
    for (int i = 0; i < r->count; i++) {
        const clf_tune_entry *e = &r->entries[i];
        /* the stored entry adds the strategy the search followed, early stops, the space's size, when the
         * best was found, and whether only one configuration was measured */
        json_t *stored = stored_entry(ctx, e);
        json_t *strategy = stored ? json_object_get(stored, "strategy") : NULL;
        json_t *je = json_pack("{s:s, s:s, s:s, s:o, s:o, s:i, s:i, s:f, s:O, s:b, s:o}", "family", e->family,
                               "bucket", e->bucket, "precision", e->precision, "config",
                               e->config[0] ? json_string(e->config) : json_null(), "rate",
                               e->config[0] ? cli_rate_json(e->rate, e->unit) : json_null(), "evaluations",
                               e->evaluations, "failed", e->failed, "seconds", e->seconds, "strategy",
                               json_is_string(strategy) ? strategy : json_null(), "single_evaluation",
                               stored && json_is_true(json_object_get(stored, "single_evaluation")), "stored",
                               stored ? stored : json_null());
        json_array_append_new(entries, je);
    }
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_t *root = json_pack("{s:s, s:s, s:s, s:o, s:s, s:f, s:f, s:s, s:s, s:o}", "format", "clforge-tune/1",
                             "clforge_version", clf_version(), "date", date, "device",
                             cli_device_json(clf_context_device(ctx)), "requested_strategy",
                             o->exhaustive ? "exhaustive" : "sampled+local", "budget_seconds", o->budget_seconds,
                             "wall_seconds", wall, "status", clf_status_name(st), "database", r->db_path, "entries",
                             entries);
    int rc = cli_json_write("tune", path, root);
    json_decref(root);
    return rc;
}

/* Every bucket asked for must be tuned by some listed family on this device in some listed precision:
 * "thin" on a CPU (where gemm has no such bucket) is an error that says why, before any search starts. */
static int buckets_here(clf_context *ctx, const clf__family *const *list, const clf_dtype *precs, int nprecs,
                        const char *buckets)
{
    char *buf = strdup(buckets);
    int ok = buf != NULL;
    for (char *save = NULL, *b = buf ? strtok_r(buf, ",", &save) : NULL; b && ok; b = strtok_r(NULL, ",", &save)) {
        int found = 0;
        char why[512] = "";
        for (int i = 0; list[i] && !found; i++) {
            const clf__family *f = list[i];
            int has = 0;
            for (int k = 0; k < f->nbuckets; k++) has |= strcmp(f->buckets[k], b) == 0;
            for (int p = 0; has && !found && p < (nprecs ? nprecs : 1); p++) {
                void *state = NULL;
                clf_status s = f->bench_create(ctx, nprecs ? precs[p] : CLF_F32, b, &state);
                if (s == CLF_SUCCESS) f->bench_destroy(state);
                found = s != CLF_ERR_UNSUPPORTED;
                if (!found) snprintf(why, sizeof why, " (%s)", clf_last_error());
                clf__clear_error();
            }
        }
        if (!found) {
            fprintf(stderr, "clforge tune: no listed family tunes bucket '%s' on %s%s\n", b, ctx->info.name, why);
            ok = 0;
        }
    }
    free(buf);
    return ok;
}

int cli_cmd_tune(int argc, char **argv)
{
    const char *device = NULL, *families = NULL, *json_path = NULL, *precision = NULL, *buckets = NULL;
    clf_tune_options o;
    memset(&o, 0, sizeof o);
    o.budget_seconds = 60;
    int want_show = 0;
    const char *budget = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if ((r = cli_opt("tune", argc, argv, &i, "--device", &device)) ||
                   (r = cli_opt("tune", argc, argv, &i, "--family", &families)) ||
                   (r = cli_opt("tune", argc, argv, &i, "--budget", &budget)) ||
                   (r = cli_opt("tune", argc, argv, &i, "--precision", &precision)) ||
                   (r = cli_opt("tune", argc, argv, &i, "--bucket", &buckets)) ||
                   (r = cli_opt("tune", argc, argv, &i, "--json", &json_path))) {
            if (r < 0)
                return 2;
        } else if ((r = cli_flag("tune", a, "--exhaustive")) || (r = cli_flag("tune", a, "--quiet")) ||
                   (r = cli_flag("tune", a, "--show"))) {
            if (r < 0)
                return 2;
            int *flag = a[3] == 'x' ? &o.exhaustive : a[2] == 'q' ? &o.quiet : &want_show;
            *flag = 1;
        } else {
            fprintf(stderr, "clforge tune: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (budget) {
        char *end;
        o.budget_seconds = strtod(budget, &end);
        if (!*budget || *end || !(o.budget_seconds > 0) || o.budget_seconds > 1e6) {
            fprintf(stderr, "clforge tune: --budget needs a positive number of seconds\n");
            return 2;
        }
    }
    if (families && !families_known(families))
        return 2;
    if (json_path && !want_show && !cli_output_ok("tune", json_path))
        return 2;   /* before the run, not after an hour of tuning */
    clf_dtype precs[3];
    int nprecs = 0;
    if (precision) {
        static const clf_dtype known[] = {CLF_F32, CLF_F64, CLF_F16};
        size_t listed_len = 0;
        for (int i = 0; i < 3; i++)
            if (clf__listed(precision, clf__dtype_name(known[i]))) {
                precs[nprecs++] = known[i];
                listed_len += strlen(clf__dtype_name(known[i])) + 1;
            }
        if (nprecs == 0 || listed_len != strlen(precision) + 1) {
            fprintf(stderr, "clforge tune: --precision takes a comma-separated list of f32, f64 and f16 (f16: "
                            "the gemm_mma family's f16/bf16 configurations)\n");
            return 2;
        }
    }
    const clf__family *list[32];
    int nfam = 0;
    for (int i = 0; clf__families[i] && nfam < 31; i++)
        if (clf__listed(families, clf__families[i]->name))
            list[nfam++] = clf__families[i];
    list[nfam] = NULL;
    if (buckets && !buckets_known(list, buckets))
        return 2;

    clf_context_options co;
    memset(&co, 0, sizeof co);
    co.device = device;
    clf_context *ctx = NULL;
    clf_status s = clf_context_create(&co, &ctx);
    if (s != CLF_SUCCESS) {
        fprintf(stderr, "clforge tune: %s\n", clf_last_error());
        return 1;
    }
    if (want_show) {
        int rc = show(ctx, families);
        clf_context_destroy(ctx);
        return rc;
    }
    if (nprecs == 2 && !ctx->info.fp64 && precs[1] == CLF_F64)
        nprecs = 1;   /* f64 on a device without it: nothing to tune */
    if (buckets && !buckets_here(ctx, list, precs, nprecs, buckets)) {
        clf_context_destroy(ctx);
        return 2;
    }

    o.families = families;
    o.stop = &tune_stop;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    /* A second Ctrl-C ends the process at once. glibc's SA_RESETHAND is 0x80000000u, the sign bit of the int
     * field: the cast keeps the bit pattern (GCC converts modulo 2^32). */
    sa.sa_flags = (int)SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);

    clf_tune_report *r = calloc(1, sizeof *r);
    if (!r) {
        clf_context_destroy(ctx);
        return 1;
    }
    if (!o.quiet)
        fprintf(stderr, "tuning on %s (%s), budget %.0f s per family%s\n", ctx->info.name, ctx->info.platform,
                o.budget_seconds, o.exhaustive ? ", exhaustive" : "");
    double t0 = clf__now();
    s = clf__tune_families(ctx, list, nprecs ? precs : NULL, nprecs, buckets, &o, r);
    double wall = clf__now() - t0;
    sigaction(SIGINT, &old, NULL);

    int json_stdout = json_path && !strcmp(json_path, "-");
    if (!json_stdout || !o.quiet)
        summary(json_stdout ? stderr : stdout, ctx, r);
    int rc = 0;
    if (s == CLF_ERR_INTERRUPTED)
        fprintf(stderr, "clforge tune: interrupted; the best configurations found so far were kept\n");
    else if (s != CLF_SUCCESS) {
        fprintf(stderr, "clforge tune: %s\n", clf_last_error());
        rc = 1;
    }
    if (json_path && write_json(json_path, ctx, &o, r, wall, s) != 0)
        rc = 1;
    free(r);
    clf_context_destroy(ctx);
    return s == CLF_ERR_INTERRUPTED ? 130 : rc;
}
