/*
 * test_unwind.c - the return addresses above a call site (libhprof/core/
 * unwind.c, what tier-0 call paths are made of):
 *  - top() -> mid() -> caller() -> wrapper(): the walk from wrapper's
 *    helper gives the return addresses into mid, top and this test, in
 *    that order;
 *  - later walks from the same place give the same addresses without
 *    libunwind (the offsets table): 1000 walks, 0 more libunwind walks.
 *    Without that the call path would cost microseconds per MPI call;
 *  - a frame of run-time size (a VLA) in the chain is walked by libunwind
 *    every time, with the same result.
 * No timing: the counts of libunwind walks are exact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "hp_unwind.h"

static uintptr_t got[4];
static int ngot;
static volatile int sink;

/* What the MPI wrapper's call of hp_event_callpath_slow does. */
__attribute__((noinline)) static void asker(uintptr_t ra)
{
    ngot = hp_unwind_above(ra, (uintptr_t)__builtin_return_address(0),
                           (uintptr_t)__builtin_frame_address(0), got, 3);
    sink++;
}

__attribute__((noinline)) static void wrapper(void)
{
    asker((uintptr_t)__builtin_return_address(0));
    sink++;
}

__attribute__((noinline)) static void caller(void)
{
    wrapper();
    sink++;
}

__attribute__((noinline)) static void mid(void)
{
    caller();
    sink++;
}

__attribute__((noinline)) static void top(void)
{
    mid();
    sink++;
}

__attribute__((noinline)) static void sized(int n)
{
    volatile char buf[n];
    buf[0] = 1;
    caller();
    sink += buf[0];
}

__attribute__((noinline)) static void top_sized(int n)
{
    sized(n);
    sink++;
}

/* addr lies in the code of function f (they are short: 512 bytes) */
static int within(uintptr_t addr, void (*f)(void))
{
    return addr > (uintptr_t)f && addr < (uintptr_t)f + 512;
}

static void test_fast_walks(void **state)
{
    (void)state;
    hp_unwind_init();
    top();
    uintptr_t first[3] = {got[0], got[1], got[2]};
    assert_int_equal(ngot, 3);
    assert_true(within(first[0], mid));
    assert_true(within(first[1], top));
    assert_true(within(first[2], (void (*)(void))test_fast_walks));
    unsigned long slow = hp_unwind_slow_walks();
    uintptr_t here = 0;     /* the loop's call of top(), another one */
    for (int i = 0; i < 1000; i++) {
        top();
        assert_int_equal(ngot, 3);
        assert_true(got[0] == first[0] && got[1] == first[1]);
        if (!here)
            here = got[2];
        assert_true(got[2] == here && here != first[2]);
    }
    assert_int_equal(hp_unwind_slow_walks(), slow);
}

static void test_sized_frame(void **state)
{
    (void)state;
    top_sized(40);      /* the first from here learns */
    uintptr_t first[2] = {got[0], got[1]};
    assert_true(ngot >= 2);
    assert_true(within(first[1], (void (*)(void))top_sized));
    unsigned long slow = hp_unwind_slow_walks();
    for (int i = 0; i < 10; i++) {
        top_sized(40 + i);
        assert_true(ngot >= 2 && got[0] == first[0] && got[1] == first[1]);
    }
    assert_int_equal(hp_unwind_slow_walks(), slow + 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_walks),
        cmocka_unit_test(test_sized_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
