/* prebuild.c — threads that compile the candidates the search will try next, through a family's
 * bench_build hook: on a GPU compiling takes far longer than running, and the host has cores to spare. */
#include "autotune.h"

#include <stdlib.h>
#include <unistd.h>

#define PREBUILD_MAX_THREADS 12

struct clf__prebuild {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    clf__config q[CLF__PREBUILD_WINDOW];
    int n, next;               /* pending: q[next..n) */
    int quit, nthreads;
    pthread_t th[PREBUILD_MAX_THREADS];
    const clf__family *f;
    void *state;
    double deadline;           /* no build starts that would, on the average so far, end after this */
    double build_sum;          /* seconds spent in builds, and how many */
    int builds;
};

/* Called with mu held. A build that cannot finish before the task ends only delays its end: stopping
 * waits for builds in flight (up to 12 s each for some H200 GEMM candidates). */
static int too_late(const clf__prebuild *p)
{
    return clf__now() + (p->builds ? p->build_sum / p->builds : 0) > p->deadline;
}

static void *worker(void *arg)
{
    clf__prebuild *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && (p->next >= p->n || too_late(p)))
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->quit)
            break;
        clf__config c = p->q[p->next++];
        pthread_mutex_unlock(&p->mu);
        double t0 = clf__now();
        p->f->bench_build(p->state, &c);   /* a failure shows again, and is counted, when it is run */
        clf__clear_error();
        double took = clf__now() - t0;
        pthread_mutex_lock(&p->mu);
        p->build_sum += took;
        p->builds++;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

clf__prebuild *clf__prebuild_start(clf_context *ctx, const clf__family *f, void *state, double deadline)
{
    if (!f->bench_build)
        return NULL;
    /* CLFORGE_TUNE_THREADS sets the number of builders (0: none); by default one per core but one,
     * and none on a CPU device, where compiling would steal the cores being timed. */
    const char *env = getenv("CLFORGE_TUNE_THREADS");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = cores > 2 ? (int)(cores - 1) : 0;
    if (env && *env)
        n = atoi(env);
    else if (ctx->info.type & CL_DEVICE_TYPE_CPU)
        n = 0;
    if (n > PREBUILD_MAX_THREADS)
        n = PREBUILD_MAX_THREADS;
    if (n < 1)
        return NULL;
    clf__prebuild *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->f = f;
    p->state = state;
    p->deadline = deadline;
    for (int i = 0; i < n; i++)
        if (pthread_create(&p->th[p->nthreads], NULL, worker, p) == 0)
            p->nthreads++;
    return p;
}

void clf__prebuild_stop(clf__prebuild *p)
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

void clf__prebuild_window(clf__prebuild *p, const clf__config *list, int n)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->n = p->next = 0;
    for (int i = 0; i < n && p->n < CLF__PREBUILD_WINDOW; i++)
        p->q[p->n++] = list[i];
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}
