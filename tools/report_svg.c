/* report_svg.c — the SVG charts of `clforge report`: a log-log roofline per device with every kernel as a
 * point, and GEMM throughput against size for all devices and the baseline. Plain SVG 1.1, no scripts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define W 800
#define H 480
#define PX0 80.0    /* plot area */
#define PX1 500.0
#define PY0 50.0
#define PY1 420.0

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                                      "#e377c2", "#17becf"};

typedef struct axes {
    double lx0, lx1, ly0, ly1;   /* log10 ranges (x may be log2-based for sizes, see log2x) */
    int log2x;
} axes;

int cli_rep_utf8_next(const char *str, long *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    int n = s[0] < 0x80 ? 1 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
    if (n == 1) { *cp = s[0]; return 1; }
    *cp = -1;
    if (n == 0) return 1;
    long v = s[0] & (0x7F >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 1;   /* cut short: the next byte starts afresh */
        v = v << 6 | (s[i] & 0x3F);
    }
    static const long min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 1;   /* overlong, too big, surrogate */
    *cp = v;
    return n;
}

int cli_rep_xml_char(long cp)
{
    return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
           (cp >= 0x10000 && cp <= 0x10FFFF);
}

void cli_rep_xml_text(FILE *f, const char *s)
{
    while (s && *s) {
        long cp;
        int n = cli_rep_utf8_next(s, &cp);
        /* Bytes that are not UTF-8 and code points XML forbids (controls, U+FFFE, U+FFFF) would make the
         * whole document ill-formed: each becomes U+FFFD, visibly. */
        if (!cli_rep_xml_char(cp)) fputs("\xEF\xBF\xBD", f);
        else if (cp == '&') fputs("&amp;", f);
        else if (cp == '<') fputs("&lt;", f);
        else if (cp == '>') fputs("&gt;", f);
        else if (cp == '"') fputs("&quot;", f);
        else if (cp == '\'') fputs("&apos;", f);
        else fwrite(s, 1, (size_t)n, f);
        s += n;
    }
}

static double sx(const axes *a, double x)
{
    double l = a->log2x ? log2(x) : log10(x);
    return PX0 + (l - a->lx0) / (a->lx1 - a->lx0) * (PX1 - PX0);
}

static double sy(const axes *a, double y)
{
    return PY1 - (log10(y) - a->ly0) / (a->ly1 - a->ly0) * (PY1 - PY0);
}

static void fmt_si(char *out, size_t cap, double v)
{
    cli_rep_num(out, cap, v);   /* 1k, 10k, 1M: never an exponent */
}

static void header(FILE *f, const char *prefix, const char *title)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%d\" y=\"28\" font-size=\"16\" "
               "font-weight=\"bold\">",
            W, H, W, H, (int)PX0);
    fputs(prefix, f);
    cli_rep_xml_text(f, title);
    fputs("</text>\n", f);
}

/* Frame, grid lines and labels at each decade (or each power of two for sizes). */
static void frame(FILE *f, const axes *a, const char *xlabel, const char *ylabel)
{
    char t[32];
    fprintf(f, "<g stroke=\"#ddd\" stroke-width=\"1\">\n");
    for (double d = ceil(a->ly0); d <= a->ly1 + 1e-9; d++)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", PX0, sy(a, pow(10, d)), PX1, sy(a, pow(10, d)));
    for (double d = ceil(a->lx0); d <= a->lx1 + 1e-9; d++) {
        double x = a->log2x ? pow(2, d) : pow(10, d);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", sx(a, x), PY0, sx(a, x), PY1);
    }
    fprintf(f, "</g>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n", PX0,
            PY0, PX1 - PX0, PY1 - PY0);
    fprintf(f, "<g font-size=\"11\" fill=\"#333\">\n");
    for (double d = ceil(a->ly0); d <= a->ly1 + 1e-9; d++) {
        fmt_si(t, sizeof t, pow(10, d));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PX0 - 6, sy(a, pow(10, d)) + 4, t);
    }
    for (double d = ceil(a->lx0); d <= a->lx1 + 1e-9; d++) {
        double x = a->log2x ? pow(2, d) : pow(10, d);
        if (a->log2x) snprintf(t, sizeof t, "%g", x);
        else fmt_si(t, sizeof t, x);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", sx(a, x), PY1 + 16, t);
    }
    /* With two decades or fewer, 2x and 5x steps are labelled too, or the axis says too little. */
    if (a->ly1 - a->ly0 <= 2.01)
        for (double d = floor(a->ly0); d < a->ly1; d++)
            for (int m = 2; m <= 5; m += 3) {
                double y = m * pow(10, d);
                if (log10(y) <= a->ly0 || log10(y) >= a->ly1) continue;
                fmt_si(t, sizeof t, y);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
                           "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                        PX0, sy(a, y), PX1, sy(a, y), PX0 - 6, sy(a, y) + 4, t);
            }
    fprintf(f, "</g>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", (PX0 + PX1) / 2, PY1 + 36, xlabel);
    fprintf(f, "<text transform=\"translate(20 %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n", (PY0 + PY1) / 2,
            ylabel);
}

/* Figures far outside anything a device does (hand-edited or corrupt files) would stretch the log axes
 * over hundreds of decades; such points are left out. */
static int in_range(double v, double lo, double hi) { return v >= lo && v <= hi; }

static int plottable(const cli_rep_result *r)
{
    return !r->error && r->seconds > 0 && r->flops > 0 && r->bytes > 0 && in_range(r->intensity, 1e-6, 1e9) &&
           in_range(r->flops / r->seconds / 1e9, 1e-9, 1e12);
}

static const char *group_color(const char *g)
{
    if (!strcmp(g, "square")) return palette[0];
    if (!strcmp(g, "shape")) return palette[3];
    if (!strcmp(g, "dsquare")) return palette[2];
    return palette[4];
}

static const char *group_name(const char *g)
{
    if (!strcmp(g, "square")) return "SGEMM, squares";
    if (!strcmp(g, "shape")) return "SGEMM, shapes";
    if (!strcmp(g, "dsquare")) return "DGEMM, squares";
    if (!strcmp(g, "map")) return "maps";
    return g;
}

/* Short text beside a point: the size of a square, the formula's function for a map. */
static void point_label(const cli_rep_result *r, char *out, size_t cap)
{
    if (!strcmp(r->group, "square") || !strcmp(r->group, "dsquare")) snprintf(out, cap, "%zu", r->n);
    else if (!strcmp(r->workload, "map")) snprintf(out, cap, "%s", strstr(r->label, "relu") ? "relu" : "axpy");
    else snprintf(out, cap, "%zux%zux%zu", r->m, r->n, r->k);
}

/* Label placement on a chart: the points drawn and the label boxes placed so far (x0, y0, x1, y1). */
typedef struct labels {
    double (*pts)[2];
    int npts;
    double (*boxes)[4];
    int nboxes;
} labels;

static int box_free(const labels *l, const double b[4])
{
    if (b[0] < PX0 || b[2] > PX1 || b[1] < PY0 || b[3] > PY1) return 0;   /* inside the plot */
    for (int i = 0; i < l->npts; i++)   /* a point's disc (radius 4.5 and its stroke) */
        if (l->pts[i][0] + 5.5 > b[0] && l->pts[i][0] - 5.5 < b[2] && l->pts[i][1] + 5.5 > b[1] &&
            l->pts[i][1] - 5.5 < b[3])
            return 0;
    for (int i = 0; i < l->nboxes; i++)
        if (l->boxes[i][0] < b[2] && l->boxes[i][2] > b[0] && l->boxes[i][1] < b[3] && l->boxes[i][3] > b[1]) return 0;
    return 1;
}

/* Writes lab beside the point (x, y) at the first of eight positions around it that is free; none: no label. */
static void place_label(FILE *f, labels *l, double x, double y, const char *lab, const char *color, int left_first)
{
    static const double dy[4] = {12, -6, 3, 21};   /* baseline offsets: below, above, level, further below */
    double w = 5.4 * (double)strlen(lab) + 1;          /* 9 px Helvetica: about 0.6 em a character */
    for (int k = 0; k < 8; k++) {
        int left = (k & 1) ^ left_first;
        double tx = left ? x - 7 - w : x + 7, ty = y + dy[k / 2];
        double b[4] = {tx, ty - 8, tx + w, ty + 2};
        if (!box_free(l, b)) continue;
        memcpy(l->boxes[l->nboxes++], b, sizeof b);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" fill=\"%s\">", tx, ty, color);
        cli_rep_xml_text(f, lab);
        fputs("</text>\n", f);
        return;
    }
}

/* The theoretical peak as a dotted line, when it disagrees with the measured one by more than 25%. */
static void theoretical_roof(FILE *f, const axes *a, const char *what, double measured, double theory)
{
    if (!in_range(theory, 1e-6, 1e12) || !(measured > 0) || fabs(measured - theory) <= 0.25 * theory) return;
    double y = sy(a, theory);
    if (y < PY0 || y > PY1) return;
    char rate[48];
    cli_rep_rate(rate, sizeof rate, theory, "GFLOP/s");
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"2 3\"/>"
               "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#777\">%s theoretical %s</text>\n",
            PX0, y, PX1, y, PX0 + 4, y - 4, what, rate);
}

int cli_rep_svg_roofline(FILE *f, const cli_rep_device *d)
{
    double bw = fmax(d->copy_gbs, d->triad_gbs), peak = d->fp32_gflops;
    /* Numbered as in the tables, with the run's date when names repeat; the whole name: nothing is cut. */
    size_t cap = strlen(d->name) + strlen(d->date ? d->date : "") + 40;
    char *title = malloc(cap);
    if (title) cli_rep_device_label(title, cap, d);
    header(f, "Roofline: ", title ? title : d->name);
    free(title);
    if (!in_range(bw, 1e-6, 1e9) || !in_range(peak, 1e-6, 1e12)) {
        fprintf(f, "<text x=\"%d\" y=\"%d\">no roofline in this result</text>\n</svg>\n", (int)PX0, H / 2);
        return 0;
    }
    double ridge = peak / bw, xlo = ridge / 100, xhi = ridge * 10, ylo = peak, yhi = peak;
    for (size_t i = 0; i < d->count; i++) {
        const cli_rep_result *r = &d->results[i];
        if (!plottable(r)) continue;
        double g = r->flops / r->seconds / 1e9;
        xlo = fmin(xlo, r->intensity), xhi = fmax(xhi, r->intensity);
        ylo = fmin(ylo, g), yhi = fmax(yhi, g);
        if (r->has_base && in_range(r->flops / r->base_seconds / 1e9, 1e-9, 1e12))
            ylo = fmin(ylo, r->flops / r->base_seconds / 1e9), yhi = fmax(yhi, r->flops / r->base_seconds / 1e9);
    }
    /* theoretical peaks drawn beside the measured ones stay inside the plot */
    if (in_range(d->fp32_theoretical, 1e-6, 1e12) && fabs(d->fp32_theoretical - peak) > 0.25 * d->fp32_theoretical)
        yhi = fmax(yhi, d->fp32_theoretical);
    if (in_range(d->fp64_theoretical, 1e-6, 1e12) && d->fp64_gflops > 0 &&
        fabs(d->fp64_theoretical - d->fp64_gflops) > 0.25 * d->fp64_theoretical)
        yhi = fmax(yhi, d->fp64_theoretical);
    axes a = {floor(log10(xlo)), ceil(log10(xhi)), 0, 0, 0};
    ylo = fmin(ylo, bw * pow(10, a.lx0));
    a.ly0 = fmax(floor(log10(ylo)), ceil(log10(yhi * 1.5)) - 7);   /* at most seven decades */
    a.ly1 = ceil(log10(yhi * 1.5));
    if (a.lx1 - a.lx0 < 1) a.lx1 = a.lx0 + 1;
    frame(f, &a, "arithmetic intensity (FLOP/byte)", "GFLOP/s");

    /* Roofs: the bandwidth slope up to each peak, clipped at the bottom of the plot. */
    double ymin = pow(10, a.ly0), xmax = pow(10, a.lx1);
    double xs = fmax(pow(10, a.lx0), ymin / bw);
    fprintf(f, "<polyline fill=\"none\" stroke=\"#000\" stroke-width=\"2\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n",
            sx(&a, xs), sy(&a, bw * xs), sx(&a, ridge), sy(&a, peak), sx(&a, xmax), sy(&a, peak));
    char rate[48];
    cli_rep_rate(rate, sizeof rate, peak, "GFLOP/s");
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">fp32 peak %s</text>\n", PX1 - 4,
            sy(&a, peak) - 5, rate);
    theoretical_roof(f, &a, "fp32", peak, d->fp32_theoretical);
    theoretical_roof(f, &a, "fp64", d->fp64_gflops, d->fp64_theoretical);
    if (in_range(d->fp64_gflops, 1e-6, 1e12)) {
        double r64 = d->fp64_gflops / bw;
        fprintf(f, "<polyline fill=\"none\" stroke=\"#666\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\" "
                   "points=\"%.1f,%.1f %.1f,%.1f\"/>\n",
                sx(&a, fmax(r64, xs)), sy(&a, d->fp64_gflops), sx(&a, xmax), sy(&a, d->fp64_gflops));
        cli_rep_rate(rate, sizeof rate, d->fp64_gflops, "GFLOP/s");
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" fill=\"#666\">fp64 peak %s</text>\n",
                PX1 - 4, sy(&a, d->fp64_gflops) + 14, rate);
    }
    /* The slope's label follows the line: its angle on screen depends on the pixels per decade. */
    double ang = -atan((PY1 - PY0) / (a.ly1 - a.ly0) / ((PX1 - PX0) / (a.lx1 - a.lx0))) * 180 / M_PI;
    double lx = sqrt(xs * ridge);
    cli_rep_rate(rate, sizeof rate, bw, "GB/s");
    fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(%.1f)\" font-size=\"11\">%s</text>\n", sx(&a, lx),
            sy(&a, bw * lx) - 6, ang, rate);

    /* Points first, then labels: a label is placed where it covers no point (clforge's or the baseline's)
     * and no label placed before it, or left out; the size is in the tooltip and the tables. */
    labels lb = {NULL, 0, NULL, 0};
    lb.pts = calloc(2 * d->count + 1, sizeof *lb.pts);
    lb.boxes = calloc(d->count + 1, sizeof *lb.boxes);
    for (size_t i = 0; i < d->count; i++) {
        const cli_rep_result *r = &d->results[i];
        if (!plottable(r)) continue;
        const char *c = group_color(r->group);
        double x = sx(&a, r->intensity), y = sy(&a, r->flops / r->seconds / 1e9);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\"><title>", x, y, c);
        cli_rep_xml_text(f, r->label);
        cli_rep_rate(rate, sizeof rate, r->value, r->unit);
        fputs(": ", f);
        cli_rep_xml_text(f, rate);
        fputs("</title></circle>\n", f);
        if (lb.pts) lb.pts[lb.npts][0] = x, lb.pts[lb.npts++][1] = y;
        if (r->has_base && r->base_seconds > 0 && in_range(r->flops / r->base_seconds / 1e9, 1e-9, 1e12)) {
            double yb = sy(&a, r->flops / r->base_seconds / 1e9);
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", x,
                    yb, c);
            if (lb.pts) lb.pts[lb.npts][0] = x, lb.pts[lb.npts++][1] = yb;
        }
    }
    for (size_t i = 0; i < d->count && lb.pts && lb.boxes; i++) {
        const cli_rep_result *r = &d->results[i];
        if (!plottable(r) || !strcmp(r->group, "shape")) continue;   /* shapes crowd: tooltip and tables */
        char lab[64];
        point_label(r, lab, sizeof lab);
        /* DGEMM labels try the left first, SGEMM's the right: the two often share an intensity. */
        place_label(f, &lb, sx(&a, r->intensity), sy(&a, r->flops / r->seconds / 1e9), lab, group_color(r->group),
                    !strcmp(r->group, "dsquare"));
    }
    free(lb.pts);
    free(lb.boxes);

    /* Legend: the groups present, the baseline, and copies (no FLOPs, so not on the chart). */
    double ly = PY0 + 10;
    const char *seen[8];
    int nseen = 0, more = 0;
    for (size_t i = 0; i < d->count; i++) {
        const cli_rep_result *r = &d->results[i];
        int dup = 0;
        for (int j = 0; j < nseen; j++) dup |= !strcmp(seen[j], r->group);
        for (size_t j = 0; j < i && !dup && nseen == 8; j++)   /* counted already? */
            dup |= plottable(&d->results[j]) && !strcmp(d->results[j].group, r->group);
        if (!plottable(r) || dup) continue;
        if (nseen == 8) { more++; continue; }   /* the legend has room for eight; the rest are counted below */
        seen[nseen++] = r->group;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">clforge ",
                PX1 + 24, ly, group_color(r->group), PX1 + 34, ly + 4);
        cli_rep_xml_text(f, group_name(r->group));   /* an unknown group is input text */
        fputs("</text>\n", f);
        ly += 18;
    }
    if (more) {
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">and %d more group%s (see the tables)</text>\n",
                PX1 + 14, ly + 4, more, more == 1 ? "" : "s");
        ly += 18;
    }
    if (d->baseline) {
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"none\" stroke=\"#333\" stroke-width=\"1.5\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">",
                PX1 + 24, ly, PX1 + 34, ly + 4);
        cli_rep_xml_text(f, d->baseline);
        fputs(" (same workload)</text>\n", f);
        ly += 18;
    }
    ly += 10;
    int copies_left = 0;
    for (size_t i = 0; i < d->count; i++) {
        const cli_rep_result *r = &d->results[i];
        if (strcmp(r->workload, "copy") || r->error) continue;
        if (ly > PY1) { copies_left++; continue; }
        cli_rep_rate(rate, sizeof rate, r->value, "GB/s");
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">copy, %s: %s</text>\n"
                   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#555\">%.0f%% of bandwidth (no FLOPs: not plotted)</text>\n",
                PX1 + 14, ly, strstr(r->label, "offset") ? "unaligned" : "aligned", rate, PX1 + 14, ly + 14,
                100 * r->fraction);
        ly += 34;
    }
    if (copies_left)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">and %d more cop%s (see the tables)</text>\n",
                PX1 + 14, ly, copies_left, copies_left == 1 ? "y" : "ies");
    fputs("</svg>\n", f);
    return 1;
}

static const cli_rep_result *find_square(const cli_rep_device *d, const char *workload, size_t n)
{
    for (size_t i = 0; i < d->count; i++) {
        const cli_rep_result *r = &d->results[i];
        if (!r->error && r->seconds > 0 && in_range(r->value, 1e-9, 1e12) && !strcmp(r->workload, workload) &&
            r->m == n && r->n == n && r->k == n &&
            (!strcmp(r->group, "square") || !strcmp(r->group, "dsquare")))
            return r;
    }
    return NULL;
}

/* One device's line: clforge's (base 0) or the baseline's (base 1) GFLOP/s at each size. */
static int gemm_line(FILE *f, const axes *a, const cli_rep_device *d, const char *workload, int base, const char *c)
{
    int n = 0;
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", c,
            base ? " stroke-dasharray=\"6 4\"" : "");
    for (size_t s = 1; s <= ((size_t)1 << 20); s *= 2) {
        const cli_rep_result *r = find_square(d, workload, s);
        if (!r || (base && !(r->has_base && in_range(r->base_value, 1e-9, 1e12)))) continue;
        fprintf(f, "%s%.1f,%.1f", n++ ? " " : "", sx(a, (double)s), sy(a, base ? r->base_value : r->value));
    }
    fputs("\"/>\n", f);
    for (size_t s = 1; s <= ((size_t)1 << 20); s *= 2) {
        const cli_rep_result *r = find_square(d, workload, s);
        if (!r || (base && !(r->has_base && in_range(r->base_value, 1e-9, 1e12)))) continue;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" %s=\"%s\"%s/>\n", sx(a, (double)s),
                sy(a, base ? r->base_value : r->value), base ? "stroke" : "fill", c, base ? " fill=\"white\"" : "");
    }
    return n;
}

/* "3. NVIDIA H200" as numbered in the tables, the name cut at 28 bytes (on a UTF-8 boundary). */
static void legend_name(FILE *f, const cli_rep_device *d)
{
    char name[64];
    size_t len = strlen(d->name), cut = len > 28 ? 28 : len;
    while (cut < len && cut > 0 && ((unsigned char)d->name[cut] & 0xC0) == 0x80) cut--;
    snprintf(name, sizeof name, "%d. %.*s%s", d->index, (int)cut, d->name, cut < len ? "..." : "");
    cli_rep_xml_text(f, name);
}

int cli_rep_svg_gemm(FILE *f, const cli_rep_device *devs, size_t ndevs, const char *workload)
{
    double nlo = 1e30, nhi = 0, ylo = 1e30, yhi = 0;
    for (size_t d = 0; d < ndevs; d++)
        for (size_t s = 1; s <= ((size_t)1 << 20); s *= 2) {
            const cli_rep_result *r = find_square(&devs[d], workload, s);
            if (!r) continue;
            nlo = fmin(nlo, (double)s), nhi = fmax(nhi, (double)s);
            ylo = fmin(ylo, r->value), yhi = fmax(yhi, r->value);
            if (r->has_base && in_range(r->base_value, 1e-9, 1e12))
                ylo = fmin(ylo, r->base_value), yhi = fmax(yhi, r->base_value);
        }
    char title[64];
    snprintf(title, sizeof title, "%s throughput against size (square matrices)",
             !strcmp(workload, "dgemm") ? "DGEMM" : "SGEMM");
    header(f, "", title);
    if (nhi == 0 || ylo <= 0) {
        fprintf(f, "<text x=\"%d\" y=\"%d\">no results</text>\n</svg>\n", (int)PX0, H / 2);
        return 0;
    }
    axes a = {log2(nlo), log2(nhi), floor(log10(ylo)), ceil(log10(yhi * 1.2)), 1};
    if (a.lx1 - a.lx0 < 1) a.lx0 -= 0.5, a.lx1 += 0.5;
    if (a.ly1 - a.ly0 < 1) a.ly1 = a.ly0 + 1;
    frame(f, &a, "n (m = n = k)", "GFLOP/s");
    int lines = 0;
    double ly = PY0 + 10;
    for (size_t d = 0; d < ndevs; d++) {
        const char *c = palette[d % (sizeof palette / sizeof palette[0])];
        for (int base = 0; base <= 1; base++) {
            if (base && !devs[d].baseline) continue;
            if (!gemm_line(f, &a, &devs[d], workload, base, c)) continue;
            lines++;
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>"
                       "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">",
                    PX1 + 12, ly, PX1 + 36, ly, c, base ? " stroke-dasharray=\"6 4\"" : "", PX1 + 42, ly + 4);
            cli_rep_xml_text(f, base ? devs[d].baseline : "clforge");
            fputs(" on ", f);
            legend_name(f, &devs[d]);
            fputs("</text>\n", f);
            if (devs[d].same_name) {   /* the run's date on a line of its own: the name line is full */
                fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#555\">run ", PX1 + 42, ly + 17);
                cli_rep_xml_text(f, devs[d].date);
                fputs("</text>\n", f);
                ly += 13;
            }
            ly += 18;
        }
    }
    fputs("</svg>\n", f);
    return lines;
}
