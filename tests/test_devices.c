/* test_devices.c — device discovery messages: a selector that looks like P:D but is malformed is refused as
 * such, and platforms that offer no device are reported as exactly that. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* "-1:0" was read by %u as platform 4294967295; signs, blanks and oversized indices are malformed now. */
START_TEST(malformed_selector_is_refused)
{
    static const char *bad[] = {"-1:0", "0:-1", "+0:0", " 0:0", "0: 0", "0:0 ", "1234567890:0"};
    clf_device_info info;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clf_status s = clf_device_select(bad[i], &info);
        ck_assert_msg(s == CLF_ERR_INVALID_ARG, "'%s': %d %s", bad[i], s, clf_last_error());
        ck_assert_msg(strstr(clf_last_error(), "malformed") != NULL, "'%s': %s", bad[i], clf_last_error());
        ck_assert_msg(strstr(clf_last_error(), "4294967295") == NULL, "'%s': %s", bad[i], clf_last_error());
    }
    /* Not index-like (no digit before the colon): a name, which matches nothing. */
    ck_assert_int_eq(clf_device_select("-:1", &info), CLF_ERR_NO_DEVICE);
    ck_assert_ptr_null(strstr(clf_last_error(), "malformed"));

    /* Well-formed indices keep their meanings: the first device listed, and none at an index past the end. */
    clf_device_info first;
    size_t count = 0;
    ck_assert_int_eq(clf_device_list(&first, 1, &count), CLF_SUCCESS);
    char sel[32], want[64];
    snprintf(sel, sizeof sel, "%d:%d", first.platform_index, first.device_index);
    ck_assert_msg(clf_device_select(sel, &info) == CLF_SUCCESS, "%s: %s", sel, clf_last_error());
    ck_assert_str_eq(info.id, first.id);
    snprintf(sel, sizeof sel, "%d:999", first.platform_index);
    snprintf(want, sizeof want, "no device 999 on platform %d", first.platform_index);
    ck_assert_int_eq(clf_device_select(sel, &info), CLF_ERR_NO_DEVICE);
    ck_assert_msg(strstr(clf_last_error(), want) != NULL, "%s", clf_last_error());
}
END_TEST

static int ci_contains(const char *hay, const char *needle)
{
    for (size_t n = strlen(needle); *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0) return 1;
    return 0;
}

static int info_matches(const clf_device_info *d, const char *sel)
{
    return ci_contains(d->name, sel) || ci_contains(d->vendor, sel) || ci_contains(d->platform, sel) ||
           ci_contains(d->platform_vendor, sel);
}

/* A name selector that matches several devices is an error that lists them (no silent "first one"); one that
 * matches a single device, or is a device's exact name, picks it; "cpu" still means the first CPU device. */
START_TEST(name_selector_must_be_unique)
{
    clf_device_info devs[64], info;
    size_t count = 0;
    ck_assert_int_eq(clf_device_list(devs, 64, &count), CLF_SUCCESS);
    if (count > 64) count = 64;
    for (size_t i = 0; i < count; i++) {
        ck_assert_msg(clf_device_select(devs[i].name, &info) == CLF_SUCCESS, "%s: %s", devs[i].name, clf_last_error());
        ck_assert_str_eq(info.id, devs[i].id);   /* exact name: that device, even if another contains it */
    }
    /* A one-letter selector that hits several devices (with one device, the ambiguous case cannot arise). */
    char sel[2] = "";
    for (char c = 'a'; c <= 'z' && !sel[0]; c++) {
        char t[2] = {c, 0};
        size_t hits = 0;
        for (size_t i = 0; i < count; i++) hits += info_matches(&devs[i], t) && strcasecmp(devs[i].name, t) != 0;
        if (hits >= 2) sel[0] = c;
    }
    if (sel[0]) {
        ck_assert_int_eq(clf_device_select(sel, &info), CLF_ERR_INVALID_ARG);
        ck_assert_msg(strstr(clf_last_error(), "ambiguous") != NULL, "%s", clf_last_error());
        for (size_t i = 0; i < count; i++)
            if (info_matches(&devs[i], sel)) {
                char idx[32];
                snprintf(idx, sizeof idx, "%d:%d", devs[i].platform_index, devs[i].device_index);
                ck_assert_msg(strstr(clf_last_error(), idx) != NULL, "%s lacks %s", clf_last_error(), idx);
            }
    } else {
        fprintf(stderr, "test_devices: no selector matches two devices here; the ambiguous case is not run\n");
    }
    for (size_t i = 0; i < count; i++)
        if (devs[i].type & CL_DEVICE_TYPE_CPU) {
            ck_assert_int_eq(clf_device_select("cpu", &info), CLF_SUCCESS);
            ck_assert_str_eq(info.id, devs[i].id);
            break;
        }
}
END_TEST

/* Runs `clforge devices` (CLFORGE_CLI) under the environment assignments env; its stdout into out. Returns the
 * exit code. */
static int cli_devices(const char *env, char *out, size_t cap)
{
    const char *cli = getenv("CLFORGE_CLI");
    ck_assert_msg(cli && *cli, "CLFORGE_CLI is not set (ctest sets it)");
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "env %s '%s' devices 2>/dev/null", env, cli);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `clforge devices` marks the device CLFORGE_DEVICE selects, and lists a platform that offers no device (rusticl
 * without RUSTICL_ENABLE) as such instead of leaving it out. */
START_TEST(cli_marks_selection_and_empty_platforms)
{
    clf_device_info first;
    size_t count = 0;
    ck_assert_int_eq(clf_device_list(&first, 1, &count), CLF_SUCCESS);
    static char out[1 << 16];
    char env[64], want[600];
    snprintf(env, sizeof env, "CLFORGE_DEVICE=%d:%d", first.platform_index, first.device_index);
    ck_assert_int_eq(cli_devices(env, out, sizeof out), 0);
    snprintf(want, sizeof want, "%d:%d  %s", first.platform_index, first.device_index, first.name);
    char *line = strstr(out, want);
    ck_assert_msg(line != NULL, "%s not listed:\n%s", want, out);
    char *eol = strchr(line, '\n');
    if (eol) *eol = '\0';
    ck_assert_msg(strstr(line, "[selected by CLFORGE_DEVICE]") != NULL, "%s", line);

    char dir[1200], icd[1300];
    snprintf(dir, sizeof dir, "%s/vendors-cli-rusticl", clf_test_tmpdir());
    mkdir(dir, 0755);
    snprintf(icd, sizeof icd, "%s/rusticl.icd", dir);
    FILE *f = fopen(icd, "w");
    ck_assert_ptr_nonnull(f);
    fputs("libRusticlOpenCL.so.1\n", f);
    fclose(f);
    char vars[1400];
    snprintf(vars, sizeof vars, "-u RUSTICL_ENABLE OCL_ICD_VENDORS='%s'", dir);
    int rc = cli_devices(vars, out, sizeof out);
    if (!strstr(out, "platform 0:")) {
        fprintf(stderr, "test_devices: rusticl is not installed; the empty-platform listing is not run\n");
        return;
    }
    ck_assert_int_eq(rc, 1);   /* no device to run on: a failure, after the listing */
    ck_assert_msg(strstr(out, "(no devices)") != NULL, "%s", out);
}
END_TEST

/* Child mode: lists devices and prints the status and message, for a parent that set the loader's environment. */
static int child_list(void)
{
    size_t count = 0;
    clf_status s = clf_device_list(NULL, 0, &count);
    printf("%d %s\n", s, s == CLF_SUCCESS ? "" : clf_last_error());
    return 0;
}

/* Runs this program in child mode with the ICD loader reading only `vendors`; returns its output line. */
static void list_with_vendors(const char *vendors, char *out, size_t cap)
{
    char self[1024], cmd[2400];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);   /* in the command, /proc/self would be env */
    ck_assert_int_gt(n, 0);
    self[n] = '\0';
    snprintf(cmd, sizeof cmd, "env -u RUSTICL_ENABLE OCL_ICD_VENDORS='%s' '%s' --child-list", vendors, self);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    out[0] = '\0';
    ck_assert_ptr_nonnull(fgets(out, (int)cap, p));
    ck_assert_int_eq(pclose(p), 0);
}

/* Mesa's rusticl is a platform that offers no device unless RUSTICL_ENABLE names one: the message must say that,
 * not that no platform was found. An empty vendor folder is the no-platform case. */
START_TEST(no_device_message_names_the_cause)
{
    char dir[1200], icd[1300], line[2048];
    snprintf(dir, sizeof dir, "%s/vendors-empty", clf_test_tmpdir());
    mkdir(dir, 0755);
    list_with_vendors(dir, line, sizeof line);
    ck_assert_msg(strstr(line, "no OpenCL platform found") != NULL, "%s", line);

    snprintf(dir, sizeof dir, "%s/vendors-rusticl", clf_test_tmpdir());
    mkdir(dir, 0755);
    snprintf(icd, sizeof icd, "%s/rusticl.icd", dir);
    FILE *f = fopen(icd, "w");
    ck_assert_ptr_nonnull(f);
    fputs("libRusticlOpenCL.so.1\n", f);
    fclose(f);
    list_with_vendors(dir, line, sizeof line);
    if (strstr(line, "no OpenCL platform found") && !strstr(line, "exist")) {
        fprintf(stderr, "test_devices: rusticl is not installed; the platform-without-device case is not run\n");
        return;
    }
    ck_assert_msg(strstr(line, "platforms exist but none offers a device") != NULL, "%s", line);
    ck_assert_msg(strstr(line, "no OpenCL platform found") == NULL, "%s", line);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--child-list") == 0) return child_list();
    Suite *s = suite_create("devices");
    TCase *tc = clf_test_tcase("devices");
    tcase_add_test(tc, malformed_selector_is_refused);
    tcase_add_test(tc, no_device_message_names_the_cause);
    tcase_add_test(tc, name_selector_must_be_unique);
    tcase_add_test(tc, cli_marks_selection_and_empty_platforms);
    suite_add_tcase(s, tc);
    return clf_test_run(s);
}
