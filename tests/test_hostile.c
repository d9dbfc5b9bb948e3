/* test_hostile.c — a hostile disk: the cache directory treated as untrusted input (swapped binaries,
 * planted links, FIFOs, leftover temp files, foreign-owned or world-writable directories, read-only
 * directories, oversized files), and the reference discipline of the tuning database under threads. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "internal.h"
#include "testutil.h"

static const char put_src[] = "__kernel void put(__global int *x) { x[0] = VALUE; }\n";

/* The first device of $CLFORGE_TEST_DEVICES, else the default one. */
static const char *selector(void)
{
    static char sel[32];
    const char *only = getenv("CLFORGE_TEST_DEVICES");
    if (!only || !*only) return NULL;
    snprintf(sel, sizeof sel, "%.*s", (int)strcspn(only, ","), only);
    return sel;
}

/* A fresh, empty directory under the suite's temp dir. */
static void fresh_dir(const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", clf_test_tmpdir(), name);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", out, out);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(mkdir(out, 0700), 0);
}

static clf_context *open_ctx(const char *cache)
{
    clf_context_options opt = {.device = selector(), .cache_dir = cache};
    clf_context *ctx = NULL;
    if (clf_context_create(&opt, &ctx) != CLF_SUCCESS) ck_abort_msg("context: %s", clf_last_error());
    return ctx;
}

/* Builds put() with VALUE=value, runs it and returns what it wrote. */
static int run_put(clf_context *ctx, int value)
{
    char opts[64];
    snprintf(opts, sizeof opts, "-DVALUE=%d", value);
    cl_kernel k;
    ck_assert_msg(clf_build_kernel(ctx, put_src, opts, "put", &k) == CLF_SUCCESS, "%s", clf_last_error());
    int zero = 0, got = -1;
    cl_mem buf = clf_test_buffer(ctx, sizeof zero, &zero);
    clSetKernelArg(k, 0, sizeof buf, &buf);
    size_t one = 1;
    ck_assert_int_eq(clEnqueueNDRangeKernel(clf_context_queue(ctx), k, 1, NULL, &one, NULL, 0, NULL, NULL), CL_SUCCESS);
    clf_test_read(ctx, buf, sizeof got, &got);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    return got;
}

static clf_cache_stats stats(clf_context *ctx)
{
    clf_cache_stats st;
    ck_assert_int_eq(clf_context_cache_stats(ctx, &st), CLF_SUCCESS);
    return st;
}

/* The one .bin file in dir that is not `except` (may be NULL). */
static int find_bin(const char *dir, const char *except, char *out, size_t cap)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".bin") != 0) continue;
        char p[1400];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (except && strcmp(p, except) == 0) continue;
        snprintf(out, cap, "%s", p);
        found++;
    }
    closedir(d);
    return found;
}

static void progs_dir(const char *cache, clf_context *ctx, char *out, size_t cap)
{
    snprintf(out, cap, "%s/programs/%s", cache, clf_context_device(ctx)->id);
}

/* Copies `from` over `to` byte for byte (in C: no shell command line to size or quote). */
static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    ck_assert_msg(in && out, "cannot copy %s to %s", from, to);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
    ck_assert_int_eq(ferror(in), 0);
    fclose(in);
    ck_assert_int_eq(fclose(out), 0);
}

/* A binary copied over another's name was loaded by checksum alone and ran the wrong kernel (1111 where
 * 2222 was expected): the key inside the file now refuses it. */
START_TEST(swapped_binary_is_refused)
{
    char cache[1200], progs[1400], a[1500], b[1500];
    fresh_dir("swap", cache, sizeof cache);
    clf_context *ctx = open_ctx(cache);
    progs_dir(cache, ctx, progs, sizeof progs);
    ck_assert_int_eq(run_put(ctx, 1111), 1111);
    ck_assert_int_eq(find_bin(progs, NULL, a, sizeof a), 1);
    ck_assert_int_eq(run_put(ctx, 2222), 2222);
    ck_assert_int_eq(find_bin(progs, a, b, sizeof b), 1);
    clf_context_destroy(ctx);
    copy_file(a, b);

    ctx = open_ctx(cache);
    ck_assert_int_eq(run_put(ctx, 2222), 2222);
    clf_cache_stats st = stats(ctx);
    ck_assert_uint_eq(st.disk_rejects, 1);
    ck_assert_uint_eq(st.disk_hits, 0);
    ck_assert_uint_eq(st.compiles, 1);
    ck_assert_int_eq(run_put(ctx, 1111), 1111);   /* the file that was copied still loads under its own name */
    ck_assert_uint_eq(stats(ctx).disk_hits, 1);
    clf_context_destroy(ctx);
}
END_TEST

/* The temp file was fopen("wb")'d at a predictable name and followed a planted link; new files and
 * directories got the umask's mode. */
START_TEST(temp_file_never_follows_a_link)
{
    char cache[1200], progs[1400], bin[1500], victim[1300], link[1600];
    fresh_dir("links", cache, sizeof cache);
    umask(0);   /* modes must not depend on it */
    clf_context *ctx = open_ctx(cache);
    progs_dir(cache, ctx, progs, sizeof progs);
    ck_assert_int_eq(run_put(ctx, 5), 5);
    ck_assert_int_eq(find_bin(progs, NULL, bin, sizeof bin), 1);
    clf_context_destroy(ctx);
    struct stat st;
    ck_assert_int_eq(stat(progs, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0700);
    ck_assert_int_eq(stat(bin, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);

    snprintf(victim, sizeof victim, "%s/victim", clf_test_tmpdir());
    FILE *f = fopen(victim, "w");
    fputs("precious\n", f);
    fclose(f);
    unlink(bin);
    /* the name the old code used: <bin>.tmp.<pid>.<thread> */
    snprintf(link, sizeof link, "%s.tmp.%ld.%lx", bin, (long)getpid(), (unsigned long)pthread_self());
    ck_assert_int_eq(symlink(victim, link), 0);
    ctx = open_ctx(cache);
    ck_assert_int_eq(run_put(ctx, 5), 5);
    clf_context_destroy(ctx);
    ck_assert_int_eq(lstat(bin, &st), 0);
    ck_assert_msg(S_ISREG(st.st_mode), "the binary is not a regular file");
    f = fopen(victim, "r");
    char text[64] = "";
    ck_assert_ptr_nonnull(fgets(text, sizeof text, f));
    fclose(f);
    ck_assert_str_eq(text, "precious\n");
    umask(022);
}
END_TEST

/* The tuning database's lock file was opened with O_CREAT and followed a planted link. */
START_TEST(lock_file_never_follows_a_link)
{
    char cache[1200], victim[1300], lock[1400];
    fresh_dir("lock", cache, sizeof cache);
    umask(0);
    clf_context *ctx = open_ctx(cache);
    ck_assert_int_eq(clf__tunedb_store(ctx, "hostile", json_pack("{s:i}", "v", 1)), CLF_SUCCESS);
    struct stat st;
    snprintf(lock, sizeof lock, "%s.lock", clf__tunedb_path(ctx));
    ck_assert_int_eq(stat(lock, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0644);
    ck_assert_int_eq(stat(clf__tunedb_path(ctx), &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0644);
    snprintf(victim, sizeof victim, "%s/lock-victim", clf_test_tmpdir());
    unlink(victim);
    unlink(lock);
    ck_assert_int_eq(symlink(victim, lock), 0);
    ck_assert_int_eq(clf__tunedb_store(ctx, "hostile", json_pack("{s:i}", "v", 2)), CLF_ERR_IO);
    ck_assert_ptr_nonnull(strstr(clf_last_error(), "not a regular file"));
    ck_assert_int_ne(access(victim, F_OK), 0);   /* nothing created outside the cache */
    json_t *v = NULL;
    ck_assert_int_eq(clf__tunedb_fetch(ctx, "hostile/v", &v), CLF_SUCCESS);
    ck_assert_int_eq(json_integer_value(v), 1);   /* and nothing lost */
    json_decref(v);
    clf_context_destroy(ctx);
    umask(022);
}
END_TEST

/* A crash between write and rename left <hash>.bin.tmp.* files that nobody removed. */
START_TEST(leftover_temp_files_are_removed)
{
    char cache[1200], progs[1400], old_tmp[1500], new_tmp[1500];
    fresh_dir("leftover", cache, sizeof cache);
    clf_context *ctx = open_ctx(cache);
    progs_dir(cache, ctx, progs, sizeof progs);
    clf_context_destroy(ctx);
    snprintf(old_tmp, sizeof old_tmp, "%s/0123456789abcdef0123456789abcdef.bin.tmp.77.abc", progs);
    snprintf(new_tmp, sizeof new_tmp, "%s/fedcba9876543210fedcba9876543210.bin.tmp.Zq81xy", progs);
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(i ? new_tmp : old_tmp, "w");
        fputs("half a binary", f);
        fclose(f);
    }
    struct timeval hour_ago[2] = {{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}};
    ck_assert_int_eq(utimes(old_tmp, hour_ago), 0);
    ctx = open_ctx(cache);
    ck_assert_int_eq(run_put(ctx, 3), 3);
    clf_context_destroy(ctx);
    ck_assert_msg(access(old_tmp, F_OK) != 0, "an hour-old temp file was left");
    ck_assert_msg(access(new_tmp, F_OK) == 0, "a fresh temp file (a live writer's) was removed");
}
END_TEST

/* A FIFO in the cache hung every operation: binaries, the tuning database and kernel files. */
START_TEST(fifo_in_cache_does_not_hang)
{
    alarm(300);   /* a hang fails the test instead of the whole run */
    char cache[1200], progs[1400], bin[1500], kdir[1300], kfile[1400];
    fresh_dir("fifo", cache, sizeof cache);
    clf_context *ctx = open_ctx(cache);
    progs_dir(cache, ctx, progs, sizeof progs);
    ck_assert_int_eq(run_put(ctx, 9), 9);
    ck_assert_int_eq(find_bin(progs, NULL, bin, sizeof bin), 1);
    ck_assert_int_eq(clf__tunedb_store(ctx, "hostile", json_pack("{s:i}", "v", 1)), CLF_SUCCESS);
    char db[1300];
    snprintf(db, sizeof db, "%s", clf__tunedb_path(ctx));
    clf_context_destroy(ctx);
    unlink(bin);
    ck_assert_int_eq(mkfifo(bin, 0600), 0);
    unlink(db);
    ck_assert_int_eq(mkfifo(db, 0600), 0);

    ctx = open_ctx(cache);
    ck_assert_int_eq(run_put(ctx, 9), 9);
    ck_assert_uint_eq(stats(ctx).disk_rejects, 1);
    json_t *v = (json_t *)1;
    ck_assert_int_eq(clf__tunedb_fetch(ctx, "hostile/v", &v), CLF_SUCCESS);
    ck_assert_ptr_null(v);
    ck_assert_int_eq(clf__tunedb_store(ctx, "hostile", json_pack("{s:i}", "v", 2)), CLF_SUCCESS);
    ck_assert_int_eq(clf__tunedb_fetch(ctx, "hostile/v", &v), CLF_SUCCESS);
    ck_assert_int_eq(json_integer_value(v), 2);
    json_decref(v);
    clf_context_destroy(ctx);

    fresh_dir("fifo-kdir", kdir, sizeof kdir);
    snprintf(kfile, sizeof kfile, "%s/roofline.cl", kdir);
    ck_assert_int_eq(mkfifo(kfile, 0600), 0);
    setenv("CLFORGE_KERNEL_DIR", kdir, 1);
    const char *src;
    ck_assert_int_eq(clf__source("roofline.cl", &src), CLF_ERR_IO);
    ck_assert_ptr_nonnull(strstr(clf_last_error(), "not a regular file"));
    unsetenv("CLFORGE_KERNEL_DIR");
    alarm(0);
}
END_TEST

/* Binaries came from any directory: a world-writable or foreign-owned one is refused for binaries with
 * one warning, and sources still compile. */
START_TEST(untrusted_cache_dir_refuses_binaries)
{
    char cache[1200], log[1300];
    fresh_dir("trust", cache, sizeof cache);
    snprintf(log, sizeof log, "%s/trust.log", clf_test_tmpdir());
    clf_context *ctx = open_ctx(cache);
    ck_assert_int_eq(run_put(ctx, 4), 4);
    clf_context_destroy(ctx);
    ctx = open_ctx(cache);
    ck_assert_int_eq(run_put(ctx, 4), 4);
    ck_assert_uint_eq(stats(ctx).disk_hits, 1);   /* trusted: served from disk */
    clf_context_destroy(ctx);

    ck_assert_int_eq(chmod(cache, 0777), 0);
    int saved = clf_test_capture_begin(log);
    ctx = open_ctx(cache);
    ck_assert_int_eq(run_put(ctx, 4), 4);
    ck_assert_int_eq(run_put(ctx, 6), 6);
    clf_cache_stats st = stats(ctx);
    clf_context_destroy(ctx);
    const char *text = clf_test_capture_end(saved, log);
    ck_assert_uint_eq(st.disk_hits, 0);
    ck_assert_uint_eq(st.compiles, 2);
    ck_assert_msg(strstr(text, "writable by group or others"), "no warning: %s", text);
    ck_assert_ptr_eq(strstr(strstr(text, "writable by group") + 1, "writable by group"), NULL);   /* once */

    if (geteuid() == 0) {   /* only root can give a directory away */
        ck_assert_int_eq(chmod(cache, 0700), 0);
        ck_assert_int_eq(chown(cache, 65534, 65534), 0);
        saved = clf_test_capture_begin(log);
        ctx = open_ctx(cache);
        ck_assert_int_eq(run_put(ctx, 4), 4);
        st = stats(ctx);
        clf_context_destroy(ctx);
        text = clf_test_capture_end(saved, log);
        ck_assert_uint_eq(st.disk_hits, 0);
        ck_assert_msg(strstr(text, "owned by another user"), "no warning: %s", text);
        ck_assert_int_eq(chown(cache, 0, 0), 0);
    }
}
END_TEST

/* Child process of readonly_cache_serves_tuning_db: prints what the database says, as another user. */
static int child_readonly(const char *cache)
{
    clf_context *ctx;
    clf_context_options opt = {.device = selector(), .cache_dir = cache};
    if (clf_context_create(&opt, &ctx) != CLF_SUCCESS) { fprintf(stderr, "%s\n", clf_last_error()); return 3; }
    json_t *v = NULL;
    clf__tunedb_fetch(ctx, "hostile/v", &v);
    printf("dir=%s v=%lld\n", clf_context_cache_dir(ctx), (long long)json_integer_value(v));
    json_decref(v);
    clf_context_destroy(ctx);
    return 0;
}

/* A read-only cache directory was ignored ("disk cache off"): its tuning database must still be read. */
START_TEST(readonly_cache_serves_tuning_db)
{
    char cache[1200], out[1300], cmd[4000];
    fresh_dir("readonly", cache, sizeof cache);
    clf_context *ctx = open_ctx(cache);
    ck_assert_int_eq(clf__tunedb_store(ctx, "hostile", json_pack("{s:i}", "v", 7)), CLF_SUCCESS);
    clf_context_destroy(ctx);
    snprintf(cmd, sizeof cmd, "chmod -R a+rX,a-w '%s'", cache);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(out, sizeof out, "%s/readonly.out", clf_test_tmpdir());
    char home[1300];   /* the driver (PoCL) needs a writable home of its own, or offers no device */
    snprintf(home, sizeof home, "%s/nobody-home", clf_test_tmpdir());
    mkdir(home, 0777);
    chmod(home, 0777);
    /* root writes anywhere: the child drops to nobody, for whom the directory is read-only (and foreign) */
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(5);
        setenv("HOME", home, 1);
        unsetenv("XDG_CACHE_HOME");
        execl("/proc/self/exe", "test_hostile", "--child-readonly", cache, (char *)NULL);
        _exit(6);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'", cache);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed: %d", status);
    FILE *f = fopen(out, "r");
    char line[1500] = "";
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    fclose(f);
    char want[1400];
    snprintf(want, sizeof want, "dir=%s v=7\n", cache);
    ck_assert_str_eq(line, want);
}
END_TEST

/* A 46 MB database cost 860 MB of memory; /dev/zero as a kernel file grew forever; a directory as kernel
 * file gave CL_INVALID_KERNEL_NAME. */
START_TEST(oversized_and_odd_files_are_refused)
{
    char cache[1200], kdir[1300], path[1400], log[1300];
    fresh_dir("big", cache, sizeof cache);
    snprintf(log, sizeof log, "%s/big.log", clf_test_tmpdir());
    clf_context *ctx = open_ctx(cache);
    ck_assert_int_eq(clf__tunedb_store(ctx, "hostile", json_pack("{s:i}", "v", 1)), CLF_SUCCESS);
    char db[1300];
    snprintf(db, sizeof db, "%s", clf__tunedb_path(ctx));
    clf_context_destroy(ctx);
    json_t *doc = json_load_file(db, 0, NULL);
    ck_assert_ptr_nonnull(doc);
    char *pad = malloc(9 << 20);
    memset(pad, 'x', (9 << 20) - 1);
    pad[(9 << 20) - 1] = '\0';
    json_object_set_new(doc, "pad", json_string(pad));
    free(pad);
    ck_assert_int_eq(json_dump_file(doc, db, 0), 0);
    json_decref(doc);

    int saved = clf_test_capture_begin(log);
    ctx = open_ctx(cache);
    json_t *v = (json_t *)1;
    ck_assert_int_eq(clf__tunedb_fetch(ctx, "hostile/v", &v), CLF_SUCCESS);
    clf_context_destroy(ctx);
    const char *text = clf_test_capture_end(saved, log);
    ck_assert_ptr_null(v);
    ck_assert_msg(strstr(text, "more than the") && strstr(text, "moved aside"), "no clear message: %s", text);
    ck_assert_msg(!strstr(text, "replaced"), "says replaced when nothing was: %s", text);

    fresh_dir("big-kdir", kdir, sizeof kdir);
    snprintf(path, sizeof path, "%s/big.cl", kdir);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < (5 << 20) / 64; i++)
        fputs("/* ........................................................ */\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/zero.cl", kdir);
    ck_assert_int_eq(symlink("/dev/zero", path), 0);
    snprintf(path, sizeof path, "%s/dir.cl", kdir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    setenv("CLFORGE_KERNEL_DIR", kdir, 1);
    const char *src;
    ck_assert_int_eq(clf__source("big.cl", &src), CLF_ERR_IO);
    ck_assert_msg(strstr(clf_last_error(), "more than the"), "%s", clf_last_error());
    ck_assert_int_eq(clf__source("zero.cl", &src), CLF_ERR_IO);
    ck_assert_msg(strstr(clf_last_error(), "not a regular file"), "%s", clf_last_error());
    ck_assert_int_eq(clf__source("dir.cl", &src), CLF_ERR_IO);
    ck_assert_msg(strstr(clf_last_error(), "a directory"), "%s", clf_last_error());
    unsetenv("CLFORGE_KERNEL_DIR");
}
END_TEST

/* "format": 1.0 or "1" was reported as 'no "format" member'. */
START_TEST(tunedb_format_messages_name_the_cause)
{
    static const char *const fmts[] = {"1.0", "\"1\""};
    static const char *const want[] = {"a fraction", "a string"};
    char cache[1200], log[1300];
    for (int i = 0; i < 2; i++) {
        char name[32];
        snprintf(name, sizeof name, "format%d", i);   /* one warning per file and process */
        fresh_dir(name, cache, sizeof cache);
        snprintf(log, sizeof log, "%s/format.log", clf_test_tmpdir());
        clf_context *ctx = open_ctx(cache);
        ck_assert_int_eq(clf__tunedb_store(ctx, "hostile", json_pack("{s:i}", "v", 1)), CLF_SUCCESS);
        char db[1300];
        snprintf(db, sizeof db, "%s", clf__tunedb_path(ctx));
        clf_context_destroy(ctx);
        json_t *doc = json_load_file(db, 0, NULL);
        json_object_set_new(doc, "format", json_loads(fmts[i], JSON_DECODE_ANY, NULL));
        ck_assert_int_eq(json_dump_file(doc, db, 0), 0);
        json_decref(doc);
        int saved = clf_test_capture_begin(log);
        ctx = open_ctx(cache);
        json_t *v = NULL;
        clf__tunedb_fetch(ctx, "hostile/v", &v);
        clf_context_destroy(ctx);
        const char *text = clf_test_capture_end(saved, log);
        ck_assert_ptr_null(v);
        ck_assert_msg(strstr(text, want[i]), "format %s: %s", fmts[i], text);
    }
}
END_TEST

/* A "stale" database is one of another driver: a file of the same driver under another key made the
 * warning say "measured with driver X, not X". */
START_TEST(stale_means_another_driver)
{
    static const char *const drivers[] = {NULL, "0.0-old"};   /* NULL: this device's own driver */
    for (int i = 0; i < 2; i++) {
        char cache[1200], other[1400], name[32];
        snprintf(name, sizeof name, "stale%d", i);
        fresh_dir(name, cache, sizeof cache);
        clf_context *ctx = open_ctx(cache);
        ck_assert_int_eq(clf__tunedb_store(ctx, "hostile", json_pack("{s:i}", "v", 5)), CLF_SUCCESS);
        json_t *doc = json_load_file(clf__tunedb_path(ctx), 0, NULL);
        json_t *dev = json_object_get(doc, "device");
        json_object_set_new(dev, "key", json_string("another key"));
        if (drivers[i]) json_object_set_new(dev, "driver", json_string(drivers[i]));
        snprintf(other, sizeof other, "%s/tuning/00000000deadbeef.json", cache);
        ck_assert_int_eq(json_dump_file(doc, other, 0), 0);
        json_decref(doc);
        ck_assert_int_eq(unlink(clf__tunedb_path(ctx)), 0);
        clf_context_destroy(ctx);
        ctx = open_ctx(cache);
        json_t *v = NULL;
        const char *driver = NULL;
        ck_assert_int_eq(clf__tunedb_fetch_stale(ctx, "hostile/v", &v, &driver), CLF_SUCCESS);
        if (drivers[i]) {
            ck_assert_int_eq(json_integer_value(v), 5);
            ck_assert_str_eq(driver, drivers[i]);
        } else {
            ck_assert_ptr_null(v);
        }
        json_decref(v);
        clf_context_destroy(ctx);
    }
}
END_TEST

/* A relative CLFORGE_CACHE_DIR is made absolute once, at context creation. */
START_TEST(relative_cache_dir_is_made_absolute)
{
    char base[1200], want[1300];
    fresh_dir("relative", base, sizeof base);
    ck_assert_int_eq(chdir(base), 0);
    char cwd[1200];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    setenv("CLFORGE_CACHE_DIR", "rel/cache", 1);
    clf_context_options opt = {.device = selector()};
    clf_context *ctx;
    ck_assert_int_eq(clf_context_create(&opt, &ctx), CLF_SUCCESS);
    snprintf(want, sizeof want, "%s/rel/cache", cwd);
    ck_assert_str_eq(clf_context_cache_dir(ctx), want);
    clf_context_destroy(ctx);
    unsetenv("CLFORGE_CACHE_DIR");
}
END_TEST

/* json_incref under ctx->lock raced a json_decref outside it: a fetched value is the caller's own copy, so
 * no reference count is shared between threads (TSan runs this in scripts/test.sh). */
typedef struct { clf_context *ctx; int stores; } fetch_arg;

static void *fetch_loop(void *p)
{
    fetch_arg *a = p;
    for (int i = 0; i < 200; i++) {
        if (a->stores && i % 20 == 0) clf__tunedb_store(a->ctx, "hostile", json_pack("{s:i}", "v", i));
        json_t *v = NULL;
        clf__tunedb_fetch(a->ctx, "hostile", &v);
        if (v) json_object_set_new(v, "mine", json_integer(i));   /* a private copy may be changed */
        json_decref(v);
    }
    return NULL;
}

START_TEST(tunedb_values_are_private_across_threads)
{
    char cache[1200];
    fresh_dir("threads", cache, sizeof cache);
    clf_context *ctx = open_ctx(cache);
    ck_assert_int_eq(clf__tunedb_store(ctx, "hostile", json_pack("{s:i}", "v", 1)), CLF_SUCCESS);
    json_t *a = NULL, *b = NULL;
    clf__tunedb_fetch(ctx, "hostile", &a);
    clf__tunedb_fetch(ctx, "hostile", &b);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_ne(a, b);
    json_decref(a);
    json_decref(b);
    pthread_t th[6];
    fetch_arg args[6];
    for (int i = 0; i < 6; i++) {
        args[i] = (fetch_arg){ctx, i == 0};
        pthread_create(&th[i], NULL, fetch_loop, &args[i]);
    }
    for (int i = 0; i < 6; i++) pthread_join(th[i], NULL);
    json_t *v = NULL;
    clf__tunedb_fetch(ctx, "hostile/mine", &v);
    ck_assert_ptr_null(v);   /* the threads' changes stayed theirs */
    clf_context_destroy(ctx);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child-readonly") == 0) return child_readonly(argv[2]);
    Suite *s = suite_create("hostile");
    CLF_TEST_ALONE(s, swapped_binary_is_refused);
    CLF_TEST_ALONE(s, temp_file_never_follows_a_link);
    CLF_TEST_ALONE(s, lock_file_never_follows_a_link);
    CLF_TEST_ALONE(s, leftover_temp_files_are_removed);
    CLF_TEST_ALONE(s, fifo_in_cache_does_not_hang);
    CLF_TEST_ALONE(s, untrusted_cache_dir_refuses_binaries);
    CLF_TEST_ALONE(s, readonly_cache_serves_tuning_db);
    CLF_TEST_ALONE(s, oversized_and_odd_files_are_refused);
    CLF_TEST_ALONE(s, tunedb_format_messages_name_the_cause);
    CLF_TEST_ALONE(s, stale_means_another_driver);
    CLF_TEST_ALONE(s, relative_cache_dir_is_made_absolute);
    CLF_TEST_ALONE(s, tunedb_values_are_private_across_threads);
    return clf_test_run(s);
}
