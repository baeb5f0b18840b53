#!/bin/bash
# bench/live.sh - `make bench-live`: what live snapshots (HPROF_LIVE) cost.
#  1. one snapshot of a 10^6-node tree (bench/livesnap): reading the
#     records while another thread records (and without it), and writing
#     the rank's file;
#  2. a 4-rank x 2-thread run at tier 0 (-lhprof) of a fixed amount of
#     work (OpenMP loops and an MPI_Allreduce per step) with HPROF_LIVE
#     unset and =1, alternating, PAIRS pairs (default 5): the median ratio
#     of the program's own times.  The load average is printed first; on
#     a machine that is not quiet the ratios are noise, and say so.
# usage: bench/live.sh BUILDDIR
set -euo pipefail
builddir=$(cd "${1:-.}" && pwd)
PAIRS=${PAIRS:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMP_WAIT_POLICY=passive
export LD_LIBRARY_PATH=$builddir/pmpi/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
tmp=$(mktemp -d /tmp/hprof-benchlive.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "## live snapshots (HPROF_LIVE)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "10^6-node snapshot, another thread recording: $("$builddir/bench/livesnap" 1000000 "$tmp/s.hpf")"
echo "10^6-node snapshot, nothing recording:        $("$builddir/bench/livesnap" 1000000 "$tmp/s.hpf" quiet)"

cat >"$tmp/work.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    double x = 0, sum = 0;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime();
    for (int step = 0; step < 400; step++) {
#pragma omp parallel for num_threads(2) reduction(+ : x)
        for (int i = 0; i < 400000; i++)
            x += (double)(i % 7) * 1e-9;
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.4f\n", tmax);
    MPI_Finalize();
    return sum < 0;
}
PROG
mpicc -O2 -fopenmp "$tmp/work.c" -o "$tmp/work" -L"$builddir/pmpi/.libs" -lhprof
one() { # one LIVE: the run's time (s)
    env ${1:+HPROF_LIVE=$1} HPROF_SUMMARY=off HPROF_OUTPUT=$tmp/w.hpf mpirun -np 4 --bind-to none \
        -x HPROF_SUMMARY -x HPROF_OUTPUT ${1:+-x HPROF_LIVE} -x LD_LIBRARY_PATH -x OMP_WAIT_POLICY \
        "$tmp/work" 2>/dev/null
    rm -rf "$tmp"/w*.hpf "$tmp"/w*.live
}
ratios=()
for p in $(seq 1 "$PAIRS"); do
    a=$(one "") b=$(one 1)
    ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", b / a }')")
    echo "pair $p: tier 0 ${a} s, HPROF_LIVE=1 ${b} s"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "HPROF_LIVE=1 / tier 0, median of $PAIRS alternating pairs: $median"
load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
    echo "machine not quiet (load $load on $(nproc) cores): these ratios are noise, not a result"
fi
