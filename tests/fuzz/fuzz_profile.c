/*
 * fuzz_profile.c - libFuzzer target for the profile reader and the merge
 * of ranks (analyzer/hpf_read.c, merge.c): any input must give either a
 * profile or a one-line error, never a crash, a hang or a sanitizer
 * report.  Mutated bytes would nearly always fail a section's CRC and stop
 * at the first check, so the target first recomputes the CRC of every
 * section it can frame (tag, crc, length, payload): the fuzzer then
 * reaches the decoders of the payloads.  tests/fuzz/run.sh builds it with
 * clang -fsanitize=fuzzer,address,undefined and runs it on seeds written
 * by tests/unit/mkprofile, mkcheck and mkdeep.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hp_format.h"
#include "hpf_read.h"
#include "merge.h"

static void fix_section_crcs(unsigned char *p, size_t n)
{
    size_t at = HP_PREAMBLE_LEN;
    while (at + 16 <= n) {
        uint64_t len = hp_get_u64(p + at + 8);
        if (len > n - at - 16)
            return;
        hp_put_u32(p + at + 4, hp_crc32(p + at + 16, (size_t)len));
        at += 16 + (size_t)len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    fix_section_crcs(copy, size);
    hpf_profile prof;
    hpf_merged merged;
    char err[512];
    if (hpf_decode(copy, size, "fuzz", &prof, err, sizeof err) == 0) {
        if (hpf_merge(&prof, &merged) == 0)
            hpf_merged_free(&merged);
        hpf_free(&prof);
    }
    free(copy);
    return 0;
}
