#!/bin/sh
# test_scale.sh - the aggregates hprof-merge stores (analyzer/db/db_agg.c) and
# the database format version.  On mkprofile's two-rank profile (no event
# costs: compensated = raw times), the checks:
#   - every aggregate table (node_time, node_worst_rank, node_worst_thread,
#     node_excl, node_hist,
#     rank_site, site_time, rank_mpi) equals its definition re-run over the
#     per rank/thread rows (--raw makes the definitions TEMP views);
#   - on mkprofile's profile and on a 16-rank bench/mkbig profile (two
#     threads, comm rows to 5 peers), every table the merge's aggregators
#     wrote in C (db_aggregator.h; the overhead classes' ovh_x and ovh_rank
#     too) equals what `hprof-merge --aggregate`
#     makes from the rows with the SQL definitions: same rows, integers and
#     text exact, reals within 1e-12 relative (sums run in another order);
#   - exact values from mkprofile.c's tables: node main: calls 2, time
#     22 (10 + 12), min 10, max 12, worst rank 1, exclusive 3.25
#     (rank 0: 10 - 8 - 0.5; rank 1: 12 - 9 - 1 - 0.25); the root: time 26
#     (10; 12 + 4 on rank 1's two threads), exclusive 0.5 (rank 1 thread 1:
#     4 - 3.5); site compute: calls 13 (5 + 5 + 3), time 16 (6 + 6.5 +
#     3.5); rank_mpi: 20% (2 / 10) and 25% (3 / 12);
#   - the rows in node order: stat WITHOUT ROWID, comm ids consecutive
#     per node and held by comm_range (widened by --aggregate after rows
#     were added by hand); two sites of a rank merged into one node give
#     one stat row with the two records summed (mkprofile -m);
#   - PRAGMA user_version is 5; a database of format 0 (an older hprof)
#     next to its profile is merged again, alone it is a one-line error
#     saying to run hprof-merge; format 99 gives "database format 99 is
#     newer than this hprof-query reads (5)" and exit 1 (and is not
#     overwritten); a non-hprof SQLite database is "not an hprof database".
# Run from the build directory (as `make check` does) or with top_builddir set.
set -u
top=${top_builddir:-.}
MKPROFILE=$top/tests/unit/mkprofile
QUERY=$top/analyzer/hprof-query
MERGE=$top/analyzer/hprof-merge
MKBIG=$top/bench/mkbig
dir=$(mktemp -d "${TMPDIR:-/tmp}/test_scale.XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0
check() {
    if [ "$2" = "$3" ]; then echo "ok - $1"; pass=$((pass + 1))
    else echo "not ok - $1: expected '$2' got '$3'"; fail=$((fail + 1)); fi
}
q() { "$QUERY" "$dir/p.db" --format csv --sql "$1" 2>&1 | tail -n +2; }
qraw() { "$QUERY" "$dir/p.db" --raw --format csv --sql "$1" 2>&1 | tail -n +2; }
command -v sqlite3 >/dev/null || { echo "skip: no sqlite3"; exit 77; }

"$MKPROFILE" "$dir/p.hpf" || { echo "not ok - mkprofile"; exit 1; }
"$MERGE" -o "$dir/p.db" "$dir/p.hpf" >/dev/null 2>&1
check "hprof-merge" "0" "$?"

for t in node_time node_worst_rank node_worst_thread node_excl node_hist rank_site site_time rank_mpi; do
    check "$t is a table" "table" \
        "$(sqlite3 "$dir/p.db" "SELECT type FROM sqlite_master WHERE name = '$t'")"
    stored=$(q "SELECT * FROM $t ORDER BY 1, 2")
    check "$t = its definition over the raw rows" "$(qraw "SELECT * FROM $t ORDER BY 1, 2")" "$stored"
    check "$t has rows" "yes" "$([ -n "$stored" ] && echo yes || echo no)"
done

# same_aggregates NAME DB - every aggregate of DB (written by the merge's
# C aggregators) against a copy re-aggregated from the rows by SQL
cat >"$dir/cmp.py" <<'PY'
import sqlite3, sys
tables = ["node_time", "node_worst_rank", "node_worst_thread", "node_excl", "node_hist", "rank_site", "site_time",
          "site_worst", "rank_mpi", "comm_matrix", "comm_leftout", "comm_node_peer",
          "comm_node_rank", "ovh_x", "ovh_rank"]
a, b = sqlite3.connect(sys.argv[1]), sqlite3.connect(sys.argv[2])
def same(x, y):
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return x == y or abs(x - y) <= 1e-12 * max(abs(x), abs(y))
    return x == y
bad = []
for t in tables:
    ncols = min(3, len(a.execute("SELECT * FROM %s LIMIT 0" % t).description))
    order = ", ".join(str(k + 1) for k in range(ncols))
    ra = a.execute("SELECT * FROM %s ORDER BY %s" % (t, order)).fetchall()
    rb = b.execute("SELECT * FROM %s ORDER BY %s" % (t, order)).fetchall()
    if not ra or len(ra) != len(rb) or not all(
            len(u) == len(v) and all(same(x, y) for x, y in zip(u, v)) for u, v in zip(ra, rb)):
        bad.append("%s(%d/%d rows)" % (t, len(ra), len(rb)))
print(" ".join(bad) if bad else "same")
PY
same_aggregates() {
    cp "$2" "$dir/sql.db"
    "$MERGE" --aggregate "$dir/sql.db" >/dev/null 2>&1 || { echo "aggregate failed"; return; }
    python3 "$dir/cmp.py" "$2" "$dir/sql.db"
}
check "mkprofile: the C aggregates = their SQL definitions" "same" "$(same_aggregates p "$dir/p.db")"
"$MKBIG" -n 400 -c 40 -p 5 -t 2 16 "$dir/b.hpf" && "$MERGE" -o "$dir/b.db" "$dir/b.hpf" >/dev/null 2>&1
check "mkbig 16 ranks: the C aggregates = their SQL definitions" "same" \
    "$(same_aggregates b "$dir/b.db")"

# ---- the rows in node order (db_order.c): stat keyed by (node, rank,
# thread); a node's comm rows the consecutive ids of its comm_range row
bq() { sqlite3 "$dir/b.db" "$1"; }
check "mkbig: stat has no row id (WITHOUT ROWID, key node, rank, thread)" "1" \
    "$(bq "SELECT COUNT(*) FROM sqlite_master WHERE name = 'stat' AND sql LIKE '%WITHOUT ROWID%'")"
check "mkbig: comm ids 1..rows, in (node, rank) order" "$(bq "SELECT COUNT(*) FROM comm")|0" \
    "$(bq "SELECT MAX(id), (SELECT COUNT(*) FROM comm a JOIN comm b ON b.id = a.id + 1
        WHERE b.node < a.node OR (b.node = a.node AND b.rank < a.rank)) FROM comm")"
check "mkbig: one comm_range row per comm node, holding exactly its rows" \
    "$(bq "SELECT COUNT(DISTINCT node) FROM comm")|0|0" \
    "$(bq "SELECT COUNT(*), (SELECT COUNT(*) FROM comm c JOIN comm_range k ON k.node = c.node
        WHERE c.id NOT BETWEEN k.first AND k.last), (SELECT COUNT(*) FROM comm_range k
        WHERE k.last - k.first + 1 != (SELECT COUNT(*) FROM comm c WHERE c.node = k.node))
        FROM comm_range")"
# comm rows added by hand: --aggregate widens the ranges to hold them
cp "$dir/b.db" "$dir/b2.db"
sqlite3 "$dir/b2.db" "INSERT INTO comm(node, rank, thread, peer, count, bytes_sent, bytes_recv,
    tran, sync, min, max) SELECT node, rank, thread, peer, count, bytes_sent, bytes_recv, tran,
    sync, min, max FROM comm WHERE id = 1"
"$MERGE" --aggregate "$dir/b2.db" >/dev/null 2>&1
check "mkbig, a comm row added by hand: --aggregate puts it in its node's range" "0" \
    "$(sqlite3 "$dir/b2.db" "SELECT COUNT(*) FROM comm c JOIN comm_range k ON k.node = c.node
        WHERE c.id NOT BETWEEN k.first AND k.last")"
# two sites of one rank merged into one node (-m: rank 1 calls MPI_Send
# twice on app.c:60): one stat row, the two records summed (count 1 + 2,
# time 0.25 + 0.5, min 0.125 of the second, max 0.375); comm rows stay two
"$MKPROFILE" -m "$dir/m.hpf" && "$MERGE" -o "$dir/m.db" "$dir/m.hpf" >/dev/null 2>&1
check "two sites merged: one stat row, the records summed" "1|0|3|0.75|0.125|0.375|3|0.75|0.125|0.375" \
    "$(sqlite3 "$dir/m.db" "SELECT s.rank, s.thread, s.count, s.time, s.min, s.max, s.timed,
        s.raw_time, s.raw_min, s.raw_max FROM stat s JOIN node_path p ON p.id = s.node
        WHERE p.path = '/main/MPI_Send@app.c:60' AND s.rank = 1")"
check "two sites merged: both comm rows" "1|0|1|100
1|0|2|200" "$(sqlite3 "$dir/m.db" "SELECT c.rank, c.peer, c.count, c.bytes_sent FROM comm c
        JOIN node_path p ON p.id = c.node WHERE p.path = '/main/MPI_Send@app.c:60' AND c.rank = 1
        ORDER BY c.id")"
check "two sites merged: the C aggregates = their SQL definitions" "same" \
    "$(same_aggregates m "$dir/m.db")"

main="(SELECT n.id FROM node n JOIN site s ON s.id = n.site WHERE s.name = 'main')"
check "node main: calls, time, min, max" "2,22,10,12" \
    "$(q "SELECT calls, time, min, max FROM node_time WHERE node = $main")"
check "node main: mean, imbalance" "11,1.0909" \
    "$(q "SELECT mean, printf('%.4f', imbalance) FROM node_time WHERE node = $main")"
check "node main: worst rank" "1,12" "$(q "SELECT rank, time FROM node_worst_rank WHERE node = $main")"
check "node main: exclusive time" "22,3.25" "$(q "SELECT time, excl FROM node_excl WHERE node = $main")"
check "root: time and exclusive time" "26,0.5" \
    "$(q "SELECT time, excl FROM node_excl WHERE node = (SELECT id FROM node WHERE parent IS NULL)")"
check "site compute: calls and time" "13,16" \
    "$(q "SELECT calls, time FROM site_time WHERE label = 'compute'")"
check "rank_mpi" "0,20
1,25" "$(q "SELECT rank, mpi_pct FROM rank_mpi ORDER BY rank")"

# ---- the database format
check "format version" "5" "$(sqlite3 "$dir/p.db" "PRAGMA user_version")"
cp "$dir/p.db" "$dir/p.db.keep"
sqlite3 "$dir/p.db" "PRAGMA user_version = 0"
"$QUERY" "$dir/p.hpf" >/dev/null 2>"$dir/err"
check "format 0 next to its profile: merged again" "0 5" \
    "$? $(sqlite3 "$dir/p.db" "PRAGMA user_version")"
check "... saying so" "1" "$(grep -c "merged $dir/p.hpf" "$dir/err")"
sqlite3 "$dir/p.db" "PRAGMA user_version = 0"
rm "$dir/p.hpf"
"$QUERY" "$dir/p.db" >/dev/null 2>"$dir/err"
check "format 0 alone: exit 1" "1" "$?"
check "format 0 alone: one line saying to run hprof-merge again" \
    "hprof-query: $dir/p.db: database format 0 is older than this hprof-query reads (5): run hprof-merge on its profile again" \
    "$(cat "$dir/err")"
cp "$dir/p.db.keep" "$dir/p.db"
sqlite3 "$dir/p.db" "PRAGMA user_version = 99"
"$QUERY" "$dir/p.db" >/dev/null 2>"$dir/err"
check "format 99: exit 1" "1" "$?"
check "format 99: one-line error" \
    "hprof-query: $dir/p.db: database format 99 is newer than this hprof-query reads (5)" \
    "$(cat "$dir/err")"
"$MKPROFILE" "$dir/p.hpf"
"$QUERY" "$dir/p.hpf" >/dev/null 2>"$dir/err"
check "format 99 next to its profile: exit 1, not overwritten" "1 99" \
    "$? $(sqlite3 "$dir/p.db" "PRAGMA user_version")"
check "... one-line error" \
    "hprof-query: $dir/p.db: database format 99 is newer than this hprof-query reads (5)" \
    "$(cat "$dir/err")"
sqlite3 "$dir/other.db" "CREATE TABLE t(x); INSERT INTO t VALUES(1);"
"$QUERY" "$dir/other.db" >/dev/null 2>"$dir/err"
check "a non-hprof database: exit 1" "1" "$?"
check "a non-hprof database: one line" "hprof-query: $dir/other.db: not an hprof database" \
    "$(cat "$dir/err")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
