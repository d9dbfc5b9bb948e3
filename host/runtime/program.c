/* program.c — JIT compilation of OpenCL C with two caches in front: a thread-safe in-memory table per
 * context, and program binaries on disk (programs/<device-id>/<hash>.bin) that survive the process.
 * A binary file carries its size and checksum; a truncated, corrupt or driver-refused file is removed
 * and the program rebuilt from source. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

enum { CLF__BUILDING, CLF__READY, CLF__FAILED };

typedef struct clf__progentry {
    XXH128_hash_t key;          /* of source, options */
    int state;
    cl_program program;         /* READY */
    clf_status status;          /* FAILED: the status and message to hand every caller */
    char *message;
    struct clf__progentry *next;
} clf__progentry;

struct clf__progcache {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    clf__progentry *head;
    clf_cache_stats stats;
};

#define CLF__BIN_MAGIC "CLFBIN1"   /* 8 bytes with the NUL */

struct clf__progcache *clf__progcache_create(void)
{
    struct clf__progcache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->changed, NULL);
    return c;
}

void clf__progcache_destroy(struct clf__progcache *c)
{
    if (!c) return;
    for (clf__progentry *e = c->head, *next; e; e = next) {
        next = e->next;
        if (e->program) clReleaseProgram(e->program);
        free(e->message);
        free(e);
    }
    pthread_cond_destroy(&c->changed);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

void clf__cache_stats(const clf_context *ctx, clf_cache_stats *out)
{
    pthread_mutex_lock(&ctx->progs->lock);
    *out = ctx->progs->stats;
    pthread_mutex_unlock(&ctx->progs->lock);
}

/* The disk file name covers everything that makes a binary valid: source, options, device identity and
 * driver version (the device key holds it too; named again so that the rule is visible here). */
static void clf__bin_path(const clf_context *ctx, const char *source, const char *options, char *path, size_t cap)
{
    XXH3_state_t *st = XXH3_createState();
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, source, strlen(source) + 1);
    XXH3_128bits_update(st, options, strlen(options) + 1);
    XXH3_128bits_update(st, ctx->info.key, strlen(ctx->info.key) + 1);
    XXH3_128bits_update(st, ctx->info.driver, strlen(ctx->info.driver) + 1);
    XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    snprintf(path, cap, "%s/programs/%s/%016llx%016llx.bin", ctx->cache_dir, ctx->info.id,
             (unsigned long long)h.high64, (unsigned long long)h.low64);
}

/* Reads a binary file; returns a malloc'ed payload or NULL when absent. *corrupt is set when the file
 * exists but fails its size or checksum test. */
static unsigned char *clf__bin_read(const char *path, size_t *len, int *corrupt)
{
    *corrupt = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char magic[8];
    uint64_t size = 0, sum = 0;
    unsigned char *data = NULL;
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, CLF__BIN_MAGIC, 8) != 0 || fread(&size, 8, 1, f) != 1 ||
        fread(&sum, 8, 1, f) != 1 || size == 0 || size > ((uint64_t)1 << 31)) {
        *corrupt = 1;
    } else if ((data = malloc((size_t)size)) == NULL) {
        /* treat as absent */
    } else if (fread(data, 1, (size_t)size, f) != size || fgetc(f) != EOF || XXH3_64bits(data, (size_t)size) != sum) {
        *corrupt = 1;
        free(data);
        data = NULL;
    }
    fclose(f);
    *len = (size_t)size;
    return data;
}

/* Writes to a temporary file and renames it, so that readers never see half a file. Failures only
 * cost the cache (one warning). */
static void clf__bin_write(const char *path, const unsigned char *data, size_t len)
{
    char tmp[1500];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%lx", path, (long)getpid(), (unsigned long)pthread_self());
    FILE *f = fopen(tmp, "wb");
    if (!f) { clf__warn_once("binwrite", "cannot write program cache file %s: %s", tmp, strerror(errno)); return; }
    uint64_t size = len, sum = XXH3_64bits(data, len);
    int ok = fwrite(CLF__BIN_MAGIC, 1, 8, f) == 8 && fwrite(&size, 8, 1, f) == 1 && fwrite(&sum, 8, 1, f) == 1 &&
             fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        clf__warn_once("binwrite", "cannot write program cache file %s", path);
        unlink(tmp);
    }
}

static clf_status clf__build(clf_context *ctx, cl_program prog, const char *options, const char *what)
{
    cl_int err = clBuildProgram(prog, 1, &ctx->dev, options, NULL, NULL);
    if (err == CL_SUCCESS) return CLF_SUCCESS;
    size_t log_len = 0;
    clGetProgramBuildInfo(prog, ctx->dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_len);
    char *log = malloc(log_len + 1);
    if (log) {
        log[0] = '\0';
        clGetProgramBuildInfo(prog, ctx->dev, CL_PROGRAM_BUILD_LOG, log_len, log, NULL);
        log[log_len] = '\0';
    }
    clf_status s = clf__fail(err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS ? CLF_ERR_BUILD : (clf_status)err,
                             "clBuildProgram (%s, options \"%s\"): %s (%d) on %s\n", what, options, clf_status_name(err),
                             (int)err, ctx->info.name);
    clf__error_append(log ? log : "(no build log)");
    free(log);
    return s;
}

/* Loads from the disk cache (or NULL); removes files that fail their checks or that the driver refuses. */
static cl_program clf__load_binary(clf_context *ctx, const char *path, const char *options)
{
    size_t len = 0;
    int corrupt = 0;
    unsigned char *data = clf__bin_read(path, &len, &corrupt);
    if (!data) {
        if (corrupt) {
            unlink(path);
            pthread_mutex_lock(&ctx->progs->lock);
            ctx->progs->stats.disk_rejects++;
            pthread_mutex_unlock(&ctx->progs->lock);
        }
        return NULL;
    }
    cl_int err, bin_status = CL_SUCCESS;
    const unsigned char *bins[1] = {data};
    cl_program prog = clCreateProgramWithBinary(ctx->cl, 1, &ctx->dev, &len, bins, &bin_status, &err);
    free(data);
    if (prog && err == CL_SUCCESS && bin_status == CL_SUCCESS &&
        clBuildProgram(prog, 1, &ctx->dev, options, NULL, NULL) == CL_SUCCESS)
        return prog;
    if (prog) clReleaseProgram(prog);
    unlink(path);
    pthread_mutex_lock(&ctx->progs->lock);
    ctx->progs->stats.disk_rejects++;
    pthread_mutex_unlock(&ctx->progs->lock);
    return NULL;
}

static void clf__store_binary(clf_context *ctx, cl_program prog, const char *path)
{
    size_t len = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) != CL_SUCCESS || len == 0) return;
    unsigned char *data = malloc(len);
    if (!data) return;
    unsigned char *bins[1] = {data};
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS) clf__bin_write(path, data, len);
    free(data);
}

/* Produces a built program: disk cache first, then source. */
static clf_status clf__produce(clf_context *ctx, const char *source, const char *options, cl_program *out, int *from_disk)
{
    char path[1400];
    *from_disk = 0;
    if (ctx->cache_dir[0]) {
        clf__bin_path(ctx, source, options, path, sizeof path);
        if ((*out = clf__load_binary(ctx, path, options)) != NULL) { *from_disk = 1; return CLF_SUCCESS; }
    }
    cl_int err;
    size_t len = strlen(source);
    cl_program prog = clCreateProgramWithSource(ctx->cl, 1, &source, &len, &err);
    if (!prog) return clf__fail_cl(err, "clCreateProgramWithSource", NULL);
    clf_status s = clf__build(ctx, prog, options, "from source");
    if (s != CLF_SUCCESS) { clReleaseProgram(prog); return s; }
    if (ctx->cache_dir[0]) clf__store_binary(ctx, prog, path);
    *out = prog;
    return CLF_SUCCESS;
}

clf_status clf__program(clf_context *ctx, const char *source, const char *options, cl_program *out)
{
    if (!options) options = "";
    XXH3_state_t *st = XXH3_createState();
    if (!st) return clf__fail(CLF_ERR_OUT_OF_MEMORY, "hash state");
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, source, strlen(source) + 1);
    XXH3_128bits_update(st, options, strlen(options) + 1);
    XXH128_hash_t key = XXH3_128bits_digest(st);
    XXH3_freeState(st);

    struct clf__progcache *c = ctx->progs;
    pthread_mutex_lock(&c->lock);
    clf__progentry *e;
    for (;;) {
        for (e = c->head; e; e = e->next)
            if (XXH128_isEqual(e->key, key)) break;
        if (!e || e->state != CLF__BUILDING) break;
        pthread_cond_wait(&c->changed, &c->lock);   /* another thread builds it: wait, do not build twice */
    }
    if (e) {
        clf_status s = CLF_SUCCESS;
        if (e->state == CLF__READY) { *out = e->program; c->stats.memory_hits++; }
        else s = clf__fail(e->status, "%s", e->message ? e->message : "program build failed earlier");
        pthread_mutex_unlock(&c->lock);
        return s;
    }
    e = calloc(1, sizeof *e);
    if (!e) { pthread_mutex_unlock(&c->lock); return clf__fail(CLF_ERR_OUT_OF_MEMORY, "program cache entry"); }
    e->key = key;
    e->state = CLF__BUILDING;
    e->next = c->head;
    c->head = e;
    pthread_mutex_unlock(&c->lock);

    double t0 = clf__now();
    int from_disk = 0;
    cl_program prog = NULL;
    clf_status s = clf__produce(ctx, source, options, &prog, &from_disk);
    double dt = clf__now() - t0;

    pthread_mutex_lock(&c->lock);
    if (s == CLF_SUCCESS) {
        e->state = CLF__READY;
        e->program = prog;
        *out = prog;
        if (from_disk) c->stats.disk_hits++;
        else c->stats.compiles++;
        c->stats.last_load_seconds = dt;
    } else {
        /* A failed build is deterministic: remember it so that nobody compiles it again. */
        e->state = CLF__FAILED;
        e->status = s;
        e->message = strdup(clf_last_error());
    }
    pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
    return s;
}

clf_status clf__kernel(clf_context *ctx, const char *source, const char *options, const char *name, cl_kernel *out)
{
    cl_program prog;
    clf_status s = clf__program(ctx, source, options, &prog);
    if (s != CLF_SUCCESS) return s;
    cl_int err;
    cl_kernel k = clCreateKernel(prog, name, &err);
    if (!k) return clf__fail_cl(err, "clCreateKernel", "kernel '%s'", name);
    *out = k;
    return CLF_SUCCESS;
}

clf_status clf_build_kernel(clf_context *ctx, const char *source, const char *options, const char *kernel_name,
                            cl_kernel *out)
{
    if (!ctx || !source || !kernel_name || !out)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_build_kernel: ctx, source, kernel_name and out must be non-NULL");
    return clf__kernel(ctx, source, options, kernel_name, out);
}
