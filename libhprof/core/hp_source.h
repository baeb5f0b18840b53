/*
 * hp_source.h - the event sources as entries of one table.  Each source
 * (code probes and the user API, -finstrument-functions hooks, GOMP
 * interposition, the OMPT tool, the POMP2 interface) records through the
 * event boundary (hp_event.h) and tells the core here what it needs at
 * the runtime's start, when a thread ends and before the records are
 * read at the end of the run.  The MPI wrappers are not in the table:
 * MPI_Init and MPI_Finalize drive the run itself (pmpi/init.c).
 *
 * OpenMP events can reach the process by three ways at once (gcc code
 * on libomp calls GOMP_* and libomp reports OMPT; opari2 code also calls
 * POMP2_*), and each construct must be recorded once.  The core decides:
 * a source claims OpenMP when it is in use, the highest claim wins
 * (POMP2, then OMPT, then GOMP), and a source asks before recording.
 */
#ifndef HP_SOURCE_H
#define HP_SOURCE_H

#include "hp_thread.h"

/* The OpenMP sources, lowest priority first. */
enum hp_omp_source {
    HP_OMP_SOURCE_NONE,
    HP_OMP_SOURCE_GOMP,     /* GOMP_* interposition (gomp.c) */
    HP_OMP_SOURCE_OMPT,     /* the OMPT tool (ompt.c) */
    HP_OMP_SOURCE_POMP2,    /* opari2-style POMP2 hooks (pomp2.c) */
};

typedef struct hp_source {
    const char *name;
    enum hp_omp_source omp;              /* NONE: not an OpenMP source */
    void (*init)(void);                  /* at the runtime's start, or NULL */
    void (*thread_end)(hp_thread *t);    /* t's thread exits, or NULL */
    void (*before_snapshot)(void);       /* end of run: close what is open, or NULL */
} hp_source;

/* Called by the core: runtime.c at start, thread.c at thread exit, the
 * end-of-run pipeline (finish.c) before it takes the records. */
void hp_sources_init(void);
void hp_sources_thread_end(hp_thread *t);
void hp_sources_before_snapshot(void);

/* OpenMP source `src` is in use (e.g. libomp started the OMPT tool). */
void hp_omp_source_claim(enum hp_omp_source src);
/* Whether events of `src` are the program's OpenMP records: no source of
 * a higher priority has claimed OpenMP.  One load. */
extern int hp_omp_owner;
static inline int hp_omp_source_records(enum hp_omp_source src)
{
    return __atomic_load_n(&hp_omp_owner, __ATOMIC_ACQUIRE) <= (int)src;
}

#endif
