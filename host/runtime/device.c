/* device.c — device discovery, device info, the stable device identity (key, id) and selectors. */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>

#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000   /* cl_nv_device_attribute_query */
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001

#define CLF__MAX_PLATFORMS 16
#define CLF__MAX_DEVICES 64
#ifndef CL_DEVICE_UUID_KHR
#define CL_DEVICE_UUID_KHR 0x106A
#endif

static const char clf__no_platform_advice[] =
    "no OpenCL platform found. Install a driver: on Debian/Ubuntu `apt-get install pocl-opencl-icd` "
    "gives a CPU device. In NVIDIA containers that ship libnvidia-opencl.so.1 but no "
    "/etc/OpenCL/vendors/nvidia.icd, register it: "
    "`echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd`.";
/* Platforms were found, so the ICD advice above does not apply: the drivers see no hardware. */
static const char no_device_advice[] =
    "OpenCL platforms exist but none offers a device. Check that the driver sees its hardware (Mesa's rusticl "
    "needs RUSTICL_ENABLE, e.g. llvmpipe), or add one that does: on Debian/Ubuntu `apt-get install "
    "pocl-opencl-icd` gives a CPU device.";

const char *clf__device_type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU) return "gpu";
    if (t & CL_DEVICE_TYPE_CPU) return "cpu";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    return "other";
}

int clf__device_is_nvidia(const clf_device_info *d)
{
    return d->vendor_id == 0x10de || strcasestr(d->vendor, "nvidia") || strcasestr(d->platform, "nvidia");
}

void clf__hash_hex(const void *data, size_t len, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits(data, len));
}

static void clf__str_info(cl_device_id d, cl_device_info what, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(d, what, cap, buf, NULL) != CL_SUCCESS) buf[0] = '\0';
    buf[cap - 1] = '\0';
    /* Drivers pad some strings with spaces; trailing blanks would make keys unstable to the eye. */
    size_t n = strlen(buf);
    while (n && isspace((unsigned char)buf[n - 1])) buf[--n] = '\0';
}

static int clf__has_ext(const char *exts, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = exts; (p = strstr(p, name)) != NULL; p += n)
        if ((p == exts || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

clf_status clf__device_info(cl_platform_id p, cl_device_id d, clf_device_info *out)
{
    memset(out, 0, sizeof *out);
    char *exts = NULL;
    size_t exts_len = 0;
    cl_int err = clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof out->name, out->name, NULL);
    if (err != CL_SUCCESS) return clf__fail_cl(err, "clGetDeviceInfo", "CL_DEVICE_NAME");
    clf__str_info(d, CL_DEVICE_NAME, out->name, sizeof out->name);
    clf__str_info(d, CL_DEVICE_VENDOR, out->vendor, sizeof out->vendor);
    clf__str_info(d, CL_DEVICE_VERSION, out->version, sizeof out->version);
    clf__str_info(d, CL_DRIVER_VERSION, out->driver, sizeof out->driver);
    clf__str_info(d, CL_DEVICE_OPENCL_C_VERSION, out->opencl_c, sizeof out->opencl_c);
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof out->platform, out->platform, NULL);
    clGetPlatformInfo(p, CL_PLATFORM_VENDOR, sizeof out->platform_vendor, out->platform_vendor, NULL);
    out->platform[sizeof out->platform - 1] = out->platform_vendor[sizeof out->platform_vendor - 1] = '\0';
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof out->type, &out->type, NULL);
    clGetDeviceInfo(d, CL_DEVICE_VENDOR_ID, sizeof out->vendor_id, &out->vendor_id, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof out->compute_units, &out->compute_units, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof out->clock_mhz, &out->clock_mhz, NULL);
    clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof out->global_mem, &out->global_mem, NULL);
    clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof out->local_mem, &out->local_mem, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof out->max_alloc, &out->max_alloc, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof out->max_work_group, &out->max_work_group, NULL);

    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &exts_len) == CL_SUCCESS && exts_len) {
        exts = malloc(exts_len + 1);
        if (exts && clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, exts_len, exts, NULL) == CL_SUCCESS) {
            exts[exts_len] = '\0';
            out->fp64 = clf__has_ext(exts, "cl_khr_fp64");
            out->fp16 = clf__has_ext(exts, "cl_khr_fp16");
            out->subgroups = clf__has_ext(exts, "cl_khr_subgroups") || clf__has_ext(exts, "cl_intel_subgroups");
        }
    }
    cl_uint cc[2] = {0, 0};
    if (exts && clf__has_ext(exts, "cl_nv_device_attribute_query") &&
        clGetDeviceInfo(d, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof cc[0], &cc[0], NULL) == CL_SUCCESS &&
        clGetDeviceInfo(d, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof cc[1], &cc[1], NULL) == CL_SUCCESS)
        out->nv_cc = (int)(cc[0] * 10 + cc[1]);
    cl_device_fp_config dfp = 0;
    if (!out->fp64 && clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof dfp, &dfp, NULL) == CL_SUCCESS && dfp)
        out->fp64 = 1;

    /* The identity: everything that changes generated code or its speed, nothing that varies per boot.
     * CPU drivers (PoCL) derive "global memory" from the host's currently free memory, which changes
     * between processes, so for CPU devices it is left out (see docs/design-notes.md). */
    char mem[32] = "";
    if (!(out->type & CL_DEVICE_TYPE_CPU)) snprintf(mem, sizeof mem, "|%llumb", (unsigned long long)(out->global_mem >> 20));
    int n = snprintf(out->key, sizeof out->key, "%s|0x%x|%s|%s|%ucu|%umhz%s", out->platform_vendor,
                     (unsigned)out->vendor_id, out->name, out->driver, (unsigned)out->compute_units,
                     (unsigned)out->clock_mhz, mem);
    unsigned char uuid[16];
    if (exts && clf__has_ext(exts, "cl_khr_device_uuid") &&
        clGetDeviceInfo(d, CL_DEVICE_UUID_KHR, sizeof uuid, uuid, NULL) == CL_SUCCESS && n > 0 &&
        (size_t)n < sizeof out->key - 40) {
        n += snprintf(out->key + n, sizeof out->key - (size_t)n, "|uuid=");
        for (int i = 0; i < 16; i++) n += snprintf(out->key + n, sizeof out->key - (size_t)n, "%02x", uuid[i]);
    }
    free(exts);
    clf__hash_hex(out->key, strlen(out->key), out->id);
    return CLF_SUCCESS;
}

/* Snapshot of all platforms and devices (OpenCL handles are process-global and stable). */
typedef struct clf__devlist {
    int count;
    cl_platform_id plat[CLF__MAX_DEVICES];
    cl_device_id dev[CLF__MAX_DEVICES];
    int pi[CLF__MAX_DEVICES], di[CLF__MAX_DEVICES];
} clf__devlist;

static clf_status clf__enumerate(clf__devlist *l)
{
    cl_platform_id plats[CLF__MAX_PLATFORMS];
    cl_uint np = 0;
    l->count = 0;
    cl_int err = clGetPlatformIDs(CLF__MAX_PLATFORMS, plats, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && np == 0))
        return clf__fail(CLF_ERR_NO_DEVICE, "%s", clf__no_platform_advice);
    if (err != CL_SUCCESS) return clf__fail_cl(err, "clGetPlatformIDs", "%s", clf__no_platform_advice);
    if (np > CLF__MAX_PLATFORMS) np = CLF__MAX_PLATFORMS;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[CLF__MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, CLF__MAX_DEVICES, devs, &nd) != CL_SUCCESS) continue;
        for (cl_uint d = 0; d < nd && d < CLF__MAX_DEVICES && l->count < CLF__MAX_DEVICES; d++) {
            l->plat[l->count] = plats[p];
            l->dev[l->count] = devs[d];
            l->pi[l->count] = (int)p;
            l->di[l->count] = (int)d;
            l->count++;
        }
    }
    if (l->count == 0)
        return clf__fail(CLF_ERR_NO_DEVICE, "%s", no_device_advice);
    return CLF_SUCCESS;
}

static int clf__default_index(const clf__devlist *l)
{
    for (int i = 0; i < l->count; i++) {
        cl_device_type t = 0;
        clGetDeviceInfo(l->dev[i], CL_DEVICE_TYPE, sizeof t, &t, NULL);
        if (t & CL_DEVICE_TYPE_GPU) return i;
    }
    return 0;
}

clf_status clf_device_list(clf_device_info *out, size_t cap, size_t *count)
{
    if (!count) return clf__fail(CLF_ERR_INVALID_ARG, "clf_device_list: count is NULL");
    if (!out && cap) return clf__fail(CLF_ERR_INVALID_ARG, "clf_device_list: out is NULL but cap is %zu", cap);
    clf__devlist l;
    clf_status s = clf__enumerate(&l);
    if (s != CLF_SUCCESS) return s;
    int def = clf__default_index(&l);
    for (int i = 0; i < l.count && (size_t)i < cap; i++) {
        s = clf__device_info(l.plat[i], l.dev[i], &out[i]);
        if (s != CLF_SUCCESS) return s;
        out[i].platform_index = l.pi[i];
        out[i].device_index = l.di[i];
        out[i].is_default = i == def;
    }
    *count = (size_t)l.count;
    return CLF_SUCCESS;
}

static int clf__icontains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0) return 1;
    return n == 0;
}

/* An index of a P:D selector: 1 to 9 decimal digits and nothing else (no sign, no blank), so that it fits an int. */
static int parse_index(const char *s, size_t n, int *out)
{
    if (n == 0 || n > 9 || strspn(s, "0123456789") < n) return 0;
    int v = 0;
    for (size_t i = 0; i < n; i++) v = v * 10 + (s[i] - '0');
    *out = v;
    return 1;
}

/* Parses a "P:D" selector. Returns 1 with the indices, 0 when sel is not index-like (a name to match), and -1 when
 * it is index-like but malformed: a sign, a blank or too many digits ("-1:0" would otherwise read as 4294967295). */
static int parse_pair(const char *sel, int *p, int *d)
{
    const char *colon = strchr(sel, ':'), *digits = "0123456789";
    if (!colon || strchr(colon + 1, ':')) return 0;
    /* Index-like: digits, signs and blanks only, with a digit on each side of the one colon. */
    if (sel[strspn(sel, "0123456789+- \t:")] != '\0' || strcspn(sel, digits) >= (size_t)(colon - sel) ||
        !strpbrk(colon + 1, digits))
        return 0;
    int ok = parse_index(sel, (size_t)(colon - sel), p) && parse_index(colon + 1, strlen(colon + 1), d);
    return ok ? 1 : -1;
}

/* 1 when device i's name, vendor, platform name or platform vendor contains sel (case-insensitive); 2 when
 * its name is sel exactly. The platform vendor counts: "pocl" names PoCL only there ("The pocl project"). */
static int clf__name_match(const clf__devlist *l, int i, const char *sel)
{
    char name[256] = "", vendor[256] = "", plat[256] = "", plat_vendor[256] = "";
    clf__str_info(l->dev[i], CL_DEVICE_NAME, name, sizeof name);
    clf__str_info(l->dev[i], CL_DEVICE_VENDOR, vendor, sizeof vendor);
    clGetPlatformInfo(l->plat[i], CL_PLATFORM_NAME, sizeof plat, plat, NULL);
    clGetPlatformInfo(l->plat[i], CL_PLATFORM_VENDOR, sizeof plat_vendor, plat_vendor, NULL);
    plat[sizeof plat - 1] = plat_vendor[sizeof plat_vendor - 1] = '\0';
    if (strcasecmp(name, sel) == 0) return 2;
    return clf__icontains(name, sel) || clf__icontains(vendor, sel) || clf__icontains(plat, sel) ||
           clf__icontains(plat_vendor, sel);
}

/* A name selector must pick one device: the one whose name it is exactly, else the only one it is part of.
 * Picking the first of several would bind a program to whichever device the driver lists first. */
static clf_status clf__match_name(const clf__devlist *l, const char *sel, int *index)
{
    int found = -1, exact = -1, nfound = 0, nexact = 0;
    char list[512] = "";
    for (int i = 0; i < l->count; i++) {
        int m = clf__name_match(l, i, sel);
        if (!m) continue;
        if (m == 2) exact = i, nexact++;
        found = i, nfound++;
        char name[128] = "";
        clf__str_info(l->dev[i], CL_DEVICE_NAME, name, sizeof name);
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%d:%d %s", len ? ", " : "", l->pi[i], l->di[i], name);
    }
    if (nexact == 1 || nfound == 1) {
        *index = nexact == 1 ? exact : found;
        return CLF_SUCCESS;
    }
    if (nfound > 1)
        return clf__fail(CLF_ERR_INVALID_ARG, "device selector '%s' is ambiguous: it matches %d devices (%s); "
                         "use a P:D index or a longer part of the name", sel, nfound, list);
    return clf__fail(CLF_ERR_NO_DEVICE,
                     "device selector '%s' matches no device; use P:D indices, gpu, cpu, or part of a device, "
                     "vendor or platform name as listed by `clforge devices`", sel);
}

static clf_status clf__match(const clf__devlist *l, const char *sel, int *index)
{
    if (!sel || !*sel) { *index = clf__default_index(l); return CLF_SUCCESS; }
    int p, d, pair = parse_pair(sel, &p, &d);
    if (pair < 0)
        return clf__fail(CLF_ERR_INVALID_ARG, "device selector '%s' is malformed: P:D takes two non-negative decimal "
                         "indices, as listed by `clforge devices`", sel);
    if (pair > 0) {
        for (int i = 0; i < l->count; i++)
            if (l->pi[i] == p && l->di[i] == d) { *index = i; return CLF_SUCCESS; }
        return clf__fail(CLF_ERR_NO_DEVICE, "device selector '%s': no device %d on platform %d (see `clforge devices`)",
                         sel, d, p);
    }
    cl_device_type want = 0;
    if (strcasecmp(sel, "gpu") == 0) want = CL_DEVICE_TYPE_GPU;
    else if (strcasecmp(sel, "cpu") == 0) want = CL_DEVICE_TYPE_CPU;
    if (!want) return clf__match_name(l, sel, index);
    for (int i = 0; i < l->count; i++) {   /* "gpu" and "cpu": the first device of that type */
        cl_device_type t = 0;
        clGetDeviceInfo(l->dev[i], CL_DEVICE_TYPE, sizeof t, &t, NULL);
        if (t & want) { *index = i; return CLF_SUCCESS; }
    }
    return clf__fail(CLF_ERR_NO_DEVICE, "device selector '%s': no %s device (see `clforge devices`)", sel, sel);
}

clf_status clf__device_pick(const char *selector, cl_platform_id *p, cl_device_id *d, clf_device_info *info)
{
    clf__devlist l;
    clf_status s = clf__enumerate(&l);
    if (s != CLF_SUCCESS) return s;
    int i = 0;
    if ((s = clf__match(&l, selector, &i)) != CLF_SUCCESS) return s;
    if ((s = clf__device_info(l.plat[i], l.dev[i], info)) != CLF_SUCCESS) return s;
    info->platform_index = l.pi[i];
    info->device_index = l.di[i];
    info->is_default = i == clf__default_index(&l);
    if (p) *p = l.plat[i];
    if (d) *d = l.dev[i];
    return CLF_SUCCESS;
}

clf_status clf_device_select(const char *selector, clf_device_info *out)
{
    if (!out) return clf__fail(CLF_ERR_INVALID_ARG, "clf_device_select: out is NULL");
    clf_device_info tmp;
    clf_status s = clf__device_pick(selector, NULL, NULL, &tmp);
    if (s == CLF_SUCCESS) *out = tmp;
    return s;
}
