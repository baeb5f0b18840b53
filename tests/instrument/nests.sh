#!/bin/bash
# tests/instrument/nests.sh - hprof-instrument --omp on constructs whose
# pragma is directly followed by another directive
# (tests/instrument/src/omp_nests.c): parallel followed on the next line
# by single, single nowait, master, for, sections, critical and task; the
# BOTS fib idiom (parallel + single whose statement an #if/#else/#endif
# chooses); an omp for whose loop header #if defined(_OPENMP) chooses
# (NPB LU's jacu); a nested single guarded by #ifdef _OPENMP.  Built with
# `hprof-cc mpicc -fopenmp` (OMPI_CC=gcc), run under mpirun -np 1 with 2
# threads, and checked against what the program counts itself ("COUNT
# tag n": the runs of each body, the team sizes it saw):
#  - no construct left unrecorded (no warning of hprof-instrument);
#  - every construct recorded at its own pragma's line with exact counts:
#    fork/join once per region, parallel and its implicit barrier once per
#    thread and region, single/master/critical/task as often as their
#    bodies ran, loop and sections once per thread of their teams, the
#    implicit barrier of each worksharing construct without nowait;
#  - the same counts as the tier-0 runs of the unmodified program where
#    that tier sees the construct (gcc's GOMP: parallel, single, critical,
#    task; clang's OMPT: parallel, single, master, loops, when clang's
#    libomp links);
#  - stdout = the plain build's; hprof-query --check on every profile.
#
# usage: tests/instrument/nests.sh [BUILDDIR]   (default: the current directory).
# Env: MPICC, MPIRUN, HPROF_KEEP_TMP=1.  Prints "ok - NAME" / "not ok -
# NAME: ..." per check and a last line "N passed, M failed".
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
SRC=$srcdir/tests/instrument/src/omp_nests.c
src=omp_nests.c
. "$srcdir/tests/lib.sh"
instrumenter_env
LIBDIR=$builddir/pmpi/.libs
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}

if ! command -v "$MPICC" >/dev/null || ! command -v "$MPIRUN" >/dev/null || [ ! -x "$HPCC" ]; then
    skipped "hprof-instrument nested directives" "no $MPICC/$MPIRUN or hprof-cc"
    echo "$pass passed, $fail failed"
    exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_WAIT_POLICY=passive
NT=2

test_tmpdir ompnests

# run NAME - $tmp/NAME under mpirun -np 1, NT threads: profile
# $tmp/NAME.hpf, stdout $tmp/NAME.out; checks the profile.
run() {
    local name=$1 rc=0
    HPROF_OUTPUT=$tmp/$name.hpf timeout 120 "$MPIRUN" -np 1 --bind-to none -x HPROF_SUMMARY -x HPROF_OUTPUT \
        -x OMP_WAIT_POLICY -x OMP_NUM_THREADS=$NT "$tmp/$name" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || rc=$?
    if [ "$rc" != 0 ] || [ ! -s "$tmp/$name.hpf" ]; then
        notok "$name: runs and writes a profile" "exit $rc: $(tail -3 "$tmp/$name.err" | oneline)"
        return 1
    fi
    check_profile "$name" "$tmp/$name.hpf"
}

# sum DB NAME LINE - the construct's count summed over its records.
sum() {
    q "$1" "SELECT coalesce(sum(st.count), 0) $OMPJOIN WHERE s.kind = 'omp' AND s.name = '$2'
        AND s.file LIKE '%/$src' AND s.line = $3"
}
# counted TAG - what the program counted ("COUNT TAG n").
counted() { sed -n "s/^COUNT $1 \([0-9]*\)$/\1/p" "$tmp/t2.out"; }
L() { line_of "$SRC" "n-$1"; }

# ---------------------------------------------------------------- tier 2
mkdir -p "$tmp/t2.d"
if ! (cd "$tmp/t2.d" && OMPI_CC=gcc "$HPCC" --keep "$MPICC" -fopenmp -g -O2 -Wall -Wextra "$SRC" \
    -o "$tmp/t2" -L"$LIBDIR" -Wl,-rpath,"$LIBDIR") >"$tmp/t2.cc" 2>&1; then
    notok "hprof-cc build" "$(head -3 "$tmp/t2.cc" | oneline)"
    echo "$pass passed, $fail failed"
    exit 1
fi
expect_eq "hprof-cc: no construct left unrecorded, no warning" "" "$(cat "$tmp/t2.cc")"
OMPI_CC=gcc "$MPICC" -fopenmp -O2 "$SRC" -o "$tmp/plain"
run t2 || { echo "$pass passed, $fail failed"; exit 1; }
timeout 120 "$MPIRUN" -np 1 --bind-to none -x OMP_NUM_THREADS=$NT "$tmp/plain" >"$tmp/plain.out" 2>/dev/null </dev/null || true
if cmp -s "$tmp/t2.out" "$tmp/plain.out"; then
    ok "stdout = the plain build's"
else
    notok "stdout = the plain build's" "$(diff "$tmp/t2.out" "$tmp/plain.out" | head -4 | oneline)"
fi

reps=$(counted reps)
team=$(($(counted critical) / reps))   # every thread of each team enters the critical
expect_eq "the program saw $reps teams of $NT threads in every worksharing construct" \
    "$((reps * NT)),$((reps * NT)),$((reps * NT)),$((reps * NT)),$((reps * NT))" \
    "$(counted critical),$(counted task),$(counted team_for),$(counted team_sections),$(counted team_cond)"
db=$tmp/t2.hpf
exp="" got=""
# per region: fork, join, parallel, implicit barrier
for r in par-single par-nowait par-master par-for par-sections par-critical par-task par-fib par-cond par-guard; do
    exp="$exp $r:$reps,$reps,$((reps * team)),$((reps * team))"
    got="$got $r:$(sum "$db" fork "$(L $r)"),$(sum "$db" join "$(L $r)"),$(sum "$db" parallel "$(L $r)"),$(sum "$db" 'implicit barrier' "$(L $r)")"
done
expect_eq "regions: fork, join, parallel and implicit barrier at each region's pragma" "$exp" "$got"
# the constructs on the line after their region's pragma: NAME TAG COUNT BARRIERS
exp="" got=""
while read -r name tag n b; do
    exp="$exp $tag:$n,$b"
    got="$got $tag:$(sum "$db" "$name" "$(L "$tag")"),$(sum "$db" 'implicit barrier' "$(L "$tag")")"
done <<EOF
single single $(counted single) $((reps * team))
single nowait $(counted nowait) 0
master master $(counted master) 0
loop for $(counted team_for) $(counted team_for)
loop sections $(counted team_sections) $(counted team_sections)
critical critical $(counted critical) 0
task task $(counted task) 0
single fib $(counted fib) $((reps * team))
loop cond $(counted team_cond) 0
single guard $(counted guard) $((reps * team))
EOF
expect_eq "nested constructs: count and implicit barrier at their own pragma's line (exact)" "$exp" "$got"
expect_eq "critical waits and task creations at their pragmas' lines (exact)" \
    "$(counted critical),$(counted task)" "$(sum "$db" 'critical wait' "$(L critical)"),$(sum "$db" 'task create' "$(L task)")"

# ---------------------------------------------------------------- tier 0
# compare NAME CONSTRUCTS... - each "kind@TAG" of tier 2 against tier 0's run NAME.
compare() {
    local name=$1 c exp="" got=""
    shift
    for c in "$@"; do
        exp="$exp $c:$(sum "$db" "${c%@*}" "$(L "${c#*@}")")"
        got="$got $c:$(sum "$tmp/$name.hpf" "${c%@*}" "$(L "${c#*@}")")"
    done
    expect_eq "$name: tier 0 counts the same at the same lines" "$exp" "$got"
}
regions="parallel@par-single parallel@par-nowait parallel@par-master parallel@par-for parallel@par-sections
    parallel@par-critical parallel@par-task parallel@par-fib parallel@par-cond parallel@par-guard"
if OMPI_CC=gcc "$MPICC" -fopenmp -g -O2 "$SRC" -o "$tmp/g0" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" && run g0; then
    cmp -s "$tmp/g0.out" "$tmp/plain.out" && ok "g0: stdout = the plain build's" || notok "g0: stdout = the plain build's" "differs"
    compare g0 $regions single@single single@nowait single@fib single@guard critical@critical task@task
fi
if ! echo 'int main(void){return 0;}' | clang -fopenmp -x c - -o "$tmp/clang-omp" 2>/dev/null; then
    skipped "c0" "clang cannot link -fopenmp here"
elif OMPI_CC=clang "$MPICC" -fopenmp -g -O2 "$SRC" -o "$tmp/c0" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" && run c0; then
    compare c0 $regions single@single single@nowait single@fib single@guard master@master loop@for \
        loop@sections loop@cond
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
