#!/bin/sh
# test_worst.sh - the worst rank and thread of the default listing, read
# through the stored node_worst_rank (one lookup per listed node), through
# the node's own rows where node_worst_rank is a view (--raw), and for the
# whole tree at once (--top 0), on a copy of mkprofile's database edited
# to hold ties and a node without time.  Run from the build directory (as
# `make check` does) or with top_builddir set.
#
# Ground truth (mkprofile's stat rows, test_query.sh; the copy's edits):
#   node 3 (loop): rank 1 gets a thread 1 row of 9 s: rank 1 has 18 > 8 s,
#     its threads 0 and 1 have 9 s each: worst thread 0 (lowest of equals);
#   node 5 (compute under loop): rank 0's time 6 -> 6.5 = rank 1's: worst
#     rank 0 (lowest of equals), thread 0; raw times unchanged (6, 6.5):
#     under --raw worst rank 1;
#   node 6 (MPI_Allreduce): rank 1 gets a thread 1 row of 2 s: rank 1 has
#     3 > 0.5 s, thread 1 (2 s) > thread 0 (1 s): worst thread 1;
#   node 8 (MPI_Send@60, rank 1 only): time 0.25 -> 0, no worst rank or
#     thread; raw time unchanged: under --raw rank 1, thread 0;
#   unchanged: root rank 1 (most wall x threads), no thread; main 1, 0;
#     MPI_Send@42 0, 0; MPI_Recv 1, 0; compute at the root 1, 1.
set -u
top=${top_builddir:-.}
MKPROFILE=$top/tests/unit/mkprofile
MERGE=$top/analyzer/hprof-merge
QUERY=$top/analyzer/hprof-query
dir=$(mktemp -d "${TMPDIR:-/tmp}/test_worst.XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/expect.sh"

$MKPROFILE "$dir/p.hpf" || exit 99
$MERGE "$dir/p.hpf" >/dev/null || exit 99
sqlite3 "$dir/p.db" "
    INSERT INTO stat(node, rank, thread, count, time, min, max, timed, raw_time, raw_min, raw_max)
        VALUES (3, 1, 1, 1, 9.0, 9.0, 9.0, 1, 9.0, 9.0, 9.0),
               (6, 1, 1, 2, 2.0, 1.0, 1.0, 2, 2.0, 1.0, 1.0);
    UPDATE stat SET time = 6.5 WHERE node = 5 AND rank = 0;
    UPDATE stat SET time = 0 WHERE node = 8;" || exit 99
$MERGE --aggregate "$dir/p.db" >/dev/null || exit 99     # the stored aggregates follow

# node:worst_rank:worst_thread of every listed node, by node id
worst() {
    "$QUERY" "$dir/p.db" --format csv "$@" | awk -F, 'NR > 1 { print $1 ":" $12 ":" $13 }' |
        sort -n | tr '\n' ' '
}
want="1:1: 2:1:0 3:1:0 4:0:0 5:0:0 6:1:1 7:1:0 8:: 9:1:1 "
expect_out worst-stored-lazy "$want" worst --top 30
expect_out worst-stored-whole "$want" worst --top 0
want_raw="1:1: 2:1:0 3:1:0 4:0:0 5:1:0 6:1:1 7:1:0 8:1:0 9:1:1 "
expect_out worst-raw-lazy "$want_raw" worst --raw --top 30
expect_out worst-raw-whole "$want_raw" worst --raw --top 0
expect_out worst-node-worst-rank-stored "table" \
    sqlite3 "$dir/p.db" "SELECT type FROM sqlite_master WHERE name = 'node_worst_rank'"

if [ "$failures" -eq 0 ]; then
    echo "test_worst: all $checks checks passed"
else
    echo "test_worst: $failures of $checks checks failed"
    exit 1
fi
