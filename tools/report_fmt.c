/* report_fmt.c — numbers for people in `clforge report`: rates in units that scale (GFLOP/s -> TFLOP/s),
 * never an exponent, and device labels that tell runs of the same device apart. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* 3 significant digits for v in [1, 1000), fewer decimals as it grows; no exponent at any size. */
static void sig3(char *out, size_t cap, double v)
{
    if (!isfinite(v)) snprintf(out, cap, "?");
    else if (fabs(v) >= 100) snprintf(out, cap, "%.0f", v);
    else if (fabs(v) >= 10) snprintf(out, cap, "%.1f", v);
    else snprintf(out, cap, "%.2f", v);
}

void cli_rep_rate(char *out, size_t cap, double value, const char *unit)
{
    static const char *const prefix = "kMGTPE";
    const char *p = NULL;
    if (unit && (!strcmp(unit, "GFLOP/s") || !strcmp(unit, "GB/s"))) p = strchr(prefix, 'G');
    if (!p || !isfinite(value) || value <= 0) {
        sig3(out, cap, value);
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", unit && *unit ? " " : "", unit ? unit : "");
        return;
    }
    double v = value;
    while (v >= 999.5 && p[1]) v /= 1000, p++;
    while (v < 1 && p > prefix) v *= 1000, p--;
    char num[32];
    sig3(num, sizeof num, v);
    snprintf(out, cap, "%s %c%s", num, *p, unit + 1);   /* unit without its G */
}

void cli_rep_num(char *out, size_t cap, double v)
{
    static const char suffix[] = " kMGT";
    int i = 0;
    double a = fabs(v);
    if (!isfinite(v)) { snprintf(out, cap, "?"); return; }
    if (a < 1e4) {
        if (a >= 100 || a == floor(a)) snprintf(out, cap, "%.0f", v);
        else if (a >= 1) snprintf(out, cap, "%.3g", v);   /* below 100: %.3g has no exponent */
        else if (a >= 0.001) snprintf(out, cap, "%.3f", v);
        else snprintf(out, cap, "%.6f", v);
        return;
    }
    while (a >= 999.5 && i < 4) a /= 1000, v /= 1000, i++;
    char num[32];
    sig3(num, sizeof num, v);
    snprintf(out, cap, "%s%c", num, suffix[i]);
}

void cli_rep_device_label(char *out, size_t cap, const cli_rep_device *d)
{
    if (d->same_name) snprintf(out, cap, "%d. %s (run %s)", d->index, d->name, d->date);
    else snprintf(out, cap, "%d. %s", d->index, d->name);
}
