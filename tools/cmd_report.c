/* cmd_report.c — `clforge report FILE.json... -o DIR`: a Markdown page and SVG charts from bench JSON. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "clforge/clforge.h"
#include "cli.h"

static void report_usage(FILE *f)
{
    fprintf(f, "usage: clforge report FILE.json... -o DIR\n");
}

int clf_cmd_report(int argc, char **argv)
{
    const char *dir = NULL;
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) dir = argv[++i];
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { report_usage(stdout); return 0; }
        else if (argv[i][0] == '-') { fprintf(stderr, "clforge report: unknown option '%s'\n", argv[i]); return 2; }
        else nfiles++;
    }
    if (!dir || !nfiles) { report_usage(stderr); return 2; }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o")) { i++; continue; }
        json_error_t err;
        json_t *root = json_load_file(argv[i], 0, &err);
        if (!root) {
            fprintf(stderr, "clforge report: %s:%d:%d: %s\n", argv[i], err.line, err.column, err.text);
            return 1;
        }
        json_decref(root);
    }
    fprintf(stderr, "clforge report: not available in this build yet\n");
    return 1;
}
