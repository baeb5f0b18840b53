#!/bin/bash
# bench/vtime.sh - what HPROF_VIRTUAL_TIME=1 costs a program without
# wildcard receives (docs/virtual-time.md; `make bench-vtime` and part of
# `make bench`, never of `make check`), under callgrind (deterministic),
# plain, -lhprof and -lhprof with the mode on:
#   - instructions per message of bench/msgrate.c on 1 rank sending to
#     itself (one MPI_Irecv, one MPI_Isend, their completion in
#     MPI_Waitall): the difference between two window counts;
#   - instructions per iteration of bench/halo.c on 1 rank (a Jacobi
#     sweep of 64 x 256 points between halo exchanges of 4 messages, an
#     MPI_Allreduce every 10th): the difference between two run lengths;
#     and that its output is the same with the mode.
# Prints markdown.
# usage: bench/vtime.sh [BUILDDIR]   Env: CG_LO/CG_HI (windows, 200/400),
# HALO_LO/HALO_HI (iterations, 100/200), MPICC.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
MPICC=${MPICC:-mpicc}
lo=${CG_LO:-200} hi=${CG_HI:-400} window=64
libdir=$builddir/pmpi/.libs
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-vtime.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HPROF_OUTPUT=$tmp/mr.hpf HPROF_SUMMARY=off

"$MPICC" -O2 -g "$srcdir/bench/msgrate.c" -o "$tmp/plain"
"$MPICC" -O2 -g "$srcdir/bench/msgrate.c" -o "$tmp/hprof" -L"$libdir" -lhprof "-Wl,-rpath,$libdir"
"$MPICC" -O2 -g "$srcdir/bench/halo.c" -o "$tmp/halo-plain"
"$MPICC" -O2 -g "$srcdir/bench/halo.c" -o "$tmp/halo-hprof" -L"$libdir" -lhprof "-Wl,-rpath,$libdir"

# per_message BIN VT - instructions per message with HPROF_VIRTUAL_TIME=VT.
per_message() {
    local n lo_ir hi_ir
    for n in "$lo" "$hi"; do
        rm -f "$tmp"/mr*.hpf
        HPROF_VIRTUAL_TIME=$2 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
            "$1" "$n" >/dev/null 2>"$tmp/cg.err" </dev/null
        hi_ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.out")
        [ "$n" = "$lo" ] && lo_ir=$hi_ir
    done
    echo $(((hi_ir - lo_ir) / ((hi - lo) * window)))
}

# per_iteration BIN VT - instructions per iteration of bench/halo.c.
per_iteration() {
    local n ir lo_ir=0 halo_lo=${HALO_LO:-100} halo_hi=${HALO_HI:-200}
    for n in "$halo_lo" "$halo_hi"; do
        rm -f "$tmp"/mr*.hpf
        HPROF_VIRTUAL_TIME=$2 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
            "$1" "$n" >"$tmp/halo-$2-$n.out" 2>"$tmp/cg.err" </dev/null
        ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.out")
        [ "$n" = "$halo_lo" ] && lo_ir=$ir
    done
    echo $(((ir - lo_ir) / (halo_hi - halo_lo)))
}

plain=$(per_message "$tmp/plain" 0)
off=$(per_message "$tmp/hprof" 0)
on=$(per_message "$tmp/hprof" 1)
echo "| build | instructions per message | over plain |"
echo "| --- | --- | --- |"
echo "| plain | $plain | |"
echo "| -lhprof | $off | +$((off - plain)) |"
echo "| -lhprof, HPROF_VIRTUAL_TIME=1 | $on | +$((on - plain)) (+$((on - off)) for the mode) |"

hplain=$(per_iteration "$tmp/halo-plain" 0)
hoff=$(per_iteration "$tmp/halo-hprof" 0)
hon=$(per_iteration "$tmp/halo-hprof" 1)
same=no
cmp -s "$tmp/halo-0-${HALO_HI:-200}.out" "$tmp/halo-1-${HALO_HI:-200}.out" && same=yes
echo
echo "| bench/halo.c, 1 rank | instructions per iteration | over -lhprof |"
echo "| --- | --- | --- |"
echo "| plain | $hplain | |"
echo "| -lhprof | $hoff | |"
echo "| -lhprof, HPROF_VIRTUAL_TIME=1 | $hon | +$((hon - hoff)) ($(awk "BEGIN { printf \"%.2f\", ($hon - $hoff) * 100 / $hoff }")%); same output: $same |"
