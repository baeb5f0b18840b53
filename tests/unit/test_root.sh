#!/bin/sh
# test_root.sh - hprof-query --root on the known profile written by
# mkprofile (tests/unit/mkprofile.c): the listing of one subtree.
#
# Ground truth (test_query.sh derives the same numbers): the tree is
#   #1 root 34 s: #2 main 22 s (excl 3.25), #9 compute 3.5 s
#   (worst rank and thread: test_query.sh derives them)
#   #2 main: #3 loop@app.c:20 17 s (excl 1), #6 MPI_Allreduce@app.c:50
#            1.5 s, #8 MPI_Send@app.c:60 0.25 s
#   #3 loop: #5 compute 12.5 s, #7 MPI_Recv@libapp.so+0x1a2b 2 s,
#            #4 MPI_Send@app.c:42 1.5 s
# Under --root the rows are the same as in the whole listing except the
# depth, relative to the chosen node, and the chosen node's parent
# (empty: it tops the listing); pct stays a share of the run's 34 s
# (loop 17 s = 50%).  The procedure compute (app.c:100) has two contexts,
# #5 and #9, so app.c:100 is ambiguous; "compute" is a path from the root
# (#9).  Run from the build directory or with top_builddir set.
set -u
top=${top_builddir:-.}
MKPROFILE=$top/tests/unit/mkprofile
MERGE=$top/analyzer/hprof-merge
QUERY=$top/analyzer/hprof-query
dir=$(mktemp -d "${TMPDIR:-/tmp}/test_root.XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/expect.sh"

$MKPROFILE "$dir/p.hpf" || exit 99
$MERGE "$dir/p.hpf" >/dev/null || exit 99
db=$dir/p.db

loop="node,depth,site,calls,time,mean,max,imbalance,pct,parent,excl,worst_rank,worst_thread
3,0,loop@app.c:20,10,17,8.5,9,1.05882352941176,50,,1,1,0
5,1,compute,10,12.5,6.25,6.5,1.04,36.7647058823529,3,12.5,1,0
7,1,MPI_Recv@libapp.so+0x1a2b,5,2,1,2,2,5.88235294117647,3,2,1,0
4,1,MPI_Send@app.c:42,5,1.5,0.75,1.5,2,4.41176470588235,3,1.5,0,0"
# the same node by its path, its id, its label, its file:line
expect_out root-path "$loop" $QUERY "$db" --root main/loop@app.c:20 --format csv
expect_out root-abs-path "$loop" $QUERY "$db" --root /main/loop@app.c:20 --format csv
expect_out root-id "$loop" $QUERY "$db" --root '#3' --format csv
expect_out root-label "$loop" $QUERY "$db" --root loop@app.c:20 --format csv
expect_out root-file-line "$loop" $QUERY "$db" --root app.c:20 --format csv
# the whole subtree loaded at once (--top 0) gives the same rows
expect_out root-top0 "$loop" $QUERY "$db" --root '#3' --format csv --top 0

expect_out root-depth "node,depth,site,calls,time,mean,max,imbalance,pct,parent,excl,worst_rank,worst_thread
2,0,main,2,22,11,12,1.09090909090909,64.7058823529412,,3.25,1,0
3,1,loop@app.c:20,10,17,8.5,9,1.05882352941176,50,2,1,1,0
6,1,MPI_Allreduce@app.c:50,4,1.5,0.75,1,1.33333333333333,4.41176470588235,2,1.5,1,0
8,1,MPI_Send@app.c:60,1,0.25,0.125,0.25,2,0.735294117647059,2,0.25,1,0" \
    $QUERY "$db" --root main/loop@app.c:20/.. --depth 1 --format csv
expect_out root-leaf "node,depth,site,calls,time,mean,max,imbalance,pct,parent,excl,worst_rank,worst_thread
9,0,compute,3,3.5,1.75,3.5,2,10.2941176470588,,3.5,1,1" $QUERY "$db" --root compute --format csv
expect_out root-slash "$($QUERY "$db" --format csv)" $QUERY "$db" --root / --format csv

# text: the header line and the "more" line count the subtree's 7 nodes
expect_out root-text-title "subtree of loop@app.c:20 (#3, /main/loop@app.c:20), pct of the whole run" \
    sh -c "$QUERY '$db' --root '#3' | grep '^subtree'"
# text columns: node, site, calls, time, max, imb, pct, ... (depth, mean
# and parent are CSV's and JSON's)
expect_out root-text-row "3 loop@app.c:20 10 17.000000 50.0" \
    sh -c "$QUERY '$db' --root '#3' | awk '\$1 == 3 { print \$1, \$2, \$3, \$4, \$7 }'"
expect_out root-more "(5 more rows; --top 0 lists them all)" \
    sh -c "$QUERY '$db' --root main --top 2 | tail -1"
expect_out root-no-more "8 MPI_Send@app.c:60" \
    sh -c "$QUERY '$db' --root main --top 7 | tail -1 | awk '{ print \$1, \$2 }'"
expect_out root-json-parses "ok" sh -c "$QUERY '$db' --root main --format json |
    python3 -c 'import json, sys; d = json.load(sys.stdin); assert [r[\"node\"] for r in d] == [2, 3, 5, 7, 4, 6, 8]; print(\"ok\")'"

expect_err root-ambiguous 1 "hprof-query: 'app.c:100' is ambiguous, it matches 2 calling contexts: #5 (/main/loop@app.c:20/compute), #9 (/compute); name one by its path or node id #N" \
    $QUERY "$db" --root app.c:100
expect_err root-unknown-id 1 "hprof-query: no node #99 in $db" $QUERY "$db" --root '#99'
expect_err root-unknown-path 1 "hprof-query: no node at path '/main/nosuch' in $db" \
    $QUERY "$db" --root /main/nosuch
expect_err root-unknown-site 1 "hprof-query: no site matches 'nosuch' in $db" \
    $QUERY "$db" --root nosuch
expect_err root-with-flat 2 "hprof-query: --root goes with the default listing (try --help)" \
    $QUERY "$db" --root main --flat

if [ $failures -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "test_root: all checks passed"
