#!/bin/bash
# tests/fuzz/run.sh - a short libFuzzer run of the profile reader, the
# merge and, for the profiles the reader accepts, the database writer, the
# --check rules and the default listing (tests/fuzz/fuzz_profile.c: a
# failed write must leave no partial database), built with clang's
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
# a background build or fuzzer still running when the script ends is stopped
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

if ! command -v clang >/dev/null; then
    echo "# SKIP fuzz: no clang"
    exit 77
fi

# The instrumenter's target (when libclang is there): its sources with
# main renamed, linked with libclang.  It builds in the background while
# the profile's target builds (2 cores; the tests run one at a time).
clang_cflags=$(sed -n 's/^CLANG_CFLAGS = //p' "$builddir/Makefile" 2>/dev/null)
clang_libs=$(sed -n 's/^CLANG_LIBS = //p' "$builddir/Makefile" 2>/dev/null)
ibuild=
if [ -n "$clang_libs" ] && [ -e "$builddir/instrument/hpi_mpi_kinds.h" ]; then
    clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        -Dmain=hpi_main $clang_cflags -I"$srcdir/instrument" -I"$builddir/instrument" \
        -I"$srcdir/libhprof/codec" -I"$srcdir/libhprof" -I"$builddir" \
        "$srcdir/tests/fuzz/fuzz_instrument.c" "$srcdir"/instrument/*.c \
        "$srcdir/libhprof/codec/filter.c" "$srcdir/libhprof/codec/names.c" $clang_libs \
        -o "$tmp/fuzz_instrument" 2>"$tmp/ibuild.err" &
    ibuild=$!
fi

fuzz=$tmp/fuzz_profile
if ! clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$srcdir/libhprof/codec" -I"$srcdir/analyzer" -I"$builddir" \
    "$srcdir/tests/fuzz/fuzz_profile.c" \
    "$srcdir"/analyzer/read/{hpf_read,hpf_section,hpf_file}.c \
    "$srcdir"/analyzer/db/{db_aggregator,keymap,nodemap,merge,db,db_tree,dbcomp,db_agg,db_aggnode,db_aggsite,db_aggcomm,db_aggovh,ovh_class,db_rows,db_order,identity,db_counters,phases,detail,detail_src,detail_sums,rankidx,rankidx_read,parts}.c \
    "$srcdir"/analyzer/query/{check,checktree,report,report_util,report_tree,endings,sitesel,nodepath,table,trace,hatchet,counter_cols}.c \
    "$srcdir/libhprof/codec/format.c" \
    "$srcdir/libhprof/codec/encode.c" "$srcdir/libhprof/codec/compensate.c" \
    "$srcdir/libhprof/codec/counters_codec.c" -lsqlite3 -lm \
    -o "$fuzz" 2>"$tmp/build.err"; then
    if grep -q "fuzzer" "$tmp/build.err"; then
        echo "# SKIP fuzz: clang cannot link libFuzzer: $(head -1 "$tmp/build.err")"
        exit 77
    fi
    echo "not ok - fuzz target builds: $(head -3 "$tmp/build.err" | tr '\n' ' ')"
    exit 1
fi
echo "ok - fuzz target builds"

ifuzz=
if [ -n "$ibuild" ]; then
    if wait "$ibuild"; then
        ifuzz=$tmp/fuzz_instrument
        echo "ok - instrumenter fuzz target builds"
    else
        echo "not ok - instrumenter fuzz target builds: $(head -3 "$tmp/ibuild.err" | tr '\n' ' ')"
        exit 1
    fi
fi

corpus=${HPROF_FUZZ_CORPUS:-$tmp/corpus}
mkdir -p "$corpus" "$tmp/seeds"
"$builddir/tests/unit/mkprofile" "$tmp/seeds/known.hpf"
"$builddir/tests/unit/mkdeep" "$tmp/seeds/deep.hpf" 400 20
for k in ok a b c d d-abort e e-root f nested; do
    "$builddir/tests/unit/mkcheck" "$tmp/seeds/check-$k.hpf" "$k" >/dev/null 2>&1
done
n=$(ls "$tmp/seeds" | wc -l)
mkdir -p "$tmp/db" "$corpus-c"
# The two fuzzers run side by side, a core each.  libclang keeps caches
# between inputs: the instrumenter's leaks are not checked, neither per
# input nor at exit (LeakSanitizer's own check, which once found
# libLLVM's SmallVector buffers still held at the end).
if [ -n "$ifuzz" ]; then
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    "$ifuzz" -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 -max_len=4096 -detect_leaks=0 \
        -close_fd_mask=3 -artifact_prefix="$tmp/" "$corpus-c" "$srcdir"/tests/instrument/src/ \
        >"$tmp/ifuzz.log" 2>&1 &
    irun=$!
fi
TMPDIR=$tmp/db "$fuzz" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$tmp/" "$corpus" "$tmp/seeds" >"$tmp/fuzz.log" 2>&1
rc=$?
if [ $rc = 0 ]; then
    echo "ok - $secs s of fuzzing the reader, merge and database writer from $n seeds: $(grep -o 'Done [0-9]* runs' "$tmp/fuzz.log" | tail -1), no crash, hang, leak or sanitizer report"
    echo "#    $(grep -o '[0-9]* accepted profiles.*' "$tmp/fuzz.log" | tail -1)"
    if [ -z "$ifuzz" ]; then
        echo "2 passed, 0 failed"
        exit 0
    fi
    wait "$irun"
    rc=$?
    if [ $rc = 0 ]; then
        echo "ok - $secs s of fuzzing the instrumenter from its test sources: $(grep -o 'Done [0-9]* runs' "$tmp/ifuzz.log" | tail -1), no crash, hang or sanitizer report"
        echo "4 passed, 0 failed"
        exit 0
    fi
    cat "$tmp/ifuzz.log" >>"$tmp/fuzz.log"
fi
echo "not ok - fuzzing: exit $rc: $(grep -E 'ERROR|SUMMARY|Test unit written' "$tmp/fuzz.log" | head -3 | tr '\n' ' ')"
tail -30 "$tmp/fuzz.log"
mkdir -p "$builddir/fuzz-artifacts" && cp "$tmp"/crash-* "$tmp"/timeout-* "$tmp"/leak-* "$builddir/fuzz-artifacts/" 2>/dev/null
echo "1 passed, 1 failed (inputs kept in $builddir/fuzz-artifacts)"
exit 1
