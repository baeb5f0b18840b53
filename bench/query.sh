#!/bin/bash
# bench/query.sh - the analyzer on the Lua-sized case (`make bench`, or
# `make bench-query` alone; never part of `make check`): tests/unit/mkdeep
# writes a profile of NODES nodes (default 10^6) in chains of DEPTH
# (default 300), then each round times, in seconds of elapsed time and of
# CPU time (user + system: what a loaded machine changes least):
#   first  - `hprof-query deep.hpf` with no database: read, merge into
#            SQLite, default report (the goal is <= 5 s);
#   second - the same again, the database now fresh;
# and prints every run, the medians and the database size over the profile
# size (the goal is <= 3).  With BASELINE=DIR (the build tree of another
# hprof, e.g. a worktree of the previous commit) its hprof-query runs too,
# alternating with this one so drift of the machine hits both alike.
# usage: bench/query.sh [BUILDDIR]   (default: the current directory)
# Env: ROUNDS (default 5), NODES, DEPTH, BASELINE (a build tree).
set -euo pipefail

builddir=$(cd "${1:-.}" && pwd)
rounds=${ROUNDS:-5}
nodes=${NODES:-1000000}
depth=${DEPTH:-300}
variants="now"
query_now=$builddir/analyzer/hprof-query
query_before=
if [ -n "${BASELINE:-}" ]; then
    query_before=$(cd "$BASELINE" && pwd)/analyzer/hprof-query
    [ -x "$query_before" ] || { echo "bench: no $query_before (BASELINE)" >&2; exit 1; }
    variants="before now"
fi
for f in "$query_now" "$builddir/tests/unit/mkdeep"; do
    [ -x "$f" ] || { echo "bench: $f not found; build first (make && make check TESTS=)" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-bench-query.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$builddir/tests/unit/mkdeep" "$tmp/deep.hpf" "$nodes" "$depth"

# seconds CMD... - "ELAPSED CPU" seconds of CMD (its output dropped)
seconds() {
    local TIMEFORMAT='%R %U %S' t
    t=$( { time "$@" >/dev/null 2>&1; } 2>&1)
    echo "$t" | tail -n 1 | awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }'
}
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

echo "bench: $rounds rounds of first and second query on $nodes nodes at depth $depth" >&2
for r in $(seq 1 "$rounds"); do
    for v in $variants; do
        q=$query_now
        [ "$v" = now ] || q=$query_before
        rm -f "$tmp/deep.db"
        read -r first first_cpu < <(seconds "$q" "$tmp/deep.hpf")
        read -r second second_cpu < <(seconds "$q" "$tmp/deep.hpf")
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "$first" "$second" "$(stat -c %s "$tmp/deep.db")" \
            "$first_cpu" "$second_cpu" >>"$tmp/results"
        echo "bench: round $r $v: first $first s ($first_cpu s CPU), second $second s ($second_cpu s CPU)" >&2
    done
done

prof=$(stat -c %s "$tmp/deep.hpf")
echo
echo "hprof-query on mkdeep $nodes nodes, depth $depth (profile $prof bytes):" \
     "medians of $rounds alternating runs, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| hprof-query | first query (merge + report) | CPU | second query | CPU | database / profile |"
echo "|---|---:|---:|---:|---:|---:|"
col() { awk -F'\t' -v v="$1" -v c="$2" '$1 == v { print $c }' "$tmp/results" | median; }
for v in $variants; do
    awk -v v=$v -v f="$(col $v 2)" -v fc="$(col $v 5)" -v s="$(col $v 3)" -v sc="$(col $v 6)" \
        -v d="$(col $v 4)" -v p="$prof" \
        'BEGIN { printf "| %s | %.2f s | %.2f s | %.2f s | %.2f s | %.2f |\n", v, f, fc, s, sc, d / p }'
done
