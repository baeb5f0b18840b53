#!/bin/bash
# tests/mpi/msg_rate.sh - the records of a message-rate pattern
# (msg_rate.c: windows of small MPI_Irecv/MPI_Isend completed by one
# MPI_Waitall, on MPI_COMM_WORLD and on a communicator with the ranks
# reversed, receives from MPI_ANY_SOURCE) against what the program
# counted itself: per call site and world peer the transfers and bytes it
# printed, the calls of each site, no records at the Waitall sites; every
# Waitall's time handed out to the requests it completed (the sites'
# transmission time equals the calls' time, to a tick per request); and
# all of it within the rounds' time by the program's own clock.
#
# usage: tests/mpi/msg_rate.sh [BUILDDIR]   (as tests/mpi/run.sh)
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
test_tmpdir msg_rate

programs_ready msg_rate
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

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
