/* cli.h — the subcommands of the clforge program; each returns the process exit code
 * (0 ok, 1 runtime failure, 2 usage error). argv[0] is the subcommand name. */
#ifndef CLFORGE_CLI_H
#define CLFORGE_CLI_H

int cli_cmd_devices(int argc, char **argv);  /* tools/cmd_devices.c */
int cli_cmd_tune(int argc, char **argv);     /* tools/cmd_tune.c */
int cli_cmd_bench(int argc, char **argv);    /* tools/cmd_bench.c */
int cli_cmd_report(int argc, char **argv);   /* tools/cmd_report.c */

/* Checks, before any work starts, that `path` can be written as an output file (its directory exists and
 * is writable; path itself is not a directory); else prints "clforge CMD: ..." and returns 0. Creates
 * nothing. (tools/main.c) */
int cli_output_ok(const char *cmd, const char *path);

#endif
