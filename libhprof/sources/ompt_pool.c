/*
 * ompt_pool.c - per-thread free lists for the OMPT tool's state of
 * regions, implicit tasks and explicit tasks (hp_ompt.h).  Each is
 * allocated at a construct's begin and freed at its end, often on another
 * thread; glibc's malloc and free then cost about 130 instructions a pair,
 * a list a few.  Sizes round up to classes of 64 bytes (up to 512; larger
 * objects go to malloc); a thread keeps at most POOL_KEEP objects per
 * class (what it frees beyond goes back to malloc), and its lists go back
 * to malloc when it exits.
 */
#include "config.h"

#ifdef HAVE_OMPT
#include <pthread.h>
#include <stdlib.h>
#include "hp_ompt.h"

#define POOL_CLASS_BYTES 64
#define POOL_CLASSES 8
#define POOL_KEEP 64

typedef struct pool_obj {
    struct pool_obj *next;
} pool_obj;

typedef struct pool {
    pool_obj *head[POOL_CLASSES];
    uint32_t n[POOL_CLASSES];
} pool;

static __thread pool *my_pool __attribute__((tls_model("initial-exec")));
static pthread_key_t pool_key;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static size_t class_of(size_t size)
{
    return size ? (size - 1) / POOL_CLASS_BYTES : 0;
}

/* At a thread's exit: its lists go back to malloc. */
static void pool_release(void *arg)
{
    pool *p = arg;
    for (int c = 0; c < POOL_CLASSES; c++)
        while (p->head[c]) {
            pool_obj *o = p->head[c];
            p->head[c] = o->next;
            free(o);
        }
    free(p);
}

static void pool_key_create(void)
{
    if (pthread_key_create(&pool_key, pool_release) != 0)
        pool_key = (pthread_key_t)-1;
}

/* The calling thread's pool, made on its first free; NULL without memory. */
static pool *pool_self(void)
{
    pool *p = my_pool;
    if (__builtin_expect(p != NULL, 1))
        return p;
    pthread_once(&pool_once, pool_key_create);
    if (pool_key == (pthread_key_t)-1 || !(p = calloc(1, sizeof *p)))
        return NULL;
    if (pthread_setspecific(pool_key, p) != 0) {
        free(p);
        return NULL;
    }
    return my_pool = p;
}

void *hp_ompt_alloc(size_t size)
{
    size_t c = class_of(size);
    if (c >= POOL_CLASSES)
        return malloc(size);
    pool *p = my_pool;
    pool_obj *o = p ? p->head[c] : NULL;
    if (!o)
        return malloc((c + 1) * POOL_CLASS_BYTES);
    p->head[c] = o->next;
    p->n[c]--;
    return o;
}

void hp_ompt_free(void *obj, size_t size)
{
    size_t c = class_of(size);
    pool *p;
    if (!obj)
        return;
    if (c >= POOL_CLASSES || !(p = pool_self()) || p->n[c] >= POOL_KEEP) {
        free(obj);
        return;
    }
    pool_obj *o = obj;
    o->next = p->head[c];
    p->head[c] = o;
    p->n[c]++;
}
#endif
