/*
 * asis_nest.c - code hprof-instrument must leave as written because of
 * where it stands (tests/instrument/whole.sh), as SOLLVE 5.0's
 * declare_variant and loop tests have it:
 *  - V: a procedure called from a target region (fill) is device code,
 *    and so are its variants (declare variant on its declaration):
 *    gcc compiles fill_par for the device too, where a probe (thread-local
 *    state) is refused, so the whole file fell back to its original; its
 *    worksharing loop is left as written too (no POMP2 call on a device);
 *  - T: a parallel construct nested in a host teams region: its POMP2
 *    rewriting called omp_get_max_threads() there, which gcc refuses
 *    (only distribute, parallel, loop and a few API calls may be strictly
 *    nested in teams).
 * The program checks its own results: stdout is "V 0" and "T 0" (every
 * element is what the serial code computes), with or without hprof.
 */
#include <stdio.h>

#define N 256

void fill_par(int *a);

#pragma omp declare variant(fill_par) match(construct = {parallel})
void fill(int *a);

void fill(int *a)   /* the base: on the host, in sequence or on the device */
{
    for (int i = 0; i < N; i++)   /* MARK:FILL_LOOP */
        a[i] = i;
}

void fill_par(int *a)   /* the variant for a parallel region */
{
#pragma omp for
    for (int i = 0; i < N; i++)   /* MARK:FILL_PAR_LOOP */
        a[i] = i;
}

int main(void)
{
    int a[N], b[N], bad = 0, teams = 0, sum = 0, want = 0;

    for (int i = 0; i < N; i++)
        a[i] = b[i] = -1;
#pragma omp target map(tofrom: a[0:N])
    {
        fill(a);
    }
#pragma omp parallel num_threads(2)
    {
        fill(b);
    }
    for (int i = 0; i < N; i++)
        bad += a[i] != i || b[i] != i;
    printf("V %d\n", bad);

#pragma omp teams num_teams(2) reduction(+: teams, sum)
    {
        teams++;
#pragma omp parallel if(0)
        for (int i = 0; i < N; i++)   /* MARK:TEAMS_LOOP */
            sum += i;
    }
    for (int i = 0; i < N; i++)
        want += i;
    printf("T %d\n", teams < 1 || sum != teams * want);
    return 0;
}
