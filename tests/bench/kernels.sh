#!/bin/bash
# tests/bench/kernels.sh - smoke test of the bench kernels (bench/kernels/,
# timed by `make bench`, never here): each builds plain, tier1raw
# (-finstrument-functions -lhprof by hand), tier 1 and tier 2
# (instrument/hprof-cc --tier=1 and hprof-cc of this build tree; "# SKIP"
# when it is not built), runs at a tiny size, and
# prints the same stdout in every variant, the "kernel NAME SECONDS" timer
# line aside.  Ground truth of the programs' own counts (their header
# comments):
#   - dispatch 1000: 22 dispatches per iteration, one more every 8th
#     (NATIVE), 3 to leave: 22 * 1000 + 125 + 3 = 22128;
#   - tasks 65536: 65536 / 64 = 1024 leaves, 2 * (1024 - 1) = 2046 tasks;
#   - worktasks 256: 256 leaves, 2 * 256 - 2 = 510 tasks;
#   - force 2 (2 ranks): one "kernel force" line and one "checksum force"
#     line, on rank 0 only;
#   - solver 2: one "kernel solver" line and one "checksum solver" line.
# No timing is checked.
# usage: tests/bench/kernels.sh [BUILDDIR]   (default: the current directory)
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
LIBDIR=$builddir/pmpi/.libs
HPCC=$builddir/instrument/hprof-cc
K=$srcdir/bench/kernels
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir HPROF_SUMMARY=off
unset HPROF_TIER
. "$srcdir/tests/lib.sh"
test_tmpdir bench-kernels

# build NAME VARIANT FLAGS... - $tmp/NAME.VARIANT; false if it fails to build.
build() {
    local n=$1 v=$2 link=(-L"$LIBDIR" -lhprof "-Wl,-rpath,$LIBDIR")
    shift 2
    case $v in
    plain) "$MPICC" -g -O2 "$@" "$K/$n.c" -o "$tmp/$n.$v" ;;
    tier1raw) "$MPICC" -g -O2 -finstrument-functions "$@" "$K/$n.c" -o "$tmp/$n.$v" "${link[@]}" ;;
    tier1) "$HPCC" --tier=1 "$MPICC" -g -O2 "$@" -c "$K/$n.c" -o "$tmp/$n.t1.o" &&
        "$HPCC" --tier=1 "$MPICC" "$@" "$tmp/$n.t1.o" -o "$tmp/$n.$v" "${link[@]}" ;;
    tier2) "$HPCC" "$MPICC" -g -O2 "$@" -c "$K/$n.c" -o "$tmp/$n.o" &&
        "$HPCC" "$MPICC" "$@" "$tmp/$n.o" -o "$tmp/$n.$v" "${link[@]}" ;;
    esac 2>>"$tmp/build.err"
}

# run NAME VARIANT ARGS... - stdout without the timer line in $tmp/NAME.VARIANT.out.
run() {
    local n=$1 v=$2
    shift 2
    local cmd=("$tmp/$n.$v")
    [ "$n" = force ] && cmd=("$MPIRUN" -np 2 --bind-to none -x HPROF_OUTPUT -x HPROF_SUMMARY
        -x OMP_NUM_THREADS "$tmp/$n.$v")
    HPROF_OUTPUT=$tmp/$n.$v.hpf OMP_NUM_THREADS=2 timeout 120 "${cmd[@]}" "$@" </dev/null \
        >"$tmp/$n.$v.raw" 2>>"$tmp/run.err" || echo "exit status $?" >>"$tmp/$n.$v.raw"
    grep -v '^kernel ' "$tmp/$n.$v.raw" >"$tmp/$n.$v.out" || true
}

variants="plain tier1raw"
if [ -x "$HPCC" ]; then variants="plain tier1 tier1raw tier2"; fi
for spec in "force 2 -fopenmp" "dispatch 1000" "tasks 65536 -fopenmp" "solver 2 -fopenmp" "worktasks 256 -fopenmp"; do
    read -r n size flags <<<"$spec"
    for v in $variants; do
        # shellcheck disable=SC2086  # flags: zero or one word
        if build "$n" "$v" $flags; then
            run "$n" "$v" "$size"
        else
            echo "build failed" >"$tmp/$n.$v.out"
        fi
    done
    expect_eq "$n: one timer line (plain)" 1 "$(grep -c "^kernel $n [0-9.]*$" "$tmp/$n.plain.raw")"
    for v in $variants; do
        [ "$v" = plain ] && continue
        expect_eq "$n: $v prints what plain prints" "$(cat "$tmp/$n.plain.out")" "$(cat "$tmp/$n.$v.out")"
        expect_eq "$n: $v wrote a profile" 1 "$(find "$tmp" -name "$n.$v.hpf*" | head -1 | wc -l)"
    done
done
[ -x "$HPCC" ] || skipped "tier 1 and tier 2 variants" "instrumenter not built ($HPCC)"
expect_eq "dispatch 1000: dispatches" 22128 "$(awk '$1 == "dispatches" { print $3 }' "$tmp/dispatch.plain.out")"
expect_eq "tasks 65536: tasks created" 2046 "$(awk '$1 == "tasks" { print $3 }' "$tmp/tasks.plain.out")"
expect_eq "worktasks 256: tasks created" 510 "$(awk '$1 == "tasks" { print $3 }' "$tmp/worktasks.plain.out")"
expect_eq "force: one checksum line" 1 "$(grep -c '^checksum force ' "$tmp/force.plain.out")"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
