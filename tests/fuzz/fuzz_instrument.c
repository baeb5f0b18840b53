/*
 * fuzz_instrument.c - libFuzzer target for hprof-instrument: any C text,
 * however mangled, must be instrumented or refused with one line, never
 * crash, hang or trip a sanitizer.  The instrumenter's sources are built
 * with main renamed (-Dmain=hpi_main); each input is written to a file and
 * run through hpi_main as `hprof-instrument --omp -o OUT FILE`, with
 * OpenMP rewriting on so the pragma paths are reached.  tests/fuzz/run.sh
 * builds it and seeds it with tests/instrument/src/*.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int hpi_main(int argc, char **argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char in[64], out[64];
    if (!in[0]) {
        snprintf(in, sizeof in, "/tmp/hprof-fuzz-%ld.c", (long)getpid());
        snprintf(out, sizeof out, "/tmp/hprof-fuzz-%ld.out.c", (long)getpid());
    }
    FILE *f = fopen(in, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    char *argv[] = {"hprof-instrument", "--omp", "-o", out, in, NULL};
    hpi_main(5, argv);
    unlink(out);
    return 0;
}
