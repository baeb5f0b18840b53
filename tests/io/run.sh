#!/bin/bash
# tests/io/run.sh - integration tests of the MPI coverage beyond
# point-to-point and classic collectives: MPI-IO (tests/io/io.c, 3 ranks),
# the neighbourhood collectives (neighbor.c, 4 ranks) and local MPI calls
# as call sites (locals.c, 2 ranks).  Each program states its ground truth
# in its header comment; this script asserts exactly those numbers through
# `hprof-query DB --sql ... --format csv`, and that every program prints
# the same with and without hprof.
#
# usage: tests/io/run.sh [BUILDDIR]   (default: the current directory, as
#        `make check` runs it).  Env: MPICC, MPIRUN, HPROF_KEEP_TMP=1.
# Prints "ok - NAME" / "not ok - NAME: expected X got Y" and a last line
# "N passed, M failed"; exits 1 if anything failed.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
T=$builddir/tests/io
S=$srcdir/tests/io

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir io

programs_ready io neighbor locals

# site_rows DB RANK FILE TAG COLS [WHERE] - per-peer sums at the line marked TAG.
site_rows() {
    local line
    line=$(line_of "$S/$3" "$4")
    q "$1" "SELECT c.peer, $5 FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
            WHERE c.rank = $2 AND s.file LIKE '%/$3' AND s.line = $line ${6:-}
            GROUP BY c.peer ORDER BY c.peer"
}
# site_calls DB RANK FILE TAG - "kind,name,calls" of the site(s) at the line marked TAG.
site_calls() {
    local line
    line=$(line_of "$S/$3" "$4")
    q "$1" "SELECT s.kind, s.name, sum(st.count) FROM stat st JOIN node n ON n.id = st.node
            JOIN site s ON s.id = n.site WHERE st.rank = $2 AND s.file LIKE '%/$3'
            AND s.line = $line GROUP BY s.id"
}
# by_peer - sorts "peer,..." rows the way the queries order them.
by_peer() { sort -t, -k1,1n; }

# ---------------------------------------------------------------- a. MPI-IO
mkdir -p "$tmp/io.plain.d" "$tmp/io.d"
plain_run io.plain 3 "$tmp/plain/io" "$tmp/io.plain.d"
hp_run io 3 -x HPROF_SUMMARY=full "$T/io" "$tmp/io.d"
if ran_ok io; then
    db=$PROFILE
    same_stdout "io: same stdout with and without hprof" "$tmp/io.plain.out" "$tmp/io.out"
    expect_eq "io: the program finds its files and byte counts correct" \
        "io: file contents and byte counts correct" "$(cat "$tmp/io.out")"
    for r in 0 1 2; do
        n1=$((1000 + 100 * r)) n2=$((200 * (r + 1))) n3=$((50 + r)) n4=$((300 + 7 * r))
        n5=$((64 * (r + 1))) n6=$((32 * (r + 2)))
        for w in "write-at $n1" "write-at-all $n2" "iwrite-at $n3" "write-all-begin $n4" \
            "write-shared $n5" "write-ordered $n6"; do
            set -- $w
            expect_eq "io: rank $r io-$1 writes $2 B to the file" "-2,1,$2,0" \
                "$(site_rows "$db" $r io.c "io-$1" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
        done
        for rd in "read-at $n1" "read-at-all $n2" "iread-at $n3" "read-all-begin $n4" \
            "read-shared $n5" "read-ordered $n6" "read-eof $((10 * (r + 1)))"; do
            set -- $rd
            expect_eq "io: rank $r io-$1 reads $2 B from the file" "-2,1,0,$2" \
                "$(site_rows "$db" $r io.c "io-$1" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
        done
        for tag in write-all-end read-all-end wait-w wait-r open-a close-a sync seek-shared; do
            expect_eq "io: rank $r io-$tag has no communication record" "" \
                "$(site_rows "$db" $r io.c "io-$tag" 'sum(c.count)')"
        done
        calls=
        for tag in open-a write-at iwrite-at wait-w write-all-begin write-all-end read-eof \
            read-all-end get-size close-a write-shared read-shared read-ordered; do
            calls="$calls$(site_calls "$db" $r io.c "io-$tag" | cut -d, -f3);"
        done
        expect_eq "io: rank $r node counts (one call per marked site)" \
            "1;1;1;1;1;1;1;1;1;1;1;1;1;" "$calls"
        expect_eq "io: rank $r has exactly the program's 13 file transfers" "13,13" \
            "$(q "$db" "SELECT count(*), sum(count) FROM comm WHERE rank = $r AND peer = -2")"
    done
    expect_eq "io: MPI_File_open is a communication site, MPI_File_seek a local call" \
        "comm,MPI_File_open,1;call,MPI_File_seek,1" \
        "$(site_calls "$db" 0 io.c io-open-a);$(site_calls "$db" 0 io.c io-seek-w)"
    expect_eq "io: no MPI site outside io.c (hprof's own MPI-IO and the library's are not recorded)" 0 \
        "$(q "$db" "SELECT count(*) FROM site WHERE kind IN ('comm', 'call') AND file NOT LIKE '%/io.c'")"
    Lra=$(line_of "$S/io.c" io-read-at)
    if grep -q "MPI_File_read_at@io.c:$Lra (file_a):  file: 3 x, 3.2 KiB" "$tmp/io.err"; then
        ok "io: the summary's top destinations show the peer as 'file'"
    else
        notok "io: the summary's top destinations show the peer as 'file'" \
            "$(grep 'file:\|io.c' "$tmp/io.err" | head -5 | oneline)"
    fi
    expect_eq "io: hprof-query --comm shows the peer as 'file', read from" "file,from,3,0,3300" \
        "$("$QUERY" "$db" --comm "io.c:$Lra" --format csv 2>&1 | tail -n +2 | cut -d, -f1-5)"
fi

# ---------------------------------------------------------------- b. neighbourhood collectives
plain_run nb.plain 4 "$tmp/plain/neighbor"
hp_run nb 4 "$T/neighbor"
if ran_ok nb; then
    db=$PROFILE
    same_stdout "neighbor: same stdout with and without hprof" "$tmp/nb.plain.out" "$tmp/nb.out"
    # expect_peers NAME RANK TAG ROWS... - rows "peer,count,sent,recv" in any order.
    expect_peers() {
        local name=$1 r=$2 tag=$3
        shift 3
        expect_eq "neighbor: rank $r $name" "$(printf '%s\n' "$@" | by_peer)" \
            "$(site_rows "$db" $r neighbor.c "$tag" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
    }
    for r in 0 1 2 3; do
        P=$(((r + 2) % 4)) Q=$((r ^ 1)) o=$((r % 2))
        expect_peers "allgather x3: P=$P 40/40, Q=$Q 20/20 per call" $r nb-allgather \
            "-1,3,180,180" "$P,3,120,120" "$Q,3,60,60"
        expect_peers "alltoall x2: P 48/48, Q 24/24 per call" $r nb-alltoall \
            "-1,2,144,144" "$P,2,96,96" "$Q,2,48,48"
        expect_peers "alltoallv: P 8(r+1)/8(P+1), Q 8(r+1)/8(Q+1), nothing to MPI_PROC_NULL" \
            $r nb-alltoallv "-1,1,$((16 * (r + 1))),$((8 * (P + 1) + 8 * (Q + 1)))" \
            "$P,1,$((8 * (r + 1))),$((8 * (P + 1)))" "$Q,1,$((8 * (r + 1))),$((8 * (Q + 1)))"
        expect_peers "Ineighbor_alltoall x2 completed by MPI_Wait" $r nb-ialltoall \
            "-1,2,144,144" "$P,2,96,96" "$Q,2,48,48"
        expect_peers "Ineighbor_allgatherv completed by MPI_Waitall" $r nb-iallgatherv \
            "-1,1,$((12 * (o + 1))),$((8 * (o + 1) + 4 * (2 - o)))" \
            "$P,1,$((8 * (o + 1))),$((8 * (o + 1)))" "$Q,1,$((4 * (o + 1))),$((4 * (2 - o)))"
        expect_peers "dist graph alltoall" $r nb-dist-alltoall "-1,1,32,32" \
            "$(((r + 1) % 4)),1,16,0" "$(((r + 2) % 4)),1,16,16" "$(((r + 3) % 4)),1,0,16"
        expect_peers "dist graph Ineighbor_allgather" $r nb-dist-iallgather "-1,1,48,48" \
            "$(((r + 1) % 4)),1,24,0" "$(((r + 2) % 4)),1,24,24" "$(((r + 3) % 4)),1,0,24"
        expect_eq "neighbor: rank $r Wait and Waitall sites have no records" "" \
            "$(site_rows "$db" $r neighbor.c nb-wait 'sum(c.count)')$(site_rows "$db" $r neighbor.c nb-waitall 'sum(c.count)')"
        expect_eq "neighbor: rank $r node counts" \
            "comm,MPI_Neighbor_allgather,3;comm,MPI_Ineighbor_alltoall,2;comm,MPI_Wait,2;comm,MPI_Ineighbor_allgatherv,1" \
            "$(site_calls "$db" $r neighbor.c nb-allgather);$(site_calls "$db" $r neighbor.c nb-ialltoall);$(site_calls "$db" $r neighbor.c nb-wait);$(site_calls "$db" $r neighbor.c nb-iallgatherv)"
    done
fi

# ---------------------------------------------------------------- c. local calls
plain_run loc.plain 2 "$tmp/plain/locals"
hp_run loc 2 "$T/locals"
if ran_ok loc; then
    db=$PROFILE
    same_stdout "locals: same stdout with and without hprof" "$tmp/loc.plain.out" "$tmp/loc.out"
    for r in 0 1; do
        got=
        for tag in type-vector type-commit type-free comm-group group-incl group-free dims-create \
            cart-shift comm-rank; do
            got="$got$(site_calls "$db" $r locals.c "loc-$tag");"
        done
        expect_eq "locals: rank $r local calls are call sites with exact counts" \
            "call,MPI_Type_vector,5;call,MPI_Type_commit,5;call,MPI_Type_free,5;call,MPI_Comm_group,1;call,MPI_Group_incl,4;call,MPI_Group_free,5;call,MPI_Dims_create,3;call,MPI_Cart_shift,2;call,MPI_Comm_rank,7;" \
            "$got"
    done
    expect_eq "locals: no local call is a communication site or has a record" "0,0" \
        "$(q "$db" "SELECT (SELECT count(*) FROM site WHERE kind = 'comm' AND name IN ('MPI_Type_vector',
                'MPI_Type_commit', 'MPI_Type_free', 'MPI_Comm_group', 'MPI_Group_incl', 'MPI_Group_free',
                'MPI_Dims_create', 'MPI_Cart_shift', 'MPI_Comm_rank')) AS comm_sites,
            (SELECT count(*) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                WHERE s.kind = 'call') AS call_records")"
    expect_eq "locals: every local call site has flag 128 (HP_SITEF_MPI)" 0 \
        "$(q "$db" "SELECT count(*) FROM site WHERE kind = 'call' AND (flags & 128) = 0")"
    for r in 0 1; do
        # rank.mpi_time is the profile's, from the raw times
        expect_cmp "locals: rank $r MPI time = communication + local call time" within 0 \
            "$(q "$db" "SELECT (SELECT mpi_time FROM rank WHERE rank = $r) - sum(st.raw_time) AS d FROM stat st
                JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                WHERE st.rank = $r AND (s.kind = 'comm' OR (s.flags & 128) != 0)")" 1e-9
        expect_cmp "locals: rank $r MPI time includes the local calls" gt 0 \
            "$(q "$db" "SELECT (SELECT mpi_time FROM rank WHERE rank = $r) - sum(st.time) AS d FROM stat st
                JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                WHERE st.rank = $r AND s.kind = 'comm'")"
    done
    if grep -q "call MPI_Dims_create@locals.c:$(line_of "$S/locals.c" loc-dims-create) (main)" "$tmp/loc.err"; then
        ok "locals: the summary lists MPI_Dims_create with the calls, not the communication sites"
    else
        notok "locals: the summary lists MPI_Dims_create with the calls" "$(grep Dims "$tmp/loc.err" | oneline)"
    fi
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
