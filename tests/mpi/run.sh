#!/bin/bash
# tests/mpi/run.sh - MPI integration tests of hprof: runs the programs of
# tests/mpi/ (and examples/jacobi) under mpirun with the library, and checks
# the profile against each program's known ground truth through
# `hprof-query DB --sql ... --format csv`.  Also checks that hprof never
# changes a program's stdout, the two ways of linking (-lhprof after the
# objects, LD_PRELOAD of a plain binary) and the finalize summary / drill-down
# of the demo; the byte accounting of every collective, persistent requests,
# probes and every Wait/Test completion call, MPI_PROC_NULL / zero-byte /
# late-partner edge cases and sub-communicator rank translation; and the
# HPROF_* environment: HPROF_COLL_SYNC, HPROF_MAX_NODES, bad values,
# HPROF_OUTPUT collisions and unwritable paths, HPROF_SUMMARY=off|full.
#
# usage: tests/mpi/run.sh [BUILDDIR]     (default: the current directory,
#        which is what `make check` uses; the sources are found next to this
#        script).  Env: MPICC, MPIRUN, HPROF_KEEP_TMP=1 keeps the temp dir.
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
LIBDIR=$builddir/pmpi/.libs
LIB=$LIBDIR/libhprof.so
T=$builddir/tests/mpi          # in-tree test programs (linked with libhprof.la)
S=$srcdir/tests/mpi            # their sources

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
. "$srcdir/tests/truth.sh"
test_tmpdir mpi

# ---------------------------------------------------------------- prerequisites
for f in "$LIB" "$builddir/examples/jacobi"; do
    if [ ! -e "$f" ]; then
        notok "prerequisites" "missing: $f (build with 'make check' first)"
        echo "$pass passed, $fail failed"
        exit 1
    fi
done
# The test programs and their plain builds (no hprof), for the identity checks.
programs_ready late_sender ring_alltoall nonblocking anysource threads pcontrol collectives \
    persistent probes edge many_sites replace nofinalize
"$MPICC" -g -O2 -fopenmp "$srcdir/examples/jacobi.c" -o "$tmp/plain/jacobi" -lm ||
    notok "plain build of jacobi.c" "$MPICC failed"

# ---------------------------------------------------------------- a. late sender
src=late_sender.c
Lr=$(line_of "$S/$src" late-recv)
Ls=$(line_of "$S/$src" late-send)
hp_run late 2 "$T/late_sender"
if ran_ok late; then
    db=$PROFILE
    expect_eq "late sender: recv count/bytes from peer 1" "1,1,400" \
        "$(comm_rows "$db" 0 MPI_Recv $src "$Lr" 'sum(c.count), sum(c.bytes_recv)')"
    expect_sync "late sender: rank 0's recv" "$tmp/late.err" late_sender 0 1 \
        "$(comm_sum "$db" 0 MPI_Recv $src "$Lr" 'sum(c.sync)')" "$(comm_sum "$db" 0 MPI_Recv $src "$Lr" 'sum(c.tran)')"
    expect_eq "late sender: send count/bytes to peer 0" "0,1,400" \
        "$(comm_rows "$db" 1 MPI_Send $src "$Ls" 'sum(c.count), sum(c.bytes_sent)')"
    plain_run late.plain 2 "$tmp/plain/late_sender"
    same_stdout "late sender: same stdout with and without hprof" "$tmp/late.plain.out" "$tmp/late.out"
fi

# ---------------------------------------------------------------- b. ring + alltoall
src=ring_alltoall.c
P=4
Lse=$(line_of "$S/$src" ring-send-even)
Lso=$(line_of "$S/$src" ring-send-odd)
Lre=$(line_of "$S/$src" ring-recv-even)
Lro=$(line_of "$S/$src" ring-recv-odd)
La=$(line_of "$S/$src" alltoall)
hp_run ring $P "$T/ring_alltoall"
if ran_ok ring; then
    db=$PROFILE
    for r in $(seq 0 $((P - 1))); do
        right=$(((r + 1) % P))
        left=$(((r - 1 + P) % P))
        if [ $((r % 2)) = 0 ]; then Ls=$Lse Lr=$Lre; else Ls=$Lso Lr=$Lro; fi
        expect_eq "ring: rank $r sends 100 x 8000 B to $right" "$right,100,800000" \
            "$(comm_rows "$db" $r MPI_Send $src "$Ls" 'sum(c.count), sum(c.bytes_sent)')"
        expect_eq "ring: rank $r receives 100 x 8000 B from $left" "$left,100,800000" \
            "$(comm_rows "$db" $r MPI_Recv $src "$Lr" 'sum(c.count), sum(c.bytes_recv)')"
        exp=""
        for p in $(seq 0 $((P - 1))); do
            [ $p = $r ] || exp="$exp$p,7,280,280"$'\n'
        done
        expect_eq "alltoall: rank $r per-peer count/bytes" "$exp" \
            "$(comm_rows "$db" $r MPI_Alltoall $src "$La" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)' "AND c.peer >= 0 AND c.peer <> $r")"
        expect_eq "alltoall: rank $r collective record (peer -1) count" "-1,7" \
            "$(comm_rows "$db" $r MPI_Alltoall $src "$La" 'sum(c.count)' "AND c.peer = -1")"
        expect_eq "alltoall: rank $r node count" 7 "$(node_count "$db" $r MPI_Alltoall $src "$La")"
    done
    plain_run ring.plain $P "$tmp/plain/ring_alltoall"
    same_stdout "ring: same stdout with and without hprof" "$tmp/ring.plain.out" "$tmp/ring.out"
fi

# ---------------------------------------------------------------- c. nonblocking
src=nonblocking.c
P=3
N=50
Lir=$(line_of "$S/$src" nb-irecv)
Lis=$(line_of "$S/$src" nb-isend)
Lwr=$(line_of "$S/$src" nb-waitall-recv)
Lws=$(line_of "$S/$src" nb-waitall-send)
hp_run nb $P "$T/nonblocking"
if ran_ok nb; then
    db=$PROFILE
    for r in $(seq 0 $((P - 1))); do
        a=$(((r - 1 + P) % P))
        b=$(((r + 1) % P))
        [ $a -lt $b ] || { t=$a; a=$b; b=$t; }
        bytes=$((N * 256 * 8))
        expect_eq "nonblocking: rank $r Isend line per peer" "$a,$N,$bytes"$'\n'"$b,$N,$bytes" \
            "$(comm_rows "$db" $r MPI_Isend $src "$Lis" 'sum(c.count), sum(c.bytes_sent)')"
        expect_eq "nonblocking: rank $r Irecv line per peer" "$a,$N,$bytes"$'\n'"$b,$N,$bytes" \
            "$(comm_rows "$db" $r MPI_Irecv $src "$Lir" 'sum(c.count), sum(c.bytes_recv)')"
        expect_eq "nonblocking: rank $r Irecv node count" $((2 * N)) "$(node_count "$db" $r MPI_Irecv $src "$Lir")"
        expect_eq "nonblocking: rank $r recv Waitall node count" $N "$(node_count "$db" $r MPI_Waitall $src "$Lwr")"
        expect_eq "nonblocking: rank $r send Waitall node count" $N "$(node_count "$db" $r MPI_Waitall $src "$Lws")"
        expect_eq "nonblocking: rank $r Waitall sites have no comm records" 0 \
            "$(comm_sum "$db" $r MPI_Waitall $src "$Lwr,$Lws" 'count(*)')"
    done
    expect_cmp "nonblocking: rank 0 Irecv line gets the 100 ms wait (tran)" ge 0.09 \
        "$(comm_sum "$db" 0 MPI_Irecv $src "$Lir" 'sum(c.tran)')"
    plain_run nb.plain $P "$tmp/plain/nonblocking"
    same_stdout "nonblocking: same stdout with and without hprof" "$tmp/nb.plain.out" "$tmp/nb.out"
fi

# ---------------------------------------------------------------- d. MPI_ANY_SOURCE
src=anysource.c
L1=$(line_of "$S/$src" any-recv-status)
L2=$(line_of "$S/$src" any-recv-ignore)
Lsend=$(line_of "$S/$src" any-send)
hp_run any 4 "$T/anysource"
if ran_ok any; then
    db=$PROFILE
    expect_eq "anysource: rank 0 records per actual source" "1,3,240"$'\n'"2,3,240"$'\n'"3,3,240" \
        "$(comm_rows "$db" 0 MPI_Recv $src "$L1,$L2" 'sum(c.count), sum(c.bytes_recv)')"
    expect_eq "anysource: line with status has 6 records" 6 "$(comm_sum "$db" 0 MPI_Recv $src "$L1" 'sum(c.count)')"
    expect_eq "anysource: line with MPI_STATUS_IGNORE has 3 records" 3 "$(comm_sum "$db" 0 MPI_Recv $src "$L2" 'sum(c.count)')"
    expect_eq "anysource: node counts 6 and 3" "6;3" \
        "$(node_count "$db" 0 MPI_Recv $src "$L1");$(node_count "$db" 0 MPI_Recv $src "$L2")"
    for s in 1 2 3; do
        expect_eq "anysource: rank $s sends 3 x 80 B to 0" "0,3,240" \
            "$(comm_rows "$db" $s MPI_Send $src "$Lsend" 'sum(c.count), sum(c.bytes_sent)')"
    done
    plain_run any.plain 4 "$tmp/plain/anysource"
    same_stdout "anysource: same stdout with and without hprof" "$tmp/any.plain.out" "$tmp/any.out"
fi

# ---------------------------------------------------------------- e. threads
src=threads.c
Ls=$(line_of "$S/$src" thr-send)
Lr=$(line_of "$S/$src" thr-recv)
hp_run thr 2 "$T/threads"
if [ "$RC" = 77 ] || grep -q 'MPI_THREAD_MULTIPLE not provided' "$tmp/thr.err"; then
    skipped "threads" "MPI_THREAD_MULTIPLE not provided by this MPI"
elif ran_ok thr; then
    db=$PROFILE
    expect_eq "threads: rank 0 send line, 4 threads x 10^4 to peer 1" "1,40000,320000" \
        "$(comm_rows "$db" 0 MPI_Send $src "$Ls" 'sum(c.count), sum(c.bytes_sent)')"
    expect_eq "threads: rank 1 recv line, 4 threads x 10^4 from peer 0" "0,40000,320000" \
        "$(comm_rows "$db" 1 MPI_Recv $src "$Lr" 'sum(c.count), sum(c.bytes_recv)')"
    expect_eq "threads: node counts summed over threads" "40000;40000" \
        "$(node_count "$db" 0 MPI_Send $src "$Ls");$(node_count "$db" 1 MPI_Recv $src "$Lr")"
    expect_cmp "threads: rank.threads >= 4 on every rank" ge 4 "$(q "$db" 'SELECT min(threads) FROM rank')"
    plain_run thr.plain 2 "$tmp/plain/threads"
    same_stdout "threads: same stdout with and without hprof" "$tmp/thr.plain.out" "$tmp/thr.out"
fi

# ---------------------------------------------------------------- f. MPI_Pcontrol
src=pcontrol.c
hp_run pc 2 "$T/pcontrol"
if ran_ok pc; then
    db=$PROFILE
    for part in "A 0 reset by Pcontrol(2)" "B 15 after the reset" "C 0 while off" "D 20 after Pcontrol(1)"; do
        set -- $part
        x=$1 n=$2
        shift 2
        Ls=$(line_of "$S/$src" pc-send-$x)
        Lr=$(line_of "$S/$src" pc-recv-$x)
        expect_eq "pcontrol: line $x send records $n ($*)" "$n" "$(comm_sum "$db" 0 MPI_Send $src "$Ls" 'sum(c.count)')"
        expect_eq "pcontrol: line $x recv records $n ($*)" "$n" "$(comm_sum "$db" 1 MPI_Recv $src "$Lr" 'sum(c.count)')"
        expect_eq "pcontrol: line $x send node count $n ($*)" "$n" "$(node_count "$db" 0 MPI_Send $src "$Ls")"
    done
    plain_run pc.plain 2 "$tmp/plain/pcontrol"
    same_stdout "pcontrol: same stdout with and without hprof" "$tmp/pc.plain.out" "$tmp/pc.out"
fi

# ---------------------------------------------------------------- g+i. jacobi: identity, summary, drill-down
src=jacobi.c
JSRC=$srcdir/examples/$src
JN=256
JI=200
Lsr=$(line_of "$JSRC" HALO-SENDRECV)
Lir=$(line_of "$JSRC" HALO-IRECV)
Lar=$(line_of "$JSRC" RESIDUAL-ALLREDUCE)
Lwa=$(line_of "$JSRC" HALO-WAITALL)
plain_run jac.plain 4 -x OMP_NUM_THREADS=2 "$tmp/plain/jacobi" $JN $JI
[ "$RC" = 0 ] || notok "jacobi (plain) runs" "exit status $RC: $(tail -3 "$tmp/jac.plain.err" | oneline)"
hp_run jac 4 -x OMP_NUM_THREADS=2 "$builddir/examples/jacobi" $JN $JI
if ran_ok jac; then
    db=$PROFILE
    same_stdout "jacobi: same stdout linked with -lhprof as plain" "$tmp/jac.plain.out" "$tmp/jac.out"
    summary=$(grep '^hprof:' "$tmp/jac.err" || true)
    check_summary() {
        if printf '%s\n' "$summary" | grep -Ec -- "$2" >/dev/null; then ok "jacobi summary: $1"; else
            notok "jacobi summary: $1" "expected a line matching /$2/ got: $(printf '%s\n' "$summary" | head -20 | oneline)"
        fi
    }
    check_summary "program name" 'jacobi'
    check_summary "4 ranks" '4 ranks'
    check_summary "MPI time %" 'MPI.*[0-9.]+ ?%|[0-9.]+ ?%.*MPI'
    check_summary "an MPI site with its jacobi.c line" "(MPI_Sendrecv|MPI_Allreduce|MPI_Waitall|MPI_Irecv).*jacobi\.c:($Lsr|$Lar|$Lwa|$Lir)\b|jacobi\.c:($Lsr|$Lar|$Lwa|$Lir)\b.*(MPI_Sendrecv|MPI_Allreduce|MPI_Waitall|MPI_Irecv)"
    check_summary "profile written to" '^hprof: profile written to '
    check_summary "drill-down hint" 'hprof-query'

    # Ground truth of the halo exchange: rank 1 talks to 0 (up) and 2 (down).
    hb=$((JI * (JN + 2) * 8))
    expect_eq "jacobi: rank 1 Sendrecv records (send to 0, recv from 2)" "0,$JI,$hb,0"$'\n'"2,$JI,0,$hb" \
        "$(comm_rows "$db" 1 MPI_Sendrecv $src "$Lsr" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
    expect_eq "jacobi: rank 0 Sendrecv records (MPI_PROC_NULL up: recv from 1 only)" "1,$JI,0,$hb" \
        "$(comm_rows "$db" 0 MPI_Sendrecv $src "$Lsr" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
    expect_eq "jacobi: rank 0 Sendrecv node counts every call" $JI "$(node_count "$db" 0 MPI_Sendrecv $src "$Lsr")"
    expect_eq "jacobi: the halo exchange belongs to exchange_halo even where -O2 inlined it into main" \
        exchange_halo "$(q "$db" "SELECT DISTINCT func FROM site WHERE name = 'MPI_Sendrecv' AND line = $Lsr")"
    expect_eq "jacobi: rank 1 Irecv records from 0" "0,$JI,$hb" \
        "$(comm_rows "$db" 1 MPI_Irecv $src "$Lir" 'sum(c.count), sum(c.bytes_recv)')"
    expect_eq "jacobi: Allreduce collective record on rank 2" "-1,$((JI / 10))" \
        "$(comm_rows "$db" 2 MPI_Allreduce $src "$Lar" 'sum(c.count)')"

    # Top-down listing and --comm drill-down of the halo exchange site.
    if td=$("$QUERY" "$db" 2>&1); then
        if printf '%s\n' "$td" | grep -c "jacobi\.c:$Lsr\b" >/dev/null && printf '%s\n' "$td" | grep -c MPI_Sendrecv >/dev/null; then
            ok "hprof-query top-down lists MPI_Sendrecv at jacobi.c:$Lsr"
        else
            notok "hprof-query top-down lists MPI_Sendrecv at jacobi.c:$Lsr" "got: $(printf '%s\n' "$td" | head -15 | oneline)"
        fi
    else
        notok "hprof-query top-down" "exit status $?: $(printf '%s\n' "$td" | head -5 | oneline)"
    fi
    if cm=$("$QUERY" "$db" --comm "$src:$Lsr" 2>&1); then
        if printf '%s\n' "$cm" | grep -c "MPI_Sendrecv\|jacobi\.c:$Lsr" >/dev/null; then
            ok "hprof-query --comm $src:$Lsr names the site"
        else
            notok "hprof-query --comm $src:$Lsr names the site" "got: $(printf '%s\n' "$cm" | head -10 | oneline)"
        fi
    else
        notok "hprof-query --comm $src:$Lsr" "failed: $(printf '%s\n' "$cm" | head -5 | oneline)"
    fi
    # The per-destination table by source rank as CSV: rank 1's peers must be 0 and 2.
    if cm=$("$QUERY" "$db" --comm "$src:$Lsr" --by-rank --format csv 2>/dev/null); then
        peers=$(printf '%s\n' "$cm" | tr -d '\r' | awk -F, '
            NR == 1 { for (i = 1; i <= NF; i++) { h = tolower($i); gsub(/"/, "", h)
                          if (h == "rank") rc = i; if (h == "peer" || h == "dest" || h == "destination") pc = i }
                      if (!rc || !pc) { print "NOCOLS"; exit } next }
            $rc == 1 && $pc != "" { print $pc + 0 }' | sort -un | oneline)
        if [ "$peers" = NOCOLS ]; then
            skipped "hprof-query --comm --by-rank csv: rank 1 peers" "no rank/peer columns in: $(printf '%s\n' "$cm" | head -1)"
        else
            expect_eq "hprof-query --comm --by-rank csv: rank 1 peers are 0 and 2" "0;2" "$peers"
        fi
    else
        notok "hprof-query --comm --by-rank --format csv" "failed"
    fi

    # LD_PRELOAD of the unmodified plain binary: same stdout, and a profile.
    hp_run jac.pre 4 -x OMP_NUM_THREADS=2 -x LD_PRELOAD="$LIB" "$tmp/plain/jacobi" $JN $JI
    if ran_ok jac.pre; then
        same_stdout "jacobi: same stdout under LD_PRELOAD as plain" "$tmp/jac.plain.out" "$tmp/jac.pre.out"
        expect_eq "jacobi LD_PRELOAD: rank 1 Sendrecv records" "0,$JI,$hb,0"$'\n'"2,$JI,0,$hb" \
            "$(comm_rows "$PROFILE" 1 MPI_Sendrecv $src "$Lsr" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
    fi
fi

# ---------------------------------------------------------------- h. link modes
src=ring_alltoall.c
Lse=$(line_of "$S/$src" ring-send-even)
"$MPICC" -g -O1 "$S/$src" -o "$tmp/ring_user" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" ||
    notok "link: mpicc app.c -lhprof" "$MPICC failed"
ldd "$tmp/ring_user" >"$tmp/ring_user.ldd" 2>&1 || true
if [ -x "$tmp/ring_user" ] && grep -q 'libhprof\.so' "$tmp/ring_user.ldd"; then
    ok "link: 'mpicc app.c -lhprof' keeps libhprof.so as a dependency"
else
    notok "link: 'mpicc app.c -lhprof' keeps libhprof.so as a dependency" "ldd: $(ldd "$tmp/ring_user" | oneline)"
fi
hp_run link 4 "$tmp/ring_user"
if ran_ok link; then
    expect_eq "link -lhprof: rank 0 send records" "1,100,800000" \
        "$(comm_rows "$PROFILE" 0 MPI_Send $src "$Lse" 'sum(c.count), sum(c.bytes_sent)')"
fi
hp_run preload 4 -x LD_PRELOAD="$LIB" "$tmp/plain/ring_alltoall"
if ran_ok preload; then
    expect_eq "LD_PRELOAD: rank 2 send records" "3,100,800000" \
        "$(comm_rows "$PROFILE" 2 MPI_Send $src "$Lse" 'sum(c.count), sum(c.bytes_sent)')"
    same_stdout "LD_PRELOAD: same stdout as plain" "$tmp/ring.plain.out" "$tmp/preload.out"
fi

# ---------------------------------------------------------------- j. collectives
src=collectives.c
P=4
# coll_expect TAG R - "count,bytes_sent,bytes_recv" of rank R's collective
# record (peer -1) at c-TAG (ground truth in the header of collectives.c:
# P = 4, int 4 B, double 8 B).
coll_expect() {
    local r=$2
    case $1 in
    barrier) echo "2,0,0" ;;
    bcast) if [ $r = 0 ]; then echo "3,$((3 * 3 * 10 * 8)),0"; else echo "3,0,$((3 * 10 * 8))"; fi ;;
    gather | gather-inplace) if [ $r = 1 ]; then echo "1,0,$((3 * 5 * 4))"; else echo "1,$((5 * 4)),0"; fi ;;
    gatherv) if [ $r = 2 ]; then echo "1,0,$(((1 + 2 + 4) * 4))"; else echo "1,$(((r + 1) * 4)),0"; fi ;;
    scatter | scatter-inplace) if [ $r = 3 ]; then echo "1,$((3 * 6 * 8)),0"; else echo "1,0,$((6 * 8))"; fi ;;
    scatterv) if [ $r = 0 ]; then echo "1,$(((2 + 3 + 4) * 8)),0"; else echo "1,0,$(((r + 1) * 8))"; fi ;;
    allgather | allgather-inplace) echo "1,$((3 * 3 * 4)),$((3 * 3 * 4))" ;;
    allgatherv | allgatherv-inplace) echo "1,$((3 * (r + 1) * 4)),$(((10 - (r + 1)) * 4))" ;;
    reduce | reduce-inplace) if [ $r = 1 ]; then echo "1,0,$((3 * 7 * 8))"; else echo "1,$((7 * 8)),0"; fi ;;
    allreduce | allreduce-inplace) echo "1,$((9 * 4)),$((9 * 4))" ;;
    reduce-scatter | reduce-scatter-inplace) echo "1,$((10 * 4)),$(((r + 1) * 4))" ;;
    rsb | rsb-inplace) echo "1,$((P * 2 * 8)),$((2 * 8))" ;;
    scan | scan-inplace | exscan) echo "1,$(((P - 1 - r) * 5 * 4)),$((r * 5 * 4))" ;;
    ibcast) if [ $r = 3 ]; then echo "1,$((3 * 11 * 4)),0"; else echo "1,0,$((11 * 4))"; fi ;;
    iallreduce) echo "2,$((2 * 13 * 8)),$((2 * 13 * 8))" ;;
    esac
}
# a2a_peer KIND R PEER - "sent,recv" of rank R with PEER at the alltoall site KIND.
a2a_peer() {
    local r=$2 p=$3
    case $1 in
    alltoall) echo "8,8" ;;
    alltoallv) echo "$(((1 + r + 2 * p) * 4)),$(((1 + p + 2 * r) * 4))" ;;
    alltoallv-inplace) echo "$(((1 + r + p) * 4)),$(((1 + r + p) * 4))" ;;
    alltoallw) echo "$(((1 + r + p) * (p % 2 == 0 ? 8 : 4))),$(((1 + r + p) * (r % 2 == 0 ? 8 : 4)))" ;;
    esac
}
# lines of c-TAG and, when the root and the others use different lines, c-TAG-other
coll_lines() {
    if grep -q "MARK:c-$1-other \*/" "$S/$src"; then
        echo "$(line_of "$S/$src" "c-$1"),$(line_of "$S/$src" "c-$1-other")"
    else
        line_of "$S/$src" "c-$1"
    fi
}
COLLS="barrier:MPI_Barrier bcast:MPI_Bcast gather:MPI_Gather gather-inplace:MPI_Gather gatherv:MPI_Gatherv
    scatter:MPI_Scatter scatter-inplace:MPI_Scatter scatterv:MPI_Scatterv allgather:MPI_Allgather
    allgather-inplace:MPI_Allgather allgatherv:MPI_Allgatherv allgatherv-inplace:MPI_Allgatherv
    reduce:MPI_Reduce reduce-inplace:MPI_Reduce allreduce:MPI_Allreduce allreduce-inplace:MPI_Allreduce
    reduce-scatter:MPI_Reduce_scatter reduce-scatter-inplace:MPI_Reduce_scatter
    rsb:MPI_Reduce_scatter_block rsb-inplace:MPI_Reduce_scatter_block scan:MPI_Scan
    scan-inplace:MPI_Scan exscan:MPI_Exscan ibcast:MPI_Ibcast iallreduce:MPI_Iallreduce"
A2AS="alltoall:MPI_Alltoall alltoallv:MPI_Alltoallv alltoallv-inplace:MPI_Alltoallv alltoallw:MPI_Alltoallw"
Llate=$(line_of "$S/$src" c-late-barrier)
Lbw=$(line_of "$S/$src" c-ibcast-wait)
Liw=$(line_of "$S/$src" c-iallreduce-waitall)
hp_run coll $P "$T/collectives"
if ran_ok coll; then
    db=$PROFILE
    for r in $(seq 0 $((P - 1))); do
        for e in $COLLS; do
            tag=${e%%:*} fn=${e#*:}
            expect_eq "collectives: rank $r $fn (c-$tag) record -1 count,sent,recv" "-1,$(coll_expect "$tag" $r)" \
                "$(comm_rows "$db" $r "$fn" $src "$(coll_lines "$tag")" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
        done
        for e in $A2AS; do
            tag=${e%%:*} fn=${e#*:}
            exp="" ts=0 tr=0
            for p in $(seq 0 $((P - 1))); do
                [ $p != $r ] || continue
                b=$(a2a_peer "$tag" $r $p)
                exp="$exp$p,1,$b"$'\n'
                ts=$((ts + ${b%,*})) tr=$((tr + ${b#*,}))
            done
            expect_eq "collectives: rank $r $fn (c-$tag) per-peer records" "-1,1,$ts,$tr"$'\n'"$exp" \
                "$(comm_rows "$db" $r "$fn" $src "$(line_of "$S/$src" "c-$tag")" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
            expect_eq "collectives: rank $r $fn (c-$tag) per-peer records carry no time" 0 \
                "$(comm_sum "$db" $r "$fn" $src "$(line_of "$S/$src" "c-$tag")" 'sum(CASE WHEN c.peer >= 0 THEN c.tran + c.sync ELSE 0 END)')"
        done
        expect_eq "collectives: rank $r node counts Ibcast,Wait,Iallreduce,Waitall" "1;1;2;1" \
            "$(node_count "$db" $r MPI_Ibcast $src "$(line_of "$S/$src" c-ibcast)");$(node_count "$db" $r MPI_Wait $src "$Lbw");$(node_count "$db" $r MPI_Iallreduce $src "$(line_of "$S/$src" c-iallreduce)");$(node_count "$db" $r MPI_Waitall $src "$Liw")"
        expect_eq "collectives: rank $r Wait/Waitall sites have no comm records" 0 \
            "$(q "$db" "SELECT count(*) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                      WHERE c.rank = $r AND s.file LIKE '%$src' AND s.line IN ($Lbw,$Liw)")"
    done
    expect_eq "collectives: without HPROF_COLL_SYNC every sync is exactly 0" 0 \
        "$(q "$db" "SELECT count(*) FROM comm WHERE sync <> 0")"
    # the late barrier against the ranks' own clock (arrival, departure)
    local_late() { stmt_times "$1" "collectives: late barrier"; }
    for r in $(seq 0 $((P - 1))); do
        expect_truth "collectives: late barrier, rank $r tran = its time in the barrier without HPROF_COLL_SYNC (program's clock, ms)" \
            "$(local_late "$tmp/coll.err" | awk -v r=$r '$1 == r { printf "%.3f 1\n", ($3 - $2) * 1000 }')" \
            "$(comm_sum "$db" $r MPI_Barrier $src "$Llate" 'round(sum(c.tran) * 1000, 3)')"
    done
    plain_run coll.plain $P "$tmp/plain/collectives"
    same_stdout "collectives: same stdout with and without hprof" "$tmp/coll.plain.out" "$tmp/coll.out"
    bytes_of() {
        q "$1" "SELECT s.line, c.rank, c.peer, sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)
                FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                GROUP BY s.line, c.rank, c.peer ORDER BY s.line, c.rank, c.peer"
    }
    hp_run coll.sync $P -x HPROF_COLL_SYNC=1 "$T/collectives"
    if ran_ok coll.sync; then
        expect_eq "collectives HPROF_COLL_SYNC=1: same counts and bytes everywhere" "$(bytes_of "$db")" "$(bytes_of "$PROFILE")"
        # per rank: the sync at least its wait for the last rank's arrival,
        # at most its time in the barrier; the transmission the rest
        for r in $(seq 0 $((P - 1))); do
            expect_sync "collectives HPROF_COLL_SYNC=1: late barrier, rank $r" "$tmp/coll.sync.err" "collectives: late barrier" $r last \
                "$(comm_sum "$PROFILE" $r MPI_Barrier $src "$Llate" 'sum(c.sync)')" "$(comm_sum "$PROFILE" $r MPI_Barrier $src "$Llate" 'sum(c.tran)')"
        done
        same_stdout "collectives HPROF_COLL_SYNC=1: same stdout" "$tmp/coll.plain.out" "$tmp/coll.sync.out"
    fi
fi

# ---------------------------------------------------------------- k. persistent requests
src=persistent.c
L() { line_of "$S/$src" "$1"; }
hp_run pers 2 "$T/persistent"
if ran_ok pers; then
    db=$PROFILE
    for r in 0 1; do
        p=$((1 - r))
        if [ $r = 0 ]; then sa=$((25 * 100 * 8)) ra=$((25 * 30 * 4)); else sa=$((25 * 30 * 4)) ra=$((25 * 100 * 8)); fi
        expect_eq "persistent: rank $r Send_init line, 25 completions" "$p,25,$sa,0" \
            "$(comm_rows "$db" $r MPI_Send_init $src "$(L p-send-init)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
        expect_eq "persistent: rank $r Recv_init line, 25 completions" "$p,25,0,$ra" \
            "$(comm_rows "$db" $r MPI_Recv_init $src "$(L p-recv-init)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
        expect_eq "persistent: rank $r Send_init2 line, 10 MPI_Start completions" "$p,10,640,0" \
            "$(comm_rows "$db" $r MPI_Send_init $src "$(L p-send-init2)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
        expect_eq "persistent: rank $r Recv_init2 line, 10 completions by MPI_Test" "$p,10,0,640" \
            "$(comm_rows "$db" $r MPI_Recv_init $src "$(L p-recv-init2)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
        expect_eq "persistent: rank $r node counts Send_init,Recv_init,Startall,Waitall" "1;1;25;25" \
            "$(node_count "$db" $r MPI_Send_init $src "$(L p-send-init)");$(node_count "$db" $r MPI_Recv_init $src "$(L p-recv-init)");$(node_count "$db" $r MPI_Startall $src "$(L p-startall)");$(node_count "$db" $r MPI_Waitall $src "$(L p-waitall)")"
        expect_eq "persistent: rank $r node counts Start(recv),Start(send),Wait" "10;10;10" \
            "$(node_count "$db" $r MPI_Start $src "$(L p-start-recv)");$(node_count "$db" $r MPI_Start $src "$(L p-start-send)");$(node_count "$db" $r MPI_Wait $src "$(L p-wait-send)")"
        expect_cmp "persistent: rank $r MPI_Test loop node counts >= 10" ge 10 \
            "$(node_count "$db" $r MPI_Test $src "$(L p-test-recv)")"
        expect_eq "persistent: rank $r Request_free of inactive requests: 2+2 calls" "2;2" \
            "$(node_count "$db" $r MPI_Request_free $src "$(L p-free-inactive-a)");$(node_count "$db" $r MPI_Request_free $src "$(L p-free-inactive-b)")"
        expect_eq "persistent: rank $r Start/Startall/Waitall/Wait/Test/Request_free sites have no comm records" 0 \
            "$(q "$db" "SELECT count(*) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                      WHERE c.rank = $r AND s.file LIKE '%$src' AND s.name IN
                      ('MPI_Start', 'MPI_Startall', 'MPI_Waitall', 'MPI_Wait', 'MPI_Test', 'MPI_Request_free')")"
    done
    expect_eq "persistent: rank 0 Isend freed while active still records 192 B to 1" "1,1,192" \
        "$(comm_rows "$db" 0 MPI_Isend $src "$(L p-free-isend)" 'sum(c.count), sum(c.bytes_sent)')"
    expect_eq "persistent: rank 0 MPI_Request_free (active) node count 1" 1 \
        "$(node_count "$db" 0 MPI_Request_free $src "$(L p-request-free)")"
    expect_eq "persistent: rank 1 Irecv of the freed send: 192 B from 0" "0,1,192" \
        "$(comm_rows "$db" 1 MPI_Irecv $src "$(L p-free-irecv)" 'sum(c.count), sum(c.bytes_recv)')"
    plain_run pers.plain 2 "$tmp/plain/persistent"
    same_stdout "persistent: same stdout with and without hprof" "$tmp/pers.plain.out" "$tmp/pers.out"
fi

# ---------------------------------------------------------------- l. probes and completion calls
src=probes.c
hp_run probes 3 "$T/probes"
if ran_ok probes; then
    db=$PROFILE
    expect_eq "probes: Probe+Recv, record at the Recv line from 1" "1,1,40" \
        "$(comm_rows "$db" 0 MPI_Recv $src "$(L pr-recv)" 'sum(c.count), sum(c.bytes_recv)')"
    expect_eq "probes: Iprobe(ANY_SOURCE)+Recv, record from 2" "2,1,48" \
        "$(comm_rows "$db" 0 MPI_Recv $src "$(L pr-recv2)" 'sum(c.count), sum(c.bytes_recv)')"
    expect_eq "probes: Mprobe(ANY_SOURCE)+Mrecv, records per actual source" "1,1,24"$'\n'"2,1,40" \
        "$(comm_rows "$db" 0 MPI_Mrecv $src "$(L pr-mrecv)" 'sum(c.count), sum(c.bytes_recv)')"
    expect_eq "probes: Improbe+Imrecv+Wait, record at the Imrecv line from 2" "2,1,28" \
        "$(comm_rows "$db" 0 MPI_Imrecv $src "$(L pr-imrecv)" 'sum(c.count), sum(c.bytes_recv)')"
    expect_eq "probes: node counts Probe,Mprobe,Mrecv,Imrecv,Wait" "1;2;2;1;1" \
        "$(node_count "$db" 0 MPI_Probe $src "$(L pr-probe)");$(node_count "$db" 0 MPI_Mprobe $src "$(L pr-mprobe)");$(node_count "$db" 0 MPI_Mrecv $src "$(L pr-mrecv)");$(node_count "$db" 0 MPI_Imrecv $src "$(L pr-imrecv)");$(node_count "$db" 0 MPI_Wait $src "$(L pr-imrecv-wait)")"
    expect_cmp "probes: Iprobe loop has a node (>= 1 call)" ge 1 "$(node_count "$db" 0 MPI_Iprobe $src "$(L pr-iprobe)")"
    expect_cmp "probes: Improbe loop has a node (>= 1 call)" ge 1 "$(node_count "$db" 0 MPI_Improbe $src "$(L pr-improbe)")"
    expect_eq "probes: probe sites have no comm records" 0 \
        "$(q "$db" "SELECT count(*) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                  WHERE s.file LIKE '%$src' AND s.name IN ('MPI_Probe', 'MPI_Iprobe', 'MPI_Mprobe', 'MPI_Improbe')")"
    f=0
    for w in waitany:MPI_Waitany waitsome:MPI_Waitsome testany:MPI_Testany testsome:MPI_Testsome test:MPI_Test testall:MPI_Testall; do
        tag=${w%%:*} fn=${w#*:}
        expect_eq "probes: Irecv line completed by $fn, records from 1 and 2" "1,1,$(((8 + f) * 4))"$'\n'"2,1,$(((16 + f) * 4))" \
            "$(comm_rows "$db" 0 MPI_Irecv $src "$(L pr-irecv-$tag)" 'sum(c.count), sum(c.bytes_recv)')"
        expect_eq "probes: Irecv line completed by $fn, node count 2" 2 "$(node_count "$db" 0 MPI_Irecv $src "$(L pr-irecv-$tag)")"
        expect_cmp "probes: $fn site has a node" ge 1 "$(node_count "$db" 0 "$fn" $src "$(L pr-$tag)")"
        f=$((f + 1))
    done
    expect_eq "probes: Wait*/Test* sites have no comm records" 0 \
        "$(q "$db" "SELECT count(*) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                  WHERE s.file LIKE '%$src' AND (s.name LIKE 'MPI_Wait%' OR s.name LIKE 'MPI_Test%')")"
    expect_eq "probes: Irecv completed after 5 flag-0 Tests: one record from 1" "1,1,48" \
        "$(comm_rows "$db" 0 MPI_Irecv $src "$(L pr-irecv-flag0)" 'sum(c.count), sum(c.bytes_recv)')"
    expect_eq "probes: flag-0 Test node count 5" 5 "$(node_count "$db" 0 MPI_Test $src "$(L pr-test-flag0)")"
    for s in 1 2; do
        expect_eq "probes: rank $s sends at pr-send-multi: 6 messages" "0,6,$(((48 * s + 15) * 4))" \
            "$(comm_rows "$db" $s MPI_Send $src "$(L pr-send-multi)" 'sum(c.count), sum(c.bytes_sent)')"
    done
    plain_run probes.plain 3 "$tmp/plain/probes"
    same_stdout "probes: same stdout with and without hprof" "$tmp/probes.plain.out" "$tmp/probes.out"
fi

# ---------------------------------------------------------------- m. edge cases: MPI_PROC_NULL, zero bytes, late Sendrecv, communicators
src=edge.c
P=4
hp_run edge $P "$T/edge"
if ran_ok edge; then
    db=$PROFILE
    Lnull="$(L e-send-null),$(L e-recv-null),$(L e-sendrecv-null),$(L e-isend-null),$(L e-irecv-null),$(L e-waitall-null)"
    for r in $(seq 0 $((P - 1))); do
        expect_eq "edge: rank $r MPI_PROC_NULL node counts Send,Recv,Sendrecv,Isend,Irecv,Waitall" "3;3;2;1;1;1" \
            "$(node_count "$db" $r MPI_Send $src "$(L e-send-null)");$(node_count "$db" $r MPI_Recv $src "$(L e-recv-null)");$(node_count "$db" $r MPI_Sendrecv $src "$(L e-sendrecv-null)");$(node_count "$db" $r MPI_Isend $src "$(L e-isend-null)");$(node_count "$db" $r MPI_Irecv $src "$(L e-irecv-null)");$(node_count "$db" $r MPI_Waitall $src "$(L e-waitall-null)")"
        expect_eq "edge: rank $r MPI_PROC_NULL lines have no comm records" 0 \
            "$(q "$db" "SELECT count(*) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                      WHERE c.rank = $r AND s.file LIKE '%$src' AND s.line IN ($Lnull)")"
    done
    expect_eq "edge: zero-count Send, rank 0 to 1: count 1, 0 B" "1,1,0,0" \
        "$(comm_rows "$db" 0 MPI_Send $src "$(L e-send-zero)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
    expect_eq "edge: zero-count Recv, rank 1 from 0: count 1, 0 B" "0,1,0,0" \
        "$(comm_rows "$db" 1 MPI_Recv $src "$(L e-recv-zero)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
    expect_eq "edge: zero-count Sendrecv, rank 2 with 3: send + receive record, 0 B" "3,2,0,0" \
        "$(comm_rows "$db" 2 MPI_Sendrecv $src "$(L e-sendrecv-zero)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
    expect_eq "edge: zero-count Isend, rank 2 to 3: count 1, 0 B" "3,1,0,0" \
        "$(comm_rows "$db" 2 MPI_Isend $src "$(L e-isend-zero)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
    expect_eq "edge: zero-count Irecv, rank 3 from 2: count 1, 0 B" "2,1,0,0" \
        "$(comm_rows "$db" 3 MPI_Irecv $src "$(L e-irecv-zero)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
    Lsr=$(L e-late-sendrecv)
    expect_eq "edge: late Sendrecv, rank 0 records (send to 2, recv from 1)" "1,1,0,120"$'\n'"2,1,80,0" \
        "$(comm_rows "$db" 0 MPI_Sendrecv $src "$Lsr" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
    expect_eq "edge: late Sendrecv, rank 1 records (send to 0, recv from 3)" "0,1,120,0"$'\n'"3,1,0,80" \
        "$(comm_rows "$db" 1 MPI_Sendrecv $src "$Lsr" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
    expect_sync "edge: late Sendrecv, rank 0 receive record" "$tmp/edge.err" "edge: late" 0 1 \
        "$(comm_sum "$db" 0 MPI_Sendrecv $src "$Lsr" 'sum(CASE WHEN c.peer = 1 THEN c.sync END)')"
    expect_cmp "edge: late Sendrecv, rank 0 send record sync < 0.02 s" lt 0.02 \
        "$(comm_sum "$db" 0 MPI_Sendrecv $src "$Lsr" 'sum(CASE WHEN c.peer = 2 THEN c.sync END)')"
    expect_sync "edge: late Sendrecv, rank 1 (the late one) from rank 3" "$tmp/edge.err" "edge: late" 1 3 \
        "$(comm_sum "$db" 1 MPI_Sendrecv $src "$Lsr" 'sum(c.sync)')"
    # Sub-communicator ranks are translated to world ranks; the second split
    # ({0,1},{2,3}) follows MPI_Comm_free of the first ({0,2},{1,3}).
    for k in 1 2; do
        if [ $k = 1 ]; then pairs="0:2 1:3"; else pairs="0:1 2:3"; fi
        for pr in $pairs; do
            a=${pr%:*} b=${pr#*:}
            expect_eq "edge: split $k, world $a sends 2 x 16 B to world $b" "$b,2,32" \
                "$(comm_rows "$db" $a MPI_Send $src "$(L e-split$k-send)" 'sum(c.count), sum(c.bytes_sent)')"
            expect_eq "edge: split $k, world $b receives from world $a (explicit source, MPI_ANY_SOURCE)" "$a,1,16;$a,1,16" \
                "$(comm_rows "$db" $b MPI_Recv $src "$(L e-split$k-recv)" 'sum(c.count), sum(c.bytes_recv)');$(comm_rows "$db" $b MPI_Recv $src "$(L e-split$k-recv-any)" 'sum(c.count), sum(c.bytes_recv)')"
            expect_eq "edge: split $k, Isend world $b -> Irecv world $a, 24 B" "$a,1,24;$b,1,24" \
                "$(comm_rows "$db" $b MPI_Isend $src "$(L e-split$k-isend)" 'sum(c.count), sum(c.bytes_sent)');$(comm_rows "$db" $a MPI_Irecv $src "$(L e-split$k-irecv)" 'sum(c.count), sum(c.bytes_recv)')"
            expect_eq "edge: split $k, Bcast from world $b (sub rank 1) to world $a" "-1,1,40,0;-1,1,0,40" \
                "$(comm_rows "$db" $b MPI_Bcast $src "$(L e-split$k-bcast)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)');$(comm_rows "$db" $a MPI_Bcast $src "$(L e-split$k-bcast)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
            for x in "$a:$b" "$b:$a"; do
                me=${x%:*} other=${x#*:}
                expect_eq "edge: split $k, Alltoall on world $me: records -1 and world peer $other" "-1,1,12,12"$'\n'"$other,1,12,12" \
                    "$(comm_rows "$db" $me MPI_Alltoall $src "$(L e-split$k-alltoall)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
            done
        done
    done
    echo "# $(grep '^edge:' "$tmp/edge.err" | grep -v '^edge: late:' || echo 'edge: no note on handle reuse')"
    plain_run edge.plain $P "$tmp/plain/edge"
    same_stdout "edge: same stdout with and without hprof" "$tmp/edge.plain.out" "$tmp/edge.out"
fi

# ---------------------------------------------------------------- n. limits, environment, output file
src=many_sites.c
Lall=$(for i in $(seq -w 1 40); do line_of "$S/$src" "ms-$i"; done | paste -sd, -)
L7=$(for i in $(seq -f %02g 1 7); do line_of "$S/$src" "ms-$i"; done | paste -sd, -)
plain_run ms.plain 2 "$tmp/plain/many_sites"
[ "$RC" = 0 ] || notok "many_sites (plain) runs" "exit status $RC: $(tail -3 "$tmp/ms.plain.err" | oneline)"

# HPROF_MAX_NODES=10: the first 10 new call sites (MPI_Init, MPI_Comm_rank
# and MPI_Comm_size in main, local call sites, then ms-01..ms-07) get
# nodes; the other 33 lines x 3 calls and the MPI_Reduce after them land in
# the overflow node: 100 calls per rank.
hp_run ms.max 2 -x HPROF_MAX_NODES=10 "$T/many_sites"
if ran_ok ms.max; then
    db=$PROFILE
    for r in 0 1; do
        expect_eq "HPROF_MAX_NODES=10: rank $r has 10 call-site nodes (3 calls + ms-01..ms-07 x 3)" "10,24" \
            "$(q "$db" "SELECT count(DISTINCT n.id), sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                      WHERE st.rank = $r AND s.kind NOT IN ('root', 'overflow')")"
        expect_eq "HPROF_MAX_NODES=10: rank $r comm sites with nodes are ms-01..ms-07" "${L7//,/$'\n'}" \
            "$(q "$db" "SELECT DISTINCT s.line FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                      WHERE st.rank = $r AND s.kind = 'comm' ORDER BY s.line")"
        expect_eq "HPROF_MAX_NODES=10: rank $r overflow node counts the 100 calls beyond" 100 \
            "$(q "$db" "SELECT coalesce(sum(st.count), 0) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                      WHERE st.rank = $r AND s.kind = 'overflow'")"
    done
    # The summary's own "N events fell past HPROF_MAX_NODES" line is a summary
    # line, not the warning.
    warn=$(grep 'HPROF_MAX_NODES' "$tmp/ms.max.err" | grep -Ev '^hprof: [0-9]+ events fell past' || true)
    if [ "$(printf '%s\n' "$warn" | awk 'NF' | wc -l)" = 1 ]; then
        ok "HPROF_MAX_NODES=10: one warning line on stderr (2 ranks)"
    else
        notok "HPROF_MAX_NODES=10: one warning line on stderr (2 ranks)" "got '$(printf '%s\n' "$warn" | oneline)'"
    fi
    same_stdout "HPROF_MAX_NODES=10: same stdout as plain" "$tmp/ms.plain.out" "$tmp/ms.max.out"
fi

# Bad values: exit status 2 and exactly one line from rank 0.
for bad in "HPROF_SUMMARY=bogus:hprof: HPROF_SUMMARY='bogus' is not one of off|on|full" \
    "HPROF_MAX_NODES=abc:hprof: HPROF_MAX_NODES='abc' " "HPROF_COLL_SYNC=maybe:hprof: HPROF_COLL_SYNC='maybe' "; do
    setting=${bad%%:*} want=${bad#*:}
    hp_run ms.bad 2 -x "$setting" "$T/many_sites"
    expect_eq "$setting: exit status 2" 2 "$RC"
    got=$(grep '^hprof' "$tmp/ms.bad.err" || true)
    # the whole line for HPROF_SUMMARY (its text is fixed), its start for the others
    case $want in
    *' ') match=$([ "${got#"$want"}" != "$got" ] && echo y || true) ;;
    *) match=$([ "$got" = "$want" ] && echo y || true) ;;
    esac
    if [ "$(printf '%s\n' "$got" | awk 'NF' | wc -l)" = 1 ] && [ "$match" = y ]; then
        ok "$setting: exactly one line '$want...' on stderr, from rank 0"
    else
        notok "$setting: exactly one line '$want...' on stderr, from rank 0" "got '$(printf '%s\n' "$got" | oneline)'"
    fi
done

# HPROF_OUTPUT naming an existing file: left alone, profile to NAME.1.hpf, then NAME.2.hpf.
keep=$tmp/keep.hpf
printf 'not a profile: must survive\n' >"$keep"
sum0=$(cksum <"$keep")
for i in 1 2; do
    HP_OUTPUT=$keep hp_run ms.keep$i 2 "$T/many_sites"
    expect_eq "HPROF_OUTPUT exists (run $i): exit status 0" 0 "$RC"
    expect_eq "HPROF_OUTPUT exists (run $i): existing file untouched" "$sum0" "$(cksum <"$keep")"
    # the run takes the first free run number: keep.1.hpf, keep.2.hpf
    # (no warning: stderr stays the program's own but for the summary)
    if grep -q "keep\.$i\.hpf" "$tmp/ms.keep$i.err"; then ok "HPROF_OUTPUT exists (run $i): the summary names keep.$i.hpf"; else
        notok "HPROF_OUTPUT exists (run $i): the summary names keep.$i.hpf" "stderr: $(head -3 "$tmp/ms.keep$i.err" | oneline)"
    fi
    want=${keep%.hpf}.$i.hpf
    expect_eq "HPROF_OUTPUT exists (run $i): profile written to $want" "$want" "$PROFILE"
    expect_eq "HPROF_OUTPUT exists (run $i): $want is a valid profile (rank 1 made 120 calls)" 120 \
        "$(q "$want" "SELECT coalesce(sum(st.count), 0) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                WHERE st.rank = 1 AND s.name = 'MPI_Send' AND s.line IN ($Lall)")"
    same_stdout "HPROF_OUTPUT exists (run $i): same stdout as plain" "$tmp/ms.plain.out" "$tmp/ms.keep$i.out"
    [ $i != 1 ] || sum1=$(cksum <"$want" 2>&1)
done
expect_eq "HPROF_OUTPUT exists: run 2 left ${keep%.hpf}.1.hpf untouched" "$sum1" "$(cksum <"${keep%.hpf}.1.hpf" 2>&1)"

# HPROF_OUTPUT in a directory that does not exist: warning, exit 0, same stdout.
HP_OUTPUT=$tmp/no/such/dir/p.hpf hp_run ms.nodir 2 "$T/many_sites"
expect_eq "HPROF_OUTPUT in a missing directory: exit status 0" 0 "$RC"
if grep -q 'cannot write profile' "$tmp/ms.nodir.err"; then ok "HPROF_OUTPUT in a missing directory: 'cannot write profile' warning"; else
    notok "HPROF_OUTPUT in a missing directory: 'cannot write profile' warning" "stderr: $(head -3 "$tmp/ms.nodir.err" | oneline)"
fi
same_stdout "HPROF_OUTPUT in a missing directory: same stdout as plain" "$tmp/ms.plain.out" "$tmp/ms.nodir.out"

# HPROF_SUMMARY=off: silent, but the profile is written.  =full: every site.
hp_run ms.off 2 -x HPROF_SUMMARY=off "$T/many_sites"
if ran_ok ms.off; then
    expect_eq "HPROF_SUMMARY=off: no hprof lines on stderr" "" "$(grep '^hprof' "$tmp/ms.off.err" || true)"
    expect_eq "HPROF_SUMMARY=off: profile written (ms-40 has 3 calls on rank 0)" 3 \
        "$(node_count "$PROFILE" 0 MPI_Send $src "$(line_of "$S/$src" ms-40)")"
    same_stdout "HPROF_SUMMARY=off: same stdout as plain" "$tmp/ms.plain.out" "$tmp/ms.off.out"
fi
hp_run ms.full 2 -x HPROF_SUMMARY=full "$T/many_sites"
if ran_ok ms.full; then
    missing=
    for l in ${Lall//,/ } $(line_of "$S/$src" ms-reduce); do
        grep -q "^hprof:.*$src:$l\b" "$tmp/ms.full.err" || missing="$missing $l"
    done
    expect_eq "HPROF_SUMMARY=full: summary lists all 41 call sites (missing lines)" "" "$missing"
    same_stdout "HPROF_SUMMARY=full: same stdout as plain" "$tmp/ms.plain.out" "$tmp/ms.full.out"
fi

# ---------------------------------------------------------------- o. MPI_Sendrecv_replace
# A ring shift of a strided vector in place; rank 1 is 150 ms late, so rank
# 2 (receiving from it) waits for it (the ranks' own clock, stderr); 40
# bytes each way on every rank.
src=replace.c
Lrp=$(line_of "$S/$src" r-replace)
hp_run replace 3 "$T/replace"
if ran_ok replace; then
    for r in 0 1 2; do
        expect_eq "Sendrecv_replace: rank $r send to $(((r + 1) % 3)), recv from $(((r + 2) % 3)), 40 B each" \
            "$(printf '%s\n' "$(((r + 1) % 3)),1,40,0" "$(((r + 2) % 3)),1,0,40" | sort)" \
            "$(comm_rows "$PROFILE" $r MPI_Sendrecv_replace $src "$Lrp" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)' | sort)"
    done
    expect_sync "Sendrecv_replace: rank 2 receive (late rank 1)" "$tmp/replace.err" replace 2 1 \
        "$(comm_sum "$PROFILE" 2 MPI_Sendrecv_replace $src "$Lrp" 'sum(c.sync)')"
    expect_sync "Sendrecv_replace: rank 1 (the late one) from rank 0" "$tmp/replace.err" replace 1 0 \
        "$(comm_sum "$PROFILE" 1 MPI_Sendrecv_replace $src "$Lrp" 'sum(c.sync)')"
    plain_run replace.plain 3 "$tmp/plain/replace"
    same_stdout "Sendrecv_replace: data moved as without hprof" "$tmp/replace.plain.out" "$tmp/replace.out"
fi

# ---------------------------------------------------------------- p. exit without MPI_Finalize
# One rank, exit(0) after MPI_Init: one line naming the rank's own file
# (its records, flagged HP_RANKF_UNFINALIZED = 16), the same stdout, and
# the program's own exit status.  Run as a singleton (no mpirun): mpirun
# spends ~2 s on a rank that ends without MPI_Finalize, and says so.
if [ -x "$T/nofinalize" ]; then
    RC=0
    HPROF_OUTPUT=$tmp/nf.hpf timeout 120 "$T/nofinalize" >"$tmp/nf.out" 2>"$tmp/nf.err" </dev/null || RC=$?
    check_profile "nofinalize" "$tmp/nf.rank0.hpf"
    RC2=0
    timeout 120 "$tmp/plain/nofinalize" >"$tmp/nf.plain.out" 2>/dev/null </dev/null || RC2=$?
    expect_eq "no MPI_Finalize: one hprof line naming the rank's file" 1 \
        "$(grep -c "^hprof.*rank 0 exited without MPI_Finalize: its records up to then are in $tmp/nf.rank0.hpf" "$tmp/nf.err")"
    same_stdout "no MPI_Finalize: same stdout as plain" "$tmp/nf.plain.out" "$tmp/nf.out"
    expect_eq "no MPI_Finalize: same exit status as plain" "$RC2" "$RC"
    expect_eq "no MPI_Finalize: no whole-run profile, the rank's own file instead" no,yes \
        "$([ -e "$tmp/nf.hpf" ] && echo yes || echo no),$([ -s "$tmp/nf.rank0.hpf" ] && echo yes || echo no)"
    expect_eq "no MPI_Finalize: the rank's barrier, flagged unfinalized" "1,16" \
        "$(q "$tmp/nf.rank0.hpf" "SELECT sum(st.count), max(r.flags) FROM stat st JOIN node n ON n.id = st.node
            JOIN site s ON s.id = n.site JOIN rank r ON r.rank = st.rank WHERE s.name = 'MPI_Barrier'")"
else
    notok "no MPI_Finalize" "$T/nofinalize not built"
fi

# ---------------------------------------------------------------- q. clang builds
# clang writes no .debug_aranges by default: call sites must still resolve
# to file:line (through the compile units).
if command -v clang >/dev/null; then
    OMPI_CC=clang "$MPICC" -g -O1 "$S/late_sender.c" -o "$tmp/late.clang" \
        -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR"
    hp_run late.clang 2 "$tmp/late.clang"
    if ran_ok late.clang; then
        expect_eq "clang build: MPI_Recv resolves to its late_sender.c line and function" \
            "late_sender.c,$(line_of "$S/late_sender.c" late-recv),main" \
            "$(q "$PROFILE" "SELECT replace(file, rtrim(file, replace(file, '/', '')), ''), line, func FROM site WHERE name = 'MPI_Recv'")"
    fi
fi

[ "$skip" = 0 ] || echo "# $skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
