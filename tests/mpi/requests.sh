#!/bin/bash
# tests/mpi/requests.sh - request tracking against exact ground truth:
# many outstanding eager Isends sharing one handle, Waitany / Waitsome /
# Testany / Testsome loops, nonblocking collectives, a cancelled receive
# (requests.c), MPI_THREAD_MULTIPLE with 4 threads per rank completing
# each other's requests (mt_requests.c), per thread; MPI_Abort on one rank
# leaving that rank's records (abort.c); a message-rate pattern on 3 ranks
# (msg_rate.c).  Each program's header comment
# states the numbers checked here; stdout must be the same without hprof.
#
# usage: tests/mpi/requests.sh [BUILDDIR]   (as tests/mpi/run.sh)
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
T=$builddir/tests/mpi
S=$srcdir/tests/mpi

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir requests

programs_ready requests mt_requests abort msg_rate

# per_peer DB RANK NAME MARK COLS - comm_rows of the line marked MARK in SRC.
per_peer() { comm_rows "$1" "$2" "$3" "$src" "$(line_of "$S/$src" "$4")" "$5"; }

# ---------------------------------------------------------------- requests.c
src=requests.c
hp_run rq 2 "$T/requests"
if ran_ok rq; then
    db=$PROFILE
    expect_eq "eager flood: 6400 Isends of 8 B to rank 1, none lost to the shared handle" "1,6400,51200" \
        "$(per_peer "$db" 0 MPI_Isend rq-eager-isend 'sum(c.count), sum(c.bytes_sent)')"
    expect_eq "eager flood: 6400 Irecvs of 8 B from rank 0" "0,6400,51200" \
        "$(per_peer "$db" 1 MPI_Irecv rq-eager-irecv 'sum(c.count), sum(c.bytes_recv)')"
    expect_eq "eager flood: the Isend line's time includes its Waitall shares" 1 \
        "$(per_peer "$db" 0 MPI_Isend rq-eager-isend 'sum(c.tran) > 0' | cut -d, -f2)"
    for part in "any:3280" "some:6560" "tsome:9840"; do
        m=${part%%:*} b=${part#*:}
        expect_eq "$m loop: rank 0 Isend line 40 transfers, $b B" "1,40,$b" \
            "$(per_peer "$db" 0 MPI_Isend "rq-$m-isend" 'sum(c.count), sum(c.bytes_sent)')"
        expect_eq "$m loop: rank 1 Irecv (MPI_ANY_SOURCE) line 40 transfers, $b B from 0" "0,40,$b" \
            "$(per_peer "$db" 1 MPI_Irecv "rq-$m-irecv" 'sum(c.count), sum(c.bytes_recv)')"
    done
    expect_eq "Waitany/Waitsome/Testany/Testsome sites keep no comm records" 0 \
        "$(q "$db" "SELECT count(*) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                    WHERE s.name IN ('MPI_Waitany', 'MPI_Waitsome', 'MPI_Testany', 'MPI_Testsome')")"
    expect_eq "Waitany: 40 calls per rank" "40;40" \
        "$(for r in 0 1; do node_count "$db" $r MPI_Waitany $src "$(line_of "$S/$src" rq-any-wait)"; done)"
    for r in 0 1; do
        expect_eq "Iallreduce: rank $r 30 transfers of 40 B each way" "-1,30,1200,1200" \
            "$(per_peer "$db" $r MPI_Iallreduce rq-iallreduce 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
        expect_eq "Ibarrier: rank $r 10 records" "-1,10" \
            "$(per_peer "$db" $r MPI_Ibarrier rq-ibarrier 'sum(c.count)')"
    done
    Lc=$(line_of "$S/$src" rq-cancel-irecv)
    expect_eq "cancelled Irecv: counted as a call, no transfer" "1" \
        "$(node_count "$db" 1 MPI_Irecv $src "$Lc"; comm_rows "$db" 1 MPI_Irecv $src "$Lc" 'sum(c.count)')"
    expect_eq "MPI_Cancel is timed at its line" 1 \
        "$(q "$db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                    WHERE s.name = 'MPI_Cancel' AND st.rank = 1")"
    expect_eq "a communicator freed while collection is off: its successor's peers are world ranks" "1,1,16" \
        "$(per_peer "$db" 0 MPI_Isend rq-newcomm-isend 'sum(c.count), sum(c.bytes_sent)')"
    plain_run rq.plain 2 "$tmp/plain/requests"
    same_stdout "requests: same stdout with and without hprof" "$tmp/rq.plain.out" "$tmp/rq.out"
fi

# ---------------------------------------------------------------- mt_requests.c
src=mt_requests.c
NI=$(define_of "$S/$src" NI)
start=$(date +%s)
hp_run mt 2 "$T/mt_requests"
elapsed=$(($(date +%s) - start))
if [ "$RC" = 77 ]; then
    skipped "threads: request tracking" "MPI_THREAD_MULTIPLE not provided"
elif ran_ok mt; then
    db=$PROFILE
    echo "# threads: 2 ranks x 4 threads x 7 x $NI operations took ${elapsed} s"
    # Per thread: (Isend count, bytes sent by the thread, Irecv count, bytes of
    # the partner's receives it completed).  Thread t sends 4*S(t) bytes,
    # S(t) = NI/5*15*(t+1) ints; its partner is t^1.
    exp=""
    for t in 0 1 2 3; do
        exp="$exp$NI,$((NI / 5 * 15 * (t + 1) * 4)),$NI,$((NI / 5 * 15 * ((t ^ 1) + 1) * 4))"$'\n'
    done
    exp=$(printf '%s' "$exp" | sort)
    Ls=$(line_of "$S/$src" mt-isend)
    Lr=$(line_of "$S/$src" mt-irecv)
    for r in 0 1; do
        got=$(q "$db" "SELECT sum(CASE WHEN s.line = $Ls THEN c.count END), sum(c.bytes_sent),
                              sum(CASE WHEN s.line = $Lr THEN c.count END), sum(c.bytes_recv)
                       FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                       WHERE c.rank = $r AND s.file LIKE '%$src' AND s.line IN ($Ls, $Lr)
                       GROUP BY c.thread" | norm | sort)
        expect_eq "threads: rank $r Isend/Irecv per thread exact (receives recorded by the completing thread)" \
            "$exp" "$got"
        expect_eq "threads: rank $r peer of every Isend/Irecv record is the other rank" "$((1 - r))" \
            "$(q "$db" "SELECT group_concat(DISTINCT c.peer) FROM comm c JOIN node n ON n.id = c.node
                        JOIN site s ON s.id = n.site WHERE c.rank = $r AND s.line IN ($Ls, $Lr)")"
        sr=""
        # A Sendrecv is two transfers with its peer: the send and the receive.
        for t in 0 1 2 3; do sr="$sr$((2 * NI)),$((NI * 4 * (t + 1))),$((NI * 4 * (t + 1)))"$'\n'; done
        expect_eq "threads: rank $r Sendrecv per thread exact" "$(printf '%s' "$sr" | sort)" \
            "$(q "$db" "SELECT sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv) FROM comm c
                        JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                        WHERE c.rank = $r AND s.line = $(line_of "$S/$src" mt-sendrecv)
                        GROUP BY c.thread" | norm | sort)"
        expect_eq "threads: rank $r Send and Recv lines: $((4 * NI)) x 8 B" "$((4 * NI)),$((32 * NI));$((4 * NI)),$((32 * NI))" \
            "$(q "$db" "SELECT sum(c.count), sum(c.bytes_sent + c.bytes_recv) FROM comm c
                        JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                        WHERE c.rank = $r AND s.name IN ('MPI_Send', 'MPI_Recv') AND s.file LIKE '%$src'
                        GROUP BY s.name ORDER BY s.name")"
    done
    plain_run mt.plain 2 "$tmp/plain/mt_requests"
    sort "$tmp/mt.plain.out" >"$tmp/mt.plain.sorted"
    sort "$tmp/mt.out" >"$tmp/mt.sorted"
    same_stdout "threads: same stdout with and without hprof" "$tmp/mt.plain.sorted" "$tmp/mt.sorted"
fi

# ---------------------------------------------------------------- abort.c
src=abort.c
rm -f "$tmp/ab.hpf" "$tmp/ab.rank1.hpf"
HP_OUTPUT=$tmp/ab.hpf hp_run ab 3 "$T/abort"
rc_hprof=$RC
plain_run ab.plain 3 "$tmp/plain/abort"
expect_eq "MPI_Abort: same exit status as without hprof" "$RC" "$rc_hprof"
expect_eq "MPI_Abort: one line names the file of the aborting rank" "1" \
    "$(grep -c "MPI_Abort (error code 3) on rank 1: its records up to then are in $tmp/ab.rank1.hpf" "$tmp/ab.err")"
same_stdout "MPI_Abort: same stdout with and without hprof" "$tmp/ab.plain.out" "$tmp/ab.out"
if [ -s "$tmp/ab.rank1.hpf" ]; then
    db=$tmp/ab.rank1.hpf
    expect_eq "MPI_Abort: rank 1's ring sends and receives" "2,20,800,0;0,20,0,800" \
        "$(comm_rows "$db" 1 MPI_Send $src "$(line_of "$S/$src" ab-send)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)'
           comm_rows "$db" 1 MPI_Recv $src "$(line_of "$S/$src" ab-recv)" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
    expect_eq "MPI_Abort: rank 1's sends just before the abort" "2,7,168" \
        "$(comm_rows "$db" 1 MPI_Send $src "$(line_of "$S/$src" ab-extra)" 'sum(c.count), sum(c.bytes_sent)')"
    expect_eq "MPI_Abort: only rank 1 has records, flagged aborted" "1,4" \
        "$(q "$db" "SELECT group_concat(rank), group_concat(flags) FROM rank")"
    expect_eq "MPI_Abort: hprof-query says which ranks are missing and how rank 1 ended" \
        "missing:   ranks 0, 2 of 3 have no records in this profile;ended:     rank 1 by MPI_Abort (their records end there)" \
        "$("$QUERY" "$db" 2>/dev/null | grep -E '^(missing|ended):' | oneline)"
else
    notok "MPI_Abort: rank 1 leaves its records" "no $tmp/ab.rank1.hpf; stderr: $(tail -3 "$tmp/ab.err" | oneline)"
fi

# ---------------------------------------------------------------- msg_rate.c
# The records of a message-rate pattern (windows of small Irecv/Isend and
# one Waitall, on MPI_COMM_WORLD and on a reversed communicator with
# MPI_ANY_SOURCE) against what the program counted itself, per site and
# world peer; each Waitall's time handed out to the requests it completed
# (the sites' transfer time equals the calls' time, to 1 ns a request);
# all of it within the rounds' time by the program's own clock.
src=msg_rate.c
NR=60 NA=40 W=16   # as in msg_rate.c

# printed RANK KIND - "peer,count,bytes" rows the program printed for KIND.
printed() {
    awk -v r="$1" -v k="$2" '$1 == "rank" && $2 == r && $5 == k && $6 > 0 { print $4 "," $6 "," $7 }' \
        "$tmp/mr.out" | sort -t, -k1n
}
# site_rows DB RANK NAME MARK BYTES_COL - per-peer count and bytes at a marked line.
site_rows() { comm_rows "$1" "$2" "$3" "$src" "$(line_of "$S/$src" "$4")" "sum(c.count), sum(c.$5)"; }
lines_of() { local m l=; for m in "$@"; do l="$l${l:+,}$(line_of "$S/$src" "$m")"; done; echo "$l"; }

hp_run mr 3 "$T/msg_rate"
if ran_ok mr; then
    db=$PROFILE
    plain_run mr.plain 3 "$tmp/plain/msg_rate"
    same_stdout "same stdout (counts, checksums) with and without hprof" \
        <(sort "$tmp/mr.plain.out") <(sort "$tmp/mr.out")
    sends="mr-isend-a mr-isend-b mr-any-isend" recvs="mr-irecv mr-any-irecv"
    waits="mr-waitall mr-any-waitall"
    for r in 0 1 2; do
        for part in "MPI_Isend mr-isend-a isend-a bytes_sent" "MPI_Isend mr-isend-b isend-b bytes_sent" \
                    "MPI_Irecv mr-irecv irecv bytes_recv" "MPI_Isend mr-any-isend any-isend bytes_sent" \
                    "MPI_Irecv mr-any-irecv any-irecv bytes_recv"; do
            set -- $part
            expect_eq "rank $r $1 at $2: per world peer, transfers and bytes as the program counted" \
                "$(printed $r "$3")" "$(site_rows "$db" $r "$1" "$2" "$4")"
        done
        expect_eq "rank $r: Isend and Irecv calls counted at their sites (a, b, any-isend, irecv, any-irecv)" \
            "$((NR * W)),$((NR * W)),$((NA * W)),$((2 * NR * W)),$((NA * W))" \
            "$(for m in $sends $recvs; do
                   case $m in *isend*) f=MPI_Isend ;; *) f=MPI_Irecv ;; esac
                   node_count "$db" $r $f $src "$(line_of "$S/$src" $m)"
               done | oneline | tr ';' ,)"
        expect_eq "rank $r: one Waitall call per round at each Waitall site" "$NR,$NA" \
            "$(node_count "$db" $r MPI_Waitall $src "$(line_of "$S/$src" mr-waitall)"),$(
               node_count "$db" $r MPI_Waitall $src "$(line_of "$S/$src" mr-any-waitall)")"
        expect_eq "rank $r: the Waitall sites keep no transfers" 0 \
            "$(q "$db" "SELECT count(*) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                        WHERE c.rank = $r AND s.name = 'MPI_Waitall' AND s.file LIKE '%$src'")"
        # Every posting call's time and every Waitall's time, handed out
        # among the requests it completed, is the posting sites' time.
        calls=$(q "$db" "SELECT sum(st.raw_time) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                         WHERE st.rank = $r AND s.file LIKE '%$src' AND s.line IN ($(lines_of $sends $recvs $waits))")
        tran=$(q "$db" "SELECT sum(c.tran + c.sync) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                        WHERE c.rank = $r AND s.file LIKE '%$src' AND s.line IN ($(lines_of $sends $recvs))")
        nreq=$(( (2 * W + W) * 2 * NR + 2 * W * NA ))
        expect_cmp "rank $r: the Isend/Irecv sites' transfer time is their calls' plus the Waitalls' time (within 1 ns a request)" \
            within "$calls" "$tran" "$(awk -v n=$nreq 'BEGIN { printf "%.9f", n * 1e-9 }')"
        own=$(awk -v r=$r '$1 == "rank" && $2 == r && $3 == "rounds_s" { print $4 }' "$tmp/mr.err")
        expect_cmp "rank $r: the calls' time is within the rounds' time by the program's clock" le "$own" "$calls"
    done
fi


[ "$skip" = 0 ] || echo "# $skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
