/*
 * gomp_task.c - the GOMP source's tasks and taskloops:
 *  - GOMP_task: "task create" (time in the call less the tasks it ran, e.g.
 *    an undeferred if(0) task or a full queue's, recorded as "task"),
 *    and "task", the execution, on the thread that runs it, both keyed by
 *    the task's outlined function (at the pragma's line: hp_omp_lines.h);
 *  - GOMP_taskloop / GOMP_taskloop_ull: "task create" once per task made
 *    (time: the whole call, less the tasks this thread ran in it, with the
 *    wait for the tasks unless nogroup) and "task" per execution.
 * libgomp gets a trampoline and a larger argument block (see wrap_hdr)
 * that carries the task's instance id to the executing thread; the
 * execution is an open node (hp_task.h), so what the task does is
 * recorded below it, and left out of the taskwait/barrier/task create
 * time of whatever the thread was waiting in.  Every task is wrapped,
 * whatever its block's size, copy function, detach clause or task
 * reduction, so that creations = executions; the one exception is a
 * nogroup taskloop whose tasks cannot be counted safely before the call
 * returns (see loop_count_made): it counts one creation.
 * A wrapped task still runs the user's function on the user's block.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include "hp_gomp.h"
#include "hp_gomp_join.h"

/* ------------------------------------------------------- wrapped blocks */

/* The block libgomp gets for a wrapped task: the leading words libgomp
 * uses stay in place (`head` bytes: none for a plain task; a detachable
 * task's event handle, which libgomp writes into the first word; a
 * taskloop task's bounds, two words libgomp writes, and the third word it
 * reads for a task reduction), this header follows them, and the user's
 * whole block follows at `off`, aligned as the user's.  The trampoline
 * copies the words libgomp wrote (`live`) into the user's block and runs
 * the user's function on it where it lies: a block that the user's copy
 * function built (whose fields may point into it) never moves, and blocks
 * of any size are wrapped. */
typedef struct wrap_hdr {
    void (*fn)(void *);             /* the outlined task function */
    void (*cpyfn)(void *, void *);  /* the user's copy function, or NULL */
    void *src;                      /* the user's data (valid in the creating call only) */
    long off, size;                 /* the user's block in the task's block, its size */
    long live;                      /* leading bytes libgomp writes into the task's block */
    uint64_t id;                    /* the task instance, 0: made when it runs (taskloop) */
    uint32_t site;                  /* its "task" site (sites are the process's) */
    _Atomic unsigned long *ran;     /* taskloop tasks run, for the creator (or NULL) */
    _Atomic unsigned long *made;    /* taskloop tasks made, counted by the copy (or NULL) */
} wrap_hdr;

#define TASK_HEAD 0L
#define DETACH_HEAD ((long)sizeof(void *))   /* a detachable task's event handle */
#define LOOP_HEAD 24L      /* a taskloop task's bounds (two longs or unsigned long
                              longs) and its task reduction's pointer */
#define LOOP_LIVE 16L      /* of which libgomp writes the bounds */
#define WRAP_STACK_MAX 4096   /* larger blocks are built in the heap */
#define GOMP_TASK_FLAG_UP (1u << 8)
#define GOMP_TASK_FLAG_GRAINSIZE (1u << 9)
#define GOMP_TASK_FLAG_NOGROUP (1u << 11)

/* The sites of a task construct, keyed by its outlined function: a
 * thread's few last ones, so that creating a task looks up none of them
 * in the thread's site table again and running it none at all. */
typedef struct task_sites {
    uintptr_t fn;
    uint32_t create, run;
} task_sites;

#define TASK_SITES_MEMO 8   /* a power of two */
static __thread task_sites sites_memo[TASK_SITES_MEMO] __attribute__((tls_model("initial-exec")));

static const task_sites *sites_of(hp_thread *t, void (*fn)(void *))
{
    uintptr_t a = (uintptr_t)fn;
    task_sites *m = &sites_memo[(a >> 4) & (TASK_SITES_MEMO - 1)];
    if (__builtin_expect(m->fn != a, 0)) {
        m->create = hp_omp_site(t, a, 1, HP_OMP_TASK_CREATE);
        m->run = hp_omp_site(t, a, 1, HP_OMP_TASK);
        m->fn = a;
    }
    return m;
}

static void run_wrapped(char *arg, long head)
{
    wrap_hdr *h = (wrap_hdr *)(arg + head);
    void (*fn)(void *) = h->fn;
    char *blk = arg + h->off;
    if (h->live)
        __builtin_memcpy(blk, arg, h->live);
    if (h->ran)
        atomic_fetch_add(h->ran, 1);
    void (*outer)(void *) = hp_gomp_cur_fn;
    hp_thread *t = ompt_on() ? NULL : hp_thread_self();
    hp_task_run run;
    if (t)
        hp_event_task_begin(t, &run, h->site, h->id ? h->id : hp_event_task_new_id(t));
    hp_gomp_cur_fn = fn;
    hp_gomp_run_outlined(fn, blk);
    hp_gomp_cur_fn = outer;
    if (t)
        hp_event_task_end(t, &run);
    hp_gomp_part_busy();   /* run in a region's end barrier: its release is later */
}

static void task_tramp(void *arg)
{
    run_wrapped(arg, TASK_HEAD);
}

static void detach_tramp(void *arg)
{
    run_wrapped(arg, DETACH_HEAD);
}

static void loop_tramp(void *arg)
{
    run_wrapped(arg, LOOP_HEAD);
}

/* The copy function handed to libgomp when the user has one (or when a
 * taskloop's tasks are counted as they are made): libgomp calls it once
 * per task, into the task's block, from the block the wrapper made. */
static void wrap_copy(char *dst, const char *src, long head)
{
    const wrap_hdr *h = (const wrap_hdr *)(src + head);
    __builtin_memcpy(dst, src, (size_t)head + sizeof *h);   /* libgomp's words, the header */
    if (h->cpyfn)
        h->cpyfn(dst + h->off, h->src);
    else
        __builtin_memcpy(dst + h->off, src + h->off, h->size);
    if (h->made)
        atomic_fetch_add(h->made, 1);
}

static void task_copy(void *dst, void *src)
{
    wrap_copy(dst, src, TASK_HEAD);
}

static void detach_copy(void *dst, void *src)
{
    wrap_copy(dst, src, DETACH_HEAD);
}

static void loop_copy(void *dst, void *src)
{
    wrap_copy(dst, src, LOOP_HEAD);
}

/* The layout of a wrapped block around a user's block of arg_size bytes
 * aligned at arg_align. */
typedef struct wrap {
    wrap_hdr h;
    long head;
    long size, align;   /* the block libgomp gets */
    long built;         /* the bytes the wrapper builds: all, or (copy
                           function) the head and the header */
} wrap;

static wrap wrap_plan(void (*fn)(void *), void (*cpyfn)(void *, void *), void *data,
                      long arg_size, long arg_align, long head, long live)
{
    long ualign = arg_align > 0 ? arg_align : 1;
    wrap w = {.head = head};
    w.h.fn = fn;
    w.h.cpyfn = cpyfn;
    w.h.src = data;
    w.h.off = (head + (long)sizeof(wrap_hdr) + ualign - 1) & ~(ualign - 1);
    w.h.size = arg_size;
    w.h.live = live;
    w.size = w.h.off + arg_size;
    w.align = ualign > (long)_Alignof(wrap_hdr) ? ualign : (long)_Alignof(wrap_hdr);
    w.built = cpyfn ? head + (long)sizeof(wrap_hdr) : w.size;
    return w;
}

/* Lays the block out in room (w->built + w->align bytes); returns it. */
static char *wrap_layout(const wrap *w, char *room, const void *data)
{
    char *blk = (char *)(((uintptr_t)room + w->align - 1) & ~(uintptr_t)(w->align - 1));
    long head = w->head < w->h.size ? w->head : w->h.size;
    if (head > 0)
        __builtin_memcpy(blk, data, head);
    __builtin_memcpy(blk + w->head, &w->h, sizeof w->h);
    if (!w->h.cpyfn && w->h.size > 0)
        __builtin_memcpy(blk + w->h.off, data, w->h.size);
    return blk;
}

/* Room for the block: the stack buffer the caller gives when it is large
 * enough, else the heap (*heap, freed by the caller; NULL: no memory). */
static char *wrap_room(const wrap *w, char *stack, long stack_size, void **heap)
{
    long n = w->built + w->align;
    *heap = NULL;
    if (n <= stack_size)
        return stack;
    return *heap = malloc((size_t)n);
}

static int wrap_stack_size(const wrap *w)
{
    long n = w->built + w->align;
    return n <= WRAP_STACK_MAX ? (int)n : 1;
}

/* ------------------------------------------------------------------ tasks */

API void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                   long arg_size, long arg_align, bool if_clause, unsigned flags,
                   void **depend, int priority, void *detach)
{
    if (!hp_gomp.task) {
        resolve();
        if (!hp_gomp.task) {
            fn(data);    /* no runtime: an undeferred task (no copy function
                            can be needed without one) */
            return;
        }
    }
    hp_thread *t = recorder();
    long head = detach ? DETACH_HEAD : TASK_HEAD;
    if (!t || arg_size < 0 || arg_size < head) {
        TIMED_VOID(hp_gomp.task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags,
                                depend, priority, detach),
                   task, RET, HP_OMP_TASK_CREATE);
        return;
    }
    wrap w = wrap_plan(fn, cpyfn, data, arg_size, arg_align, head, head);
    uint64_t id = w.h.id = hp_event_task_new_id(t);
    const task_sites *sites = sites_of(t, fn);
    w.h.site = sites->run;
    char stack[wrap_stack_size(&w)];
    void *heap;
    char *room = wrap_room(&w, stack, (long)sizeof stack, &heap);
    if (!room) {
        TIMED_VOID(hp_gomp.task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags,
                                depend, priority, detach),
                   task, RET, HP_OMP_TASK_CREATE);
        return;
    }
    char *blk = wrap_layout(&w, room, data);
    hp_task_clock c = hp_event_task_create_start(t);
    /* memcpy'd by libgomp (or through the copy function), or run in place
     * when undeferred */
    hp_gomp.task(detach ? detach_tramp : task_tramp, blk,
                 cpyfn ? (detach ? detach_copy : task_copy) : NULL, w.size, w.align,
                 if_clause, flags, depend, priority, detach);
    free(heap);
    if (!ompt_on())
        hp_event_task_created(t, sites->create, id, &c);
}

/* --------------------------------------------------------------- taskloop */

/* One GOMP_taskloop call.  The encounter is "task create" once per task
 * libgomp made, with the time of the call - which, without nogroup,
 * includes the wait for the tasks.  The tasks are counted as they run
 * (before the call returns: it waits for them) or, with nogroup, as they
 * are made, by the copy function (loop_count_made). */
typedef struct loop_call {
    hp_thread *t;                   /* NULL: not recorded */
    hp_task_clock clock;
    _Atomic unsigned long ran, made;
    wrap w;
    void *heap;
} loop_call;

/* A copy function makes libgomp build, when it runs the tasks at once
 * (if(0), final, or a full queue), all their blocks on its stack before it
 * runs the first, and skip its cancellation check: a nogroup taskloop's
 * tasks are counted by one only when the blocks of at most `iters` tasks
 * (a task has one iteration at least, and at most num_tasks tasks or
 * iters / grainsize + 1 are made) stay small, and cancellation is off. */
static int loop_count_made(const loop_call *c, unsigned flags, unsigned long num_tasks,
                           unsigned long long iters)
{
    unsigned long long tasks = iters;
    if (num_tasks && !(flags & GOMP_TASK_FLAG_GRAINSIZE) && num_tasks < tasks)
        tasks = num_tasks;
    if (num_tasks && (flags & GOMP_TASK_FLAG_GRAINSIZE) && iters / num_tasks + 1 < tasks)
        tasks = iters / num_tasks + 1;
    if (hp_gomp.get_cancellation && hp_gomp.get_cancellation())
        return 0;
    return tasks <= WRAP_STACK_MAX * 16ull / (unsigned long long)(c->w.size + c->w.align);
}

/* Prepares the wrapped block in c; 0: pass the call through unwrapped. */
static int loop_begin(loop_call *c, void (*fn)(void *), void *data,
                      void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                      unsigned flags, unsigned long num_tasks, unsigned long long iters,
                      char *stack, long stack_size)
{
    c->t = recorder();
    c->clock = hp_event_task_create_start(c->t);
    c->heap = NULL;
    atomic_init(&c->ran, 0);
    atomic_init(&c->made, 0);
    if (!c->t || arg_size < LOOP_LIVE)
        return 0;
    c->w = wrap_plan(fn, cpyfn, data, arg_size, arg_align, LOOP_HEAD, LOOP_LIVE);
    c->w.h.site = sites_of(c->t, fn)->run;
    if (!(flags & GOMP_TASK_FLAG_NOGROUP))
        c->w.h.ran = &c->ran;
    else if (cpyfn || loop_count_made(c, flags, num_tasks, iters))
        c->w.h.made = &c->made;
    return wrap_room(&c->w, stack, stack_size, &c->heap) != NULL;
}

static char *loop_block(loop_call *c, char *stack)
{
    return wrap_layout(&c->w, c->heap ? c->heap : stack, c->w.h.src);
}

/* The copy function libgomp gets: the user's, wrapped, or the counting one. */
static void (*loop_cpyfn(const loop_call *c))(void *, void *)
{
    return c->w.h.cpyfn || c->w.h.made ? loop_copy : NULL;
}

static void loop_end(loop_call *c, void (*fn)(void *), int wrapped)
{
    free(c->heap);
    if (!c->t || ompt_on())
        return;
    unsigned long tasks = 0;
    if (wrapped)
        tasks = c->w.h.made ? atomic_load(&c->made) : atomic_load(&c->ran);
    hp_event_task_created_n(c->t, sites_of(c->t, fn)->create,
                            hp_event_task_new_id(c->t), &c->clock, tasks ? tasks : 1);
}

static unsigned long long loop_iters(long start, long end, long step)
{
    if (step > 0 && end > start)
        return ((unsigned long long)(end - start) + (unsigned long long)step - 1) / (unsigned long long)step;
    if (step < 0 && start > end)
        return ((unsigned long long)(start - end) + (unsigned long long)-step - 1) /
               (unsigned long long)-step;
    return 0;
}

static unsigned long long loop_iters_ull(unsigned long long start, unsigned long long end,
                                         unsigned long long step, unsigned flags)
{
    if ((flags & GOMP_TASK_FLAG_UP) && end > start && step)
        return (end - start + step - 1) / step;
    if (!(flags & GOMP_TASK_FLAG_UP) && start > end && -step)
        return (start - end - step - 1) / -step;
    return 0;
}

API void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                       long arg_size, long arg_align, unsigned flags,
                       unsigned long num_tasks, int priority, long start, long end,
                       long step)
{
    resolve();
    if (!hp_gomp.taskloop) {   /* no runtime: one task over the whole range */
        ((long *)data)[0] = start;
        ((long *)data)[1] = end;
        fn(data);
        return;
    }
    loop_call c;
    char stack[WRAP_STACK_MAX];
    int wrapped = loop_begin(&c, fn, data, cpyfn, arg_size, arg_align, flags, num_tasks,
                             loop_iters(start, end, step), stack, (long)sizeof stack);
    if (!wrapped)
        hp_gomp.taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority,
                         start, end, step);
    else
        hp_gomp.taskloop(loop_tramp, loop_block(&c, stack), loop_cpyfn(&c), c.w.size,
                         c.w.align, flags, num_tasks, priority, start, end, step);
    loop_end(&c, fn, wrapped);
}

API void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                           long arg_size, long arg_align, unsigned flags,
                           unsigned long num_tasks, int priority, unsigned long long start,
                           unsigned long long end, unsigned long long step)
{
    resolve();
    if (!hp_gomp.taskloop_ull) {
        ((unsigned long long *)data)[0] = start;
        ((unsigned long long *)data)[1] = end;
        fn(data);
        return;
    }
    loop_call c;
    char stack[WRAP_STACK_MAX];
    int wrapped = loop_begin(&c, fn, data, cpyfn, arg_size, arg_align, flags, num_tasks,
                             loop_iters_ull(start, end, step, flags), stack,
                             (long)sizeof stack);
    if (!wrapped)
        hp_gomp.taskloop_ull(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks,
                             priority, start, end, step);
    else
        hp_gomp.taskloop_ull(loop_tramp, loop_block(&c, stack), loop_cpyfn(&c), c.w.size,
                             c.w.align, flags, num_tasks, priority, start, end, step);
    loop_end(&c, fn, wrapped);
}
