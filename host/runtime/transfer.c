/* transfer.c — device buffers and host transfers: direct writes and reads, and the pinned staging path
 * that large blocking transfers take (chunks copied by several host threads into mapped
 * CL_MEM_ALLOC_HOST_PTR buffers while the device's DMA moves the previous ones). */
#include "internal.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_THRESHOLD ((size_t)8 << 20)
#define DEFAULT_CHUNK ((size_t)8 << 20)

/* A positive byte count from the environment, or fallback. */
static size_t env_bytes(const char *name, size_t fallback)
{
    long x;
    return clf__env_long(name, 1, LONG_MAX, &x) > 0 ? (size_t)x : fallback;
}

/* The size from which blocking transfers stage. Devices that work in host memory (CPUs) gain nothing from
 * an extra copy, so they stage only when the variable asks for it. */
static size_t staging_threshold(const clf_context *ctx)
{
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(ctx->dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    return env_bytes("CLFORGE_STAGING_THRESHOLD", unified ? SIZE_MAX : DEFAULT_THRESHOLD);
}

clf_status clf_buffer_create(clf_context *ctx, size_t bytes, cl_mem *out)
{
    if (!ctx || !out) return clf__fail(CLF_ERR_INVALID_ARG, "clf_buffer_create: ctx and out must be non-NULL");
    *out = NULL;
    if (bytes == 0) return clf__fail(CLF_ERR_INVALID_ARG, "clf_buffer_create: bytes is 0");
    if (bytes > ctx->info.max_alloc)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_buffer_create: %zu bytes exceed the device's largest allocation "
                         "(%llu bytes)", bytes, (unsigned long long)ctx->info.max_alloc);
    cl_int e;
    cl_mem m = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (!m) return clf__fail_cl(e, "clCreateBuffer", "clf_buffer_create: %zu bytes", bytes);
    *out = m;
    return CLF_SUCCESS;
}

/* Everything a transfer needs checked before anything is enqueued: ctx, the host pointer, the device range
 * inside buf and buf in ctx's OpenCL context, and the buffer's host access flags. */
static clf_status check_transfer(const clf_context *ctx, const char *fn, int upload, cl_mem buf, size_t off,
                                 const void *host, size_t bytes)
{
    if (!ctx) return clf__fail(CLF_ERR_INVALID_ARG, "%s: ctx is NULL", fn);
    if (bytes == 0) return CLF_SUCCESS;
    if (!host) return clf__fail(CLF_ERR_INVALID_ARG, "%s: %s is NULL", fn, upload ? "src" : "dst");
    clf__span sp;
    clf_status s = clf__check_operand_buffer(ctx, fn, upload ? "dst" : "src", buf, off, bytes, 1, &sp);
    if (s != CLF_SUCCESS) return s;
    cl_mem_flags flags = 0;
    clGetMemObjectInfo(buf, CL_MEM_FLAGS, sizeof flags, &flags, NULL);
    cl_mem_flags refused = CL_MEM_HOST_NO_ACCESS | (upload ? CL_MEM_HOST_READ_ONLY : CL_MEM_HOST_WRITE_ONLY);
    if (flags & refused)
        return clf__fail(CLF_ERR_INVALID_ARG, "%s: the buffer was created without host %s access", fn,
                         upload ? "write" : "read");
    return CLF_SUCCESS;
}

/* One direct write or read; a completed marker stands in for an empty transfer's event. */
static clf_status direct(clf_context *ctx, const char *fn, int upload, cl_mem buf, size_t off, void *host,
                         size_t bytes, cl_bool blocking, cl_event *done)
{
    cl_int e;
    if (bytes == 0)
        e = done ? clEnqueueMarkerWithWaitList(ctx->queue, 0, NULL, done) : CL_SUCCESS;
    else if (upload)
        e = clEnqueueWriteBuffer(ctx->queue, buf, blocking, off, bytes, host, 0, NULL, done);
    else
        e = clEnqueueReadBuffer(ctx->queue, buf, blocking, off, bytes, host, 0, NULL, done);
    if (e != CL_SUCCESS)
        return clf__fail_cl(e, upload ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer", "%s: %zu bytes at offset %zu",
                            fn, bytes, off);
    return CLF_SUCCESS;
}

/* Copying threads of a staged transfer: $CLFORGE_STAGING_THREADS (at most CLF__STAGING_SLOTS), else every
 * online CPU, 2 to 16. One thread's memcpy runs at a fraction of a host's memory bandwidth, below a PCIe 5
 * link: on the 16-CPU H200 host, 1 GiB with 8 MiB chunks ran at 23-25, 33-36, 35-36 and 39-40 GB/s with 4, 8,
 * 12 and 16 threads (the threads mostly wait on DMA, so one per CPU does not starve the caller). */
static int staging_threads(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t fallback = cpus > CLF__STAGING_SLOTS ? CLF__STAGING_SLOTS : cpus > 2 ? (size_t)cpus : 2;
    size_t n = env_bytes("CLFORGE_STAGING_THREADS", fallback);
    return n > CLF__STAGING_SLOTS ? CLF__STAGING_SLOTS : (int)n;
}

/* Makes sure `want` slots exist and are mapped (staging lock held). A slot that cannot be made fails the
 * transfer when it is the first; otherwise the transfer runs with the slots there are. */
static clf_status staging_grow(clf_context *ctx, int want)
{
    clf__staging *st = &ctx->staging;
    if (!st->chunk) {
        size_t chunk = env_bytes("CLFORGE_STAGING_CHUNK", DEFAULT_CHUNK);
        st->chunk = chunk > ctx->info.max_alloc ? (size_t)ctx->info.max_alloc : chunk;
    }
    while (st->count < want) {
        int i = st->count;
        cl_int e;
        cl_mem m = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, st->chunk, NULL, &e);
        void *p = m ? clEnqueueMapBuffer(ctx->queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, st->chunk, 0, NULL,
                                         NULL, &e)
                    : NULL;
        if (!p) {
            if (m) clReleaseMemObject(m);
            if (i > 0) return CLF_SUCCESS;
            return clf__fail_cl(e, m ? "clEnqueueMapBuffer" : "clCreateBuffer", "pinned staging buffer of %zu bytes",
                                st->chunk);
        }
        st->buf[i] = m, st->host[i] = p;
        st->count = i + 1;
    }
    return CLF_SUCCESS;
}

void clf__staging_free(clf_context *ctx)
{
    clf__staging *st = &ctx->staging;
    for (clf__pinned *p = ctx->pinned, *next; p; p = next) {
        next = p->next;
        clEnqueueUnmapMemObject(ctx->queue, p->buf, p->host, 0, NULL, NULL);
        clReleaseMemObject(p->buf);   /* freed once the unmap has run */
        free(p);
    }
    ctx->pinned = NULL;
    for (int i = 0; i < st->count; i++) clEnqueueUnmapMemObject(ctx->queue, st->buf[i], st->host[i], 0, NULL, NULL);
    clFinish(ctx->queue);   /* unmapped before released */
    for (int i = 0; i < st->count; i++) {
        clReleaseMemObject(st->buf[i]);
        st->buf[i] = NULL, st->host[i] = NULL;
    }
    st->count = 0;
    st->chunk = 0;
}

/* One staged transfer shared by its copying threads: each thread owns a slot and takes the next chunk
 * until none is left, so the copies run in parallel and each waits only for its own slot's DMA. */
typedef struct stage_job {
    clf_context *ctx;
    int upload;
    cl_mem buf;
    size_t off, bytes, chunk, nchunks;
    unsigned char *host;
    atomic_size_t next;
    atomic_int failed;
    cl_int err;          /* the first failure (written once, by the thread that set failed) */
    size_t err_chunk;
} stage_job;

typedef struct stage_worker {
    stage_job *job;
    int slot;
} stage_worker;

static void *stage_run(void *arg)
{
    stage_worker *w = arg;
    stage_job *j = w->job;
    unsigned char *slot = j->ctx->staging.host[w->slot];
    for (;;) {
        size_t c = atomic_fetch_add(&j->next, 1);
        if (c >= j->nchunks || atomic_load(&j->failed)) break;
        size_t at = c * j->chunk, len = j->bytes - at < j->chunk ? j->bytes - at : j->chunk;
        cl_int e;
        if (j->upload) {
            memcpy(slot, j->host + at, len);
            e = clEnqueueWriteBuffer(j->ctx->queue, j->buf, CL_TRUE, j->off + at, len, slot, 0, NULL, NULL);
        } else {
            e = clEnqueueReadBuffer(j->ctx->queue, j->buf, CL_TRUE, j->off + at, len, slot, 0, NULL, NULL);
            if (e == CL_SUCCESS) memcpy(j->host + at, slot, len);
        }
        if (e != CL_SUCCESS) {
            int expected = 0;
            if (atomic_compare_exchange_strong(&j->failed, &expected, 1)) j->err = e, j->err_chunk = c;
            break;
        }
    }
    return NULL;
}

/* The staged path: takes the staging lock (creating the slots on first use), runs up to one thread per slot
 * (this thread is one of them; a thread that cannot be started leaves its share to the others). */
static clf_status staged(clf_context *ctx, const char *fn, int upload, cl_mem buf, size_t off, void *host,
                         size_t bytes)
{
    clf__staging *st = &ctx->staging;
    pthread_mutex_lock(&st->lock);
    size_t chunk = st->chunk ? st->chunk : env_bytes("CLFORGE_STAGING_CHUNK", DEFAULT_CHUNK);
    size_t nchunks = (bytes + chunk - 1) / chunk;
    int want = staging_threads();
    if ((size_t)want > nchunks) want = (int)nchunks;
    clf_status s = staging_grow(ctx, want);
    if (s != CLF_SUCCESS) {
        pthread_mutex_unlock(&st->lock);
        return s;
    }
    stage_job job = {.ctx = ctx, .upload = upload, .buf = buf, .off = off, .bytes = bytes, .chunk = st->chunk,
                     .nchunks = (bytes + st->chunk - 1) / st->chunk, .host = host};
    atomic_init(&job.next, 0);
    atomic_init(&job.failed, 0);
    int nthreads = want < st->count ? want : st->count;
    stage_worker workers[CLF__STAGING_SLOTS];
    pthread_t tid[CLF__STAGING_SLOTS];
    int started[CLF__STAGING_SLOTS] = {0};
    for (int i = 0; i < nthreads; i++) workers[i] = (stage_worker){&job, i};
    for (int i = 1; i < nthreads; i++) started[i] = pthread_create(&tid[i], NULL, stage_run, &workers[i]) == 0;
    stage_run(&workers[0]);
    for (int i = 1; i < nthreads; i++)
        if (started[i]) pthread_join(tid[i], NULL);
    pthread_mutex_unlock(&st->lock);
    if (atomic_load(&job.failed))
        return clf__fail_cl(job.err, upload ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer",
                            "%s: staged chunk %zu of %zu (%zu bytes each)", fn, job.err_chunk, job.nchunks, job.chunk);
    return CLF_SUCCESS;
}

clf_status clf_host_alloc(clf_context *ctx, size_t bytes, void **out)
{
    if (!ctx || !out) return clf__fail(CLF_ERR_INVALID_ARG, "clf_host_alloc: ctx and out must be non-NULL");
    *out = NULL;
    if (bytes == 0) return clf__fail(CLF_ERR_INVALID_ARG, "clf_host_alloc: bytes is 0");
    if (bytes > ctx->info.max_alloc)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_host_alloc: %zu bytes exceed the device's largest allocation "
                         "(%llu bytes)", bytes, (unsigned long long)ctx->info.max_alloc);
    clf__pinned *p = calloc(1, sizeof *p);
    if (!p) return clf__fail(CLF_ERR_OUT_OF_MEMORY, "clf_host_alloc: %zu bytes", bytes);
    cl_int e;
    p->buf = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &e);
    p->host = p->buf ? clEnqueueMapBuffer(ctx->queue, p->buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL,
                                          NULL, &e)
                     : NULL;
    if (!p->host) {
        if (p->buf) clReleaseMemObject(p->buf);
        free(p);
        return clf__fail_cl(e, "clf_host_alloc", "pinned host buffer of %zu bytes", bytes);
    }
    p->bytes = bytes;
    pthread_mutex_lock(&ctx->pinned_lock);
    p->next = ctx->pinned;
    ctx->pinned = p;
    pthread_mutex_unlock(&ctx->pinned_lock);
    *out = p->host;
    return CLF_SUCCESS;
}

clf_status clf_host_free(clf_context *ctx, void *ptr)
{
    if (!ctx) return clf__fail(CLF_ERR_INVALID_ARG, "clf_host_free: ctx is NULL");
    if (!ptr) return CLF_SUCCESS;
    clf__pinned *p = NULL;
    pthread_mutex_lock(&ctx->pinned_lock);
    for (clf__pinned **at = &ctx->pinned; *at; at = &(*at)->next)
        if ((*at)->host == ptr) {
            p = *at;
            *at = p->next;
            break;
        }
    pthread_mutex_unlock(&ctx->pinned_lock);
    if (!p)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_host_free: ptr %p is not a pinned allocation of this context "
                         "(from clf_host_alloc, not freed yet)", ptr);
    /* The in-order queue runs the unmap after every transfer enqueued from this memory before. */
    cl_int e = clEnqueueUnmapMemObject(ctx->queue, p->buf, p->host, 0, NULL, NULL);
    clReleaseMemObject(p->buf);
    free(p);
    return e == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(e, "clEnqueueUnmapMemObject", "clf_host_free");
}

/* 1 when host bytes [host, host + bytes) lie inside one of ctx's pinned allocations. */
static int in_pinned(clf_context *ctx, const void *host, size_t bytes)
{
    uintptr_t lo = (uintptr_t)host;
    int found = 0;
    pthread_mutex_lock(&ctx->pinned_lock);
    for (const clf__pinned *p = ctx->pinned; p && !found; p = p->next) {
        uintptr_t b = (uintptr_t)p->host;
        found = lo >= b && lo - b <= p->bytes && bytes <= p->bytes - (lo - b);
    }
    pthread_mutex_unlock(&ctx->pinned_lock);
    return found;
}

static clf_status transfer(clf_context *ctx, const char *fn, int upload, cl_mem buf, size_t off, void *host,
                           size_t bytes)
{
    clf_status s = check_transfer(ctx, fn, upload, buf, off, host, bytes);
    if (s != CLF_SUCCESS) return s;
    if (bytes == 0) return CLF_SUCCESS;
    /* From pinned memory the driver's DMA reads the user's bytes directly: staging would only add a copy. */
    if (bytes >= staging_threshold(ctx) && !in_pinned(ctx, host, bytes))
        return staged(ctx, fn, upload, buf, off, host, bytes);
    return direct(ctx, fn, upload, buf, off, host, bytes, CL_TRUE, NULL);
}

clf_status clf_upload(clf_context *ctx, cl_mem dst, size_t dst_off, const void *src, size_t bytes)
{
    /* The host memory is only read: the cast serves the shared read/write signature. */
    return transfer(ctx, "clf_upload", 1, dst, dst_off, (void *)(uintptr_t)src, bytes);
}

clf_status clf_download(clf_context *ctx, cl_mem src, size_t src_off, void *dst, size_t bytes)
{
    return transfer(ctx, "clf_download", 0, src, src_off, dst, bytes);
}

clf_status clf_upload_async(clf_context *ctx, cl_mem dst, size_t dst_off, const void *src, size_t bytes,
                            cl_event *done)
{
    if (done) *done = NULL;
    clf_status s = check_transfer(ctx, "clf_upload_async", 1, dst, dst_off, src, bytes);
    if (s != CLF_SUCCESS) return s;
    return direct(ctx, "clf_upload_async", 1, dst, dst_off, (void *)(uintptr_t)src, bytes, CL_FALSE, done);
}

clf_status clf_download_async(clf_context *ctx, cl_mem src, size_t src_off, void *dst, size_t bytes,
                              cl_event *done)
{
    if (done) *done = NULL;
    clf_status s = check_transfer(ctx, "clf_download_async", 0, src, src_off, dst, bytes);
    if (s != CLF_SUCCESS) return s;
    return direct(ctx, "clf_download_async", 0, src, src_off, dst, bytes, CL_FALSE, done);
}
