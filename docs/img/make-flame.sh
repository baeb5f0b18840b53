#!/bin/bash
# docs/img/make-flame.sh - draws docs/img/jacobi-flame.svg, the picture on
# the README's front page: examples/jacobi.c built at tier 2 with hprof-cc,
# run on 2 ranks x 2 OpenMP threads (grid 512 x 512, 400 iterations), and
# drawn by hprof-query --flamegraph.  Uses the build tree BUILDDIR (default:
# the source tree) when it has been built, else the installed commands.
# usage: docs/img/make-flame.sh [BUILDDIR]
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:-$top}" && pwd)
out=$top/docs/img/jacobi-flame.svg
query=hprof-query
hpcc=hprof-cc
if [ -x "$build/analyzer/hprof-query" ]; then
    export HPROF_BUILDDIR=$build HPROF_SRCDIR=$top
    export LD_LIBRARY_PATH=$build/pmpi/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    query=$build/analyzer/hprof-query
    hpcc=$build/instrument/hprof-cc
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2

work=$(mktemp -d "${TMPDIR:-/tmp}/hprof-flame.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
cp "$top/examples/jacobi.c" .
"$hpcc" mpicc -g -O2 -fopenmp -c jacobi.c -o jacobi.o
"$hpcc" mpicc -fopenmp jacobi.o -o jacobi -lm
HPROF_OUTPUT=jacobi.hpf HPROF_SUMMARY=off mpirun --bind-to none -np 2 ./jacobi 512 400 >/dev/null
"$query" jacobi.hpf --check >/dev/null
"$query" jacobi.hpf --flamegraph "$out"
echo "make-flame: wrote $out ($(wc -c <"$out") bytes)"
