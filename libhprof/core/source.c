/*
 * source.c - the table of event sources (hp_source.h) and the core's
 * choice of the OpenMP source that records.
 */
#include <stddef.h>
#include "hp_source.h"

extern const hp_source hp_source_probes, hp_source_hooks, hp_source_gomp, hp_source_ompt,
    hp_source_pomp2;

static const hp_source *const sources[] = {
    &hp_source_probes, &hp_source_hooks, &hp_source_gomp, &hp_source_ompt, &hp_source_pomp2,
};
#define NSOURCES (sizeof sources / sizeof sources[0])

int hp_omp_owner = HP_OMP_SOURCE_NONE;

void hp_omp_source_claim(enum hp_omp_source src)
{
    int cur = __atomic_load_n(&hp_omp_owner, __ATOMIC_RELAXED);
    while (cur < (int)src &&
           !__atomic_compare_exchange_n(&hp_omp_owner, &cur, (int)src, 0, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
}

void hp_sources_init(void)
{
    for (size_t i = 0; i < NSOURCES; i++)
        if (sources[i]->init)
            sources[i]->init();
}

void hp_sources_thread_end(hp_thread *t)
{
    for (size_t i = 0; i < NSOURCES; i++)
        if (sources[i]->thread_end)
            sources[i]->thread_end(t);
}

void hp_sources_before_snapshot(void)
{
    for (size_t i = 0; i < NSOURCES; i++)
        if (sources[i]->before_snapshot)
            sources[i]->before_snapshot();
}
