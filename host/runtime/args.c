/* args.c — overflow-safe size arithmetic and buffer-extent checks done before anything is enqueued. */
#include "internal.h"

#include <stdio.h>

int clf__mul(size_t a, size_t b, size_t *out)
{
    size_t r;
    if (__builtin_mul_overflow(a, b, &r)) return 0;
    *out = r;
    return 1;
}

int clf__add(size_t a, size_t b, size_t *out)
{
    size_t r;
    if (__builtin_add_overflow(a, b, &r)) return 0;
    *out = r;
    return 1;
}

clf_status clf__check_buffer(cl_mem m, const char *argname, size_t off, size_t extent, size_t elem_size)
{
    if (extent == 0) return CLF_SUCCESS;
    if (!m) return clf__fail(CLF_ERR_INVALID_ARG, "%s: buffer is NULL", argname);
    size_t size = 0;
    cl_int err = clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err != CL_SUCCESS)
        return clf__fail(CLF_ERR_INVALID_ARG, "%s: not a valid buffer (clGetMemObjectInfo: %s)", argname,
                         clf_status_name(err));
    size_t end, end_bytes;
    if (!clf__add(off, extent, &end) || !clf__mul(end, elem_size, &end_bytes))
        return clf__fail(CLF_ERR_INVALID_ARG, "%s: offset %zu + extent %zu elements overflows size_t", argname,
                         off, extent);
    if (end_bytes > size)
        return clf__fail(CLF_ERR_INVALID_ARG,
                         "%s: needs %zu bytes (elements %zu..%zu of %zu bytes each) but the buffer holds %zu",
                         argname, end_bytes, off, end - 1, elem_size, size);
    return CLF_SUCCESS;
}

cl_mem clf__mem_root(cl_mem m, size_t *base)
{
    cl_mem parent = NULL;
    size_t off = 0;
    *base = 0;
    if (clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) == CL_SUCCESS && parent &&
        clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof off, &off, NULL) == CL_SUCCESS) {
        *base = off;
        return parent;
    }
    return m;
}

size_t clf__dtype_size(clf_dtype t)
{
    switch (t) {
    case CLF_F32: return 4;
    case CLF_F64: return 8;
    case CLF_F16: case CLF_BF16: return 2;
    }
    return 0;
}

const char *clf__dtype_name(clf_dtype t)
{
    switch (t) {
    case CLF_F32: return "f32";
    case CLF_F64: return "f64";
    case CLF_F16: return "f16";
    case CLF_BF16: return "bf16";
    }
    return "?";
}

clf_status clf__check_operand_buffer(const clf_context *ctx, const char *op, const char *name, cl_mem buf,
                                     size_t off, size_t extent, size_t esz, clf__span *sp)
{
    *sp = (clf__span){NULL, 0, 0};
    if (extent == 0)
        return CLF_SUCCESS;
    if (!buf)
        return clf__fail(CLF_ERR_INVALID_ARG, "%s: %s is NULL", op, name);
    char what[64];
    snprintf(what, sizeof what, "%s: %s", op, name);
    clf_status s = clf__check_buffer(buf, what, off, extent, esz);
    if (s != CLF_SUCCESS)
        return s;
    cl_context owner = NULL;
    cl_int e = clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (e != CL_SUCCESS || owner != ctx->cl)
        return clf__fail(CLF_ERR_INVALID_ARG, "%s: %s belongs to another OpenCL context than ctx's", op, name);
    size_t base;
    sp->root = clf__mem_root(buf, &base);
    sp->lo = base + off * esz;   /* no overflow: clf__check_buffer bounded (off + extent) * esz */
    sp->hi = sp->lo + extent * esz;
    return CLF_SUCCESS;
}

int clf__spans_overlap(const clf__span *x, const clf__span *y)
{
    return x->root && x->root == y->root && x->lo < y->hi && y->lo < x->hi;
}
