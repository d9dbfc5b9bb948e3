/* main.c — the clforge command-line program: parses the subcommand and hands over to tools/cmd_*.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "clforge/clforge.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: clforge <command> [options]\n"
            "\n"
            "commands:\n"
            "  devices [--json]                         list OpenCL platforms and devices, their keys and ids\n"
            "  tune [--device SEL] [--family LIST] [--budget S] [--exhaustive] [--json FILE]\n"
            "                                           autotune kernel families for a device\n"
            "  bench [--device SEL | --all] [--quick] [--json FILE]\n"
            "                                           calibrate the roofline and benchmark every kernel\n"
            "  report FILE.json... -o DIR               render bench results into Markdown + SVG charts\n"
            "  warmup [--device SEL] [--family LIST] [--quiet]  compile the configured kernels into the disk cache\n"
            "\n"
            "options:\n"
            "  -h, --help       this help\n"
            "  -V, --version    print the version\n"
            "\n"
            "environment: CLFORGE_DEVICE (P:D, gpu, cpu or part of a name), CLFORGE_CACHE_DIR,\n"
            "CLFORGE_TUNING=off, CLFORGE_PROFILE=1, CLFORGE_KERNEL_DIR.\n"
            "exit codes: 0 ok, 1 runtime failure, 2 usage error.\n");
}

int cli_output_ok(const char *cmd, const char *path)
{
    if (!*path) {
        fprintf(stderr, "clforge %s: the output file name is empty\n", cmd);
        return 0;
    }
    if (strcmp(path, "-") == 0) return 1;   /* stdout */
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fprintf(stderr, "clforge %s: cannot write %s: it is a directory\n", cmd, path);
            return 0;
        }
        if (access(path, W_OK) != 0) {
            fprintf(stderr, "clforge %s: cannot write %s: %s\n", cmd, path, strerror(errno));
            return 0;
        }
        return 1;
    }
    char *dir = strdup(path);
    if (!dir) return 1;   /* the write itself will report */
    char *slash = strrchr(dir, '/');
    const char *d = slash ? (slash == dir ? "/" : (*slash = '\0', dir)) : ".";
    int ok = access(d, W_OK | X_OK) == 0;
    if (!ok) fprintf(stderr, "clforge %s: cannot write %s: directory %s: %s\n", cmd, path, d, strerror(errno));
    free(dir);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2) { usage(stderr); return 2; }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) { usage(stdout); return 0; }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("clforge %s\n", clf_version());
        return 0;
    }
    if (strcmp(cmd, "devices") == 0) return cli_cmd_devices(argc - 1, argv + 1);
    if (strcmp(cmd, "tune") == 0) return cli_cmd_tune(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0) return cli_cmd_bench(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0) return cli_cmd_report(argc - 1, argv + 1);
    if (strcmp(cmd, "warmup") == 0) return cli_cmd_warmup(argc - 1, argv + 1);
    fprintf(stderr, "clforge: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return 2;
}
