#!/bin/bash
# tests/tasks/target_wait.sh - a deferred target task run on the host
# inside its encountering thread's taskwait, forking a parallel region
# there (tests/tasks/src/target_wait.c, tier 0: -lhprof, gcc through the
# GOMP source, clang through OMPT).  Checks, as target_wait.c's header
# states: with gcc the program's results are right and the taskwait's
# record is at most the program's own taskwait time less its own
# measure of the target body (the region forked inside the wait is work,
# not waiting: 1% + 2 us for clock granularity); `hprof-query --check` on
# every profile (on main the wait and the region overlapped: rule e).
#
# usage: tests/tasks/target_wait.sh [BUILDDIR]   (default: the current directory).
# Env: HPROF_KEEP_TMP=1.  Prints "ok - NAME" / "not ok - NAME: ..." per
# check and a last line "N passed, M failed".
set -uo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
SRC=$srcdir/tests/tasks/src/target_wait.c

. "$srcdir/tests/lib.sh"
export OMP_WAIT_POLICY=passive HPROF_SUMMARY=off OMP_NUM_THREADS=2
unset HPROF_FILTER HPROF_TIER
test_tmpdir target_wait
WAIT=$(line_of "$SRC" WAIT)

for cc in gcc clang; do
    if ! command -v $cc >/dev/null || ! $cc -fopenmp -O2 -g "$SRC" -o "$tmp/$cc" -L"$LIBDIR" \
        -Wl,-rpath,"$LIBDIR" -lhprof 2>"$tmp/$cc.cc"; then
        skipped "$cc" "$cc cannot build target_wait.c here"
        continue
    fi
    out=$(HPROF_OUTPUT=$tmp/$cc.hpf timeout 60 "$tmp/$cc" 2>"$tmp/$cc.err")
    read -r _ w _ b _ bad <<<"$out"
    check_profile "$cc" "$tmp/$cc.hpf"
    # clang 14's libomp runs the target task on a hidden helper thread,
    # and its taskwait does not always wait for it (plain builds too)
    [ $cc = gcc ] || continue
    expect_eq "$cc: the program's results" "0" "${bad:-none}"
    got=$(q "$tmp/$cc.hpf" "SELECT st.time * 1e6 <= 1.01 * ($w - $b) + 2 FROM stat st
        JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
        WHERE s.kind = 'omp' AND s.name = 'taskwait' AND s.line = $WAIT AND st.thread = 0")
    expect_eq "$cc: the taskwait's record <= its own time ($w us) less the target body's ($b us)" "1" "$got"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
