/* cli_args.c — option matching shared by the subcommands: "--name VALUE" and "--name=VALUE" alike. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_opt(const char *cmd, int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n] != '\0') return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "clforge %s: %s needs a value\n", cmd, name);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

int cli_flag(const char *cmd, const char *arg, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0) return 0;
    if (arg[n] == '\0') return 1;
    if (arg[n] != '=') return 0;
    fprintf(stderr, "clforge %s: %s takes no value (got '%s')\n", cmd, name, arg);
    return -1;
}
