/* error.c — names and messages for every status (clforge's and OpenCL's), and the thread-local
 * detail message behind clf_last_error(). */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every OpenCL error code by number, so that names print even for codes newer than the headers. */
#define CLF__CL_ERROR_MAP(X)                                                                  \
    X(-1, CL_DEVICE_NOT_FOUND, "no device of the requested type")                             \
    X(-2, CL_DEVICE_NOT_AVAILABLE, "device not available")                                    \
    X(-3, CL_COMPILER_NOT_AVAILABLE, "no compiler available")                                 \
    X(-4, CL_MEM_OBJECT_ALLOCATION_FAILURE, "device memory allocation failed")                \
    X(-5, CL_OUT_OF_RESOURCES, "device out of resources")                                     \
    X(-6, CL_OUT_OF_HOST_MEMORY, "OpenCL runtime out of host memory")                         \
    X(-7, CL_PROFILING_INFO_NOT_AVAILABLE, "profiling information not available")             \
    X(-8, CL_MEM_COPY_OVERLAP, "source and destination overlap")                              \
    X(-9, CL_IMAGE_FORMAT_MISMATCH, "image formats differ")                                   \
    X(-10, CL_IMAGE_FORMAT_NOT_SUPPORTED, "image format not supported")                       \
    X(-11, CL_BUILD_PROGRAM_FAILURE, "program build failed")                                  \
    X(-12, CL_MAP_FAILURE, "mapping failed")                                                  \
    X(-13, CL_MISALIGNED_SUB_BUFFER_OFFSET, "misaligned sub-buffer offset")                   \
    X(-14, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "an event in the wait list failed")  \
    X(-15, CL_COMPILE_PROGRAM_FAILURE, "compilation failed")                                  \
    X(-16, CL_LINKER_NOT_AVAILABLE, "no linker available")                                    \
    X(-17, CL_LINK_PROGRAM_FAILURE, "linking failed")                                         \
    X(-18, CL_DEVICE_PARTITION_FAILED, "device partition failed")                             \
    X(-19, CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "kernel argument info not available")            \
    X(-30, CL_INVALID_VALUE, "invalid value")                                                 \
    X(-31, CL_INVALID_DEVICE_TYPE, "invalid device type")                                     \
    X(-32, CL_INVALID_PLATFORM, "invalid platform")                                           \
    X(-33, CL_INVALID_DEVICE, "invalid device")                                               \
    X(-34, CL_INVALID_CONTEXT, "invalid context")                                             \
    X(-35, CL_INVALID_QUEUE_PROPERTIES, "invalid queue properties")                           \
    X(-36, CL_INVALID_COMMAND_QUEUE, "invalid command queue")                                 \
    X(-37, CL_INVALID_HOST_PTR, "invalid host pointer")                                       \
    X(-38, CL_INVALID_MEM_OBJECT, "invalid memory object")                                    \
    X(-39, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "invalid image format descriptor")             \
    X(-40, CL_INVALID_IMAGE_SIZE, "invalid image size")                                       \
    X(-41, CL_INVALID_SAMPLER, "invalid sampler")                                             \
    X(-42, CL_INVALID_BINARY, "invalid program binary")                                       \
    X(-43, CL_INVALID_BUILD_OPTIONS, "invalid build options")                                 \
    X(-44, CL_INVALID_PROGRAM, "invalid program")                                             \
    X(-45, CL_INVALID_PROGRAM_EXECUTABLE, "program not built")                                \
    X(-46, CL_INVALID_KERNEL_NAME, "no kernel of that name")                                  \
    X(-47, CL_INVALID_KERNEL_DEFINITION, "invalid kernel definition")                         \
    X(-48, CL_INVALID_KERNEL, "invalid kernel")                                               \
    X(-49, CL_INVALID_ARG_INDEX, "invalid kernel argument index")                             \
    X(-50, CL_INVALID_ARG_VALUE, "invalid kernel argument value")                             \
    X(-51, CL_INVALID_ARG_SIZE, "invalid kernel argument size")                               \
    X(-52, CL_INVALID_KERNEL_ARGS, "kernel arguments not all set")                            \
    X(-53, CL_INVALID_WORK_DIMENSION, "invalid work dimension")                               \
    X(-54, CL_INVALID_WORK_GROUP_SIZE, "invalid work-group size")                             \
    X(-55, CL_INVALID_WORK_ITEM_SIZE, "invalid work-item size")                               \
    X(-56, CL_INVALID_GLOBAL_OFFSET, "invalid global offset")                                 \
    X(-57, CL_INVALID_EVENT_WAIT_LIST, "invalid event wait list")                             \
    X(-58, CL_INVALID_EVENT, "invalid event")                                                 \
    X(-59, CL_INVALID_OPERATION, "invalid operation")                                         \
    X(-60, CL_INVALID_GL_OBJECT, "invalid GL object")                                         \
    X(-61, CL_INVALID_BUFFER_SIZE, "invalid buffer size")                                     \
    X(-62, CL_INVALID_MIP_LEVEL, "invalid mip level")                                         \
    X(-63, CL_INVALID_GLOBAL_WORK_SIZE, "invalid global work size")                           \
    X(-64, CL_INVALID_PROPERTY, "invalid property")                                           \
    X(-65, CL_INVALID_IMAGE_DESCRIPTOR, "invalid image descriptor")                           \
    X(-66, CL_INVALID_COMPILER_OPTIONS, "invalid compiler options")                           \
    X(-67, CL_INVALID_LINKER_OPTIONS, "invalid linker options")                               \
    X(-68, CL_INVALID_DEVICE_PARTITION_COUNT, "invalid device partition count")               \
    X(-69, CL_INVALID_PIPE_SIZE, "invalid pipe size")                                         \
    X(-70, CL_INVALID_DEVICE_QUEUE, "invalid device queue")                                   \
    X(-71, CL_INVALID_SPEC_ID, "invalid specialization constant id")                          \
    X(-72, CL_MAX_SIZE_RESTRICTION_EXCEEDED, "size restriction exceeded")                     \
    X(-1000, CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR, "invalid GL sharegroup reference")       \
    X(-1001, CL_PLATFORM_NOT_FOUND_KHR, "no OpenCL platform found (ICD loader)")

const char *clf_version(void) { return CLFORGE_VERSION_STRING; }

const char *clf_status_name(int status)
{
    switch (status) {
#define CLF__NAME_CASE(name, value, msg) case value: return #name;
        CLF_STATUS_MAP(CLF__NAME_CASE)
#undef CLF__NAME_CASE
#define CLF__CL_NAME_CASE(value, name, msg) case value: return #name;
        CLF__CL_ERROR_MAP(CLF__CL_NAME_CASE)
#undef CLF__CL_NAME_CASE
    default: return "CLF_UNKNOWN_STATUS";
    }
}

const char *clf_status_string(int status)
{
    switch (status) {
#define CLF__MSG_CASE(name, value, msg) case value: return msg;
        CLF_STATUS_MAP(CLF__MSG_CASE)
#undef CLF__MSG_CASE
#define CLF__CL_MSG_CASE(value, name, msg) case value: return msg;
        CLF__CL_ERROR_MAP(CLF__CL_MSG_CASE)
#undef CLF__CL_MSG_CASE
    default: return "unknown status code";
    }
}

/* Build logs can be long; keep the head, which holds the first error. */
#define CLF__ERRMSG_CAP 16384
static _Thread_local char clf__errmsg[CLF__ERRMSG_CAP];

const char *clf_last_error(void) { return clf__errmsg; }

void clf__clear_error(void) { clf__errmsg[0] = '\0'; }

/* Depth of quiet sections on this thread: failures inside one are expected and handled (a lookup that
 * falls back), so they must not replace the message of the caller's last real failure. */
static _Thread_local int clf__quiet_depth;

void clf__quiet_begin(void) { clf__quiet_depth++; }
void clf__quiet_end(void) { clf__quiet_depth--; }

clf_status clf__fail(clf_status s, const char *fmt, ...)
{
    if (clf__quiet_depth > 0)
        return s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(clf__errmsg, sizeof clf__errmsg, fmt, ap);
    va_end(ap);
    return s;
}

clf_status clf__fail_cl(cl_int err, const char *call, const char *fmt, ...)
{
    if (clf__quiet_depth > 0)
        return (clf_status)err;
    int n = snprintf(clf__errmsg, sizeof clf__errmsg, "%s: %s (%d)", call, clf_status_name(err), (int)err);
    if (fmt && n > 0 && (size_t)n < sizeof clf__errmsg - 2) {
        va_list ap;
        va_start(ap, fmt);
        clf__errmsg[n++] = ':';
        clf__errmsg[n++] = ' ';
        vsnprintf(clf__errmsg + n, sizeof clf__errmsg - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return (clf_status)err;
}

void clf__error_append(const char *text)
{
    if (clf__quiet_depth > 0)
        return;
    size_t used = strlen(clf__errmsg);
    if (text && used < sizeof clf__errmsg - 1)
        snprintf(clf__errmsg + used, sizeof clf__errmsg - used, "%s", text);
}

static pthread_mutex_t clf__warn_lock = PTHREAD_MUTEX_INITIALIZER;
static char clf__warned[16][64];

int clf__parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

int clf__env_long(const char *name, long lo, long hi, long *out)
{
    const char *env = getenv(name);
    if (!env || !*env)
        return 0;
    if (clf__parse_long(env, lo, hi, out))
        return 1;
    clf__warn_once(name, "%s=%s is not a whole number from %ld to %ld: ignored", name, env, lo, hi);
    return -1;
}

int clf__env_word(const char *name, const char *words)
{
    const char *env = getenv(name);
    if (!env || !*env)
        return 0;
    size_t n = strlen(env);
    int i = 1;
    for (const char *w = words; *w; i++) {
        size_t len = strcspn(w, " ");
        if (len == n && strncmp(w, env, n) == 0)
            return i;
        w += len + (w[len] == ' ');
    }
    clf__warn_once(name, "%s=%s is none of %s: ignored", name, env, words);
    return 0;
}

int clf__env_rule_on(const char *name, const char *word)
{
    const char *env = getenv(name);
    if (!env || !*env)
        return 1;
    if (strcmp(env, word) == 0)
        return 0;
    clf__warn_once(name, "%s=%s is not %s: ignored", name, env, word);
    return 1;
}

void clf__warn_once(const char *key, const char *fmt, ...)
{
    pthread_mutex_lock(&clf__warn_lock);
    int i, seen = 0;
    for (i = 0; i < 16 && clf__warned[i][0]; i++)
        if (strcmp(clf__warned[i], key) == 0) { seen = 1; break; }
    if (!seen && i < 16) snprintf(clf__warned[i], sizeof clf__warned[i], "%s", key);
    pthread_mutex_unlock(&clf__warn_lock);
    if (seen) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("clforge: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
