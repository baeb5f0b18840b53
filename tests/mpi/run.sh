#!/bin/bash
# tests/mpi/run.sh - MPI integration tests of hprof: runs the programs of
# tests/mpi/ (and examples/jacobi) under mpirun with the library, and checks
# the profile against each program's known ground truth through
# `hprof-query DB --sql ... --format csv`.  Also checks that hprof never
# changes a program's stdout, the two ways of linking (-lhprof after the
# objects, LD_PRELOAD of a plain binary) and the finalize summary / drill-down
# of the demo.
#
# usage: tests/mpi/run.sh [BUILDDIR]     (default: the current directory,
#        which is what `make check` uses; the sources are found next to this
#        script).  Env: MPICC, MPIRUN, HPROF_KEEP_TMP=1 keeps the temp dir.
# Prints "ok - NAME" / "not ok - NAME: expected X got Y" per check and a last
# line "N passed, M failed"; exits 1 if anything failed.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
LIB=$LIBDIR/libhprof.so
T=$builddir/tests/mpi          # in-tree test programs (linked with libhprof.la)
S=$srcdir/tests/mpi            # their sources

# Open MPI as root, 4 ranks on 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
MPIFLAGS=(--oversubscribe --bind-to none)
# 8 OpenMP threads on 2 cores: spinning threads would starve the others.
export OMP_WAIT_POLICY=passive

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-mpi.XXXXXX")
if [ "${HPROF_KEEP_TMP:-0}" = 1 ]; then
    echo "# keeping temp dir $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
fi

pass=0
fail=0
skip=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1: $2"; fail=$((fail + 1)); }
skipped() { echo "ok - $1 # SKIP $2"; skip=$((skip + 1)); }
oneline() { tr '\n' ';' | sed 's/;$//'; }

# Normalise CSV numbers so "800000.0" and "800000" compare equal.
norm() { awk -F, 'BEGIN { OFS = "," } { for (i = 1; i <= NF; i++) if ($i ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) $i = $i + 0; print }'; }

# expect_eq NAME EXPECTED GOT - exact (numbers normalised, rows joined by ';').
expect_eq() {
    local e g
    e=$(printf '%s\n' "$2" | awk 'NF' | norm | oneline)
    g=$(printf '%s\n' "$3" | awk 'NF' | norm | oneline)
    if [ "$e" = "$g" ]; then ok "$1"; else notok "$1" "expected '$e' got '$g'"; fi
}

# expect_cmp NAME OP BOUND GOT [BOUND2] - OP is lt, le, ge, gt, or within (BOUND±BOUND2).
expect_cmp() {
    local name=$1 op=$2 b=$3 g=$4 b2=${5:-0}
    if awk -v g="$g" -v b="$b" -v b2="$b2" -v op="$op" 'BEGIN {
            if (g !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) exit 1
            g += 0; b += 0; b2 += 0
            if (op == "lt") exit !(g < b); if (op == "le") exit !(g <= b)
            if (op == "gt") exit !(g > b); if (op == "ge") exit !(g >= b)
            if (op == "within") exit !(g >= b - b2 && g <= b + b2)
            exit 1 }'; then
        ok "$name"
    else
        case $op in
        within) notok "$name" "expected $b ± $b2 got '$g'" ;;
        *) notok "$name" "expected $op $b got '$g'" ;;
        esac
    fi
}

# q DB SQL - rows of the result as CSV without the header line; never fails
# (an error becomes the text "ERROR: ..." so the check shows it).
q() {
    local out
    if out=$("$QUERY" "$1" --sql "$2" --format csv 2>"$tmp/q.err"); then
        printf '%s\n' "$out" | tr -d '\r' | awk 'NR == 1 && /^[A-Za-z_"(]/ { next } NF { print }'
    else
        echo "ERROR: hprof-query failed: $(head -c 300 "$tmp/q.err" | oneline)"
    fi
}

# line_of FILE TAG - the line carrying the comment "/* MARK:TAG */" (tests)
# or "/* TAG */" (examples).
line_of() {
    local n
    n=$(grep -n "[ :]$2 \*/" "$1" | cut -d: -f1)
    if [ -z "$n" ] || [ "$(printf '%s\n' "$n" | wc -l)" != 1 ]; then
        echo "run.sh: marker comment '$2 */' not found exactly once in $1" >&2
        exit 2
    fi
    echo "$n"
}

# comm_rows DB RANK MPI_NAME FILE LINES COLS [EXTRA_WHERE] - per-peer sums at a site.
comm_rows() {
    q "$1" "SELECT c.peer, $6 FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
            WHERE c.rank = $2 AND s.name = '$3' AND s.file LIKE '%$4' AND s.line IN ($5) ${7:-}
            GROUP BY c.peer ORDER BY c.peer"
}
# comm_sum DB RANK MPI_NAME FILE LINES EXPR - one aggregate over a site's comm records.
comm_sum() {
    q "$1" "SELECT coalesce($6, 0) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
            WHERE c.rank = $2 AND s.name = '$3' AND s.file LIKE '%$4' AND s.line IN ($5)"
}
# node_count DB RANK MPI_NAME FILE LINES - calls counted in the site's nodes.
node_count() {
    q "$1" "SELECT coalesce(sum(st.count), 0) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
            WHERE st.rank = $2 AND s.name = '$3' AND s.file LIKE '%$4' AND s.line IN ($5)"
}

# hp_run NAME NP CMD... - run under mpirun with the profile going to
# $tmp/NAME.hpf; stdout in $tmp/NAME.out, stderr in $tmp/NAME.err.  Sets
# PROFILE (the path the summary reports, else the requested one) and RC.
hp_run() {
    local name=$1 np=$2
    shift 2
    RC=0
    HPROF_OUTPUT=$tmp/$name.hpf timeout 300 "$MPIRUN" -np "$np" "${MPIFLAGS[@]}" -x HPROF_OUTPUT -x OMP_WAIT_POLICY \
        "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || RC=$?
    PROFILE=$(sed -n 's/^hprof: profile written to \(.*[^ ]\) *$/\1/p' "$tmp/$name.err" | tail -1)
    [ -n "$PROFILE" ] || PROFILE=$tmp/$name.hpf
}

# plain_run NAME NP CMD... - the same without hprof (no HPROF_OUTPUT).
plain_run() {
    local name=$1 np=$2
    shift 2
    RC=0
    timeout 300 "$MPIRUN" -np "$np" "${MPIFLAGS[@]}" -x OMP_WAIT_POLICY "$@" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || RC=$?
}

# ran_ok NAME - the last run exited 0 and left a profile (else one failure, with its stderr).
ran_ok() {
    if [ "$RC" = 0 ] && [ -s "$PROFILE" ]; then
        return 0
    fi
    if [ "$RC" != 0 ]; then
        notok "$1 runs" "exit status $RC; stderr: $(tail -5 "$tmp/$1.err" | oneline)"
    else
        notok "$1 runs" "no profile at $PROFILE; stderr: $(tail -5 "$tmp/$1.err" | oneline)"
    fi
    return 1
}

# same_stdout NAME REFERENCE_OUT OTHER_OUT - output identity with/without hprof.
same_stdout() {
    if cmp -s "$2" "$3"; then
        ok "$1"
    else
        notok "$1" "expected '$(oneline <"$2")' got '$(oneline <"$3")'"
    fi
}

# ---------------------------------------------------------------- prerequisites
missing=
for f in "$QUERY" "$LIB" "$T/late_sender" "$T/ring_alltoall" "$T/nonblocking" "$T/anysource" \
    "$T/threads" "$T/pcontrol" "$builddir/examples/jacobi"; do
    [ -e "$f" ] || missing="$missing $f"
done
command -v "$MPICC" >/dev/null || missing="$missing $MPICC"
command -v "$MPIRUN" >/dev/null || missing="$missing $MPIRUN"
if [ -n "$missing" ]; then
    notok "prerequisites" "missing:$missing (build with 'make check' first)"
    echo "$pass passed, $fail failed"
    exit 1
fi

# Plain builds (no hprof) of every program, for the identity checks.
mkdir -p "$tmp/plain"
for p in late_sender ring_alltoall nonblocking anysource threads pcontrol; do
    "$MPICC" -g -O1 -pthread "$S/$p.c" -o "$tmp/plain/$p" ||
        notok "plain build of $p.c" "$MPICC failed"
done
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
    expect_cmp "late sender: recv sync delay ~0.200 s" within 0.200 \
        "$(comm_sum "$db" 0 MPI_Recv $src "$Lr" 'sum(c.sync)')" 0.010
    expect_cmp "late sender: recv transmission < 0.02 s" lt 0.02 \
        "$(comm_sum "$db" 0 MPI_Recv $src "$Lr" 'sum(c.tran)')"
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
        if printf '%s\n' "$summary" | grep -Eq -- "$2"; then ok "jacobi summary: $1"; else
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
    expect_eq "jacobi: rank 1 Irecv records from 0" "0,$JI,$hb" \
        "$(comm_rows "$db" 1 MPI_Irecv $src "$Lir" 'sum(c.count), sum(c.bytes_recv)')"
    expect_eq "jacobi: Allreduce collective record on rank 2" "-1,$((JI / 10))" \
        "$(comm_rows "$db" 2 MPI_Allreduce $src "$Lar" 'sum(c.count)')"

    # Top-down listing and --comm drill-down of the halo exchange site.
    if td=$("$QUERY" "$db" 2>&1); then
        if printf '%s\n' "$td" | grep -q "jacobi\.c:$Lsr\b" && printf '%s\n' "$td" | grep -q MPI_Sendrecv; then
            ok "hprof-query top-down lists MPI_Sendrecv at jacobi.c:$Lsr"
        else
            notok "hprof-query top-down lists MPI_Sendrecv at jacobi.c:$Lsr" "got: $(printf '%s\n' "$td" | head -15 | oneline)"
        fi
    else
        notok "hprof-query top-down" "exit status $?: $(printf '%s\n' "$td" | head -5 | oneline)"
    fi
    if cm=$("$QUERY" "$db" --comm "$src:$Lsr" 2>&1); then
        if printf '%s\n' "$cm" | grep -q "MPI_Sendrecv\|jacobi\.c:$Lsr"; then
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
if [ -x "$tmp/ring_user" ] && ldd "$tmp/ring_user" | grep -q 'libhprof\.so'; then
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

[ "$skip" = 0 ] || echo "# $skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
