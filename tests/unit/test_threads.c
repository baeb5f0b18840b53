/*
 * test_threads.c - the store and the event boundary under concurrent
 * threads, for ThreadSanitizer (tests/sanitize.sh builds it with
 * -fsanitize=thread) and as a plain cmocka test: THREADS threads at once
 * register the same dynamic call sites and procedures (the site registry
 * is shared), link call sites to their callees, open and close frames,
 * record leaves and communication, claim the OpenMP source, and exit
 * (the sources' thread-end entries run from the core's key destructor).
 *
 * Ground truth: each thread makes ROUNDS calls at each of SITES call
 * sites: per thread, SITES call nodes of ROUNDS calls, each with one
 * procedure child of ROUNDS calls and one leaf of ROUNDS records, one
 * comm record per call node with ROUNDS transfers of 8 bytes; the
 * registry holds one site per address whatever the races; the OpenMP
 * source is the highest claimed.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "hp_event.h"
#include "hp_process.h"
#include "hp_site.h"
#include "hp_source.h"

#define THREADS 4
#define SITES 16
#define ROUNDS 200

static char code[SITES * 2];   /* addresses that stand for call sites and procedures */
static pthread_barrier_t start;

static void *worker(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start);
    hp_thread *t = hp_thread_self();
    hp_omp_source_claim((uintptr_t)arg & 1 ? HP_OMP_SOURCE_OMPT : HP_OMP_SOURCE_GOMP);
    for (int r = 0; r < ROUNDS; r++)
        for (int s = 0; s < SITES; s++) {
            uint32_t call = hp_site_dynamic((uintptr_t)&code[s], HP_KIND_CALL, "call", 0);
            uint32_t proc = hp_site_dynamic((uintptr_t)&code[SITES + s], HP_KIND_PROCEDURE,
                                            "procedure", HP_SITEF_ENTRY);
            uint32_t leaf = hp_site_dynamic((uintptr_t)&code[s] + 1, HP_KIND_OMP, "barrier", 0);
            hp_site_link_callee(call, proc);
            hprof_frame fc, fp;
            hp_event_enter(t, &fc, call, 0);
            hp_event_enter(t, &fp, proc, 0);
            hp_event_leaf(t, leaf, 10);
            hp_event_comm(t, hp_event_current(t), 1, 8, 0, 5, 0);
            hp_event_exit(t, &fp);
            hp_event_exit(t, &fc);
        }
    return NULL;
}

static void test_concurrent_recording(void **state)
{
    (void)state;
    pthread_t th[THREADS];
    hp_collecting = 1;
    pthread_barrier_init(&start, NULL, THREADS);
    for (uintptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, worker, (void *)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);

    for (int s = 0; s < SITES; s++) {
        uint32_t call = hp_site_dynamic((uintptr_t)&code[s], HP_KIND_CALL, "call", 0);
        uint32_t proc = hp_site_dynamic((uintptr_t)&code[SITES + s], HP_KIND_PROCEDURE,
                                        "procedure", HP_SITEF_ENTRY);
        assert_int_equal(hp_site_get(call)->callee, proc);
    }
    assert_int_equal(hp_thread_count(), THREADS);
    for (uint32_t i = 0; i < hp_thread_count(); i++) {
        hp_thread *t = hp_thread_get(i);
        uint32_t calls = 0, procs = 0, leaves = 0;
        for (uint32_t n = 0; n < t->nnodes; n++) {
            const hp_node *nd = hp_node_at(t, n);
            uint32_t kind = hp_site_get(nd->site)->kind;
            if (kind == HP_KIND_CALL && nd->count == ROUNDS)
                calls++;
            if (kind == HP_KIND_PROCEDURE && nd->count == ROUNDS)
                procs++;
            if (kind == HP_KIND_OMP && nd->count == ROUNDS)
                leaves++;
        }
        assert_int_equal(calls, SITES);
        assert_int_equal(procs, SITES);
        assert_int_equal(leaves, SITES);
        assert_int_equal(t->ncomms, SITES);
        for (uint32_t c = 0; c < t->ncomms; c++) {
            assert_int_equal(hp_comm_at(t, c)->count, ROUNDS);
            assert_int_equal(hp_comm_at(t, c)->sent, 8 * ROUNDS);
        }
        assert_int_equal(t->current, HP_ROOT_NODE);
    }
    assert_false(hp_omp_source_records(HP_OMP_SOURCE_GOMP));
    assert_true(hp_omp_source_records(HP_OMP_SOURCE_OMPT));
}

int main(void)
{
    hp_process_no_exit_report();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_recording),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
