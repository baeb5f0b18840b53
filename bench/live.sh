#!/bin/bash
# bench/live.sh - `make bench-live`: what live snapshots (HPROF_LIVE) cost.
#  1. snapshots of a 10^6-node tree (bench/livesnap): CPU ms of reading
#     the records while another thread records (and without it) and of
#     writing the rank's file, the first snapshot and the later ones;
#  2. a 4-rank x 2-thread run at tier 0 (-lhprof) of a fixed amount of
#     work (OpenMP loops and an MPI_Allreduce per step, 2000 steps) with
#     HPROF_LIVE=1: the CPU time of the snapshot threads ("hprof-live", from
#     /proc/PID/task/*/schedstat, sampled every 0.2 s) against all the
#     ranks' threads': the added cost, which a loaded machine does not
#     blur (CPU time, not elapsed);
#  3. the same run (400 steps) with HPROF_LIVE unset and =1, alternating, PAIRS pairs
#     (default 5): the median ratio of the program's own times.  The load
#     average is printed first; on a machine that is not quiet these
#     ratios are noise, and say so.
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
echo "10^6-node snapshots (CPU ms), another thread recording: $("$builddir/bench/livesnap" 1000000 "$tmp/s.hpf")"
echo "10^6-node snapshots (CPU ms), nothing recording:        $("$builddir/bench/livesnap" 1000000 "$tmp/s.hpf" quiet)"

cat >"$tmp/work.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    double x = 0, sum = 0;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (getenv("WORK_PIDS")) { /* where bench/live.sh reads its threads' CPU */
        char name[4096];
        snprintf(name, sizeof name, "%s.%d", getenv("WORK_PIDS"), rank);
        FILE *f = fopen(name, "w");
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
    double t0 = MPI_Wtime();
    int steps = argc > 1 ? atoi(argv[1]) : 400;
    for (int step = 0; step < steps; step++) {
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
# "TASK NS LIVE" per thread of process $1: ns on the CPU, 1 for a
# snapshot thread
task_ns() {
    local t ns
    for t in /proc/"$1"/task/*; do
        ns=$(cut -d' ' -f1 "$t/schedstat" 2>/dev/null) || continue
        if [ "$(cat "$t/comm" 2>/dev/null)" = hprof-live ]; then
            echo "$t $ns 1"
        else
            echo "$t $ns 0"
        fi
    done
}
# one run with HPROF_LIVE=1, its ranks' threads sampled until they end;
# each thread's last figure counts (the snapshot threads end before
# their processes)
sampled_run() {
    rm -f "$tmp"/pid.* "$tmp/samples"
    env HPROF_LIVE=1 WORK_PIDS=$tmp/pid HPROF_SUMMARY=off HPROF_OUTPUT=$tmp/w.hpf \
        mpirun -np 4 --bind-to none -x HPROF_SUMMARY -x HPROF_OUTPUT -x HPROF_LIVE -x WORK_PIDS \
        -x LD_LIBRARY_PATH -x OMP_WAIT_POLICY "$tmp/work" 2000 >"$tmp/sampled.out" 2>/dev/null &
    local mpid=$! f
    while kill -0 "$mpid" 2>/dev/null; do
        for f in "$tmp"/pid.*; do
            [ -s "$f" ] && task_ns "$(cat "$f")" >>"$tmp/samples"
        done
        sleep 0.2
    done
    wait "$mpid" || true
    rm -rf "$tmp"/w*.hpf "$tmp"/w*.live
    awk -v wall="$(cat "$tmp/sampled.out")" '
        { ns[$1] = $2; live[$1] = $3 } END {
            for (t in ns) { all += ns[t]; if (live[t]) { snap += ns[t]; n++ } }
            printf "snapshot threads (%d) %.1f ms CPU of all threads %.0f ms (%.3f%%); run %.2f s: %.2f ms a second per rank\n",
                n, snap / 1e6, all / 1e6, 100 * snap / all, wall, snap / 1e6 / wall / 4 }' "$tmp/samples"
}
echo "HPROF_LIVE=1, 4 ranks x 2 threads, 2000 steps, CPU of each thread at its last 0.2 s sample:"
for k in 1 2 3; do echo "  $(sampled_run)"; done

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
