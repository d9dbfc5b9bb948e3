/* search.c — the autotuner's search for one family, precision and shape bucket within a time budget:
 * seeds, random sampling, local search or exhaustive enumeration; every candidate verified against
 * the family's reference before its time counts; the best stored in the tuning database. */
#include "autotune.h"
#include "gemm_mma.h"
#include "gemm_waves.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define SLOWER_CUTOFF 1.5     /* a candidate whose first timed sample is this much slower stops there */
#define SAMPLE_MIN_BUDGET 60.0   /* seconds a task needs before random sampling is worth its share */
#define WINDOW (CLF__PREBUILD_WINDOW / 2)   /* local search: neighbours evaluated before choosing a move */
#define NEIGHBOR_CAP 512

enum { PH_SEEDS, PH_RANDOM, PH_LOCAL, PH_EXHAUSTIVE };
static const char *const phase_names[] = {"seeds", "random", "local", "exhaustive"};

typedef struct memo {
    clf__config cfg;
    double seconds;            /* median time; < 0 when it failed */
    int explored;              /* its neighbourhood was searched */
    double at;                 /* seconds into the task when it was measured */
    int eval;                  /* as which evaluation */
    int group;                 /* runs per timed sample */
    int verified;              /* its output passed bench_check */
} memo;

/* One (family, precision, bucket) search. */
typedef struct task {
    clf_context *ctx;
    const clf__family *f;
    clf_dtype dt;
    const char *bucket;
    void *state;
    const clf_tune_options *opt;
    double start, deadline;
    memo *seen;
    int nseen, capseen;
    int best;                  /* index into seen, -1 none */
    int tried, failed, slow;
    long total;                /* valid configurations, -1 when too many to count */
    double work;               /* FLOPs or bytes of one run */
    int tty;
    double last_draw;
    int drawn;                 /* tried + failed when the last line was drawn */
    char last_error[160];
    clf__rng rng;
    clf__prebuild *pb;         /* NULL: candidates are built when first run */
    int phase;                 /* the search phase evaluating now (PH_*): what the stored strategy reports */
    int phase_evals[4];        /* configurations evaluated in each phase */
    int exhaustive_done;       /* the exhaustive enumeration reached its end */
    int confirming;            /* re-timing the fastest few: progress says so */
    double shown;              /* the best speed a progress line has shown so far */
    FILE *trace;               /* $CLFORGE_TUNE_TRACE: one JSON line per evaluation, or NULL */
} task;

static int stopped(const task *t)
{
    return t->opt->stop && *t->opt->stop;
}

static int out_of_time(const task *t)
{
    return stopped(t) || clf__now() >= t->deadline;
}

static const char *unit_of(const clf__family *f)
{
    return f->unit ? f->unit : "GFLOP/s";
}

static double speed_of(const task *t, double seconds)
{
    return seconds > 0 ? t->work / seconds / 1e9 : 0;
}

static void progress(task *t, int final)
{
    if (t->opt->quiet)
        return;
    double now = clf__now();
    if (!final && now - t->last_draw < (t->tty ? 0.1 : 2.0))
        return;
    if (final && !t->tty && t->drawn == t->tried + t->failed)
        return;   /* plain output: the last line already says it */
    t->drawn = t->tried + t->failed;
    t->last_draw = now;
    char total[24], best[300] = "none yet";
    if (t->total >= 0)
        snprintf(total, sizeof total, "%ld", t->total);
    else
        snprintf(total, sizeof total, "?");
    if (t->best >= 0) {
        char cfg[256];
        clf__config_format(t->f, &t->seen[t->best].cfg, cfg, sizeof cfg);
        double v = speed_of(t, t->seen[t->best].seconds);
        /* The search's best only rises; re-timing (confirm) may measure it lower, and then the line says so
         * rather than showing a best that went down. */
        if (t->confirming || v < t->shown)
            snprintf(best, sizeof best, v >= 100 ? "%.0f %s re-timed (first %.0f) (%s)" : "%.3g %s re-timed (first %.3g) (%s)",
                     v, unit_of(t->f), t->shown, cfg);
        else
            snprintf(best, sizeof best, v >= 100 ? "%.0f %s (%s)" : "%.3g %s (%s)", v, unit_of(t->f), cfg);
        if (!t->confirming && v > t->shown)
            t->shown = v;
    }
    char line[512];
    snprintf(line, sizeof line, "%s %s/%s: tried %d, failed %d, of %s | %.1f s | best %s", t->f->name,
             clf__dtype_name(t->dt), t->bucket, t->tried, t->failed, total, now - t->start, best);
    struct winsize ws;
    if (t->tty && ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && ws.ws_col < sizeof line)
        line[ws.ws_col - 1] = '\0';   /* a wrapped line cannot be redrawn in place */
    fprintf(stderr, "%s%s%s%s", t->tty ? "\r" : "", line, t->tty ? "\033[K" : "", t->tty && !final ? "" : "\n");
    fflush(stderr);
}

static memo *lookup(task *t, const clf__config *c)
{
    for (int i = 0; i < t->nseen; i++)
        if (memcmp(&t->seen[i].cfg, c, sizeof *c) == 0)
            return &t->seen[i];
    return NULL;
}

/* A candidate of this task: valid on the device, and not a repeat of another in the bucket. */
static int candidate(const task *t, const clf__config *c)
{
    return t->f->valid(c, &t->ctx->info, t->dt) && clf__config_in_bucket(t->f, c, t->bucket);
}

/* A random candidate (valid, and of the bucket) into *c; 0 when none was found. */
static int draw(task *t, clf__config *c)
{
    for (int tries = 0; tries < 64; tries++) {
        if (!clf__space_random(t->f, &t->ctx->info, t->dt, &t->rng, 1000, c))
            return 0;
        if (clf__config_in_bucket(t->f, c, t->bucket))
            return 1;
    }
    return 0;
}

/* Hands the next candidates, in the order they will be tried, to the builders (new ones only). */
static void prebuild_window(task *t, const clf__config *list, int n)
{
    clf__config pick[CLF__PREBUILD_WINDOW];
    int k = 0;
    if (!t->pb)
        return;
    for (int i = 0; i < n && k < CLF__PREBUILD_WINDOW; i++)
        if (!lookup(t, &list[i]) && candidate(t, &list[i]))
            pick[k++] = list[i];
    clf__prebuild_window(t->pb, pick, k);
}

typedef struct run_arg {
    const clf__family *f;
    void *state;
    const clf__config *cfg;
} run_arg;

static clf_status run_once(void *arg, cl_event *ev)
{
    run_arg *a = arg;
    return a->f->bench_run(a->state, a->cfg, ev);
}

/* Runs per timed sample for a run of `seconds`: short runs are timed in groups of GROUP_SECONDS, back
 * to back, so that the device is busy (and at its working clock) the whole time and the launch gap
 * is not counted; a GPU that idles between single 0.1 ms runs while candidates compile reports slow
 * and noisy times (H200: 24.8 TFLOP/s in the tuner for a kernel that runs 1024^3 at 38.1 in a loop). */
#define GROUP_SECONDS 0.004
#define GROUP_MAX 64
static int group_for(double seconds)
{
    return clf__time_group(seconds, GROUP_SECONDS, GROUP_MAX);
}

/* Seconds per run: the median of reps samples of `group` runs, by the runtime's timing policy. */
static clf_status timed(task *t, run_arg *ra, int group, int reps, double *out)
{
    clf__timing how = {.reps = reps, .group = group};
    return clf__time_runs(t->ctx, run_once, ra, &how, out, NULL);
}

/* One line of the evaluation trace: what was tried, when, how long its first (building) run took, and
 * what came of it. For studying the search; nothing reads it back. */
static void trace(task *t, const memo *m, const char *result, double first_run)
{
    if (!t->trace)
        return;
    char cfg[256];
    clf__config_format(t->f, &m->cfg, cfg, sizeof cfg);
    fprintf(t->trace, "{\"family\":\"%s\",\"precision\":\"%s\",\"bucket\":\"%s\",\"eval\":%d,\"at\":%.4f,"
            "\"first_run\":%.4f,\"seconds\":%.9g,\"group\":%d,\"result\":\"%s\",\"config\":\"%s\"}\n",
            t->f->name, clf__dtype_name(t->dt), t->bucket, m->eval, clf__now() - t->start, first_run, m->seconds,
            m->group, result, cfg);
    fflush(t->trace);
}

/* A new entry in t->seen for c, counted as tried; NULL when out of memory. */
static memo *new_memo(task *t, const clf__config *c)
{
    if (t->nseen == t->capseen) {
        int cap = t->capseen ? 2 * t->capseen : 64;
        memo *m = realloc(t->seen, sizeof *m * (size_t)cap);
        if (!m)
            return NULL;
        t->seen = m;
        t->capseen = cap;
    }
    memo *m = &t->seen[t->nseen++];
    memset(m, 0, sizeof *m);
    t->phase_evals[t->phase]++;
    m->cfg = *c;
    m->seconds = -1;
    m->group = 1;
    m->eval = ++t->tried;
    m->at = clf__now() - t->start;
    return m;
}

/* First run: builds the program (or waits for the builder thread that has it) and produces the output
 * that is checked. Its time (*seconds) is no measure of the kernel: NVIDIA's driver finishes compiling
 * at the first launch, which made good H200 candidates look 20x slower than they are. */
static clf_status first_run(task *t, const clf__config *c, double *seconds)
{
    cl_event ev = NULL;
    double t0 = clf__now();
    clf_status s = t->f->bench_run(t->state, c, &ev);
    cl_int err = clFinish(t->ctx->queue);
    *seconds = clf__now() - t0;
    if (ev) {
        cl_int st = CL_COMPLETE;
        clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
        if (st < 0 && err == CL_SUCCESS)
            err = st;
        clReleaseEvent(ev);
    }
    if (s == CLF_SUCCESS && err != CL_SUCCESS)
        s = clf__fail_cl(err, "clFinish", "after a tuning run");
    if (s == CLF_SUCCESS)
        s = t->f->bench_check(t->state);
    return s;
}

/* Records how an evaluation ended (a failure's message kept for the final report); returns idx. */
static int settle(task *t, int idx, const char *result, double first)
{
    if (strcmp(result, "failed") == 0) {
        t->failed++;
        snprintf(t->last_error, sizeof t->last_error, "%s", clf_last_error());
        clf__clear_error();
    }
    trace(t, &t->seen[idx], result, first);
    progress(t, 0);
    return idx;
}

/* Builds, runs, verifies and times one configuration. Returns its index in t->seen, or -1 when it
 * was not run (already seen, or no memory). A configuration's build options are a function of the
 * configuration alone, so one seen before is never built or timed again. */
static int evaluate(task *t, const clf__config *c)
{
    if (lookup(t, c) || !candidate(t, c))
        return -1;
    memo *m = new_memo(t, c);
    if (!m)
        return -1;
    int idx = (int)(m - t->seen), group = 1;
    run_arg ra = {t->f, t->state, c};
    double built;
    clf_status s = first_run(t, c, &built);
    m->verified = s == CLF_SUCCESS;
    /* One run sizes the group; the first sample is then grouped (at most like the best's) so that
     * the two compare. */
    double first = 0;
    if (s == CLF_SUCCESS && (s = timed(t, &ra, 1, 1, &first)) == CLF_SUCCESS) {
        group = group_for(first);
        if (t->best >= 0 && t->seen[t->best].group < group)
            group = t->seen[t->best].group;
        if (group > 1)
            s = timed(t, &ra, group, 1, &first);
    }
    m->group = group;
    if (s != CLF_SUCCESS)
        return settle(t, idx, "failed", built);
    double best = t->best >= 0 ? t->seen[t->best].seconds : 0;
    if (best > 0 && first > SLOWER_CUTOFF * best) {
        m->seconds = first;   /* clearly slower: one timed sample is enough to know */
        t->slow++;
        return settle(t, idx, "slow", built);
    }
    group = group_for(first);
    m->group = group;   /* from here on, grouped for this candidate's own time */
    int reps = first * group < 0.005 ? 9 : first * group < 0.05 ? 5 : 3;
    double med = 0;
    s = timed(t, &ra, group, reps, &med);
    if (s != CLF_SUCCESS || !(med > 0))
        return settle(t, idx, "failed", built);
    m->seconds = med;
    m->at = clf__now() - t->start;
    if (best <= 0 || med < best)
        t->best = idx;
    return settle(t, idx, t->best == idx ? "best" : "ok", built);
}

/* Seeds, handed to the builders together: for this bucket, then (with builder threads) for each of
 * the family's other buckets, the configuration tuned for this device, the shipped default and the
 * heuristic. The other buckets' are a cheap portfolio of shapes known to be good somewhere on this
 * device: the H200's thin-bucket tune, seeded with heuristics only, ended 10% below the large bucket's
 * shipped entry. Duplicates cost nothing: evaluate() skips configurations already seen. */
static void seeds(task *t)
{
    clf__config list[3 * 8];
    int n = 0, cap = (int)(sizeof list / sizeof list[0]);
    /* Without builder threads (CPU devices) each seed compiles in turn, seconds each: this bucket's only. */
    for (int b = -1; b < (t->pb ? t->f->nbuckets : 0) && n + 3 <= cap; b++) {
        const char *bucket = b < 0 ? t->bucket : t->f->buckets[b];
        if (b >= 0 && strcmp(bucket, t->bucket) == 0)
            continue;
        n += clf__tuned_config(t->ctx, t->f, t->dt, bucket, &list[n]);
        n += clf__shipped_config(t->ctx, t->f, t->dt, bucket, &list[n]);
        memset(&list[n], 0, sizeof list[n]);
        t->f->default_config(&t->ctx->info, t->dt, bucket, &list[n++]);
    }
    prebuild_window(t, list, n);
    t->phase = PH_SEEDS;
    for (int i = 0; i < n && !stopped(t) && (t->nseen == 0 || !out_of_time(t)); i++)
        evaluate(t, &list[i]);
}

/* Every valid configuration once, in random order: the same set as odometer order when it completes,
 * and an unbiased sample of the space when the budget stops it first. */
static void search_exhaustive(task *t)
{
    clf__perm perm;
    clf__perm_init(&perm, (uint64_t)clf__space_size(t->f), &t->rng);
    clf__config ahead[CLF__PREBUILD_WINDOW];
    int more = 1, cut = 0;
    t->phase = PH_EXHAUSTIVE;
    while (more && !out_of_time(t)) {
        /* the next window of valid configurations, handed to the builders, then run in order */
        int n = 0;
        uint64_t idx;
        while (n < CLF__PREBUILD_WINDOW && (more = clf__perm_next(&perm, &idx))) {
            clf__space_decode(t->f, idx, &ahead[n]);
            if (candidate(t, &ahead[n]))
                n++;
        }
        prebuild_window(t, ahead, n);
        for (int i = 0; i < n && !(cut = out_of_time(t)); i++)
            evaluate(t, &ahead[i]);
    }
    t->exhaustive_done = !more && !cut;
}

/* The best evaluated configuration whose neighbourhood was not searched yet, or -1. */
static int next_unexplored(const task *t)
{
    int pick = -1;
    for (int i = 0; i < t->nseen; i++)
        if (t->seen[i].seconds > 0 && t->seen[i].verified && !t->seen[i].explored &&
            (pick < 0 || t->seen[i].seconds < t->seen[pick].seconds))
            pick = i;
    return pick;
}

/* Random sampling for a share of the budget, then local search from the best point (steepest move
 * within each window of neighbours), restarting from the next-best unexplored point (or a fresh
 * random one) at a local optimum. */
static void search_sampled(task *t)
{
    double sample_until = t->start + 0.2 * (t->deadline - t->start);
    /* Where one evaluation costs so much that the budget buys only a few, random draws are not
     * affordable: go straight to local search from the seeds. On CPU devices the kernel compiler's
     * time varies wildly with the configuration (PoCL 3.1 took 60-125 s on random GEMM candidates
     * whose neighbours of the default build in 2 s), so there the search stays local. */
    double per_eval = t->nseen ? (clf__now() - t->start) / t->nseen : 0;
    if ((per_eval > 0 && (t->deadline - clf__now()) / per_eval < 16) || (t->ctx->info.type & CL_DEVICE_TYPE_CPU))
        sample_until = 0;
    /* Nor in a short task: on the H200 not one of 40 random GEMM draws in two 30 s tasks beat the
     * seeds, and their slow compiles (up to 12 s) stalled the local search that followed; the 300 s
     * search's best also descends from a seed. Random restarts remain for budgets that can afford them. */
    if (t->deadline - t->start < SAMPLE_MIN_BUDGET)
        sample_until = 0;
    int samples = 0, misses = 0;
    clf__config c, batch[CLF__PREBUILD_WINDOW];
    int nbatch = t->pb ? WINDOW : 1;
    t->phase = PH_RANDOM;
    while (!out_of_time(t) && (clf__now() < sample_until || (sample_until > 0 && samples < 2)) && misses < 200) {
        int n = 0;
        while (n < nbatch && draw(t, &batch[n]))
            n++;
        if (n == 0)
            break;
        prebuild_window(t, batch, n);
        for (int i = 0; i < n && !out_of_time(t) && (clf__now() < sample_until || (sample_until > 0 && samples < 2)); i++) {
            if (evaluate(t, &batch[i]) < 0)
                misses++;   /* drew one already seen; a small space runs out of new ones */
            else
                samples++;
        }
    }
    clf__config *nb = malloc(sizeof *nb * NEIGHBOR_CAP);
    if (!nb)
        return;
    t->phase = PH_LOCAL;   /* random restarts at a local optimum count as local search */
    int cur = t->best;
    while (!out_of_time(t)) {
        if (cur < 0 || t->seen[cur].explored) {
            cur = next_unexplored(t);
            if (cur < 0) {
                if (!draw(t, &c))
                    break;
                int idx = evaluate(t, &c);
                if (idx < 0 && ++misses > 1000)
                    break;   /* everything reachable has been seen */
                cur = idx >= 0 && t->seen[idx].seconds > 0 && t->seen[idx].verified ? idx : -1;
                continue;
            }
        }
        clf__config here = t->seen[cur].cfg;
        double here_s = t->seen[cur].seconds;
        int n = clf__space_neighbors(t->f, &t->ctx->info, t->dt, &here, &t->rng, nb, NEIGHBOR_CAP);
        int moved = 0;
        /* A window of neighbours at a time, all of them built ahead in parallel, then a move to the
         * window's best if it beats this point: the builders' work ahead is never thrown away by a move
         * in the middle of a window (compiling is what a GPU search spends its time on). */
        for (int w = 0; w < n && !moved && !out_of_time(t); w += WINDOW) {
            prebuild_window(t, nb + w, n - w);
            int pick = -1;
            for (int i = w; i < w + WINDOW && i < n && !out_of_time(t); i++) {
                int idx = evaluate(t, &nb[i]);
                if (idx >= 0 && t->seen[idx].verified && t->seen[idx].seconds > 0 && t->seen[idx].seconds < here_s * 0.99 &&
                    (pick < 0 || t->seen[idx].seconds < t->seen[pick].seconds))
                    pick = idx;
            }
            if (pick >= 0) {
                cur = pick;
                moved = 1;
            }
        }
        memo *m = lookup(t, &here);
        if (!moved && m && !out_of_time(t))
            m->explored = 1;
        if (!moved && !out_of_time(t))
            cur = -1;
    }
    free(nb);
}

/* Times the fastest few again and keeps the best of the new medians: on a busy machine one lucky
 * measurement should not decide the winner. Their programs are built, so this costs runs only. */
static void confirm(task *t)
{
    enum { TOP = 3 };
    int top[TOP], n = 0;
    for (int i = 0; i < t->nseen; i++) {
        if (!(t->seen[i].seconds > 0) || !t->seen[i].verified)
            continue;
        int pos = n < TOP ? n++ : TOP;
        while (pos > 0 && t->seen[top[pos - 1]].seconds > t->seen[i].seconds) {
            if (pos < TOP)
                top[pos] = top[pos - 1];
            pos--;
        }
        if (pos < TOP)
            top[pos] = i;
    }
    if (n < 2 || stopped(t))
        return;
    t->confirming = 1;
    progress(t, 0);
    int best = -1;
    for (int j = 0; j < n && !stopped(t); j++) {
        memo *m = &t->seen[top[j]];
        run_arg ra = {t->f, t->state, &m->cfg};
        double again;
        int reps = m->seconds * m->group < 0.005 ? 9 : m->seconds * m->group < 0.05 ? 5 : 3;
        if (timed(t, &ra, m->group, reps, &again) != CLF_SUCCESS || !(again > 0)) {
            clf__clear_error();
            continue;
        }
        m->seconds = again;
        if (best < 0 || again < t->seen[best].seconds)
            best = top[j];
    }
    if (best >= 0)
        t->best = best;
    t->confirming = 0;
}

/* What the search did, not what was asked: the phases that evaluated something ("seeds+local"), with
 * "exhaustive" only when the enumeration was complete ("exhaustive-partial" when the budget cut it). */
static void strategy_of(const task *t, char *out, size_t cap)
{
    out[0] = '\0';
    for (int p = 0; p < 4; p++) {
        if (!t->phase_evals[p])
            continue;
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "%s%s%s", len ? "+" : "", phase_names[p],
                 p == PH_EXHAUSTIVE && !t->exhaustive_done ? "-partial" : "");
    }
    if (!out[0])
        snprintf(out, cap, "none");
}

static clf_status store_entry(task *t, clf_tune_entry *e)
{
    char section[160], date[32], strategy[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    strategy_of(t, strategy, sizeof strategy);
    clf__tunedb_entry_path(t->f->name, clf__dtype_name(t->dt), t->bucket, section, sizeof section);
    int measured = e->evaluations - e->failed;   /* configurations that ran, passed the check and were timed */
    json_t *v = json_pack("{s:s,s:f,s:s,s:f,s:s,s:i,s:i,s:i,s:I,s:f,s:f,s:i,s:s,s:s,s:b,s:{s:i,s:i,s:i,s:i}}",
                          "config", e->config, "speed", e->rate, "unit", e->unit, "run_seconds",
                          t->seen[t->best].seconds, "strategy", strategy, "evaluations", e->evaluations, "failed",
                          e->failed, "early_stopped", t->slow, "space", (json_int_t)t->total, "tune_seconds",
                          e->seconds, "best_found_at_seconds", t->seen[t->best].at, "best_found_at_evaluation",
                          t->seen[t->best].eval, "date", date, "clforge", CLFORGE_VERSION_STRING,
                          "single_evaluation", measured <= 1, "phases", "seeds", t->phase_evals[PH_SEEDS], "random",
                          t->phase_evals[PH_RANDOM], "local", t->phase_evals[PH_LOCAL], "exhaustive",
                          t->phase_evals[PH_EXHAUSTIVE]);
    /* GEMM on GPUs (both kernels): how many of its work-groups share a compute unit, for the planner's wave and
     * split rules. */
    if (t->f == &clf__family_gemm || t->f == &clf__family_gemm_mma)
        clf__gemm_describe_entry(t->ctx, t->f, t->dt, t->bucket, &t->seen[t->best].cfg, v);
    clf_status s = clf__tunedb_store(t->ctx, section, v);
    if (s != CLF_SUCCESS && !t->opt->quiet)
        fprintf(stderr, "clforge: could not store the result: %s\n", clf_last_error());
    return s;
}

/* Runs one task; fills e. Returns CLF_ERR_UNSUPPORTED when the family has no benchmark for dt. */
static clf_status run_task(task *t, double budget, clf_tune_entry *e)
{
    memset(e, 0, sizeof *e);
    snprintf(e->family, sizeof e->family, "%s", t->f->name);
    snprintf(e->bucket, sizeof e->bucket, "%s", t->bucket);
    snprintf(e->precision, sizeof e->precision, "%s", clf__dtype_name(t->dt));
    snprintf(e->unit, sizeof e->unit, "%s", unit_of(t->f));
    t->start = clf__now();
    t->deadline = t->start + budget;
    t->best = -1;
    double space = clf__space_size(t->f);
    t->total = space <= 2e7 ? clf__space_count_valid(t->f, &t->ctx->info, t->dt, t->bucket, 20000000) : -1;
    clf_status s = t->f->bench_create(t->ctx, t->dt, t->bucket, &t->state);
    if (s == CLF_ERR_UNSUPPORTED) {
        clf__clear_error();
        return s;
    }
    if (s != CLF_SUCCESS) {
        if (!t->opt->quiet)
            fprintf(stderr, "%s %s/%s: cannot set up the benchmark: %s\n", t->f->name, clf__dtype_name(t->dt),
                    t->bucket, clf_last_error());
        e->seconds = clf__now() - t->start;
        return s;
    }
    t->work = t->f->bench_work(t->state);
    t->last_draw = -1e9;
    progress(t, 0);   /* at once: the first candidate's compile can take a while */
    t->pb = clf__prebuild_start(t->ctx, t->f, t->state, t->deadline);
    seeds(t);
    if (t->opt->exhaustive)
        search_exhaustive(t);
    else
        search_sampled(t);
    clf__prebuild_stop(t->pb);
    t->pb = NULL;
    confirm(t);
    t->f->bench_destroy(t->state);
    t->state = NULL;
    e->evaluations = t->tried;
    e->failed = t->failed;
    e->seconds = clf__now() - t->start;
    progress(t, 1);
    if (t->best < 0) {
        if (!t->opt->quiet)
            fprintf(stderr, "%s %s/%s: no configuration ran correctly; last error: %s\n", t->f->name,
                    clf__dtype_name(t->dt), t->bucket, t->last_error);
        return CLF_SUCCESS;
    }
    clf__config_format(t->f, &t->seen[t->best].cfg, e->config, sizeof e->config);
    e->rate = speed_of(t, t->seen[t->best].seconds);
    if (e->evaluations - e->failed <= 1 && !t->opt->quiet)
        fprintf(stderr, "%s %s/%s: only one configuration was measured: the stored entry is marked single_evaluation "
                "(a larger --budget lets the search compare)\n", t->f->name, clf__dtype_name(t->dt), t->bucket);
    return store_entry(t, e);
}

clf_status clf__tune_task(clf_context *ctx, const clf__family *f, clf_dtype dt, const char *bucket,
                          const clf_tune_options *opt, double budget, uint64_t seed, clf_tune_entry *e)
{
    task t;
    memset(&t, 0, sizeof t);
    t.ctx = ctx;
    t.f = f;
    t.dt = dt;
    t.bucket = bucket;
    t.opt = opt;
    t.tty = isatty(2);
    t.last_draw = -1e9;
    t.drawn = -1;
    t.rng.s = seed;
    const char *tr = getenv("CLFORGE_TUNE_TRACE");
    if (tr && *tr && !(t.trace = fopen(tr, "a")) && !opt->quiet)
        fprintf(stderr, "clforge: cannot append to CLFORGE_TUNE_TRACE=%s; no trace\n", tr);
    clf_status s = run_task(&t, budget, e);
    if (t.trace)
        fclose(t.trace);
    free(t.seen);
    return s;
}
