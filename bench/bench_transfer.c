/* bench_transfer.c — host <-> device bandwidth on one device, 1 MiB to 4 GiB (or --min-mib/--max-mib):
 * clforge's blocking clf_upload/clf_download from ordinary (pageable) memory, direct (one
 * clEnqueueWrite/ReadBuffer) and through the pinned staging path; clf_upload/clf_download from clforge's own
 * pinned memory (clf_host_alloc, what a CUDA user gets from pin_memory()); and the driver's direct transfer
 * from a mapped CL_MEM_ALLOC_HOST_PTR buffer of the bench's own. Verifies every transfer's bytes up to
 * 256 MiB, prints a table and writes JSON (--json). --method NAME measures one method only (staging sweeps). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef enum { M_DIRECT, M_STAGED, M_PINNED, M_CLF_PINNED } method;
static const char *const method_names[] = {"pageable-direct", "pageable-staged", "pinned-direct", "clforge-pinned"};

typedef struct bench {
    clf_context *ctx;
    cl_mem dev;
    unsigned char *pageable;   /* malloc'd and touched */
    unsigned char *pinned;     /* mapped ALLOC_HOST_PTR buffer, NULL when the driver refused one */
    cl_mem pinned_buf;
    unsigned char *clf_pinned; /* clf_host_alloc, NULL when it failed */
} bench;

/* One blocking transfer of bytes in direction up (1: host to device) by method m. */
static clf_status transfer(bench *b, method m, int up, size_t bytes)
{
    cl_command_queue q = clf_context_queue(b->ctx);
    if (m == M_PINNED) {
        cl_int e = up ? clEnqueueWriteBuffer(q, b->dev, CL_TRUE, 0, bytes, b->pinned, 0, NULL, NULL)
                      : clEnqueueReadBuffer(q, b->dev, CL_TRUE, 0, bytes, b->pinned, 0, NULL, NULL);
        return e == CL_SUCCESS ? CLF_SUCCESS : clf__fail_cl(e, "pinned transfer", "%zu bytes", bytes);
    }
    /* The threshold is read on every call: 1 byte forces staging, SIZE_MAX turns it off. clforge-pinned runs
     * with staging forced too: memory from clf_host_alloc must (and does) skip it. */
    setenv("CLFORGE_STAGING_THRESHOLD", m == M_DIRECT ? "18446744073709551615" : "1", 1);
    unsigned char *host = m == M_CLF_PINNED ? b->clf_pinned : b->pageable;
    return up ? clf_upload(b->ctx, b->dev, 0, host, bytes) : clf_download(b->ctx, b->dev, 0, host, bytes);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return (a > c) - (a < c);
}

/* Median seconds of one transfer over up to 15 runs lasting about budget seconds in all, after a warm-up. */
static double time_transfer(bench *b, method m, int up, size_t bytes, double budget)
{
    double t[15];
    int n = 0;
    if (transfer(b, m, up, bytes) != CLF_SUCCESS) return -1;
    double start = clf__now();
    while (n < 15 && (n < 3 || clf__now() - start < budget)) {
        double t0 = clf__now();
        if (transfer(b, m, up, bytes) != CLF_SUCCESS) return -1;
        t[n++] = clf__now() - t0;
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    return t[n / 2];
}

/* Uploads a pattern by method m and reads it back by the pinned-free direct path (or the reverse for
 * downloads); returns 1 when every byte arrived. */
static int verify(bench *b, method m, int up, size_t bytes, unsigned char seed)
{
    unsigned char *src = m == M_PINNED ? b->pinned : m == M_CLF_PINNED ? b->clf_pinned : b->pageable;
    for (size_t i = 0; i < bytes; i++) src[i] = (unsigned char)(i * 131u + seed);
    cl_command_queue q = clf_context_queue(b->ctx);
    if (up) {
        if (transfer(b, m, 1, bytes) != CLF_SUCCESS) return 0;
        memset(src, 0, bytes);
        if (clEnqueueReadBuffer(q, b->dev, CL_TRUE, 0, bytes, src, 0, NULL, NULL) != CL_SUCCESS) return 0;
    } else {
        if (clEnqueueWriteBuffer(q, b->dev, CL_TRUE, 0, bytes, src, 0, NULL, NULL) != CL_SUCCESS) return 0;
        memset(src, 0, bytes);
        if (transfer(b, m, 0, bytes) != CLF_SUCCESS) return 0;
    }
    for (size_t i = 0; i < bytes; i++)
        if (src[i] != (unsigned char)(i * 131u + seed)) return 0;
    return 1;
}

static int setup(bench *b, size_t bytes)
{
    cl_int e;
    b->dev = clCreateBuffer(clf_context_cl(b->ctx), CL_MEM_READ_WRITE, bytes, NULL, &e);
    b->pageable = malloc(bytes);
    if (!b->dev || !b->pageable) return 0;
    memset(b->pageable, 1, bytes);   /* touched: page faults are not what is measured */
    b->pinned_buf = clCreateBuffer(clf_context_cl(b->ctx), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &e);
    if (b->pinned_buf)
        b->pinned = clEnqueueMapBuffer(clf_context_queue(b->ctx), b->pinned_buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                       bytes, 0, NULL, NULL, &e);
    if (b->pinned) memset(b->pinned, 1, bytes);
    if (clf_host_alloc(b->ctx, bytes, (void **)&b->clf_pinned) == CLF_SUCCESS) memset(b->clf_pinned, 1, bytes);
    else b->clf_pinned = NULL;
    return 1;
}

static void teardown(bench *b)
{
    if (b->pinned) clEnqueueUnmapMemObject(clf_context_queue(b->ctx), b->pinned_buf, b->pinned, 0, NULL, NULL);
    clFinish(clf_context_queue(b->ctx));
    if (b->pinned_buf) clReleaseMemObject(b->pinned_buf);
    if (b->clf_pinned) clf_host_free(b->ctx, b->clf_pinned);
    if (b->dev) clReleaseMemObject(b->dev);
    free(b->pageable);
    b->pinned = NULL, b->pinned_buf = b->dev = NULL, b->pageable = NULL, b->clf_pinned = NULL;
}

static void measure_size(clf_context *ctx, size_t bytes, int only, json_t *rows)
{
    bench b = {ctx, NULL, NULL, NULL, NULL, NULL};
    if (!setup(&b, bytes)) {
        printf("%10zu MiB  skipped: cannot allocate\n", bytes >> 20);
        teardown(&b);
        return;
    }
    for (int up = 1; up >= 0; up--)
        for (method m = M_DIRECT; m <= M_CLF_PINNED; m++) {
            if ((m == M_PINNED && !b.pinned) || (m == M_CLF_PINNED && !b.clf_pinned) || (only >= 0 && (int)m != only))
                continue;
            int ok = bytes > ((size_t)256 << 20) || verify(&b, m, up, bytes, (unsigned char)((int)m * 7 + up));
            double s = ok ? time_transfer(&b, m, up, bytes, 0.5) : -1;
            double gbs = s > 0 ? (double)bytes / s / 1e9 : 0;
            printf("%10zu MiB  %s  %-16s %8.2f GB/s%s\n", bytes >> 20, up ? "h2d" : "d2h", method_names[m], gbs,
                   ok ? (s > 0 ? "" : "  failed") : "  WRONG DATA");
            json_array_append_new(rows, json_pack("{s:s, s:s, s:I, s:f, s:f, s:b}", "dir", up ? "h2d" : "d2h",
                                                  "method", method_names[m], "bytes", (json_int_t)bytes, "seconds", s,
                                                  "gbs", gbs, "verified", ok && bytes <= ((size_t)256 << 20)));
        }
    teardown(&b);
}

int main(int argc, char **argv)
{
    const char *device = NULL, *json = NULL;
    size_t max_mib = 4096, min_mib = 1;
    int only = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
        else if (!strcmp(argv[i], "--max-mib") && i + 1 < argc) max_mib = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--min-mib") && i + 1 < argc) min_mib = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--method") && i + 1 < argc) {
            const char *name = argv[++i];
            for (int m = 0; m <= M_CLF_PINNED; m++)
                if (!strcmp(name, method_names[m])) only = m;
            if (only < 0) {
                fprintf(stderr, "bench_transfer: unknown method %s\n", name);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: bench_transfer [--device SEL] [--min-mib N (1)] [--max-mib N (4096)] "
                            "[--method pageable-direct|pageable-staged|pinned-direct|clforge-pinned] [--json FILE]\n");
            return 2;
        }
    }
    clf_context_options opt = {.device = device};
    clf_context *ctx;
    if (clf_context_create(&opt, &ctx) != CLF_SUCCESS) {
        fprintf(stderr, "bench_transfer: %s\n", clf_last_error());
        return 1;
    }
    const clf_device_info *d = clf_context_device(ctx);
    printf("%s (%s, driver %s)\n", d->name, d->platform, d->driver);
    json_t *rows = json_array();
    for (size_t mib = 1; mib <= max_mib; mib *= 4)
        if (mib >= min_mib && ((cl_ulong)mib << 20) <= d->max_alloc) measure_size(ctx, mib << 20, only, rows);
    json_t *root = json_pack("{s:s, s:s, s:s, s:o}", "device", d->name, "driver", d->driver, "clforge", clf_version(),
                             "rows", rows);
    int rc = 0;
    if (json && json_dump_file(root, json, JSON_INDENT(1)) != 0) {
        fprintf(stderr, "bench_transfer: cannot write %s\n", json);
        rc = 1;
    }
    json_decref(root);
    clf_context_destroy(ctx);
    return rc;
}
