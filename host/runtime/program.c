/* program.c — JIT compilation of OpenCL C with two caches in front: a thread-safe in-memory table per
 * context, and program binaries on disk (programs/<device-id>/<hash>.bin) that survive the process.
 * A binary file carries its full key (source hash, options, device key, driver), its size and a checksum
 * over both; a truncated, corrupt, misplaced or driver-refused file is removed and the program rebuilt
 * from source. Binaries go to the driver unchecked by anyone else, so they are only loaded from
 * directories this user owns and nobody else may write (docs/trust.md). */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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
    int disk;                   /* binaries on disk: 0 not checked yet, 1 usable, -1 refused or absent */
};

#define CLF__BIN_MAGIC "CLFBIN2"   /* 8 bytes with the NUL; version 1 files (no key) read as corrupt */
#define CLF__BIN_HEADER 32         /* magic, key length, payload size, checksum */
#define CLF__BIN_MAX_KEY 65536
#define CLF__TMP_AGE 600           /* seconds after which a temp file is a crashed writer's leftover */

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
 * driver version (the device key holds it too; named again so that the rule is visible here). The same
 * facts go into the file as its key (malloc'ed into *key), so that a file copied over another's name is
 * refused rather than run. */
static int clf__bin_path(const clf_context *ctx, const char *source, const char *options, char *path, size_t cap,
                         char **key)
{
    XXH3_state_t *st = XXH3_createState();
    if (!st) return 0;
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, source, strlen(source) + 1);
    XXH3_128bits_update(st, options, strlen(options) + 1);
    XXH3_128bits_update(st, ctx->info.key, strlen(ctx->info.key) + 1);
    XXH3_128bits_update(st, ctx->info.driver, strlen(ctx->info.driver) + 1);
    XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    snprintf(path, cap, "%s/programs/%s/%016llx%016llx.bin", ctx->cache_dir, ctx->info.id,
             (unsigned long long)h.high64, (unsigned long long)h.low64);
    XXH128_hash_t sh = XXH3_128bits(source, strlen(source));
    size_t n = strlen(options) + strlen(ctx->info.key) + strlen(ctx->info.driver) + 128;
    if (n > CLF__BIN_MAX_KEY || !(*key = malloc(n))) return 0;
    snprintf(*key, n, "source %016llx%016llx\\noptions %s\\ndevice %s\\ndriver %s\\n", (unsigned long long)sh.high64,
             (unsigned long long)sh.low64, options, ctx->info.key, ctx->info.driver);
    return 1;
}

static int clf__read_all(int fd, void *buf, size_t len)
{
    for (size_t got = 0; got < len;) {
        ssize_t r = read(fd, (char *)buf + got, len - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return 0;
        got += (size_t)r;
    }
    return 1;
}

static int clf__write_all(int fd, const void *buf, size_t len)
{
    for (size_t put = 0; put < len;) {
        ssize_t r = write(fd, (const char *)buf + put, len - put);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return 0;
        put += (size_t)r;
    }
    return 1;
}

/* Reads a binary file; returns a malloc'ed payload or NULL when absent. *corrupt is set when the file
 * exists but is no regular file (a FIFO would block every reader), a symbolic link, or fails its size,
 * checksum or key test. */
static unsigned char *clf__bin_read(const char *path, const char *key, size_t *len, int *corrupt)
{
    *corrupt = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        *corrupt = errno == ELOOP;   /* a planted symbolic link */
        return NULL;
    }
    struct stat st;
    char magic[8];
    uint64_t hdr[3] = {0, 0, 0};   /* key length, payload size, checksum */
    unsigned char *data = NULL;
    size_t klen = strlen(key);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !clf__read_all(fd, magic, 8) ||
        memcmp(magic, CLF__BIN_MAGIC, 8) != 0 || !clf__read_all(fd, hdr, sizeof hdr) || hdr[0] != klen ||
        hdr[1] == 0 || hdr[1] > ((uint64_t)1 << 31) || (uint64_t)st.st_size != CLF__BIN_HEADER + hdr[0] + hdr[1]) {
        *corrupt = 1;   /* the size test comes before any allocation: a header cannot ask for 2 GB */
    } else if ((data = malloc(klen + (size_t)hdr[1])) == NULL) {
        /* treat as absent */
    } else if (!clf__read_all(fd, data, klen + (size_t)hdr[1]) || XXH3_64bits(data, klen + (size_t)hdr[1]) != hdr[2] ||
               memcmp(data, key, klen) != 0) {
        *corrupt = 1;
        free(data);
        data = NULL;
    } else {
        memmove(data, data + klen, (size_t)hdr[1]);
    }
    close(fd);
    *len = (size_t)hdr[1];
    return data;
}

/* Writes to a fresh temporary file (mkstemp: O_EXCL, mode 0600 whatever the umask, so a planted link is
 * never followed) and renames it, so that readers never see half a file. Failures only cost the cache
 * (one warning). */
static void clf__bin_write(const char *path, const char *key, const unsigned char *data, size_t len)
{
    char tmp[1500];
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) { clf__warn_once("binwrite", "cannot write program cache file %s: %s", tmp, strerror(errno)); return; }
    size_t klen = strlen(key);
    XXH3_state_t *st = XXH3_createState();
    uint64_t hdr[3] = {klen, len, 0};
    int ok = st != NULL;
    if (ok) {
        XXH3_64bits_reset(st);
        XXH3_64bits_update(st, key, klen);
        XXH3_64bits_update(st, data, len);
        hdr[2] = XXH3_64bits_digest(st);
        XXH3_freeState(st);
    }
    ok = ok && clf__write_all(fd, CLF__BIN_MAGIC, 8) && clf__write_all(fd, hdr, sizeof hdr) &&
         clf__write_all(fd, key, klen) && clf__write_all(fd, data, len);
    int e = errno;
    ok = (close(fd) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        if (ok) e = errno;
        clf__warn_once("binwrite", "cannot write program cache file %s: %s", path, strerror(e));
        unlink(tmp);
    }
}

/* 1 when dir is a directory owned by this user that nobody else may write; else 0 with *why. */
static int clf__dir_trusted(const char *dir, int follow, const char **why)
{
    struct stat st;
    if ((follow ? stat(dir, &st) : lstat(dir, &st)) != 0) { *why = "missing"; return 0; }
    if (!S_ISDIR(st.st_mode)) { *why = "not a directory"; return 0; }
    if (st.st_uid != geteuid()) { *why = "owned by another user"; return 0; }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) { *why = "writable by group or others"; return 0; }
    return 1;
}

/* Temporary files of writers that died between write and rename; old enough that no live writer owns them. */
static void clf__remove_leftovers(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strstr(e->d_name, ".bin.tmp.")) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode) &&
            now - st.st_mtime > CLF__TMP_AGE)
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* Whether binaries may be loaded from and stored in this context's cache: checked once per context. */
static int clf__disk_usable(clf_context *ctx)
{
    struct clf__progcache *c = ctx->progs;
    pthread_mutex_lock(&c->lock);
    if (c->disk == 0) {
        char progs[1100], mine[1200];
        snprintf(progs, sizeof progs, "%s/programs", ctx->cache_dir);
        snprintf(mine, sizeof mine, "%s/%s", progs, ctx->info.id);
        const char *why = NULL, *bad = NULL;
        if (access(mine, W_OK) != 0) c->disk = -1;   /* read-only cache: context.c said so already */
        else if (!clf__dir_trusted(ctx->cache_dir, 1, &why)) bad = ctx->cache_dir;
        else if (!clf__dir_trusted(progs, 0, &why)) bad = progs;
        else if (!clf__dir_trusted(mine, 0, &why)) bad = mine;
        if (bad) {
            c->disk = -1;   /* one warning per cause and process */
            clf__warn_once(why, "cache directory %s is %s: program binaries are neither loaded from it nor "
                           "stored there (programs are compiled from source); make it yours with mode 0700",
                           bad, why);
        } else if (c->disk == 0) {
            c->disk = 1;
            clf__remove_leftovers(mine);
        }
    }
    int usable = c->disk == 1;
    pthread_mutex_unlock(&c->lock);
    return usable;
}

/* The driver's build log of prog on ctx's device (malloc'ed; NULL when there is none or no memory). */
static char *clf__build_log(clf_context *ctx, cl_program prog)
{
    size_t len = 0;
    if (clGetProgramBuildInfo(prog, ctx->dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) != CL_SUCCESS || len == 0)
        return NULL;
    char *log = malloc(len + 1);
    if (log && clGetProgramBuildInfo(prog, ctx->dev, CL_PROGRAM_BUILD_LOG, len, log, NULL) != CL_SUCCESS) len = 0;
    if (log) log[len] = '\0';
    return log;
}

static int clf__env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v == '1';
}

/* CLFORGE_BUILD_OPTIONS: compiler options added to every build from source, for inspecting a driver's
 * compiler (e.g. NVIDIA's -cl-nv-verbose prints registers and spills into the build log). Programs are then
 * never taken from or written to the disk cache, whose key does not cover them. */
const char *clf__extra_build_options(void)
{
    const char *v = getenv("CLFORGE_BUILD_OPTIONS");
    return v ? v : "";
}

/* Builds from source. Compiler warnings are not printed: some drivers (PoCL's clang) write them to the
 * process's stderr, where they would land in users' output; a failure's log still reaches clf_last_error.
 * CLFORGE_BUILD_WARNINGS=1 keeps the warnings; CLFORGE_BUILD_LOG=1 keeps them too and prints every build's
 * log on stderr. "-w" is added to the build only, not to the cache key; so is CLF_ERFC_GELU, which the device's
 * type decides (1 on CPUs: the expressions' fp32 gelu through erfc, host/map/map.c), as it does the cache entry. */
static clf_status clf__build(clf_context *ctx, cl_program prog, const char *options, const char *what)
{
    int show_log = clf__env_on("CLFORGE_BUILD_LOG"), keep = show_log || clf__env_on("CLFORGE_BUILD_WARNINGS");
    const char *extra = clf__extra_build_options();
    const char *dev = ctx->info.type & CL_DEVICE_TYPE_CPU ? "-DCLF_ERFC_GELU=1" : "-DCLF_ERFC_GELU=0";
    size_t n = strlen(options) + strlen(dev) + strlen(extra) + 8;
    char *full = malloc(n);
    if (!full)
        return clf__fail(CLF_ERR_OUT_OF_MEMORY, "build options");
    snprintf(full, n, "%s%s%s%s%s%s", options, *options ? " " : "", dev, *extra ? " " : "", extra, keep ? "" : " -w");
    cl_int err = clBuildProgram(prog, 1, &ctx->dev, full, NULL, NULL);
    free(full);
    char *log = err != CL_SUCCESS || show_log ? clf__build_log(ctx, prog) : NULL;
    if (show_log && log && log[strspn(log, " \t\r\n")])
        fprintf(stderr, "clforge: build log (%s, options \"%s\") on %s:\n%s\n", what, options, ctx->info.name, log);
    if (err == CL_SUCCESS) {
        free(log);
        return CLF_SUCCESS;
    }
    clf_status s = clf__fail(err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS ? CLF_ERR_BUILD : (clf_status)err,
                             "clBuildProgram (%s, options \"%s\"): %s (%d) on %s\n", what, options, clf_status_name(err),
                             (int)err, ctx->info.name);
    clf__error_append(log ? log : "(no build log)");
    free(log);
    return s;
}

/* Loads from the disk cache (or NULL); removes files that fail their checks or that the driver refuses. */
static cl_program clf__load_binary(clf_context *ctx, const char *path, const char *key, const char *options)
{
    size_t len = 0;
    int corrupt = 0;
    unsigned char *data = clf__bin_read(path, key, &len, &corrupt);
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

static void clf__store_binary(clf_context *ctx, cl_program prog, const char *path, const char *key)
{
    size_t len = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) != CL_SUCCESS || len == 0) return;
    unsigned char *data = malloc(len);
    if (!data) return;
    unsigned char *bins[1] = {data};
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
        clf__bin_write(path, key, data, len);
    free(data);
}

/* Produces a built program: disk cache first, then source. */
static clf_status clf__produce(clf_context *ctx, const char *source, const char *options, cl_program *out, int *from_disk)
{
    char path[1400], *key = NULL;
    *from_disk = 0;
    int disk = ctx->cache_dir[0] && !*clf__extra_build_options() && clf__disk_usable(ctx) &&
               clf__bin_path(ctx, source, options, path, sizeof path, &key);
    if (disk && (*out = clf__load_binary(ctx, path, key, options)) != NULL) {
        free(key);
        *from_disk = 1;
        return CLF_SUCCESS;
    }
    cl_int err;
    size_t len = strlen(source);
    cl_program prog = clCreateProgramWithSource(ctx->cl, 1, &source, &len, &err);
    if (!prog) { free(key); return clf__fail_cl(err, "clCreateProgramWithSource", NULL); }
    clf_status s = clf__build(ctx, prog, options, "from source");
    if (s == CLF_SUCCESS && clf__wants_sm90a(options))
        s = clf__ptx_retarget(ctx, &prog, options);
    if (s != CLF_SUCCESS) { free(key); clReleaseProgram(prog); return s; }
    if (disk) clf__store_binary(ctx, prog, path, key);
    free(key);
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
    const char *extra = clf__extra_build_options();   /* a changed CLFORGE_BUILD_OPTIONS builds anew */
    XXH3_128bits_update(st, extra, strlen(extra) + 1);
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
