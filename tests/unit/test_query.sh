#!/bin/sh
# test_query.sh - end-to-end test of hprof-merge and hprof-query on the
# known profile written by mkprofile: exact numbers in CSV output, JSON
# validity, error messages and exit codes.  Run from the build directory
# (as `make check` does) or with top_builddir set.
set -u
top=${top_builddir:-.}
MKPROFILE=$top/tests/unit/mkprofile
MERGE=$top/analyzer/hprof-merge
QUERY=$top/analyzer/hprof-query
dir=$(mktemp -d "${TMPDIR:-/tmp}/test_query.XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/expect.sh"

$MKPROFILE "$dir/p.hpf" || exit 99

expect_out merge "hprof-merge: wrote $dir/p.db (2 ranks, 8 sites, 9 nodes)" $MERGE "$dir/p.hpf"
expect_err merge-exists 1 "hprof-merge: $dir/p.db exists (use -f to overwrite)" \
    $MERGE "$dir/p.hpf"
expect_out merge-force "hprof-merge: wrote $dir/q.db (2 ranks, 8 sites, 9 nodes)" \
    $MERGE "$dir/p.hpf" -o "$dir/q.db" -f
expect_err merge-usage 2 "hprof-merge: unknown option -x (try --help)" $MERGE -x

# pct is a share of the thread time, wall x threads recording summed over
# ranks: 10 x 1 + 12 x 2 = 34 s, which the root row carries (3 threads).
# excl: per rank and thread a node's time less its children's, summed:
# main 10 - 8 - 0.5 (rank 0) + 12 - 9 - 1 - 0.25 (rank 1) = 3.25; loop
# 8 - 1.5 - 6 + 9 - 2 - 6.5 = 1; the root's is the thread time its
# children leave: 34 - 22 - 3.5 = 8.5
# worst_rank: the rank with the most time in the node (main 12 > 10, loop
# 9 > 8, compute 6.5 > 6, Allreduce 1 > 0.5; MPI_Send@42 only on rank 0);
# worst_thread: that rank's thread with the most (compute at the root runs
# on rank 1's thread 1); the root's worst rank has the most wall x threads
# (12 x 2 > 10 x 1) and no worst thread (every thread spans the wall)
expect_out listing "node,depth,site,calls,time,mean,max,imbalance,pct,parent,excl,worst_rank,worst_thread
1,0,root,3,34,17,24,1.41176470588235,100,,8.5,1,
2,1,main,2,22,11,12,1.09090909090909,64.7058823529412,1,3.25,1,0
3,2,loop@app.c:20,10,17,8.5,9,1.05882352941176,50,2,1,1,0
5,3,compute,10,12.5,6.25,6.5,1.04,36.7647058823529,3,12.5,1,0
7,3,MPI_Recv@libapp.so+0x1a2b,5,2,1,2,2,5.88235294117647,3,2,1,0
4,3,MPI_Send@app.c:42,5,1.5,0.75,1.5,2,4.41176470588235,3,1.5,0,0
6,2,MPI_Allreduce@app.c:50,4,1.5,0.75,1,1.33333333333333,4.41176470588235,2,1.5,1,0
8,2,MPI_Send@app.c:60,1,0.25,0.125,0.25,2,0.735294117647059,2,0.25,1,0
9,1,compute,3,3.5,1.75,3.5,2,10.2941176470588,1,3.5,1,1" $QUERY "$dir/p.db" --format csv
# --top 30 loads the listed nodes and their siblings only; --top 0 (and
# CSV or JSON without --top) the whole tree at once: the same rows
expect_out listing-all-at-once "$($QUERY "$dir/p.db" --format csv --top 30)" $QUERY "$dir/p.db" --format csv --top 0

expect_out depth-top "node,depth,site,calls,time,mean,max,imbalance,pct,parent,excl,worst_rank,worst_thread
1,0,root,3,34,17,24,1.41176470588235,100,,8.5,1,
2,1,main,2,22,11,12,1.09090909090909,64.7058823529412,1,3.25,1,0
3,2,loop@app.c:20,10,17,8.5,9,1.05882352941176,50,2,1,1,0" \
    $QUERY "$dir/p.db" --format=csv --depth 2 --top 3
expect_out more-rows "(3 more rows; --top 0 lists them all)" sh -c "$QUERY '$dir/p.db' --depth 2 --top 3 | tail -1"
# --top in every report: text always (default 30), CSV and JSON when given
expect_out flat-more "(5 more rows; --top 0 lists them all)" sh -c "$QUERY '$dir/p.db' --flat --top 3 | tail -1"
expect_out comm-more "(1 more row; --top 0 lists them all)" sh -c "$QUERY '$dir/p.db' --comm main --top 2 | tail -1"
expect_out comm-top-csv "3 4" sh -c "echo \$($QUERY '$dir/p.db' --comm main --top 2 --format csv | wc -l) \$($QUERY '$dir/p.db' --comm main --format csv | wc -l)"
expect_out sql-no-default-top "10" sh -c "$QUERY '$dir/p.db' --sql 'SELECT id FROM node' | wc -l"
expect_out no-more-rows "9 compute" sh -c "$QUERY '$dir/p.db' --top 9 | tail -1 | awk '{ print \$1, \$2 }'"

# a site's worst rank and thread: compute has 6 s on rank 0, 6.5 + 3.5 on
# rank 1, whose thread 0 has the 6.5; the root's records: 10 on rank 0,
# 12 + 4 on rank 1 (thread 0 the 12).  excl is the tree's: a site's nodes'
# time minus their children's, per rank and thread: root 26 - main 22 -
# compute@root 3.5 = 0.5, main 22 - loop 17 - Allreduce 1.5 - Send 0.25 =
# 3.25, loop 17 - 12.5 - 2 - 1.5 = 1, compute (two leaves) 12.5 + 3.5 = 16
expect_out flat "site,label,kind,calls,time,excl,mean,max,imbalance,pct,worst_rank,worst_thread
1,root,root,3,26,0.5,13,16,1.23076923076923,76.4705882352941,1,0
2,main,procedure,2,22,3.25,11,12,1.09090909090909,64.7058823529412,1,0
3,loop@app.c:20,loop,10,17,1,8.5,9,1.05882352941176,50,1,0
6,compute,procedure,13,16,16,8,10,1.25,47.0588235294118,1,0" $QUERY "$dir/p.db" --flat --top 4 --format csv

expect_out sql "site,label,calls,time
2,main,2,22
6,compute,13,16" \
    $QUERY "$dir/p.db" --sql "SELECT site, label, calls, time FROM site_time
        WHERE kind IN ('procedure', 'comm') ORDER BY time DESC LIMIT 2" --format csv

# MPI share per rank: rank 1's second thread made no MPI call, so both
# ranks divide by 1 thread x wall (2 s of 10, 3 s of 12).
expect_out rank-mpi "rank,wall,mpi_time,mpi_threads,mpi_pct
0,10,2,1,20
1,12,3,1,25" $QUERY "$dir/p.db" --sql "SELECT * FROM rank_mpi ORDER BY rank" --format csv

expect_out comm "peer,dir,count,bytes_sent,bytes_recv,tran,sync,min,max
*all*,all,4,32,32,0.75,0.75,0.125,0.5
0,to,1,100,0,0.125,0.125,0.125,0.125
1,to,5,5000,0,1,0.5,0.1,0.3" $QUERY "$dir/p.db" --comm main --format csv

expect_out comm-by-rank "rank,peer,dir,count,bytes_sent,bytes_recv,tran,sync,min,max
0,1,to,5,5000,0,1,0.5,0.1,0.3
1,0,to,1,100,0,0.125,0.125,0.125,0.125" \
    $QUERY "$dir/p.db" --comm MPI_Send --by-rank --format csv

expect_out comm-file-line "peer,dir,count,bytes_sent,bytes_recv,tran,sync,min,max
0,to,1,100,0,0.125,0.125,0.125,0.125" $QUERY "$dir/p.db" --comm /src/app.c:60 --format csv

expect_out comm-from "peer,dir,count,bytes_sent,bytes_recv,tran,sync,min,max
0,from,5,0,5000,1.25,0.75,0.2,0.3" $QUERY "$dir/p.db" --comm MPI_Recv --format csv

# in JSON a peer is a number, null for a whole communicator, with flags
expect_out comm-json '[
  {"peer": null, "all": 1, "file": 0, "dir": "all", "count": 4, "bytes_sent": 32, "bytes_recv": 32, "tran": 0.75, "sync": 0.75, "min": 0.125, "max": 0.5}
]' $QUERY "$dir/p.db" --comm MPI_Allreduce --format json

# worst: the rank with the most time (the lowest of equals)
expect_out ranks "rank,calls,time,tran,sync,worst
0,5,6,0,0,0
1,8,10,0,0,1" $QUERY "$dir/p.db" --ranks compute --format csv

expect_out ranks-comm "rank,calls,time,tran,sync,worst
0,5,1.5,1,0.5,1
1,0,0,0,0,0" $QUERY "$dir/p.db" --ranks app.c:42 --format csv

expect_out ranks-node "rank,calls,time,tran,sync,worst
0,0,0,0,0,0
1,5,2,1.25,0.75,1" $QUERY "$dir/p.db" --ranks '#7' --format csv

# a site by the label the reports print (one of two MPI_Send sites), or by
# its id (--flat's site column: 5 is MPI_Allreduce@app.c:50)
expect_out ranks-label "rank,calls,time,tran,sync,worst
0,0,0,0,0,0
1,1,0.25,0.125,0.125,1" $QUERY "$dir/p.db" --ranks 'MPI_Send@app.c:60' --format csv
expect_out ranks-site-id "rank,calls,time,tran,sync,worst
0,2,0.5,0.25,0.25,0
1,2,1,0.5,0.5,1" $QUERY "$dir/p.db" --ranks site:5 --format csv
expect_out flat-site-5 "5,MPI_Allreduce@app.c:50" sh -c "$QUERY '$dir/p.db' --flat --format csv | cut -d, -f1,2 | grep '^5,'"

expect_out sql-quoting 'a,b
"x,""y""",' $QUERY "$dir/p.db" --sql "SELECT 'x,\"y\"' AS a, NULL AS b" --format csv

# JSON of every report must parse
for args in "" "--flat" "--comm main" "--comm main --by-rank" "--ranks compute"; do
    # shellcheck disable=SC2086
    $QUERY "$dir/p.db" $args --format json >"$dir/out.json" 2>"$dir/err" ||
        fail "json $args: $(cat "$dir/err")"
    python3 -m json.tool "$dir/out.json" >/dev/null 2>&1 || fail "json $args: invalid JSON"
done
expect_out json-values '[
  {"rank": 0, "host": "node0", "wall": 10}
]' $QUERY "$dir/p.db" --sql "SELECT rank, host, wall FROM rank WHERE rank = 0" --format json

# a profile is merged on first use into the database next to it
rm -f "$dir/p.db"
expect_out query-profile "rank
0
1" $QUERY "$dir/p.hpf" --sql "SELECT rank FROM rank ORDER BY rank" --format csv
[ -f "$dir/p.db" ] || fail "query-profile: $dir/p.db not created"

# errors: one line, exit 1 at run time, 2 for usage
expect_err unknown-site 1 "hprof-query: no site matches 'nosuch' in $dir/p.db" \
    $QUERY "$dir/p.db" --ranks nosuch
expect_err ambiguous 1 "hprof-query: 'MPI_Send' is ambiguous, it matches 2 sites: MPI_Send@app.c:42 (comm), MPI_Send@app.c:60 (comm); name one by its label, site:N or a node id #N" \
    $QUERY "$dir/p.db" --ranks MPI_Send
expect_err unknown-site-id 1 "hprof-query: no site matches 'site:99' in $dir/p.db" \
    $QUERY "$dir/p.db" --ranks site:99
expect_err bad-sql 1 "hprof-query: $dir/p.db: no such table: nosuch" \
    $QUERY "$dir/p.db" --sql "SELECT * FROM nosuch"
expect_err bad-option 2 "hprof-query: unknown option --bogus (try --help)" \
    $QUERY "$dir/p.db" --bogus
expect_err bad-format 2 "hprof-query: --format must be text, csv, json or hatchet, not xml (try --help)" \
    $QUERY "$dir/p.db" --format xml
expect_err no-file 1 "hprof-query: $dir/none.db: No such file or directory" \
    $QUERY "$dir/none.db"

# a corrupt profile: one payload byte of rank 1's NODE section flipped
off=$(python3 -c "
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
pos, nodes = 16, []
while pos + 16 <= len(d):
    tag, crc, n = struct.unpack_from('<IIQ', d, pos)
    if tag == 0x45444f4e:  # 'NODE'
        nodes.append(pos)
    pos += 16 + n
d[nodes[1] + 16 + 5] ^= 0xff
open(sys.argv[2], 'wb').write(d)
print(nodes[1])" "$dir/p.hpf" "$dir/bad.hpf") || exit 99
expect_err corrupt-merge 1 "hprof-merge: $dir/bad.hpf: offset $off: checksum mismatch in NODE section of rank 1" \
    $MERGE "$dir/bad.hpf"
expect_err corrupt-query 1 "hprof-query: $dir/bad.hpf: offset $off: checksum mismatch in NODE section of rank 1" \
    $QUERY "$dir/bad.hpf"
[ -z "$(ls "$dir" | grep '^bad\.db')" ] || fail "corrupt profile left $(ls "$dir" | grep '^bad\.db')"

# a value outside its domain with a valid checksum: clock kind 0 in RUN
python3 -c "
import struct, sys, zlib
d = bytearray(open(sys.argv[1], 'rb').read())
n = struct.unpack_from('<Q', d, 24)[0]
struct.pack_into('<I', d, 36, 0)
struct.pack_into('<I', d, 20, zlib.crc32(bytes(d[32:32 + n])))
open(sys.argv[2], 'wb').write(d)" "$dir/p.hpf" "$dir/clock.hpf" || exit 99
expect_err domain-merge 1 "hprof-merge: $dir/clock.hpf: offset 36: RUN section: clock 0 is not a defined clock kind (1 tsc, 2 monotonic)" \
    $MERGE "$dir/clock.hpf"
[ ! -e "$dir/clock.db" ] || fail "domain-merge: left $dir/clock.db"

# a sparse 1 GiB file whose RUN section claims all of it: refused by the
# rank count it holds, before a checksum reads the gigabyte (peak
# resident memory under 64 MB where GNU time can tell), also when a
# database already sits beside it (its identity is not read either)
python3 -c "
import struct, sys
d = open(sys.argv[1], 'rb').read(16)
f = open(sys.argv[2], 'wb')
f.write(d + struct.pack('<IIQ', 0x204e5552, 0, (1 << 30) - 32))
f.truncate(1 << 30)" "$dir/p.hpf" "$dir/sparse.hpf" || exit 99
sparse_err="hprof-query: $dir/sparse.hpf: offset 32: RUN section says the run has no ranks"
expect_err sparse 1 "$sparse_err" $QUERY "$dir/sparse.hpf"
cp "$dir/p.db" "$dir/sparse.db"
expect_err sparse-beside-db 1 "$sparse_err" $QUERY "$dir/sparse.hpf"
if [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
    kb=$(/usr/bin/time -f %M "$QUERY" "$dir/sparse.hpf" 2>&1 >/dev/null | tail -1)
    [ "$kb" -lt 65536 ] || fail "sparse: peak resident memory $kb KB, expected < 65536"
fi
rm -f "$dir/sparse.hpf" "$dir/sparse.db"

# a database with a table dropped: named, and it is no hprof database of
# this version; a profile's database with a table dropped is merged again
cp "$dir/p.db" "$dir/drop.db"
python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute('DROP TABLE node_time'); c.commit()" "$dir/drop.db" || exit 99
expect_err dropped-table 1 "hprof-query: $dir/drop.db: table node_time is missing: not an hprof database of this version (merge its profile again)" \
    $QUERY "$dir/drop.db"
cp "$dir/p.hpf" "$dir/again.hpf"
$QUERY "$dir/again.hpf" >/dev/null 2>&1 || fail "again: first query failed"
python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute('DROP TABLE stat'); c.commit()" "$dir/again.db" || exit 99
expect_out dropped-table-merged-again "1" sh -c "$QUERY '$dir/again.hpf' --sql 'SELECT count(*) > 0 FROM stat' --format csv 2>/dev/null | tail -1"

# `--` ends the options: a file named like an option still opens
cp "$dir/p.db" "$dir/-x.db"
expect_out end-of-options "rank
0" $QUERY --sql "SELECT rank FROM rank WHERE rank = 0" --format csv -- "$dir/-x.db"
abs_query=$(cd "$(dirname "$QUERY")" && pwd)/hprof-query
abs_merge=$(cd "$(dirname "$MERGE")" && pwd)/hprof-merge
(cd "$dir" && "$abs_query" --format csv --sql "SELECT 1 AS one" -- -x.db) >"$dir/out" 2>"$dir/err" ||
    fail "end-of-options relative: $(cat "$dir/err")"
[ "$(cat "$dir/out")" = "one
1" ] || fail "end-of-options relative: got $(cat "$dir/out")"
cp "$dir/p.hpf" "$dir/-m.hpf"
(cd "$dir" && "$abs_merge" -o m.db -- -m.hpf) >/dev/null 2>"$dir/err" ||
    fail "merge end-of-options: $(cat "$dir/err")"
[ -f "$dir/m.db" ] || fail "merge end-of-options: $dir/m.db not written"
# after --, "-f" is an input: two inputs must be the per-rank files of one run
expect_err merge-two-after-dashdash 2 "hprof-merge: $dir/p.hpf: not a per-rank profile (NAME.rank<N>.hpf): several inputs must be the per-rank files of one run" \
    $MERGE -- "$dir/p.hpf" -f

# numbers: overflow, signs and spaces are refused with one line
expect_err top-overflow 2 "hprof-query: --top needs a number >= 0, not 99999999999999999999 (try --help)" \
    $QUERY "$dir/p.db" --top 99999999999999999999
expect_err depth-overflow 2 "hprof-query: --depth needs a number >= 0, not 9223372036854775808 (try --help)" \
    $QUERY "$dir/p.db" --depth=9223372036854775808
expect_err top-space 2 "hprof-query: --top needs a number >= 0, not  3 (try --help)" \
    $QUERY "$dir/p.db" --top " 3"
expect_err top-plus 2 "hprof-query: --top needs a number >= 0, not +3 (try --help)" \
    $QUERY "$dir/p.db" --top +3
expect_err top-newline 2 'hprof-query: --top needs a number >= 0, not 3\n4 (try --help)' \
    $QUERY "$dir/p.db" --top "3
4"

# control characters in labels are escaped in text output: the profile
# with "compute" renamed to c<LF>mp<TAB>u<ESC> and the program "./app" to
# "./a<ESC>p" (same lengths, checksums fixed)
python3 -c "
import struct, sys, zlib
d = bytearray(open(sys.argv[1], 'rb').read())
d = bytearray(bytes(d).replace(b'compute', b'c\nmp\tu\x1b').replace(b'./app', b'./a\x1bp'))
pos = 16
while pos + 16 <= len(d):
    n = struct.unpack_from('<Q', d, pos + 8)[0]
    struct.pack_into('<I', d, pos + 4, zlib.crc32(bytes(d[pos + 16:pos + 16 + n])))
    pos += 16 + n
open(sys.argv[2], 'wb').write(d)" "$dir/p.hpf" "$dir/ctl.hpf" || exit 99
$MERGE "$dir/ctl.hpf" >/dev/null 2>"$dir/err" || fail "ctl merge: $(cat "$dir/err")"
$QUERY "$dir/ctl.db" --top 0 >"$dir/out" 2>"$dir/err" || fail "ctl listing: $(cat "$dir/err")"
[ "$(grep -c '' "$dir/out")" -eq 16 ] || fail "ctl listing: $(grep -c '' "$dir/out") lines, expected 16"
[ "$(tr -d '\n' <"$dir/out" | LC_ALL=C tr -d '[:print:]' | wc -c)" -eq 0 ] ||
    fail "ctl listing: raw control characters in the output"
grep -qxF 'program:   ./a\x1bp -n 5' "$dir/out" || fail "ctl listing: program line $(head -1 "$dir/out")"
[ "$(grep -cF '        c\nmp\tu\x1b ' "$dir/out")" -eq 1 ] || fail "ctl listing: node 5 label not escaped"
for args in "--flat" "--ranks #5" "--comm main"; do
    # shellcheck disable=SC2086
    $QUERY "$dir/ctl.db" $args --top 0 >"$dir/out" 2>"$dir/err" || fail "ctl $args: $(cat "$dir/err")"
    [ "$(tr -d '\n' <"$dir/out" | LC_ALL=C tr -d '[:print:]' | wc -c)" -eq 0 ] ||
        fail "ctl $args: raw control characters in the output"
done
expect_out ctl-title 'per-rank distribution of c\nmp\tu\x1b' sh -c "$QUERY \"$dir/ctl.db\" --ranks '#5' | head -1"
expect_err ctl-error 1 "hprof-query: no site matches 'a\\x1bb' in $dir/ctl.db" \
    $QUERY "$dir/ctl.db" --ranks "$(printf 'a\033b')"

if [ $failures -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "all hprof-query tests passed"
