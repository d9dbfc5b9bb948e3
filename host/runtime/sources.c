/* sources.c — the OpenCL C sources of cl/: embedded at build time, or read from $CLFORGE_KERNEL_DIR
 * so that kernel developers can edit them without rebuilding the library. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct clf__embedded { const char *name; const char *data; size_t size; };
extern const struct clf__embedded clf__embedded_kernels[];

/* Files read from CLFORGE_KERNEL_DIR live until exit (kernel development only; a handful of files). */
static pthread_mutex_t clf__src_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { char name[64]; char *text; } clf__loaded[32];

static int clf__valid_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n >= 64 || strstr(name, "..") || strchr(name, '/')) return 0;
    return 1;
}

static clf_status clf__read_override(const char *dir, const char *name, const char **out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return clf__fail(CLF_ERR_IO, "CLFORGE_KERNEL_DIR: cannot open %s", path);
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *t = realloc(text, cap);
            if (!t) { free(text); fclose(f); return clf__fail(CLF_ERR_OUT_OF_MEMORY, "reading %s", path); }
            text = t;
        }
        size_t got = fread(text + len, 1, 4096, f);
        len += got;
        if (got < 4096) break;
    }
    fclose(f);
    text[len] = '\0';
    for (int i = 0; i < 32; i++) {
        if (!clf__loaded[i].text) {
            snprintf(clf__loaded[i].name, sizeof clf__loaded[i].name, "%s", name);
            clf__loaded[i].text = text;
            *out = text;
            return CLF_SUCCESS;
        }
    }
    free(text);
    return clf__fail(CLF_ERR_INTERNAL, "too many kernel files loaded from CLFORGE_KERNEL_DIR");
}

clf_status clf__source(const char *name, const char **out)
{
    if (!name || !out || !clf__valid_name(name))
        return clf__fail(CLF_ERR_INVALID_ARG, "invalid kernel source name");
    const char *dir = getenv("CLFORGE_KERNEL_DIR");
    if (dir && *dir) {
        pthread_mutex_lock(&clf__src_lock);
        clf_status s = CLF_SUCCESS;
        int found = 0;
        for (int i = 0; i < 32 && clf__loaded[i].text; i++)
            if (strcmp(clf__loaded[i].name, name) == 0) { *out = clf__loaded[i].text; found = 1; break; }
        if (!found) s = clf__read_override(dir, name, out);
        pthread_mutex_unlock(&clf__src_lock);
        return s;
    }
    for (const struct clf__embedded *e = clf__embedded_kernels; e->name; e++)
        if (strcmp(e->name, name) == 0) { *out = e->data; return CLF_SUCCESS; }
    return clf__fail(CLF_ERR_INTERNAL, "kernel source %s is not embedded in this build", name);
}
