/* space.c — a family's configuration space: enumeration, random draws and neighbourhoods, all
 * filtered by the family's validity predicate. */
#include "autotune.h"

#include <string.h>

uint64_t clf__rng_next(clf__rng *r)
{
    /* splitmix64: small, fast, and good enough to shuffle candidates */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

unsigned clf__rng_below(clf__rng *r, unsigned n)
{
    return n ? (unsigned)(clf__rng_next(r) % n) : 0;
}

double clf__space_size(const clf__family *f)
{
    double n = 1;
    for (int i = 0; i < f->nparams; i++)
        n *= f->params[i].nvalues > 0 ? f->params[i].nvalues : 1;
    return n;
}

void clf__space_first(const clf__family *f, clf__config *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < f->nparams; i++)
        c->v[i] = f->params[i].values[0];
}

static int value_pos(const clf__param *p, int v)
{
    for (int i = 0; i < p->nvalues; i++)
        if (p->values[i] == v)
            return i;
    return -1;
}

int clf__space_next(const clf__family *f, clf__config *c)
{
    /* the last parameter varies fastest */
    for (int i = f->nparams - 1; i >= 0; i--) {
        const clf__param *p = &f->params[i];
        int pos = value_pos(p, c->v[i]);
        if (pos >= 0 && pos + 1 < p->nvalues) {
            c->v[i] = p->values[pos + 1];
            return 1;
        }
        c->v[i] = p->values[0];
    }
    return 0;
}

void clf__space_decode(const clf__family *f, uint64_t index, clf__config *c)
{
    memset(c, 0, sizeof *c);
    for (int i = f->nparams - 1; i >= 0; i--) {
        unsigned n = (unsigned)(f->params[i].nvalues > 0 ? f->params[i].nvalues : 1);
        c->v[i] = f->params[i].values[index % n];
        index /= n;
    }
}

void clf__perm_init(clf__perm *p, uint64_t size, clf__rng *r)
{
    uint64_t m = 1;
    while (m < size)
        m <<= 1;
    p->size = size;
    p->mask = m - 1;
    /* x -> a*x + c modulo a power of two has full period when a = 1 (mod 4) and c is odd */
    p->a = (clf__rng_next(r) & ~(uint64_t)3) | 1;
    p->c = clf__rng_next(r) | 1;
    p->x = clf__rng_next(r) & p->mask;
    p->left = size;
}

int clf__perm_next(clf__perm *p, uint64_t *out)
{
    if (p->left == 0)
        return 0;
    do   /* values past size are skipped: the sequence visits each of [0, size) once */
        p->x = (p->a * p->x + p->c) & p->mask;
    while (p->x >= p->size);
    p->left--;
    *out = p->x;
    return 1;
}

int clf__space_contains(const clf__family *f, const clf__config *c)
{
    for (int i = 0; i < f->nparams; i++)
        if (value_pos(&f->params[i], c->v[i]) < 0)
            return 0;
    return 1;
}

int clf__space_random(const clf__family *f, const clf_device_info *dev, clf_dtype dt, clf__rng *r, int tries,
                      clf__config *out)
{
    for (int t = 0; t < tries; t++) {
        clf__config c;
        memset(&c, 0, sizeof c);
        for (int i = 0; i < f->nparams; i++)
            c.v[i] = f->params[i].values[clf__rng_below(r, (unsigned)f->params[i].nvalues)];
        if (f->valid(&c, dev, dt)) {
            *out = c;
            return 1;
        }
    }
    return 0;
}

static int seen_in(const clf__config *list, int n, const clf__config *c)
{
    for (int i = 0; i < n; i++)
        if (memcmp(&list[i], c, sizeof *c) == 0)
            return 1;
    return 0;
}

static void shuffle(clf__config *a, int n, clf__rng *r)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)clf__rng_below(r, (unsigned)i + 1);
        clf__config t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Moves parameter i of c by delta positions in its value list; 0 when that leaves the list. */
static int step(const clf__family *f, clf__config *c, int i, int delta)
{
    int pos = value_pos(&f->params[i], c->v[i]);
    int np = pos + delta;
    if (pos < 0 || np < 0 || np >= f->params[i].nvalues)
        return 0;
    c->v[i] = f->params[i].values[np];
    return 1;
}

int clf__space_neighbors(const clf__family *f, const clf_device_info *dev, clf_dtype dt, const clf__config *c,
                         clf__rng *r, clf__config *out, int cap)
{
    int n = 0, nsingle;
    static const int deltas[] = {-1, 1, -2, 2};
    /* single-parameter moves first: they are the likeliest improvements */
    for (int i = 0; i < f->nparams && n < cap; i++)
        for (int d = 0; d < 4 && n < cap; d++) {
            clf__config x = *c;
            if (step(f, &x, i, deltas[d]) && !seen_in(out, n, &x) && f->valid(&x, dev, dt))
                out[n++] = x;
        }
    nsingle = n;
    /* pairs moved together reach configurations that only become valid in combination
     * (a larger tile needs a larger work-group, say) */
    for (int i = 0; i < f->nparams && n < cap; i++)
        for (int j = i + 1; j < f->nparams && n < cap; j++)
            for (int d = 0; d < 4 && n < cap; d++) {
                clf__config x = *c;
                if (step(f, &x, i, d & 1 ? 1 : -1) && step(f, &x, j, d & 2 ? 1 : -1) && !seen_in(out, n, &x) &&
                    f->valid(&x, dev, dt))
                    out[n++] = x;
            }
    shuffle(out, nsingle, r);
    shuffle(out + nsingle, n - nsingle, r);
    return n;
}

long clf__space_count_valid(const clf__family *f, const clf_device_info *dev, clf_dtype dt, const char *bucket,
                            long limit)
{
    clf__config c;
    long n = 0;
    clf__space_first(f, &c);
    do {
        if (f->valid(&c, dev, dt) && clf__config_in_bucket(f, &c, bucket) && ++n >= limit)
            break;
    } while (clf__space_next(f, &c));
    return n;
}
