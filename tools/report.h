/* report.h — the data `clforge report` reads from bench JSON (cmd_report.c) and draws (report_svg.c). */
#ifndef CLFORGE_TOOLS_REPORT_H
#define CLFORGE_TOOLS_REPORT_H

#include <stddef.h>
#include <stdio.h>

typedef struct cli_rep_result {
    const char *workload, *group, *label, *unit, *bound, *error;   /* error NULL when it ran */
    size_t m, n, k;
    double value, fraction, flops, bytes, seconds, intensity;
    int has_base;
    double base_value, base_seconds, ratio;
} cli_rep_result;

typedef struct cli_rep_device {
    const char *name, *platform, *driver, *type, *id, *file, *date, *baseline;
    double copy_gbs, triad_gbs, fp32_gflops, fp64_gflops;
    cli_rep_result *results;
    size_t count;
} cli_rep_device;

/* Writes a log-log roofline chart of one device: its roofs, each kernel as a point (baseline hollow). */
int cli_rep_svg_roofline(FILE *f, const cli_rep_device *d);
/* Writes GEMM throughput (GFLOP/s) against square size for every device, clforge solid and baseline
 * dashed. workload: "sgemm" or "dgemm". Returns the number of lines drawn. */
int cli_rep_svg_gemm(FILE *f, const cli_rep_device *devs, size_t ndevs, const char *workload);
/* XML text escaping for element content and attribute values; bytes that are not UTF-8 and code points
 * XML 1.0 forbids become U+FFFD. */
void cli_rep_xml_text(FILE *f, const char *s);
/* Decodes the UTF-8 sequence at s: returns its length (>= 1) and the code point in *cp, or *cp = -1 (and
 * length 1) when the bytes are not valid UTF-8 (overlong, surrogate, beyond U+10FFFF, cut short). */
int cli_rep_utf8_next(const char *s, long *cp);
/* 1 when XML 1.0 allows code point cp in a document. */
int cli_rep_xml_char(long cp);

#endif
