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
            "  devices [--json] [--quiet]               list OpenCL platforms and devices, their keys and ids\n"
            "  tune [--device SEL] [--family LIST] [--budget S] [--json FILE] [--quiet] ...\n"
            "                                           autotune kernel families for a device\n"
            "  bench [--device SEL | --all] [--quick] [--only LIST] [--json FILE] [--quiet]\n"
            "                                           calibrate the roofline and benchmark every kernel\n"
            "  report FILE.json... -o DIR               render bench results into Markdown + SVG charts\n"
            "  warmup [--device SEL] [--family LIST] [--quiet]  compile the configured kernels into the disk cache\n"
            "\n"
            "`clforge COMMAND --help` lists all of a command's options. A value follows its option or an '='\n"
            "(--budget 30, --budget=30); --json - writes the JSON to stdout.\n"
            "\n"
            "options:\n"
            "  -h, --help       this help\n"
            "  -V, --version    print the version\n"
            "\n"
            "environment (docs/cli.md):\n"
            "  CLFORGE_DEVICE            the device: \"P:D\", gpu, cpu, or part of one device's name\n"
            "  CLFORGE_CACHE_DIR         program cache and tuning database (default: $XDG_CACHE_HOME/clforge,\n"
            "                            else ~/.cache/clforge)\n"
            "  CLFORGE_TUNING=off        ignore tuning results; CLFORGE_SHIPPED=off: ignore the shipped ones\n"
            "  CLFORGE_<FAMILY>_CONFIG   force a family's configuration, e.g. CLFORGE_GEMM_CONFIG (and CLFORGE_GEMV_CONFIG)\n"
            "  CLFORGE_PROFILE=1         print a per-kernel profile when a context is destroyed\n"
            "  CLFORGE_KERNEL_DIR        read the OpenCL C sources from this folder, not the built-in copies\n"
            "  CLFORGE_BUILD_WARNINGS=1  let the OpenCL compiler print its warnings\n"
            "  CLFORGE_BUILD_LOG=1       print every program build's log (warnings included) on stderr\n"
            "  CLFORGE_BUILD_OPTIONS=... extra compiler options for every build (e.g. -cl-nv-verbose); no disk cache\n"
            "  CLFORGE_MMA=off           keep GEMM off matrix units; CLFORGE_MMA_SELFTEST=fail fails their self-test\n"
            "  CLFORGE_WGMMA=off         matrix units on mma.sync, not Hopper's wgmma\n"
            "  CLFORGE_GEMM_MMA_MN=pack  matrix units: pack f16/bf16 operands stored K-major, never read them in place\n"
            "  CLFORGE_GEMM_MMA_TILES=entry  matrix units: keep the entry's tiles, never smaller ones chosen for the shape\n"
            "  CLFORGE_GEMM_MMA_GATHER=pack|always  matrix units: pack operands whose rows are not 16-byte aligned / gather\n"
            "                     them in the kernel whatever the product's size (default: gather in small products)\n"
            "  CLFORGE_GEMM_CPU_PACK=0|1|2|3 CPU GEMM: 1 packs A and B into panels, 0 reads them in place, 2 packs\n"
            "                            A and the kernel copies B, 3 packs B and the kernel copies A\n"
            "  CLFORGE_GEMM_SPLIT_K=N    split GEMM's K into N slices (1: never)\n"
            "  CLFORGE_GEMM_FILL=off     keep a GEMM bucket's tiles however poorly they fill the compute units\n"
            "  CLFORGE_GEMM_TILES=bucket keep a GEMM bucket's tiles (single products and batches)\n"
            "  CLFORGE_GEMM_FEW_TILES_SLICES=off  few-row GEMM of few tiles: K slices of 1024 or more\n"
            "  CLFORGE_GEMM_SMALL_SPLIT=off  GEMM of a few dozen small tiles: K whole\n"
            "  CLFORGE_GEMM_MEDIUM_SPLIT=off  medium GEMM of few tiles, long K: K slices of 1024 or more\n"
            "  CLFORGE_GEMM_SPLIT_SUM=fused  split GEMM slices summed in their launch (launch: a reduction)\n"
            "  CLFORGE_GEMM_SPLIT_RULE=off  3xTF32/3xF16 on every shape (default: small ones run as exact fp32)\n"
            "  CLFORGE_GEMM_NT_PACK=0|1  A B^T: 0 reads B in place where aligned, 1 packs it first (default: GPUs pack)\n"
            "  CLFORGE_GEMM_PACK=off|edges|always  operands off the tile grid: direct kernel, in place with edge\n"
            "                            checks, or packed (default: GPUs read batches with edge checks)\n"
            "  CLFORGE_GEMM_DIRECT_LAYOUT=0|1|auto  direct GEMM kernel: K-contiguous operands loaded in runs along K\n"
            "                            into padded local rows: where the plain store conflicts 8-way (auto), all, none\n"
            "  CLFORGE_EPILOGUE_STORE=unrolled|rolled|staged  GEMM epilogues: unrolled over the registers, in a loop\n"
            "                            over their rows, or through local memory (default: by the program)\n"
            "  CLFORGE_EPILOGUE_UNROLL=N units (VWN elements each) per step of the staged epilogue's loop (1 to 16)\n"
            "  CLFORGE_GEMM_WG_PER_CU=N  GEMM work-groups resident per compute unit (else measured by the tuner)\n"
            "  CLFORGE_REDUCE_SPLIT=on|off  softmax-like reductions: split every line longer than a work-group's chunk\n"
            "                            across groups (any device) / never (default: lines of 3 chunks on NVIDIA GPUs)\n"
            "  CLFORGE_REDUCE_SPLIT_BLOCK=N  split reductions: chunks a block (default: 2 per compute unit)\n"
            "  CLFORGE_REDUCE_FRAME=off  row reductions: lines off a vector boundary one element a load\n"
            "  CLFORGE_TUNE_THREADS=N    the tuner's builder threads; CLFORGE_TUNE_TRACE=FILE logs every evaluation\n"
            "  CLFORGE_STAGING_THRESHOLD=BYTES, CLFORGE_STAGING_CHUNK=BYTES, CLFORGE_STAGING_THREADS=N\n"
            "                            blocking transfers to a device with memory of its own: staged from this\n"
            "                            size on (default 8 MiB), in chunks of this size (8 MiB), by N threads\n"
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
