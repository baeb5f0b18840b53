/*
 * ompt_pool.c - per-thread free lists for the OMPT tool's state of
 * regions, implicit tasks and explicit tasks (hp_ompt.h).  Each is
 * allocated at a construct's begin and freed at its end, often on another
 * thread (a task created by one thread and completed by another); glibc's
 * malloc and free then cost about 130 instructions a pair, a list a few.
 *
 * An object has a small header naming the pool of the thread that
 * allocated it (its owner) and its size class (64-byte classes up to 512
 * bytes; larger objects, and those made without a pool, have no owner and
 * go back to malloc).  Freed by its owner, it goes on the owner's local
 * list (beyond POOL_KEEP per class, back to malloc); freed by another
 * thread, on the owner's remote list (a lock-free push), which the owner
 * takes whole when its local list is empty.  So objects return to the
 * thread that allocates them, whichever thread ends them.  A pool is never
 * freed (other threads may still return objects to it): when its thread
 * exits its lists go back to malloc and it is marked dead, and objects
 * freed to it later go to malloc.
 */
#include "config.h"

#ifdef HAVE_OMPT
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "hp_ompt.h"

#define POOL_CLASS_BYTES 64
#define POOL_CLASSES 8
#define POOL_KEEP 1024

typedef struct pool pool;

typedef struct obj_head {
    pool *owner;              /* NULL: from malloc, back to malloc */
    size_t cls;               /* its size class (16 bytes: objects stay aligned) */
} obj_head;

typedef struct pool_obj {     /* a free object's header */
    obj_head h;
    struct pool_obj *next;
} pool_obj;

struct pool {
    pool_obj *local[POOL_CLASSES];
    uint32_t nlocal[POOL_CLASSES];
    pool_obj *_Atomic remote[POOL_CLASSES];
    _Atomic int dead;         /* its thread exited */
};

static __thread pool *my_pool __attribute__((tls_model("initial-exec")));
static pthread_key_t pool_key;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static int pool_key_ok;

static size_t class_of(size_t size)
{
    return size ? (size - 1) / POOL_CLASS_BYTES : 0;
}

static void free_list(pool_obj *o)
{
    while (o) {
        pool_obj *next = o->next;
        free(o);
        o = next;
    }
}

/* At a thread's exit: its lists go back to malloc, the pool stays. */
static void pool_retire(void *arg)
{
    pool *p = arg;
    atomic_store(&p->dead, 1);
    for (int c = 0; c < POOL_CLASSES; c++) {
        free_list(p->local[c]);
        p->local[c] = NULL;
        p->nlocal[c] = 0;
        free_list(atomic_exchange(&p->remote[c], NULL));
    }
    my_pool = NULL;
}

static void pool_key_create(void)
{
    pool_key_ok = pthread_key_create(&pool_key, pool_retire) == 0;
}

/* The calling thread's pool, made on its first allocation; NULL without
 * one (no memory, no key). */
static pool *pool_self(void)
{
    pool *p = my_pool;
    if (__builtin_expect(p != NULL, 1))
        return p;
    pthread_once(&pool_once, pool_key_create);
    if (!pool_key_ok || !(p = calloc(1, sizeof *p)))
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
    pool *p = c < POOL_CLASSES ? pool_self() : NULL;
    pool_obj *o = NULL;
    if (p) {
        o = p->local[c];
        if (!o && atomic_load_explicit(&p->remote[c], memory_order_relaxed))
            o = atomic_exchange(&p->remote[c], NULL);   /* returned by other threads */
        if (o) {
            p->local[c] = o->next;
            if (p->nlocal[c])
                p->nlocal[c]--;
            return &o->h + 1;
        }
    }
    obj_head *h = malloc(sizeof *h + (p ? (c + 1) * POOL_CLASS_BYTES : size));
    if (!h)
        return NULL;
    *h = (obj_head){p, c};
    return h + 1;
}

void hp_ompt_free(void *obj, size_t size)
{
    if (!obj)
        return;
    pool_obj *o = (pool_obj *)((obj_head *)obj - 1);
    pool *p = o->h.owner;
    size_t c = o->h.cls;
    assert(!p || c == class_of(size));
    (void)size;
    if (!p) {
        free(o);
    } else if (p == my_pool) {
        if (p->nlocal[c] >= POOL_KEEP) {
            free(o);
            return;
        }
        o->next = p->local[c];
        p->local[c] = o;
        p->nlocal[c]++;
    } else if (atomic_load(&p->dead)) {
        free(o);
    } else {
        o->next = atomic_load_explicit(&p->remote[c], memory_order_relaxed);
        while (!atomic_compare_exchange_weak_explicit(&p->remote[c], &o->next, o,
                                                      memory_order_release,
                                                      memory_order_relaxed))
            ;
    }
}
#endif
