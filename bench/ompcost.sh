#!/bin/bash
# bench/ompcost.sh - OpenMP constructs' cost in INSTRUCTIONS (callgrind: the
# same on a loaded machine), per round of each construct of
# bench/ompbench.c, plain and with -lhprof, with gcc (libgomp: hprof's GOMP
# interposition records) and clang (libomp: hprof's OMPT tool records),
# 1 rank x 2 threads, threads that sleep at once when idle (no spinning:
# OMP_WAIT_POLICY=passive, KMP_BLOCKTIME=0).  ompbench dumps callgrind's
# counters (all threads) after a warm-up, REPS rounds and 2*REPS rounds of
# each construct; a round costs (I(2*REPS) - I(REPS)) / REPS.  Prints a
# markdown table: construct x {gcc plain, gcc hprof, added, clang plain,
# clang hprof, added}: medians of RUNS runs (threads waiting for work or
# for a task to steal spin a varying number of instructions: the task rows
# move by some hundreds from run to run).  Then, deterministic, the
# instructions in the OMPT tool's callbacks (libhprof's on_* functions,
# inclusive) per round.
# usage: bench/ompcost.sh [BUILDDIR] [CONSTRUCT...]   (default: the current
#        directory, every construct)
# Env: QUICK=1 (REPS 100 instead of 400, 1 run), REPS, RUNS (default 3), MPICC, CCS (default
#      "gcc clang"), BASELINE (another build tree: its -lhprof as a column
#      "before" of each compiler), KEEP (a directory that keeps the
#      callgrind files, for callgrind_annotate).
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
shift || true
reps=${REPS:-400}
runs=${RUNS:-3}
[ -z "${QUICK:-}" ] || { reps=${REPS:-100}; runs=${RUNS:-1}; }
MPICC=${MPICC:-mpicc}
libdir=$builddir/pmpi/.libs
if [ ! -e "$libdir/libhprof.so" ]; then
    echo "ompcost: $libdir/libhprof.so not found; build first (make)" >&2
    exit 1
fi
command -v valgrind >/dev/null || { echo "ompcost: valgrind not found" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-ompcost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
out=${KEEP:-$tmp}
mkdir -p "$out" "$tmp/prof"

variants="plain hprof"
if [ -n "${BASELINE:-}" ]; then
    before=$(cd "$BASELINE" && pwd)/pmpi/.libs
    [ -e "$before/libhprof.so" ] || { echo "ompcost: no $before/libhprof.so (BASELINE)" >&2; exit 1; }
    variants="plain before hprof"
fi
ccs=""
for cc in ${CCS:-gcc clang}; do
    command -v "$cc" >/dev/null || continue
    ccs="$ccs $cc"
    OMPI_CC=$cc "$MPICC" -O2 -fopenmp "$srcdir/bench/ompbench.c" -o "$tmp/omp.$cc.plain"
    OMPI_CC=$cc "$MPICC" -O2 -fopenmp "$srcdir/bench/ompbench.c" -o "$tmp/omp.$cc.hprof" \
        -L"$libdir" -lhprof -Wl,-rpath,"$libdir"
    [ -z "${before:-}" ] || OMPI_CC=$cc "$MPICC" -O2 -fopenmp "$srcdir/bench/ompbench.c" \
        -o "$tmp/omp.$cc.before" -L"$before" -lhprof -Wl,-rpath,"$before"
done

# One callgrind run per variant and run; its dumps give
# "CC.VARIANT<TAB>CONSTRUCT<TAB>PART<TAB>INSTRUCTIONS<TAB>RUN" and, for the
# OMPT tool, "CC.VARIANT<TAB>CONSTRUCT<TAB>PART<TAB>CALLBACKS" in tool.
for run in $(seq 1 "$runs"); do
    for cc in $ccs; do
        for v in $variants; do
            echo "ompcost: $cc $v, run $run/$runs (callgrind, REPS=$reps)" >&2
            rm -f "$out"/cg.$cc.$v.*
            HPROF_OUTPUT=$tmp/prof/$cc-$v.hpf HPROF_SUMMARY=off OMP_NUM_THREADS=2 \
                OMP_WAIT_POLICY=passive KMP_BLOCKTIME=0 \
                valgrind --tool=callgrind --callgrind-out-file="$out/cg.$cc.$v.%p" \
                "$tmp/omp.$cc.$v" "$reps" "$@" </dev/null >/dev/null 2>"$tmp/cg.err" ||
                { cat "$tmp/cg.err" >&2; exit 1; }
            # the dumps in order: FILE.1, FILE.2, ... FILE.10
            for f in $(ls "$out"/cg.$cc.$v.*.* | awk -F. '{ print $NF "\t" $0 }' | sort -n | cut -f2); do
                desc=$(awk '/^desc: Trigger: Client Request: / { print $5 }' "$f")
                name=${desc%.*} part=${desc##*.}
                [ "$part" = 1 ] || [ "$part" = 2 ] || continue
                printf '%s\t%s\t%s\t%s\t%s\n' "$cc.$v" "$name" "$part" \
                    "$(awk '/^totals: / { print $2 }' "$f")" "$run" >>"$tmp/results"
                [ "$cc" = clang ] && [ "$v" != plain ] && [ "$run" = 1 ] || continue
                callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null |
                    awk -v k="$cc.$v" -v n="$name" -v p="$part" '
                        /libhprof\/sources\/ompt[a-z_]*\.c:on_[a-z_]* / { gsub(",", "", $1); s += $1 }
                        END { printf "%s\t%s\t%s\t%d\n", k, n, p, s }' >>"$tmp/tool"
            done
        done
    done
done

# per_round KEY CONSTRUCT [FILE]: instructions per round, the median of the runs.
per_round() {
    awk -F'\t' -v k="$1" -v c="$2" -v r="$reps" '
        $1 == k && $2 == c { v[$5 "." $3] = $4; if (!($5 in seen)) { seen[$5] = 1; runs[++n] = $5 } }
        END {
            for (i = 1; i <= n; i++) {
                d[i] = (v[runs[i] ".2"] - v[runs[i] ".1"]) / r
                for (j = i; j > 1 && d[j - 1] > d[j]; j--) { t = d[j]; d[j] = d[j - 1]; d[j - 1] = t }
            }
            if (n) printf "%.0f", n % 2 ? d[(n + 1) / 2] : (d[n / 2] + d[n / 2 + 1]) / 2
        }' "${3:-$tmp/results}"
}

echo
echo "OpenMP constructs: instructions per round (callgrind, all threads; 1 rank x 2 threads," \
    "REPS=$reps and $((2 * reps)), difference / $reps; median of $runs runs)"
echo
hdr="| construct |"
sep="|---|"
for cc in $ccs; do
    src=GOMP; [ "$cc" = clang ] && src=OMPT
    hdr="$hdr $cc plain |"
    sep="$sep---:|"
    if [ -n "${before:-}" ]; then
        hdr="$hdr $cc before | added before ($src) |"
        sep="$sep---:|---:|"
    fi
    hdr="$hdr $cc hprof | added ($src) |"
    sep="$sep---:|---:|"
done
echo "$hdr"
echo "$sep"
for c in $(awk -F'\t' '!seen[$2]++ { print $2 }' "$tmp/results"); do
    row="| $c |"
    for cc in $ccs; do
        p=$(per_round "$cc.plain" "$c")
        row="$row $p |"
        for v in $variants; do
            [ "$v" != plain ] || continue
            h=$(per_round "$cc.$v" "$c")
            row="$row $h | $(awk -v p="$p" -v h="$h" 'BEGIN { printf "%+d", h - p }') |"
        done
    done
    echo "$row"
done

[ -s "$tmp/tool" ] || exit 0
echo
echo "OMPT tool (clang): instructions per round in its callbacks (on_*, inclusive; deterministic)"
echo
if [ -n "${before:-}" ]; then
    echo "| construct | before | now |"
    echo "|---|---:|---:|"
else
    echo "| construct | callbacks |"
    echo "|---|---:|"
fi
awk -F'\t' '{ print $0 "\t1" }' "$tmp/tool" >"$tmp/tool.runs"
for c in $(awk -F'\t' '!seen[$2]++ { print $2 }' "$tmp/tool"); do
    if [ -n "${before:-}" ]; then
        echo "| $c | $(per_round clang.before "$c" "$tmp/tool.runs") | $(per_round clang.hprof "$c" "$tmp/tool.runs") |"
    else
        echo "| $c | $(per_round clang.hprof "$c" "$tmp/tool.runs") |"
    fi
done
