#!/bin/bash
# tests/matrix/run.sh - hprof-query --matrix (the rank x rank
# point-to-point matrix), diff A B and scaling A B C.
#
# Ground truth 1: the known two-rank profile of tests/unit/mkprofile.c.
# Its comm rows: rank 0 MPI_Send@42 -> peer 1: 5 transfers, 5000 bytes
# sent, tran 1.0, sync 0.5; rank 1 MPI_Recv <- peer 0: 5, 5000 bytes
# received, tran 1.25, sync 0.75; rank 1 MPI_Send@60 -> peer 0: 1, 100
# bytes, 0.125, 0.125; MPI_Allreduce (collective, peer -1) 2 calls on each
# rank, tran + sync 0.5 + 1.0.  Each message counts once, at its sender;
# a receive's times go to the message's cell: 0->1 5000 bytes, 5
# messages, tran 2.25, sync 1.25; 1->0 100, 1, 0.125, 0.125; left out:
# the Allreduce's 16 + 16 = 32 collective bytes (its peer -1 rows), 4
# collective calls, 1.5 s.  CSV and JSON also give the
# sums over the pairs (5100 bytes, 6 messages, tran 2.375, sync 1.375:
# over all pairs, also when --top shows one), the collective bytes (32),
# calls (4), time (1.5) and share (32 / 5132 = 0.62%) and the file bytes (0); with
# SITE MPI_Send@app.c:60 only its pair (100, 1, 0.125, 0.125) and no
# collective.  Ranks 0..99 (a copy with
# rank rows added): the heat map bins 2 ranks per cell, 50 rows.
#
# diff: a run with itself has no rows ("no differences").  A copy with
# rank 0's loop@app.c:20/compute 0.5 s longer and 2 calls more, and the
# MPI_Send@app.c:60 node's records deleted: node compute 12.5 -> 13 s
# (+0.5, count 10 -> 12), site compute 16 -> 16.5 (+0.5, 13 -> 15), node
# and site MPI_Send@app.c:60 removed (-0.25 s, -1 call); shares of the
# thread time 34 s: 36.76% -> 38.24%.  The other way round they are added.
# A change within rounding (the time 5e-5 longer: diff's tolerance is
# 1e-4 of the time and 0.5 us) is not listed, a 1% one is.
#
# scaling: copies with 4 and 8 ranks (rank rows doubled, 2 threads max:
# resources 4, 8, 16) and every time (and wall) divided by 2 and 4, except
# MPI_Allreduce@app.c:50, divided by 1 and 2.  Node time = the longest
# thread, the root's the wall: root 12, 6, 3 s (speedups 2 and 4, efficiency 1, loss 0);
# MPI_Allreduce 1, 1, 0.5 (speedups 1 and 2, efficiencies 0.5, loss
# 0.5 - 1 x 4/16 = 0.25): listed first.  9 nodes.  CSV and JSON carry the
# runs' sizes: 2, 4, 8 ranks x 2 threads, resources 4, 8, 16.
#
# Ground truth 2: real runs.  tests/mpi/ring_alltoall at NP=4 (its header):
# exactly the 4 cells r -> (r+1)%4, 100 messages and 800000 bytes each; the
# alltoall's 4 x 3 x 7 x 40 = 3360 bytes and its two MPI_Reduce's 8 bytes
# from each of the 3 non-root ranks (48) are collective (left out, from
# the peer -1 rows): in CSV and JSON the pairs' sums 3,200,000 bytes and
# 400 messages, collective 3408 bytes (0.11% of 3,203,408).
# examples/jacobi 64 50 at NP=4: rank r exchanges (N+2) doubles with r-1
# (MPI_Sendrecv) and r+1 (MPI_Isend) every iteration: exactly the 6 cells
# r -> r+-1, 50 messages and 50 x 66 x 8 = 26400 bytes each; its diff with
# itself is empty; its diff with 60 iterations: the halo sites
# (MPI_Sendrecv, MPI_Isend) 200 -> 240 calls, the residual MPI_Allreduce
# (every 10 iterations) 20 -> 24; scaling of it at NP=1, 2, 4: the ranks x threads of
# each run's rank table, and the root's speedup and efficiency as they
# follow from the runs' wall times (the longest rank) and ranks x threads.
#
# usage: tests/matrix/run.sh [BUILDDIR]   (default: the current directory)
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
MERGE=$builddir/analyzer/hprof-merge
MKPROFILE=$builddir/tests/unit/mkprofile
T=$builddir/tests/mpi
S=$srcdir/tests/mpi

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir matrix
pass=0 fail=0 skip=0

for f in "$QUERY" "$MKPROFILE"; do
    if [ ! -x "$f" ]; then
        notok "prerequisites" "missing: $f (build with 'make check TESTS=' first)"
        echo "$pass passed, $fail failed"
        exit 1
    fi
done

# cells DB [ARGS...] - the matrix's pairs as CSV rows sender,receiver,bytes,messages
cells() {
    local db=$1
    shift
    "$QUERY" --matrix "$@" "$db" --format csv 2>&1 | awk -F, '$1 == "pair" { print $2","$3","$4","$5 }'
}
# summary DB [ARGS...] - what the CSV and the JSON say beside the pairs, one
# line each: the point-to-point sums (bytes, messages, tran, sync), the
# collective bytes, calls and time, the file bytes; the JSON also the
# site, ranks, pairs, the cells it lists and the collective share (%.2f)
summary() {
    local db=$1
    shift
    "$QUERY" --matrix "$@" "$db" --format csv >"$tmp/sum.csv" 2>"$tmp/sum.err" || true
    "$QUERY" --matrix "$@" "$db" --format json >"$tmp/sum.json" 2>"$tmp/sum.err" || true
    python3 - "$tmp/sum.csv" "$tmp/sum.json" <<'PY' || echo "summary: unreadable CSV or JSON"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
by = {r["kind"]: r for r in rows if r["kind"] != "pair"}
assert sorted(by) == ["collective", "file", "point-to-point"], sorted(by)
p, c, f = by["point-to-point"], by["collective"], by["file"]
assert all(r["sender"] == "" and r["receiver"] == "" for r in by.values())
g = lambda x: "%.12g" % float(x)   # sums in another order differ in the last bit
print("csv", p["bytes"], p["messages"], g(p["tran"]), g(p["sync"]),
      c["bytes"], c["calls"], g(c["time"]), f["bytes"])
d = json.load(open(sys.argv[2]))
p, lo = d["point_to_point"], d["left_out"]
print("json", p["bytes"], p["messages"], g(p["tran"]), g(p["sync"]),
      lo["collective_bytes"], lo["collective_calls"], g(lo["collective_time"]),
      lo["file_bytes"], d["site"], d["ranks"], d["pairs"], len(d["cells"]),
      "%.2f" % lo["collective_pct"])
PY
}
# fails_one_line NAME CMD... - exits non-zero with one line on stderr, nothing on stdout
fails_one_line() {
    local name=$1 rc=0
    shift
    "$@" >"$tmp/bad.out" 2>"$tmp/bad.err" </dev/null || rc=$?
    if [ "$rc" != 0 ] && [ "$(grep -vc '^hprof-query: merged' "$tmp/bad.err")" = 1 ] &&
        [ ! -s "$tmp/bad.out" ]; then
        ok "$name: one-line error, exit $rc"
    else
        notok "$name" "exit $rc, stderr '$(head -3 "$tmp/bad.err" | oneline)', stdout '$(head -3 "$tmp/bad.out" | oneline)'"
    fi
}

# ---------------------------------------------------------------- the known profile
"$MKPROFILE" "$tmp/p.hpf"
check_profile mkprofile "$tmp/p.hpf"
db=$tmp/p.db
expect_eq "mkprofile: matrix CSV: pairs (sender side, receive times to the message's cell), their sums, collective and file rows" \
    "kind,sender,receiver,bytes,messages,tran,sync,calls,time;pair,0,1,5000,5,2.25,1.25,,;pair,1,0,100,1,0.125,0.125,,;point-to-point,,,5100,6,2.375,1.375,,;collective,,,32,,,,4,1.5;file,,,0,,,,," \
    "$("$QUERY" --matrix "$db" --format csv | oneline)"
expect_eq "mkprofile: matrix summary in CSV (python csv) and JSON (python json, one document)" \
    "csv 5100 6 2.375 1.375 32 4 1.5 0;json 5100 6 2.375 1.375 32 4 1.5 0 None 2 2 2 0.62" \
    "$(summary "$db" | oneline)"
expect_eq "mkprofile: --matrix SITE summary (MPI_Send@app.c:60: its pair only, no collective)" \
    "csv 100 1 0.125 0.125 0 0 0 0;json 100 1 0.125 0.125 0 0 0 0 MPI_Send@app.c:60 2 1 1 0.00" \
    "$(summary "$db" MPI_Send@app.c:60 | oneline)"
expect_eq "mkprofile: --top 1 cuts the pairs, not the sums over all of them" \
    "csv 5100 6 2.375 1.375 32 4 1.5 0;json 5100 6 2.375 1.375 32 4 1.5 0 None 2 2 1 0.62" \
    "$(summary "$db" --top 1 | oneline)"
fails_one_line "--matrix --format hatchet (the listing's format only)" "$QUERY" --matrix "$db" --format hatchet
"$QUERY" --matrix "$db" >"$tmp/p.txt" 2>&1 || true
expect_eq "mkprofile: heat map rows (bytes)" "0 | @|;1 |. |" \
    "$(grep '^ *[0-9]* |' "$tmp/p.txt" | sed 's/^ *//' | oneline)"
# text gives bytes with a unit (5000 B = 4.88 KiB, 5132 B = 5.01 KiB)
expect_eq "mkprofile: legend with the max" 1 \
    "$(grep -c "'@' = 4.88 KiB (rank 0 -> 1)" "$tmp/p.txt" || true)"
expect_eq "mkprofile: the pairs' bytes with a unit in text" "4.88 KiB;100 B" \
    "$(awk '$1 ~ /^[0-9]+$/ && NF == 7 { print $3, $4 }' "$tmp/p.txt" | oneline)"
expect_eq "mkprofile: collective left out and stated" 1 \
    "$(grep -c '^left out (not cells): collective traffic 32 B sent (0.62% of the 5.01 KiB sent), 4 collective calls, 1.500000 s; file I/O 0 B$' "$tmp/p.txt" || true)"
expect_eq "mkprofile: --metric messages legend" 1 \
    "$("$QUERY" --matrix "$db" --metric messages | grep -c "'@' = 5 messages" || true)"
expect_eq "mkprofile: --metric tran and sync legends (both sides' time)" \
    "'@' = 2.250000 s transmission (rank 0 -> 1);'@' = 1.250000 s synchronization (rank 0 -> 1)" \
    "$(for m in tran sync; do "$QUERY" --matrix "$db" --metric $m | sed -n "s/^legend: .* from none to the max, //p"; done)"
expect_eq "mkprofile: --matrix SITE (MPI_Send@app.c:60 only)" "1,0,100,1" \
    "$(cells "$db" MPI_Send@app.c:60)"
expect_eq "mkprofile: --matrix=SITE form" "1,0,100,1" \
    "$("$QUERY" --matrix=MPI_Send@app.c:60 "$db" --format csv | awk -F, '$1 == "pair"' | cut -d, -f2-5)"
expect_eq "mkprofile: JSON cells" "0 1 5000 5 2.25 1.25;1 0 100 1 0.125 0.125" \
    "$("$QUERY" --matrix "$db" --format json | python3 -c 'import json, sys
for c in json.load(sys.stdin)["cells"]:
    print(c["sender"], c["receiver"], c["bytes"], c["messages"], c["tran"], c["sync"])' | oneline)"
expect_eq "mkprofile: --top 1 in CSV" "0,1,5000,5" \
    "$("$QUERY" --matrix "$db" --format csv --top 1 | awk -F, '$1 == "pair"' | cut -d, -f2-5)"
expect_eq "mkprofile: --top 1 in text says what it left out" 1 \
    "$("$QUERY" --matrix "$db" --top 1 | grep -c '^(1 more row; --top 0 lists them all)$' || true)"

# 100 ranks: binned 2 per cell
cp "$db" "$tmp/big.db"
for k in 1 2 3 4 5 6; do
    sqlite3 "$tmp/big.db" "INSERT INTO rank SELECT rank + (SELECT COUNT(*) FROM rank), host, pid,
        threads, start_ns, end_ns, wall, mpi_time, overflow_events, flags, omp_threads, overhead,
        overhead_sum, comp_clamps FROM rank WHERE rank + (SELECT COUNT(*) FROM rank) < 100"
done
sqlite3 "$tmp/big.db" "INSERT INTO comm(node, rank, thread, peer, count, bytes_sent,
    bytes_recv, tran, sync, min, max) SELECT node, 99, thread, 0, count, bytes_sent, bytes_recv,
    tran, sync, min, max FROM comm WHERE rank = 0 AND peer = 1"
"$MERGE" --aggregate "$tmp/big.db" >/dev/null    # the stored aggregates follow the edited rows
"$QUERY" --matrix "$tmp/big.db" >"$tmp/big.txt" 2>&1 || true
expect_eq "100 ranks: binned, said so, 50 rows; rank 99 -> 0 in block 49 -> 0" \
    "1;50;49 |@" \
    "$(grep -c '^(2 ranks per cell: ranks binned into 50 blocks' "$tmp/big.txt");$(grep -c '^ *[0-9]* |' "$tmp/big.txt");$(grep '^ *49 |' "$tmp/big.txt" | sed 's/^ *//' | cut -c1-5)"

# bad input
sqlite3 "$tmp/other.db" "CREATE TABLE x(a)"
fails_one_line "--matrix unknown SITE" "$QUERY" --matrix nosuch "$db"
fails_one_line "--matrix of a non-hprof database" "$QUERY" --matrix "$tmp/other.db"
fails_one_line "diff with a non-hprof database" "$QUERY" diff "$db" "$tmp/other.db"
fails_one_line "diff of one run" "$QUERY" diff "$db"
fails_one_line "scaling of one run" "$QUERY" scaling "$db"
fails_one_line "scaling of 12 runs (SQLite attaches 10 to the first)" "$QUERY" scaling \
    "$db" "$db" "$db" "$db" "$db" "$db" "$db" "$db" "$db" "$db" "$db" "$db"
fails_one_line "--metric unknown" "$QUERY" --matrix "$db" --metric foo

# diff
"$QUERY" diff "$db" "$db" >"$tmp/self.txt" 2>&1 || true
expect_eq "diff of a run with itself: no differences (text)" "no differences" "$(tail -1 "$tmp/self.txt")"
expect_eq "diff of a run with itself: no rows (CSV, JSON)" "1;[]" \
    "$("$QUERY" diff "$db" "$db" --format csv | wc -l);$("$QUERY" diff "$db" "$db" --format json | tr -d ' ')"
cp "$db" "$tmp/d2.db"
sqlite3 "$tmp/d2.db" "UPDATE stat SET time = time + 0.5, count = count + 2 WHERE rank = 0 AND node =
    (SELECT id FROM node_path WHERE path = '/main/loop@app.c:20/compute');
    DELETE FROM stat WHERE node = (SELECT id FROM node_path WHERE path = '/main/MPI_Send@app.c:60')"
"$MERGE" --aggregate "$tmp/d2.db" >/dev/null
check_profile "diff copy" "$tmp/d2.db"
expect_eq "diff: changed and removed, by |change in time|" \
    "node,/main/loop@app.c:20/compute,changed,12.5,13,0.5,10,12,2
site,compute,changed,16,16.5,0.5,13,15,2
node,/main/MPI_Send@app.c:60,removed,0.25,,-0.25,1,,-1
site,MPI_Send@app.c:60,removed,0.25,,-0.25,1,,-1" \
    "$("$QUERY" diff "$db" "$tmp/d2.db" --format csv | tail -n +2 | cut -d, -f1-9)"
expect_eq "diff: shares of the thread time (text: the change)" "1.47" \
    "$("$QUERY" diff "$db" "$tmp/d2.db" | awk '$2 == "/main/loop@app.c:20/compute" { print $10 }')"
expect_eq "diff: shares of the thread time (CSV: both runs and the change)" "36.76 38.24 1.47" \
    "$("$QUERY" diff "$db" "$tmp/d2.db" --format csv | awk -F, '$2 == "/main/loop@app.c:20/compute" { printf "%.2f %.2f %.2f", $10, $11, $12 }')"
# text prints each context once: MPI_Send@app.c:60 has one context, its
# site row is its node row again; compute's site (two contexts) stays
expect_eq "diff (text): each context once, within 120 columns" \
    "node /main/loop@app.c:20/compute;site compute;node /main/MPI_Send@app.c:60;0" \
    "$("$QUERY" diff "$db" "$tmp/d2.db" | tail -n +4 | awk '{ print $1, $2 }' | oneline);$("$QUERY" diff "$db" "$tmp/d2.db" | tail -n +2 | awk 'length($0) > 120' | wc -l)"
expect_eq "diff B A: MPI_Send@app.c:60 added" "added;added;changed;changed" \
    "$("$QUERY" diff "$tmp/d2.db" "$db" --format csv | tail -n +2 | cut -d, -f3 | sort)"
expect_eq "diff --top 1" 1 "$("$QUERY" diff "$db" "$tmp/d2.db" --format json --top 1 | grep -c '"what"')"
# rounding is not a change (the tolerance of analyzer/query/compare.c:
# 1e-4 of the time and 0.5 us): compute 5e-5 longer on every rank (12.5
# -> 12.500625 s, its site 16 -> 16.000625) is not listed, MPI_Send@60's
# node and site 1% longer (0.25 -> 0.2525) are
cp "$db" "$tmp/d3.db"
sqlite3 "$tmp/d3.db" "UPDATE stat SET time = time * (1 + 5e-5) WHERE node =
    (SELECT id FROM node_path WHERE path = '/main/loop@app.c:20/compute');
    UPDATE stat SET time = time * 1.01 WHERE node =
    (SELECT id FROM node_path WHERE path = '/main/MPI_Send@app.c:60')"
"$MERGE" --aggregate "$tmp/d3.db" >/dev/null
check_profile "diff copy with a rounding change" "$tmp/d3.db"
expect_eq "diff: a change within rounding (5e-5 of the time) is not one, 1% is" \
    "node,/main/MPI_Send@app.c:60,changed,0.25,0.2525,0.0025
site,MPI_Send@app.c:60,changed,0.25,0.2525,0.0025" \
    "$("$QUERY" diff "$db" "$tmp/d3.db" --format csv | tail -n +2 | cut -d, -f1-6)"

# scaling
mkvariant() { # OUT FACTOR ALLREDUCE_FACTOR DOUBLINGS
    local k
    cp "$db" "$1"
    for ((k = 0; k < $4; k++)); do
        sqlite3 "$1" "INSERT INTO rank SELECT rank + (SELECT COUNT(*) FROM rank), host, pid, threads,
            start_ns, end_ns, wall, mpi_time, overflow_events, flags, omp_threads, overhead,
            overhead_sum, comp_clamps FROM rank"
    done
    sqlite3 "$1" "UPDATE rank SET wall = wall / $2; UPDATE stat SET
        time = time / (CASE WHEN node = $ar THEN $3 ELSE $2 END),
        min = min / (CASE WHEN node = $ar THEN $3 ELSE $2 END),
        max = max / (CASE WHEN node = $ar THEN $3 ELSE $2 END)"
    "$MERGE" --aggregate "$1" >/dev/null
}
ar=$(q "$db" "SELECT id FROM node_path WHERE path = '/main/MPI_Allreduce@app.c:50'")
mkvariant "$tmp/s2.db" 2 1 1
mkvariant "$tmp/s3.db" 4 2 2
check_profile "scaling copy 2" "$tmp/s2.db"
check_profile "scaling copy 3" "$tmp/s3.db"
"$QUERY" scaling "$db" "$tmp/s2.db" "$tmp/s3.db" >"$tmp/sc.txt" 2>&1 || true
expect_eq "scaling: ranks x threads of each run" \
    "run 1: $db (2 ranks x 2 threads);run 2: $tmp/s2.db (4 ranks x 2 threads);run 3: $tmp/s3.db (8 ranks x 2 threads)" \
    "$(grep '^run [0-9]:' "$tmp/sc.txt" | oneline)"
"$QUERY" scaling "$db" "$tmp/s2.db" "$tmp/s3.db" --format csv >"$tmp/sc.csv" 2>&1 || true
expect_eq "scaling CSV: one table, the runs' rows (kind run) with their ranks, threads, resources" \
    "kind,node,time_1,time_2,time_3,speedup_2,efficiency_2,speedup_3,efficiency_3,loss,run,path,ranks,threads,resources;run,,,,,,,,,,1,$db,2,2,4;run,,,,,,,,,,2,$tmp/s2.db,4,2,8;run,,,,,,,,,,3,$tmp/s3.db,8,2,16" \
    "$(sed -n 1,4p "$tmp/sc.csv" | oneline)"
expect_eq "scaling: the worst loss first (MPI_Allreduce), then the root" \
    "node,/main/MPI_Allreduce@app.c:50,1,1,0.5,1,0.5,2,0.5,0.25,,,,,;node,/,12,6,3,2,1,4,1,0,,,,," \
    "$(sed -n 5,6p "$tmp/sc.csv" | oneline)"
expect_eq "scaling: every other node scales perfectly (loss 0, efficiency 1)" 8 \
    "$(awk -F, 'NR > 5 && $1 == "node" && $7 == 1 && $9 == 1 && $10 == 0' "$tmp/sc.csv" | wc -l)"
expect_eq "scaling CSV loads (python csv): 3 runs, 9 nodes" "3 9" \
    "$(python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(sum(r["kind"] == "run" for r in rows), sum(r["kind"] == "node" for r in rows))' "$tmp/sc.csv")"
scaling_json() {
    "$QUERY" scaling "$db" "$tmp/s2.db" "$tmp/s3.db" --format json "$@" | python3 -c 'import json, sys
d = json.load(sys.stdin)
for r in d["runs"]:
    print(r["run"], r["path"], r["ranks"], r["threads"], r["resources"])
print(len(d["nodes"]), d["nodes"][0]["node"], d["nodes"][0]["loss"])'
}
expect_eq "scaling JSON (one document): the runs' sizes, 9 nodes, the worst loss first" \
    "1 $db 2 2 4;2 $tmp/s2.db 4 2 8;3 $tmp/s3.db 8 2 16;9 /main/MPI_Allreduce@app.c:50 0.25" \
    "$(scaling_json | oneline)"
expect_eq "scaling --top 2 (JSON): two nodes, every run" \
    "1 $db 2 2 4;2 $tmp/s2.db 4 2 8;3 $tmp/s3.db 8 2 16;2 /main/MPI_Allreduce@app.c:50 0.25" \
    "$(scaling_json --top 2 | oneline)"

# ---------------------------------------------------------------- real runs
if ! command -v "$MPIRUN" >/dev/null || [ ! -x "$T/ring_alltoall" ] ||
    [ ! -x "$builddir/examples/jacobi" ]; then
    skipped "real runs" "no $MPIRUN, $T/ring_alltoall or examples/jacobi"
else
    programs_ready ring_alltoall
    hp_run ring 4 "$T/ring_alltoall"
    if ran_ok ring; then
        plain_run ring-plain 4 "$tmp/plain/ring_alltoall"
        same_stdout "ring_alltoall: stdout the same with and without hprof" \
            "$tmp/ring-plain.out" "$tmp/ring.out"
        rdb=${PROFILE%.hpf}.db
        expect_eq "ring_alltoall NP=4: exactly the ring cells, 100 messages of 8000 bytes" \
            "0,1,800000,100;1,2,800000,100;2,3,800000,100;3,0,800000,100" "$(cells "$PROFILE")"
        "$QUERY" --matrix "$rdb" >"$tmp/ring.txt" 2>&1 || true
        expect_eq "ring_alltoall: heat map" "0 | @  |;1 |  @ |;2 |   @|;3 |@   |" \
            "$(grep '^ *[0-9]* |' "$tmp/ring.txt" | sed 's/^ *//' | oneline)"
        calls=$(q "$rdb" "SELECT SUM(count) FROM comm WHERE peer = -1")
        expect_eq "ring_alltoall: the collectives' 3408 bytes left out (alltoall 3360, reduces 48)" 1 \
            "$(grep -c "^left out (not cells): collective traffic 3.33 KiB sent (0.11% of the 3.06 MiB sent), $calls collective calls" "$tmp/ring.txt" || true)"
        tt=$(q "$rdb" "SELECT SUM(tran) || ' ' || SUM(sync) FROM comm_matrix")
        ct=$(q "$rdb" "SELECT SUM(c.tran + c.sync) FROM comm c JOIN node n ON n.id = c.node
            JOIN site s ON s.id = n.site WHERE c.peer = -1 OR (c.peer >= 0 AND (s.flags & 4) != 0)")
        tt=$(python3 -c "import sys; print(*('%.12g' % float(x) for x in sys.argv[1].split() + sys.argv[2:]))" "$tt" "$ct")
        expect_eq "ring_alltoall: summary in CSV and JSON: 4 x 800000 bytes, 400 messages; collective 3408 bytes, $calls calls (0.11%)" \
            "csv 3200000 400 ${tt% *} 3408 $calls ${tt##* } 0;json 3200000 400 ${tt% *} 3408 $calls ${tt##* } 0 None 4 4 4 0.11" \
            "$(summary "$rdb" | oneline)"
        expect_eq "ring_alltoall: --matrix MPI_Alltoall has no cell" "" "$(cells "$rdb" MPI_Alltoall)"
        expect_eq "ring_alltoall: --matrix MPI_Send: the same cells" \
            "0,1,800000,100;1,2,800000,100;2,3,800000,100;3,0,800000,100" "$(cells "$rdb" MPI_Send)"
    fi

    hp_run jac 4 -x OMP_NUM_THREADS=2 "$builddir/examples/jacobi" 64 50
    if ran_ok jac; then
        jdb=${PROFILE%.hpf}.db
        expect_eq "jacobi NP=4: exactly the cells r -> r+-1, 50 messages of 66 doubles" \
            "0,1,26400,50;1,0,26400,50;1,2,26400,50;2,1,26400,50;2,3,26400,50;3,2,26400,50" \
            "$(cells "$PROFILE")"
        "$QUERY" diff "$jdb" "$jdb" >"$tmp/jself.txt" 2>&1 || true
        expect_eq "jacobi: diff with itself is empty" "no differences" "$(tail -1 "$tmp/jself.txt")"
        jdb4=$jdb
        hp_run jac60 4 -x OMP_NUM_THREADS=2 "$builddir/examples/jacobi" 64 60
        if ran_ok jac60; then
            JSRC=$srcdir/examples/jacobi.c
            Lsr=$(line_of "$JSRC" HALO-SENDRECV)
            Lis=$(line_of "$JSRC" HALO-ISEND)
            Lar=$(line_of "$JSRC" RESIDUAL-ALLREDUCE)
            "$QUERY" diff "$jdb" "${PROFILE%.hpf}.db" --format csv >"$tmp/j60.csv" 2>&1 || true
            expect_eq "jacobi 50 -> 60 iterations: calls per site +4 ranks x 10 (halo), +4 x 1 (residual)" \
                "MPI_Sendrecv@jacobi.c:$Lsr,changed,200,240,40;MPI_Isend@jacobi.c:$Lis,changed,200,240,40;MPI_Allreduce@jacobi.c:$Lar,changed,20,24,4" \
                "$(for l in "MPI_Sendrecv@jacobi.c:$Lsr" "MPI_Isend@jacobi.c:$Lis" "MPI_Allreduce@jacobi.c:$Lar"; do
                    awk -F, -v l="$l" '$1 == "site" && $2 == l { print $2","$3","$7","$8","$9 }' "$tmp/j60.csv"; done)"
        fi
        hp_run jac1 1 -x OMP_NUM_THREADS=2 "$builddir/examples/jacobi" 64 50
        jdb1=${PROFILE%.hpf}.db
        hp_run jac2 2 -x OMP_NUM_THREADS=2 "$builddir/examples/jacobi" 64 50
        jdb2=${PROFILE%.hpf}.db
        if ran_ok jac2; then
            "$QUERY" scaling "$jdb1" "$jdb2" "$jdb4" >"$tmp/jsc.txt" 2>&1 || true
            expect_eq "jacobi scaling: 1, 2, 4 ranks x the threads each recorded" \
                "$(for d in "$jdb1" "$jdb2" "$jdb4"; do q "$d" "SELECT COUNT(*) || ' rank' || CASE COUNT(*) WHEN 1 THEN '' ELSE 's' END
                    || ' x ' || MAX(threads) || ' thread' || CASE MAX(threads) WHEN 1 THEN '' ELSE 's' END AS size FROM rank"; done | oneline)" \
                "$(sed -n 's/^run [0-9]: .* (\(.*\))$/\1/p' "$tmp/jsc.txt" | oneline)"
            # the root's speedup and efficiency follow from the runs' wall times
            rt() { q "$1" "SELECT MAX(wall) FROM rank"; }
            res() { q "$1" "SELECT COUNT(*) * MAX(threads) FROM rank"; }
            want=$(awk -v a="$(rt "$jdb1")" -v b="$(rt "$jdb2")" -v c="$(rt "$jdb4")" \
                -v ra="$(res "$jdb1")" -v rb="$(res "$jdb2")" -v rc="$(res "$jdb4")" \
                'BEGIN { printf "%.3f %.3f %.3f %.3f\n", a / b, a / b * ra / rb, a / c, a / c * ra / rc }')
            expect_eq "jacobi scaling: the root's speedups and efficiencies ($want)" "$want" \
                "$("$QUERY" scaling "$jdb1" "$jdb2" "$jdb4" --top 0 | awk '$1 == "/" { print $5, $6, $7, $8 }')"
        fi
    fi
fi

[ "$skip" = 0 ] || echo "# $skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
