/* cli_json.c — what the JSON outputs of devices, tune and bench share: the device object and the writer
 * ("-" is stdout). The schemas are docs/schema/ (one file per output), described in docs/json-schema.md. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "internal.h"

json_t *cli_device_json(const clf_device_info *d)
{
    char idx[32];
    snprintf(idx, sizeof idx, "%d:%d", d->platform_index, d->device_index);
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:b, s:b, "
                     "s:s, s:s}",
                     "index", idx, "name", d->name, "vendor", d->vendor, "platform", d->platform, "platform_vendor",
                     d->platform_vendor, "type", clf__device_type_name(d->type), "version", d->version, "driver",
                     d->driver, "opencl_c", d->opencl_c, "compute_units", (json_int_t)d->compute_units, "clock_mhz",
                     (json_int_t)d->clock_mhz, "global_mem_bytes", (json_int_t)d->global_mem, "local_mem_bytes",
                     (json_int_t)d->local_mem, "max_alloc_bytes", (json_int_t)d->max_alloc, "max_work_group",
                     (json_int_t)d->max_work_group, "fp64", d->fp64, "fp16", d->fp16, "subgroups", d->subgroups,
                     "key", d->key, "id", d->id);
}

json_t *cli_rate_json(double value, const char *unit)
{
    return json_pack("{s:f, s:s}", "value", value, "unit", unit);
}

int cli_json_write(const char *cmd, const char *path, json_t *root)
{
    int to_stdout = strcmp(path, "-") == 0;
    FILE *fp = !root ? NULL : to_stdout ? stdout : fopen(path, "w");
    int e = fp ? 0 : root ? errno : ENOMEM;
    if (fp) {
        errno = 0;
        if (json_dumpf(root, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(7)) != 0 || fputc('\n', fp) == EOF ||
            fflush(fp) != 0)
            e = errno ? errno : EIO;
        if (!to_stdout && fclose(fp) != 0 && !e)
            e = errno;
    }
    if (e) {
        fprintf(stderr, "clforge %s: cannot write %s: %s\n", cmd, to_stdout ? "JSON to stdout" : path, strerror(e));
        return 1;
    }
    return 0;
}
