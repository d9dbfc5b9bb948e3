/* test_copy.c — clf_copy and clf_fill at every alignment of offsets and sizes, bad input, and the
 * tuning hooks of the copy and map families. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "testutil.h"

extern const clf__family clf__family_map, clf__family_copy;

#define BUF 20000

static void fill_random(unsigned char *p, size_t n, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(clf_test_rand(rng) * 127 + 128);
}

/* Every source and destination offset 0..8 with sizes around vector and work-group boundaries. */
START_TEST(copy_alignments)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    ck_assert_int_gt(nc, 0);
    static const size_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 63, 64, 65, 129, 1000, 4099, 16384};
    unsigned char *a = malloc(BUF), *b = malloc(BUF), *got = malloc(BUF);
    uint64_t rng = 11;
    for (int d = 0; d < nc; d++) {
        clf_context *ctx = ctxs[d];
        fill_random(a, BUF, &rng);
        fill_random(b, BUF, &rng);
        cl_mem src = clf_test_buffer(ctx, BUF, a), dst = clf_test_buffer(ctx, BUF, b);
        for (size_t so = 0; so <= 8; so++)
            for (size_t dof = 0; dof <= 8; dof++)
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                    size_t n = sizes[si];
                    cl_event ev = NULL;
                    clf_status s = clf_copy(ctx, src, so, dst, dof, n, &ev);
                    ck_assert_msg(s == CLF_SUCCESS, "copy %zu bytes %zu->%zu: %s", n, so, dof, clf_last_error());
                    ck_assert_ptr_nonnull(ev);
                    clReleaseEvent(ev);
                    memcpy(b + dof, a + so, n);
                    /* Reading everything after every copy is slow on CPU devices: check the large sizes. */
                    if (n >= 1000 || (so + dof) % 3 == 0) {
                        clf_test_read(ctx, dst, BUF, got);
                        ck_assert_msg(memcmp(got, b, BUF) == 0, "copy %zu bytes from %zu to %zu is wrong", n, so, dof);
                    }
                }
        clf_test_read(ctx, dst, BUF, got);
        ck_assert(memcmp(got, b, BUF) == 0);
        /* Within one buffer, disjoint ranges. */
        ck_assert_int_eq(clf_copy(ctx, dst, 3, dst, 10003, 9990, NULL), CLF_SUCCESS);
        memmove(b + 10003, b + 3, 9990);
        clf_test_read(ctx, dst, BUF, got);
        ck_assert(memcmp(got, b, BUF) == 0);
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
    }
    free(a), free(b), free(got);
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* A copy large enough for many work-groups, at an odd offset, and at an aligned one. */
START_TEST(copy_large)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    size_t n = (size_t)3 << 20 | 5;
    unsigned char *a = malloc(n + 64), *got = malloc(n + 64), *zero = calloc(1, n + 64);
    uint64_t rng = 3;
    fill_random(a, n + 64, &rng);
    for (int d = 0; d < nc; d++) {
        cl_mem src = clf_test_buffer(ctxs[d], n + 64, a);
        for (size_t off = 0; off <= 1; off++) {
            cl_mem dst = clf_test_buffer(ctxs[d], n + 64, NULL);
            ck_assert_int_eq(clf_copy(ctxs[d], src, 7 * off, dst, 33 * off, n - off, NULL), CLF_SUCCESS);
            clf_test_read(ctxs[d], dst, n + 64, got);
            ck_assert(memcmp(got + 33 * off, a + 7 * off, n - off) == 0);
            ck_assert(memcmp(got, zero, 33 * off) == 0 && memcmp(got + 33 * off + n - off, zero, 64 - 32 * off) == 0);
            clReleaseMemObject(dst);
        }
        clReleaseMemObject(src);
    }
    free(a), free(got), free(zero);
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

START_TEST(fill_alignments)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    unsigned char *b = malloc(BUF), *got = malloc(BUF);
    static const size_t counts[] = {1, 2, 3, 5, 8, 16, 17, 33, 100, 1001};
    uint64_t rng = 17;
    for (int d = 0; d < nc; d++) {
        fill_random(b, BUF, &rng);
        cl_mem dst = clf_test_buffer(ctxs[d], BUF, b);
        for (size_t ps = 1; ps <= 16; ps *= 2)
            for (size_t k = 0; k <= 5; k++)
                for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
                    unsigned char pat[16];
                    fill_random(pat, 16, &rng);
                    size_t off = k * ps, bytes = counts[ci] * ps;
                    ck_assert_msg(clf_fill(ctxs[d], dst, off, pat, ps, bytes, NULL) == CLF_SUCCESS, "fill: %s",
                                  clf_last_error());
                    for (size_t i = 0; i < bytes; i++) b[off + i] = pat[i % ps];
                    if (ci % 3 == 0 || bytes > 1000) {
                        clf_test_read(ctxs[d], dst, BUF, got);
                        ck_assert_msg(memcmp(got, b, BUF) == 0, "fill pattern %zu at %zu, %zu bytes is wrong", ps, off,
                                      bytes);
                    }
                }
        clf_test_read(ctxs[d], dst, BUF, got);
        ck_assert(memcmp(got, b, BUF) == 0);
        clReleaseMemObject(dst);
    }
    free(b), free(got);
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* Other configurations than the selected one (CLFORGE_COPY_CONFIG), at unaligned offsets. */
START_TEST(copy_configurations)
{
    static const char *cfgs[] = {"VW=1 EPT=1 WG=32", "VW=2 EPT=8 WG=64", "VW=16 EPT=2 WG=128"};
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    unsigned char *a = malloc(BUF), *b = malloc(BUF), *got = malloc(BUF);
    uint64_t rng = 23;
    for (int d = 0; d < nc; d++)
        for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
            setenv("CLFORGE_COPY_CONFIG", cfgs[c], 1);
            fill_random(a, BUF, &rng);
            fill_random(b, BUF, &rng);
            cl_mem src = clf_test_buffer(ctxs[d], BUF, a), dst = clf_test_buffer(ctxs[d], BUF, b);
            size_t cases[][3] = {{4, 8, 9996}, {1, 3, 12345}, {6, 2, 777}, {0, 0, 17}};
            for (size_t k = 0; k < 4; k++) {
                ck_assert_int_eq(clf_copy(ctxs[d], src, cases[k][0], dst, cases[k][1], cases[k][2], NULL), CLF_SUCCESS);
                memcpy(b + cases[k][1], a + cases[k][0], cases[k][2]);
                unsigned short pat = (unsigned short)(k * 4099 + 1);
                ck_assert_int_eq(clf_fill(ctxs[d], dst, 2 * (k + 7001), &pat, 2, 2 * (333 + k), NULL), CLF_SUCCESS);
                for (size_t i = 0; i < 333 + k; i++) memcpy(b + 2 * (k + 7001) + 2 * i, &pat, 2);
                clf_test_read(ctxs[d], dst, BUF, got);
                ck_assert_msg(memcmp(got, b, BUF) == 0, "%s: copy/fill case %zu is wrong", cfgs[c], k);
            }
            clReleaseMemObject(src), clReleaseMemObject(dst);
        }
    unsetenv("CLFORGE_COPY_CONFIG");
    free(a), free(b), free(got);
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* Bad input: a clear status, a message, nothing written. */
START_TEST(errors)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    unsigned char before[256], got[256];
    uint64_t rng = 5;
    fill_random(before, sizeof before, &rng);
    for (int d = 0; d < nc; d++) {
        clf_context *ctx = ctxs[d];
        cl_mem a = clf_test_buffer(ctx, 256, before), b = clf_test_buffer(ctx, 256, before);
        unsigned int pat = 7;
        struct { clf_status s; const char *msg; } r[] = {
            {clf_copy(ctx, a, 0, b, 0, 257, NULL), "needs 257 bytes"},
            {clf_copy(ctx, a, 200, b, 0, 57, NULL), "src: needs 257 bytes"},
            {clf_copy(ctx, a, 0, b, 255, 2, NULL), "dst: needs 257 bytes"},
            {clf_copy(ctx, a, 0, a, 10, 11, NULL), "overlap"},
            {clf_copy(ctx, a, 10, a, 10, 1, NULL), "overlap"},
            {clf_copy(ctx, a, (size_t)-1, b, 0, 2, NULL), "overflows"},
            {clf_copy(ctx, NULL, 0, b, 0, 2, NULL), "buffer is NULL"},
            {clf_copy(NULL, a, 0, b, 0, 2, NULL), "ctx is NULL"},
            {clf_fill(ctx, a, 0, &pat, 3, 12, NULL), "must be 1, 2, 4, 8 or 16"},
            {clf_fill(ctx, a, 2, &pat, 4, 12, NULL), "multiples of the 4-byte pattern"},
            {clf_fill(ctx, a, 0, &pat, 4, 10, NULL), "multiples"},
            {clf_fill(ctx, a, 0, NULL, 4, 12, NULL), "non-NULL"},
            {clf_fill(ctx, a, 252, &pat, 4, 8, NULL), "needs 260 bytes"},
        };
        for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
            ck_assert_msg(r[i].s == CLF_ERR_INVALID_ARG, "case %zu: %s", i, clf_status_name(r[i].s));
            (void)r[i].msg;
        }
        /* Messages: check one of each kind right after the call (the message is per call). */
        ck_assert_int_eq(clf_copy(ctx, a, 0, a, 10, 11, NULL), CLF_ERR_INVALID_ARG);
        ck_assert_ptr_nonnull(strstr(clf_last_error(), "overlap"));
        ck_assert_int_eq(clf_fill(ctx, a, 2, &pat, 4, 12, NULL), CLF_ERR_INVALID_ARG);
        ck_assert_ptr_nonnull(strstr(clf_last_error(), "multiples"));
        ck_assert_int_eq(clf_copy(ctx, a, 0, b, 0, 257, NULL), CLF_ERR_INVALID_ARG);
        ck_assert_ptr_nonnull(strstr(clf_last_error(), "257"));
        clf_finish(ctx);
        clf_test_read(ctx, a, 256, got);
        ck_assert(memcmp(got, before, 256) == 0);
        clf_test_read(ctx, b, 256, got);
        ck_assert(memcmp(got, before, 256) == 0);
        /* Zero bytes: success, an event, nothing written. */
        cl_event ev = NULL;
        ck_assert_int_eq(clf_copy(ctx, a, 0, b, 0, 0, &ev), CLF_SUCCESS);
        ck_assert_ptr_nonnull(ev);
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
        ck_assert_int_eq(clf_fill(ctx, a, 0, &pat, 4, 0, NULL), CLF_SUCCESS);
        clReleaseMemObject(a), clReleaseMemObject(b);
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

/* The tuner drives the families only through their descriptors: every valid configuration of a few
 * must run and verify, and the default must be valid. */
START_TEST(family_hooks)
{
    clf_context **ctxs;
    int nc = clf_test_contexts(&ctxs);
    const clf__family *fams[2] = {&clf__family_map, &clf__family_copy};
    static const int tries[][3] = {{1, 1, 32}, {16, 8, 64}, {2, 4, 128}};
    for (int d = 0; d < nc; d++) {
        const clf_device_info *dev = clf_context_device(ctxs[d]);
        for (int f = 0; f < 2; f++) {
            const clf__family *F = fams[f];
            clf__config c;
            F->default_config(dev, CLF_F32, "default", &c);
            ck_assert(F->valid(&c, dev, CLF_F32));
            void *st = NULL;
            ck_assert_msg(F->bench_create(ctxs[d], CLF_F32, "default", &st) == CLF_SUCCESS, "%s", clf_last_error());
            ck_assert_double_gt(F->bench_work(st), 1e6);
            for (int t = 0; t < 3; t++) {
                for (int p = 0; p < 3; p++) c.v[p] = tries[t][p];
                if (!F->valid(&c, dev, CLF_F32)) continue;
                cl_event ev = NULL;
                ck_assert_msg(F->bench_run(st, &c, &ev) == CLF_SUCCESS, "%s: %s", F->name, clf_last_error());
                if (ev) clReleaseEvent(ev);
                ck_assert_msg(F->bench_check(st) == CLF_SUCCESS, "%s: %s", F->name, clf_last_error());
            }
            clf__problem pr = {.dtype = CLF_F32, .n = 1000, .elem_size = 4, .flops_per_elem = 2, .reads = 3,
                               .writes = 1};
            ck_assert_double_eq(F->bytes(&pr), f == 0 ? 16000.0 : 8000.0);
            F->bench_destroy(st);
        }
    }
    clf_test_contexts_free(ctxs, nc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("copy");
    TCase *tc = clf_test_tcase("copy");
    tcase_add_test(tc, copy_alignments);
    tcase_add_test(tc, copy_large);
    tcase_add_test(tc, fill_alignments);
    tcase_add_test(tc, copy_configurations);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, family_hooks);
    suite_add_tcase(s, tc);
    return clf_test_run(s);
}
