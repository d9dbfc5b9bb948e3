/* cmd_devices.c — `clforge devices [--json]`: every platform and device, with the identity that caches
 * and tuning results are keyed by. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clforge/clforge.h"

static const char *type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    return "other";
}

static json_t *device_json(const clf_device_info *d)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:b, s:b, s:b, s:s, s:s, s:b}",
                     "index", "", "name", d->name, "vendor", d->vendor, "platform", d->platform, "type", type_name(d->type),
                     "version", d->version, "driver", d->driver, "opencl_c", d->opencl_c, "platform_index",
                     d->platform_index, "device_index", d->device_index, "compute_units", (int)d->compute_units,
                     "clock_mhz", (json_int_t)d->clock_mhz, "global_mem", (json_int_t)d->global_mem, "local_mem",
                     (json_int_t)d->local_mem, "max_work_group", (json_int_t)d->max_work_group, "fp64", d->fp64,
                     "fp16", d->fp16, "subgroups", d->subgroups, "key", d->key, "id", d->id, "default", d->is_default);
}

int cli_cmd_devices(int argc, char **argv)
{
    int as_json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) as_json = 1;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: clforge devices [--json]\n");
            return 0;
        } else {
            fprintf(stderr, "clforge devices: unknown option '%s'\nusage: clforge devices [--json]\n", argv[i]);
            return 2;
        }
    }
    size_t count = 0;
    clf_status s = clf_device_list(NULL, 0, &count);
    clf_device_info *devs = NULL;
    if (s == CLF_SUCCESS) {
        devs = calloc(count, sizeof *devs);
        if (!devs) { fprintf(stderr, "clforge devices: out of memory\n"); return 1; }
        s = clf_device_list(devs, count, &count);
    }
    if (s != CLF_SUCCESS) {
        fprintf(stderr, "clforge devices: %s: %s\n", clf_status_name(s), clf_last_error());
        free(devs);
        return 1;
    }
    if (as_json) {
        json_t *arr = json_array();
        for (size_t i = 0; i < count; i++) {
            json_t *o = device_json(&devs[i]);
            char idx[32];
            snprintf(idx, sizeof idx, "%d:%d", devs[i].platform_index, devs[i].device_index);
            json_object_set_new(o, "index", json_string(idx));
            json_array_append_new(arr, o);
        }
        json_t *root = json_pack("{s:s, s:o}", "clforge_version", clf_version(), "devices", arr);
        json_dumpf(root, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(root);
    } else {
        int last_platform = -1;
        for (size_t i = 0; i < count; i++) {
            const clf_device_info *d = &devs[i];
            if (d->platform_index != last_platform) {
                printf("platform %d: %s (%s)\n", d->platform_index, d->platform, d->platform_vendor);
                last_platform = d->platform_index;
            }
            printf("  %d:%d  %s%s\n", d->platform_index, d->device_index, d->name, d->is_default ? "  [default]" : "");
            printf("       vendor %s, %s, %u compute units, %u MHz\n", d->vendor, type_name(d->type),
                   (unsigned)d->compute_units, (unsigned)d->clock_mhz);
            printf("       global memory %.1f GiB, local memory %.0f KiB, max work-group %zu\n",
                   (double)d->global_mem / (1 << 30), (double)d->local_mem / 1024, d->max_work_group);
            printf("       %s; %s; driver %s\n", d->version, d->opencl_c, d->driver);
            printf("       fp64 %s, fp16 %s, subgroups %s\n", d->fp64 ? "yes" : "no", d->fp16 ? "yes" : "no",
                   d->subgroups ? "yes" : "no");
            printf("       key %s\n       id  %s\n", d->key, d->id);
        }
    }
    free(devs);
    return 0;
}
