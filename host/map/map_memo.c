/* map_memo.c — generated clf_map sources remembered per process, keyed by the expression text and what the
 * source depends on besides it (which names are scalars, each buffer's storage type, fp64). Generating the
 * source formats the whole cl/map.cl skeleton; that was most of a small map's host time. The source does not
 * depend on the device or the configuration (those go into the build options), so one table serves every
 * context. Callers get a copy: the plan owns and frees its source as before. */
#include "map.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define MEMO_SLOTS 64   /* distinct maps a process runs repeatedly; older ones are generated again */

typedef struct memo_entry {
    XXH64_hash_t hash;
    char *key;
    char *src;
    size_t len;
} memo_entry;

static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static memo_entry memo[MEMO_SLOTS];
static unsigned memo_next;   /* round-robin replacement */

/* "<expr>\n<f64><one letter per name: s scalar, else the buffer's storage type>" (malloc'ed; NULL: no memory). */
static char *make_key(const char *expr, const map_plan *pl, size_t *len)
{
    size_t n = strlen(expr), names = (size_t)pl->ex.nnames;
    char *k = malloc(n + names + 3);
    if (!k) return NULL;
    memcpy(k, expr, n);
    k[n] = '\n';
    k[n + 1] = pl->f64 ? 'd' : 'f';
    for (size_t i = 0; i < names; i++) k[n + 2 + i] = pl->p[i].scalar ? 's' : (char)('a' + (int)pl->p[i].dt);
    k[n + 2 + names] = '\0';
    *len = n + 2 + names;
    return k;
}

int clf__map_memo_find(const char *expr, map_plan *pl)
{
    size_t klen;
    char *key = make_key(expr, pl, &klen);
    if (!key) return 0;
    XXH64_hash_t h = XXH3_64bits(key, klen);
    char *copy = NULL;
    pthread_mutex_lock(&memo_lock);
    for (int i = 0; i < MEMO_SLOTS; i++) {
        const memo_entry *e = &memo[i];
        if (e->key && e->hash == h && strcmp(e->key, key) == 0) {
            if ((copy = malloc(e->len + 1))) memcpy(copy, e->src, e->len + 1);
            break;
        }
    }
    pthread_mutex_unlock(&memo_lock);
    free(key);
    if (copy) pl->src = copy;
    return copy != NULL;
}

void clf__map_memo_keep(const char *expr, const map_plan *pl)
{
    size_t klen, slen = strlen(pl->src);
    char *key = make_key(expr, pl, &klen), *src = malloc(slen + 1);
    if (!key || !src) {
        free(key);
        free(src);
        return;   /* not remembered: generated again next time */
    }
    memcpy(src, pl->src, slen + 1);
    pthread_mutex_lock(&memo_lock);
    memo_entry *e = &memo[memo_next++ % MEMO_SLOTS];
    char *old_key = e->key, *old_src = e->src;
    *e = (memo_entry){.hash = XXH3_64bits(key, klen), .key = key, .src = src, .len = slen};
    pthread_mutex_unlock(&memo_lock);
    free(old_key);
    free(old_src);
}
