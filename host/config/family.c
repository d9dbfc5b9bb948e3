/* family.c — the registry of kernel families and the helpers that turn a configuration into build
 * options and text and back. */
#include "family.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Families register here; each descriptor lives in its op's file (host/gemm_family.c, map.c, copy.c). */
extern const clf__family clf__family_gemm, clf__family_gemm_mma, clf__family_gemm_cpu, clf__family_map,
    clf__family_copy, clf__family_reduce, clf__family_gemv;

const clf__family *const clf__families[] = {
    &clf__family_gemm,
    &clf__family_gemm_mma,
    &clf__family_gemm_cpu,
    &clf__family_map,
    &clf__family_copy,
    &clf__family_reduce,
    &clf__family_gemv,
    NULL
};

const clf__family *clf__family_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; clf__families[i]; i++)
        if (strcmp(clf__families[i]->name, name) == 0)
            return clf__families[i];
    return NULL;
}

int clf__param_index(const clf__family *f, const char *name)
{
    if (!f || !name)
        return -1;
    for (int i = 0; i < f->nparams; i++)
        if (strcmp(f->params[i].name, name) == 0)
            return i;
    return -1;
}

clf_status clf__config_options(const clf__family *f, const clf__config *cfg, char *buf, size_t cap)
{
    size_t len = strnlen(buf, cap);
    if (len >= cap)
        return clf__fail(CLF_ERR_INTERNAL, "config options: buffer not terminated");
    for (int i = 0; i < f->nparams; i++) {
        int n = snprintf(buf + len, cap - len, "%s-D%s=%d", len ? " " : "", f->params[i].name, cfg->v[i]);
        if (n < 0 || (size_t)n >= cap - len) {
            buf[len] = '\0';
            return clf__fail(CLF_ERR_INTERNAL, "config options for %s do not fit in %zu bytes", f->name, cap);
        }
        len += (size_t)n;
    }
    return CLF_SUCCESS;
}

int clf__config_in_bucket(const clf__family *f, const clf__config *cfg, const char *bucket)
{
    return !bucket || !f->in_bucket || f->in_bucket(cfg, bucket);
}

void clf__config_format(const clf__family *f, const clf__config *cfg, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < f->nparams; i++) {
        int n = snprintf(buf + len, cap - len, "%s%s=%d", i ? " " : "", f->params[i].name, cfg->v[i]);
        if (n < 0 || (size_t)n >= cap - len) {
            buf[len] = '\0';  /* truncated at a whole parameter rather than mid-name */
            return;
        }
        len += (size_t)n;
    }
}

static int value_allowed(const clf__param *p, int v)
{
    for (int i = 0; i < p->nvalues; i++)
        if (p->values[i] == v)
            return 1;
    return 0;
}

/* Every parameter must appear exactly once: a configuration from an older version of a family with
 * fewer parameters is rejected rather than half-applied. */
clf_status clf__config_parse(const clf__family *f, const char *text, clf__config *out)
{
    if (!f || !text || !out)
        return clf__fail(CLF_ERR_INVALID_ARG, "config parse: NULL argument");
    clf__config c;
    int seen[CLF__MAX_PARAMS] = {0};
    memset(&c, 0, sizeof c);
    const char *s = text;
    for (;;) {
        while (isspace((unsigned char)*s) || *s == ',')
            s++;
        if (!*s)
            break;
        const char *eq = s;
        while (*eq && *eq != '=' && !isspace((unsigned char)*eq))
            eq++;
        if (*eq != '=')
            return clf__fail(CLF_ERR_PARSE, "%s config \"%s\": expected NAME=VALUE at \"%s\"", f->name, text, s);
        char name[64];
        size_t nlen = (size_t)(eq - s);
        if (nlen == 0 || nlen >= sizeof name)
            return clf__fail(CLF_ERR_PARSE, "%s config \"%s\": bad parameter name", f->name, text);
        memcpy(name, s, nlen);
        name[nlen] = '\0';
        int idx = clf__param_index(f, name);
        if (idx < 0)
            return clf__fail(CLF_ERR_PARSE, "%s config: unknown parameter %s", f->name, name);
        char *end;
        long v = strtol(eq + 1, &end, 10);
        if (end == eq + 1 || (*end && !isspace((unsigned char)*end) && *end != ','))
            return clf__fail(CLF_ERR_PARSE, "%s config: %s needs an integer value", f->name, name);
        if (!value_allowed(&f->params[idx], (int)v) || v != (int)v)
            return clf__fail(CLF_ERR_PARSE, "%s config: %s=%ld is not an allowed value", f->name, name, v);
        if (seen[idx])
            return clf__fail(CLF_ERR_PARSE, "%s config: %s given twice", f->name, name);
        seen[idx] = 1;
        c.v[idx] = (int)v;
        s = end;
    }
    for (int i = 0; i < f->nparams; i++) {
        if (!seen[i] && f->params[i].optional)
            c.v[i] = f->params[i].values[0];
        else if (!seen[i])
            return clf__fail(CLF_ERR_PARSE, "%s config \"%s\": missing parameter %s", f->name, text,
                             f->params[i].name);
    }
    *out = c;
    return CLF_SUCCESS;
}
