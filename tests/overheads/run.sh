#!/bin/bash
# tests/overheads/run.sh - hprof-query --overheads [PATH]: the overhead
# classes (computation, data movement, synchronization, control of
# parallelism, loss of parallelism, unidentified) per node of a subtree.
# A rank's threads T = max(rank.threads, rank.omp_threads); the root's
# total is wall x T summed over the ranks.
#
# Ground truth 1: the known two-rank profile of tests/unit/mkprofile.c
# (seconds; rank 0: wall 10, 1 thread recorded, omp_threads 2, so T = 2;
# rank 1: wall 12, 2 threads, omp_threads 2, T = 2; no parallel region).
# Exclusive time per rank and thread (own - children, >= 0) by class:
#   computation  r0 main 1.5 + loop 0.5 + compute 6 = 8;
#                r1 main 1.75 + loop 0.5 + compute 6.5 + compute (t1) 3.5
#                = 12.25                                   -> 20.25
#   comm nodes (time, sync): r0 Send@42 (1.5, 0.5), Allreduce (0.5, 0.25);
#                r1 Recv (2, 0.75), Allreduce (1, 0.5), Send@60 (0.25, 0.125)
#     data movement = time - sync: 1 + 0.25 + 1.25 + 0.5 + 0.125 = 3.125
#     synchronization = sync: 0.5 + 0.25 + 0.75 + 0.5 + 0.125 = 2.125
#   control 0 (no fork, join, task creation or non-communication MPI call)
#   budget wall x T: r0 20, r1 24 -> root total 44
#   loss: idle = (wall - first thread's time in parallel regions) x (T-1):
#     r0 10, at most what the budget leaves (20 - 10 classified = 10) -> 10;
#     r1 12, at most 24 - 15.5 = 8.5 -> 8.5 (f = 8.5/12)    -> 18.5
#   unidentified: 20 - 10 - 10 = 0, 24 - 15.5 - 8.5 = 0     -> 0
# A non-root node's loss is its first-thread time x (T-1) x f:
#   main 10 + 12 x 8.5/12 = 18.5, total 16.75+3.125+2.125+18.5 = 40.5
#   loop@app.c:20 comp 13.5, data 2.25, sync 1.25, loss 8 + 9 x 8.5/12 =
#     14.375, total 31.375
#   MPI_Send@app.c:42 (rank 0 only) data 1, sync 0.5, loss 1.5, total 3
#   compute under the root (r1 thread 1): 3.5, all computation, no loss
# A copy with rank 0's wall 11: budget r0 22, idle 11, budget - classified
# = 12 -> loss 11, unidentified 1: root 46 = 20.25 + 3.125 + 2.125 + 19.5
# + 1.  A copy with omp_threads 1: T = threads (r0 1, r1 2): root 34,
# loss r0 0 + r1 8.5 = 8.5.
#
# Ground truth 2: real runs (tier 0).  tests/mpi/late_sender (2 ranks):
# rank 0's MPI_Recv waits 200 ms for its sender: its node's
# synchronization lies between the wait for the sender's arrival and the
# receive's time, its data movement within the rest (the ranks' own
# clock, tests/mpi/lib.sh's expect_sync); rank 1's 200 ms sleep is outside any node:
# the root's unidentified time >= 0.19 s; MPI_Init (an MPI call that moves
# no data) is all control.  tests/omp/src/serial_part.c (1 rank x 4
# threads): the master spins SERIAL_MS = 200 ms alone before the region
# (after MPI_Init_thread, serial too): loss of parallelism = the master's
# time alone x 3, at least as long as the program timed it alone (from
# main's start), at most the wall less its work in the region (its own
# clock; tests/truth.sh's tolerance).
# tests/omp/src/critical.c (1 rank x 2 threads): both threads enter a
# critical section (then a lock) at once and hold it HOLD_MS = 30 ms: the
# waits (about HOLD_MS x (0 + 1)) are synchronization and sum to what
# the program timed; the holds are computation, >= 2 x HOLD_MS and what
# the program timed.
# examples/jacobi (2 ranks x 2 threads): the region's implicit barrier is
# all synchronization, the region has no loss, fork and join are control
# besides their loss, the root's loss is at most the summary's (which
# does not cap it) and at least 90% of it.  Every run: the root's classes
# add up to wall x T within 1%, no class < 0, `--check` passes.
#
# Stored and defined: hprof-merge stores the per-node and per-rank sums
# (ovh_x, ovh_rank: analyzer/db/ovh_class.h) computed in C; every profile
# here lists --overheads (CSV, all nodes) from them and from their SQL
# definition (the same database with the two tables dropped): same rows,
# every number within 1e-9 relative; mkprofile's (no event costs, so raw
# = compensated times) --raw, which runs the definition, gives the same.  The edited copies are re-aggregated
# with hprof-merge --aggregate, which recomputes the tables by the
# definition.
#
# usage: tests/overheads/run.sh [BUILDDIR]   (default: the current directory)
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
MERGE=$builddir/analyzer/hprof-merge
MKPROFILE=$builddir/tests/unit/mkprofile
LIBDIR=$builddir/pmpi/.libs
T=$builddir/tests/mpi
S=$srcdir/tests/mpi

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
. "$srcdir/tests/truth.sh"
test_tmpdir overheads
pass=0 fail=0 skip=0

for f in "$QUERY" "$MERGE" "$MKPROFILE"; do
    if [ ! -x "$f" ]; then
        notok "prerequisites" "missing: $f (build with 'make check TESTS=' first)"
        echo "$pass passed, $fail failed"
        exit 1
    fi
done
command -v sqlite3 >/dev/null || { notok "prerequisites" "sqlite3 missing"; }

# ov DB [PATH] - the CSV rows (no header) of --overheads.
ov() {
    local db=$1
    shift
    "$QUERY" "$db" --format csv --top 0 --overheads "$@" 2>"$tmp/ov.err" | tail -n +2 | tr -d '\r'
}
# row LABEL - from CSV rows on stdin, "total,comp,data,sync,ctrl,loss,unid"
# of the first row with that label, rounded to 6 decimals.
row() {
    awk -F, -v lab="$1" '$4 == lab { printf "%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n",
        $5, $6, $7, $8, $9, $10, $11; exit }' | norm
}
# col LABEL N - column N (5 total .. 11 unidentified) of the first row with the label.
col() { awk -F, -v lab="$1" -v c="$2" '$4 == lab { printf "%.9f\n", $c; exit }'; }
# budget DB - wall x T summed over the ranks.
budget() { q "$1" "SELECT SUM(wall * MAX(threads, omp_threads, 1)) FROM rank"; }
# stored_vs_defined NAME DB - --overheads from the stored tables and from
# their definition (a copy without them): the same rows within 1e-9.
stored_vs_defined() {
    local name=$1 db=$2
    expect_eq "$name: hprof-merge stored ovh_x and ovh_rank" "1,1" \
        "$(q "$db" "SELECT (SELECT COUNT(*) > 0 FROM ovh_x), (SELECT COUNT(*) > 0 FROM ovh_rank)")"
    cp "$db" "$tmp/defined.db"
    # an older database (no run key 'objects' listing what the merge made)
    sqlite3 "$tmp/defined.db" "DROP TABLE ovh_x; DROP TABLE ovh_rank; DELETE FROM run WHERE key = 'objects'"
    ov "$db" >"$tmp/stored.csv"
    ov "$tmp/defined.db" >"$tmp/defined.csv"
    expect_eq "$name: --overheads stored = defined (rows, labels, numbers within 1e-9 relative)" \
        "same $(wc -l <"$tmp/defined.csv") rows" \
        "$(paste -d '|' "$tmp/stored.csv" "$tmp/defined.csv" | awk -F'|' -v n="$(wc -l <"$tmp/defined.csv")" '
            function abs(x) { return x < 0 ? -x : x }
            { ns = split($1, a, ","); nd = split($2, b, ",")
              if (ns != nd || a[1] != b[1] || a[2] != b[2] || a[3] != b[3] || a[4] != b[4]) { bad = bad " row " NR; next }
              for (i = 5; i <= ns; i++) {
                  m = abs(a[i]) > abs(b[i]) ? abs(a[i]) : abs(b[i])
                  if (abs(a[i] - b[i]) > 1e-9 * m + 1e-12) { bad = bad " row " NR " col " i ": " a[i] " vs " b[i] }
              } }
            END { if (bad != "" || NR == 0) print "differ:" bad; else print "same " n " rows" }')"
}
# the checks every profile gets: classes add up, none negative, stored = defined
sums_and_signs() {
    local name=$1 db=$2 csv
    stored_vs_defined "$name" "$db"
    csv=$(ov "$db")
    local want got
    want=$(budget "$db")
    got=$(printf '%s\n' "$csv" | awk -F, '$2 == "" { print $6 + $7 + $8 + $9 + $10 + $11; exit }')
    expect_cmp "$name: the root's classes add up to wall x ranks x threads ($want)" within "$want" \
        "$got" "$(awk -v w="$want" 'BEGIN { print w * 0.01 }')"
    expect_eq "$name: no class below 0" 0 \
        "$(printf '%s\n' "$csv" | awk -F, '{ for (i = 5; i <= 11; i++) if ($i < 0) n++ } END { print n + 0 }')"
}

# ---------------------------------------------------------------- the known profile
"$MKPROFILE" "$tmp/p.hpf"
"$QUERY" "$tmp/p.hpf" --sql "SELECT 1" >/dev/null 2>&1
db=$tmp/p.db
check_profile mkprofile "$db"
ov "$db" >"$tmp/p.csv"
expect_eq "mkprofile: root 44 = 20.25 comp + 3.125 data + 2.125 sync + 0 ctrl + 18.5 loss + 0 unid" \
    "44,20.25,3.125,2.125,0,18.5,0" "$(row root <"$tmp/p.csv")"
expect_eq "mkprofile: main (loss 10 + 12 x 8.5/12)" "40.5,16.75,3.125,2.125,0,18.5,0" \
    "$(row main <"$tmp/p.csv")"
expect_eq "mkprofile: loop@app.c:20 (loss 8 + 9 x 8.5/12)" "31.375,13.5,2.25,1.25,0,14.375,0" \
    "$(row loop@app.c:20 <"$tmp/p.csv")"
expect_eq "mkprofile: MPI_Send@app.c:42 (time - sync = data)" "3,0,1,0.5,0,1.5,0" \
    "$(row MPI_Send@app.c:42 <"$tmp/p.csv")"
expect_eq "mkprofile: compute on rank 1's second thread (no loss)" "3.5,3.5,0,0,0,0,0" \
    "$(awk -F, '$4 == "compute" && $3 == 1' "$tmp/p.csv" | row compute)"
expect_eq "mkprofile: 9 rows, preorder" "1,2,3,4,5,7,6,8,9" "$(cut -d, -f1 "$tmp/p.csv" | paste -sd,)"
sums_and_signs mkprofile "$db"
expect_eq "mkprofile: --raw (the definition over the raw times, equal here: no event costs) = stored" \
    "$(ov "$db")" "$("$QUERY" "$db" --raw --format csv --top 0 --overheads 2>&1 | tail -n +2 | tr -d '\r')"
expect_eq "mkprofile: --overheads '#3' lists loop@app.c:20's subtree" "3,4,5,7" \
    "$(ov "$db" '#3' | cut -d, -f1 | paste -sd,)"
expect_eq "mkprofile: --overheads=loop@app.c:20 (the label) the same" "3,4,5,7" \
    "$(ov "$db" loop@app.c:20 | cut -d, -f1 | paste -sd,)"
# the node syntax of --root (nodepath.h): a path of labels from the root,
# with or without the leading '/', and the root's own child by its label
expect_eq "mkprofile: --overheads main/loop@app.c:20 (a path, as --root takes it) the same" "3,4,5,7" \
    "$(ov "$db" main/loop@app.c:20 | cut -d, -f1 | paste -sd,)"
expect_eq "mkprofile: --overheads /main/loop@app.c:20 the same" "3,4,5,7" \
    "$(ov "$db" /main/loop@app.c:20 | cut -d, -f1 | paste -sd,)"
expect_eq "mkprofile: --overheads=/ lists the whole tree" "1,2,3,4,5,7,6,8,9" \
    "$("$QUERY" "$db" --format csv --overheads=/ | tail -n +2 | cut -d, -f1 | paste -sd,)"
expect_eq "mkprofile: --overheads compute: the root's child compute, as --root compute" \
    "9 9" "$(ov "$db" compute | cut -d, -f1 | paste -sd,) $("$QUERY" "$db" --root compute --format csv | sed -n 2p | cut -d, -f1)"
expect_eq "mkprofile: --depth 1 lists the root, main and compute" "1,2,9" \
    "$(ov "$db" --depth 1 | cut -d, -f1 | paste -sd,)"
expect_eq "mkprofile: --depth 0 below '#3' lists only it" "3" \
    "$(ov "$db" '#3' --depth 0 | cut -d, -f1 | paste -sd,)"
expect_eq "mkprofile: a subtree's rows are the tree's" "$(grep -E '^(3|4|5|7),' "$tmp/p.csv")" \
    "$(ov "$db" '#3')"
"$QUERY" "$db" --overheads >"$tmp/p.txt" 2>&1 || true
expect_eq "mkprofile: text shows % of the node's total (root: 46.0 comp, 42.0 loss)" \
    "root,44.000000,46.0,7.1,4.8,0.0,42.0,0.0" \
    "$(awk '$2 == "root" { print $2 "," $3 "," $4 "," $5 "," $6 "," $7 "," $8 "," $9 }' "$tmp/p.txt")"
expect_eq "mkprofile: JSON has the six classes of the root" "44,18.5" \
    "$("$QUERY" "$db" --overheads --format json | python3 -c 'import json, sys
r = json.load(sys.stdin)[0]
print("%g,%g" % (r["computation"] + r["data_movement"] + r["synchronization"] + r["control"]
                 + r["loss"] + r["unidentified"], r["loss"]))' 2>&1)"

cp "$db" "$tmp/wall11.db"
sqlite3 "$tmp/wall11.db" "UPDATE rank SET wall = 11 WHERE rank = 0"
"$MERGE" --aggregate "$tmp/wall11.db" >/dev/null
stored_vs_defined "mkprofile, wall 11" "$tmp/wall11.db"
expect_eq "mkprofile, rank 0's wall 11: loss 19.5, unidentified 1, total 46" \
    "46,20.25,3.125,2.125,0,19.5,1" "$(ov "$tmp/wall11.db" | row root)"
cp "$db" "$tmp/omp1.db"
sqlite3 "$tmp/omp1.db" "UPDATE rank SET omp_threads = 1"
"$MERGE" --aggregate "$tmp/omp1.db" >/dev/null
stored_vs_defined "mkprofile, omp_threads 1" "$tmp/omp1.db"
expect_eq "mkprofile, omp_threads 1: T = threads, root 34, loss 8.5" \
    "34,20.25,3.125,2.125,0,8.5,0" "$(ov "$tmp/omp1.db" | row root)"

# a communication that moved no bytes (a barrier, zero-byte messages) is
# synchronization as a whole: MPI_Allreduce@app.c:50 (0.5 s on rank 0,
# 1 s on rank 1) with its bytes zeroed has 1.5 s of it and no data movement
cp "$db" "$tmp/nobytes.db"
sqlite3 "$tmp/nobytes.db" "UPDATE comm SET bytes_sent = 0, bytes_recv = 0 WHERE node IN
    (SELECT n.id FROM node n JOIN site s ON s.id = n.site WHERE s.label = 'MPI_Allreduce@app.c:50')"
"$MERGE" --aggregate "$tmp/nobytes.db" >/dev/null
expect_eq "mkprofile, Allreduce without bytes: data 0, synchronization 1.5" "0,1.5" \
    "$(ov "$tmp/nobytes.db" > "$tmp/nobytes.csv"; echo "$(col MPI_Allreduce@app.c:50 7 < "$tmp/nobytes.csv" | norm),$(col MPI_Allreduce@app.c:50 8 < "$tmp/nobytes.csv" | norm)")"

# bad input: one line, exit status 1
rc=0
"$QUERY" "$db" --overheads nosuch.c:99 >"$tmp/bad.out" 2>"$tmp/bad.err" || rc=$?
expect_eq "unknown PATH: exit 1, one line naming it, nothing on stdout" "1,1,1,0" \
    "$rc,$(wc -l <"$tmp/bad.err"),$(grep -c "nosuch.c:99" "$tmp/bad.err" || true),$(wc -c <"$tmp/bad.out")"
rc=0
"$QUERY" "$db" --overheads '#999' >"$tmp/bad.out" 2>"$tmp/bad.err" || rc=$?
expect_eq "unknown node id: exit 1, one line" "1,1" "$rc,$(wc -l <"$tmp/bad.err")"

# ---------------------------------------------------------------- real runs
late_checks() {
    local Lr
    Lr=$(line_of "$S/late_sender.c" late-recv)
    hp_run late 2 "$T/late_sender"
    ran_ok late || return 0
    local ldb=${PROFILE%.hpf}.db
    "$QUERY" "$PROFILE" --sql "SELECT 1" >/dev/null 2>&1 || true
    ov "$ldb" >"$tmp/late.csv"
    expect_sync "late_sender: the late MPI_Recv's synchronization and data movement" "$tmp/late.err" late_sender 0 1 \
        "$(col "MPI_Recv@late_sender.c:$Lr" 8 <"$tmp/late.csv")" "$(col "MPI_Recv@late_sender.c:$Lr" 7 <"$tmp/late.csv")"
    expect_cmp "late_sender: rank 1's 200 ms sleep (outside any node) is unidentified" ge 0.19 \
        "$(awk -F, '$2 == "" { print $11; exit }' "$tmp/late.csv")"
    expect_eq "late_sender: MPI_Init is all control" "1" \
        "$(awk -F, '$4 ~ /^MPI_Init@/ { print ($5 > 0 && $9 == $5) ? 1 : 0; exit }' "$tmp/late.csv")"
    sums_and_signs late_sender "$ldb"
}

sp_checks() {
    rm -f "$tmp/sp.truth"
    hp_run sp 1 -x OMP_NUM_THREADS=4 -x HPROF_TEST_TRUTH="$tmp/sp.truth" "$tmp/sp"
    ran_ok sp || return 0
    local sdb=${PROFILE%.hpf}.db alone wall work0 got
    "$QUERY" "$PROFILE" --sql "SELECT 1" >/dev/null 2>&1 || true
    alone=$(truth_by "$tmp/sp.truth" alone 0)
    work0=$(truth_by "$tmp/sp.truth" work 0 | cut -d' ' -f1)
    wall=$(q "$sdb" "SELECT wall FROM rank WHERE rank = 0")
    got=$(ov "$sdb" | awk -F, '$2 == "" { print $10 * 1000; exit }')
    expect_truth_range "serial_part (4 threads): loss (ms) between 3 x the master's time alone and 3 x (wall - its work in the region), by its own clock" \
        "$(awk -v a="${alone% *}" -v w="$wall" -v k="$work0" 'BEGIN { printf "%.3f %.3f 6\n", 3 * a, 3 * (w * 1000 - k) }')" "$got"
    expect_eq "serial_part: 4 threads" "serial_part: 4 threads" "$(cat "$tmp/sp.out")"
    sums_and_signs serial_part "$sdb"
}

crit_checks() {
    rm -f "$tmp/crit.truth"
    hp_run crit 1 -x OMP_NUM_THREADS=2 -x HPROF_TEST_TRUTH="$tmp/crit.truth" "$tmp/crit"
    ran_ok crit || return 0
    local cdb=${PROFILE%.hpf}.db hold c q
    "$QUERY" "$PROFILE" --sql "SELECT 1" >/dev/null 2>&1 || true
    hold=$(define_of "$srcdir/tests/omp/src/critical.c" HOLD_MS)
    ov "$cdb" >"$tmp/crit.csv"
    for c in "critical crit $(line_of "$srcdir/tests/omp/src/critical.c" crit-critical)" \
        "lock lock $(line_of "$srcdir/tests/omp/src/critical.c" crit-lock)"; do
        set -- $c
        expect_truth_watched "critical (2 threads): the $1 wait is synchronization, the waits the program timed" \
            le "$(truth_total "$tmp/crit.truth" "$2_wait")" "$(col "$1 wait@critical.c:$3" 8 <"$tmp/crit.csv" | awk '{ print $1 * 1000 }')"
        expect_truth_watched "critical: the $1 hold is computation, the holds the program timed" \
            ge "$(truth_total "$tmp/crit.truth" "$2_hold")" "$(col "$1@critical.c:$3" 6 <"$tmp/crit.csv" | awk '{ print $1 * 1000 }')"
        expect_cmp "critical: the $1 hold is computation, >= 2 x HOLD_MS" ge \
            "$(awk -v h="$hold" 'BEGIN { print 2 * h / 1000 }')" "$(col "$1@critical.c:$3" 6 <"$tmp/crit.csv")"
    done
    sums_and_signs critical "$cdb"
}

jac_checks() {
    hp_run jac 2 -x OMP_NUM_THREADS=2 "$builddir/examples/jacobi" 256 200
    ran_ok jac || return 0
    local jdb=${PROFILE%.hpf}.db Lp summary got
    "$QUERY" "$PROFILE" --sql "SELECT 1" >/dev/null 2>&1 || true
    Lp=$(q "$jdb" "SELECT MIN(line) FROM site WHERE kind = 'omp' AND name = 'parallel'")
    ov "$jdb" >"$tmp/jac.csv"
    expect_eq "jacobi: the implicit barrier is all synchronization" 1 \
        "$(awk -F, -v l="implicit barrier@jacobi.c:$Lp" '$4 == l { print ($5 > 0 && $8 == $5) ? 1 : 0; exit }' "$tmp/jac.csv")"
    expect_eq "jacobi: the parallel region has no loss of parallelism" 0 \
        "$(col "parallel@jacobi.c:$Lp" 10 <"$tmp/jac.csv" | awk '{ print $1 + 0 }')"
    expect_eq "jacobi: fork and join are control besides their loss" "1,1" \
        "$(for k in fork join; do awk -F, -v l="$k@jacobi.c:$Lp" '$4 == l {
            d = $5 - $9 - $10; print ($9 > 0 && d < 1e-9 && d > -1e-9) ? 1 : 0; exit }' "$tmp/jac.csv"; done | paste -sd,)"
    summary=$(sed -n 's/.*loss of parallelism .*: \([0-9.]*\) thread-s).*/\1/p' "$tmp/jac.err")
    got=$(awk -F, '$2 == "" { print $10; exit }' "$tmp/jac.csv")
    expect_cmp "jacobi: the root's loss is at most the summary's ($summary thread-s)" le \
        "$(awk -v s="$summary" 'BEGIN { print s + 0.0001 }')" "$got"
    expect_cmp "jacobi: and at least 90% of it" ge "$(awk -v s="$summary" 'BEGIN { print s * 0.9 }')" "$got"
    sums_and_signs jacobi "$jdb"
}

if ! command -v "$MPIRUN" >/dev/null || [ ! -x "$T/late_sender" ] ||
    [ ! -x "$builddir/examples/jacobi" ]; then
    skipped "real runs" "no $MPIRUN, $T/late_sender or examples/jacobi"
else
    attempts late_sender late_checks
    if OMPI_CC=gcc "$MPICC" -fopenmp -g -O2 "$srcdir/tests/omp/src/serial_part.c" -o "$tmp/sp" \
        -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" 2>"$tmp/sp.cc"; then
        attempts serial_part sp_checks
    else
        notok "serial_part builds" "$(head -c 300 "$tmp/sp.cc" | oneline)"
    fi
    if OMPI_CC=gcc "$MPICC" -fopenmp -g -O2 "$srcdir/tests/omp/src/critical.c" -o "$tmp/crit" \
        -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" 2>"$tmp/crit.cc"; then
        attempts critical crit_checks
    else
        notok "critical builds" "$(head -c 300 "$tmp/crit.cc" | oneline)"
    fi
    attempts jacobi jac_checks
fi

[ "$skip" = 0 ] || echo "# $skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
