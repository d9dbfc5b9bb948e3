/* cmd_bench.c — `clforge bench`: calibrates the roofline, then times GEMM, maps and copies. */
#include <stdio.h>
#include <string.h>

#include "clforge/clforge.h"
#include "cli.h"

static void bench_usage(FILE *f)
{
    fprintf(f, "usage: clforge bench [--device SEL | --all] [--quick] [--json FILE]\n");
}

int clf_cmd_bench(int argc, char **argv)
{
    const char *device = NULL, *json = NULL;
    int all = 0, quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(argv[i], "--all")) all = 1;
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { bench_usage(stdout); return 0; }
        else { fprintf(stderr, "clforge bench: unknown argument '%s'\n", argv[i]); bench_usage(stderr); return 2; }
    }
    if (device && all) { fprintf(stderr, "clforge bench: --device and --all exclude each other\n"); return 2; }
    (void)quick; (void)json;
    fprintf(stderr, "clforge bench: not available in this build yet\n");
    return 1;
}
