#!/bin/bash
# bench/scale.sh - the analyzer at scale (`make bench`, or `make bench-scale`
# alone; never part of `make check`): bench/mkbig writes the synthetic
# profile of issue 12 (RANKS ranks, default 1024; 5,000 nodes per rank, 507
# communication nodes with 20 peers), then it times hprof-merge (elapsed,
# CPU = user + system, peak RSS of /usr/bin/time) and, on the database,
# the default tree, --flat, --comm SITE, --ranks SITE, --matrix, and the
# per-rank views --comm SITE --by-rank, --matrix SITE and --check (median CPU ms of
# ROUNDS runs: CPU is what a loaded machine changes least).  SCALE_4096=1
# adds a second size of 4096 ranks (a 4 GB profile: mind the disk).
# Targets (issue 12): 1024 ranks merge <= 10 s and <= 1 GB, each query
# <= 100 ms; 4096 ranks merge <= 40 s, queries <= 200 ms.
# usage: bench/scale.sh [BUILDDIR]   (default: the current directory)
# Env: RANKS (default 1024), ROUNDS (default 3), SCALE_4096, SITE
#      (default comm.c:1, a communication statement of every rank).
set -euo pipefail

builddir=$(cd "${1:-.}" && pwd)
rounds=${ROUNDS:-3}
site=${SITE:-comm.c:1}
sizes=${RANKS:-1024}
[ "${SCALE_4096:-0}" = 1 ] && sizes="$sizes 4096"
query=$builddir/analyzer/hprof-query
merge=$builddir/analyzer/hprof-merge
mkbig=$builddir/bench/mkbig
for f in "$query" "$merge" "$mkbig"; do
    [ -x "$f" ] || { echo "bench: $f not found; build first (make && make check TESTS=)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed (Debian package time)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-bench-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# measure CMD... - "ELAPSED CPU MAXRSS_KB" of CMD (its output dropped)
measure() {
    /usr/bin/time -o "$tmp/time" -f '%e %U %S %M' "$@" >/dev/null 2>"$tmp/err" ||
        { echo "bench: failed: $* ($(tail -1 "$tmp/err"))" >&2; return 1; }
    awk '{ printf "%.3f %.3f %d\n", $1, $2 + $3, $4 }' "$tmp/time"
}
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

echo
echo "Synthetic profile (bench/mkbig: 5,000 nodes per rank, 507 communication nodes with 20 peers);" \
     "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); queries: median CPU of $rounds runs"
echo
echo "| ranks | profile MB | merge s | merge CPU s | merge peak MB | database MB | tree ms | --flat ms | --comm ms | --ranks ms | --matrix ms | --by-rank ms | --matrix SITE ms | --check ms |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $sizes; do
    echo "bench: scale $n ranks: writing the profile" >&2
    "$mkbig" "$n" "$tmp/big.hpf"
    read -r me mc mr < <(measure "$merge" -f -o "$tmp/big.db" "$tmp/big.hpf")
    echo "bench: scale $n ranks: merge $me s ($mc s CPU, $((mr / 1024)) MB)" >&2
    rm -f "$tmp/big.hpf.q"
    cells=""
    for q in "" "--flat" "--comm $site" "--ranks $site" "--matrix" "--comm $site --by-rank" \
             "--matrix $site" "--check"; do
        : >"$tmp/q"
        for r in $(seq 1 "$rounds"); do
            # shellcheck disable=SC2086
            read -r _ qc _ < <(measure "$query" "$tmp/big.db" $q)
            echo "$qc" >>"$tmp/q"
        done
        ms=$(median <"$tmp/q" | awk '{ printf "%.0f", $1 * 1000 }')
        echo "bench: scale $n ranks: hprof-query ${q:-(tree)}: $ms ms CPU" >&2
        cells="$cells $ms |"
    done
    printf '| %s | %.0f | %.1f | %.1f | %.0f | %.0f |%s\n' "$n" \
        "$(stat -c %s "$tmp/big.hpf" | awk '{ print $1 / 1e6 }')" "$me" "$mc" \
        "$(awk -v k="$mr" 'BEGIN { print k / 1024 }')" \
        "$(stat -c %s "$tmp/big.db" | awk '{ print $1 / 1e6 }')" "$cells"
    rm -f "$tmp/big.hpf" "$tmp/big.db"
done
