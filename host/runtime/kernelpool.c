/* kernelpool.c — a per-context pool of kernel objects, keyed by program and kernel name. Creating a
 * cl_kernel costs tens to hundreds of microseconds on some drivers (PoCL), more than a whole tiny op; a
 * kernel's arguments are state, so two threads cannot share one. An op therefore borrows a kernel
 * (clf__kernel_take), sets every argument, enqueues (which captures the arguments) and hands it back
 * (clf__kernel_give). The lock guards only the table, never an enqueue. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Enough for the kernels a context's ops use repeatedly across a few threads. When it is full (a tuner
 * trying hundreds of configurations), a new kernel replaces a free one in turn. */
#define CLF__KPOOL_MAX 256

typedef struct clf__kentry {
    cl_program prog;   /* lives as long as the context's program cache */
    char *name;
    cl_kernel k;
    int busy;          /* borrowed by a caller */
} clf__kentry;

struct clf__kernelpool {
    pthread_mutex_t lock;
    int n;
    int victim;        /* where the search for a free entry to replace starts */
    clf__kentry e[CLF__KPOOL_MAX];
};

struct clf__kernelpool *clf__kernelpool_create(void)
{
    struct clf__kernelpool *p = calloc(1, sizeof *p);
    if (p) pthread_mutex_init(&p->lock, NULL);
    return p;
}

void clf__kernelpool_destroy(struct clf__kernelpool *p)
{
    if (!p) return;
    for (int i = 0; i < p->n; i++) {
        clReleaseKernel(p->e[i].k);
        free(p->e[i].name);
    }
    pthread_mutex_destroy(&p->lock);
    free(p);
}

/* A free pooled kernel for (prog, name) marked busy, or NULL. */
static cl_kernel borrow(struct clf__kernelpool *p, cl_program prog, const char *name)
{
    cl_kernel k = NULL;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->n && !k; i++) {
        clf__kentry *e = &p->e[i];
        if (!e->busy && e->prog == prog && strcmp(e->name, name) == 0) {
            e->busy = 1;
            k = e->k;
        }
    }
    pthread_mutex_unlock(&p->lock);
    return k;
}

/* Remembers a new kernel as borrowed, in a new entry or in place of a free one when the table is full;
 * when every entry is borrowed (or memory ran out) it stays untracked and clf__kernel_give releases it. */
static void adopt(struct clf__kernelpool *p, cl_program prog, const char *name, cl_kernel k)
{
    char *copy = strdup(name);
    if (!copy) return;
    cl_kernel old = NULL;
    pthread_mutex_lock(&p->lock);
    int at = p->n < CLF__KPOOL_MAX ? p->n++ : -1;
    for (int i = 0; at < 0 && i < CLF__KPOOL_MAX; i++) {
        int j = (p->victim + i) % CLF__KPOOL_MAX;
        if (!p->e[j].busy) {
            at = j;
            p->victim = (j + 1) % CLF__KPOOL_MAX;
            old = p->e[j].k;
            free(p->e[j].name);
        }
    }
    if (at >= 0) {
        p->e[at] = (clf__kentry){.prog = prog, .name = copy, .k = k, .busy = 1};
        copy = NULL;
    }
    pthread_mutex_unlock(&p->lock);
    free(copy);
    if (old) clReleaseKernel(old);
}

clf_status clf__kernel_take(clf_context *ctx, const char *source, const char *options, const char *name,
                            cl_kernel *out)
{
    *out = NULL;
    cl_program prog;
    clf_status s = clf__program(ctx, source, options, &prog);
    if (s != CLF_SUCCESS) return s;
    cl_kernel k = borrow(ctx->kernels, prog, name);
    if (!k) {
        cl_int err;
        k = clCreateKernel(prog, name, &err);
        if (!k) return clf__fail_cl(err, "clCreateKernel", "kernel '%s'", name);
        adopt(ctx->kernels, prog, name, k);
    }
    *out = k;
    return CLF_SUCCESS;
}

void clf__kernel_give(clf_context *ctx, cl_kernel k)
{
    if (!k) return;
    struct clf__kernelpool *p = ctx->kernels;
    int found = 0;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->n && !found; i++) {
        if (p->e[i].k == k) {
            p->e[i].busy = 0;
            found = 1;
        }
    }
    pthread_mutex_unlock(&p->lock);
    if (!found) clReleaseKernel(k);
}

int clf__kernelpool_size(const clf_context *ctx)
{
    struct clf__kernelpool *p = ctx->kernels;
    pthread_mutex_lock(&p->lock);
    int n = p->n;
    pthread_mutex_unlock(&p->lock);
    return n;
}
