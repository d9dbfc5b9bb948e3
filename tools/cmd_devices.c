/* cmd_devices.c — `clforge devices [--json] [--quiet]`: every platform (those without devices too, as clinfo
 * lists them) and device, with the identity that caches and tuning results are keyed by, the default device
 * and the one CLFORGE_DEVICE selects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clforge/clforge.h"
#include "internal.h"

#define MAX_PLATFORMS 16

typedef struct platform {
    char name[256], vendor[256], version[256];
    cl_uint ndevices;
} platform;

typedef struct listing {
    platform plats[MAX_PLATFORMS];
    cl_uint nplats;
    clf_device_info *devs;
    size_t count;
    const char *env;             /* $CLFORGE_DEVICE, NULL when unset */
    char env_id[17];             /* the id of the device it selects, "" when none */
    char env_error[512];
    char error[1024];            /* why nothing is listed, "" when something is */
} listing;

static void usage(FILE *f)
{
    fprintf(f, "usage: clforge devices [--json] [--quiet]\n"
               "  --json   print the list as JSON (format clforge-devices/1, see docs/json-schema.md)\n"
               "  --quiet  no warning on stderr when CLFORGE_DEVICE selects no device\n");
}

/* Platforms straight from the ICD loader: clf_device_list skips those that offer no device. */
static void list_platforms(listing *l)
{
    cl_platform_id ids[MAX_PLATFORMS];
    if (clGetPlatformIDs(MAX_PLATFORMS, ids, &l->nplats) != CL_SUCCESS) l->nplats = 0;
    if (l->nplats > MAX_PLATFORMS) l->nplats = MAX_PLATFORMS;
    for (cl_uint p = 0; p < l->nplats; p++) {
        platform *q = &l->plats[p];
        memset(q, 0, sizeof *q);
        clGetPlatformInfo(ids[p], CL_PLATFORM_NAME, sizeof q->name - 1, q->name, NULL);
        clGetPlatformInfo(ids[p], CL_PLATFORM_VENDOR, sizeof q->vendor - 1, q->vendor, NULL);
        clGetPlatformInfo(ids[p], CL_PLATFORM_VERSION, sizeof q->version - 1, q->version, NULL);
        if (clGetDeviceIDs(ids[p], CL_DEVICE_TYPE_ALL, 0, NULL, &q->ndevices) != CL_SUCCESS) q->ndevices = 0;
    }
}

/* Fills l; returns 0 when the devices could not be listed (l->error says why, e.g. no platform). */
static int gather(listing *l)
{
    list_platforms(l);
    size_t count = 0;
    clf_status s = clf_device_list(NULL, 0, &count);
    if (s == CLF_SUCCESS && !(l->devs = calloc(count ? count : 1, sizeof *l->devs)))
        s = clf__fail(CLF_ERR_OUT_OF_MEMORY, "device list");
    if (s == CLF_SUCCESS) s = clf_device_list(l->devs, count, &l->count);
    if (s != CLF_SUCCESS) {
        snprintf(l->error, sizeof l->error, "%s: %s", clf_status_name(s), clf_last_error());
        return 0;
    }
    l->env = getenv("CLFORGE_DEVICE");
    if (l->env && *l->env) {
        clf_device_info sel;
        if (clf_device_select(l->env, &sel) == CLF_SUCCESS) snprintf(l->env_id, sizeof l->env_id, "%s", sel.id);
        else snprintf(l->env_error, sizeof l->env_error, "%s", clf_last_error());
    }
    return 1;
}

static json_t *listing_json(const listing *l)
{
    json_t *plats = json_array(), *devs = json_array();
    for (cl_uint p = 0; p < l->nplats; p++)
        json_array_append_new(plats, json_pack("{s:i, s:s, s:s, s:s, s:i}", "index", (int)p, "name", l->plats[p].name,
                                               "vendor", l->plats[p].vendor, "version", l->plats[p].version,
                                               "device_count", (int)l->plats[p].ndevices));
    for (size_t i = 0; i < l->count; i++) {
        json_t *o = cli_device_json(&l->devs[i]);
        json_object_set_new(o, "default", json_boolean(l->devs[i].is_default));
        json_object_set_new(o, "selected", json_boolean(l->env_id[0] && !strcmp(l->env_id, l->devs[i].id)));
        json_array_append_new(devs, o);
    }
    json_t *env = json_pack("{s:s, s:o, s:o}", "variable", "CLFORGE_DEVICE", "value",
                            l->env ? json_string(l->env) : json_null(), "error",
                            l->env_error[0] ? json_string(l->env_error) : json_null());
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}", "format", "clforge-devices/1", "clforge_version",
                     clf_version(), "platforms", plats, "devices", devs, "selector", env, "error",
                     l->error[0] ? json_string(l->error) : json_null());
}

static void print_device(const clf_device_info *d, int selected)
{
    printf("  %d:%d  %s%s%s\n", d->platform_index, d->device_index, d->name, d->is_default ? "  [default]" : "",
           selected ? "  [selected by CLFORGE_DEVICE]" : "");
    printf("       vendor %s, %s, %u compute units, %u MHz\n", d->vendor, clf__device_type_name(d->type),
           (unsigned)d->compute_units, (unsigned)d->clock_mhz);
    printf("       global memory %.1f GiB, local memory %.0f KiB, max work-group %zu\n",
           (double)d->global_mem / (1 << 30), (double)d->local_mem / 1024, d->max_work_group);
    printf("       %s; %s; driver %s\n", d->version, d->opencl_c, d->driver);
    printf("       fp64 %s, fp16 %s, subgroups %s\n", d->fp64 ? "yes" : "no", d->fp16 ? "yes" : "no",
           d->subgroups ? "yes" : "no");
    printf("       key %s\n       id  %s\n", d->key, d->id);
}

static void print_listing(const listing *l)
{
    for (cl_uint p = 0; p < l->nplats; p++) {
        printf("platform %u: %s (%s)\n", (unsigned)p, l->plats[p].name, l->plats[p].vendor);
        int any = 0;
        for (size_t i = 0; i < l->count; i++)
            if (l->devs[i].platform_index == (int)p) {
                print_device(&l->devs[i], l->env_id[0] && !strcmp(l->env_id, l->devs[i].id));
                any = 1;
            }
        if (!any) printf("  (no devices)\n");
    }
}

int cli_cmd_devices(int argc, char **argv)
{
    int as_json = 0, quiet = 0, f;
    for (int i = 1; i < argc; i++) {
        if ((f = cli_flag("devices", argv[i], "--json")) || (f = cli_flag("devices", argv[i], "--quiet"))) {
            if (f < 0) return 2;
            if (argv[i][2] == 'j') as_json = 1;
            else quiet = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "clforge devices: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    static listing l;
    memset(&l, 0, sizeof l);
    int ok = gather(&l), rc = ok ? 0 : 1;
    if (as_json) {
        json_t *root = listing_json(&l);
        rc |= cli_json_write("devices", "-", root);
        json_decref(root);
    } else if (ok || l.nplats) {
        print_listing(&l);   /* platforms without devices too: the error below then says why nothing runs */
    }
    if (!ok && (!as_json || !quiet)) fprintf(stderr, "clforge devices: %s\n", l.error);
    if (ok && l.env_error[0] && !quiet)
        fprintf(stderr, "clforge devices: CLFORGE_DEVICE=%s selects no device: %s\n", l.env, l.env_error);
    free(l.devs);
    return rc;
}
