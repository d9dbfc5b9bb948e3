/* context.c — contexts: device selection, queue, cache directory, and the lifetime of per-context state. */
#include "internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p; returns 0 on success. New directories are 0700: the cache holds binaries that go to the
 * driver unchecked, so nobody else may write them (docs/trust.md); existing ones are left as they are. */
static int clf__mkdirs(const char *path)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buf, 0700) != 0 && errno != EEXIST) return -1;
    return 0;
}

/* Resolves the cache directory (absolute, so that a later chdir of the program does not move it) and makes
 * sure programs/<id>/ can be written. A directory that exists but cannot be written still serves its tuning
 * database (ctx->cache_dir set; program.c sees programs/<id>/ is not writable and stores no binaries).
 * Otherwise the disk cache is off for this context. One warning per process: a cache is an optimisation,
 * never a failure. */
static void clf__setup_cache(clf_context *ctx, const clf_context_options *opt)
{
    ctx->cache_dir[0] = '\0';
    if (opt && opt->no_disk_cache) return;
    const char *env = getenv("CLFORGE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[1024], cwd[1024];
    const char *given;
    if (opt && opt->cache_dir && *opt->cache_dir) given = opt->cache_dir;
    else if (env && *env) given = env;
    else if (xdg && *xdg) given = xdg;
    else if (home && *home) given = home;
    else {
        clf__warn_once("nocache", "no cache directory (set CLFORGE_CACHE_DIR); programs are compiled every run");
        return;
    }
    const char *sub = given == xdg ? "/clforge" : given == home ? "/.cache/clforge" : "";
    int n;
    if (given[0] == '/') n = snprintf(dir, sizeof dir, "%s%s", given, sub);
    else if (getcwd(cwd, sizeof cwd)) n = snprintf(dir, sizeof dir, "%s/%s%s", cwd, given, sub);
    else {
        clf__warn_once("nocache", "cache directory %s is relative and the working directory is unknown (%s); disk "
                       "cache off", given, strerror(errno));
        return;
    }
    if (n <= 0 || (size_t)n >= sizeof dir - 64) {
        clf__warn_once("nocache", "cache directory path too long (%d bytes, at most %zu); disk cache off", n,
                       sizeof dir - 65);
        return;
    }
    char progs[1024 + 64];
    snprintf(progs, sizeof progs, "%s/programs/%s", dir, ctx->info.id);
    if (clf__mkdirs(progs) == 0 && access(progs, W_OK) == 0) {
        snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s", dir);
        return;
    }
    int e = errno;
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && access(dir, R_OK | X_OK) == 0) {
        clf__warn_once("nocache", "cache directory %s is not writable (%s): its tuning database is read, but nothing "
                       "is stored there (no program binaries, no tuning results)", dir, strerror(e));
        snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s", dir);
        return;
    }
    clf__warn_once("nocache", "cache directory %s cannot be created or read (%s); disk cache off", dir, strerror(e));
}

static clf_status clf__context_finish_setup(clf_context *ctx, const clf_context_options *opt)
{
    const char *tuning = getenv("CLFORGE_TUNING");
    ctx->no_tuning = (opt && opt->no_tuning) || (tuning && strcmp(tuning, "off") == 0);
    ctx->event_timing = -1;
    clf__setup_cache(ctx, opt);
    const char *prof = getenv("CLFORGE_PROFILE");
    if (prof && *prof && strcmp(prof, "0") != 0) ctx->profile = clf__profile_create();
    ctx->progs = clf__progcache_create();
    ctx->kernels = clf__kernelpool_create();
    if (!ctx->progs || !ctx->kernels) {
        clf__progcache_destroy(ctx->progs);
        clf__kernelpool_destroy(ctx->kernels);
        clf__profile_destroy(ctx->profile);   /* the caller frees only ctx itself */
        ctx->profile = NULL;
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "program cache");
    }
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_mutex_init(&ctx->pack.lock, NULL);
    pthread_mutex_init(&ctx->partial.lock, NULL);
    pthread_mutex_init(&ctx->convert.lock, NULL);
    pthread_mutex_init(&ctx->red_split.lock, NULL);
    pthread_mutex_init(&ctx->split_flags.lock, NULL);
    pthread_mutex_init(&ctx->staging.lock, NULL);
    pthread_mutex_init(&ctx->pinned_lock, NULL);
    return CLF_SUCCESS;
}

clf_status clf_context_create(const clf_context_options *opt, clf_context **out)
{
    if (!out) return clf__fail(CLF_ERR_INVALID_ARG, "clf_context_create: out is NULL");
    const char *sel = opt && opt->device ? opt->device : getenv("CLFORGE_DEVICE");
    clf_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return clf__fail(CLF_ERR_OUT_OF_MEMORY, "clf_context_create");
    cl_platform_id plat;
    clf_status s = clf__device_pick(sel, &plat, &ctx->dev, &ctx->info);
    if (s != CLF_SUCCESS) { free(ctx); return s; }
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
    ctx->cl = clCreateContext(props, 1, &ctx->dev, NULL, NULL, &err);
    if (!ctx->cl) {
        s = clf__fail_cl(err, "clCreateContext", "device %s", ctx->info.name);
        free(ctx);
        return s;
    }
    ctx->queue = clCreateCommandQueue(ctx->cl, ctx->dev, CL_QUEUE_PROFILING_ENABLE, &err);
    if (!ctx->queue) {
        s = clf__fail_cl(err, "clCreateCommandQueue", "device %s", ctx->info.name);
        clReleaseContext(ctx->cl);
        free(ctx);
        return s;
    }
    ctx->queue_profiling = 1;
    if ((s = clf__context_finish_setup(ctx, opt)) != CLF_SUCCESS) {
        clReleaseCommandQueue(ctx->queue);
        clReleaseContext(ctx->cl);
        free(ctx);
        return s;
    }
    *out = ctx;
    return CLF_SUCCESS;
}

clf_status clf_context_wrap(cl_context context, cl_device_id device, cl_command_queue queue, clf_context **out)
{
    if (!out) return clf__fail(CLF_ERR_INVALID_ARG, "clf_context_wrap: out is NULL");
    if (!context || !device || !queue)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_context_wrap: context, device and queue must all be given");
    cl_platform_id plat;
    cl_int err = clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    if (err != CL_SUCCESS) return clf__fail_cl(err, "clGetDeviceInfo", "clf_context_wrap: device is not valid");
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_command_queue_properties qprops = 0;
    err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL);
    if (err == CL_SUCCESS) err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL);
    if (err == CL_SUCCESS) err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof qprops, &qprops, NULL);
    if (err != CL_SUCCESS) return clf__fail_cl(err, "clGetCommandQueueInfo", "clf_context_wrap: queue is not valid");
    if (qctx != context || qdev != device)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_context_wrap: the queue belongs to another context or device");
    if (qprops & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_context_wrap: the queue must be in-order");
    clf_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return clf__fail(CLF_ERR_OUT_OF_MEMORY, "clf_context_wrap");
    clf_status s = clf__device_info(plat, device, &ctx->info);
    if (s != CLF_SUCCESS) { free(ctx); return s; }
    ctx->cl = context;
    ctx->dev = device;
    ctx->queue = queue;
    ctx->queue_profiling = (qprops & CL_QUEUE_PROFILING_ENABLE) != 0;
    if ((s = clf__context_finish_setup(ctx, NULL)) != CLF_SUCCESS) { free(ctx); return s; }
    clRetainContext(context);
    clRetainCommandQueue(queue);
    clRetainDevice(device);
    *out = ctx;
    return CLF_SUCCESS;
}

clf_status clf__scratch_take(clf_context *ctx, clf__scratch *sc, size_t bytes, cl_mem *buf)
{
    pthread_mutex_lock(&sc->lock);
    if (sc->bytes < bytes) {
        cl_int e;
        cl_mem grown = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &e);
        if (!grown) {
            pthread_mutex_unlock(&sc->lock);
            return clf__fail_cl(e, "clCreateBuffer", "scratch of %zu bytes", bytes);
        }
        if (sc->buf) clReleaseMemObject(sc->buf);   /* freed by the driver once pending kernels are done */
        sc->buf = grown;
        sc->bytes = bytes;
        sc->zeroed = 0;
    }
    *buf = sc->buf;
    return CLF_SUCCESS;
}

clf_status clf__scratch_take_zeroed(clf_context *ctx, clf__scratch *sc, size_t bytes, const char *what, cl_mem *buf,
                                    int *fresh)
{
    clf_status s = clf__scratch_take(ctx, sc, bytes, buf);
    if (s != CLF_SUCCESS)
        return s;
    int fill = sc->zeroed < sc->bytes;
    if (fill) {
        cl_uint zero = 0;
        cl_int e = clEnqueueFillBuffer(ctx->queue, *buf, &zero, sizeof zero, 0, sc->bytes, 0, NULL, NULL);
        if (e != CL_SUCCESS) {
            clf__scratch_give(sc);
            return clf__fail_cl(e, "clEnqueueFillBuffer", "%s", what);
        }
        sc->zeroed = sc->bytes;
    }
    if (fresh)
        *fresh = fill;
    return CLF_SUCCESS;
}

void clf__scratch_give(clf__scratch *sc) { pthread_mutex_unlock(&sc->lock); }

static atomic_uint launch_epochs;

unsigned clf__launch_epoch(unsigned bits)
{
    unsigned mask = bits >= 32 ? 0xffffffffu : (1u << bits) - 1u, epoch;
    do
        epoch = (atomic_fetch_add(&launch_epochs, 1u) + 1u) & mask;
    while (epoch == 0);
    return epoch;
}

int clf__event_timing(const clf_context *ctx) { return ctx->event_timing; }
void clf__set_event_timing(clf_context *ctx, int v) { ctx->event_timing = v; }

void clf__context_free(clf_context *ctx)
{
    if (!ctx) return;
    clFinish(ctx->queue);
    clf__profile_destroy(ctx->profile);
    if (ctx->tuning_free) ctx->tuning_free(ctx->tuning);
    if (ctx->configs_free) ctx->configs_free(ctx->configs);
    clf__kernelpool_destroy(ctx->kernels);
    clf__progcache_destroy(ctx->progs);
    clf__staging_free(ctx);
    clf__scratch *sc[] = {&ctx->pack, &ctx->partial, &ctx->convert, &ctx->red_split, &ctx->split_flags};
    for (int i = 0; i < 5; i++) {
        if (sc[i]->buf) clReleaseMemObject(sc[i]->buf);
        pthread_mutex_destroy(&sc[i]->lock);
    }
    clReleaseCommandQueue(ctx->queue);
    clReleaseDevice(ctx->dev);
    clReleaseContext(ctx->cl);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

const clf_device_info *clf_context_device(const clf_context *ctx) { return ctx ? &ctx->info : NULL; }
cl_context clf_context_cl(const clf_context *ctx) { return ctx ? ctx->cl : NULL; }
cl_command_queue clf_context_queue(const clf_context *ctx) { return ctx ? ctx->queue : NULL; }
const char *clf_context_cache_dir(const clf_context *ctx) { return ctx ? ctx->cache_dir : ""; }

clf_status clf_finish(clf_context *ctx)
{
    if (!ctx) return clf__fail(CLF_ERR_INVALID_ARG, "clf_finish: ctx is NULL");
    cl_int err = clFinish(ctx->queue);
    return err == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(err, "clFinish", NULL);
}

clf_status clf_context_cache_stats(const clf_context *ctx, clf_cache_stats *out)
{
    if (!ctx || !out) return clf__fail(CLF_ERR_INVALID_ARG, "clf_context_cache_stats: ctx and out must be non-NULL");
    clf__cache_stats(ctx, out);
    return CLF_SUCCESS;
}
