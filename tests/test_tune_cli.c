/* test_tune_cli.c — `clforge tune` as users run it: eight concurrent tuners (one of them killed
 * mid-run) leave one valid database holding all their entries, Ctrl-C keeps the best so far, bad
 * usage exits with 2, --json - and --quiet keep stdout and stderr clean, progress never shows the best
 * going down, and a bucket the device lacks is refused. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "autotune.h"
#include "testutil.h"

/* ---- helpers --------------------------------------------------------------------------------- */

static const char *cli(void)
{
    const char *p = getenv("CLFORGE_CLI");
    ck_assert_msg(p && *p, "CLFORGE_CLI is not set (ctest sets it)");
    return p;
}

/* The cheapest family registered: copy when present. */
static const char *quick_family(void)
{
    return clf__family_find("copy") ? "copy" : "map";
}

static pid_t spawn_tune(const char *cache, const char *family, const char *budget, int quiet)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setenv("CLFORGE_CACHE_DIR", cache, 1);
        if (!freopen("/dev/null", "w", stdout) || (quiet && !freopen("/dev/null", "w", stderr)))
            _exit(126);
        execl(cli(), cli(), "tune", "--family", family, "--precision", "f32", "--budget", budget, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int wait_exit(pid_t pid)
{
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The default device's context on cache, without wiping it. */
static clf_context *default_ctx(const char *cache)
{
    clf_context_options opt = {.cache_dir = cache};
    clf_context *ctx = NULL;
    ck_assert_msg(clf_context_create(&opt, &ctx) == CLF_SUCCESS, "%s", clf_last_error());
    return ctx;
}

START_TEST(cli_concurrent_tuners)
{
    char cache[1200], cmd[2600];
    snprintf(cache, sizeof cache, "%s/cli-concurrent", clf_test_tmpdir());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", cache, cache);
    ck_assert_int_eq(system(cmd), 0);
    const char *fam = quick_family();
    enum { PROCS = 8 };
    pid_t pids[PROCS + 1];
    for (int i = 0; i < PROCS; i++)
        pids[i] = spawn_tune(cache, fam, "0.3", 1);
    /* and one more that is killed while the others write */
    pids[PROCS] = spawn_tune(cache, fam, "30", 1);
    usleep(1500000);
    kill(pids[PROCS], SIGKILL);
    ck_assert_int_eq(wait_exit(pids[PROCS]), 128 + SIGKILL);
    for (int i = 0; i < PROCS; i++)
        ck_assert_msg(wait_exit(pids[i]) == 0, "clforge tune process %d failed", i);

    clf_context *ctx = default_ctx(cache);
    json_t *doc = clf_test_load_tunedb(ctx);
    /* every process logged its run, and nothing was lost between them */
    json_t *runs = json_object_get(doc, "runs");
    ck_assert_uint_eq(json_array_size(runs), PROCS);
    for (size_t i = 0; i < PROCS; i++)
        for (size_t j = i + 1; j < PROCS; j++)
            ck_assert_int_ne(json_integer_value(json_object_get(json_array_get(runs, i), "pid")),
                             json_integer_value(json_object_get(json_array_get(runs, j), "pid")));
    /* each bucket of the family has an entry that the ops use */
    const clf__family *f = clf__family_find(fam);
    for (int b = 0; b < (f->nbuckets ? f->nbuckets : 1); b++) {
        char cfg[256], origin[16];
        const char *bucket = clf__bucket_name(f, f->nbuckets ? f->buckets[b] : NULL);
        ck_assert_int_eq(clf_config_in_use(ctx, fam, "f32", bucket, cfg, sizeof cfg, origin, sizeof origin),
                         CLF_SUCCESS);
        ck_assert_msg(strcmp(origin, "tuned") == 0, "%s/%s: origin %s", fam, bucket, origin);
    }
    json_decref(doc);
    clf_context_destroy(ctx);
}
END_TEST

START_TEST(cli_interrupt_keeps_best)
{
    char cache[1200], cmd[2600];
    snprintf(cache, sizeof cache, "%s/cli-int", clf_test_tmpdir());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", cache, cache);
    ck_assert_int_eq(system(cmd), 0);
    /* interrupted once a configuration has run and been checked (the trace says so), not after a fixed time: on a
     * loaded machine with a cold compiler cache the first candidate took longer than the 4 s this used to wait */
    char trace[1300];
    snprintf(trace, sizeof trace, "%s/trace.jsonl", cache);
    setenv("CLFORGE_TUNE_TRACE", trace, 1);
    pid_t pid = spawn_tune(cache, quick_family(), "120", 1);
    unsetenv("CLFORGE_TUNE_TRACE");
    int ran = 0;
    for (double w0 = clf__now(); !ran && clf__now() - w0 < 100; usleep(100000)) {
        FILE *f = fopen(trace, "r");
        char line[1024];
        while (f && !ran && fgets(line, sizeof line, f))
            ran = strstr(line, "\"result\":\"best\"") != NULL;
        if (f)
            fclose(f);
    }
    ck_assert_msg(ran, "no configuration ran within 100 s");
    double t0 = clf__now();
    kill(pid, SIGINT);
    ck_assert_int_eq(wait_exit(pid), 130);
    ck_assert_msg(clf__now() - t0 < 30, "took %.1f s to stop", clf__now() - t0);
    clf_context *ctx = default_ctx(cache);
    json_t *doc = clf_test_load_tunedb(ctx);
    json_t *runs = json_object_get(doc, "runs");
    ck_assert_uint_eq(json_array_size(runs), 1);
    ck_assert(json_is_true(json_object_get(json_array_get(runs, 0), "interrupted")));
    ck_assert_uint_ge(json_object_size(json_object_get(doc, "tuned")), 1);
    json_decref(doc);
    clf_context_destroy(ctx);
}
END_TEST

START_TEST(cli_usage_errors)
{
    char cmd[1400];
    /* f16 is a precision since the gemm_mma family tunes it; f8 is none. */
    static const char *const bad[] = {"--budget -1", "--budget x", "--family nosuch", "--frobnicate",
                                      "--json", "--bucket huge", "--precision f8", "--budget=-1", "--budget=",
                                      "--family=nosuch", "--quiet=1", "--exhaustive=yes"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cmd, sizeof cmd, "'%s' tune %s >/dev/null 2>&1", cli(), bad[i]);
        int st = system(cmd);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "`clforge tune %s` exit %d, expected 2", bad[i],
                      WEXITSTATUS(st));
    }
}
END_TEST

/* Runs `clforge tune ARGS` with the cache in dir; stdout and stderr into files there. Returns the exit code. */
static int run_tune(const char *dir, const char *args)
{
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "CLFORGE_CACHE_DIR='%s' '%s' tune %s >'%s/out' 2>'%s/err'", dir, cli(), args, dir, dir);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static char *slurp(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* --opt=value works; --json - puts the document (format clforge-tune/1) alone on stdout and --quiet leaves stderr
 * empty; each entry says which strategy the search really followed and whether one configuration decided it. */
START_TEST(cli_json_stdout_and_quiet)
{
    const char *dir = clf_test_tmpdir();
    char args[256];
    snprintf(args, sizeof args, "--family=%s --precision=f32 --budget=3 --json - --quiet", quick_family());
    ck_assert_int_eq(run_tune(dir, args), 0);
    ck_assert_msg(slurp(dir, "err")[0] == '\0', "--quiet printed: %s", slurp(dir, "err"));
    json_error_t err;
    json_t *doc = json_loads(slurp(dir, "out"), 0, &err);
    ck_assert_msg(doc != NULL, "stdout is not one JSON document: %s", err.text);
    ck_assert_str_eq(json_string_value(json_object_get(doc, "format")), "clforge-tune/1");
    json_t *entries = json_object_get(doc, "entries");
    ck_assert_uint_ge(json_array_size(entries), 1);
    size_t i;
    json_t *e;
    json_array_foreach(entries, i, e) {
        const char *strategy = json_string_value(json_object_get(e, "strategy"));
        ck_assert_ptr_nonnull(strategy);
        ck_assert_msg(strstr(strategy, "seeds") == strategy, "strategy %s", strategy);   /* seeds always come first */
        ck_assert_ptr_null(strstr(strategy, "sampled"));   /* a 3 s budget samples nothing */
        ck_assert(json_is_boolean(json_object_get(e, "single_evaluation")));
        ck_assert(json_number_value(json_object_get(json_object_get(e, "rate"), "value")) > 0);
    }
    json_decref(doc);
}
END_TEST

/* Progress lines (stderr, not a terminal: one line each) never show the best going down: a lower figure after
 * re-timing is labelled as such. */
START_TEST(cli_best_never_goes_down)
{
    const char *dir = clf_test_tmpdir();
    char args[256];
    snprintf(args, sizeof args, "--family %s --precision f32 --budget 6", quick_family());
    ck_assert_int_eq(run_tune(dir, args), 0);
    char *text = slurp(dir, "err");
    double last = 0;
    int lines = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *b = strstr(l, "| best ");
        double v;
        if (!b || sscanf(b, "| best %lf", &v) != 1)
            continue;
        lines++;
        if (!strstr(l, "re-timed"))
            ck_assert_msg(v >= last, "best went down from %g: %s", last, l);
        if (v > last && !strstr(l, "re-timed"))
            last = v;
    }
    ck_assert_int_ge(lines, 1);
}
END_TEST

/* A bucket that no listed family tunes on this device (gemm's thin on a CPU) is a usage error naming it. */
START_TEST(cli_bucket_missing_here)
{
    clf_device_info d;
    ck_assert_int_eq(clf_device_select(getenv("CLFORGE_DEVICE"), &d), CLF_SUCCESS);
    if (!(d.type & CL_DEVICE_TYPE_CPU))
        return;   /* GPUs have a thin bucket */
    const char *dir = clf_test_tmpdir();
    ck_assert_int_eq(run_tune(dir, "--family gemm --bucket thin --budget 5"), 2);
    ck_assert_msg(strstr(slurp(dir, "err"), "bucket 'thin'") != NULL, "%s", slurp(dir, "err"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tune_cli");
    CLF_TEST_ALONE(s, cli_usage_errors);
    CLF_TEST_ALONE(s, cli_json_stdout_and_quiet);
    CLF_TEST_ALONE(s, cli_best_never_goes_down);
    CLF_TEST_ALONE(s, cli_bucket_missing_here);
    CLF_TEST_ALONE(s, cli_concurrent_tuners);
    CLF_TEST_ALONE(s, cli_interrupt_keeps_best);
    return clf_test_run(s);
}
