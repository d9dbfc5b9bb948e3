/* tunedb.c — reads and writes the per-device tuning database, tuning/<device-id>.json in the cache
 * directory. Writers lock a side file, reread, merge, write a temporary file and rename it over
 * the old one, so concurrent tuners lose nothing and a crash leaves the previous file. A file that
 * does not parse, is not an object, or has a newer format is moved aside and reported once. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARRAY 256   /* arrays (the "runs" log) keep their newest elements only */
#define MAX_FILE (8 << 20)   /* bytes: real databases hold kilobytes; a 46 MB one cost 860 MB of memory */

/* The context's cached view of its database, refreshed when the file changes on disk. */
typedef struct tuning_state {
    char path[1200];
    json_t *doc;                    /* parsed file, NULL when absent or unreadable */
    struct stat st;                 /* of the file when doc was read */
    int have_st;
    int stale_done;                 /* the search for another driver's file was made */
    json_t *stale;                  /* that file, or NULL */
    char stale_driver[128];
} tuning_state;

static void state_free(void *p)
{
    tuning_state *t = p;
    if (!t)
        return;
    json_decref(t->doc);
    json_decref(t->stale);
    free(t);
}

/* ctx->lock must be held. */
static tuning_state *state_get(clf_context *ctx)
{
    if (ctx->tuning)
        return ctx->tuning;
    tuning_state *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (ctx->cache_dir[0])
        snprintf(t->path, sizeof t->path, "%s/tuning/%s.json", ctx->cache_dir, ctx->info.id);
    ctx->tuning = t;
    ctx->tuning_free = state_free;
    return t;
}

const char *clf__tunedb_path(clf_context *ctx)
{
    if (!ctx)
        return "";
    pthread_mutex_lock(&ctx->lock);
    tuning_state *t = state_get(ctx);
    pthread_mutex_unlock(&ctx->lock);
    return t ? t->path : "";
}

void clf__tunedb_entry_path(const char *family, const char *precision, const char *bucket, char *out,
                            size_t cap)
{
    snprintf(out, cap, "tuned/%s/%s/%s", family, precision, bucket);
}

json_t *clf__tunedb_get(json_t *doc, const char *section)
{
    char buf[256];
    if (!doc || !section || strlen(section) >= sizeof buf)
        return NULL;
    strcpy(buf, section);
    json_t *cur = doc;
    for (char *save = NULL, *tok = strtok_r(buf, "/", &save); tok && cur; tok = strtok_r(NULL, "/", &save))
        cur = json_is_object(cur) ? json_object_get(cur, tok) : NULL;
    return cur == doc ? NULL : cur;
}

static void timestamp(char *out, size_t cap, const char *fmt)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, cap, fmt, &tm);
}

/* Why a parsed document is unusable, or NULL when it is fine. */
static const char *doc_problem(json_t *doc, const char *key)
{
    if (!json_is_object(doc))
        return "not a JSON object";
    json_t *fmt = json_object_get(doc, "format");
    if (!fmt)
        return "no \"format\" member";
    if (json_is_real(fmt))
        return "\"format\" is a fraction (e.g. 1.0), not an integer such as 1";
    if (json_is_string(fmt))
        return "\"format\" is a string (e.g. \"1\"), not an integer such as 1";
    if (!json_is_integer(fmt))
        return "\"format\" is not an integer";
    if (json_integer_value(fmt) > CLF__TUNEDB_FORMAT)
        return "written by a newer clforge (format too new)";
    if (json_integer_value(fmt) < 1)
        return "bad \"format\"";
    json_t *dkey = clf__tunedb_get(doc, "device/key");
    if (key && (!json_is_string(dkey) || strcmp(json_string_value(dkey), key) != 0))
        return "belongs to another device";
    return NULL;
}

/* Moves a bad file aside as <path>.corrupt-<timestamp> and says so once per file; replacing: the caller
 * writes a new file right away (a store), rather than leaving none (a read). */
static void move_aside(const char *path, const char *why, int replacing)
{
    char ts[32], dst[1300];
    timestamp(ts, sizeof ts, "%Y%m%dT%H%M%SZ");
    snprintf(dst, sizeof dst, "%s.corrupt-%s", path, ts);
    for (int i = 1; access(dst, F_OK) == 0 && i < 100; i++)
        snprintf(dst, sizeof dst, "%s.corrupt-%s-%d", path, ts, i);
    int moved = rename(path, dst) == 0;
    char key[1400];
    snprintf(key, sizeof key, "tunedb:%s", path);
    if (moved)
        clf__warn_once(key, "tuning database %s: %s; moved aside to %s%s", path, why, dst,
                       replacing ? " and replaced by a new one" : "");
    else
        clf__warn_once(key, "tuning database %s: %s; ignored (could not move it aside)", path, why);
}

/* Reads path. Returns the document, or NULL when absent; a bad file gives NULL and *why. The file is opened
 * without blocking and must be a regular file (a FIFO would hang every reader) of at most MAX_FILE bytes. */
static json_t *read_doc(const char *path, const char *key, const char **why, char *detail, size_t cap)
{
    *why = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    size_t len = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(detail, cap, "is not a regular file");
    } else if (st.st_size > MAX_FILE) {
        snprintf(detail, cap, "is %lld bytes, more than the %d a tuning database may have", (long long)st.st_size,
                 MAX_FILE);
    } else if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
        snprintf(detail, cap, "cannot be read: out of memory");
    } else {
        /* The size is read as fstat gave it: a file that grows meanwhile is cut at the cap and fails to parse. */
        while (len < (size_t)st.st_size) {
            ssize_t r = read(fd, buf + len, (size_t)st.st_size - len);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            len += (size_t)r;
        }
    }
    close(fd);
    if (!buf) {
        *why = detail;
        return NULL;
    }
    json_error_t err;
    json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
    free(buf);
    if (!doc) {
        snprintf(detail, cap, "does not parse (line %d, column %d: %s)", err.line, err.column, err.text);
        *why = detail;
        return NULL;
    }
    const char *p = doc_problem(doc, key);
    if (p) {
        snprintf(detail, cap, "%s", p);
        *why = detail;
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* Opens (creating it 0644 whatever the umask) the writers' lock file; never follows a symbolic link and
 * refuses anything but a regular file. -1 with errno on failure. */
static int open_lock(const char *lockpath)
{
    int fd = open(lockpath, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd >= 0)
        fchmod(fd, 0644);
    else if (errno == EEXIST)
        fd = open(lockpath, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

static int mkdir_p(const char *dir)
{
    char buf[1200];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0700) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

/* Reloads the cached view when the file changed on disk (ctx->lock held). Moves a bad file aside
 * under the writers' lock, after checking that it is still the bad one. */
static void state_refresh(clf_context *ctx, tuning_state *t)
{
    struct stat st;
    if (!t->path[0])
        return;
    if (stat(t->path, &st) != 0) {
        json_decref(t->doc);
        t->doc = NULL;
        t->have_st = 0;
        return;
    }
    if (t->have_st && st.st_ino == t->st.st_ino && st.st_dev == t->st.st_dev && st.st_size == t->st.st_size &&
        st.st_mtim.tv_sec == t->st.st_mtim.tv_sec && st.st_mtim.tv_nsec == t->st.st_mtim.tv_nsec)
        return;
    const char *why;
    char detail[256];
    json_t *doc = read_doc(t->path, ctx->info.key, &why, detail, sizeof detail);
    if (!doc && why) {
        char lockpath[1300];
        snprintf(lockpath, sizeof lockpath, "%s.lock", t->path);
        int fd = open_lock(lockpath);   /* a read-only directory: the bad file is only ignored */
        if (fd >= 0 && flock(fd, LOCK_EX) == 0) {
            doc = read_doc(t->path, ctx->info.key, &why, detail, sizeof detail);
            if (!doc && why)
                move_aside(t->path, why, 0);
        }
        if (fd >= 0)
            close(fd);  /* releases the lock */
        if (stat(t->path, &st) != 0) {
            json_decref(t->doc);
            t->doc = doc;
            t->have_st = 0;
            return;
        }
    }
    json_decref(t->doc);
    t->doc = doc;
    t->st = st;
    t->have_st = 1;
}

clf_status clf__tunedb_fetch(clf_context *ctx, const char *section, json_t **value)
{
    if (!ctx || !section || !value)
        return clf__fail(CLF_ERR_INVALID_ARG, "tunedb fetch: NULL argument");
    *value = NULL;
    pthread_mutex_lock(&ctx->lock);
    tuning_state *t = state_get(ctx);
    if (t) {
        state_refresh(ctx, t);
        /* A copy, not a reference: the caller releases it outside ctx->lock, and a reference into t->doc
         * would have its count changed there while a refresh frees t->doc under the lock. */
        json_t *v = clf__tunedb_get(t->doc, section);
        *value = v ? json_deep_copy(v) : NULL;
    }
    pthread_mutex_unlock(&ctx->lock);
    return t ? CLF_SUCCESS : clf__fail(CLF_ERR_OUT_OF_MEMORY, "tunedb: out of memory");
}

/* Newest database in the directory that belongs to a device of the same name and another driver. */
static void find_stale(clf_context *ctx, tuning_state *t)
{
    t->stale_done = 1;
    if (!ctx->cache_dir[0])
        return;
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/tuning", ctx->cache_dir);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    time_t newest = 0;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0 || strncmp(e->d_name, ctx->info.id, 16) == 0)
            continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 22))
            continue;
        const char *why;
        char detail[256];
        json_t *doc = read_doc(path, NULL, &why, detail, sizeof detail);
        json_t *name = clf__tunedb_get(doc, "device/name"), *drv = clf__tunedb_get(doc, "device/driver");
        json_t *plat = clf__tunedb_get(doc, "device/platform");
        /* Another driver, as the name says: a file of the same driver under another key (another machine,
         * say) is no stale result, and its warning would name the same driver twice. */
        if (doc && json_is_string(name) && strcmp(json_string_value(name), ctx->info.name) == 0 &&
            json_is_string(plat) && strcmp(json_string_value(plat), ctx->info.platform) == 0 &&
            json_is_string(drv) && strcmp(json_string_value(drv), ctx->info.driver) != 0 && st.st_mtime >= newest) {
            newest = st.st_mtime;
            json_decref(t->stale);
            t->stale = json_incref(doc);
            snprintf(t->stale_driver, sizeof t->stale_driver, "%s", json_string_value(drv));
        }
        json_decref(doc);
    }
    closedir(d);
}

clf_status clf__tunedb_fetch_stale(clf_context *ctx, const char *section, json_t **value, const char **driver)
{
    if (!ctx || !section || !value)
        return clf__fail(CLF_ERR_INVALID_ARG, "tunedb fetch: NULL argument");
    *value = NULL;
    pthread_mutex_lock(&ctx->lock);
    tuning_state *t = state_get(ctx);
    if (t) {
        if (!t->stale_done)
            find_stale(ctx, t);
        json_t *v = clf__tunedb_get(t->stale, section);
        *value = v ? json_deep_copy(v) : NULL;   /* a copy: see clf__tunedb_fetch */
        if (driver)
            *driver = t->stale_driver;
    }
    pthread_mutex_unlock(&ctx->lock);
    return t ? CLF_SUCCESS : clf__fail(CLF_ERR_OUT_OF_MEMORY, "tunedb: out of memory");
}


static json_t *new_doc(const clf_device_info *d)
{
    json_t *dev = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:i,s:i}", "key", d->key, "id", d->id, "name",
                            d->name, "vendor", d->vendor, "platform", d->platform, "driver", d->driver,
                            "type", clf__device_type_name(d->type), "vendor_id", (json_int_t)d->vendor_id,
                            "compute_units", (int)d->compute_units, "clock_mhz", (int)d->clock_mhz);
    return json_pack("{s:i,s:o}", "format", CLF__TUNEDB_FORMAT, "device", dev);
}

/* Objects merge member by member, arrays append (keeping the newest MAX_ARRAY), anything else
 * replaces. Steals value. */
static int merge_at(json_t *doc, const char *section, json_t *value)
{
    char buf[256];
    if (strlen(section) >= sizeof buf || !section[0]) {
        json_decref(value);
        return -1;
    }
    strcpy(buf, section);
    json_t *cur = doc;
    char *save = NULL, *tok = strtok_r(buf, "/", &save);
    for (char *next; tok; tok = next) {
        next = strtok_r(NULL, "/", &save);
        json_t *child = json_object_get(cur, tok);
        if (next) {
            if (!json_is_object(child)) {
                child = json_object();
                json_object_set_new(cur, tok, child);
            }
            cur = child;
            continue;
        }
        if (json_is_object(child) && json_is_object(value)) {
            json_object_update(child, value);
            json_decref(value);
        } else if (json_is_array(child) && json_is_array(value)) {
            json_array_extend(child, value);
            json_decref(value);
            while (json_array_size(child) > MAX_ARRAY)
                json_array_remove(child, 0);
        } else {
            json_object_set_new(cur, tok, value);
        }
        return 0;
    }
    json_decref(value);
    return -1;
}

/* Writes doc to a fresh temporary file in the same directory (mkstemp: never follows a planted link) and
 * renames it over path. Errors name their cause (errno of the first failure: a full disk says so). */
static clf_status write_atomic(const char *path, json_t *doc)
{
    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return clf__fail(CLF_ERR_IO, "tuning database: cannot create a temporary file %s: %s", tmp, strerror(errno));
    fchmod(fd, 0644);
    FILE *fp = fdopen(fd, "wb");
    if (!fp) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return clf__fail(CLF_ERR_IO, "tuning database: cannot write %s: %s", tmp, strerror(e));
    }
    int e = 0;
    errno = 0;
    if (json_dumpf(doc, fp, JSON_INDENT(1) | JSON_SORT_KEYS) != 0 || fputc('\n', fp) == EOF || fflush(fp) != 0)
        e = errno ? errno : EIO;
    if (!e && fsync(fileno(fp)) != 0)
        e = errno;
    if (fclose(fp) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e) {
        unlink(tmp);
        return clf__fail(CLF_ERR_IO, "tuning database: cannot write %s: %s", path, strerror(e));
    }
    return CLF_SUCCESS;
}

/* Temporary files left by writers that died mid-write (the caller holds the lock, so no live writer
 * has one open). */
static void remove_leftovers(const char *dir, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char prefix[300];
    int len = snprintf(prefix, sizeof prefix, "%s.tmp.", base);
    if (len < 0 || (size_t)len >= sizeof prefix)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            char p[1400];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
}

clf_status clf__tunedb_store(clf_context *ctx, const char *section, json_t *value)
{
    if (!ctx || !section || !value || !section[0] || section[0] == '/') {
        json_decref(value);
        return clf__fail(CLF_ERR_INVALID_ARG, "tunedb store: bad section or value");
    }
    const char *path = clf__tunedb_path(ctx);
    if (!path[0]) {
        json_decref(value);
        return clf__fail(CLF_ERR_IO, "tuning database: the disk cache is off (no cache directory)");
    }
    char dir[1100], lockpath[1300];
    snprintf(dir, sizeof dir, "%s/tuning", ctx->cache_dir);
    if (mkdir_p(dir) != 0) {
        json_decref(value);
        return clf__fail(CLF_ERR_IO, "tuning database: cannot create %s: %s", dir, strerror(errno));
    }
    snprintf(lockpath, sizeof lockpath, "%s.lock", path);
    int fd = open_lock(lockpath);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        json_decref(value);
        if (e == EINVAL || e == ELOOP)
            return clf__fail(CLF_ERR_IO, "tuning database: lock file %s is not a regular file (a link, FIFO or "
                             "directory put there); remove it", lockpath);
        return clf__fail(CLF_ERR_IO, "tuning database %s cannot be written: cannot create or lock %s: %s", path,
                         lockpath, strerror(e));
    }
    remove_leftovers(dir, path);
    const char *why;
    char detail[256];
    json_t *doc = read_doc(path, ctx->info.key, &why, detail, sizeof detail);
    if (!doc && why)
        move_aside(path, why, 1);
    if (!doc)
        doc = new_doc(&ctx->info);
    clf_status s = CLF_SUCCESS;
    char date[32];
    timestamp(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ");
    if (!doc) {
        json_decref(value);
        s = clf__fail(CLF_ERR_OUT_OF_MEMORY, "tuning database: out of memory");
    } else if (merge_at(doc, section, value) != 0)
        s = clf__fail(CLF_ERR_INVALID_ARG, "tunedb store: bad section \"%s\"", section);
    else {
        json_object_set_new(doc, "updated", json_string(date));
        json_object_set_new(doc, "clforge", json_string(CLFORGE_VERSION_STRING));
        s = write_atomic(path, doc);
    }
    json_decref(doc);
    close(fd);  /* releases the lock */
    clf__config_forget(ctx);   /* the next op resolves its configuration against the new file */
    return s;
}
