#!/bin/bash
# bench/readme.sh - puts a record of `make bench` into docs/performance.md:
# replaces the lines between the marker lines "<!-- bench:begin -->" and
# "<!-- bench:end -->" of that file with the contents of BENCH_MD (the markers
# stay).  Fails, changing nothing, unless each marker is there exactly once,
# begin before end.
# usage: bench/readme.sh BENCH_MD [FILE]   (default: docs/performance.md of
#        the source tree)
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=${1:?usage: bench/readme.sh BENCH_MD [FILE]}
readme=${2:-$srcdir/docs/performance.md}
begin='<!-- bench:begin -->'
end='<!-- bench:end -->'
[ -r "$bench" ] || { echo "readme: cannot read $bench" >&2; exit 1; }

nb=$(grep -cxF "$begin" "$readme" || true)
ne=$(grep -cxF "$end" "$readme" || true)
lb=$(grep -nxF "$begin" "$readme" | cut -d: -f1 | head -1 || true)
le=$(grep -nxF "$end" "$readme" | cut -d: -f1 | head -1 || true)
if [ "$nb" != 1 ] || [ "$ne" != 1 ] || [ "$lb" -ge "$le" ]; then
    echo "readme: $readme needs one '$begin' line before one '$end' line" >&2
    exit 1
fi
new=$(mktemp "${TMPDIR:-/tmp}/hprof-readme.XXXXXX")
trap 'rm -f "$new"' EXIT
{
    head -n "$lb" "$readme"
    cat "$bench"
    tail -n "+$le" "$readme"
} >"$new"
cat "$new" >"$readme"   # in place: the file keeps its mode and links
echo "readme: $readme lines $lb-$le now hold $bench" >&2
