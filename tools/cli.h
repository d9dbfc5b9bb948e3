/* cli.h — the subcommands of the clforge program; each returns the process exit code
 * (0 ok, 1 runtime failure, 2 usage error). argv[0] is the subcommand name. */
#ifndef CLFORGE_CLI_H
#define CLFORGE_CLI_H

#include <jansson.h>

#include "clforge/clforge.h"

int cli_cmd_devices(int argc, char **argv);  /* tools/cmd_devices.c */
int cli_cmd_tune(int argc, char **argv);     /* tools/cmd_tune.c */
int cli_cmd_bench(int argc, char **argv);    /* tools/cmd_bench.c */
int cli_cmd_report(int argc, char **argv);   /* tools/cmd_report.c */
int cli_cmd_warmup(int argc, char **argv);   /* tools/cmd_warmup.c */

/* Checks, before any work starts, that `path` can be written as an output file (its directory exists and
 * is writable; path itself is not a directory); else prints "clforge CMD: ..." and returns 0. Creates
 * nothing. (tools/main.c) */
int cli_output_ok(const char *cmd, const char *path);

/* Option matching (tools/cli_args.c). cli_opt: argv[*i] is option `name` with a value, given as "--name VALUE"
 * (then *i steps past the value) or "--name=VALUE": returns 1 and sets *val; 0 when argv[*i] is not that option;
 * -1 (message printed) when the value is missing. cli_flag: 1 when arg is the flag, 0 when not, -1 (message
 * printed) for "--flag=..." (flags take no value). */
int cli_opt(const char *cmd, int argc, char **argv, int *i, const char *name, const char **val);
int cli_flag(const char *cmd, const char *arg, const char *name);

/* JSON shared by the outputs (tools/cli_json.c): a device object, a rate {"value", "unit"}, and the writer
 * (path "-": stdout) that prints "clforge CMD: cannot write ..." and returns 1 on failure, else 0. */
json_t *cli_device_json(const clf_device_info *d);
json_t *cli_rate_json(double value, const char *unit);
int cli_json_write(const char *cmd, const char *path, json_t *root);

#endif
