#!/bin/bash
# bench/msgrate.sh - hprof's cost on the MPI message rate (`make bench`,
# `make bench-msgrate`; never part of `make check`), with bench/msgrate.c
# (windows of 64 nonblocking 8-byte messages completed by one MPI_Waitall,
# as osu_mbw_mr; the calls made in a function below main, as there):
#   - instructions added per message (one MPI_Irecv + one MPI_Isend + their
#     two completions in MPI_Waitall): callgrind, 1 rank sending to itself
#     (deterministic), the difference between two window counts, plain and
#     -lhprof (HPROF_CALLPATH default and 0);
#   - the message rate of 2 ranks, plain and -lhprof ALTERNATING in ROUNDS
#     rounds: messages per second of each and the ratio to plain of the
#     same round (median, min-max).  Wall-clock: indicative on a shared
#     machine.
# Prints markdown.  usage: bench/msgrate.sh [BUILDDIR]
# Env: ROUNDS (default 5), MSGRATE_ITERS (windows per timed batch, default
#      2000), CG_LO/CG_HI (window counts under callgrind, default 200/400),
#      MPICC, MPIRUN.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
rounds=${ROUNDS:-5}
iters=${MSGRATE_ITERS:-2000}
lo=${CG_LO:-200} hi=${CG_HI:-400} window=64
libdir=$builddir/pmpi/.libs
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-msgrate.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HPROF_OUTPUT=$tmp/mr.hpf HPROF_SUMMARY=off

"$MPICC" -O2 -g "$srcdir/bench/msgrate.c" -o "$tmp/plain"
"$MPICC" -O2 -g "$srcdir/bench/msgrate.c" -o "$tmp/hprof" -L"$libdir" -lhprof "-Wl,-rpath,$libdir"

# ir BIN WINDOWS - total instructions of one run under callgrind.
ir() {
    rm -f "$tmp"/mr*.hpf
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$1" "$2" >/dev/null 2>"$tmp/cg.err" </dev/null
    sed -n 's/^summary: *//p; s/^totals: *//p' "$tmp/cg.out" | head -1
}
# per_msg BIN - instructions per message: (I(hi) - I(lo)) / messages.
per_msg() {
    local a b
    a=$(ir "$1" "$lo")
    b=$(ir "$1" "$hi")
    awk -v a="$a" -v b="$b" -v n=$(((hi - lo) * window)) 'BEGIN { printf "%.1f\n", (b - a) / n }'
}

if command -v valgrind >/dev/null; then
    p=$(per_msg "$tmp/plain")
    h=$(per_msg "$tmp/hprof")
    h0=$(HPROF_CALLPATH=0 per_msg "$tmp/hprof")
    echo "callgrind, 1 rank sending to itself, windows of $window (Irecv, Isend) pairs and one Waitall,"
    echo "the difference between $lo and $hi windows, instructions per message (Irecv + Isend + 2 completions):"
    echo
    echo "| variant | instructions per message | added by hprof |"
    echo "|---|---:|---:|"
    echo "| plain (Open MPI itself) | $p | |"
    echo "| -lhprof | $h | $(awk -v a="$h" -v b="$p" 'BEGIN { printf "%.1f", a - b }') |"
    echo "| -lhprof, HPROF_CALLPATH=0 | $h0 | $(awk -v a="$h0" -v b="$p" 'BEGIN { printf "%.1f", a - b }') |"
    echo
fi

# The rate, alternating plain and -lhprof.
: >"$tmp/rates"
for ((r = 1; r <= rounds; r++)); do
    a=$("$MPIRUN" -np 2 --bind-to none "$tmp/plain" "$iters" </dev/null | awk '$1 == "msgrate" { print $2 }')
    rm -f "$tmp"/mr*.hpf
    b=$("$MPIRUN" -np 2 --bind-to none -x HPROF_OUTPUT -x HPROF_SUMMARY "$tmp/hprof" "$iters" </dev/null |
        awk '$1 == "msgrate" { print $2 }')
    echo "$a $b" >>"$tmp/rates"
done
# median COLUMN - the median of a column of $tmp/rates (3: b / a).
median() {
    awk -v c="$1" '{ print (c == 3 ? $2 / $1 : $c) }' "$tmp/rates" | sort -g |
        awk '{ v[NR] = $1 } END { m = v[int((NR + 1) / 2)]; printf (m < 100 ? "%.2f" : "%.0f"), m }'
}
echo "message rate, 2 ranks, 8 B, windows of $window, $rounds rounds alternating (wall clock: indicative on a shared machine):"
echo
echo "| variant | messages/s (median) | ratio to plain (median) | ratio min-max |"
echo "|---|---:|---:|---:|"
echo "| plain | $(median 1) | | |"
echo "| -lhprof | $(median 2) | $(median 3) | $(awk '{ print $2 / $1 }' "$tmp/rates" | sort -g |
    awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }') |"
