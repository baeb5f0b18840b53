#!/bin/bash
# bench/fixed.sh - the fixed cost of a run (`make bench`, or `make
# bench-fixed` alone; never part of `make check`): a trivial OpenMP program
# (one parallel region, no MPI, OMP_WAIT_POLICY=passive) built plain and
# with -lhprof, with gcc (GOMP) and, when it builds, clang (OMPT), and
# instrumented with hprof-cc gcc (tier 2); ROUNDS
# alternating runs of
# each, the medians of their elapsed milliseconds and what hprof adds
# (start-up, the end of run: resolution, snapshot, writing the profile).
# With BASELINE=DIR (the build tree of another hprof) its library runs
# too, alternating with this one.
# usage: bench/fixed.sh [BUILDDIR]   (default: the current directory)
# Env: ROUNDS (default 21), BASELINE (a build tree).
set -euo pipefail

builddir=$(cd "${1:-.}" && pwd)
rounds=${ROUNDS:-21}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-bench-fixed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
libs=("now:$builddir/pmpi/.libs")
[ -n "${BASELINE:-}" ] && libs=("before:$(cd "$BASELINE" && pwd)/pmpi/.libs" "${libs[@]}")

cat >"$tmp/triv.c" <<'EOF'
#include <stdio.h>
int main(void)
{
    int n = 0;
#pragma omp parallel reduction(+ : n)
    n += 1;
    printf("%d\n", n > 0);
    return 0;
}
EOF
progs=()
for cc in gcc clang; do
    command -v $cc >/dev/null || continue
    $cc -O2 -g -fopenmp "$tmp/triv.c" -o "$tmp/$cc.plain" 2>/dev/null || continue
    progs+=("$cc.plain")
    for l in "${libs[@]}"; do
        name=${l%%:*} dir=${l#*:}
        $cc -O2 -g -fopenmp "$tmp/triv.c" -o "$tmp/$cc.$name" -L"$dir" -lhprof \
            -Wl,-rpath,"$dir" && progs+=("$cc.$name")
    done
done
# Tier 2: the same program instrumented by each build's hprof-cc (its
# probes, unit registration and static tables), against gcc's plain run.
for l in "${libs[@]}"; do
    name=${l%%:*} dir=${l#*:}
    tree=$(cd "$dir/../.." && pwd)
    [ -x "$tree/instrument/hprof-cc" ] && [ -f "$tmp/gcc.plain" ] || continue
    HPROF_BUILDDIR=$tree HPROF_SRCDIR=$tree "$tree/instrument/hprof-cc" gcc -O2 -g -fopenmp \
        "$tmp/triv.c" -o "$tmp/t2.$name" -L"$dir" -Wl,-rpath,"$dir" >/dev/null 2>&1 &&
        progs+=("t2.$name")
done

# ms PROG - elapsed milliseconds of one run (profile written to $tmp)
ms() {
    local s e
    s=$(date +%s%N)
    OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 HPROF_OUTPUT=$tmp/p.hpf HPROF_SUMMARY=off "$tmp/$1" >/dev/null 2>&1
    e=$(date +%s%N)
    rm -f "$tmp"/p.hpf*
    echo $(((e - s) / 1000))
}
for ((r = 0; r < rounds; r++)); do
    for p in "${progs[@]}"; do
        ms "$p" >>"$tmp/$p.times"
    done
done
median() { sort -n "$tmp/$1.times" | awk '{ a[NR] = $1 } END { printf "%.2f", a[int((NR + 1) / 2)] / 1000 }'; }

echo "fixed cost: a trivial OpenMP program (one region, 2 threads), medians of $rounds alternating runs, elapsed ms"
printf '| compiler | plain |'
for l in "${libs[@]}"; do printf ' %s | added |' "${l%%:*}"; done
printf '\n|---|---:|'
for l in "${libs[@]}"; do printf -- '---:|---:|'; done
printf '\n'
for cc in gcc clang t2; do
    base=$cc what=$cc
    [ "$cc" = t2 ] && base=gcc what="gcc, tier 2 (hprof-cc)"
    [ -f "$tmp/$base.plain.times" ] || continue
    plain=$(median "$base.plain")
    printf '| %s | %s |' "$what" "$plain"
    for l in "${libs[@]}"; do
        name=${l%%:*}
        [ -f "$tmp/$cc.$name.times" ] || { printf ' - | - |'; continue; }
        m=$(median "$cc.$name")
        printf ' %s | %+.2f |' "$m" "$(awk -v a="$m" -v b="$plain" 'BEGIN { print a - b }')"
    done
    printf '\n'
done
