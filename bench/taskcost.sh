#!/bin/bash
# bench/taskcost.sh - what tier 0 adds to a task, on bench/kernels/worktasks.c
# (a binary task tree, leaves of ~5 us of arithmetic), with gcc (libgomp:
# hprof's GOMP interposition) and clang (libomp: hprof's OMPT tool), 2
# threads, OMP_WAIT_POLICY=passive, KMP_BLOCKTIME=0.  Prints a markdown
# table, per compiler:
#   - instructions added per task (callgrind, all threads, counted only
#     inside the parallel region's outlined function: hprof's start-up
#     calibration spins on the clock): (I_hprof(HI) - I_hprof(LO) -
#     (I_plain(HI) - I_plain(LO))) / (tasks(HI) - tasks(LO)), the task
#     counts as the kernel prints them, median of RUNS runs (which thread
#     steals which task varies: a run's figure moves by hundreds); plain's
#     own per task beside it;
#   - the tier-0/plain ratio of the kernel's own timer, median (min-max) of
#     ROUNDS rounds, plain and -lhprof alternating (wall clock: indicative
#     on a loaded machine).
# Every hprof run's stdout (timer line aside) must equal plain's, and its
# profile passes `hprof-query --check`.
# usage: bench/taskcost.sh [BUILDDIR]   (default: the current directory)
# Env: ROUNDS (default 5), RUNS (callgrind runs, default 3), LEAVES (timed size, default 131072), CG_LO/CG_HI
#      (callgrind sizes, default 2048/8192 leaves), CCS (default "gcc clang").
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
rounds=${ROUNDS:-5}
runs=${RUNS:-3}
leaves=${LEAVES:-131072}
lo=${CG_LO:-2048} hi=${CG_HI:-8192}
libdir=$builddir/pmpi/.libs
query=$builddir/analyzer/hprof-query
[ -e "$libdir/libhprof.so" ] || { echo "taskcost: $libdir/libhprof.so not found; build first" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-taskcost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive KMP_BLOCKTIME=0 HPROF_SUMMARY=off

ccs=""
for cc in ${CCS:-gcc clang}; do
    command -v "$cc" >/dev/null || continue
    ccs="$ccs $cc"
    "$cc" -g -O2 -fopenmp "$srcdir/bench/kernels/worktasks.c" -o "$tmp/w.$cc.plain"
    "$cc" -g -O2 -fopenmp "$srcdir/bench/kernels/worktasks.c" -o "$tmp/w.$cc.hprof" \
        -L"$libdir" -lhprof -Wl,-rpath,"$libdir"
done

# run CC VARIANT TAG LEAVES [PREFIX...] - one run, stdout in $tmp/TAG.out;
# an hprof run's profile is checked.
run() {
    local cc=$1 v=$2 tag=$3 n=$4
    shift 4
    rm -f "$tmp/$tag.hpf"
    HPROF_OUTPUT=$tmp/$tag.hpf "$@" "$tmp/w.$cc.$v" "$n" </dev/null >"$tmp/$tag.out" 2>"$tmp/$tag.err" ||
        { echo "taskcost: $cc $v failed: $(tail -1 "$tmp/$tag.err")" >&2; exit 1; }
    if [ "$v" = hprof ]; then
        cmp -s <(grep -v '^kernel ' "$tmp/$tag.out") <(grep -v '^kernel ' "$tmp/$cc.plain.$n.out") ||
            { echo "taskcost: $cc hprof's output differs from plain's" >&2; exit 1; }
        "$query" --check "$tmp/$tag.hpf" >/dev/null 2>"$tmp/check.err" ||
            { echo "taskcost: --check failed on $cc: $(head -3 "$tmp/check.err")" >&2; exit 1; }
    fi
}

# instr CC VARIANT LEAVES - instructions inside the region's outlined function.
instr() {
    local cc=$1 v=$2 n=$3 fn=main._omp_fn.0
    [ "$cc" = gcc ] || fn=.omp_outlined.
    run "$cc" "$v" "$cc.$v.$n" "$n" valgrind --tool=callgrind --toggle-collect="$fn" \
        --callgrind-out-file="$tmp/cg.out"
    sed -n 's/^totals: *//p; s/^summary: *//p' "$tmp/cg.out" | head -1
}

tasks_of() { awk '$1 == "tasks" { print $3 }' "$tmp/$1.out"; }

echo "Tier 0 per task: bench/kernels/worktasks.c, 2 threads, OMP_WAIT_POLICY=passive. Instructions:"
echo "callgrind inside the region, $lo and $hi leaves subtracted, median of $runs runs. Ratio: kernel timer, -lhprof / plain,"
echo "median (min-max) of $rounds alternating rounds at $leaves leaves (wall clock: indicative when loaded)."
echo
echo "| compiler (source) | plain instr/task | added instr/task | tier0 / plain |"
echo "|---|---:|---:|---:|"
for cc in $ccs; do
    : >"$tmp/instr"
    for r in $(seq 1 "$runs"); do
        echo "$(instr "$cc" plain "$lo") $(instr "$cc" plain "$hi") $(instr "$cc" hprof "$lo") $(instr "$cc" hprof "$hi")" >>"$tmp/instr"
    done
    dt=$(($(tasks_of "$cc.plain.$hi") - $(tasks_of "$cc.plain.$lo")))
    # medians of the runs' plain and added instructions per task
    read -r plain added < <(awk -v dt="$dt" '
        function med(a, n,   i, j, t) {
            for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        { n++; p[n] = ($2 - $1) / dt; a[n] = (($4 - $3) - ($2 - $1)) / dt }
        END { printf "%.0f %+.0f\n", med(p, n), med(a, n) }' "$tmp/instr")
    : >"$tmp/ratios"
    for r in $(seq 1 "$rounds"); do
        run "$cc" plain "$cc.plain.$leaves" "$leaves"
        run "$cc" hprof "$cc.hprof.$leaves" "$leaves"
        awk '$1 == "kernel" { p = $3 } END { printf "%s ", p }' "$tmp/$cc.plain.$leaves.out" >>"$tmp/ratios"
        awk '$1 == "kernel" { print $3 }' "$tmp/$cc.hprof.$leaves.out" >>"$tmp/ratios"
    done
    src=GOMP; [ "$cc" = gcc ] || src=OMPT
    awk -v cc="$cc ($src)" -v plain="$plain" -v added="$added" '
        { q[++n] = $2 / $1 }
        END {
            for (i = 2; i <= n; i++) for (j = i; j > 1 && q[j - 1] > q[j]; j--) { t = q[j]; q[j] = q[j - 1]; q[j - 1] = t }
            m = n % 2 ? q[(n + 1) / 2] : (q[n / 2] + q[n / 2 + 1]) / 2
            printf "| %s | %s | %s | %.3f (%.3f-%.3f) |\n", cc, plain, added, m, q[1], q[n]
        }' "$tmp/ratios"
done
