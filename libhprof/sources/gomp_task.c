/*
 * gomp_task.c - the GOMP source's tasks and taskloops:
 *  - GOMP_task: "task create" (time in the call less the tasks it ran, e.g.
 *    an undeferred if(0) task or a full queue's, recorded as "task"),
 *    and "task", the execution, on the thread that runs it, both keyed by
 *    the task's outlined function (at the pragma's line: hp_omp_lines.h):
 *    libgomp gets a trampoline and a larger argument block (see task_hdr)
 *    that carries the task's instance id to the executing thread; the
 *    execution is an open node (hp_task.h), so what the task does is
 *    recorded below it, and left out of the taskwait/barrier/task
 *    create time of whatever the thread was waiting in.  A detachable
 *    task's block is laid out around the event handle libgomp writes into
 *    its first word (see shift_hdr).  Blocks over 64 KiB are created
 *    unwrapped (creation only);
 *  - GOMP_taskloop / GOMP_taskloop_ull: "task create" once per task made
 *    (time: the whole call, less the tasks this thread ran in it,
 *    with the wait for the tasks unless nogroup) and "task" per execution, through a trampoline and a block
 *    laid out around libgomp's bounds (see shift_hdr).  Taskloops with a
 *    task reduction or a copy function are created unwrapped (one
 *    creation per encounter); so are nogroup's creations counted.
 * A wrapped task still runs the user's function on a copy of the user's
 * block.
 */
#include <stdatomic.h>
#include "hp_gomp.h"

/* ------------------------------------------------------------------ tasks */

/* A task's execution: GOMP_task gets task_tramp as the task's function and
 * an argument block that starts with this header, the user's block
 * following at off (rounded up to the user's alignment).  libgomp copies
 * the block into the task (memcpy, or the copy function given) and calls
 * task_tramp(copy) on the thread that runs it, deferred or at once. */
typedef struct task_hdr {
    void (*fn)(void *);             /* the outlined task function */
    void (*cpyfn)(void *, void *);  /* the user's copy function, or NULL */
    void *src;                      /* the user's data (valid in GOMP_task only) */
    long off;                       /* the user's block in the copy */
    uint64_t id;                    /* the task instance (hp_event_task_new_id) */
} task_hdr;

#define TASK_WRAP_MAX (64 * 1024)   /* larger blocks pass through unwrapped */
#define GOMP_TASK_FLAG_NOGROUP (1u << 11)
#define GOMP_TASK_FLAG_REDUCTION (1u << 12)
#define LOOP_HEAD 16     /* a taskloop task's bounds: two longs or unsigned long longs */
#define DETACH_HEAD ((long)sizeof(void *))   /* a detachable task's event handle */
#define SHIFT_WRAP_MAX 4096   /* such blocks are rebuilt on the running thread's stack */

static void task_tramp(void *arg)
{
    task_hdr *h = arg;
    void (*fn)(void *) = h->fn;
    void (*outer)(void *) = hp_gomp_cur_fn;
    hp_thread *t = ompt_on() ? NULL : hp_thread_self();
    hp_task_run run;
    if (t)
        hp_event_task_begin(t, &run, hp_omp_site(t, (uintptr_t)fn, 1, HP_OMP_TASK), h->id);
    hp_gomp_cur_fn = fn;
    hp_gomp_run_outlined(fn, (char *)arg + h->off);
    hp_gomp_cur_fn = outer;
    if (t)
        hp_event_task_end(t, &run);
}

/* The copy function handed to libgomp when the user has one: src is the
 * bare header; the user's function builds its block from the user's data. */
static void task_copy(void *dst, void *src)
{
    task_hdr *h = src;
    *(task_hdr *)dst = *h;
    ((task_hdr *)dst)->src = NULL;
    h->cpyfn((char *)dst + h->off, h->src);
}

static int shift_wrappable(hp_thread *t, void (*cpyfn)(void *, void *), long arg_size,
                           long head);
static void task_detached(hp_thread *t, void (*fn)(void *), void *data,
                          long arg_size, long arg_align, bool if_clause, unsigned flags,
                          void **depend, int priority, void *detach);

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
    /* A detachable task's event handle is written by libgomp into the
     * first word of the block: its header goes after that word. */
    if (detach && shift_wrappable(t, cpyfn, arg_size, DETACH_HEAD)) {
        task_detached(t, fn, data, arg_size, arg_align, if_clause, flags, depend,
                      priority, detach);
        return;
    }
    if (!t || detach || arg_size < 0 || arg_size > TASK_WRAP_MAX) {
        TIMED_VOID(hp_gomp.task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags,
                             depend, priority, detach),
                   task, RET, HP_OMP_TASK_CREATE);
        return;
    }
    long ualign = arg_align > 0 ? arg_align : 1;
    long align = ualign > (long)_Alignof(task_hdr) ? ualign : (long)_Alignof(task_hdr);
    long off = ((long)sizeof(task_hdr) + ualign - 1) & ~(ualign - 1);
    long size = off + arg_size;
    task_hdr *h;
    if (cpyfn) {
        /* libgomp calls task_copy(copy, h): only the header is needed here. */
        task_hdr hdr = { fn, cpyfn, data, off, hp_event_task_new_id(t) };
        h = &hdr;
        hp_task_clock c = hp_event_task_create_start(t);
        hp_gomp.task(task_tramp, h, task_copy, size, align, if_clause, flags, depend,
                  priority, detach);
        if (!ompt_on())
            hp_event_task_created(t, hp_omp_site(t, (uintptr_t)fn, 1, HP_OMP_TASK_CREATE), hdr.id, &c);
        return;
    }
    /* memcpy'd by libgomp, or run in place when undeferred: the whole
     * block, aligned, on this stack. */
    char *raw = __builtin_alloca(size + align - 1);
    h = (task_hdr *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    h->fn = fn;
    h->cpyfn = NULL;
    h->src = NULL;
    h->off = off;
    uint64_t id = h->id = hp_event_task_new_id(t);
    if (arg_size)
        __builtin_memcpy((char *)h + off, data, arg_size);
    hp_task_clock c = hp_event_task_create_start(t);
    hp_gomp.task(task_tramp, h, NULL, size, align, if_clause, flags, depend, priority,
              detach);
    if (!ompt_on())
        hp_event_task_created(t, hp_omp_site(t, (uintptr_t)fn, 1, HP_OMP_TASK_CREATE), id, &c);
}

/* ------------------------------------------------- blocks with a runtime head */

/* Two kinds of task have a block whose leading words libgomp writes:
 * a taskloop's tasks (the task's bounds, two words) and a detachable task
 * (its event handle, one word).  hprof's header goes right after those
 * words and the rest of the user's block follows it, `shift` bytes further
 * than in the user's layout; the trampoline puts the user's block back
 * together on its stack and runs the user's function on it.  Blocks with
 * a copy function (their fields may point into themselves), task
 * reductions (libgomp reads the block's third word) and blocks over 4 KiB
 * (the copy is on the stack of the thread that runs the task, which
 * OMP_STACKSIZE may make small) pass through unwrapped. */

typedef struct shift_hdr {
    void (*fn)(void *);             /* the outlined task function */
    long size, align, shift;        /* the user's block; the header's room */
    uint64_t id;                    /* a detachable task's instance */
    _Atomic unsigned long *ran;     /* taskloop tasks run, counted for the creator
                                       (NULL: nogroup, the creator may be gone) */
} shift_hdr;

static void run_shifted(char *arg, long head, int taskloop)
{
    shift_hdr *h = (shift_hdr *)(arg + head);
    void (*fn)(void *) = h->fn;
    char *raw = __builtin_alloca(h->size + h->align - 1);
    char *blk = (char *)(((uintptr_t)raw + h->align - 1) & ~(uintptr_t)(h->align - 1));
    __builtin_memcpy(blk, arg, head);
    __builtin_memcpy(blk + head, arg + head + h->shift, h->size - head);
    if (h->ran)
        atomic_fetch_add(h->ran, 1);
    void (*outer)(void *) = hp_gomp_cur_fn;
    hp_thread *t = ompt_on() ? NULL : hp_thread_self();
    hp_task_run run;
    if (t)
        hp_event_task_begin(t, &run, hp_omp_site(t, (uintptr_t)fn, 1, HP_OMP_TASK),
                      taskloop ? hp_event_task_new_id(t) : h->id);
    hp_gomp_cur_fn = fn;
    hp_gomp_run_outlined(fn, blk);
    hp_gomp_cur_fn = outer;
    if (t)
        hp_event_task_end(t, &run);
}

static void loop_tramp(void *arg)
{
    run_shifted(arg, LOOP_HEAD, 1);
}

static void detach_tramp(void *arg)
{
    run_shifted(arg, DETACH_HEAD, 0);
}

static int shift_wrappable(hp_thread *t, void (*cpyfn)(void *, void *), long arg_size,
                           long head)
{
    return t && !cpyfn && arg_size >= head && arg_size <= SHIFT_WRAP_MAX;
}

/* The header for the user's block; *size and *align: the block's. */
static shift_hdr shift_header(void (*fn)(void *), long arg_size, long arg_align,
                              long *size, long *align)
{
    long ualign = arg_align > 0 ? arg_align : 1;
    long shift = ((long)sizeof(shift_hdr) + ualign - 1) & ~(ualign - 1);
    *size = arg_size + shift;
    *align = ualign > (long)_Alignof(shift_hdr) ? ualign : (long)_Alignof(shift_hdr);
    return (shift_hdr){fn, arg_size, ualign, shift, 0, NULL};
}

/* Lays the wrapped block out in raw (size + align bytes); returns it. */
static char *shift_layout(char *raw, long align, const shift_hdr *h, long head,
                          const void *data)
{
    char *blk = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    __builtin_memcpy(blk, data, head);
    __builtin_memcpy(blk + head, h, sizeof *h);
    __builtin_memcpy(blk + head + h->shift, (const char *)data + head, h->size - head);
    return blk;
}

static void task_detached(hp_thread *t, void (*fn)(void *), void *data,
                          long arg_size, long arg_align, bool if_clause, unsigned flags,
                          void **depend, int priority, void *detach)
{
    long size, align;
    shift_hdr h = shift_header(fn, arg_size, arg_align, &size, &align);
    h.id = hp_event_task_new_id(t);
    char raw[size + align];
    char *blk = shift_layout(raw, align, &h, DETACH_HEAD, data);
    hp_task_clock c = hp_event_task_create_start(t);
    hp_gomp.task(detach_tramp, blk, NULL, size, align, if_clause, flags, depend, priority,
              detach);
    if (!ompt_on())
        hp_event_task_created(t, hp_omp_site(t, (uintptr_t)fn, 1, HP_OMP_TASK_CREATE), h.id, &c);
}

/* --------------------------------------------------------------- taskloop */

/* One GOMP_taskloop call.  The encounter is "task create" once per task
 * libgomp made (counted by the trampolines before GOMP_taskloop returned;
 * once with nogroup), with the time of the call - which, without nogroup,
 * includes the wait for the tasks. */
typedef struct loop_call {
    hp_thread *t;                   /* NULL: not recorded */
    int wrapped;
    hp_task_clock clock;
    long size, align;               /* the block libgomp gets, when wrapped */
    _Atomic unsigned long ran;
    shift_hdr h;
} loop_call;

static void loop_begin(loop_call *c, void (*fn)(void *), void (*cpyfn)(void *, void *),
                       long arg_size, long arg_align, unsigned flags)
{
    c->t = recorder();
    c->clock = hp_event_task_create_start(c->t);
    c->wrapped = shift_wrappable(c->t, cpyfn, arg_size, LOOP_HEAD) &&
                 !(flags & GOMP_TASK_FLAG_REDUCTION);
    atomic_init(&c->ran, 0);
    if (c->wrapped) {
        c->h = shift_header(fn, arg_size, arg_align, &c->size, &c->align);
        c->h.ran = flags & GOMP_TASK_FLAG_NOGROUP ? NULL : &c->ran;
    }
}

/* The wrapped block, in raw (c->size + c->align bytes). */
static char *loop_block(loop_call *c, char *raw, const void *data)
{
    return shift_layout(raw, c->align, &c->h, LOOP_HEAD, data);
}

static void loop_end(loop_call *c, void (*fn)(void *))
{
    if (!c->t || ompt_on())
        return;
    unsigned long tasks = c->wrapped ? atomic_load(&c->ran) : 0;
    hp_event_task_created_n(c->t, hp_omp_site(c->t, (uintptr_t)fn, 1, HP_OMP_TASK_CREATE), hp_event_task_new_id(c->t),
                      &c->clock, tasks ? tasks : 1);
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
    loop_begin(&c, fn, cpyfn, arg_size, arg_align, flags);
    if (!c.wrapped) {
        hp_gomp.taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start,
                      end, step);
    } else {
        char raw[c.size + c.align];
        hp_gomp.taskloop(loop_tramp, loop_block(&c, raw, data), NULL, c.size, c.align, flags,
                      num_tasks, priority, start, end, step);
    }
    loop_end(&c, fn);
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
    loop_begin(&c, fn, cpyfn, arg_size, arg_align, flags);
    if (!c.wrapped) {
        hp_gomp.taskloop_ull(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority,
                          start, end, step);
    } else {
        char raw[c.size + c.align];
        hp_gomp.taskloop_ull(loop_tramp, loop_block(&c, raw, data), NULL, c.size, c.align, flags,
                          num_tasks, priority, start, end, step);
    }
    loop_end(&c, fn);
}
