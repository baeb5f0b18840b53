/*
 * pomp2_fortran.c - the POMP2 interface as Fortran code instrumented by
 * opari2 calls it (gfortran's names: lower case with a trailing
 * underscore), each entry handing over to the C one of pomp2_*.c:
 *  - a region handle is an INTEGER(KIND=8) in a common block: the C
 *    handle itself (a pointer, 8 bytes), so the C entries use it in place;
 *  - the task handles are INTEGER(KIND=8) too, POMP2_Task_handle;
 *    LOGICAL and INTEGER arguments come by reference;
 *  - a ctc string is CHARACTER(LEN=n), blank-padded and not
 *    NUL-terminated, its length a hidden size_t argument after the
 *    others: it is needed only while the handle is unassigned (a program
 *    linked without the init file of `opari2-config`), and then assigned
 *    here from a NUL-terminated copy.
 * Fortran's DO is C's for.  The lock wrappers are in pomp2_lock.c.
 */
#include <stdlib.h>
#include <string.h>
#include "hp_pomp2.h"

typedef int64_t f_handle;       /* INTEGER(KIND=8) */
typedef int f_int;              /* INTEGER and LOGICAL of default kind */

API int POMP2_Lib_get_max_threads(void);
API void POMP2_Parallel_fork(POMP2_Region_handle *h, int if_clause, int num_threads,
                             POMP2_Task_handle *old_task, const char ctc_string[]);
API void POMP2_Implicit_barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task);
API void POMP2_Barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task,
                             const char ctc_string[]);
API void POMP2_Taskwait_begin(POMP2_Region_handle *h, POMP2_Task_handle *old_task,
                              const char ctc_string[]);
API void POMP2_Task_create_begin(POMP2_Region_handle *h, POMP2_Task_handle *new_task,
                                 POMP2_Task_handle *old_task, int pomp2_if,
                                 const char ctc_string[]);
API void POMP2_Untied_task_create_begin(POMP2_Region_handle *h, POMP2_Task_handle *new_task,
                                        POMP2_Task_handle *old_task, int pomp2_if,
                                        const char ctc_string[]);

/* The C handle of a Fortran one, assigned from ctc (len bytes) first if
 * it is not yet. */
static POMP2_Region_handle *region(f_handle *h, const char *ctc, size_t len)
{
    if (!__atomic_load_n(h, __ATOMIC_ACQUIRE) && ctc) {
        char *c = strndup(ctc, len);
        if (c)
            POMP2_Assign_handle((POMP2_Region_handle *)h, c);
        free(c);
    }
    return (POMP2_Region_handle *)h;
}

#define H(h) ((POMP2_Region_handle *)(h))

/* An entry of the handle only, and one with a ctc string. */
#define F_HANDLE(f, c) \
    API void c(POMP2_Region_handle *h); \
    API void f(f_handle *h); \
    API void f(f_handle *h) { c(H(h)); }
#define F_CTC(f, c) \
    API void c(POMP2_Region_handle *h, const char ctc_string[]); \
    API void f(f_handle *h, const char *ctc, size_t len); \
    API void f(f_handle *h, const char *ctc, size_t len) { c(region(h, ctc, len), NULL); }
/* An entry given the old task by reference, for a C one given its value. */
#define F_OLD_TASK(f, c) \
    API void c(POMP2_Region_handle *h, POMP2_Task_handle old_task); \
    API void f(f_handle *h, POMP2_Task_handle *old); \
    API void f(f_handle *h, POMP2_Task_handle *old) { c(H(h), *old); }

#define F_NONE(f, c) \
    API void c(void); \
    API void f(void); \
    API void f(void) { c(); }

/* registration (the init file's POMP2_Init_reg_* subroutines) */
API void pomp2_assign_handle_(f_handle *h, const char *ctc, size_t len);
API void pomp2_assign_handle_(f_handle *h, const char *ctc, size_t len)
{
    region(h, ctc, len);
}

API void pomp2_user_assign_handle_(f_handle *h, const char *ctc, size_t len);
API void pomp2_user_assign_handle_(f_handle *h, const char *ctc, size_t len)
{
    region(h, ctc, len);
}

F_NONE(pomp2_init_, POMP2_Init)
F_NONE(pomp2_finalize_, POMP2_Finalize)
F_NONE(pomp2_off_, POMP2_Off)
F_NONE(pomp2_on_, POMP2_On)

API f_int pomp2_lib_get_max_threads_(void);
API f_int pomp2_lib_get_max_threads_(void)
{
    return POMP2_Lib_get_max_threads();
}

/* parallel regions */
API void pomp2_parallel_fork_(f_handle *h, f_int *if_clause, f_int *num_threads,
                              POMP2_Task_handle *old, const char *ctc, size_t len);
API void pomp2_parallel_fork_(f_handle *h, f_int *if_clause, f_int *num_threads,
                              POMP2_Task_handle *old, const char *ctc, size_t len)
{
    POMP2_Parallel_fork(region(h, ctc, len), *if_clause != 0, *num_threads, old, NULL);
}

F_OLD_TASK(pomp2_parallel_join_, POMP2_Parallel_join)
F_HANDLE(pomp2_parallel_begin_, POMP2_Parallel_begin)
F_HANDLE(pomp2_parallel_end_, POMP2_Parallel_end)

/* barriers and taskwait */
API void pomp2_implicit_barrier_enter_(f_handle *h, POMP2_Task_handle *old);
API void pomp2_implicit_barrier_enter_(f_handle *h, POMP2_Task_handle *old)
{
    POMP2_Implicit_barrier_enter(H(h), old);
}

F_OLD_TASK(pomp2_implicit_barrier_exit_, POMP2_Implicit_barrier_exit)

API void pomp2_barrier_enter_(f_handle *h, POMP2_Task_handle *old, const char *ctc, size_t len);
API void pomp2_barrier_enter_(f_handle *h, POMP2_Task_handle *old, const char *ctc, size_t len)
{
    POMP2_Barrier_enter(region(h, ctc, len), old, NULL);
}

F_OLD_TASK(pomp2_barrier_exit_, POMP2_Barrier_exit)

API void pomp2_taskwait_begin_(f_handle *h, POMP2_Task_handle *old, const char *ctc,
                               size_t len);
API void pomp2_taskwait_begin_(f_handle *h, POMP2_Task_handle *old, const char *ctc,
                               size_t len)
{
    POMP2_Taskwait_begin(region(h, ctc, len), old, NULL);
}

F_OLD_TASK(pomp2_taskwait_end_, POMP2_Taskwait_end)

/* tasks */
API void pomp2_task_create_begin_(f_handle *h, POMP2_Task_handle *new_task,
                                  POMP2_Task_handle *old, f_int *if_clause, const char *ctc,
                                  size_t len);
API void pomp2_task_create_begin_(f_handle *h, POMP2_Task_handle *new_task,
                                  POMP2_Task_handle *old, f_int *if_clause, const char *ctc,
                                  size_t len)
{
    POMP2_Task_create_begin(region(h, ctc, len), new_task, old, *if_clause != 0, NULL);
}

API void pomp2_untied_task_create_begin_(f_handle *h, POMP2_Task_handle *new_task,
                                         POMP2_Task_handle *old, f_int *if_clause,
                                         const char *ctc, size_t len);
API void pomp2_untied_task_create_begin_(f_handle *h, POMP2_Task_handle *new_task,
                                         POMP2_Task_handle *old, f_int *if_clause,
                                         const char *ctc, size_t len)
{
    POMP2_Untied_task_create_begin(region(h, ctc, len), new_task, old, *if_clause != 0, NULL);
}

F_OLD_TASK(pomp2_task_create_end_, POMP2_Task_create_end)
F_OLD_TASK(pomp2_untied_task_create_end_, POMP2_Untied_task_create_end)
F_OLD_TASK(pomp2_task_begin_, POMP2_Task_begin)
F_OLD_TASK(pomp2_untied_task_begin_, POMP2_Untied_task_begin)
F_HANDLE(pomp2_task_end_, POMP2_Task_end)
F_HANDLE(pomp2_untied_task_end_, POMP2_Untied_task_end)

/* worksharing and synchronisation constructs */
F_CTC(pomp2_do_enter_, POMP2_For_enter)
F_HANDLE(pomp2_do_exit_, POMP2_For_exit)
F_CTC(pomp2_sections_enter_, POMP2_Sections_enter)
F_HANDLE(pomp2_sections_exit_, POMP2_Sections_exit)
F_CTC(pomp2_section_begin_, POMP2_Section_begin)
F_HANDLE(pomp2_section_end_, POMP2_Section_end)
F_CTC(pomp2_workshare_enter_, POMP2_Workshare_enter)
F_HANDLE(pomp2_workshare_exit_, POMP2_Workshare_exit)
F_CTC(pomp2_single_enter_, POMP2_Single_enter)
F_HANDLE(pomp2_single_begin_, POMP2_Single_begin)
F_HANDLE(pomp2_single_end_, POMP2_Single_end)
F_HANDLE(pomp2_single_exit_, POMP2_Single_exit)
F_CTC(pomp2_master_begin_, POMP2_Master_begin)
F_HANDLE(pomp2_master_end_, POMP2_Master_end)
F_CTC(pomp2_critical_enter_, POMP2_Critical_enter)
F_HANDLE(pomp2_critical_begin_, POMP2_Critical_begin)
F_HANDLE(pomp2_critical_end_, POMP2_Critical_end)
F_HANDLE(pomp2_critical_exit_, POMP2_Critical_exit)
F_CTC(pomp2_atomic_enter_, POMP2_Atomic_enter)
F_HANDLE(pomp2_atomic_exit_, POMP2_Atomic_exit)
F_CTC(pomp2_flush_enter_, POMP2_Flush_enter)
F_HANDLE(pomp2_flush_exit_, POMP2_Flush_exit)
F_CTC(pomp2_ordered_enter_, POMP2_Ordered_enter)
F_HANDLE(pomp2_ordered_begin_, POMP2_Ordered_begin)
F_HANDLE(pomp2_ordered_end_, POMP2_Ordered_end)
F_HANDLE(pomp2_ordered_exit_, POMP2_Ordered_exit)

/* user regions (!$pomp inst begin(name) .. end(name)) */
F_CTC(pomp2_begin_, POMP2_Begin)
F_HANDLE(pomp2_end_, POMP2_End)
