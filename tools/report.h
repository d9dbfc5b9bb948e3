/* report.h — the data `clforge report` reads from bench JSON (cmd_report.c) and draws (report_svg.c). */
#ifndef CLFORGE_TOOLS_REPORT_H
#define CLFORGE_TOOLS_REPORT_H

#include <stddef.h>
#include <stdio.h>

typedef struct cli_rep_result {
    const char *workload, *group, *label, *unit, *bound, *error;   /* error NULL when it ran */
    size_t m, n, k;
    double value, fraction, flops, bytes, seconds, intensity;
    int has_fraction;          /* a roof was known for it (matrix-unit rows have none) */
    int has_spread;            /* clforge-bench/2: the slowest and fastest repeat, in unit */
    double value_min, value_max;
    int loaded;                /* other processes were busy while it ran */
    int has_base;
    double base_value, base_seconds, ratio;
} cli_rep_result;

typedef struct cli_rep_device {
    const char *name, *platform, *driver, *type, *id, *file, *date, *baseline;
    double copy_gbs, triad_gbs, fp32_gflops, fp64_gflops;
    double fp32_theoretical, fp64_theoretical;   /* peaks from the device's specifications, 0 when absent */
    int index;                 /* 1-based, as numbered in the tables */
    int same_name;             /* another device in the report has the same name: legends add the run date */
    int loaded;                /* some of its figures were measured on a busy machine */
    cli_rep_result *results;
    size_t count;
} cli_rep_device;

/* Writes a log-log roofline chart of one device: its roofs, each kernel as a point (baseline hollow). */
int cli_rep_svg_roofline(FILE *f, const cli_rep_device *d);
/* Writes GEMM throughput (GFLOP/s) against square size for every device, clforge solid and baseline
 * dashed. workload: "sgemm" or "dgemm". Returns the number of lines drawn. */
int cli_rep_svg_gemm(FILE *f, const cli_rep_device *devs, size_t ndevs, const char *workload);
/* A rate in a unit that scales, with no exponent: 65300 GFLOP/s -> "65.3 TFLOP/s", 0.5 GB/s -> "500 MB/s";
 * unit is "GFLOP/s" or "GB/s" (anything else is printed as given, 3 significant digits). */
void cli_rep_rate(char *out, size_t cap, double value, const char *unit);
/* A plain number with 3-4 significant digits and no exponent, k/M/G/T suffixes above 10^4 ("1.5k"). */
void cli_rep_num(char *out, size_t cap, double v);
/* The device's name for legends and titles: "1. NVIDIA H200", plus " (run DATE)" when same_name. */
void cli_rep_device_label(char *out, size_t cap, const cli_rep_device *d);
/* XML text escaping for element content and attribute values; bytes that are not UTF-8 and code points
 * XML 1.0 forbids become U+FFFD. */
void cli_rep_xml_text(FILE *f, const char *s);
/* Decodes the UTF-8 sequence at s: returns its length (>= 1) and the code point in *cp, or *cp = -1 (and
 * length 1) when the bytes are not valid UTF-8 (overlong, surrogate, beyond U+10FFFF, cut short). */
int cli_rep_utf8_next(const char *s, long *cp);
/* 1 when XML 1.0 allows code point cp in a document. */
int cli_rep_xml_char(long cp);

#endif
