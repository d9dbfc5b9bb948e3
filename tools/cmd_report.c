/* cmd_report.c — `clforge report FILE.json... -o DIR`: reads `clforge bench --json` results and writes
 * DIR/README.md (a table per workload comparing the devices) with SVG charts beside it (report_svg.c). */
#include <errno.h>
#include <limits.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "clforge/clforge.h"
#include "report.h"

#define MAX_DEVICES 32

typedef struct report {
    json_t *docs[64];
    const char *files[64];
    size_t ndocs;
    cli_rep_device devs[MAX_DEVICES];
    size_t ndevs;
} report;

static void report_usage(FILE *f)
{
    fprintf(f, "usage: clforge report FILE.json... -o DIR [--quiet]\n"
               "  Reads the JSON files of `clforge bench` (formats clforge-bench/2 and clforge-bench-1; one or\n"
               "  more devices per file) and writes DIR/README.md, DIR/sgemm.svg, DIR/dgemm.svg and\n"
               "  DIR/roofline-<n>.svg, then prints the path of README.md.\n"
               "  -o DIR, --output DIR  the output directory (created)\n"
               "  --quiet               print nothing on success\n");
}

static const char *str_or(json_t *o, const char *key, const char *dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : dflt;
}

static double num_or(json_t *o, const char *key, double dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

/* A size from JSON: negative, fractional or absurd values become 0 rather than undefined behaviour. */
static size_t size_or(json_t *o, const char *key)
{
    double v = num_or(o, key, 0);
    return v >= 1 && v <= 9007199254740992.0 ? (size_t)v : 0;
}

/* A rate: clforge-bench/2 writes {"value", "unit"}, clforge-bench-1 a bare number. */
static double rate_or(json_t *o, const char *key, double dflt)
{
    json_t *v = json_object_get(o, key);
    if (json_is_object(v)) return num_or(v, "value", dflt);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

/* Fills r from one element of "results" (either format); returns 0 when a required member is missing. */
static int parse_result(json_t *j, cli_rep_result *r)
{
    memset(r, 0, sizeof *r);
    r->workload = str_or(j, "workload", NULL);
    r->group = str_or(j, "group", NULL);
    r->label = str_or(j, "label", NULL);
    r->unit = str_or(j, "unit", "");
    r->bound = str_or(j, "bound", "");
    r->error = str_or(j, "error", NULL);
    if (!r->workload || !r->group || !r->label || !json_is_number(json_object_get(j, "value"))) return 0;
    r->m = size_or(j, "m"), r->n = size_or(j, "n"), r->k = size_or(j, "k");
    r->value = num_or(j, "value", 0);
    r->fraction = num_or(j, "fraction", 0);
    /* bench-1 wrote 0 for "no roof known" (matrix units): null in bench-2; 0 with no attainable means unknown */
    r->has_fraction = json_is_number(json_object_get(j, "fraction")) && num_or(j, "attainable", 1) > 0;
    r->flops = num_or(j, "flops", 0);
    r->bytes = num_or(j, "bytes", 0);
    r->seconds = num_or(j, "seconds", 0);
    r->intensity = r->bytes > 0 ? r->flops / r->bytes : 0;   /* derived, so the charts never trust it blindly */
    json_t *sp = json_object_get(j, "spread");
    if (json_is_object(sp) && json_is_number(json_object_get(sp, "min")) && json_is_number(json_object_get(sp, "max"))) {
        r->has_spread = 1;
        r->value_min = num_or(sp, "min", 0);
        r->value_max = num_or(sp, "max", 0);
    }
    r->loaded = json_is_true(json_object_get(j, "loaded"));
    json_t *b = json_object_get(j, "baseline");
    if (json_is_object(b) && json_is_number(json_object_get(b, "value"))) {
        r->has_base = 1;
        r->base_value = num_or(b, "value", 0);
        r->base_seconds = num_or(b, "seconds", 0);
        r->ratio = num_or(b, "ratio", r->base_value > 0 ? r->value / r->base_value : 0);
    }
    return 1;
}

/* The baseline of a run: bench-1 names it as a string, bench-2 as {"name": ..., "missing": ...}. */
static const char *baseline_of(json_t *doc)
{
    json_t *b = json_object_get(doc, "baseline");
    return json_is_object(b) ? str_or(b, "name", NULL) : json_is_string(b) ? json_string_value(b) : NULL;
}

/* Loads one file; on failure prints why (file, line and column for bad JSON) and returns 0. */
static int load_file(report *rep, const char *path)
{
    json_error_t err;
    FILE *fp = fopen(path, "rb");
    struct stat st;
    if (!fp || fstat(fileno(fp), &st) != 0) {
        fprintf(stderr, "clforge report: cannot read %s: %s\n", path, strerror(errno));
        if (fp) fclose(fp);
        return 0;
    }
    if (S_ISDIR(st.st_mode)) {   /* fopen succeeds on a directory; reading it fails as "malformed JSON" */
        fprintf(stderr, "clforge report: cannot read %s: it is a directory, not a bench result file\n", path);
        fclose(fp);
        return 0;
    }
    json_t *doc = json_loadf(fp, 0, &err);
    fclose(fp);
    if (!doc) {
        if (err.line < 0) fprintf(stderr, "clforge report: cannot read %s: %s\n", path, err.text);
        else fprintf(stderr, "clforge report: %s:%d:%d: malformed JSON: %s\n", path, err.line, err.column, err.text);
        return 0;
    }
    json_t *devices = json_object_get(doc, "devices");
    const char *format = json_is_object(doc) ? str_or(doc, "format", "") : "";
    if ((strcmp(format, "clforge-bench-1") != 0 && strcmp(format, "clforge-bench/2") != 0) || !json_is_array(devices)) {
        fprintf(stderr, "clforge report: %s: not a clforge bench result (expected \"format\": \"clforge-bench/2\" "
                        "or \"clforge-bench-1\" and a \"devices\" array)\n", path);
        json_decref(doc);
        return 0;
    }
    if (rep->ndocs == sizeof rep->docs / sizeof rep->docs[0]) {
        fprintf(stderr, "clforge report: too many files (at most 64)\n");
        json_decref(doc);
        return 0;
    }
    rep->docs[rep->ndocs] = doc;
    rep->files[rep->ndocs++] = path;
    size_t i;
    json_t *dj;
    json_array_foreach(devices, i, dj) {
        json_t *info = json_object_get(dj, "device"), *roof = json_object_get(dj, "roofline");
        json_t *res = json_object_get(dj, "results");
        if (!json_is_object(info) || !json_is_object(roof) || !json_is_array(res) || !str_or(info, "name", NULL)) {
            fprintf(stderr, "clforge report: %s: device %zu lacks \"device\", \"roofline\" or \"results\"\n", path, i);
            return 0;
        }
        if (rep->ndevs == MAX_DEVICES) {
            fprintf(stderr, "clforge report: too many devices (at most %d)\n", MAX_DEVICES);
            return 0;
        }
        cli_rep_device *d = &rep->devs[rep->ndevs];
        memset(d, 0, sizeof *d);
        d->name = str_or(info, "name", "?");
        d->platform = str_or(info, "platform", "?");
        d->driver = str_or(info, "driver", "?");
        d->type = str_or(info, "type", "?");
        d->id = str_or(info, "id", "?");
        d->file = path;
        d->date = str_or(doc, "date", "?");
        d->baseline = baseline_of(doc);
        int v2 = !strcmp(format, "clforge-bench/2");
        d->copy_gbs = rate_or(roof, v2 ? "copy" : "copy_gbs", 0);
        d->triad_gbs = rate_or(roof, v2 ? "triad" : "triad_gbs", 0);
        d->fp32_gflops = rate_or(roof, v2 ? "fp32" : "fp32_gflops", 0);
        d->fp64_gflops = rate_or(roof, v2 ? "fp64" : "fp64_gflops", 0);
        d->fp32_theoretical = rate_or(roof, "fp32_theoretical", 0);
        d->fp64_theoretical = rate_or(roof, "fp64_theoretical", 0);
        d->loaded = json_is_true(json_object_get(dj, "loaded"));
        d->index = (int)rep->ndevs + 1;
        d->results = calloc(json_array_size(res) + 1, sizeof *d->results);
        if (!d->results) { fprintf(stderr, "clforge report: out of memory\n"); return 0; }
        rep->ndevs++;
        size_t k;
        json_t *rj;
        json_array_foreach(res, k, rj) {
            if (!parse_result(rj, &d->results[d->count])) {
                fprintf(stderr, "clforge report: %s: device %zu, result %zu lacks workload, group, label or value\n",
                        path, i, k);
                return 0;
            }
            d->count++;
        }
    }
    return 1;
}

/* Text from input as Markdown (table cells and headings alike): no HTML, no emphasis, links or code spans,
 * no new rows; bytes that are not UTF-8 and control characters become U+FFFD, line breaks spaces. */
static void md_escape(FILE *f, const char *s)
{
    while (s && *s) {
        long cp;
        int n = cli_rep_utf8_next(s, &cp);
        if (cp == '\n' || cp == '\r' || cp == '\t') fputc(' ', f);
        else if (!cli_rep_xml_char(cp) || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) fputs("\xEF\xBF\xBD", f);
        else if (cp == '<') fputs("&lt;", f);   /* renderers take <...> for HTML and & for entities */
        else if (cp == '>') fputs("&gt;", f);
        else if (cp == '&') fputs("&amp;", f);
        else {
            if (cp < 0x80 && strchr("|*_\\`[]~#!", (int)cp)) fputc('\\', f);
            fwrite(s, 1, (size_t)n, f);
        }
        s += n;
    }
}

static const cli_rep_result *find(const cli_rep_device *d, const char *group, const char *label)
{
    for (size_t i = 0; i < d->count; i++)
        if (!strcmp(d->results[i].group, group) && !strcmp(d->results[i].label, label)) return &d->results[i];
    return NULL;
}

/* A figure: the rate in a unit that scales, its spread over the repeats, the fraction of the device's roof
 * ("roof n/a" when none is known, "<1%" when it rounds to nothing) and the ratio to the baseline; "*" when other
 * processes were busy while it ran. */
static void md_cell(FILE *f, const cli_rep_result *r)
{
    char rate[48], frac[24] = "roof n/a";
    cli_rep_rate(rate, sizeof rate, r->value, r->unit);
    fputc(' ', f);
    md_escape(f, rate);   /* the unit is input text */
    if (r->has_spread && r->value > 0) fprintf(f, " ±%.0f%%", 50 * (r->value_max - r->value_min) / r->value);
    if (r->has_fraction) {
        if (100 * r->fraction < 0.5) snprintf(frac, sizeof frac, "<1%%");
        else snprintf(frac, sizeof frac, "%.0f%%", 100 * r->fraction);
    }
    fprintf(f, " (%s", frac);
    if (r->has_base) fprintf(f, ", %.2f×", r->ratio);
    fputs(r->loaded ? ") \\* |" : ") |", f);
}

/* One table: a row per label (in first-seen order), a column per device; each cell holds the figure, the
 * fraction of that device's roofline and the ratio to the baseline. */
static int md_table(FILE *f, const report *rep, const char *group, const char *title)
{
    const char **labels = NULL;
    size_t nl = 0, cap = 0;
    const char *unit = "";
    for (size_t d = 0; d < rep->ndevs; d++)
        for (size_t i = 0; i < rep->devs[d].count; i++) {
            const cli_rep_result *r = &rep->devs[d].results[i];
            if (strcmp(r->group, group)) continue;
            size_t j;
            for (j = 0; j < nl && strcmp(labels[j], r->label); j++) {}
            if (j == nl) {
                if (nl == cap) {   /* every row is written: the table grows, never stops short */
                    const char **t = realloc(labels, (cap = cap ? 2 * cap : 64) * sizeof *labels);
                    if (!t) { free(labels); fprintf(stderr, "clforge report: out of memory\n"); return 0; }
                    labels = t;
                }
                labels[nl++] = r->label;
            }
            if (!r->error || !*unit) unit = r->unit;
        }
    if (!nl) return 1;
    (void)unit;   /* each cell carries its unit, scaled to the figure */
    fprintf(f, "\n## %s\n\n| %s |", title, !strcmp(group, "map") || !strcmp(group, "copy") ? "workload" : "m×n×k");
    for (size_t d = 0; d < rep->ndevs; d++) {
        const cli_rep_device *v = &rep->devs[d];
        fprintf(f, " %d. ", v->index);   /* as cli_rep_device_label, with no cap on the name's length */
        md_escape(f, v->name);
        if (v->same_name) {
            fputs(" (run ", f);
            md_escape(f, v->date);
            fputc(')', f);
        }
        fputs(" |", f);
    }
    fputs("\n|---|", f);
    for (size_t d = 0; d < rep->ndevs; d++) fputs("---:|", f);
    fputc('\n', f);
    for (size_t l = 0; l < nl; l++) {
        fputs("| ", f);
        md_escape(f, labels[l]);
        fputs(" |", f);
        for (size_t d = 0; d < rep->ndevs; d++) {
            const cli_rep_result *r = find(&rep->devs[d], group, labels[l]);
            if (!r) fputs(" – |", f);
            else if (r->error) fputs(" failed |", f);
            else md_cell(f, r);
        }
        fputc('\n', f);
    }
    free(labels);
    return 1;
}

static int known_group(const char *g)
{
    return !strcmp(g, "square") || !strcmp(g, "shape") || !strcmp(g, "dsquare") || !strcmp(g, "map") ||
           !strcmp(g, "copy");
}

/* Results of groups this clforge has no table for are listed, not dropped without a word. */
static void other_groups(FILE *f, const report *rep)
{
    size_t n = 0;
    for (size_t d = 0; d < rep->ndevs; d++)
        for (size_t i = 0; i < rep->devs[d].count; i++) {
            const cli_rep_result *r = &rep->devs[d].results[i];
            if (known_group(r->group)) continue;
            if (!n++) fputs("\n## Other results\n\n| device | group | label | figure |\n|---|---|---|---:|\n", f);
            fprintf(f, "| %zu | ", d + 1);
            md_escape(f, r->group);
            fputs(" | ", f);
            md_escape(f, r->label);
            if (r->error) fputs(" | failed |\n", f);
            else {
                char rate[48];
                cli_rep_rate(rate, sizeof rate, r->value, r->unit);
                fputs(" | ", f);
                md_escape(f, rate);
                fputs(" |\n", f);
            }
        }
}

/* mkdir -p; 1 on success (also when it exists). dir is non-empty and shorter than PATH_MAX (checked by
 * the caller). */
static int mkdir_p(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (char *c = p + 1; *c; c++) {
        if (*c != '/') continue;
        *c = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) return 0;
        *c = '/';
    }
    struct stat st;
    if (mkdir(p, 0755) != 0 && errno != EEXIST) return 0;
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) { errno = ENOTDIR; return 0; }
    return 1;
}

static FILE *open_out(const char *dir, const char *name, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", dir, name);   /* fits: dir is shorter than PATH_MAX, names are short */
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "clforge report: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

static int close_out(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "clforge report: writing %s failed\n", path);
        return 0;
    }
    return 1;
}

/* How busy other processes kept the machine during a run (clforge-bench/2 records it; older files do not). */
static void load_cell(FILE *md, json_t *load)
{
    if (!json_is_object(load)) {
        fputs("not recorded", md);
        return;
    }
    double others = num_or(load, "others_during", -1), before = num_or(load, "others_before", -1);
    double worst = fmax(others, before);
    int cores = (int)num_or(load, "cores", 0);
    if (json_is_true(json_object_get(load, "loaded")))
        fprintf(md, "busy: others used up to %.1f of %d cores", worst, cores);
    else if (worst >= 0)
        fprintf(md, "quiet (others: %.1f of %d cores)", worst, cores);
    else
        fputs("unknown", md);
}

/* A measured peak, with the theoretical one beside it when the file has both and they differ by more than
 * 25% (a measurement that missed the vector units, or a clock below its nominal). */
static void peak_cell(FILE *md, double measured, double theory)
{
    char a[48], b[48];
    if (!(measured > 0)) {
        fputs("–", md);
        return;
    }
    cli_rep_rate(a, sizeof a, measured, "GFLOP/s");
    fputs(a, md);
    if (theory > 0 && fabs(measured - theory) > 0.25 * theory) {
        cli_rep_rate(b, sizeof b, theory, "GFLOP/s");
        fprintf(md, " measured, %s theoretical", b);
    }
}

static void device_row(FILE *md, const cli_rep_device *v)
{
    char copy[48], triad[48];
    fprintf(md, "| %d | ", v->index);
    md_escape(md, v->name);
    fputs(" | ", md);
    md_escape(md, v->platform);
    fputs(" | ", md);
    md_escape(md, v->driver);
    fputs(" | ", md);
    md_escape(md, v->type);
    cli_rep_rate(copy, sizeof copy, v->copy_gbs, "GB/s");
    cli_rep_rate(triad, sizeof triad, v->triad_gbs, "GB/s");
    fprintf(md, " | %s | %s | ", copy, triad);
    peak_cell(md, v->fp32_gflops, v->fp32_theoretical);
    fputs(" | ", md);
    peak_cell(md, v->fp64_gflops, v->fp64_theoretical);
    fputs(" | ", md);
    md_escape(md, v->date);
    fputs(v->loaded ? " (busy machine) |\n" : " |\n", md);
}

static int write_report(const report *rep, const char *dir, int quiet)
{
    char path[PATH_MAX + 64], name[64];
    FILE *md = open_out(dir, "README.md", path, sizeof path);
    if (!md) return 0;
    char mdpath[PATH_MAX + 64];
    snprintf(mdpath, sizeof mdpath, "%s", path);
    const char *base = NULL;
    for (size_t d = 0; d < rep->ndevs && !base; d++) base = rep->devs[d].baseline;
    fprintf(md, "# clforge benchmark report\n\nFrom %zu result file%s, made with `clforge bench` and rendered by "
                "clforge %s. Each cell: the figure, its spread over the repeats (± half the distance between the "
                "slowest and the fastest, where the file has it), in parentheses the fraction of that device's "
                "measured roofline (roof n/a: no roof is measured for that unit)",
            rep->ndocs, rep->ndocs == 1 ? "" : "s", clf_version());
    if (base) {
        fputs(" and the ratio to ", md);
        md_escape(md, base);
        fputs(" on the same device in the same run (> 1: clforge faster; absent: no such routine there)", md);
    }
    fputs(". A \\* marks a figure measured while other processes kept the CPU busy: not to be trusted. See "
          "docs/bench.md for how each figure is measured.\n\n## Devices\n\n"
          "| # | device | platform | driver | type | copy | triad | fp32 peak | fp64 peak | run |\n"
          "|---|---|---|---|---|---:|---:|---:|---:|---|\n", md);
    for (size_t d = 0; d < rep->ndevs; d++) device_row(md, &rep->devs[d]);
    int ok = md_table(md, rep, "square", "SGEMM, square matrices") &&
             md_table(md, rep, "shape", "SGEMM, non-square and irregular shapes") &&
             md_table(md, rep, "dsquare", "DGEMM, square matrices") &&
             md_table(md, rep, "map", "Fused elementwise maps (fp32)") && md_table(md, rep, "copy", "Copies");
    other_groups(md, rep);

    /* Where each figure came from: the file, the command, the clforge that ran it, when. */
    fputs("\n## Runs\n\n| file | command | clforge | date | host | quick | machine load |\n"
          "|---|---|---|---|---|---|---|\n", md);
    for (size_t i = 0; i < rep->ndocs; i++) {
        const char *slash = strrchr(rep->files[i], '/');
        json_t *doc = rep->docs[i];
        fputs("| ", md);
        md_escape(md, slash ? slash + 1 : rep->files[i]);
        fputs(" | ", md);
        md_escape(md, str_or(doc, "command", "?"));
        fputs(" | ", md);
        md_escape(md, str_or(doc, "clforge_version", "?"));
        fputs(" | ", md);
        md_escape(md, str_or(doc, "date", "?"));
        fputs(" | ", md);
        md_escape(md, str_or(doc, "host", "?"));
        fprintf(md, " | %s | ", json_is_true(json_object_get(doc, "quick")) ? "yes" : "no");
        load_cell(md, json_object_get(doc, "load"));
        fputs(" |\n", md);
    }

    fputs("\n## Charts\n", md);
    static const char *const gemms[] = {"sgemm", "dgemm"};
    for (int g = 0; g < 2 && ok; g++) {
        snprintf(name, sizeof name, "%s.svg", gemms[g]);
        FILE *f = open_out(dir, name, path, sizeof path);
        if (!f) { ok = 0; break; }
        int lines = cli_rep_svg_gemm(f, rep->devs, rep->ndevs, gemms[g]);
        ok = close_out(f, path);
        if (lines) fprintf(md, "\n![%s throughput against size](%s)\n", gemms[g], name);
        else remove(path);
    }
    for (size_t d = 0; d < rep->ndevs && ok; d++) {
        snprintf(name, sizeof name, "roofline-%zu.svg", d + 1);
        FILE *f = open_out(dir, name, path, sizeof path);
        if (!f) { ok = 0; break; }
        cli_rep_svg_roofline(f, &rep->devs[d]);
        ok = close_out(f, path);
        fprintf(md, "\n![roofline of device %zu](%s)\n", d + 1, name);
    }
    ok = close_out(md, mdpath) && ok;
    if (ok && !quiet) printf("%s\n", mdpath);
    return ok;
}

int cli_cmd_report(int argc, char **argv)
{
    const char *dir = NULL;
    static report rep;
    memset(&rep, 0, sizeof rep);
    int nfiles = 0, quiet = 0;
    for (int i = 1; i < argc; i++) {
        int r;
        if ((r = cli_opt("report", argc, argv, &i, "-o", &dir)) || (r = cli_opt("report", argc, argv, &i, "--output", &dir))) {
            if (r < 0) return 2;
        } else if ((r = cli_flag("report", argv[i], "--quiet"))) {
            if (r < 0) return 2;
            quiet = 1;
        }
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { report_usage(stdout); return 0; }
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "clforge report: unknown or incomplete option '%s'\n", argv[i]);
            report_usage(stderr);
            return 2;
        } else nfiles++;
    }
    if (!dir || !nfiles) {
        fprintf(stderr, "clforge report: %s\n", !dir ? "-o DIR is required" : "no result files given");
        report_usage(stderr);
        return 2;
    }
    if (!*dir || strlen(dir) >= PATH_MAX - 64) {
        fprintf(stderr, "clforge report: -o needs a directory name %s\n",
                *dir ? "shorter than PATH_MAX" : "(got \"\")");
        report_usage(stderr);
        return 2;
    }
    int ok = 1;
    for (int i = 1; i < argc && ok; i++) {
        if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) { i++; continue; }
        if (argv[i][0] == '-' && argv[i][1]) continue;   /* -o=DIR, --output=DIR, --quiet */
        ok = load_file(&rep, argv[i]);
    }
    for (size_t a = 0; a < rep.ndevs; a++)
        for (size_t b = 0; b < rep.ndevs; b++)
            if (a != b && !strcmp(rep.devs[a].name, rep.devs[b].name)) rep.devs[a].same_name = 1;
    if (ok && rep.ndevs == 0) {
        fprintf(stderr, "clforge report: the files hold no devices\n");
        ok = 0;
    }
    if (ok && !mkdir_p(dir)) {
        fprintf(stderr, "clforge report: cannot create %s: %s\n", dir, strerror(errno));
        ok = 0;
    }
    if (ok) ok = write_report(&rep, dir, quiet);
    for (size_t d = 0; d < rep.ndevs; d++) free(rep.devs[d].results);
    for (size_t i = 0; i < rep.ndocs; i++) json_decref(rep.docs[i]);
    return ok ? 0 : 1;
}
