/* test_runtime.c — device discovery and identity, contexts, the program caches, errors, bad input. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "testutil.h"

static const char good_src[] =
    "__kernel void twice(__global float *x) { size_t i = get_global_id(0); x[i] = 2.0f * x[i] + OFFSET; }\n";

/* ---- child process mode: build one program in a fresh process and report cache statistics -------- */
static int child_load(const char *selector, const char *cache)
{
    clf_context_options opt = {.device = selector, .cache_dir = cache};
    clf_context *ctx;
    if (clf_context_create(&opt, &ctx) != CLF_SUCCESS) { fprintf(stderr, "%s\n", clf_last_error()); return 3; }
    cl_kernel k;
    double t0 = clf__now();
    clf_status s = clf_build_kernel(ctx, good_src, "-DOFFSET=1.0f", "twice", &k);
    double dt = clf__now() - t0;
    if (s != CLF_SUCCESS) { fprintf(stderr, "%s\n", clf_last_error()); clf_context_destroy(ctx); return 4; }
    clReleaseKernel(k);
    clf_cache_stats st;
    clf_context_cache_stats(ctx, &st);
    printf("compiles=%lu disk_hits=%lu rejects=%lu seconds=%.6f\n", st.compiles, st.disk_hits, st.disk_rejects, dt);
    clf_context_destroy(ctx);
    return 0;
}

typedef struct { unsigned long compiles, disk_hits, rejects; double seconds; } child_result;

static child_result run_child(const char *selector, const char *cache)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "/proc/%ld/exe --child-load '%s' '%s'", (long)getpid(), selector, cache);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    child_result r = {0};
    int got = fscanf(p, "compiles=%lu disk_hits=%lu rejects=%lu seconds=%lf", &r.compiles, &r.disk_hits, &r.rejects,
                     &r.seconds);
    int rc = pclose(p);
    ck_assert_msg(got == 4 && rc == 0, "child process failed (rc %d, parsed %d)", rc, got);
    return r;
}

static int list_devices(clf_device_info **out)
{
    size_t n = 0;
    ck_assert_int_eq(clf_device_list(NULL, 0, &n), CLF_SUCCESS);
    *out = calloc(n, sizeof **out);
    ck_assert_int_eq(clf_device_list(*out, n, &n), CLF_SUCCESS);
    return (int)n;
}

START_TEST(devices_match_clinfo)
{
    clf_device_info *devs;
    int n = list_devices(&devs);
    FILE *p = popen("clinfo -l 2>/dev/null", "r");
    ck_assert_ptr_nonnull(p);
    char line[1024];
    int k = 0;
    while (fgets(line, sizeof line, p)) {
        char *d = strstr(line, "Device #");
        if (!d) continue;
        char *name = strstr(d, ": ");
        ck_assert_ptr_nonnull(name);
        name += 2;
        name[strcspn(name, "\r\n")] = '\0';
        ck_assert_msg(k < n, "clinfo lists more devices than clforge (%d): %s", n, name);
        ck_assert_msg(strcmp(devs[k].name, name) == 0, "device %d: clforge '%s', clinfo '%s'", k, devs[k].name, name);
        k++;
    }
    pclose(p);
    ck_assert_msg(k == n, "clinfo lists %d devices, clforge %d", k, n);
    printf("devices_match_clinfo: %d device(s) agree with clinfo\n", n);
    free(devs);
}
END_TEST

START_TEST(identity_stable_across_processes)
{
    const char *cli = getenv("CLFORGE_CLI");
    ck_assert_msg(cli != NULL, "CLFORGE_CLI not set (ctest sets it)");
    clf_device_info *devs;
    int n = list_devices(&devs);
    for (int run = 0; run < 2; run++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "'%s' devices --json", cli);
        FILE *p = popen(cmd, "r");
        ck_assert_ptr_nonnull(p);
        static char buf[1 << 20];
        size_t len = fread(buf, 1, sizeof buf - 1, p);
        buf[len] = '\0';
        ck_assert_int_eq(pclose(p), 0);
        for (int i = 0; i < n; i++) {
            char want[64];
            snprintf(want, sizeof want, "\"id\": \"%s\"", devs[i].id);
            ck_assert_msg(strstr(buf, want) != NULL, "run %d: id %s of %s not in `clforge devices --json`", run,
                          devs[i].id, devs[i].name);
        }
    }
    for (int i = 0; i < n; i++) {
        clf_device_info again;
        char sel[32];
        snprintf(sel, sizeof sel, "%d:%d", devs[i].platform_index, devs[i].device_index);
        ck_assert_int_eq(clf_device_select(sel, &again), CLF_SUCCESS);
        ck_assert_str_eq(again.key, devs[i].key);
        ck_assert_str_eq(again.id, devs[i].id);
        ck_assert_int_eq((int)strlen(devs[i].id), 16);
    }
    free(devs);
}
END_TEST

static void corrupt_bins(const char *cache, const char *id, int how)
{
    char cmd[4096];
    if (how == 0)  /* truncate */
        snprintf(cmd, sizeof cmd, "for f in '%s'/programs/%s/*.bin; do truncate -s 30 \"$f\"; done", cache, id);
    else           /* flip bytes in the payload, size intact */
        snprintf(cmd, sizeof cmd,
                 "for f in '%s'/programs/%s/*.bin; do printf 'garbage!' | dd of=\"$f\" bs=1 seek=40 conv=notrunc 2>/dev/null; done",
                 cache, id);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(program_disk_cache_across_processes)
{
    clf_device_info *devs;
    int n = list_devices(&devs);
    for (int i = 0; i < n; i++) {
        char sel[32], cache[1200];
        snprintf(sel, sizeof sel, "%d:%d", devs[i].platform_index, devs[i].device_index);
        snprintf(cache, sizeof cache, "%s/progcache-%d", clf_test_tmpdir(), i);
        char rm[1300];
        snprintf(rm, sizeof rm, "rm -rf '%s'", cache);
        ck_assert_int_eq(system(rm), 0);
        child_result cold = run_child(sel, cache);
        child_result warm = run_child(sel, cache);
        printf("%s: cold compile %.1f ms, second process (binary cache) %.1f ms\n", devs[i].name, 1e3 * cold.seconds,
               1e3 * warm.seconds);
        ck_assert_uint_eq(cold.compiles, 1);
        ck_assert_uint_eq(warm.compiles, 0);
        ck_assert_uint_eq(warm.disk_hits, 1);
        for (int how = 0; how < 2; how++) {
            corrupt_bins(cache, devs[i].id, how);
            child_result rec = run_child(sel, cache);
            ck_assert_msg(rec.rejects == 1 && rec.compiles == 1, "%s corruption %d: rejects %lu compiles %lu",
                          devs[i].name, how, rec.rejects, rec.compiles);
            child_result after = run_child(sel, cache);
            ck_assert_uint_eq(after.disk_hits, 1);   /* the rebuilt binary was written back */
        }
    }
    free(devs);
}
END_TEST

START_TEST(invalid_kernel_reports_build_log)
{
    clf_context **ctxs;
    int n = clf_test_contexts(&ctxs);
    ck_assert_int_gt(n, 0);
    for (int i = 0; i < n; i++) {
        cl_kernel k = NULL;
        clf_status s = clf_build_kernel(ctxs[i], "__kernel void bad(__global float *x) { x[0] = undeclared_thing; }",
                                        NULL, "bad", &k);
        ck_assert_int_eq(s, CLF_ERR_BUILD);
        ck_assert_ptr_null(k);
        ck_assert_msg(strstr(clf_last_error(), "undeclared_thing") != NULL, "no compiler log in: %s", clf_last_error());
        ck_assert_msg(strstr(clf_last_error(), "CL_BUILD_PROGRAM_FAILURE") != NULL, "%s", clf_last_error());
        /* asked again: the same error from the memory cache, without compiling again */
        clf_cache_stats before, after;
        clf_context_cache_stats(ctxs[i], &before);
        ck_assert_int_eq(clf_build_kernel(ctxs[i], "__kernel void bad(__global float *x) { x[0] = undeclared_thing; }",
                                          NULL, "bad", &k), CLF_ERR_BUILD);
        clf_context_cache_stats(ctxs[i], &after);
        ck_assert_uint_eq(after.compiles, before.compiles);
        ck_assert_int_eq(clf_build_kernel(ctxs[i], good_src, "-DOFFSET=0.0f", "no_such_kernel", &k),
                         CL_INVALID_KERNEL_NAME);
        ck_assert_ptr_nonnull(strstr(clf_last_error(), "CL_INVALID_KERNEL_NAME"));
    }
    clf_test_contexts_free(ctxs, n);
}
END_TEST

typedef struct { clf_context *ctx; clf_status s; } build_arg;
static pthread_barrier_t barrier;

static void *build_thread(void *p)
{
    build_arg *a = p;
    cl_kernel k = NULL;
    pthread_barrier_wait(&barrier);
    a->s = clf_build_kernel(a->ctx, good_src, "-DOFFSET=3.0f", "twice", &k);
    if (k) clReleaseKernel(k);
    return NULL;
}

START_TEST(sixteen_threads_compile_once)
{
    clf_device_info *devs;
    int n = list_devices(&devs);
    for (int i = 0; i < n; i++) {
        char sel[32];
        snprintf(sel, sizeof sel, "%d:%d", devs[i].platform_index, devs[i].device_index);
        clf_context_options opt = {.device = sel, .no_disk_cache = 1};
        clf_context *ctx;
        ck_assert_int_eq(clf_context_create(&opt, &ctx), CLF_SUCCESS);
        ck_assert_str_eq(clf_context_cache_dir(ctx), "");
        pthread_t t[16];
        build_arg a[16];
        pthread_barrier_init(&barrier, NULL, 16);
        for (int j = 0; j < 16; j++) {
            a[j] = (build_arg){ctx, -1};
            pthread_create(&t[j], NULL, build_thread, &a[j]);
        }
        for (int j = 0; j < 16; j++) {
            pthread_join(t[j], NULL);
            ck_assert_int_eq(a[j].s, CLF_SUCCESS);
        }
        pthread_barrier_destroy(&barrier);
        clf_cache_stats st;
        clf_context_cache_stats(ctx, &st);
        ck_assert_uint_eq(st.compiles, 1);
        ck_assert_uint_eq(st.memory_hits, 15);
        clf_context_destroy(ctx);
    }
    free(devs);
}
END_TEST

START_TEST(kernel_runs_and_times)
{
    clf_context **ctxs;
    int n = clf_test_contexts(&ctxs);
    for (int i = 0; i < n; i++) {
        float host[1000];
        for (int j = 0; j < 1000; j++) host[j] = (float)j;
        cl_mem buf = clf_test_buffer(ctxs[i], sizeof host, host);
        cl_kernel k;
        ck_assert_int_eq(clf_build_kernel(ctxs[i], good_src, "-DOFFSET=1.0f", "twice", &k), CLF_SUCCESS);
        clSetKernelArg(k, 0, sizeof buf, &buf);
        size_t g = 1000;
        cl_event ev = NULL;
        clf__work w = {"twice", 1000, 8000};
        ck_assert_int_eq(clf__enqueue(ctxs[i], k, 1, &g, NULL, &w, &ev), CLF_SUCCESS);
        ck_assert_ptr_nonnull(ev);
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
        clf_test_read(ctxs[i], buf, sizeof host, host);
        for (int j = 0; j < 1000; j++) ck_assert_float_eq(host[j], 2.0f * (float)j + 1.0f);
        clReleaseKernel(k);
        clReleaseMemObject(buf);
    }
    clf_test_contexts_free(ctxs, n);
}
END_TEST

START_TEST(unwritable_cache_dir_is_not_fatal)
{
    if (geteuid() == 0) {
        /* root can write anywhere; use a path under a regular file instead, which nobody can create */
    }
    char file[1200], cache[1300];
    snprintf(file, sizeof file, "%s/not-a-dir", clf_test_tmpdir());
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    snprintf(cache, sizeof cache, "%s/cache", file);
    clf_context_options opt = {.cache_dir = cache};
    clf_context *ctx;
    ck_assert_int_eq(clf_context_create(&opt, &ctx), CLF_SUCCESS);
    ck_assert_str_eq(clf_context_cache_dir(ctx), "");
    cl_kernel k;
    ck_assert_int_eq(clf_build_kernel(ctx, good_src, "-DOFFSET=2.0f", "twice", &k), CLF_SUCCESS);
    clReleaseKernel(k);
    clf_context_destroy(ctx);
}
END_TEST

START_TEST(bad_input_is_rejected)
{
    clf_context *ctx = (clf_context *)0x1;
    ck_assert_int_eq(clf_context_create(NULL, NULL), CLF_ERR_INVALID_ARG);
    ck_assert_ptr_nonnull(strstr(clf_last_error(), "out is NULL"));
    clf_context_options opt = {.device = "no-such-device-xyz"};
    ck_assert_int_eq(clf_context_create(&opt, &ctx), CLF_ERR_NO_DEVICE);
    ck_assert_ptr_eq(ctx, (clf_context *)0x1);   /* unchanged */
    ck_assert_ptr_nonnull(strstr(clf_last_error(), "no-such-device-xyz"));
    opt.device = "7:9";
    ck_assert_int_eq(clf_context_create(&opt, &ctx), CLF_ERR_NO_DEVICE);
    ck_assert_int_eq(clf_context_wrap(NULL, NULL, NULL, &ctx), CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf_context_wrap(NULL, NULL, NULL, NULL), CLF_ERR_INVALID_ARG);
    ck_assert_ptr_eq(ctx, (clf_context *)0x1);
    size_t count = 77;
    ck_assert_int_eq(clf_device_list(NULL, 3, &count), CLF_ERR_INVALID_ARG);
    ck_assert_uint_eq(count, 77);
    ck_assert_int_eq(clf_device_list(NULL, 0, NULL), CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf_device_select(NULL, NULL), CLF_ERR_INVALID_ARG);
    clf_device_info info;
    memset(&info, 0x5a, sizeof info);
    ck_assert_int_eq(clf_device_select("no-such-device-xyz", &info), CLF_ERR_NO_DEVICE);
    ck_assert_int_eq(((unsigned char *)&info)[0], 0x5a);
    ck_assert_int_eq(clf_build_kernel(NULL, good_src, NULL, "twice", NULL), CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf_finish(NULL), CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf_context_cache_stats(NULL, NULL), CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf_profile_report(NULL, stdout), CLF_ERR_INVALID_ARG);
    ck_assert_ptr_null(clf_context_device(NULL));
    ck_assert_ptr_null(clf_context_queue(NULL));
    clf_context_destroy(NULL);

    /* a real context: functions that take it reject NULL out-pointers without side effects */
    ck_assert_int_eq(clf_context_create(NULL, &ctx), CLF_SUCCESS);
    ck_assert_int_eq(clf_build_kernel(ctx, good_src, NULL, "twice", NULL), CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf_build_kernel(ctx, NULL, NULL, "twice", NULL), CLF_ERR_INVALID_ARG);
    ck_assert_int_eq(clf_context_cache_stats(ctx, NULL), CLF_ERR_INVALID_ARG);
    clf_context_destroy(ctx);
}
END_TEST

START_TEST(status_names_and_messages)
{
    ck_assert_str_eq(clf_status_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    ck_assert_int_eq(CL_OUT_OF_RESOURCES, -5);
    ck_assert_str_eq(clf_status_name(-54), "CL_INVALID_WORK_GROUP_SIZE");
    ck_assert_str_eq(clf_status_name(-72), "CL_MAX_SIZE_RESTRICTION_EXCEEDED");
    ck_assert_str_eq(clf_status_name(CLF_ERR_BUILD), "CLF_ERR_BUILD");
    ck_assert_str_eq(clf_status_name(CLF_SUCCESS), "CLF_SUCCESS");
    ck_assert_str_eq(clf_status_name(12345), "CLF_UNKNOWN_STATUS");
    ck_assert_str_eq(clf_status_string(CLF_ERR_PARSE), "expression does not parse");
    ck_assert_str_ne(clf_status_string(-11), "unknown status code");
    for (int code = -80; code <= 0; code++)   /* every code has a message, known or not */
        ck_assert_ptr_nonnull(clf_status_string(code));
    ck_assert_str_eq(clf_version(), CLFORGE_VERSION_STRING);
}
END_TEST

START_TEST(kernel_dir_override)
{
    char dir[1200], path[1300];
    snprintf(dir, sizeof dir, "%s/kdir", clf_test_tmpdir());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/roofline.cl", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("/* override */\n", f);
    fclose(f);
    setenv("CLFORGE_KERNEL_DIR", dir, 1);
    const char *src = NULL;
    ck_assert_int_eq(clf__source("roofline.cl", &src), CLF_SUCCESS);
    ck_assert_str_eq(src, "/* override */\n");
    ck_assert_int_eq(clf__source("missing.cl", &src), CLF_ERR_IO);
    ck_assert_int_eq(clf__source("../etc/passwd", &src), CLF_ERR_INVALID_ARG);
    unsetenv("CLFORGE_KERNEL_DIR");
    ck_assert_int_eq(clf__source("roofline.cl", &src), CLF_SUCCESS);   /* embedded */
    ck_assert_str_ne(src, "/* override */\n");
}
END_TEST

static void write_kernel_file(const char *dir, const char *name, const char *text)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* `#include "file.cl"` is expanded when a source is fetched, from the kernel folder or the embedded set;
 * the expanded text is what clf__source returns (and what the program cache hashes). */
START_TEST(kernel_include_expansion)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/kinc", clf_test_tmpdir());
    mkdir(dir, 0755);
    write_kernel_file(dir, "inc_main.cl", "/* top */\n  #  include \"inc_part.cl\"  \nint after;\n");
    write_kernel_file(dir, "inc_part.cl", "int part;");   /* no final newline */
    write_kernel_file(dir, "inc_missing.cl", "int x;\n#include \"inc_nope.cl\"\n");
    write_kernel_file(dir, "inc_nested.cl", "#include \"inc_main.cl\"\n");
    write_kernel_file(dir, "inc_angle.cl", "#include <inc_part.cl>\n");
    write_kernel_file(dir, "inc_path.cl", "#include \"../inc_part.cl\"\n");
    setenv("CLFORGE_KERNEL_DIR", dir, 1);
    const char *src = NULL, *again = NULL;
    ck_assert_int_eq(clf__source("inc_main.cl", &src), CLF_SUCCESS);
    ck_assert_str_eq(src, "/* top */\n#line 1 \"inc_part.cl\"\nint part;\n#line 3 \"inc_main.cl\"\nint after;\n");
    ck_assert_int_eq(clf__source("inc_main.cl", &again), CLF_SUCCESS);
    ck_assert_ptr_eq(src, again);   /* memoised; lives until exit */
    ck_assert_int_eq(clf__source("inc_part.cl", &src), CLF_SUCCESS);
    ck_assert_str_eq(src, "int part;");
    ck_assert_int_eq(clf__source("inc_missing.cl", &src), CLF_ERR_IO);
    ck_assert_ptr_nonnull(strstr(clf_last_error(), "inc_nope.cl"));
    ck_assert_ptr_nonnull(strstr(clf_last_error(), "inc_missing.cl, line 2"));
    ck_assert_int_eq(clf__source("inc_nested.cl", &src), CLF_ERR_BUILD);
    ck_assert_int_eq(clf__source("inc_angle.cl", &src), CLF_ERR_BUILD);
    ck_assert_int_eq(clf__source("inc_path.cl", &src), CLF_ERR_BUILD);
    unsetenv("CLFORGE_KERNEL_DIR");

    /* Embedded: the gemm kernels take the shared preamble, expanded once. */
    const char *files[] = {"gemm.cl", "gemm_pack.cl", "gemm_reduce.cl"};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(clf__source(files[i], &src), CLF_SUCCESS);
        ck_assert_ptr_null(strstr(src, "\n#include \""));   /* no directive left (comments may name it) */
        const char *t = strstr(src, "typedef float real;");
        ck_assert_ptr_nonnull(t);
        ck_assert_ptr_null(strstr(t + 1, "typedef float real;"));
        ck_assert_int_eq(clf__source(files[i], &again), CLF_SUCCESS);
        ck_assert_ptr_eq(src, again);
    }
    ck_assert_int_eq(clf__source("inc_main.cl", &src), CLF_ERR_INTERNAL);   /* not embedded */
}
END_TEST

/* Runs good_src's kernel (OFFSET from the build) over 4 floats x[j] = j and returns x[1] afterwards. */
static float run_twice(clf_context *ctx, const char *options)
{
    float host[4] = {0, 1, 2, 3};
    cl_mem buf = clf_test_buffer(ctx, sizeof host, host);
    cl_kernel k;
    ck_assert_msg(clf_build_kernel(ctx, good_src, options, "twice", &k) == CLF_SUCCESS, "%s", clf_last_error());
    clSetKernelArg(k, 0, sizeof buf, &buf);
    size_t g = 4;
    ck_assert_int_eq(clEnqueueNDRangeKernel(clf_context_queue(ctx), k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_SUCCESS);
    clf_test_read(ctx, buf, sizeof host, host);
    clReleaseKernel(k);
    clReleaseMemObject(buf);
    return host[1];
}

/* CLFORGE_BUILD_OPTIONS reaches the compiler; the program cache tells builds with and without it apart, and a
 * bad option fails the build with the compiler's word and the options named. */
START_TEST(extra_build_options)
{
    clf_context **ctxs;
    int n = clf_test_contexts(&ctxs);
    for (int i = 0; i < n; i++) {
        setenv("CLFORGE_BUILD_OPTIONS", "-DOFFSET=5.0f", 1);
        ck_assert_float_eq(run_twice(ctxs[i], ""), 7.0f);
        unsetenv("CLFORGE_BUILD_OPTIONS");
        ck_assert_int_eq(clf_build_kernel(ctxs[i], good_src, "", "twice", &(cl_kernel){0}), CLF_ERR_BUILD);
        ck_assert_float_eq(run_twice(ctxs[i], "-DOFFSET=1.0f"), 3.0f);
        setenv("CLFORGE_BUILD_OPTIONS", "-cl-no-such-option", 1);
        cl_kernel k = NULL;
        ck_assert_int_ne(clf_build_kernel(ctxs[i], good_src, "-DOFFSET=2.0f", "twice", &k), CLF_SUCCESS);
        ck_assert_ptr_nonnull(strstr(clf_last_error(), "clBuildProgram"));
        unsetenv("CLFORGE_BUILD_OPTIONS");
        ck_assert_float_eq(run_twice(ctxs[i], "-DOFFSET=2.0f"), 4.0f);
    }
    clf_test_contexts_free(ctxs, n);
}
END_TEST

/* A build that asks for its PTX retargeted to sm_90a: on a device whose binaries are not PTX for sm_90 it fails
 * with a message that says so, and the same source without the request still builds. On an H200 it builds. */
START_TEST(sm90a_retarget)
{
    clf_context **ctxs;
    int n = clf_test_contexts(&ctxs);
    for (int i = 0; i < n; i++) {
        cl_kernel k = NULL;
        clf_status s = clf_build_kernel(ctxs[i], good_src, "-DOFFSET=2.0f -DCLF_SM90A=1", "twice", &k);
        if (clf_context_device(ctxs[i])->nv_cc == 90) {
            ck_assert_int_eq(s, CLF_SUCCESS);
            clReleaseKernel(k);
        } else {
            ck_assert_int_eq(s, CLF_ERR_BUILD);
            ck_assert_ptr_nonnull(strstr(clf_last_error(), "not PTX for sm_90"));
        }
        ck_assert_float_eq(run_twice(ctxs[i], "-DOFFSET=2.0f"), 4.0f);
    }
    clf_test_contexts_free(ctxs, n);
}
END_TEST

/* The PTX rewrite on its own: the target line and the markers, and text that is not PTX for sm_90. */
START_TEST(sm90a_patch_text)
{
    const char *in = "//\n.version 8.0\n.target sm_90, texmode_independent\n//@sm90a wgmma.fence.sync.aligned;\n"
                     "mov //@sm90a x;\n//@sm9";
    char *out = clf__ptx_patch(in, strlen(in));
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out, "//\n.version 8.0\n.target sm_90a, texmode_independent\nwgmma.fence.sync.aligned;\n"
                          "mov x;\n//@sm9");
    free(out);
    out = clf__ptx_patch("\n.target sm_90a\n//@sm90a y", 26);   /* already sm_90a: the markers go */
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out, "\n.target sm_90a\ny");
    free(out);
    out = clf__ptx_patch("\n.target sm_90\nABC//@sm90a DEF", 18);   /* only len bytes are read */
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out, "\n.target sm_90a\nABC");
    free(out);
    const char *not_ptx[] = {"", "\n.target sm_80\n", "\n.target sm_900\n", "\n.target sm_90", ".target sm_90\n",
                             "\x7f" "ELF binary"};
    for (int i = 0; i < 6; i++)
        ck_assert_msg(clf__ptx_patch(not_ptx[i], strlen(not_ptx[i])) == NULL, "case %d", i);
}
END_TEST

/* A variable's word among a list: its place from 1, 0 unset, empty or another value (which only warns); a word must
 * match whole, not as a prefix or a part of a longer one. */
START_TEST(environment_words)
{
    const char *name = "CLFORGE_TEST_ENV_WORD";
    const struct { const char *value; int want; } cases[] = {
        {NULL, 0}, {"", 0}, {"off", 1}, {"edges", 2}, {"always", 3}, {"of", 0}, {"offf", 0},
        {"edge", 0}, {"off edges", 0}, {"ALWAYS", 0}, {" off", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].value)
            setenv(name, cases[i].value, 1);
        else
            unsetenv(name);
        ck_assert_msg(clf__env_word(name, "off edges always") == cases[i].want, "case %zu: \"%s\"", i,
                      cases[i].value ? cases[i].value : "(unset)");
    }
    setenv(name, "1", 1);
    ck_assert_int_eq(clf__env_word(name, "0 1"), 2);
    unsetenv(name);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--child-load") == 0) return child_load(argv[2], argv[3]);
    Suite *s = suite_create("runtime");
    TCase *tc = clf_test_tcase("runtime");
    tcase_add_test(tc, status_names_and_messages);
    tcase_add_test(tc, environment_words);
    tcase_add_test(tc, bad_input_is_rejected);
    tcase_add_test(tc, devices_match_clinfo);
    tcase_add_test(tc, identity_stable_across_processes);
    tcase_add_test(tc, kernel_runs_and_times);
    tcase_add_test(tc, program_disk_cache_across_processes);
    tcase_add_test(tc, invalid_kernel_reports_build_log);
    tcase_add_test(tc, sixteen_threads_compile_once);
    tcase_add_test(tc, unwritable_cache_dir_is_not_fatal);
    tcase_add_test(tc, kernel_dir_override);
    tcase_add_test(tc, kernel_include_expansion);
    tcase_add_test(tc, extra_build_options);
    tcase_add_test(tc, sm90a_retarget);
    tcase_add_test(tc, sm90a_patch_text);
    suite_add_tcase(s, tc);
    return clf_test_run(s);
}
