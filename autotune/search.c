/* search.c — the autotuner: searches each family's configurations for every precision and shape
 * bucket within a time budget, verifies every candidate against the family's reference before its
 * time counts, and stores the best in the tuning database. */
#include "autotune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLOWER_CUTOFF 1.5     /* a candidate whose first timed run is this much slower stops there */
#define NEIGHBOR_CAP 512
#define PREBUILD_MAX_THREADS 12
#define PREBUILD_WINDOW 32

/* Threads that compile the candidates the search will try next (families with bench_build, on
 * devices that are not the host CPU): on a GPU compiling takes far longer than running. */
typedef struct prebuild {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    clf__config q[PREBUILD_WINDOW];
    int n, next;               /* pending: q[next..n) */
    int quit, nthreads;
    pthread_t th[PREBUILD_MAX_THREADS];
    const clf__family *f;
    void *state;
} prebuild;

typedef struct memo {
    clf__config cfg;
    double seconds;            /* median time; < 0 when it failed */
    int explored;              /* its neighbourhood was searched */
    double at;                 /* seconds into the task when it was measured */
    int eval;                  /* as which evaluation */
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
    prebuild *pb;              /* NULL: candidates are built when first run */
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
        snprintf(best, sizeof best, v >= 100 ? "%.0f %s (%s)" : "%.3g %s (%s)", v, unit_of(t->f), cfg);
    }
    fprintf(stderr, "%s%s %s/%s: tried %d, failed %d, of %s | best %s | %.1f s%s%s", t->tty ? "\r" : "",
            t->f->name, clf__dtype_name(t->dt), t->bucket, t->tried, t->failed, total, best, now - t->start,
            t->tty ? "\033[K" : "", t->tty && !final ? "" : "\n");
    fflush(stderr);
}

static memo *lookup(task *t, const clf__config *c)
{
    for (int i = 0; i < t->nseen; i++)
        if (memcmp(&t->seen[i].cfg, c, sizeof *c) == 0)
            return &t->seen[i];
    return NULL;
}

static void *prebuild_worker(void *arg)
{
    prebuild *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->next >= p->n)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->quit)
            break;
        clf__config c = p->q[p->next++];
        pthread_mutex_unlock(&p->mu);
        p->f->bench_build(p->state, &c);   /* a failure shows again, and is counted, when it is run */
        clf__clear_error();
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static prebuild *prebuild_start(task *t)
{
    if (!t->f->bench_build || (t->ctx->info.type & CL_DEVICE_TYPE_CPU))
        return NULL;   /* on a CPU device, compiling would steal the cores being timed */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = cores > 2 ? (int)(cores - 1) : 0;
    if (n > PREBUILD_MAX_THREADS)
        n = PREBUILD_MAX_THREADS;
    if (n < 1)
        return NULL;
    prebuild *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->f = t->f;
    p->state = t->state;
    for (int i = 0; i < n; i++)
        if (pthread_create(&p->th[p->nthreads], NULL, prebuild_worker, p) == 0)
            p->nthreads++;
    return p;
}

static void prebuild_stop(prebuild *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->th[i], NULL);   /* builds in flight finish first: the state must outlive them */
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* The next candidates, in the order they will be tried; replaces what was pending. */
static void prebuild_window(task *t, const clf__config *list, int n)
{
    prebuild *p = t->pb;
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->n = p->next = 0;
    for (int i = 0; i < n && p->n < PREBUILD_WINDOW; i++)
        if (!lookup(t, &list[i]) && t->f->valid(&list[i], &t->ctx->info, t->dt))
            p->q[p->n++] = list[i];
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
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

/* Median of reps runs. Events that report durations far below what the host saw (Mesa rusticl 22.3
 * gives 1 ns for kernels of milliseconds) switch the context to host timers. */
static clf_status timed(task *t, run_arg *ra, int reps, double *out)
{
    double h0 = clf__now();
    clf_status s = clf__time_median(t->ctx, run_once, ra, 0, reps, out);
    double host = clf__now() - h0;
    if (s == CLF_SUCCESS && t->ctx->event_timing != 0 && *out * reps * 1000 < host) {
        t->ctx->event_timing = 0;
        s = clf__time_median(t->ctx, run_once, ra, 0, reps, out);
    }
    return s;
}

/* Builds, runs, verifies and times one configuration. Returns its index in t->seen, or -1 when it
 * was not run (already seen, or no memory). A configuration's build options are a function of the
 * configuration alone, so one seen before is never built or timed again. */
static int evaluate(task *t, const clf__config *c)
{
    if (lookup(t, c) || !t->f->valid(c, &t->ctx->info, t->dt))
        return -1;
    if (t->nseen == t->capseen) {
        int cap = t->capseen ? 2 * t->capseen : 64;
        memo *m = realloc(t->seen, sizeof *m * (size_t)cap);
        if (!m)
            return -1;
        t->seen = m;
        t->capseen = cap;
    }
    int idx = t->nseen++;
    memo *m = &t->seen[idx];
    m->cfg = *c;
    m->seconds = -1;
    m->explored = 0;
    t->tried++;
    m->eval = t->tried;
    m->at = clf__now() - t->start;

    run_arg ra = {t->f, t->state, c};
    cl_event ev = NULL;
    /* First run: builds the program and produces the output that is checked. */
    clf_status s = t->f->bench_run(t->state, c, &ev);
    cl_int err = clFinish(t->ctx->queue);
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
    double first = 0;
    if (s == CLF_SUCCESS)
        s = timed(t, &ra, 1, &first);
    if (s != CLF_SUCCESS) {
        t->failed++;
        snprintf(t->last_error, sizeof t->last_error, "%s", clf_last_error());
        clf__clear_error();
        progress(t, 0);
        return idx;
    }
    double best = t->best >= 0 ? t->seen[t->best].seconds : 0;
    if (best > 0 && first > SLOWER_CUTOFF * best) {
        m->seconds = first;   /* clearly slower: one timed run is enough to know */
        t->slow++;
        progress(t, 0);
        return idx;
    }
    int reps = first < 0.005 ? 9 : first < 0.05 ? 5 : 3;
    double med = 0;
    s = timed(t, &ra, reps, &med);
    if (s != CLF_SUCCESS || !(med > 0)) {
        t->failed++;
        snprintf(t->last_error, sizeof t->last_error, "%s", clf_last_error());
        clf__clear_error();
        progress(t, 0);
        return idx;
    }
    m->seconds = med;
    m->at = clf__now() - t->start;
    if (best <= 0 || med < best)
        t->best = idx;
    progress(t, 0);
    return idx;
}

/* Seeds: the configuration stored for this device, the shipped default, the heuristic. */
static void seeds(task *t)
{
    clf__config c;
    char section[160];
    clf__tunedb_entry_path(t->f->name, clf__dtype_name(t->dt), t->bucket, section, sizeof section);
    json_t *e = NULL;
    if (!t->ctx->no_tuning && clf__tunedb_fetch(t->ctx, section, &e) == CLF_SUCCESS && e) {
        json_t *cfg = json_object_get(e, "config");
        if (json_is_string(cfg) && clf__config_parse(t->f, json_string_value(cfg), &c) == CLF_SUCCESS)
            evaluate(t, &c);
        clf__clear_error();
    }
    json_decref(e);
    if (!stopped(t) && clf__shipped_config(t->ctx, t->f, t->dt, t->bucket, &c))
        evaluate(t, &c);
    memset(&c, 0, sizeof c);
    t->f->default_config(&t->ctx->info, t->dt, t->bucket, &c);
    if (!stopped(t) && (t->nseen == 0 || !out_of_time(t)))
        evaluate(t, &c);
}

/* Every valid configuration once, in random order: the same set as odometer order when it completes,
 * and an unbiased sample of the space when the budget stops it first. */
static void search_exhaustive(task *t)
{
    clf__perm perm;
    clf__perm_init(&perm, (uint64_t)clf__space_size(t->f), &t->rng);
    clf__config ahead[PREBUILD_WINDOW];
    int more = 1;
    while (more && !out_of_time(t)) {
        /* the next window of valid configurations, handed to the builders, then run in order */
        int n = 0;
        uint64_t idx;
        while (n < PREBUILD_WINDOW && (more = clf__perm_next(&perm, &idx))) {
            clf__space_decode(t->f, idx, &ahead[n]);
            if (t->f->valid(&ahead[n], &t->ctx->info, t->dt))
                n++;
        }
        prebuild_window(t, ahead, n);
        for (int i = 0; i < n && !out_of_time(t); i++)
            evaluate(t, &ahead[i]);
    }
}

/* The best evaluated configuration whose neighbourhood was not searched yet, or -1. */
static int next_unexplored(const task *t)
{
    int pick = -1;
    for (int i = 0; i < t->nseen; i++)
        if (t->seen[i].seconds > 0 && !t->seen[i].explored &&
            (pick < 0 || t->seen[i].seconds < t->seen[pick].seconds))
            pick = i;
    return pick;
}

/* Random sampling for a share of the budget, then first-improvement local search from the best
 * point, restarting from the next-best unexplored point (or a fresh random one) at a local optimum. */
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
    int samples = 0, misses = 0;
    clf__config c, batch[PREBUILD_WINDOW];
    int nbatch = t->pb ? PREBUILD_WINDOW : 1;
    while (!out_of_time(t) && (clf__now() < sample_until || (sample_until > 0 && samples < 2)) && misses < 200) {
        int n = 0;
        while (n < nbatch && clf__space_random(t->f, &t->ctx->info, t->dt, &t->rng, 1000, &batch[n]))
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
    int cur = t->best;
    while (!out_of_time(t)) {
        if (cur < 0 || t->seen[cur].explored) {
            cur = next_unexplored(t);
            if (cur < 0) {
                if (!clf__space_random(t->f, &t->ctx->info, t->dt, &t->rng, 1000, &c))
                    break;
                int idx = evaluate(t, &c);
                if (idx < 0 && ++misses > 1000)
                    break;   /* everything reachable has been seen */
                cur = idx >= 0 && t->seen[idx].seconds > 0 ? idx : -1;
                continue;
            }
        }
        clf__config here = t->seen[cur].cfg;
        double here_s = t->seen[cur].seconds;
        int n = clf__space_neighbors(t->f, &t->ctx->info, t->dt, &here, &t->rng, nb, NEIGHBOR_CAP);
        int moved = 0;
        for (int i = 0; i < n && !out_of_time(t); i++) {
            if (i % (PREBUILD_WINDOW / 2) == 0)
                prebuild_window(t, nb + i, n - i);
            int idx = evaluate(t, &nb[i]);
            if (idx >= 0 && t->seen[idx].seconds > 0 && t->seen[idx].seconds < here_s * 0.99) {
                cur = idx;   /* first improvement: move and search around the new point */
                moved = 1;
                break;
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
        if (!(t->seen[i].seconds > 0))
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
    int best = -1;
    for (int j = 0; j < n && !stopped(t); j++) {
        memo *m = &t->seen[top[j]];
        run_arg ra = {t->f, t->state, &m->cfg};
        double again;
        int reps = m->seconds < 0.005 ? 9 : m->seconds < 0.05 ? 5 : 3;
        if (timed(t, &ra, reps, &again) != CLF_SUCCESS || !(again > 0)) {
            clf__clear_error();
            continue;
        }
        m->seconds = again;
        if (best < 0 || again < t->seen[best].seconds)
            best = top[j];
    }
    if (best >= 0)
        t->best = best;
}

static clf_status store_entry(task *t, const char *strategy, clf_tune_entry *e)
{
    char section[160], date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    clf__tunedb_entry_path(t->f->name, clf__dtype_name(t->dt), t->bucket, section, sizeof section);
    json_t *v = json_pack("{s:s,s:f,s:s,s:f,s:s,s:i,s:i,s:i,s:I,s:f,s:f,s:i,s:s,s:s}", "config", e->config,
                          "speed", e->gflops, "unit", e->unit, "run_seconds", t->seen[t->best].seconds, "strategy",
                          strategy, "evaluations", e->evaluations, "failed", e->failed, "early_stopped", t->slow,
                          "space", (json_int_t)t->total, "tune_seconds", e->seconds, "best_found_at_seconds",
                          t->seen[t->best].at, "best_found_at_evaluation", t->seen[t->best].eval, "date", date, "clforge",
                          CLFORGE_VERSION_STRING);
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
    t->total = space <= 2e7 ? clf__space_count_valid(t->f, &t->ctx->info, t->dt, 20000000) : -1;
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
    seeds(t);
    t->pb = prebuild_start(t);
    if (t->opt->exhaustive)
        search_exhaustive(t);
    else
        search_sampled(t);
    prebuild_stop(t->pb);
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
    e->gflops = speed_of(t, t->seen[t->best].seconds);
    return store_entry(t, t->opt->exhaustive ? "exhaustive" : "sampled+local", e);
}

/* 1 when name is in the comma-separated list (NULL: everything is). */
static int listed(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}

clf_status clf__tune_families(clf_context *ctx, const clf__family *const *families,
                              const clf_dtype *precisions, int nprecisions, const char *buckets,
                              const clf_tune_options *opt, clf_tune_report *report)
{
    if (!ctx || !families || !opt || !report)
        return clf__fail(CLF_ERR_INVALID_ARG, "tune: NULL argument");
    static const clf_dtype def_prec[] = {CLF_F32, CLF_F64};
    if (!precisions) {
        precisions = def_prec;
        nprecisions = ctx->info.fp64 ? 2 : 1;
    }
    double budget = opt->budget_seconds > 0 ? opt->budget_seconds : 60;
    double t0 = clf__now();
    int tty = isatty(2);
    clf__rng rng = {(uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)ctx};
    memset(report, 0, sizeof *report);
    snprintf(report->db_path, sizeof report->db_path, "%s", clf__tunedb_path(ctx));
    int interrupted = 0, total_evals = 0;
    clf_status store_err = CLF_SUCCESS;
    for (int fi = 0; families[fi] && !interrupted; fi++) {
        const clf__family *f = families[fi];
        int nb = f->nbuckets > 0 ? f->nbuckets : 1, nsel = 0;
        for (int b = 0; b < nb; b++)
            nsel += listed(buckets, clf__bucket_name(f, f->nbuckets > 0 ? f->buckets[b] : NULL));
        /* The family's budget is shared by its tasks, f32 weighted twice: it matters most. Time a
         * task leaves unused flows to the ones after it. */
        double fam_end = clf__now() + budget, weight_left = 0;
        for (int p = 0; p < nprecisions; p++)
            weight_left += nsel * (precisions[p] == CLF_F32 ? 2.0 : 1.0);
        for (int p = 0; p < nprecisions && !interrupted; p++)
            for (int b = 0; b < nb && !interrupted; b++) {
                if (!listed(buckets, clf__bucket_name(f, f->nbuckets > 0 ? f->buckets[b] : NULL)))
                    continue;
                double w = precisions[p] == CLF_F32 ? 2.0 : 1.0;
                double left = fam_end - clf__now();
                double share = left > 0 ? left * w / weight_left : 0;
                weight_left -= w;
                task t;
                memset(&t, 0, sizeof t);
                t.ctx = ctx;
                t.f = f;
                t.dt = precisions[p];
                t.bucket = clf__bucket_name(f, f->nbuckets > 0 ? f->buckets[b] : NULL);
                t.opt = opt;
                t.tty = tty;
                t.last_draw = -1e9;
                t.drawn = -1;
                t.rng = rng;
                clf__rng_next(&rng);
                clf_tune_entry e;
                clf_status s = run_task(&t, share, &e);
                free(t.seen);
                if (s == CLF_ERR_IO)
                    store_err = s;
                if (s != CLF_ERR_UNSUPPORTED && report->count < (int)(sizeof report->entries / sizeof report->entries[0]))
                    report->entries[report->count++] = e;
                total_evals += e.evaluations;
                if (opt->stop && *opt->stop)
                    interrupted = 1;
            }
    }
    /* A log of runs: lets concurrent tuners (and people) see that nothing was lost. */
    char date[32], fams[256] = "";
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    for (int fi = 0; families[fi]; fi++)
        snprintf(fams + strlen(fams), sizeof fams - strlen(fams), "%s%s", fi ? "," : "", families[fi]->name);
    json_t *run = json_pack("[{s:s,s:I,s:s,s:s,s:f,s:f,s:i,s:b}]", "date", date, "pid", (json_int_t)getpid(),
                            "families", fams, "strategy", opt->exhaustive ? "exhaustive" : "sampled+local",
                            "budget_seconds", budget, "wall_seconds", clf__now() - t0, "evaluations", total_evals,
                            "interrupted", interrupted);
    if (report->count > 0 && clf__tunedb_store(ctx, "runs", run) != CLF_SUCCESS && !opt->quiet)
        fprintf(stderr, "clforge: could not log the run: %s\n", clf_last_error());
    else if (report->count == 0)
        json_decref(run);
    if (interrupted)
        return clf__fail(CLF_ERR_INTERRUPTED, "tuning interrupted; the best configurations found were stored");
    if (store_err != CLF_SUCCESS)
        return clf__fail(store_err, "tuning finished, but the results could not be stored in the tuning database "
                         "(is the cache directory writable? see CLFORGE_CACHE_DIR)");
    return CLF_SUCCESS;
}

CLF_API clf_status clf_tune(clf_context *ctx, const clf_tune_options *opt, clf_tune_report *report)
{
    if (!ctx || !report)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_tune: ctx and report are required");
    clf_tune_options o;
    memset(&o, 0, sizeof o);
    if (opt)
        o = *opt;
    const clf__family *list[32];
    int n = 0;
    if (!o.families || !*o.families) {
        for (int i = 0; clf__families[i] && n < 31; i++)
            list[n++] = clf__families[i];
    } else {
        char buf[256];
        if (strlen(o.families) >= sizeof buf)
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_tune: family list too long");
        strcpy(buf, o.families);
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            const clf__family *f = clf__family_find(tok);
            if (!f)
                return clf__fail(CLF_ERR_INVALID_ARG, "clf_tune: unknown family \"%s\"", tok);
            int dup = 0;
            for (int i = 0; i < n; i++)
                dup |= list[i] == f;
            if (!dup && n < 31)
                list[n++] = f;
        }
    }
    list[n] = NULL;
    if (n == 0)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_tune: no family to tune");
    return clf__tune_families(ctx, list, NULL, 0, NULL, &o, report);
}
