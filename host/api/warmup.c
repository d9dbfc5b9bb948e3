/* warmup.c — clf_warmup: compiles, ahead of the first call, the kernels the ops would run with the
 * configurations a context resolves, into its program caches (memory and disk), several programs at once.
 * Drivers compile one program on one core (PoCL: 0.3-2 s each on a CPU), so the first call of a new process
 * otherwise pays every compile of its path in turn; after a warm-up it loads binaries from disk. */
#include "gemm_mma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WARMUP_MAX_TASKS 512
#define WARMUP_MAX_THREADS 16

/* One GEMM call planned and built (nothing enqueued), or the copy family's kernels. */
typedef struct warm_task {
    int copy;                  /* 1: clf_copy and clf_fill on a scratch buffer */
    clf__gemm_call call;
} warm_task;

typedef struct warm_run {
    clf_context *ctx;
    warm_task tasks[WARMUP_MAX_TASKS];
    int n;
    pthread_mutex_t mu;
    int next;                  /* next task to take */
    clf_status first;          /* first failure */
    char *message;             /* its clf_last_error text */
} warm_run;

/* Representative shapes of each bucket: one aligned to every tile size and one not (edge strips, packs),
 * and on CPUs short-K ones (products up to about 320^3 read their operands in place there). A shape that
 * lands in another bucket on this device (thin on a CPU; short K on a GPU, where it is small) is skipped. */
typedef struct warm_shape {
    size_t m, n, k, batch;
    const char *bucket;
} warm_shape;
static const warm_shape shapes[] = {
    {64, 64, 64, 1, "small"},        {61, 45, 37, 1, "small"},
    {1024, 1024, 1024, 1, "medium"}, {1000, 999, 1001, 1, "medium"},
    {512, 512, 64, 1, "medium"},     {700, 530, 90, 1, "medium"},
    {4096, 4096, 4096, 1, "large"},  {4000, 3999, 4001, 1, "large"},
    {2048, 2048, 8, 1, "large"},     {2001, 1999, 7, 1, "large"},
    {256, 4096, 4096, 1, "thin"},    {250, 4001, 4095, 1, "thin"},
    {64, 4096, 4096, 1, "skinny"},   {63, 4001, 4095, 1, "skinny"},
    {256, 256, 256, 1, "skinny"},    {250, 251, 255, 1, "skinny"},
    {64, 64, 64, 4096, "batched"},   {61, 45, 37, 16384, "batched"},
};
/* The matrix units' shapes: the large bucket's aligned and odd ones, and two of a few hundred rows, which the
 * planner runs on smaller wgmma tiles chosen for the shape (64 x 128, 64 x 64) where the device has them. */
static const warm_shape mma_shapes[] = {
    {4096, 4096, 4096, 1, "large"}, {4000, 3999, 4001, 1, "large"},
    {300, 12288, 4096, 1, "large"}, {112, 7168, 4096, 1, "large"},
};

/* 1 when name is in the comma-separated list (NULL: every name). */
static int listed(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        while (*p == ',' || *p == ' ')
            p++;
        size_t w = strcspn(p, ", ");
        if (w == len && strncmp(p, name, len) == 0)
            return 1;
        p += w;
    }
    return 0;
}

/* Every name of a comma-separated list must be one of known (NULL-terminated); else CLF_ERR_INVALID_ARG. */
static clf_status check_list(const char *list, const char *what, const char *const *known)
{
    if (!list)
        return CLF_SUCCESS;
    for (const char *p = list; *p;) {
        while (*p == ',' || *p == ' ')
            p++;
        size_t w = strcspn(p, ", ");
        int ok = w == 0;
        for (int i = 0; known[i] && !ok; i++)
            ok = strlen(known[i]) == w && strncmp(p, known[i], w) == 0;
        if (!ok)
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_warmup: %s \"%.*s\" is unknown", what, (int)(w < 64 ? w : 64), p);
        p += w;
    }
    return CLF_SUCCESS;
}

static clf_status check_options(const clf_warmup_options *o)
{
    const char *families[16], *precisions[] = {"f32", "f64", "f16", "bf16", NULL};
    int nf = 0;
    for (int i = 0; clf__families[i] && nf < 15; i++)
        families[nf++] = clf__families[i]->name;
    families[nf] = NULL;
    const char *const *buckets = clf__family_gemm.buckets;
    const char *bl[9] = {NULL};
    for (int i = 0; i < clf__family_gemm.nbuckets && i < 8; i++)
        bl[i] = buckets[i];
    clf_status s = check_list(o->families, "family", families);
    if (s == CLF_SUCCESS)
        s = check_list(o->precisions, "precision", precisions);
    if (s == CLF_SUCCESS)
        s = check_list(o->buckets, "bucket", bl);
    return s;
}

static void add(warm_run *r, const warm_task *t)
{
    if (r->n < WARMUP_MAX_TASKS)
        r->tasks[r->n++] = *t;
}

/* One task per transpose pair: the planner reads an operand in place or packs it depending on it. */
static void add_transposes(warm_run *r, const clf__gemm_call *base)
{
    static const clf_transpose tr[2] = {CLF_NO_TRANS, CLF_TRANS};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            warm_task t = {.call = *base};
            t.call.ta = tr[a], t.call.tb = tr[b];
            add(r, &t);
        }
}

/* The row-major call of shape sh, leading dimensions as stored; no buffers (build_only). */
static clf__gemm_call shape_call(const warm_shape *sh, clf_dtype dt)
{
    size_t m = sh->m, n = sh->n, k = sh->k, bt = sh->batch;
    return (clf__gemm_call){.dtype = dt, .layout = CLF_ROW_MAJOR, .m = m, .n = n, .k = k, .alpha = 1.0,
                            .lda = m > k ? m : k, .ldb = n > k ? n : k, .ldc = n, .batch = bt,
                            .stride_a = m * k, .stride_b = k * n, .stride_c = m * n, .build_only = 1};
}

/* The gemm family: for each selected bucket the device has, its shapes in every transpose. Typed
 * precisions (f16, bf16) are clf_gemm calls with fp32 accumulation (portable path or matrix units). */
static clf_status plan_gemm(warm_run *r, const clf_warmup_options *o)
{
    const clf_device_info *dev = &r->ctx->info;
    const clf_dtype dts[4] = {CLF_F32, CLF_F64, CLF_F16, CLF_BF16};
    const char *const names[4] = {"f32", "f64", "f16", "bf16"};
    const clf__family *g = &clf__family_gemm;
    int present[8] = {0};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int b = 0; b < g->nbuckets && b < 8; b++)
            present[b] |= strcmp(g->buckets[b], shapes[i].bucket) == 0 &&
                          strcmp(clf__gemm_bucket_for(dev, shapes[i].m, shapes[i].n, shapes[i].k, shapes[i].batch),
                                 shapes[i].bucket) == 0;
    for (int b = 0; o->buckets && b < g->nbuckets && b < 8; b++)
        if (!present[b] && listed(o->buckets, g->buckets[b]))
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_warmup: \"%s\" has no %s bucket (%s devices do not use it)",
                             dev->name, g->buckets[b], dev->type & CL_DEVICE_TYPE_CPU ? "CPU" : "such");
    for (int p = 0; p < 4; p++) {
        int want = o->precisions ? listed(o->precisions, names[p]) : p < 2;
        if (!want || (dts[p] == CLF_F64 && !dev->fp64))
            continue;
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            const warm_shape *sh = &shapes[i];
            if (strcmp(clf__gemm_bucket_for(dev, sh->m, sh->n, sh->k, sh->batch), sh->bucket) != 0)
                continue;
            if (!listed(o->buckets, sh->bucket))
                continue;
            clf__gemm_call c = shape_call(sh, p < 2 ? dts[p] : CLF_F32);
            if (p >= 2)
                c.typed = 1, c.a_type = c.b_type = dts[p], c.c_type = CLF_F32, c.compute = CLF_COMPUTE_EXACT;
            add_transposes(r, &c);
        }
    }
    return CLF_SUCCESS;
}

/* gemm_mma: every selected mode the matrix units run on this device (the self-test runs here, once), on
 * mma_shapes. Devices without usable matrix units have nothing to build. */
static void plan_mma(warm_run *r, const clf_warmup_options *o)
{
    static const struct { clf__mma_mode mode; const char *prec; clf_dtype in; clf_compute compute; } modes[] = {
        {CLF__MMA_F16, "f16", CLF_F16, CLF_COMPUTE_EXACT},   {CLF__MMA_BF16, "bf16", CLF_BF16, CLF_COMPUTE_EXACT},
        {CLF__MMA_TF32, "f32", CLF_F32, CLF_COMPUTE_TF32},  {CLF__MMA_3XTF32, "f32", CLF_F32, CLF_COMPUTE_3XTF32},
        {CLF__MMA_F64, "f64", CLF_F64, CLF_COMPUTE_EXACT},
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (!listed(o->precisions, modes[i].prec) || !clf__mma_usable(r->ctx, modes[i].mode))
            continue;
        for (size_t s = 0; s < sizeof mma_shapes / sizeof mma_shapes[0]; s++) {
            clf__gemm_call c = shape_call(&mma_shapes[s], modes[i].in == CLF_F64 ? CLF_F64 : CLF_F32);
            if (modes[i].in != CLF_F64)
                c.typed = 1, c.a_type = c.b_type = modes[i].in, c.c_type = CLF_F32, c.compute = modes[i].compute;
            c.mma = 1;
            add_transposes(r, &c);
        }
    }
    clf__clear_error();   /* a failed self-test warned once; the portable path serves those modes */
}

/* clf_copy and clf_fill of 4-byte elements at aligned offsets (what most calls are) on scratch buffers. */
static clf_status warm_copy(clf_context *ctx)
{
    cl_int e = CL_SUCCESS;
    cl_mem a = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, 65536, NULL, &e);
    cl_mem b = a ? clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, 65536, NULL, &e) : NULL;
    clf_status s = b ? CLF_SUCCESS : clf__fail_cl(e, "clCreateBuffer", "clf_warmup copy scratch");
    const float one = 1.0f;
    if (s == CLF_SUCCESS)
        s = clf_fill(ctx, a, 0, &one, sizeof one, 65536, NULL);
    if (s == CLF_SUCCESS)
        s = clf_copy(ctx, a, 0, b, 0, 65536, NULL);
    if (s == CLF_SUCCESS && (e = clFinish(ctx->queue)) != CL_SUCCESS)
        s = clf__fail_cl(e, "clFinish", "clf_warmup copy");
    if (a)
        clReleaseMemObject(a);
    if (b)
        clReleaseMemObject(b);
    return s;
}

static void *worker(void *arg)
{
    warm_run *r = arg;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        int i = r->next < r->n ? r->next++ : -1;
        pthread_mutex_unlock(&r->mu);
        if (i < 0)
            return NULL;
        const warm_task *t = &r->tasks[i];
        clf_status s = t->copy ? warm_copy(r->ctx) : clf__gemm_run(r->ctx, &t->call, NULL, CLF__GEMM_AUTO, NULL, NULL);
        if (s != CLF_SUCCESS) {
            pthread_mutex_lock(&r->mu);
            if (r->first == CLF_SUCCESS) {
                r->first = s;
                r->message = strdup(clf_last_error());
            }
            pthread_mutex_unlock(&r->mu);
        }
    }
}

/* Runs the tasks on up to `threads` threads (the caller's among them). */
static void run_tasks(warm_run *r, int threads)
{
    pthread_t th[WARMUP_MAX_THREADS];
    int started = 0;
    if (threads > r->n)
        threads = r->n;
    for (int i = 1; i < threads; i++)
        if (pthread_create(&th[started], NULL, worker, r) == 0)
            started++;
    worker(r);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
}

clf_status clf_warmup(clf_context *ctx, const clf_warmup_options *opt)
{
    if (!ctx)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_warmup: ctx is NULL");
    clf_warmup_options o = {0};
    if (opt)
        o = *opt;
    clf_status s = check_options(&o);
    if (s != CLF_SUCCESS)
        return s;
    warm_run *r = calloc(1, sizeof *r);
    if (!r)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "clf_warmup");
    r->ctx = ctx;
    pthread_mutex_init(&r->mu, NULL);
    if (listed(o.families, "copy"))
        add(r, &(warm_task){.copy = 1});
    if (listed(o.families, "gemm") || listed(o.families, "gemm_cpu"))   /* CPU devices' GEMM path is gemm_cpu */
        s = plan_gemm(r, &o);
    if (listed(o.families, "gemm_mma"))
        plan_mma(r, &o);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = o.threads > 0 ? o.threads : cores > 0 ? (int)cores : 1;
    if (s == CLF_SUCCESS) {
        run_tasks(r, threads < WARMUP_MAX_THREADS ? threads : WARMUP_MAX_THREADS);
        if ((s = r->first) != CLF_SUCCESS)
            clf__fail(s, "clf_warmup: %s", r->message ? r->message : "a build failed");
    }
    free(r->message);
    pthread_mutex_destroy(&r->mu);
    free(r);
    return s;
}
