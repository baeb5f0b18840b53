#!/bin/bash
# tests/omp/join.sh - the end of GOMP parallel regions (tier 0, gcc's
# libgomp, libhprof/sources/gomp_join.c): hprof adds no barrier of its own
# to a region, and each thread's implicit-barrier wait stays exact, under
# OMP_WAIT_POLICY=passive and active.
#  - shortregions.c (no MPI; its header states what it counts), 2 threads,
#    each policy: same stdout with and without -lhprof; per construct the
#    counts the program printed: the loop region and its implicit barrier
#    once per thread and region, the tasks created and run under the
#    tasking region (most of them run in libgomp's end barrier, after
#    their thread's part ended); `hprof-query --check`;
#  - passive waiting: the futex system calls of the whole run (strace -f)
#    with -lhprof at most 10% + 100 above the plain binary's (an extra
#    barrier per region is a sleep and a wake-up: +50%);
#  - imbalance.c (tests/omp/src, as in gomp.sh) under OMP_WAIT_POLICY=active
#    at 2 threads: per thread, region less implicit barrier and the barrier
#    wait against the program's own clock (tests/truth.sh).
# usage: tests/omp/join.sh [BUILDDIR]   (default: the current directory).
# Env: MPICC, MPIRUN, HPROF_KEEP_TMP=1.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
S=$srcdir/tests/omp/src
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_CC=gcc HPROF_SUMMARY=off
unset HPROF_FILTER HPROF_TIER

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/truth.sh"
test_tmpdir join

# build NAME SOURCE COMPILER - $tmp/NAME with -lhprof, $tmp/NAME.plain without.
build() {
    local name=$1 src=$2 cc=$3
    if "$cc" -fopenmp -g -O2 "$src" -o "$tmp/$name" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" \
        2>"$tmp/$name.cc" && "$cc" -fopenmp -g -O2 "$src" -o "$tmp/$name.plain" 2>>"$tmp/$name.cc"; then
        ok "$name: builds with -fopenmp -lhprof"
    else
        notok "$name: builds with -fopenmp -lhprof" "$(head -c 300 "$tmp/$name.cc" | oneline)"
        return 1
    fi
}

where() { echo "s.kind = 'omp' AND s.name = '$1' AND s.file LIKE '%/shortregions.c' AND s.line = $2"; }
# under DB NAME LINE PLINE - thread rows and calls of NAME at LINE whose
# parent is the region at PLINE.
under() {
    q "$1" "SELECT count(*), coalesce(sum(st.count), 0) $OMPJOIN JOIN node p ON p.id = n.parent
            JOIN site ps ON ps.id = p.site WHERE $(where "$2" "$3") AND ps.name = 'parallel'
            AND ps.line = $4"
}

src=$S/shortregions.c
REGIONS=$(define_of "$src" REGIONS)
TASKED=$(define_of "$src" TASKED)
TASKS=$(define_of "$src" TASKS)
LL=$(line_of "$src" sr-loop)
LT=$(line_of "$src" sr-tasks)
LK=$(line_of "$src" sr-task)

# short_checks POLICY - one run of shortregions at 2 threads under POLICY.
short_checks() {
    local pol=$1 db=$tmp/sr.$1.hpf
    rm -f "$db" "$tmp/sr.$pol.db"
    if ! OMP_WAIT_POLICY=$pol OMP_NUM_THREADS=2 HPROF_OUTPUT=$db timeout 300 "$tmp/sr" \
        >"$tmp/sr.$pol.out" 2>"$tmp/sr.$pol.err" || [ ! -s "$db" ]; then
        notok "shortregions/$pol: runs and writes a profile" "$(tail -3 "$tmp/sr.$pol.err" | oneline)"
        return 0
    fi
    OMP_WAIT_POLICY=$pol OMP_NUM_THREADS=2 timeout 300 "$tmp/sr.plain" >"$tmp/sr.$pol.plain.out"
    expect_eq "shortregions/$pol: same stdout with and without -lhprof" \
        "$(cat "$tmp/sr.$pol.plain.out")" "$(cat "$tmp/sr.$pol.out")"
    expect_eq "shortregions/$pol: the program forked $REGIONS + $TASKED regions, made and ran $((TASKED * TASKS)) tasks" \
        "regions $REGIONS;tasked $TASKED;tasks $((TASKED * TASKS));ran $((TASKED * TASKS))" \
        "$(grep -v checksum "$tmp/sr.$pol.out")"
    check_profile "shortregions/$pol" "$db"
    expect_eq "shortregions/$pol: loop region once per thread and region" "2,$((2 * REGIONS))" \
        "$(q "$db" "SELECT count(*), sum(st.count) $OMPJOIN WHERE $(where parallel "$LL")")"
    expect_eq "shortregions/$pol: its implicit barrier under it, once per thread and region" \
        "2,$((2 * REGIONS))" "$(under "$db" 'implicit barrier' "$LL" "$LL")"
    expect_eq "shortregions/$pol: tasking region's implicit barrier once per thread and region" \
        "2,$((2 * TASKED))" "$(under "$db" 'implicit barrier' "$LT" "$LT")"
    expect_eq "shortregions/$pol: every task created and run under the tasking region" \
        "$((TASKED * TASKS));$((TASKED * TASKS))" \
        "$(q "$db" "SELECT coalesce(sum(st.count), 0) $OMPJOIN JOIN node p ON p.id = n.parent
            JOIN site ps ON ps.id = p.site WHERE $(where 'task create' "$LK") AND ps.name = 'parallel' AND ps.line = $LT")
$(q "$db" "SELECT coalesce(sum(st.count), 0) $OMPJOIN JOIN node p ON p.id = n.parent
            JOIN site ps ON ps.id = p.site WHERE $(where task "$LK") AND ps.name = 'parallel' AND ps.line = $LT")"
}

# futex_calls PROG - futex system calls of a passive-waiting run at 2 threads.
futex_calls() {
    OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 HPROF_OUTPUT=$tmp/futex.hpf strace -f -c -e trace=futex \
        -o "$tmp/futex.txt" "$1" >/dev/null 2>&1 || true
    rm -f "$tmp/futex.hpf"*
    awk '$NF == "futex" { print $4 }' "$tmp/futex.txt"
}

if build sr "$src" gcc; then
    for pol in passive active; do
        short_checks $pol
    done
    if command -v strace >/dev/null && strace -f -c -o /dev/null true 2>/dev/null; then
        plain=$(futex_calls "$tmp/sr.plain")
        prof=$(futex_calls "$tmp/sr")
        expect_cmp "shortregions/passive: futex calls with -lhprof ($prof) within 10% + 100 of plain's ($plain)" \
            le "$(awk -v p="$plain" 'BEGIN { print p * 1.1 + 100 }')" "$prof"
    else
        skipped "shortregions/passive: futex calls with -lhprof" "strace cannot trace here"
    fi
fi

# ---------------------------------------------------------- imbalance, active
isrc=imbalance.c
REPS=$(define_of "$S/$isrc" REPS)
L=$(line_of "$S/$isrc" imb-region)
imb_active() {
    local db=$tmp/imb.hpf tr=$tmp/imb.truth rc=0
    rm -f "$db" "$tmp/imb.db" "$tr"
    OMP_WAIT_POLICY=active HPROF_OUTPUT=$db HPROF_TEST_TRUTH=$tr timeout 300 "$MPIRUN" -np 1 \
        --bind-to none -x OMP_WAIT_POLICY -x HPROF_OUTPUT -x HPROF_TEST_TRUTH -x OMP_NUM_THREADS=2 \
        "$tmp/imb" >"$tmp/imb.out" 2>"$tmp/imb.err" </dev/null || rc=$?
    if [ "$rc" != 0 ] || [ ! -s "$db" ]; then
        notok "imbalance/active: runs and writes a profile" "exit $rc: $(tail -3 "$tmp/imb.err" | oneline)"
        return 0
    fi
    check_profile "imbalance/active" "$db"
    truth_imbalance "imbalance/active" "$db" "$tr" $isrc "$L" 2 "$REPS"
}
if OMPI_CC=gcc build imb "$S/$isrc" "$MPICC"; then
    attempts "imbalance/active" imb_active
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
