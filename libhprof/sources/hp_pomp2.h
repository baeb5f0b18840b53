/*
 * hp_pomp2.h - what the files of the POMP2 source share: the regions made
 * from opari2's ctc strings and the runtime calls found at start-up
 * (pomp2_region.c), the per-thread stack of open constructs (pomp2_scope.c),
 * teams (pomp2_team.c), constructs (pomp2_construct.c), tasks
 * (pomp2_task.c) and locks (pomp2_lock.c).  The source records through
 * the event boundary (hp_event.h) only.
 */
#ifndef HP_POMP2_H
#define HP_POMP2_H

#include <pthread.h>
#include <stdint.h>
#include "hp_omp.h"

#define API __attribute__((visibility("default")))
#define RET ((uintptr_t)__builtin_return_address(0))

typedef void *POMP2_Region_handle;
typedef int64_t POMP2_Task_handle;

/* ------------------------------------------------------------- regions */

struct p2_team;

typedef struct p2_region {
    char *file;
    uint32_t line, end_line;
    char *type;                      /* regionType */
    char *user_name;                 /* userRegionName (user regions) */
    uint32_t site[HP_OMP_NWHAT];     /* 0 until first used */
    uint32_t user_site;
    struct p2_team *team;            /* forked outside any parallel region */
    struct p2_team *nested;          /* forked inside one: list, under nest_lock */
    pthread_mutex_t nest_lock;
} p2_region;

typedef struct p2_team {
    hp_omp_team ctx;
    hp_thread *master;               /* NULL: not recorded */
    uint64_t fork_start, master_end, key;
    p2_region *region;
    struct p2_team *next;
} p2_team;

typedef void (*lock_fn)(void *);
typedef int (*test_fn)(void *);
typedef int (*int_fn)(void);
typedef int (*int_int_fn)(int);

typedef struct hp_p2_calls {
    lock_fn init_lock, destroy_lock, set_lock, unset_lock;
    lock_fn init_nest_lock, destroy_nest_lock, set_nest_lock, unset_nest_lock;
    test_fn test_lock, test_nest_lock;
    int_fn get_level, get_max_threads;
    int_int_fn get_ancestor;
} hp_p2_calls;

/* The OpenMP runtime's calls (NULL: missing), valid after ensure_init. */
extern hp_p2_calls hp_p2_rt;
extern int hp_p2_init_done;
extern volatile int hp_p2_off;      /* POMP2_Off .. POMP2_On */
void hp_p2_init(void);

static inline void ensure_init(void)
{
    if (__builtin_expect(!__atomic_load_n(&hp_p2_init_done, __ATOMIC_ACQUIRE), 0))
        hp_p2_init();
}

API void POMP2_Assign_handle(POMP2_Region_handle *handle, const char ctc_string[]);
API POMP2_Task_handle POMP2_Get_new_task_handle(void);

/* The region of *handle (assigned from ctc when still unset), or NULL. */
static inline p2_region *region_of(POMP2_Region_handle *handle, const char *ctc)
{
    ensure_init();
    if (!handle)
        return NULL;
    p2_region *r = __atomic_load_n((p2_region **)handle, __ATOMIC_ACQUIRE);
    if (__builtin_expect(!r, 0) && ctc) {
        POMP2_Assign_handle(handle, ctc);
        r = __atomic_load_n((p2_region **)handle, __ATOMIC_ACQUIRE);
    }
    return r;
}


/* The region's site for construct `what`; a user region's site. */
uint32_t hp_p2_region_site(p2_region *r, int what);
uint32_t hp_p2_user_site(p2_region *r);

/* ------------------------------------------------------ per-thread state */

#define MAX_PAR 16     /* open parallel regions per thread */

typedef struct p2_par {
    hprof_frame f;
    hp_omp_saved saved;
    int opened;
    p2_team *team;
    POMP2_Task_handle old_task;
} p2_par;

typedef struct p2_scope {
    p2_region *r;
    int what;               /* HP_OMP_* or -1 (user region) */
    hp_thread *t;           /* NULL: not recorded */
    uint64_t start;
    uint64_t mark;          /* waits: hp_event_wait_mark at the start */
    POMP2_Task_handle old_task;
    hprof_frame f;          /* constructs with a body, user regions */
    POMP2_Task_handle task; /* tasks: the instance created or run */
    hp_task_run run;        /* a task's execution */
} p2_scope;

typedef struct p2_tls {
    uint32_t npar, nfork, nscope, scope_cap;
    p2_par par[MAX_PAR];
    p2_team fork[MAX_PAR];  /* teams this thread forked */
    p2_scope *scope;        /* open constructs, as deep as tasks nest (hp_stack.h) */
    hp_omp_locks locks;
    POMP2_Task_handle task;  /* the current task's id */
} p2_tls;

extern __thread p2_tls *hp_p2_tls __attribute__((tls_model("initial-exec")));
p2_tls *hp_p2_tls_get(void);

/* The thread to record into, or NULL. */
static inline hp_thread *recorder(void)
{
    if (!hp_collecting || hp_p2_off)
        return NULL;
    return hp_thread_self();
}


/* The per-thread stack of open constructs (pomp2_scope.c). */
p2_scope *hp_p2_scope_push(p2_region *r, int what, uint64_t now);
int hp_p2_scope_pop(p2_region *r, int what, p2_scope *out);
/* enter .. exit of `what`, recorded at exit; the exit returns the time. */
void hp_p2_timed_enter(POMP2_Region_handle *h, const char *ctc, int what);
uint64_t hp_p2_timed_exit(POMP2_Region_handle *h, int what);
/* The waits at task scheduling points (barriers, taskwaits). */
void hp_p2_barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task,
                         const char *ctc, int what);
void hp_p2_barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task, int what);

#endif
