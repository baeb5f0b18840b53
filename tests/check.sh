#!/bin/bash
# tests/check.sh - the whole test suite, as CI runs it (.ci/run): installs
# missing packages, builds and installs hprof (scripts/build.sh), builds
# the test programs with `make -j2`, runs the tests one at a time, prints
# the logs of failed tests, and ends with one line "N passed, M failed"
# (from automake's # PASS / # FAIL counts).  Exits
# non-zero on any failure.  Needs no stdin; works on a fresh clone as root.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
jobs=${JOBS:-2}

if ! bash scripts/build.sh </dev/null; then
    echo "check: the build failed (see above)"
    echo "0 passed, 1 failed"
    exit 1
fi

mkdir -p _build
log=_build/check.log
# The test programs build in parallel; the tests then run one at a time,
# as most of them check timings that a concurrent compile would disturb
# on a small machine (it takes no longer: the timing tests hold a lock).

# slowest_tests - the ten longest tests of the run just made, for keeping
# the suite under its 15 minutes: the tests run one at a time, so a test's
# time is its .trs file's mtime less the one written before it.
slowest_tests() {
    find . -name '*.trs' -not -path './_build/*' -printf '%T@ %p\n' 2>/dev/null | sort -n |
        awk 'NR > 1 { printf "%6.0f s  %s\n", $1 - prev, substr($2, 3) } { prev = $1 }' |
        sed 's/\.trs$//' | sort -rn | head -10 | sed 's/^/check: slowest: /' || true
}

built_at=$SECONDS
echo "check: make -j$jobs check TESTS= (build), then make check (the tests, one at a time)"
rc=0
{ make -j"$jobs" check TESTS= </dev/null 2>&1 && make check </dev/null 2>&1; } | tee "$log" ||
    rc=${PIPESTATUS[0]}
slowest_tests
tested_at=$SECONDS

# The MPI-free part again, built with ASan+UBSan (tests/sanitize.sh;
# HPROF_SANITIZE=0 skips it): one more line of PASS/FAIL counts.
if [ "$rc" = 0 ]; then
    echo "check: tests/sanitize.sh (ASan+UBSan build of the core, analyzer and instrumenter)"
    bash tests/sanitize.sh 2>&1 | tee -a "$log" | grep -v "^PASS: " || true
    if [ "${HPROF_SANITIZE:-1}" = 1 ]; then
        sline=$(grep '^sanitize: [0-9]* passed, [0-9]* failed' "$log" | tail -1)
        spass=$(echo "$sline" | sed -n 's/^sanitize: \([0-9]*\) passed.*/\1/p')
        sfail=$(echo "$sline" | sed -n 's/.* \([0-9]*\) failed$/\1/p')
        echo "# PASS: ${spass:-0} (sanitized)" >>"$log"
        echo "# FAIL: ${sfail:-1} (sanitized)" >>"$log"
    fi
fi

count() { sed -n "s/^# $1: *\([0-9][0-9]*\).*/\1/p" "$log" | awk '{ s += $1 } END { print s + 0 }'; }
pass=$(count PASS)
fail=$(($(count FAIL) + $(count ERROR) + $(count XPASS)))

if [ "$rc" != 0 ] || [ "$fail" != 0 ]; then
    while IFS= read -r f; do
        echo "================ $f"
        cat "$f"
    done < <(find . -name test-suite.log -not -path './_build/*' 2>/dev/null)
    [ "$fail" != 0 ] || fail=1 # make check failed outside the tests (e.g. a build error)
    # Every failed test and its failed checks again, compactly, right
    # before the last line: a CI log that shows only the end of the output
    # still names them (automake: NAME.trs has the result, NAME.log the
    # script's output; the sanitized run's lines are in $log).
    echo "check: failed tests and checks (log:line: check):"
    while IFS= read -r trs; do
        t=${trs%.trs}
        echo "$(sed -n 's/^:test-result: *\([A-Z]*\).*/\1/p' "$trs" | grep -v PASS | head -1) ${t#./}"
        grep -Hn '^not ok' "$t.log" 2>/dev/null | grep -v '# TODO' | cut -c1-300 || true
    done < <(find . -name '*.trs' -not -path './_build/*' -exec grep -lE '^:test-result: *(FAIL|ERROR|XPASS)' {} + 2>/dev/null | sort)
    grep -Hn '^not ok' "$log" 2>/dev/null | grep -v '# TODO' | cut -c1-300 || true
fi
echo "check: build $built_at s, tests $((tested_at - built_at)) s, sanitizer $((SECONDS - tested_at)) s"
echo "$pass passed, $fail failed"
[ "$rc" = 0 ] && [ "$fail" = 0 ]
