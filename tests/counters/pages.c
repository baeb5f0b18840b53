/*
 * tests/counters/pages.c - the real counting path with a software event
 * (HPROF_COUNTERS=perf::PAGE-FAULTS, the kernel's perf_event software
 * counter through PAPI's perf_event component).
 *
 * Ground truth, on each rank: region "touch" maps NPAGES = 2000 fresh
 * anonymous pages (no huge pages) and writes one byte in each: every
 * write is a new page fault, so "touch" counts at least 2000 page faults
 * (and at most 2000 + 64: the region's own few).  Region "reuse" then
 * reads the same, already mapped pages 3 times (3 calls): no new page is
 * touched, so at most 16 faults in all (allowing a few for the
 * profiler's own first records).  Prints the same sum with and without
 * hprof.
 */
#include <mpi.h>
#include <stdio.h>
#include <sys/mman.h>
#include "hprof.h"

#define NPAGES 2000
#define PAGE 4096

int main(int argc, char **argv)
{
    int rank;
    long sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    hprof_region_begin("touch");
    volatile char *p = mmap(NULL, (size_t)NPAGES * PAGE, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 1;
    madvise((void *)p, (size_t)NPAGES * PAGE, MADV_NOHUGEPAGE);
    for (long i = 0; i < NPAGES; i++)
        p[i * PAGE] = (char)(i & 7);
    hprof_region_end("touch");
    for (int round = 0; round < 3; round++) {
        hprof_region_begin("reuse");
        for (long i = 0; i < NPAGES; i++)
            sum += p[i * PAGE];
        hprof_region_end("reuse");
    }
    printf("rank %d sum %ld\n", rank, sum);
    MPI_Finalize();
    return 0;
}
