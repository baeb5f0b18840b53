/*
 * hp_ompt_task.h - the OMPT tool's explicit tasks (ompt_task.c), shared
 * with ompt.c, whose scopes and waits belong to the task running on the
 * thread.  Not used outside the tool.
 */
#ifndef HP_OMPT_TASK_H
#define HP_OMPT_TASK_H

#include <stdatomic.h>
#include <stdint.h>
#include "hp_ompt.h"

typedef struct etask {
    int type;                 /* HP_OMPT_EXPLICIT */
    int tied;                 /* runs on one thread (else per fragment) */
    _Atomic int state;        /* E_NEW (untied: also switched out), E_OPEN, E_CLOSED */
    int parked;               /* untied, switched out to a task its thread runs on its stack */
    _Atomic int claims;       /* completion, close by a task below it: the 2nd frees */
    uint32_t site;            /* HP_OMP_TASK site of the construct */
    const void *ra;           /* the construct's code address */
    uint64_t id;              /* the task instance */
    hp_thread *owner;         /* the thread running it (last ran it) */
    struct etask *below;      /* the task open below it on that thread */
    uint32_t scope_base;      /* that thread's scopes when it was opened */
    hp_task_run run;
    uint64_t wait_start;      /* its open wait (it may resume elsewhere), 0 if none */
    uint64_t wait_mark;       /* its hp_event_wait_mark */
    const void *wait_ra;
    int wait_what;
} etask;
enum { E_NEW, E_OPEN, E_CLOSED };

/* The explicit tasks open on this thread, innermost first (the tasks it
 * runs at its scheduling points nest inside the one it interrupts). */
extern __thread etask *hp_ompt_open_tasks __attribute__((tls_model("initial-exec")));

/* The explicit task d is the data of, else NULL. */
static inline etask *hp_ompt_etask(const ompt_data_t *d)
{
    return d && d->ptr && *(int *)d->ptr == HP_OMPT_EXPLICIT ? d->ptr : NULL;
}

/* hp_ompt_task_running's work when e is not on top. */
void hp_ompt_task_running_slow(etask *e);
/* libomp says this thread runs e now: what its books have open above e
 * ended unreported and closes (ompt_task.c says when).  Inline: e on top
 * of this thread's open tasks (open here, nothing above: nothing to do)
 * is nearly every call, 4 per task. */
static inline void hp_ompt_task_running(etask *e)
{
    if (e != hp_ompt_open_tasks)
        hp_ompt_task_running_slow(e);
}
/* hp_ompt_tasks_close_above's work when base is not on top. */
void hp_ompt_tasks_close_above_slow(etask *base);
/* The tasks open on this thread above base (NULL: all) ended unreported:
 * they close, as ended (nothing if base is not open here).  Inline: on
 * nearly every call base is on top (callgrind: 4 calls per task). */
static inline void hp_ompt_tasks_close_above(etask *base)
{
    if (hp_ompt_open_tasks != base)
        hp_ompt_tasks_close_above_slow(base);
}

/* Registers the task callbacks; warns at the end of the run about task
 * switches the tool could not attribute. */
void hp_ompt_task_callbacks(ompt_set_callback_t set);
void hp_ompt_task_report(void);

#endif
