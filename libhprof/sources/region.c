/*
 * region.c - user regions of the public API (hprof.h), also the target of
 * hprof-instrument's "#pragma hprof region begin/end NAME":
 * hprof_region_begin/end open and close a calling-context node of kind
 * region named NAME.  Its site is keyed by the name's content and the
 * caller's return address (a dynamic site, resolved to file:line at the
 * end of the run like the other dynamic sites), so one name used at two
 * places gives two sites.  Each thread keeps a stack of its open regions;
 * an end that does not name the innermost open region of the thread is
 * ignored after one warning (per process).  Nodes go through the event
 * boundary (hp_event.h): recursion folding, throttling, the context.
 * Fortran calls them through the module hprof (hprof.f90) as
 * hprof_region_begin_/end_, a CHARACTER name with its hidden length:
 * the name without its trailing blanks.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "hprof.h"
#include "hp_event.h"
#include "hp_log.h"
#include "hp_site.h"

#define REGION_MAX_DEPTH 64

typedef struct region_open {
    uint64_t hash;          /* of the name: what an end must match */
    hp_thread *t;           /* recorder, NULL when not recorded */
    hprof_frame f;
} region_open;

typedef struct region_stack {
    uint32_t n;             /* open regions, those past the array included */
    region_open e[REGION_MAX_DEPTH];
} region_stack;

static __thread region_stack *rstack;
static int warned_mismatch, warned_depth;

/* Interned names: the registry keeps site names as static strings. */
typedef struct region_name {
    struct region_name *next;
    uint64_t hash;
    char name[];
} region_name;
static region_name *names;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static const char *intern(const char *s, uint64_t hash)
{
    region_name *r;
    size_t n = strlen(s);
    pthread_mutex_lock(&names_lock);
    for (r = names; r; r = r->next)
        if (r->hash == hash && strcmp(r->name, s) == 0)
            break;
    if (!r && (r = malloc(sizeof *r + n + 1))) {
        r->hash = hash;
        memcpy(r->name, s, n + 1);
        r->next = names;
        names = r;
    }
    pthread_mutex_unlock(&names_lock);
    return r ? r->name : NULL;
}

static uint32_t region_site(hp_thread *t, const char *name, uint64_t hash, uintptr_t addr)
{
    uint64_t key = hp_site_key(addr, HP_KIND_REGION) ^ hash;
    uint32_t site = hp_event_site_cached(t, key);
    if (site != HP_MAP_MISSING)
        return site;
    const char *iname = intern(name, hash);   /* only for a new site */
    if (!iname)
        return HP_SITE_OVERFLOW;
    return hp_event_site_keyed(t, key, addr, HP_KIND_REGION, iname, 0);
}

static region_stack *stack_get(void)
{
    region_stack *s = rstack;
    if (__builtin_expect(!s, 0))
        s = rstack = calloc(1, sizeof *s);
    return s;
}

/* A region named name opened by the call that returns to addr. */
static void region_begin(const char *name, uintptr_t addr)
{
    region_stack *s = stack_get();
    if (!s)
        return;
    if (!name)
        name = "";
    uint32_t i = s->n++;
    if (i >= REGION_MAX_DEPTH) {
        if (!__atomic_exchange_n(&warned_depth, 1, __ATOMIC_RELAXED))
            hp_warn("user regions nested deeper than %d: the inner ones are not recorded",
                    REGION_MAX_DEPTH);
        return;
    }
    region_open *o = &s->e[i];
    o->hash = name_hash(name);
    o->t = NULL;
    o->f.node = HP_FRAME_OFF;
    hp_thread *t;
    if (!hp_collecting || !(t = hp_thread_self()))
        return;
    o->t = t;
    hp_event_enter(t, &o->f, region_site(t, name, o->hash, addr), 0);
}

__attribute__((noinline)) void hprof_region_begin(const char *name)
{
    region_begin(name, (uintptr_t)__builtin_return_address(0));
}

__attribute__((noinline)) void hprof_region_end(const char *name)
{
    region_stack *s = rstack;
    uint64_t hash = name_hash(name ? name : "");
    if (s && s->n > REGION_MAX_DEPTH) {
        s->n--;     /* closes a region past the stack: not recorded */
        return;
    }
    if (!s || !s->n || s->e[s->n - 1].hash != hash) {
        if (!__atomic_exchange_n(&warned_mismatch, 1, __ATOMIC_RELAXED))
            hp_warn("hprof_region_end(\"%s\") does not close the innermost open region "
                    "of its thread: ignored (further mismatches are not reported)",
                    name ? name : "");
        return;
    }
    region_open *o = &s->e[--s->n];
    if (o->t && o->t == hp_tls_self)
        hp_event_exit(o->t, &o->f);
}

/* ------------------------------------------------------------- Fortran */
#define FORTRAN_NAME_MAX 256

/* A Fortran CHARACTER(len) as a C string in buf: trailing blanks off. */
static const char *fortran_name(const char *name, size_t len, char *buf)
{
    while (len && name[len - 1] == ' ')
        len--;
    if (len >= FORTRAN_NAME_MAX)
        len = FORTRAN_NAME_MAX - 1;
    memcpy(buf, name, len);
    buf[len] = '\0';
    return buf;
}

HPROF_API void hprof_region_begin_(const char *name, size_t len);
HPROF_API void hprof_region_end_(const char *name, size_t len);

__attribute__((noinline)) void hprof_region_begin_(const char *name, size_t len)
{
    char buf[FORTRAN_NAME_MAX];
    region_begin(fortran_name(name, len, buf), (uintptr_t)__builtin_return_address(0));
}

void hprof_region_end_(const char *name, size_t len)
{
    char buf[FORTRAN_NAME_MAX];
    hprof_region_end(fortran_name(name, len, buf));
}
