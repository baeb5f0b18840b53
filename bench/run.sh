#!/bin/bash
# bench/run.sh - hprof's overhead benchmarks (`make bench`; never part of
# `make check`).  Builds bench/pingpong.c and bench/wrapcost.c twice, plain
# and linked with -lhprof from the build tree, runs the two variants
# ALTERNATING several rounds with 2 ranks (so drift of the machine hits both
# alike), and prints a markdown table of the medians: plain, hprof, ratio,
# and the time hprof adds per call.
# usage: bench/run.sh [BUILDDIR]   (default: the current directory)
# Env: ROUNDS (default 5), MPICC, MPIRUN.
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

echo "bench: building plain and -lhprof variants" >&2
for b in pingpong wrapcost; do
    "$MPICC" -O2 -g "$srcdir/bench/$b.c" -o "$tmp/$b.plain"
    "$MPICC" -O2 -g "$srcdir/bench/$b.c" -o "$tmp/$b.hprof" -L"$libdir" -lhprof -Wl,-rpath,"$libdir"
    if ! ldd "$tmp/$b.hprof" | grep -q 'libhprof\.so'; then
        echo "bench: $b.hprof does not depend on libhprof.so (wrappers not linked?)" >&2
        exit 1
    fi
done

# run VARIANT BENCH - one run; appends "VARIANT<TAB>KEY<TAB>VALUE" lines to results.
run() {
    local out
    out=$(HPROF_OUTPUT=$tmp/prof HPROF_SUMMARY=off "$MPIRUN" -np 2 --bind-to none \
        -x HPROF_OUTPUT -x HPROF_SUMMARY "$tmp/$2.$1" </dev/null)
    printf '%s\n' "$out" | awk -v v="$1" '
        $1 == "pingpong" { printf "%s\tpingpong %s B one-way latency (us)\t%s\n", v, $2, $3 }
        $1 == "wrapcost" { printf "%s\t%s (ns per call)\t%s\n", v, $2, $3 }' >>"$tmp/results"
}

for r in $(seq 1 "$rounds"); do
    echo "bench: round $r/$rounds" >&2
    for b in pingpong wrapcost; do
        run plain $b
        run hprof $b
    done
done

echo
echo "hprof overhead: medians of $rounds alternating runs, 2 ranks, $(nproc) cores"
echo
echo "| benchmark | plain | hprof | ratio | added per call |"
echo "|---|---:|---:|---:|---:|"
awk -F'\t' '
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
            ns = (key ~ /\(us\)/) ? (h - p) * 1000 : h - p
            printf "| %s | %.3f | %.3f | %.2f | %+.0f ns |\n", key, p, h, (p > 0 ? h / p : 0), ns
        }
    }' "$tmp/results"
