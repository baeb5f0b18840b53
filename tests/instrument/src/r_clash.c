/* r_clash.c - a program whose own macro takes the name of the function
 * its probes call (hprof_probe.h; tests/instrument/corpus.sh): its
 * instrumented copy cannot compile, so hprof-cc compiles it as is after
 * one warning quoting the compiler's first error (gcc: line 8, column
 * 44).  Ground truth: prints "5". */
#include <stdio.h>

#define hprof_probe_enter_once(f, u, d, i) probe_name_taken_by_the_program

static int five(void) { return 5; }

int main(void)
{
    printf("%d\n", five());
    return 0;
}
