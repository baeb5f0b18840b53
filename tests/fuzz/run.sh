#!/bin/bash
# tests/fuzz/run.sh - a short libFuzzer run of the profile reader and the
# merge (tests/fuzz/fuzz_profile.c), built with clang's
# -fsanitize=fuzzer,address,undefined from the sources, seeded with the
# profiles tests/unit/mkprofile, mkcheck and mkdeep write.  Fails on any
# crash, hang (10 s per input), leak or sanitizer report, and prints the
# fuzzer's last lines and the reproducer's name.  Skipped (exit 77) when
# clang cannot build a libFuzzer target.
# usage: tests/fuzz/run.sh [BUILDDIR]
# Env: HPROF_FUZZ_SECONDS (default 20; e.g. 3600 for a long run),
#      HPROF_FUZZ_CORPUS (a directory kept between runs; default: a temp dir).
set -uo pipefail
srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
secs=${HPROF_FUZZ_SECONDS:-20}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if ! command -v clang >/dev/null; then
    echo "# SKIP fuzz: no clang"
    exit 77
fi
fuzz=$tmp/fuzz_profile
if ! clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$srcdir/libhprof/codec" -I"$srcdir/analyzer" -I"$builddir" \
    "$srcdir/tests/fuzz/fuzz_profile.c" "$srcdir/analyzer/hpf_read.c" "$srcdir/analyzer/merge.c" \
    "$srcdir/analyzer/keymap.c" "$srcdir/libhprof/codec/format.c" \
    "$srcdir/libhprof/codec/encode.c" -o "$fuzz" 2>"$tmp/build.err"; then
    if grep -q "fuzzer" "$tmp/build.err"; then
        echo "# SKIP fuzz: clang cannot link libFuzzer: $(head -1 "$tmp/build.err")"
        exit 77
    fi
    echo "not ok - fuzz target builds: $(head -3 "$tmp/build.err" | tr '\n' ' ')"
    exit 1
fi
echo "ok - fuzz target builds"

corpus=${HPROF_FUZZ_CORPUS:-$tmp/corpus}
mkdir -p "$corpus" "$tmp/seeds"
"$builddir/tests/unit/mkprofile" "$tmp/seeds/known.hpf"
"$builddir/tests/unit/mkdeep" "$tmp/seeds/deep.hpf" 400 20
for k in ok a b c d d-abort e e-root f nested; do
    "$builddir/tests/unit/mkcheck" "$tmp/seeds/check-$k.hpf" "$k" >/dev/null 2>&1
done
n=$(ls "$tmp/seeds" | wc -l)
"$fuzz" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$tmp/" "$corpus" "$tmp/seeds" >"$tmp/fuzz.log" 2>&1
rc=$?
if [ $rc = 0 ]; then
    echo "ok - $secs s of fuzzing from $n seeds: $(grep -o 'Done [0-9]* runs' "$tmp/fuzz.log" | tail -1), no crash, hang, leak or sanitizer report"
    echo "2 passed, 0 failed"
    exit 0
fi
echo "not ok - fuzzing: exit $rc: $(grep -E 'ERROR|SUMMARY|Test unit written' "$tmp/fuzz.log" | head -3 | tr '\n' ' ')"
tail -30 "$tmp/fuzz.log"
mkdir -p "$builddir/fuzz-artifacts" && cp "$tmp"/crash-* "$tmp"/timeout-* "$tmp"/leak-* "$builddir/fuzz-artifacts/" 2>/dev/null
echo "1 passed, 1 failed (inputs kept in $builddir/fuzz-artifacts)"
exit 1
