#!/bin/bash
# tests/rma/run.sh - integration tests of hprof's one-sided communication
# (MPI RMA) records: runs tests/rma/{active,passive,put_latency} under
# mpirun with the library and checks each program's ground truth (stated
# in its header comment) per (site line, rank, target peer) through
# `hprof-query DB --sql ... --format csv`: transfers and bytes of every
# Put/Get/Accumulate/atomic and request-based call, at world ranks also for
# a window on a reversed sub-communicator; the synchronization delay
# records of fences, PSCW, locks and flushes (a 100 ms late rank at a
# fence); node counts of every site; stdout identity without hprof; and
# the finalize summary of an osu_put_latency-like loop.
#
# usage: tests/rma/run.sh [BUILDDIR]   (default: the current directory, as
#        for `make check`).  Env: MPICC, MPIRUN, HPROF_KEEP_TMP=1.
# Prints "ok - NAME" / "not ok - NAME: expected X got Y" per check and a last
# line "N passed, M failed"; exits 1 if anything failed.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
# One timing-sensitive MPI test at a time, even under make -j2 check.
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
T=$builddir/tests/rma          # in-tree test programs (linked with libhprof.la)
S=$srcdir/tests/rma            # their sources

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
. "$srcdir/tests/truth.sh"
test_tmpdir rma

programs_ready active passive put_latency

# site DB RANK TAG MPI_NAME CALLS [PEER,COUNT,SENT,RECV]... - the site
# marked TAG in $src is counted CALLS times on RANK and has exactly the
# given communication records (none if no record is given).
site() {
    local db=$1 r=$2 tag=$3 name=$4 calls=$5 line exp
    shift 5
    line=$(line_of "$S/$src" "$tag")
    exp=$(printf '%s\n' "$@")
    expect_eq "$src: rank $r $tag calls" "$calls" "$(node_count "$db" "$r" "$name" "$src" "$line")"
    expect_eq "$src: rank $r $tag records (peer,count,sent,recv)" "$exp" \
        "$(comm_rows "$db" "$r" "$name" "$src" "$line" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
}

# Every record of a synchronization call is sync time only, and every
# record of a one-sided transfer is transmission only.
SYNC_CALLS="'MPI_Win_fence','MPI_Win_start','MPI_Win_complete','MPI_Win_wait','MPI_Win_lock',
    'MPI_Win_lock_all','MPI_Win_unlock','MPI_Win_unlock_all','MPI_Win_flush','MPI_Win_flush_all',
    'MPI_Win_flush_local','MPI_Win_flush_local_all'"
RMA_CALLS="'MPI_Put','MPI_Get','MPI_Accumulate','MPI_Get_accumulate','MPI_Fetch_and_op',
    'MPI_Compare_and_swap','MPI_Rput','MPI_Rget','MPI_Raccumulate','MPI_Rget_accumulate'"
COMMJOIN="FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site"
time_kinds() {
    expect_eq "$src: sync records have no bytes, no transmission and sync > 0" 0 \
        "$(q "$1" "SELECT count(*) $COMMJOIN WHERE s.name IN ($SYNC_CALLS)
                   AND (c.bytes_sent <> 0 OR c.bytes_recv <> 0 OR c.tran <> 0 OR c.sync <= 0)")"
    expect_eq "$src: one-sided transfer records have no sync and tran > 0" 0 \
        "$(q "$1" "SELECT count(*) $COMMJOIN WHERE s.name IN ($RMA_CALLS) AND (c.sync <> 0 OR c.tran <= 0)")"
}

# ---------------------------------------------------------------- a. active target
src=active.c
P=4
NEPOCH=$(define_of "$S/$src" NEPOCH)
NPSCW=$(define_of "$S/$src" NPSCW)
NSUB=$(define_of "$S/$src" NSUB)

# The late rank: every rank's sync at a-fence-late is at least its wait
# for the last rank's arrival (rank 1's, 100 ms late) and at most its time
# in the fence, by the ranks' own clock (stderr).
late_fence_checks() {
    local db=$1 r line
    line=$(line_of "$S/$src" a-fence-late)
    for r in 0 1 2 3; do
        expect_sync "$src: rank $r at a-fence-late" "$tmp/active.err" "active: late fence" $r last \
            "$(comm_sum "$db" $r MPI_Win_fence $src "$line" 'sum(c.sync)')"
    done
}

active_run() {
    hp_run active $P "$T/active"
    ran_ok active || return 0
    late_fence_checks "$PROFILE"
}
attempts active active_run
if [ -s "$PROFILE" ]; then
    db=$PROFILE
    for r in $(seq 0 $((P - 1))); do
        next=$(((r + 1) % P)) prev=$(((r + P - 1) % P)) far=$(((r + 2) % P))
        site "$db" $r a-create MPI_Win_create 1
        site "$db" $r a-fence-open MPI_Win_fence 1 "-1,1,0,0"
        site "$db" $r a-put MPI_Put "$NEPOCH" "$next,$NEPOCH,$((NEPOCH * 8 * (r + 1))),0"
        site "$db" $r a-get MPI_Get "$NEPOCH" "$far,$NEPOCH,0,$((NEPOCH * (12 * r + 16)))"
        site "$db" $r a-fence MPI_Win_fence "$NEPOCH" "-1,$NEPOCH,0,0"
        site "$db" $r a-put-null MPI_Put 1
        site "$db" $r a-fence-late MPI_Win_fence 1 "-1,1,0,0"
        site "$db" $r a-post MPI_Win_post "$NPSCW"
        site "$db" $r a-start MPI_Win_start "$NPSCW" "-1,$NPSCW,0,0"
        site "$db" $r a-pscw-put MPI_Put "$NPSCW" "$next,$NPSCW,$((NPSCW * 20)),0"
        site "$db" $r a-complete MPI_Win_complete "$NPSCW" "-1,$NPSCW,0,0"
        site "$db" $r a-wait MPI_Win_wait "$NPSCW" "-1,$NPSCW,0,0"
        site "$db" $r a-post2 MPI_Win_post 1
        site "$db" $r a-start2 MPI_Win_start 1 "-1,1,0,0"
        site "$db" $r a-pscw-put2 MPI_Put 1 "$next,1,4,0"
        site "$db" $r a-complete2 MPI_Win_complete 1 "-1,1,0,0"
        Lt=$(line_of "$S/$src" a-test)
        expect_cmp "$src: rank $r a-test calls" ge 1 "$(node_count "$db" $r MPI_Win_test $src "$Lt")"
        expect_eq "$src: rank $r a-test records (time only)" 0 "$(comm_sum "$db" $r MPI_Win_test $src "$Lt" 'count(*)')"
        # D: the reversed communicator's sub rank s+1 is world rank prev.
        site "$db" $r s-fence-open MPI_Win_fence 1 "-1,1,0,0"
        site "$db" $r s-put MPI_Put "$NSUB" "$prev,$NSUB,$((NSUB * 24)),0"
        site "$db" $r s-fence MPI_Win_fence "$NSUB" "-1,$NSUB,0,0"
        site "$db" $r s-fence-end MPI_Win_fence 1 "-1,1,0,0"
        site "$db" $r s-lock MPI_Win_lock 1 "$prev,1,0,0"
        site "$db" $r s-get MPI_Get 1 "$prev,1,0,8"
        site "$db" $r s-flush MPI_Win_flush 1 "$prev,1,0,0"
        site "$db" $r s-unlock MPI_Win_unlock 1 "$prev,1,0,0"
        site "$db" $r s-free MPI_Win_free 1
        site "$db" $r e-create MPI_Win_create 1
        site "$db" $r e-fence-open MPI_Win_fence 1 "-1,1,0,0"
        site "$db" $r e-put MPI_Put 1 "$next,1,4,0"
        site "$db" $r e-fence MPI_Win_fence 1 "-1,1,0,0"
        site "$db" $r e-free MPI_Win_free 1
        site "$db" $r a-free MPI_Win_free 1
        expect_eq "$src: rank $r two MPI_Win_create counted (V was created while not collecting)" 2 \
            "$(q "$db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                        WHERE st.rank = $r AND s.name = 'MPI_Win_create'")"
    done
    time_kinds "$db"
    plain_run active.plain $P "$tmp/plain/active"
    same_stdout "$src: same stdout with and without hprof" "$tmp/active.plain.out" "$tmp/active.out"
fi

# ---------------------------------------------------------------- b. passive target
src=passive.c
NLOCK=$(define_of "$S/$src" NLOCK)
NREQ=$(define_of "$S/$src" NREQ)
hp_run passive $P "$T/passive"
if ran_ok passive; then
    db=$PROFILE
    for r in $(seq 0 $((P - 1))); do
        next=$(((r + 1) % P)) far=$(((r + 2) % P)) prev=$(((r + 3) % P))
        site "$db" $r p-allocate MPI_Win_allocate 1
        site "$db" $r p-lock MPI_Win_lock "$NLOCK" "$next,$NLOCK,0,0"
        site "$db" $r p-put MPI_Put "$NLOCK" "$next,$NLOCK,$((NLOCK * 12 * (r + 1))),0"
        site "$db" $r p-flush MPI_Win_flush "$NLOCK" "$next,$NLOCK,0,0"
        site "$db" $r p-acc MPI_Accumulate "$NLOCK" "$next,$NLOCK,$((NLOCK * 4 * (r + 2))),0"
        site "$db" $r p-unlock MPI_Win_unlock "$NLOCK" "$next,$NLOCK,0,0"
        site "$db" $r p-lock-all MPI_Win_lock_all 1 "-1,1,0,0"
        site "$db" $r p-getacc MPI_Get_accumulate 1 "$far,1,$((4 * (r + 1))),$((4 * (r + 1)))"
        site "$db" $r p-getacc-noop MPI_Get_accumulate 1 "$far,1,0,$((4 * (r + 2)))"
        site "$db" $r p-fop MPI_Fetch_and_op 1 "$prev,1,4,4"
        site "$db" $r p-fop-noop MPI_Fetch_and_op 1 "$prev,1,0,4"
        site "$db" $r p-cas MPI_Compare_and_swap 1 "$prev,1,8,4"
        site "$db" $r p-flush-all MPI_Win_flush_all 1 "-1,1,0,0"
        site "$db" $r p-rput MPI_Rput "$NREQ" "$next,$NREQ,$((NREQ * 28)),0"
        site "$db" $r p-wait MPI_Wait "$NREQ"
        site "$db" $r p-rget MPI_Rget "$NREQ" "$far,$NREQ,0,$((NREQ * 20))"
        site "$db" $r p-racc MPI_Raccumulate "$NREQ" "$prev,$NREQ,$((NREQ * 12)),0"
        site "$db" $r p-rgetacc MPI_Rget_accumulate "$NREQ" "$next,$NREQ,$((NREQ * 8)),$((NREQ * 8))"
        site "$db" $r p-waitall MPI_Waitall "$NREQ"
        site "$db" $r p-win-sync MPI_Win_sync 1
        site "$db" $r p-flush-local MPI_Win_flush_local 1 "$next,1,0,0"
        site "$db" $r p-flush-local-all MPI_Win_flush_local_all 1 "-1,1,0,0"
        site "$db" $r p-unlock-all MPI_Win_unlock_all 1 "-1,1,0,0"
        site "$db" $r p-shared MPI_Win_allocate_shared 1
        site "$db" $r p-shared-query MPI_Win_shared_query 1
        site "$db" $r p-free-shared MPI_Win_free 1
        site "$db" $r p-dynamic MPI_Win_create_dynamic 1
        site "$db" $r p-attach MPI_Win_attach 1
        site "$db" $r p-dyn-lock MPI_Win_lock 1 "$next,1,0,0"
        site "$db" $r p-dyn-put MPI_Put 1 "$next,1,16,0"
        site "$db" $r p-dyn-unlock MPI_Win_unlock 1 "$next,1,0,0"
        site "$db" $r p-detach MPI_Win_detach 1
        site "$db" $r p-free-dynamic MPI_Win_free 1
        site "$db" $r p-free MPI_Win_free 1
    done
    time_kinds "$db"
    plain_run passive.plain $P "$tmp/plain/passive"
    same_stdout "$src: same stdout with and without hprof" "$tmp/passive.plain.out" "$tmp/passive.out"
fi

# ---------------------------------------------------------------- c. put latency loop
src=put_latency.c
NITER=$(define_of "$S/$src" NITER)
hp_run lat 2 "$T/put_latency"
if ran_ok lat; then
    db=$PROFILE
    site "$db" 0 l-lock MPI_Win_lock 1 "1,1,0,0"
    site "$db" 0 l-put MPI_Put "$NITER" "1,$NITER,$((NITER * 8)),0"
    site "$db" 0 l-flush MPI_Win_flush "$NITER" "1,$NITER,0,0"
    site "$db" 0 l-unlock MPI_Win_unlock 1 "1,1,0,0"
    time_kinds "$db"
    # The summary's communication sites (the block before the destinations).
    sites=$(sed -n '/top communication sites by time/,/top destinations/p' "$tmp/lat.err")
    for fl in MPI_Put:l-put MPI_Win_flush:l-flush; do
        fn=${fl%%:*}
        line=$(line_of "$S/$src" "${fl#*:}")
        expect_eq "$src: summary lists $fn among communication sites with $NITER calls" "$NITER" \
            "$(printf '%s\n' "$sites" | awk -v site="$fn@$src:$line" '$NF == "(main)" && $(NF-1) == site { print $2 }')"
    done
    expect_eq "$src: summary's destinations of MPI_Put" "to 1: $NITER x, 7.8 KiB" \
        "$(grep -o "MPI_Put@$src:[0-9]* (main):  to 1: [0-9]* x, [0-9.]* KiB" "$tmp/lat.err" | sed 's/.*:  //')"
    plain_run lat.plain 2 "$tmp/plain/put_latency"
    same_stdout "$src: same stdout with and without hprof" "$tmp/lat.plain.out" "$tmp/lat.out"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
