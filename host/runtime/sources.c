/* sources.c — the OpenCL C sources of cl/: embedded at build time, or read from $CLFORGE_KERNEL_DIR
 * so that kernel developers can edit them without rebuilding the library. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CLF__MAX_SOURCE (4 << 20)   /* bytes; the largest kernel file is a few tens of kilobytes */

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

/* Reads a regular file of at most CLF__MAX_SOURCE bytes: a directory, FIFO or device (/dev/zero grows
 * forever) fails with a message that names it. */
static clf_status clf__read_override(const char *dir, const char *name, const char **out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return clf__fail(CLF_ERR_IO, "CLFORGE_KERNEL_DIR: cannot open %s: %s", path, strerror(errno));
    struct stat st = {0};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return clf__fail(CLF_ERR_IO, "CLFORGE_KERNEL_DIR: %s is not a regular file (%s)", path,
                         S_ISDIR(st.st_mode) ? "a directory" : "a FIFO, socket or device");
    }
    if (st.st_size > CLF__MAX_SOURCE) {
        close(fd);
        return clf__fail(CLF_ERR_IO, "CLFORGE_KERNEL_DIR: %s is %lld bytes, more than the %d a kernel file may have",
                         path, (long long)st.st_size, CLF__MAX_SOURCE);
    }
    char *text = malloc((size_t)st.st_size + 1);
    if (!text) { close(fd); return clf__fail(CLF_ERR_OUT_OF_MEMORY, "reading %s", path); }
    size_t len = 0;
    while (len < (size_t)st.st_size) {   /* a file that grows meanwhile is read up to its size at open */
        ssize_t r = read(fd, text + len, (size_t)st.st_size - len);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            free(text);
            return clf__fail(CLF_ERR_IO, "CLFORGE_KERNEL_DIR: reading %s: %s", path, strerror(e));
        }
        if (r == 0) break;
        len += (size_t)r;
    }
    close(fd);
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

/* ---- #include "file.cl" ---------------------------------------------------------------------
 * Kernel files share code through lines `#include "name.cl"`, expanded here when a source is fetched:
 * the OpenCL compiler never sees them, and the program cache hashes the expanded text. One level deep,
 * from the same set of files as the including one (embedded, or CLFORGE_KERNEL_DIR); #line directives
 * keep build logs pointing at the right file and line. Only that quoted form on a line of its own is
 * understood: another #include line, a nested one or a missing file fails the fetch (CLF_ERR_BUILD;
 * CLF_ERR_IO when a file of CLFORGE_KERNEL_DIR cannot be read). Expanded texts live until exit, like
 * the files they come from, and are memoised by the address of the unexpanded text. */

#define CLF__NEXPANDED 64
static struct { const char *raw; const char *text; } clf__expanded[CLF__NEXPANDED];

static int clf__blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Line [p, end): 0 if it is no #include directive; 1 if it is `#include "name"` with a valid file name
 * (copied to inc) and nothing after it but blanks; -1 if it is an #include of another form. */
static int clf__include_line(const char *p, const char *end, char inc[64])
{
    while (p < end && clf__blank(*p)) p++;
    if (p == end || *p != '#') return 0;
    for (p++; p < end && clf__blank(*p); p++) {}
    if (end - p < 7 || strncmp(p, "include", 7) != 0) return 0;
    p += 7;
    if (p < end && !clf__blank(*p) && *p != '"' && *p != '<') return 0;   /* e.g. #include_next */
    while (p < end && clf__blank(*p)) p++;
    if (p == end || *p != '"') return -1;
    const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
    if (!q || q - (p + 1) >= 64) return -1;
    for (const char *r = q + 1; r < end; r++)
        if (!clf__blank(*r)) return -1;
    memcpy(inc, p + 1, (size_t)(q - (p + 1)));
    inc[q - (p + 1)] = '\0';
    return clf__valid_name(inc) ? 1 : -1;
}

/* 1 if some line of text is an #include directive (of any form). */
static int clf__has_include(const char *text)
{
    char inc[64];
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        const char *end = eol ? eol : p + strlen(p);
        if (clf__include_line(p, end, inc)) return 1;
        p = eol ? eol + 1 : end;
    }
    return 0;
}

/* The unexpanded text of one file: from CLFORGE_KERNEL_DIR (read once, then kept) when dir is set,
 * else embedded (NULL there when absent: *out stays NULL and CLF_SUCCESS is returned). Lock held. */
static clf_status clf__raw(const char *dir, const char *name, const char **out)
{
    *out = NULL;
    if (dir) {
        for (int i = 0; i < 32 && clf__loaded[i].text; i++)
            if (strcmp(clf__loaded[i].name, name) == 0) { *out = clf__loaded[i].text; return CLF_SUCCESS; }
        return clf__read_override(dir, name, out);
    }
    for (const struct clf__embedded *e = clf__embedded_kernels; e->name; e++)
        if (strcmp(e->name, name) == 0) { *out = e->data; break; }
    return CLF_SUCCESS;
}

typedef struct clf__strbuf { char *p; size_t len, cap; } clf__strbuf;

static int clf__append(clf__strbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 16384;
        while (b->len + n + 1 > cap) cap *= 2;
        char *t = realloc(b->p, cap);
        if (!t) return 0;
        b->p = t;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 1;
}

/* One #include of file `name` at `line`: appends the included text between #line directives. */
static clf_status clf__include(const char *dir, const char *name, int line, const char *inc, clf__strbuf *b)
{
    const char *text;
    clf_status s = clf__raw(dir, inc, &text);
    if (s) {
        char why[512];
        snprintf(why, sizeof why, "%s", clf_last_error());
        return clf__fail(s, "kernel source %s, line %d: #include \"%s\": %s", name, line, inc, why);
    }
    if (!text)
        return clf__fail(CLF_ERR_BUILD, "kernel source %s, line %d: #include \"%s\": no such kernel file in this build",
                         name, line, inc);
    if (clf__has_include(text))
        return clf__fail(CLF_ERR_BUILD, "kernel source %s, line %d: \"%s\" has an #include itself (one level only)",
                         name, line, inc);
    char mark[160];
    size_t n = strlen(text);
    int ok = snprintf(mark, sizeof mark, "#line 1 \"%s\"\n", inc) > 0 && clf__append(b, mark, strlen(mark)) &&
             clf__append(b, text, n) && (n == 0 || text[n - 1] == '\n' || clf__append(b, "\n", 1)) &&
             snprintf(mark, sizeof mark, "#line %d \"%s\"\n", line + 1, name) > 0 && clf__append(b, mark, strlen(mark));
    return ok ? CLF_SUCCESS : clf__fail(CLF_ERR_OUT_OF_MEMORY, "expanding kernel source %s", name);
}

/* raw with its #include lines expanded (raw itself when it has none), memoised. Lock held. */
static clf_status clf__expand(const char *dir, const char *name, const char *raw, const char **out)
{
    int slot = -1;
    for (int i = 0; i < CLF__NEXPANDED; i++) {
        if (clf__expanded[i].raw == raw) { *out = clf__expanded[i].text; return CLF_SUCCESS; }
        if (!clf__expanded[i].raw) { slot = i; break; }
    }
    if (!clf__has_include(raw)) {
        if (slot >= 0) { clf__expanded[slot].raw = raw; clf__expanded[slot].text = raw; }
        *out = raw;
        return CLF_SUCCESS;
    }
    if (slot < 0) return clf__fail(CLF_ERR_INTERNAL, "too many kernel sources with #include lines");
    clf__strbuf b = {NULL, 0, 0};
    clf_status s = CLF_SUCCESS;
    char inc[64];
    int line = 1;
    for (const char *p = raw; *p && !s; line++) {
        const char *eol = strchr(p, '\n');
        const char *end = eol ? eol : p + strlen(p);
        const char *next = eol ? eol + 1 : end;
        int kind = clf__include_line(p, end, inc);
        if (kind < 0)
            s = clf__fail(CLF_ERR_BUILD, "kernel source %s, line %d: only #include \"file.cl\" (a file of the kernel "
                          "folder, on a line of its own) is supported", name, line);
        else if (kind > 0)
            s = clf__include(dir, name, line, inc, &b);
        else if (!clf__append(&b, p, (size_t)(next - p)))
            s = clf__fail(CLF_ERR_OUT_OF_MEMORY, "expanding kernel source %s", name);
        p = next;
    }
    if (s) {
        free(b.p);
        return s;
    }
    clf__expanded[slot].raw = raw;
    clf__expanded[slot].text = b.p;
    *out = b.p;
    return CLF_SUCCESS;
}

clf_status clf__source(const char *name, const char **out)
{
    if (!name || !out || !clf__valid_name(name))
        return clf__fail(CLF_ERR_INVALID_ARG, "invalid kernel source name");
    const char *dir = getenv("CLFORGE_KERNEL_DIR");
    if (dir && !*dir) dir = NULL;
    pthread_mutex_lock(&clf__src_lock);
    const char *raw;
    clf_status s = clf__raw(dir, name, &raw);
    if (!s && !raw) s = clf__fail(CLF_ERR_INTERNAL, "kernel source %s is not embedded in this build", name);
    if (!s) s = clf__expand(dir, name, raw, out);
    pthread_mutex_unlock(&clf__src_lock);
    return s;
}
