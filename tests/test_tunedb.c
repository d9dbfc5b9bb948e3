/* test_tunedb.c — the tuning database: round trips, merging, recovery from garbage, truncated and
 * future-version files, writers killed mid-write, concurrent writers, and the lookup chain
 * (tuned, stale, default) with CLFORGE_TUNING=off. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "autotune.h"
#include "testutil.h"

/* A fresh cache directory <tmp>/<name> and a context on the first device using it. */
static clf_context *fresh_ctx(const char *name, char *cache, size_t cap, int no_tuning)
{
    snprintf(cache, cap, "%s/%s", clf_test_tmpdir(), name);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", cache, cache);
    ck_assert_int_eq(system(cmd), 0);
    clf_context_options opt = {.cache_dir = cache, .no_tuning = no_tuning};
    clf_context *ctx = NULL;
    clf_status s = clf_context_create(&opt, &ctx);
    ck_assert_msg(s == CLF_SUCCESS, "context: %s", clf_last_error());
    return ctx;
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(text, 1, len, fp), len);
    fclose(fp);
}

static int count_prefix(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

/* The file parses, is an object of our format, and belongs to the device. */
static json_t *load_valid(const char *path, const clf_context *ctx)
{
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    ck_assert_msg(doc != NULL, "%s does not parse: line %d: %s", path, err.line, err.text);
    ck_assert(json_is_object(doc));
    ck_assert_int_eq(json_integer_value(json_object_get(doc, "format")), CLF__TUNEDB_FORMAT);
    ck_assert_str_eq(json_string_value(clf__tunedb_get(doc, "device/key")), clf_context_device(ctx)->key);
    return doc;
}

START_TEST(store_fetch_merge)
{
    char cache[1100];
    clf_context *ctx = fresh_ctx("merge", cache, sizeof cache, 0);
    json_t *v = NULL;
    ck_assert_int_eq(clf__tunedb_fetch(ctx, "roofline", &v), CLF_SUCCESS);
    ck_assert_ptr_null(v);
    ck_assert_int_eq(clf__tunedb_store(ctx, "roofline", json_pack("{s:f,s:f}", "copy_gbs", 10.0, "triad_gbs", 9.0)),
                     CLF_SUCCESS);
    ck_assert_int_eq(clf__tunedb_store(ctx, "roofline", json_pack("{s:f}", "copy_gbs", 12.5)), CLF_SUCCESS);
    ck_assert_int_eq(clf__tunedb_fetch(ctx, "roofline", &v), CLF_SUCCESS);
    ck_assert_ptr_nonnull(v);
    ck_assert_double_eq(json_real_value(json_object_get(v, "copy_gbs")), 12.5);   /* replaced */
    ck_assert_double_eq(json_real_value(json_object_get(v, "triad_gbs")), 9.0);   /* kept */
    json_decref(v);
    /* nested paths create their parents; arrays append */
    ck_assert_int_eq(clf__tunedb_store(ctx, "tuned/x/f32/small", json_pack("{s:s}", "config", "A=1")), CLF_SUCCESS);
    ck_assert_int_eq(clf__tunedb_store(ctx, "runs", json_pack("[i]", 1)), CLF_SUCCESS);
    ck_assert_int_eq(clf__tunedb_store(ctx, "runs", json_pack("[i]", 2)), CLF_SUCCESS);
    ck_assert_int_eq(clf__tunedb_fetch(ctx, "tuned/x/f32/small/config", &v), CLF_SUCCESS);
    ck_assert_str_eq(json_string_value(v), "A=1");
    json_decref(v);
    ck_assert_int_eq(clf__tunedb_fetch(ctx, "runs", &v), CLF_SUCCESS);
    ck_assert_uint_eq(json_array_size(v), 2);
    json_decref(v);
    json_decref(load_valid(clf__tunedb_path(ctx), ctx));
    /* bad arguments change nothing */
    ck_assert_int_eq(clf__tunedb_store(ctx, "", json_integer(1)), CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf__tunedb_store(ctx, "/abs", json_integer(1)), CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf__tunedb_store(ctx, "roofline", NULL), CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf__tunedb_fetch(ctx, NULL, &v), CLF_ERR_INVALID_ARG);
    clf_context_destroy(ctx);
}
END_TEST

START_TEST(no_cache_dir)
{
    clf_context_options opt = {.no_disk_cache = 1, .cache_dir = ""};
    clf_context *ctx = NULL;
    ck_assert_int_eq(clf_context_create(&opt, &ctx), CLF_SUCCESS);
    if (clf_context_cache_dir(ctx)[0] == '\0') {
        ck_assert_str_eq(clf__tunedb_path(ctx), "");
        ck_assert_int_eq(clf__tunedb_store(ctx, "roofline", json_object()), CLF_ERR_IO);
        json_t *v = (json_t *)1;
        ck_assert_int_eq(clf__tunedb_fetch(ctx, "roofline", &v), CLF_SUCCESS);
        ck_assert_ptr_null(v);
    }
    clf_context_destroy(ctx);
}
END_TEST

/* Garbage, truncated, future-version and foreign files are moved aside and replaced. */
static void recover_from(const char *name, const char *content, size_t len)
{
    char cache[1100], dir[1200];
    clf_context *ctx = fresh_ctx(name, cache, sizeof cache, 0);
    snprintf(dir, sizeof dir, "%s/tuning", cache);
    mkdir(dir, 0755);
    const char *path = clf__tunedb_path(ctx);
    write_file(path, content, len);
    const char *base = strrchr(path, '/') + 1;
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s.corrupt-", base);
    json_t *v = (json_t *)1;
    ck_assert_int_eq(clf__tunedb_fetch(ctx, "tuned", &v), CLF_SUCCESS);
    ck_assert_ptr_null(v);
    ck_assert_msg(count_prefix(dir, prefix) == 1, "%s: the bad file was not moved aside", name);
    ck_assert_int_eq(clf__tunedb_store(ctx, "roofline", json_pack("{s:i}", "n", 7)), CLF_SUCCESS);
    json_decref(load_valid(path, ctx));
    ck_assert_int_eq(clf__tunedb_fetch(ctx, "roofline/n", &v), CLF_SUCCESS);
    ck_assert_int_eq(json_integer_value(v), 7);
    json_decref(v);
    /* a bad file found by a writer first is handled the same way */
    write_file(path, content, len);
    ck_assert_int_eq(clf__tunedb_store(ctx, "roofline", json_pack("{s:i}", "n", 8)), CLF_SUCCESS);
    json_decref(load_valid(path, ctx));
    ck_assert_int_ge(count_prefix(dir, prefix), 1);
    clf_context_destroy(ctx);
}

START_TEST(recovers_garbage)
{
    static const char junk[] = "\x01\x02 this is not json {{{ \xff";
    recover_from("garbage", junk, sizeof junk - 1);
    recover_from("empty", "", 0);
    recover_from("array", "[1,2,3]", 7);
    recover_from("future", "{\"format\": 99, \"device\": {\"key\": \"x\"}}", 38);
}
END_TEST

START_TEST(recovers_truncated)
{
    char cache[1100];
    clf_context *ctx = fresh_ctx("trunc-src", cache, sizeof cache, 0);
    for (int i = 0; i < 20; i++) {
        char sec[64];
        snprintf(sec, sizeof sec, "tuned/x/f32/b%d", i);
        ck_assert_int_eq(clf__tunedb_store(ctx, sec, json_pack("{s:s,s:f}", "config", "A=1", "speed", 1.0 * i)),
                         CLF_SUCCESS);
    }
    FILE *fp = fopen(clf__tunedb_path(ctx), "rb");
    ck_assert_ptr_nonnull(fp);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    ck_assert_uint_gt(n, 100);
    clf_context_destroy(ctx);
    /* cut at several places, each a fresh recovery */
    recover_from("trunc1", buf, n / 2);
    recover_from("trunc2", buf, n - 3);
    recover_from("trunc3", buf, 1);
}
END_TEST

/* A writer killed with SIGKILL at arbitrary moments never leaves a broken file behind. */
START_TEST(killed_writer)
{
    char cache[1100];
    clf_context *ctx = fresh_ctx("killed", cache, sizeof cache, 0);
    ck_assert_int_eq(clf__tunedb_store(ctx, "roofline", json_pack("{s:i}", "n", 0)), CLF_SUCCESS);
    const char *path = clf__tunedb_path(ctx);
    for (int round = 0; round < 12; round++) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            /* big entries make each write long enough to be caught in the middle */
            char big[20000];
            memset(big, 'x', sizeof big - 1);
            big[sizeof big - 1] = '\0';
            for (int i = 0;; i++) {
                char sec[64];
                snprintf(sec, sizeof sec, "tuned/big/f32/b%d", i % 50);
                clf__tunedb_store(ctx, sec, json_pack("{s:s,s:i}", "config", big, "i", i));
            }
        }
        usleep(20000 + 7919 * (unsigned)round % 30000);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        json_t *doc = load_valid(path, ctx);
        ck_assert_int_eq(json_integer_value(clf__tunedb_get(doc, "roofline/n")), 0);
        json_decref(doc);
    }
    /* the next writer clears the dead writers' temporary files */
    ck_assert_int_eq(clf__tunedb_store(ctx, "roofline", json_pack("{s:i}", "n", 1)), CLF_SUCCESS);
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/tuning", cache);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s.tmp.", strrchr(path, '/') + 1);
    ck_assert_int_eq(count_prefix(dir, prefix), 0);
    clf_context_destroy(ctx);
}
END_TEST

/* Eight processes storing distinct entries at once: every entry survives. */
START_TEST(concurrent_writers)
{
    char cache[1100];
    clf_context *ctx = fresh_ctx("concurrent", cache, sizeof cache, 0);
    const char *path = clf__tunedb_path(ctx);
    enum { PROCS = 8, EACH = 15 };
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pids[p] = fork();
        ck_assert_int_ge(pids[p], 0);
        if (pids[p] == 0) {
            for (int i = 0; i < EACH; i++) {
                char sec[64];
                snprintf(sec, sizeof sec, "tuned/c/f32/p%d_%d", p, i);
                if (clf__tunedb_store(ctx, sec, json_pack("{s:i}", "v", p * 100 + i)) != CLF_SUCCESS)
                    _exit(1);
                if (clf__tunedb_store(ctx, "runs", json_pack("[i]", p * 100 + i)) != CLF_SUCCESS)
                    _exit(1);
            }
            _exit(0);
        }
    }
    for (int p = 0; p < PROCS; p++) {
        int st;
        waitpid(pids[p], &st, 0);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %d failed", p);
    }
    json_t *doc = load_valid(path, ctx);
    ck_assert_uint_eq(json_object_size(clf__tunedb_get(doc, "tuned/c/f32")), PROCS * EACH);
    ck_assert_uint_eq(json_array_size(json_object_get(doc, "runs")), PROCS * EACH);
    json_decref(doc);
    clf_context_destroy(ctx);
}
END_TEST

/* The lookup chain, with a small family of our own: default, then tuned, then stale for a device with
 * the same name and another driver, and CLFORGE_TUNING=off (no_tuning) ignoring the database. */
static void fam_default(const clf_device_info *d, clf_dtype dt, const char *bucket, clf__config *out)
{
    out->v[0] = 2;
    out->v[1] = 8;
}
static int fam_valid(const clf__config *c, const clf_device_info *d, clf_dtype dt)
{
    return c->v[0] * c->v[1] <= 64;   /* the combination 8 x 16 is invalid */
}
static const clf__family fam = {
    .name = "chain",
    .nparams = 2,
    .params = {{"A", 3, {1, 2, 8}}, {"B", 2, {8, 16}}},
    .nbuckets = 1,
    .buckets = {"only"},
    .unit = "GB/s",
    .default_config = fam_default,
    .valid = fam_valid,
};

START_TEST(lookup_chain)
{
    char cache[1100];
    clf_context *ctx = fresh_ctx("chain", cache, sizeof cache, 0);
    clf__config c;
    const char *origin;
    ck_assert_int_eq(clf__config_select(ctx, &fam, CLF_F32, "only", &c, &origin), CLF_SUCCESS);
    ck_assert_str_eq(origin, "default");
    ck_assert_int_eq(c.v[0], 2);
    /* an invalid stored entry (8 x 16) is not used */
    ck_assert_int_eq(clf__tunedb_store(ctx, "tuned/chain/f32/only", json_pack("{s:s}", "config", "A=8 B=16")),
                     CLF_SUCCESS);
    ck_assert_int_eq(clf__config_select(ctx, &fam, CLF_F32, "only", &c, &origin), CLF_SUCCESS);
    ck_assert_str_eq(origin, "default");
    /* neither is an unparsable one */
    ck_assert_int_eq(clf__tunedb_store(ctx, "tuned/chain/f32/only", json_pack("{s:s}", "config", "A=3 B=8")),
                     CLF_SUCCESS);
    ck_assert_int_eq(clf__config_select(ctx, &fam, CLF_F32, "only", &c, &origin), CLF_SUCCESS);
    ck_assert_str_eq(origin, "default");
    ck_assert_int_eq(clf__tunedb_store(ctx, "tuned/chain/f32/only", json_pack("{s:s}", "config", "A=8 B=8")),
                     CLF_SUCCESS);
    ck_assert_int_eq(clf__config_select(ctx, &fam, CLF_F32, "only", &c, &origin), CLF_SUCCESS);
    ck_assert_str_eq(origin, "tuned");
    ck_assert_int_eq(c.v[0], 8);
    ck_assert_int_eq(c.v[1], 8);
    /* f64 has no entry */
    ck_assert_int_eq(clf__config_select(ctx, &fam, CLF_F64, "only", &c, &origin), CLF_SUCCESS);
    ck_assert_str_eq(origin, "default");

    /* Pretend the file came from an older driver: rename it to another id, rewrite its key and
     * driver. A new context finds it as stale. */
    char oldpath[1300];
    snprintf(oldpath, sizeof oldpath, "%s/tuning/00000000deadbeef.json", cache);
    json_t *doc = load_valid(clf__tunedb_path(ctx), ctx);
    json_t *dev = json_object_get(doc, "device");
    json_object_set_new(dev, "key", json_string("old driver key"));
    json_object_set_new(dev, "driver", json_string("0.0-old"));
    ck_assert_int_eq(json_dump_file(doc, oldpath, 0), 0);
    json_decref(doc);
    ck_assert_int_eq(unlink(clf__tunedb_path(ctx)), 0);
    clf_context_destroy(ctx);

    clf_context_options opt = {.cache_dir = cache};
    ck_assert_int_eq(clf_context_create(&opt, &ctx), CLF_SUCCESS);
    ck_assert_int_eq(clf__config_select(ctx, &fam, CLF_F32, "only", &c, &origin), CLF_SUCCESS);
    ck_assert_str_eq(origin, "stale");
    ck_assert_int_eq(c.v[0], 8);
    /* this device's own result wins over the stale one */
    ck_assert_int_eq(clf__tunedb_store(ctx, "tuned/chain/f32/only", json_pack("{s:s}", "config", "A=1 B=16")),
                     CLF_SUCCESS);
    ck_assert_int_eq(clf__config_select(ctx, &fam, CLF_F32, "only", &c, &origin), CLF_SUCCESS);
    ck_assert_str_eq(origin, "tuned");
    ck_assert_int_eq(c.v[0], 1);
    clf_context_destroy(ctx);

    /* tuning off: the database is ignored */
    opt.no_tuning = 1;
    ck_assert_int_eq(clf_context_create(&opt, &ctx), CLF_SUCCESS);
    ck_assert_int_eq(clf__config_select(ctx, &fam, CLF_F32, "only", &c, &origin), CLF_SUCCESS);
    ck_assert_str_eq(origin, "default");
    clf_context_destroy(ctx);
    setenv("CLFORGE_TUNING", "off", 1);
    opt.no_tuning = 0;
    ck_assert_int_eq(clf_context_create(&opt, &ctx), CLF_SUCCESS);
    ck_assert_int_eq(clf__config_select(ctx, &fam, CLF_F32, "only", &c, &origin), CLF_SUCCESS);
    ck_assert_str_eq(origin, "default");
    clf_context_destroy(ctx);
    unsetenv("CLFORGE_TUNING");
}
END_TEST

/* Config text and options round-trip, and bad text is refused. */
START_TEST(config_text)
{
    clf__config c = {{8, 16}}, d;
    char text[64], opts[64] = "-DX=1";
    clf__config_format(&fam, &c, text, sizeof text);
    ck_assert_str_eq(text, "A=8 B=16");
    ck_assert_int_eq(clf__config_parse(&fam, text, &d), CLF_SUCCESS);
    ck_assert_int_eq(d.v[0], 8);
    ck_assert_int_eq(d.v[1], 16);
    ck_assert_int_eq(clf__config_options(&fam, &c, opts, sizeof opts), CLF_SUCCESS);
    ck_assert_str_eq(opts, "-DX=1 -DA=8 -DB=16");
    char tiny[8] = "";
    ck_assert_int_eq(clf__config_options(&fam, &c, tiny, sizeof tiny), CLF_ERR_INTERNAL);
    static const char *const bad[] = {"A=8", "A=8 B=16 C=1", "A=7 B=16", "A=8 B=x", "A=8 A=8 B=8", "A8 B16", "=1",
                                      "A=8 B=16x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(clf__config_parse(&fam, bad[i], &d) == CLF_ERR_PARSE, "accepted \"%s\"", bad[i]);
    ck_assert_int_eq(clf__param_index(&fam, "B"), 1);
    ck_assert_int_eq(clf__param_index(&fam, "Z"), -1);
    ck_assert_ptr_null(clf__family_find("no-such-family"));
}
END_TEST

/* Every shipped default parses, says which device it came from, and holds only configurations that
 * parse with the current families; a device named in one gets "shipped" from an empty cache. */
struct clf__embedded { const char *name; const char *data; size_t size; };
extern const struct clf__embedded clf__embedded_defaults[];

START_TEST(shipped_defaults)
{
    char cache[1100];
    clf_context *ctx = fresh_ctx("shipped", cache, sizeof cache, 0);
    const clf_device_info *dev = clf_context_device(ctx);
    int matched = 0;
    for (int i = 0; clf__embedded_defaults[i].name; i++) {
        json_error_t err;
        json_t *doc = json_loadb(clf__embedded_defaults[i].data, clf__embedded_defaults[i].size, 0, &err);
        ck_assert_msg(doc != NULL, "%s: line %d: %s", clf__embedded_defaults[i].name, err.line, err.text);
        ck_assert_int_eq(json_integer_value(json_object_get(doc, "format")), CLF__TUNEDB_FORMAT);
        ck_assert(json_is_string(clf__tunedb_get(doc, "device/type")));
        ck_assert(json_is_string(clf__tunedb_get(doc, "device/vendor")));
        ck_assert(json_is_string(clf__tunedb_get(doc, "device/name")));
        const char *fname;
        json_t *precs;
        json_object_foreach(json_object_get(doc, "tuned"), fname, precs) {
            const clf__family *f = clf__family_find(fname);
            ck_assert_msg(f != NULL, "%s: unknown family %s", clf__embedded_defaults[i].name, fname);
            const char *pname, *bname;
            json_t *buckets, *entry;
            json_object_foreach(precs, pname, buckets) json_object_foreach(buckets, bname, entry) {
                clf__config c;
                const char *text = json_string_value(json_object_get(entry, "config"));
                ck_assert_msg(text && clf__config_parse(f, text, &c) == CLF_SUCCESS, "%s: %s/%s/%s: %s",
                              clf__embedded_defaults[i].name, fname, pname, bname, clf_last_error());
                ck_assert(json_real_value(json_object_get(entry, "speed")) > 0);
            }
        }
        if (strcmp(json_string_value(clf__tunedb_get(doc, "device/name")), dev->name) == 0 &&
            strcmp(json_string_value(clf__tunedb_get(doc, "device/vendor")), dev->vendor) == 0 &&
            json_is_object(clf__tunedb_get(doc, "tuned/gemm/f32/large")))
            matched = 1;
        json_decref(doc);
    }
    if (matched) {
        char cfg[256], origin[16];
        ck_assert_int_eq(clf_config_in_use(ctx, "gemm", "f32", "large", cfg, sizeof cfg, origin, sizeof origin),
                         CLF_SUCCESS);
        ck_assert_str_eq(origin, "shipped");
    }
    clf_context_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tunedb");
    TCase *tc = clf_test_tcase("tunedb");
    tcase_add_test(tc, config_text);
    tcase_add_test(tc, store_fetch_merge);
    tcase_add_test(tc, no_cache_dir);
    tcase_add_test(tc, recovers_garbage);
    tcase_add_test(tc, recovers_truncated);
    tcase_add_test(tc, killed_writer);
    tcase_add_test(tc, concurrent_writers);
    tcase_add_test(tc, lookup_chain);
    tcase_add_test(tc, shipped_defaults);
    suite_add_tcase(s, tc);
    return clf_test_run(s);
}
