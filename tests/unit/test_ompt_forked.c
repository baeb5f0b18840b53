/*
 * test_ompt_forked.c - unit tests of the OMPT tool's record of the regions
 * each thread forked (libhprof/sources/ompt_forked.c): a parallel-end
 * ends the thread's innermost region (regions with no state too), each
 * thread has its own record (another thread's regions never end one of
 * this thread's), and the record grows as deep as regions nest.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <pthread.h>
#include <cmocka.h>
#include "config.h"

#ifdef HAVE_OMPT
/* (hp_ompt.h's declarations, without the runtime's omp-tools.h) */
void hp_ompt_forked_push(void *region);
void *hp_ompt_forked_pop(void);

static int a, b, c;

static void test_innermost_first(void **state)
{
    (void)state;
    hp_ompt_forked_push(&a);
    hp_ompt_forked_push(NULL);   /* a region the tool kept no state of */
    hp_ompt_forked_push(&b);
    assert_ptr_equal(hp_ompt_forked_pop(), &b);
    assert_null(hp_ompt_forked_pop());
    assert_ptr_equal(hp_ompt_forked_pop(), &a);
    assert_null(hp_ompt_forked_pop());   /* an end with no begin: nothing */
}

static void *other_thread(void *arg)
{
    (void)arg;
    hp_ompt_forked_push(&c);
    void *mine = hp_ompt_forked_pop();
    void *left = hp_ompt_forked_pop();
    return mine == &c && !left ? &c : NULL;
}

static void test_per_thread(void **state)
{
    (void)state;
    pthread_t th;
    void *res = NULL;
    hp_ompt_forked_push(&a);
    assert_int_equal(pthread_create(&th, NULL, other_thread, NULL), 0);
    assert_int_equal(pthread_join(th, &res), 0);
    assert_ptr_equal(res, &c);   /* it ended its own region, not this thread's */
    assert_ptr_equal(hp_ompt_forked_pop(), &a);
}

static void test_deep(void **state)
{
    (void)state;
    enum { DEEP = 100000 };
    static char regions[DEEP];
    for (int i = 0; i < DEEP; i++)
        hp_ompt_forked_push(&regions[i]);
    int in_order = 1;
    for (int i = DEEP - 1; i >= 0; i--)
        in_order &= hp_ompt_forked_pop() == &regions[i];
    assert_true(in_order);
    assert_null(hp_ompt_forked_pop());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_innermost_first),
        cmocka_unit_test(test_per_thread),
        cmocka_unit_test(test_deep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void)
{
    return 77;   /* no OMPT tool in this build: skipped */
}
#endif
