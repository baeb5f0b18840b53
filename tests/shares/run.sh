#!/bin/bash
# tests/shares/run.sh - the denominators of hprof's shares (shares.c says
# the ground truth): a rank's wall window covers the work before MPI_Init,
# main never outlasts it, hprof-query's root row carries the run's thread
# time (wall x threads recording) and no row of the tree exceeds 100%,
# the summary's MPI share stays within 100%.
# usage: tests/shares/run.sh [BUILDDIR]   (as tests/mpi/run.sh)
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
S=$srcdir/tests/shares

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
. "$srcdir/tests/truth.sh"
test_tmpdir shares

mkdir -p "$tmp/bin"
"$MPICC" -g -O1 -fopenmp -finstrument-functions "$S/shares.c" -o "$tmp/bin/shares" \
    -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" || notok "build of shares.c" "$MPICC failed"
"$MPICC" -g -O1 -fopenmp "$S/shares.c" -o "$tmp/bin/shares.plain" || notok "plain build" "$MPICC failed"

hp_run sh 2 -x OMP_NUM_THREADS=2 "$tmp/bin/shares"
if ran_ok sh; then
    db=$PROFILE
    expect_cmp "every rank's wall covers the 200 ms before MPI_Init (>= 0.35 s)" ge 0.35 \
        "$(q "$db" "SELECT min(wall) FROM rank")"
    expect_cmp "main never outlasts its rank's wall window" le 0 \
        "$(q "$db" "SELECT max(st.time - r.wall) FROM stat st JOIN node n ON n.id = st.node
                    JOIN site s ON s.id = n.site JOIN rank r ON r.rank = st.rank WHERE s.name = 'main'")"
    expect_eq "2 threads record on each rank" "2;2" "$(q "$db" "SELECT threads FROM rank ORDER BY rank")"
    # Times raw (--raw, stat.raw_time): shares.c spins until deadlines, so
    # the probes' cost is inside its ground truth, not added to it.
    tree=$("$QUERY" "$db" --raw --format csv 2>/dev/null | tail -n +2)
    expect_eq "the root row carries the thread time (4 threads, 100%)" "4,100" \
        "$(printf '%s\n' "$tree" | awk -F, '$2 == 0 { printf "%d,%.1f\n", $4, $9 }')"
    expect_cmp "the root row's time is the sum over ranks of wall x threads" within \
        "$(q "$db" "SELECT sum(wall * threads) FROM rank")" \
        "$(printf '%s\n' "$tree" | awk -F, '$2 == 0 { print $5 }')" 1e-6
    expect_cmp "no row of the tree exceeds 100%" le 100 \
        "$(printf '%s\n' "$tree" | awk -F, 'BEGIN { m = 0 } $9 + 0 > m { m = $9 + 0 } END { print m }')"
    # against each rank's own clock (stderr): main from its start to
    # before MPI_Finalize, the master's time around the region, the spins
    # (main's share in percentage points: truth.sh's 2% + 0.5 point)
    own() { awk -v k="$1" '/^shares: rank [0-9]+ main/ { for (i = 1; i < NF; i++) if ($i == k) s += $(i + 1) }
                          END { printf "%.6f", s }' "$tmp/sh.err"; }
    expect_eq "each rank printed its own times" 2 "$(grep -c '^shares: rank [0-9]* main' "$tmp/sh.err")"
    expect_truth "main's share of the thread time (%) = the ranks' own time in main over the root's thread time (master thread only)" \
        "$(awk -v m="$(own main)" -v t="$(printf '%s\n' "$tree" | awk -F, '$2 == 0 { print $5 }')" 'BEGIN { printf "%.4f 1\n", 100 * m / t }')" \
        "$(printf '%s\n' "$tree" | awk -F, '$3 ~ /^ *main$/ { print $9 }')"
    Lp=$(line_of "$S/shares.c" shares-par)
    expect_truth_range "the region's time summed over its 2 threads (ms) between the threads' spins and twice the master's time around it (program's clock)" \
        "$(awk -v s="$(own spins)" -v r="$(own region)" 'BEGIN { printf "%.3f %.3f 4\n", s * 1000, 2 * r * 1000 }')" \
        "$(q "$db" "SELECT round(sum(st.raw_time) * 1000, 3) $OMPJOIN WHERE s.kind = 'omp' AND s.name = 'parallel' AND s.line = $Lp")"
    pct=$(sed -n 's/^hprof: MPI time \([0-9.]*\)% of wall.*/\1/p' "$tmp/sh.err")
    expect_cmp "the summary's MPI share is within 100%" le 100 "$pct"
    plain_run sh.plain 2 -x OMP_NUM_THREADS=2 "$tmp/bin/shares.plain"
    same_stdout "same stdout with and without hprof" "$tmp/sh.plain.out" "$tmp/sh.out"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
