#!/bin/bash
# bench/vtime.sh - what HPROF_VIRTUAL_TIME=1 costs a program without
# wildcard receives (docs/virtual-time.md; never part of `make check`):
# instructions per message of bench/msgrate.c on 1 rank sending to
# itself (one MPI_Irecv, one MPI_Isend, their completion in MPI_Waitall),
# under callgrind (deterministic): the difference between two window
# counts, plain, -lhprof and -lhprof with the mode on.  Prints markdown.
# usage: bench/vtime.sh [BUILDDIR]   Env: CG_LO/CG_HI (windows, 200/400), MPICC.
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

plain=$(per_message "$tmp/plain" 0)
off=$(per_message "$tmp/hprof" 0)
on=$(per_message "$tmp/hprof" 1)
echo "| build | instructions per message | over plain |"
echo "| --- | --- | --- |"
echo "| plain | $plain | |"
echo "| -lhprof | $off | +$((off - plain)) |"
echo "| -lhprof, HPROF_VIRTUAL_TIME=1 | $on | +$((on - plain)) (+$((on - off)) for the mode) |"
