#!/bin/bash
# tests/vtime/run.sh - virtual time (HPROF_VIRTUAL_TIME=1,
# docs/virtual-time.md) against ground truth: tests/vtime/order.c, whose
# header states the order in which its wildcard receives match two
# senders, built plain and in tier 2 (hprof-cc --procedures=all, every
# call timed: HPROF_THROTTLE_CALLS=0), per mode (twice, loop, sendrecv,
# probe, mprobe, waitany, testany, waitsome, mixed, persistent):
#   - the plain build prints the ground-truth order;
#   - the instrumented build without the mode prints another in one of
#     up to RUNS runs (the monitoring reverses the senders: without that
#     the test shows nothing);
#   - with the mode it prints the ground truth in each of RUNS = 3 runs
#     (twice, loop; 2 runs of the others, which share their mechanism)
#     without a warning (a message without its header, the time bound),
#     the summary says the mode was on and every rank's RANK flags have
#     HP_RANKF_VIRTUAL_TIME (32); waitany's deferred receives are recorded
#     at their MPI_Irecv line (peer, count, bytes); rank 0's recorded
#     wait in "twice" is the virtual one (about SPIN_MS);
# "blocked" (rank 1 waits in MPI_Wait for rank 0, which receives with
# MPI_ANY_SOURCE first) decides without its time bound's warning, and so
# do "barrier", "allreduce" and "split" (rank 1 in that collective or
# communicator constructor instead), whose
# receive completes within 1 s of the send (the run's own times);
# testany, waitsome and mixed (Waitany over a wildcard and a
# specific-source receive) as the first modes; tests/vtime/order.f90, the
# twice case from Fortran, likewise;
# and programs without wildcard receives (tests/mpi/ring_alltoall.c:
# blocking, rendezvous-sized; tests/mpi/nonblocking.c: Isend/Irecv and
# Waitall) print the same stdout and record the same communication
# (count, bytes per rank and peer) with the mode on as off.  Every
# profile passes hprof-query --check.
#
# usage: tests/vtime/run.sh [BUILDDIR]   (default: the current directory)
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
HPCC=$builddir/instrument/hprof-cc
LIBDIR=$builddir/pmpi/.libs
S=$srcdir/tests/vtime

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir vtime

for f in "$QUERY" "$HPCC" "$LIBDIR/libhprof.so"; do
    if [ ! -e "$f" ]; then
        skipped "virtual time" "$f not built"
        echo "$pass passed, $fail failed"
        exit 0
    fi
done
for c in "$MPICC" "$MPIRUN"; do
    if ! command -v "$c" >/dev/null; then
        skipped "virtual time" "no $c"
        echo "$pass passed, $fail failed"
        exit 0
    fi
done
export HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset HPROF_FILTER HPROF_THROTTLE_NS HPROF_COMPENSATE HPROF_SUMMARY HPROF_TIER HPROF_VIRTUAL_TIME

"$MPICC" -O2 -o "$tmp/plain" "$S/order.c"
"$HPCC" --procedures=all "$MPICC" -O2 -o "$tmp/inst" "$S/order.c"
HPLINK=(-L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR")
for p in ring_alltoall nonblocking; do
    "$MPICC" -O1 -o "$tmp/$p" "$srcdir/tests/mpi/$p.c" "${HPLINK[@]}"
done

RUNS=3
# vt_run NAME VT NP CMD... - hp_run with HPROF_VIRTUAL_TIME=VT, every call timed.
vt_run() {
    local name=$1 vt=$2 np=$3
    shift 3
    HPROF_VIRTUAL_TIME=$vt HPROF_THROTTLE_CALLS=0 \
        hp_run "$name" "$np" -x HPROF_VIRTUAL_TIME -x HPROF_THROTTLE_CALLS "$@"
}

# order NAME - the order line of a run's stdout.
order() { grep '^order:' "$tmp/$1.out" || echo "no order line (exit $RC)"; }

for case in "twice:1 2" "loop:1 1 1 2 2 2" "sendrecv:1 2" "probe:1 2" "mprobe:1 2" "waitany:1 2" \
    "testany:1 2" "waitsome:1 2" "mixed:1 2 2" "persistent:1 2"; do
    mode=${case%%:*} truth="order: ${case#*:}"
    plain_run "plain-$mode" 3 "$tmp/plain" "$mode"
    expect_eq "$mode: plain order (the ground truth)" "$truth" "$(order "plain-$mode")"
    # The real-time order of an oversubscribed run depends on which rank
    # the kernel runs: one reversal in up to RUNS runs shows the change.
    for i in $(seq "$RUNS"); do
        vt_run "off-$mode" 0 3 "$tmp/inst" "$mode"
        got=$(order "off-$mode")
        [ "$got" = "$truth" ] || break
    done
    if [ "$got" != "$truth" ]; then ok "$mode: monitoring changes the order ($got)"; else
        notok "$mode: monitoring changes the order" "$RUNS runs as plain: $got (the test cannot fail)"
    fi
    # Each mode's runs share one mechanism: 3 runs of the first two, 2 of the others.
    on_runs=$RUNS
    case $mode in twice | loop) ;; *) on_runs=2 ;; esac
    for i in $(seq "$on_runs"); do
        vt_run "on-$mode-$i" 1 3 "$tmp/inst" "$mode"
        expect_eq "$mode: virtual time restores the order (run $i)" "$truth" "$(order "on-$mode-$i")"
    done
    expect_eq "$mode: summary says so" 1 "$(grep -c '^hprof: virtual time on' "$tmp/on-$mode-1.err" || true)"
    expect_eq "$mode: ranks whose RANK flags say so" 3 \
        "$(q "$PROFILE" "SELECT count(*) FROM rank WHERE flags & 32 = 32")"
    expect_eq "$mode: no message without its header, no time bound (no warning)" 0 \
        "$(cat "$tmp"/on-"$mode"-*.err | grep -c 'virtual time:' || true)"
done
# The waits recorded are the virtual ones: rank 0's two receives of
# "twice" wait, in virtual time, until rank 2's send after its SPIN_MS of
# work (rank 0 starts receiving at once), whatever rank 1's monitoring did.
SPIN_MS=$(define_of "$S/order.c" SPIN_MS)
wait0=$(q "$tmp/on-twice-1.hpf" "SELECT printf('%.4f', sum(c.sync)) FROM comm c
    JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site WHERE c.rank = 0 AND s.name = 'MPI_Recv'")
expect_cmp "twice: rank 0's recorded wait is virtual (about SPIN_MS)" within \
    "$(awk "BEGIN { print $SPIN_MS / 1000 * 0.9 }")" "$wait0" "$(awk "BEGIN { print $SPIN_MS / 1000 * 0.3 }")"

# Deadlock avoidance: rank 1 blocked in MPI_Wait answers rank 0's clock
# requests, so rank 0 decides without its 2 s bound (whose warning says so).
vt_run blocked 1 3 "$tmp/inst" blocked
expect_eq "blocked: the one message rank 0 can get" "order: 2" "$(order blocked)"
expect_eq "blocked: decided without the time bound (no warning)" 0 \
    "$(grep -c 'virtual time:' "$tmp/blocked.err" || true)"

# The same with rank 1 in a collective that needs rank 0 (MPI_Barrier,
# MPI_Allreduce, run as MPI_Ibarrier/MPI_Iallreduce and a loop that
# answers): rank 0's receive completes about when rank 2 sent (the run's
# own times, ms since a common barrier), well within the 2 s bound.
for coll in barrier allreduce split; do
    plain_run "plain-$coll" 3 "$tmp/plain" "$coll"
    expect_eq "$coll: plain order (the ground truth)" "order: 2" "$(order "plain-$coll")"
    vt_run "$coll" 1 3 "$tmp/inst" "$coll"
    expect_eq "$coll: order kept with rank 1 in the collective" "order: 2" "$(order "$coll")"
    expect_eq "$coll: decided without the time bound (no warning)" 0 \
        "$(grep -c 'virtual time:' "$tmp/$coll.err" || true)"
    sent=$(sed -n 's/^sent: //p' "$tmp/$coll.out")
    received=$(sed -n 's/^received: //p' "$tmp/$coll.out")
    expect_cmp "$coll: received within 1 s of the send (the bound is 2 s)" within \
        "${sent:-0}" "${received:-99999}" 1000
    expect_eq "$coll: exit status" 0 "$RC"
done

# The deferred receives are recorded at their MPI_Irecv line, as without the mode.
expect_eq "waitany: rank 0's MPI_Irecv records (peer, count, bytes)" "1,1,4;2,1,4" \
    "$(q "$tmp/on-waitany-2.hpf" "SELECT c.peer, c.count, c.bytes_recv FROM comm c
        JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
        WHERE c.rank = 0 AND s.name = 'MPI_Irecv' ORDER BY c.peer" | oneline)"

# Fortran (tests/vtime/order.f90): MPI_Recv with MPI_ANY_SOURCE through
# the Fortran bindings, every procedure probed by hprof-cc (tier 1's
# hooks, whose costs the mode measures at MPI_Init): the plain order.
MPIF90=${MPIF90:-mpif90}
if command -v "$MPIF90" >/dev/null; then
    (cd "$tmp" && "$MPIF90" -O1 -o "$tmp/fplain" "$S/order.f90" &&
        "$HPCC" --procedures=all "$MPIF90" -O1 -o "$tmp/finst" "$S/order.f90")
    plain_run fplain 3 "$tmp/fplain"
    expect_eq "fortran: plain order (the ground truth)" "order: 1 2" "$(order fplain)"
    for i in $(seq "$RUNS"); do
        vt_run foff 0 3 "$tmp/finst"
        got=$(order foff)
        [ "$got" = "order: 1 2" ] || break
    done
    if [ "$got" != "order: 1 2" ]; then ok "fortran: monitoring changes the order ($got)"; else
        notok "fortran: monitoring changes the order" "$RUNS runs as plain: $got (the test cannot fail)"
    fi
    for i in $(seq "$RUNS"); do
        vt_run "fon-$i" 1 3 "$tmp/finst"
        expect_eq "fortran: virtual time restores the order (run $i)" "order: 1 2" "$(order "fon-$i")"
    done
else
    skipped "virtual time from Fortran" "no $MPIF90"
fi

# Programs without wildcard receives: the same output and records.
comm_of() { q "$1" "SELECT rank, peer, sum(count), sum(bytes_sent), sum(bytes_recv) FROM comm
                    GROUP BY rank, peer ORDER BY rank, peer" | oneline; }
for p in ring_alltoall:4 nonblocking:3; do
    prog=${p%:*} np=${p#*:}
    vt_run "$prog-off" 0 "$np" "$tmp/$prog"
    off_comm=$(comm_of "$PROFILE")
    vt_run "$prog-on" 1 "$np" "$tmp/$prog"
    expect_eq "$prog: exit status with the mode on" 0 "$RC"
    expect_eq "$prog: same stdout with the mode on" "$(oneline <"$tmp/$prog-off.out")" \
        "$(oneline <"$tmp/$prog-on.out")"
    expect_eq "$prog: same communication records with the mode on" "$off_comm" "$(comm_of "$PROFILE")"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
