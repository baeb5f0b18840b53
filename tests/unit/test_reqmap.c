/*
 * test_reqmap.c - cmocka unit tests of the table of outstanding requests
 * (pmpi/reqmap.c): many requests sharing one handle value (Open MPI's
 * eager sends), a handle freed and reused while its first completion is
 * still being recorded, persistent requests, a long random run against a
 * reference model, and threads sharing the table.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "hp_mpi.h"

static hp_req_info info_of(int32_t peer)
{
    hp_req_info in;
    memset(&in, 0, sizeof in);
    in.peer = peer;
    in.active = 1;
    return in;
}

/* hp_reqmap_complete copied to *out: 0 when an active entry was found;
 * else -1 with *out as the call left its buffer (the copy of an inactive
 * persistent entry). */
static int complete_copy(uintptr_t key, uint64_t before, hp_req_info *out)
{
    hp_req_info buf = info_of(-1);
    const hp_req_info *in = hp_reqmap_complete(key, before, &buf);
    *out = in ? *in : buf;
    return in ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    hp_reqmap_free_all();
    hp_reqmap_set_threaded(0);
    return 0;
}

/* 64 outstanding requests under one handle: each completion takes a
 * different one, none is lost, and a 65th completion finds nothing. */
static void test_shared_handle(void **state)
{
    (void)state;
    const uintptr_t shared = 0x1000;
    int seen[64] = {0};
    for (int i = 0; i < 64; i++)
        assert_int_equal(hp_reqmap_put(shared, &(hp_req_info){.peer = i, .active = 1}), 0);
    assert_int_equal(hp_reqmap_outstanding(), 64);
    uint64_t before = hp_reqmap_now();
    for (int i = 0; i < 64; i++) {
        hp_req_info out;
        assert_int_equal(complete_copy(shared, before, &out), 0);
        assert_true(out.peer >= 0 && out.peer < 64);
        seen[out.peer]++;
    }
    for (int i = 0; i < 64; i++)
        assert_int_equal(seen[i], 1);
    hp_req_info out;
    assert_int_equal(complete_copy(shared, before, &out), -1);
    assert_int_equal(hp_reqmap_outstanding(), 0);
}

/* hp_reqmap_post: an entry written in place is completed like a put one
 * (own handle, a shared handle over a put one, an entry posted after a
 * Wait began is not that Wait's); no entry in place for a persistent
 * request, a null handle or under MPI_THREAD_MULTIPLE. */
static void test_post_in_place(void **state)
{
    (void)state;
    hp_req_info out;
    assert_null(hp_reqmap_post(0x7000, 1));
    assert_null(hp_reqmap_post(0, 0));
    hp_req_info *in = hp_reqmap_post(0x7000, 0);
    assert_non_null(in);
    *in = info_of(7);
    assert_int_equal(hp_reqmap_put(0x7000, &(hp_req_info){.peer = 8, .active = 1}), 0);
    uint64_t before = hp_reqmap_now();
    in = hp_reqmap_post(0x7000, 0);
    assert_non_null(in);
    *in = info_of(9);
    assert_int_equal(hp_reqmap_outstanding(), 3);
    assert_int_equal(complete_copy(0x7000, before, &out), 0);
    assert_int_equal(out.peer, 8);
    assert_int_equal(complete_copy(0x7000, before, &out), 0);
    assert_int_equal(out.peer, 7);
    assert_int_equal(complete_copy(0x7000, before, &out), -1);
    assert_int_equal(complete_copy(0x7000, hp_reqmap_now(), &out), 0);
    assert_int_equal(out.peer, 9);
    assert_int_equal(hp_reqmap_outstanding(), 0);
    hp_reqmap_set_threaded(1);
    assert_null(hp_reqmap_post(0x7000, 0));
}

/* Thread A's Wait begins, frees handle h inside MPI; thread B's new
 * request gets h and is registered before A looks h up.  Whoever looks
 * first, A gets the old request and B the new one. */
static void test_reused_handle(void **state)
{
    (void)state;
    const uintptr_t h = 0x2000;
    hp_req_info out, a = info_of(1), b = info_of(2);
    for (int order = 0; order < 2; order++) {
        hp_reqmap_put(h, &a);
        uint64_t a_began = hp_reqmap_now();
        hp_reqmap_put(h, &b);
        uint64_t b_began = hp_reqmap_now();
        if (order == 0) {
            assert_int_equal(complete_copy(h, a_began, &out), 0);
            assert_int_equal(out.peer, 1);
            assert_int_equal(complete_copy(h, b_began, &out), 0);
            assert_int_equal(out.peer, 2);
        } else {
            assert_int_equal(complete_copy(h, b_began, &out), 0);
            assert_int_equal(out.peer, 2);
            assert_int_equal(complete_copy(h, a_began, &out), 0);
            assert_int_equal(out.peer, 1);
        }
        assert_int_equal(hp_reqmap_outstanding(), 0);
    }
}

/* A completion never takes a request registered after it began. */
static void test_newer_request_not_taken(void **state)
{
    (void)state;
    hp_req_info out, in = info_of(3);
    uint64_t began = hp_reqmap_now();
    hp_reqmap_put(0x3000, &in);
    assert_int_equal(complete_copy(0x3000, began, &out), -1);
    assert_int_equal(hp_reqmap_outstanding(), 1);
    assert_int_equal(hp_reqmap_take(0x3000, hp_reqmap_now(), &out), 0);
}

static void test_persistent(void **state)
{
    (void)state;
    hp_req_info out, in = info_of(4);
    in.persistent = 1;
    in.active = 0;
    hp_reqmap_put(0x4000, &in);
    assert_int_equal(complete_copy(0x4000, hp_reqmap_now(), &out), -1); /* inactive */
    for (int round = 0; round < 3; round++) {
        assert_int_equal(hp_reqmap_start(0x4000, 100 + round, &out), 0);
        assert_int_equal(out.post_ticks, 100 + round);
        assert_int_equal(complete_copy(0x4000, hp_reqmap_now(), &out), 0);
        assert_int_equal(out.peer, 4);
        assert_int_equal(complete_copy(0x4000, hp_reqmap_now(), &out), -1);
    }
    assert_int_equal(hp_reqmap_outstanding(), 1);
    assert_int_equal(hp_reqmap_take(0x4000, hp_reqmap_now(), &out), 0);
    assert_int_equal(hp_reqmap_start(0x4000, 1, &out), -1);
    assert_int_equal(hp_reqmap_outstanding(), 0);
}

/* A persistent request registered under a handle that still has an
 * older, non-persistent entry (a request the program never completed):
 * the persistent one is the handle's newest, so completions and starts
 * find it first, and the old entry is taken last. */
static void test_persistent_over_older(void **state)
{
    (void)state;
    hp_req_info out, old = info_of(5), p = info_of(6);
    p.persistent = 1;
    p.active = 0;
    assert_int_equal(hp_reqmap_put(0x6000, &old), 0);
    assert_int_equal(hp_reqmap_put(0x6000, &p), 0);
    assert_int_equal(complete_copy(0x6000, hp_reqmap_now(), &out), -1); /* inactive */
    assert_int_equal(out.peer, 6);
    assert_int_equal(hp_reqmap_start(0x6000, 7, &out), 0);
    assert_int_equal(complete_copy(0x6000, hp_reqmap_now(), &out), 0);
    assert_int_equal(out.peer, 6);
    assert_int_equal(hp_reqmap_take(0x6000, hp_reqmap_now(), &out), 0);
    assert_int_equal(out.peer, 6);
    assert_int_equal(hp_reqmap_take(0x6000, hp_reqmap_now(), &out), 0);
    assert_int_equal(out.peer, 5);
    assert_int_equal(hp_reqmap_outstanding(), 0);
}

/* 200,000 random operations over 3,000 handles (several entries per
 * handle at times) against a model that counts entries per handle. */
static void test_random_model(void **state)
{
    (void)state;
    enum { KEYS = 3000 };
    static int model[KEYS];
    size_t total = 0;
    srand(12345);
    for (int i = 0; i < 200000; i++) {
        int k = rand() % KEYS;
        uintptr_t key = (uintptr_t)(k + 1) * 16;
        hp_req_info out, in = info_of(k);
        if (rand() % 2 || model[k] == 0) {
            assert_int_equal(hp_reqmap_put(key, &in), 0);
            model[k]++;
            total++;
        } else {
            assert_int_equal(hp_reqmap_take(key, hp_reqmap_now(), &out), 0);
            assert_int_equal(out.peer, k);
            model[k]--;
            total--;
        }
    }
    assert_int_equal(hp_reqmap_outstanding(), total);
    for (int k = 0; k < KEYS; k++) {
        hp_req_info out;
        for (; model[k]; model[k]--)
            assert_int_equal(hp_reqmap_take((uintptr_t)(k + 1) * 16, hp_reqmap_now(), &out), 0);
        assert_int_equal(hp_reqmap_take((uintptr_t)(k + 1) * 16, hp_reqmap_now(), &out), -1);
    }
    assert_int_equal(hp_reqmap_outstanding(), 0);
}

#define NTHREADS 4
#define PER_THREAD 50000

static void *churn(void *arg)
{
    int t = (int)(intptr_t)arg;
    long bad = 0;
    for (int i = 0; i < PER_THREAD; i++) {
        uintptr_t own = (uintptr_t)(t + 1) << 20 | (uintptr_t)(i % 97) << 4;
        hp_req_info out, in = info_of(t);
        hp_reqmap_put(own, &in);
        hp_reqmap_put(0x5000, &in); /* one handle shared by all threads */
        uint64_t began = hp_reqmap_now();
        bad += complete_copy(own, began, &out) != 0 || out.peer != t;
        bad += complete_copy(0x5000, began, &out) != 0;
    }
    return (void *)(intptr_t)bad;
}

static void test_threads(void **state)
{
    (void)state;
    pthread_t th[NTHREADS];
    hp_reqmap_set_threaded(1);
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, churn, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++) {
        void *bad;
        pthread_join(th[t], &bad);
        assert_int_equal((intptr_t)bad, 0);
    }
    assert_int_equal(hp_reqmap_outstanding(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_shared_handle, teardown),
        cmocka_unit_test_teardown(test_reused_handle, teardown),
        cmocka_unit_test_teardown(test_newer_request_not_taken, teardown),
        cmocka_unit_test_teardown(test_persistent, teardown),
        cmocka_unit_test_teardown(test_post_in_place, teardown),
        cmocka_unit_test_teardown(test_persistent_over_older, teardown),
        cmocka_unit_test_teardown(test_random_model, teardown),
        cmocka_unit_test_teardown(test_threads, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
