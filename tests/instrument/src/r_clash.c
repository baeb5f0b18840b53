/* r_clash.c - a program whose own macro takes the name of an hprof probe
 * function (tests/instrument/corpus.sh): its instrumented copy cannot
 * compile, so hprof-cc compiles it as is after one warning that quotes
 * the compiler's first error.  Ground truth: prints "5". */
#include <stdio.h>

#define hprof_enter(f, u, i) probe_name_taken_by_the_program

static int five(void) { return 5; }

int main(void)
{
    printf("%d\n", five());
    return 0;
}
