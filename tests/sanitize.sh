#!/bin/bash
# tests/sanitize.sh - the MPI-free part of hprof (runtime core, sources,
# analyzer, instrumenter) built out of tree with AddressSanitizer and
# UndefinedBehaviorSanitizer (gcc, -fno-sanitize-recover: the first report
# fails), and its tests run there: the cmocka unit tests of the core,
# probes, tasks and file format, the analyzer's shell tests on known,
# broken and deep profiles, the instrumenter's test; then the threaded
# unit tests built with ThreadSanitizer.  Any sanitizer report fails.  The build
# is incremental in _build/sanitize (a second run rebuilds what changed).
# usage: tests/sanitize.sh   (from anywhere; called by tests/check.sh)
# Env: HPROF_SANITIZE=0 skips it.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ "${HPROF_SANITIZE:-1}" = 1 ] || { echo "sanitize: skipped (HPROF_SANITIZE=0)"; exit 0; }
dir=$top/_build/sanitize
mkdir -p "$dir/src" "$dir/build"
# The source tree may be configured in place, which forbids a second
# build from it: the build uses a copy of the tracked files and of the
# autotools output (only files that changed are copied again).
(cd "$top" && { git ls-files; git ls-files --others --exclude-standard; ls -d configure Makefile.in aclocal.m4 config.h.in build-aux/* \
    m4/*.m4 */Makefile.in 2>/dev/null; } | sort -u | while read -r f; do
    [ -f "$f" ] && cp -u -p --parents "$f" "$dir/src/"; done)
cd "$dir/build" || exit 1
flags="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
if [ ! -e Makefile ] || [ ../src/configure -nt config.status ]; then
    ../src/configure -q --without-mpi CFLAGS="$flags" LDFLAGS="-fsanitize=address,undefined" \
        >configure.log 2>&1 || { echo "sanitize: configure failed (see $dir/build/configure.log)"; exit 1; }
fi
# Tests that link objects of this build themselves need the sanitizers' runtimes.
export HPROF_TEST_LDFLAGS="-fsanitize=address,undefined"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if ! make -j2 >build.log 2>&1; then
    echo "sanitize: build failed:"; grep -E "error" build.log | head -5; exit 1
fi
# The functional tests; the timing comparisons of the OpenMP scripts and
# the fuzzer (which builds its own sanitized target) are left to the
# normal build: a sanitizer slows code unevenly.
tests="tests/unit/test_core tests/unit/test_task tests/unit/test_probe tests/unit/test_cyg_fast tests/unit/test_omp_pragma
       tests/unit/test_counters
       tests/unit/test_threads
       tests/unit/test_format tests/unit/test_query.sh tests/unit/test_check.sh
       tests/unit/test_deep.sh tests/instrument/run.sh tests/tasks/rec.sh"
present=""
for t in $tests; do grep -q "^TESTS = .*\b$t\b\|[[:space:]]$t\b" Makefile && present="$present $t"; done
make -j2 check TESTS="$present" >check.log 2>&1
rc=$?
grep -E "^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):" check.log
if grep -lE "ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer" $(find tests -name '*.log') 2>/dev/null | grep -c . >/dev/null; then
    echo "sanitize: sanitizer reports in: $(grep -lE 'ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' $(find tests -name '*.log') | head -3 | tr '\n' ' ')"
    rc=1
fi
if [ $rc = 0 ]; then
    echo "sanitize: all tests passed under ASan+UBSan"
else
    # CI shows only the end of the output: name each failed test here with
    # its failed checks and the first lines of a sanitizer's report.
    echo "sanitize: FAILED (logs in $dir/build):"
    for trs in $(grep -lE '^:test-result: *(FAIL|ERROR)' $(find tests -name '*.trs') 2>/dev/null); do
        t=${trs%.trs}
        echo "sanitize: failed: $t"
        grep -n '^not ok' "$t.log" | head -5 | cut -c1-300 | sed 's/^/sanitize:   /'
        grep -m1 -A8 -E 'ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' "$t.log" |
            cut -c1-200 | sed 's/^/sanitize:   /'
        tail -5 "$t.log" | cut -c1-200 | sed 's/^/sanitize:   | /'
    done
fi

# ThreadSanitizer: the tests that run several threads through the store
# and the event boundary (test_threads) and the core's unit tests.  The
# OpenMP and MPI integration tests are not run under it: libgomp, libomp
# and Open MPI are not built with it, and their reports would be theirs.
mkdir -p "$dir/tsan"
cd "$dir/tsan" || exit 1
if [ ! -e Makefile ] || [ ../src/configure -nt config.status ]; then
    ../src/configure -q --without-mpi CFLAGS="-g -O1 -fsanitize=thread" LDFLAGS="-fsanitize=thread" \
        >configure.log 2>&1 || { echo "sanitize: TSan configure failed"; exit 1; }
fi
export TSAN_OPTIONS=halt_on_error=1:exitcode=66
tsan_tests="tests/unit/test_threads tests/unit/test_core tests/unit/test_task tests/unit/test_probe
            tests/unit/test_counters"
# Only these programs and what they link are built (not the analyzer or
# the instrumenter), and they run directly.
if ! make -j2 $tsan_tests >build.log 2>&1; then
    echo "sanitize: TSan build failed:"; grep -E "error" build.log | head -5; exit 1
fi
trc=0
for t in $tsan_tests; do
    if "./$t" >"$t.log" 2>&1 && ! grep -q "WARNING: ThreadSanitizer" "$t.log"; then
        echo "PASS: $t (TSan)"
    else
        echo "FAIL: $t (TSan): $(grep -m1 -E 'WARNING: ThreadSanitizer|FAILED' "$t.log")"
        trc=1
    fi
done
[ $trc = 0 ] && echo "sanitize: all tests passed under TSan" || echo "sanitize: TSan FAILED (logs in $dir/tsan)"
npass=$(grep -c '^PASS:' "$dir/build/check.log")
npass=$(( npass + $(for t in $tsan_tests; do grep -q "WARNING: ThreadSanitizer\|FAILED" "$t.log" || echo x; done | wc -l) ))
nfail=$(( $(grep -c '^FAIL:' "$dir/build/check.log") + $(for t in $tsan_tests; do grep -q "WARNING: ThreadSanitizer\|FAILED" "$t.log" && echo x; done | wc -l) ))
[ $rc = 0 ] && [ $trc = 0 ] || [ $nfail -gt 0 ] || nfail=1
echo "sanitize: $npass passed, $nfail failed"
[ $rc = 0 ] && [ $trc = 0 ]
