#!/bin/bash
# bench/run.sh - hprof's overhead benchmarks (`make bench`; never part of
# `make check`).  Builds bench/pingpong.c, bench/wrapcost.c and its Fortran
# twin bench/fwrapcost.f90 (with mpif90, when there is one) twice, plain
# and linked with -lhprof from the build tree, runs the two variants
# ALTERNATING several rounds with 2 ranks (so drift of the machine hits both
# alike), and prints a markdown table of the medians: plain, hprof, ratio,
# and the time hprof adds per call.  Then the probe costs of tiers 1 and 2
# (bench/probe.c: one enter+exit pair in ns, as a ratio to two raw rdtsc
# reads in the same run, timed and throttled; one -finstrument-functions
# call) and the whole-program overhead of examples/lizhang.c and
# examples/jacobi.c: plain vs tier 0 (-lhprof), tier 1
# (-finstrument-functions) and tier 2 (instrument/hprof-cc, when built),
# elapsed time of the mpirun with 2 ranks, same rounds, alternating.
# With BASELINE=DIR (the build tree of another hprof, e.g. a worktree of
# the previous commit) a third variant "before" links DIR's library, so the
# table shows the wrapper's cost before and after a change in one session.
# usage: bench/run.sh [BUILDDIR]   (default: the current directory)
# Env: ROUNDS (default 5), MPICC, MPIRUN, PROBE_ITERS (default 10^7),
#      WRAPCOST_CALLS (default 10^6),
#      BASELINE (a build tree), RUN_PARTS (default "mpi probe programs omp":
#      the sections to run; bench/record.sh measures the programs itself).
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
rounds=${ROUNDS:-5}
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
libdir=$builddir/pmpi/.libs
if [ ! -e "$libdir/libhprof.so" ]; then
    echo "bench: $libdir/libhprof.so not found; build first (make)" >&2
    exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/prof"
before=
[ -z "${BASELINE:-}" ] || before=$(cd "$BASELINE" && pwd)/pmpi/.libs

# median: the median of the numbers on stdin.
# want PART - true if RUN_PARTS names the section PART.
want() { case " ${RUN_PARTS:-mpi probe programs omp} " in *" $1 "*) return 0 ;; esac; return 1; }

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

if want mpi; then
echo "bench: building plain and -lhprof variants" >&2
# the wrapper benchmarks: C, and fwrapcost.f90 (the same calls from
# Fortran) when there is a Fortran MPI compiler
MPIF90=${MPIF90:-mpif90}
benches="pingpong wrapcost"
command -v "$MPIF90" >/dev/null && benches="$benches fwrapcost"
for b in $benches; do
    cc=$MPICC src=$srcdir/bench/$b.c
    [ "$b" = fwrapcost ] && cc=$MPIF90 src=$srcdir/bench/$b.f90
    "$cc" -O2 -g "$src" -o "$tmp/$b.plain"
    "$cc" -O2 -g "$src" -o "$tmp/$b.hprof" -L"$libdir" -lhprof -Wl,-rpath,"$libdir"
    if ! ldd "$tmp/$b.hprof" | grep 'libhprof\.so' >/dev/null; then  # not -q: ldd's SIGPIPE fails the pipe
        echo "bench: $b.hprof does not depend on libhprof.so (wrappers not linked?)" >&2
        exit 1
    fi
done
variants="plain hprof"
if [ -n "${BASELINE:-}" ]; then
    [ -e "$before/libhprof.so" ] || { echo "bench: no $before/libhprof.so (BASELINE)" >&2; exit 1; }
    for b in $benches; do
        cc=$MPICC src=$srcdir/bench/$b.c
        [ "$b" = fwrapcost ] && cc=$MPIF90 src=$srcdir/bench/$b.f90
        "$cc" -O2 -g "$src" -o "$tmp/$b.before" -L"$before" -lhprof -Wl,-rpath,"$before"
    done
    variants="plain before hprof"
fi

# run VARIANT BENCH - one run; appends "VARIANT<TAB>KEY<TAB>VALUE" lines to results.
run() {
    local out args=()
    [ "$2" != pingpong ] && args=("${WRAPCOST_CALLS:-1000000}")
    out=$(HPROF_OUTPUT=$tmp/prof HPROF_SUMMARY=off "$MPIRUN" -np 2 --bind-to none \
        -x HPROF_OUTPUT -x HPROF_SUMMARY "$tmp/$2.$1" "${args[@]}" </dev/null)
    printf '%s\n' "$out" | awk -v v="$1" '
        $1 == "pingpong" { printf "%s\tpingpong %s B one-way latency (us)\t%s\n", v, $2, $3 }
        $1 == "wrapcost" && $2 == "Fortran" { printf "%s\tFortran %s (ns per call)\t%s\n", v, $3, $4; next }
        $1 == "wrapcost" { printf "%s\t%s (ns per call)\t%s\n", v, $2, $3 }' >>"$tmp/results"
}

for r in $(seq 1 "$rounds"); do
    echo "bench: round $r/$rounds" >&2
    for b in $benches; do
        for v in $variants; do
            run "$v" $b
        done
    done
done

echo
echo "hprof overhead: medians of $rounds alternating runs, 2 ranks, $(nproc) cores"
echo
if [ -n "${BASELINE:-}" ]; then
    echo "| benchmark | plain | before | hprof | added per call before | added per call now |"
    echo "|---|---:|---:|---:|---:|---:|"
else
    echo "| benchmark | plain | hprof | ratio | added per call |"
    echo "|---|---:|---:|---:|---:|"
fi
awk -F'\t' -v baseline="${BASELINE:-}" '
    function median(key, v,   n, i, j, t, a) {
        n = split(vals[v, key], a, " ")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { if (!(($2) in seen)) { seen[$2] = 1; order[++nk] = $2 }
      vals[$1, $2] = vals[$1, $2] " " $3 }
    END {
        for (k = 1; k <= nk; k++) {
            key = order[k]; p = median(key, "plain"); h = median(key, "hprof")
            f = (key ~ /\(us\)/) ? 1000 : 1
            if (baseline != "") {
                b = median(key, "before")
                printf "| %s | %.3f | %.3f | %.3f | %+.1f ns | %+.1f ns |\n", key, p, b, h, (b - p) * f, (h - p) * f
            } else
                printf "| %s | %.3f | %.3f | %.2f | %+.1f ns |\n", key, p, h, (p > 0 ? h / p : 0), (h - p) * f
        }
    }' "$tmp/results"
fi

# ---------------------------------------------------------------- call paths
# The same -lhprof wrapcost with HPROF_CALLPATH=0 (the call site's own
# return address) and 3 (the default: two frames above it walked, the
# C library's start code above main then left out), alternating.
if want mpi; then
echo "bench: call paths (HPROF_CALLPATH 0 and 3)" >&2
for r in $(seq 1 "$rounds"); do
    for n in 0 3; do
        HPROF_CALLPATH=$n HPROF_OUTPUT=$tmp/prof HPROF_SUMMARY=off "$MPIRUN" -np 2 --bind-to none \
            -x HPROF_CALLPATH -x HPROF_OUTPUT -x HPROF_SUMMARY "$tmp/wrapcost.hprof" \
            "${WRAPCOST_CALLS:-1000000}" </dev/null |
            awk -v n=$n '$1 == "wrapcost" { print n "\t" $2 "\t" $3 }' >>"$tmp/callpath.results"
    done
done
echo
echo "tier-0 call paths: medians of $rounds alternating runs (ns per call)"
echo
echo "| call | HPROF_CALLPATH=0 | HPROF_CALLPATH=3 | added per call |"
echo "|---|---:|---:|---:|"
for k in $(cut -f2 "$tmp/callpath.results" | sort -u); do
    c0=$(awk -F'\t' -v k="$k" '$1 == 0 && $2 == k { print $3 }' "$tmp/callpath.results" | median)
    c3=$(awk -F'\t' -v k="$k" '$1 == 3 && $2 == k { print $3 }' "$tmp/callpath.results" | median)
    awk -v k="$k" -v a="$c0" -v b="$c3" 'BEGIN { printf "| %s | %.1f | %.1f | %+.1f ns |\n", k, a, b, b - a }'
done
fi

# ---------------------------------------------------------------- probe cost
if want probe; then
echo "bench: probe cost (bench/probe.c)" >&2
"$MPICC" -O2 -g -finstrument-functions -I"$srcdir/libhprof" "$srcdir/bench/probe.c" -o "$tmp/probe" \
    -L"$libdir" -lhprof -Wl,-rpath,"$libdir"
for r in $(seq 1 "$rounds"); do
    for mode in timed throttled; do
        ns=1000
        [ $mode = throttled ] || ns=0
        HPROF_OUTPUT=$tmp/prof/probe-$r-$mode.hpf HPROF_SUMMARY=off HPROF_THROTTLE_NS=$ns "$MPIRUN" -np 1 --bind-to none \
            -x HPROF_OUTPUT -x HPROF_SUMMARY -x HPROF_THROTTLE_NS "$tmp/probe" "${PROBE_ITERS:-10000000}" </dev/null |
            awk -v m=$mode '$1 == "probe" { print m "\t" $2 "\t" $3 }' >>"$tmp/probe.results"
    done
done
pm() { awk -F'\t' -v m="$1" -v k="$2" '$1 == m && $2 == k { print $3 }' "$tmp/probe.results" | median; }
echo
echo "probe cost: medians of $rounds runs of ${PROBE_ITERS:-10000000} iterations (ns per iteration)"
echo
echo "| probe | ns | two rdtsc reads (same run) | ratio |"
echo "|---|---:|---:|---:|"
for mode in timed throttled; do
    rd=$(pm $mode rdtsc2)
    for k in pair once leaf tier1; do
        v=$(pm $mode $k)
        case $k in
        pair) what="enter+exit pair (tier 2 probe), $mode" ;;
        once) what="enter+exit pair called, not inlined (a site outside any loop of its procedure), $mode" ;;
        leaf) what="enter+exit pair of a leaf site (tier 2 probe: a call-free loop), $mode" ;;
        tier1) what="tier 1 call (-finstrument-functions hooks: call site + procedure), $mode" ;;
        esac
        awk -v w="$what" -v v="$v" -v r="$rd" 'BEGIN { printf "| %s | %.1f | %.1f | %.2f |\n", w, v, r, v / r }'
    done
done
fi

# ---------------------------------------------------------------- whole programs
hpcc=$builddir/instrument/hprof-cc
export HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir   # hprof-cc: this build tree
if want programs; then
variants="plain tier0 tier1"
[ -x "$hpcc" ] && variants="$variants tier2"
echo "bench: whole programs ($variants)" >&2
build_prog() {  # NAME SRC EXTRA_FLAGS...
    local name=$1 src=$2
    shift 2
    # shellcheck disable=SC2054  # the comma belongs to -Wl,-rpath,DIR
    local link=(-L"$libdir" -lhprof -Wl,-rpath,"$libdir")
    "$MPICC" -g -O2 "$@" "$src" -o "$tmp/$name.plain" -lm
    "$MPICC" -g -O2 "$@" "$src" -o "$tmp/$name.tier0" "${link[@]}" -lm
    "$MPICC" -g -O2 -finstrument-functions "$@" "$src" -o "$tmp/$name.tier1" "${link[@]}" -lm
    if [ -x "$hpcc" ]; then
        "$hpcc" "$MPICC" -g -O2 -I"$srcdir/libhprof" "$@" -c "$src" -o "$tmp/$name.o"
        "$hpcc" "$MPICC" "$@" "$tmp/$name.o" -o "$tmp/$name.tier2" "${link[@]}" -lm
    fi
}
build_prog lizhang "$srcdir/examples/lizhang.c"
build_prog jacobi "$srcdir/examples/jacobi.c" -fopenmp
for r in $(seq 1 "$rounds"); do
    echo "bench: whole programs, round $r/$rounds" >&2
    for p in lizhang jacobi; do
        for v in $variants; do
            t0=$(date +%s%N)
            HPROF_OUTPUT=$tmp/prof/$p-$r-$v.hpf HPROF_SUMMARY=off OMP_NUM_THREADS=1 "$MPIRUN" -np 2 --bind-to none \
                -x HPROF_OUTPUT -x HPROF_SUMMARY -x OMP_NUM_THREADS "$tmp/$p.$v" </dev/null >/dev/null 2>>"$tmp/prog.err"
            t1=$(date +%s%N)
            printf '%s\t%s\t%s\n' "$p" "$v" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')" >>"$tmp/prog.results"
        done
    done
done
echo
echo "whole-program overhead: medians of $rounds alternating runs, 2 ranks x 1 thread, elapsed seconds of mpirun (start-up included)"
echo
printf '| program | plain |'
for v in $variants; do [ "$v" = plain ] || printf ' %s | ratio |' "$v"; done
echo
printf '|---|---:|'
for v in $variants; do [ "$v" = plain ] || printf -- '---:|---:|'; done
echo
for p in lizhang jacobi; do
    base=$(awk -F'\t' -v p=$p '$1 == p && $2 == "plain" { print $3 }' "$tmp/prog.results" | median)
    printf '| %s | %.3f |' "$p" "$base"
    for v in $variants; do
        [ "$v" != plain ] || continue
        m=$(awk -F'\t' -v p=$p -v v="$v" '$1 == p && $2 == v { print $3 }' "$tmp/prog.results" | median)
        awk -v m="$m" -v b="$base" 'BEGIN { printf " %.3f | %.3f |", m, m / b }'
    done
    echo
done
[ -x "$hpcc" ] || echo "(tier 2 not measured: $hpcc not built)"
fi

# ---------------------------------------------------------------- OpenMP overheads
# EPCC-syncbench-like: us per construct (bench/ompbench.c), 1 rank
# x 2 threads, plain vs -lhprof, with gcc (GOMP interposition) and clang
# (OMPT), variants alternating.
want omp || exit 0
echo "bench: OpenMP overheads (bench/ompbench.c)" >&2
for cc in gcc clang; do
    command -v $cc >/dev/null || continue
    OMPI_CC=$cc "$MPICC" -O2 -fopenmp "$srcdir/bench/ompbench.c" -o "$tmp/omp.$cc.plain"
    OMPI_CC=$cc "$MPICC" -O2 -fopenmp "$srcdir/bench/ompbench.c" -o "$tmp/omp.$cc.hprof" \
        -L"$libdir" -lhprof -Wl,-rpath,"$libdir"
    if [ -n "${BASELINE:-}" ]; then
        OMPI_CC=$cc "$MPICC" -O2 -fopenmp "$srcdir/bench/ompbench.c" -o "$tmp/omp.$cc.before" \
            -L"$before" -lhprof -Wl,-rpath,"$before"
    fi
done
for r in $(seq 1 "$rounds"); do
    for cc in gcc clang; do
        for v in plain before hprof; do
            [ -x "$tmp/omp.$cc.$v" ] || continue
            HPROF_OUTPUT=$tmp/prof/omp-$r-$cc-$v.hpf HPROF_SUMMARY=off OMP_NUM_THREADS=2 \
                OMP_WAIT_POLICY=active "$MPIRUN" -np 1 --bind-to none -x HPROF_OUTPUT -x HPROF_SUMMARY \
                -x OMP_NUM_THREADS -x OMP_WAIT_POLICY "$tmp/omp.$cc.$v" </dev/null 2>/dev/null |
                awk -v k="$cc.$v" '$1 == "ompbench" { print k "\t" $2 "\t" $3 }' \
                    >>"$tmp/omp.results"
        done
    done
done
echo
echo "OpenMP overheads: medians of $rounds alternating runs, 1 rank x 2 threads (us per construct)"
echo
if [ -n "${BASELINE:-}" ]; then
    echo "| construct | compiler (source) | plain | before | hprof | ratio | added before | added now |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|"
else
    echo "| construct | compiler (source) | plain | hprof | ratio | added |"
    echo "|---|---|---:|---:|---:|---:|"
fi
for what in $(awk -F'\t' '!seen[$2]++ { print $2 }' "$tmp/omp.results"); do
    for cc in gcc clang; do
        src=GOMP; [ $cc = clang ] && src=OMPT
        p=$(awk -F'\t' -v k=$cc.plain -v w=$what '$1 == k && $2 == w { print $3 }' "$tmp/omp.results" | median)
        b=$(awk -F'\t' -v k=$cc.before -v w=$what '$1 == k && $2 == w { print $3 }' "$tmp/omp.results" | median)
        h=$(awk -F'\t' -v k=$cc.hprof -v w=$what '$1 == k && $2 == w { print $3 }' "$tmp/omp.results" | median)
        { [ -n "$p" ] && [ -n "$h" ]; } || continue
        if [ -n "$b" ]; then
            awk -v w=$what -v c="$cc ($src)" -v p="$p" -v b="$b" -v h="$h" \
                'BEGIN { printf "| %s | %s | %.3f | %.3f | %.3f | %.2f | %+.3f | %+.3f |\n", w, c, p, b, h, h / p, b - p, h - p }'
        else
            awk -v w=$what -v c="$cc ($src)" -v p="$p" -v h="$h" \
                'BEGIN { printf "| %s | %s | %.3f | %.3f | %.2f | %+.3f |\n", w, c, p, h, h / p, h - p }'
        fi
    done
done
