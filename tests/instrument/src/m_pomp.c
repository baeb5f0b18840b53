/* m_pomp.c - OpenMP constructs rewritten into POMP2 calls (--omp):
 * single, sections, master, task, taskwait, ordered, flush, atomic,
 * critical, locks, parallel sections, default(none) and lastprivate on a
 * split parallel for.  The output does not depend on the thread count.
 * (No untied task has an if clause: libomp 14 asserts, at random, when an
 * untied task runs undeferred - LLVM issue 172938.) */
#include <stdio.h>
#include <omp.h>

static int fib(int n)
{
    int a, b;
    if (n < 2)
        return n;
#pragma omp task shared(a) untied
    a = fib(n - 1);
#pragma omp task shared(b) if(n > 8) final(n < 5)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

int main(void)
{
    int singles = 0, masters = 0, secs = 0, crit = 0, at = 0, f = 0, last = -1, i;
    long ord = 0;
    omp_lock_t lock;
    omp_init_lock(&lock);
#pragma omp parallel default(none) shared(singles, masters, secs, crit, at, f, lock, ord)
    {
#pragma omp single
        singles++;
#pragma omp master
        {
            masters++;
        }
#pragma omp barrier
#pragma omp sections
        {
#pragma omp section
            secs += 1;
#pragma omp section
            {
                secs += 10;
            }
        }
#pragma omp critical(tally)
        crit++;
#pragma omp atomic
        at += 2;
#pragma omp flush
        omp_set_lock(&lock);
        crit += 0;
        omp_unset_lock(&lock);
#pragma omp for ordered schedule(dynamic, 1)
        for (int k = 0; k < 10; k++) {
#pragma omp ordered
            ord = ord * 10 + k % 10;
        }
#pragma omp single nowait
        {
#pragma omp task
            f = fib(15);
        }
    }
#pragma omp parallel for lastprivate(last) num_threads(2) schedule(static) \
        default(none)
    for (i = 0; i < 7; i++)
        last = i * 3;
#pragma omp parallel sections reduction(+:secs)
    {
#pragma omp section
        secs += 100;
#pragma omp section
        secs += 1000;
    }
    omp_destroy_lock(&lock);
    printf("single %d master %d sections %d critical>0 %d atomic>0 %d fib %d ordered %ld last %d\n",
           singles, masters, secs, crit > 0, at > 0, f, ord, last);
    return 0;
}
