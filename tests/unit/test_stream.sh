#!/bin/sh
# test_stream.sh - hprof-merge writes the same database whatever the way
# it reads and merges the ranks: a digest (sha256) of every table's rows,
# each table sorted by all its columns, and of the schema (sqlite_master
# without page numbers), must equal the digest of the database the merge
# of commit a69214f wrote (before the merge read its input rank by rank;
# 0870845 gave other digests only because a69214f stores the matrix
# tables comm_matrix and comm_leftout too: both merges, run side by side,
# give these).  Since the aggregates are computed in C rank by rank
# (db_rows.c, db format 2) the digests are new: compared table by table
# with 23fccc6's merge of the same inputs, every row and value is the
# same, the new tables comm_node_peer and comm_node_rank are added, and
# the zeros of rank_site's time, tran and sync, site_time's and
# comm_leftout's coll_time are the real 0.0 where SQL's SUM gave an
# integer 0 (the SQL definitions now say 0.0 too).  The overhead-class
# tables ovh_x and ovh_rank (db_aggovh.c) are new again: without them
# (their schema rows and rows left out of the digest) the digests are the
# ones before, 95e24891..., 21974c03..., 30f01571....  Since the rows go
# in node order (db format 3: stat WITHOUT ROWID, comm's id and the table
# comm_range) the digests are new once more: compared table by table with
# b58c880's merge of these inputs, every row of every table is the same
# (comm without its new id column); only comm_range is added.
# Profile format 5 (counters, HPROF_COUNTERS) adds the table counter
# (empty for these inputs) and its index counter_node, and makes the
# run key format_version 5: with them left out and format_version read
# as 4 the digests are the ones before, 8110f70c..., 40aa8832...,
# aeca5218....
# The run key `objects` (the tables and views the merge made, so that
# hprof-query can name one that is missing) makes the digests new again:
# with it left out they are the ones before, 7541a488..., 07f4a556...,
# e944b2ef... (checked when it came).
# The run keys `source` and `source_id` (the input's path and identity)
# are left out.  comm_leftout's collective bytes counted from the
# collectives' peer -1 records (the matrix's fix of issue 26) make the
# first three new: with coll_bytes set by the rule before (per-peer rows
# of collective sites) they are 90e081ce..., b80c54bf... (checked when it
# came; mkbig's has no collective bytes and stays).  Database format 4
# (issue 26: aggregate mode) adds the tables node_hist and
# node_worst_thread and the run key
# detail (1: these inputs are small, their rows are stored), and records
# source_files and source_files_id (left out, as source): with those left out
# the digests are the ones before, 540eb29f..., 06e9e3b0..., c0840416...
# (checked when they came).  comm_node_peer keyed by (node, peer) itself
# (WITHOUT ROWID, its index comm_node_peer_node gone) changes the schema
# only: with the schema rows of before and the rows of now the digests
# are the ones before, 1f395817..., 8de4903d..., 6c695065... (checked
# when it came).  Inputs, all deterministic:
#   - mkprofile's two-rank profile                            3f041271...
#   - the same run as the two files its ranks wrote alone
#     (mkprofile -r 0, -r 1: NAME.rank<N>.hpf), merged:  the same digest
#   - rank 0's file alone (rank 1 missing)                    2f54bb5a...
#   - bench/mkbig -n 400 -c 40 -p 5 -t 2, 16 ranks            a7272617...
# Run from the build directory (as `make check` does) or with top_builddir set.
set -u
top=${top_builddir:-.}
MKPROFILE=$top/tests/unit/mkprofile
MKBIG=$top/bench/mkbig
MERGE=$top/analyzer/hprof-merge
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
[ -x "$MKBIG" ] || { echo "skip: $MKBIG not built"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/test_stream.XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0
check() {
    if [ "$2" = "$3" ]; then echo "ok - $1"; pass=$((pass + 1))
    else echo "not ok - $1: expected '$2' got '$3'"; fail=$((fail + 1)); fi
}

cat >"$dir/digest.py" <<'PY'
import hashlib, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
h = hashlib.sha256()
for row in db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"):
    h.update(repr(row).encode())
for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
    cols = [r[1] for r in db.execute('PRAGMA table_info("%s")' % t)]
    order = ", ".join('"%s"' % c for c in cols)
    where = " WHERE key NOT IN ('source', 'source_id', 'source_files', 'source_files_id')" if t == "run" else ""
    h.update(t.encode())
    for row in db.execute('SELECT * FROM "%s"%s ORDER BY %s' % (t, where, order)):
        h.update(repr(row).encode())
print(h.hexdigest())
PY

# digest NAME DB INPUT... - merges INPUT... into DB, prints DB's digest
digest() {
    db=$dir/$1.db
    shift
    "$MERGE" -f -o "$db" "$@" >/dev/null 2>"$dir/err" || { cat "$dir/err"; echo merge-failed; return; }
    python3 "$dir/digest.py" "$db"
}

"$MKPROFILE" "$dir/p.hpf" && "$MKPROFILE" -r 0 "$dir/d.rank0.hpf" &&
    "$MKPROFILE" -r 1 "$dir/d.rank1.hpf" || { echo "not ok - mkprofile"; exit 1; }
"$MKBIG" -n 400 -c 40 -p 5 -t 2 16 "$dir/b.hpf" || { echo "not ok - mkbig"; exit 1; }

profile=3f04127172ab5f1c108d73a9df25187253cb8ece1ef4fecd11940825c236cd50
check "mkprofile's profile" $profile "$(digest p "$dir/p.hpf")"
check "its ranks' own files merged" $profile "$(digest d "$dir/d.rank0.hpf" "$dir/d.rank1.hpf")"
check "rank 0's file alone" 2f54bb5a0d93c12d82e1b7634b034d08a9cd2d6d3418819fac027755ee34c4b2 \
    "$(digest d0 "$dir/d.rank0.hpf")"
check "mkbig 16 ranks" a7272617452e84a3d5e23d69155bed8b4ac63f4655b0e3a84982681382f14986 \
    "$(digest b "$dir/b.hpf")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
