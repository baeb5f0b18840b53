#!/bin/sh
# test_views.sh - hprof-query's views of issue 12 on known profiles:
# --callers (bottom-up), --sort, and --format hatchet (nested JSON for
# hatchet's literal reader).  mkprofile's numbers are derived in the
# comments.  Run from the
# build directory (as `make check` does) or with top_builddir set.
set -u
top=${top_builddir:-.}
MKPROFILE=$top/tests/unit/mkprofile
QUERY=$top/analyzer/hprof-query
MERGE=$top/analyzer/hprof-merge
MKBIG=$top/bench/mkbig
dir=$(mktemp -d "${TMPDIR:-/tmp}/test_views.XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/expect.sh"

$MKPROFILE "$dir/p.hpf" || exit 99
$QUERY "$dir/p.hpf" --top 1 >/dev/null 2>&1 || exit 99
db=$dir/p.db

# ---- --callers ----
# compute runs in two contexts: under loop@app.c:20 (node 5: rank 0 5
# calls 6 s, rank 1 5 calls 6.5 s) and at the root on rank 1's thread 1
# (node 9: 3 calls 3.5 s).  So 13 calls 16 s over 2 contexts; its callers
# loop (10 calls 12.5 s) and the root (3 calls 3.5 s) add up to it; loop's
# caller is main, main's the root.  pct of 34 thread-s.
expect_out callers "id,parent,level,site,site_id,node,contexts,calls,time,pct
1,,0,compute,6,,2,13,16,47.0588235294118
2,1,1,loop@app.c:20,3,3,1,10,12.5,36.7647058823529
3,2,2,main,2,2,1,10,12.5,36.7647058823529
4,3,3,root,1,1,1,10,12.5,36.7647058823529
5,1,1,root,1,1,1,3,3.5,10.2941176470588" $QUERY "$db" --callers compute --format csv
expect_out callers-depth "1,,0,compute,6,,2,13,16
2,1,1,loop@app.c:20,3,3,1,10,12.5
3,1,1,root,1,1,1,3,3.5" \
    sh -c "$QUERY '$db' --callers compute --depth 1 --format csv | tail -n +2 | cut -d, -f1-9"
expect_out callers-depth0 "1,,0,compute,6,,2,13,16" \
    sh -c "$QUERY '$db' --callers compute --depth 0 --format csv | tail -n +2 | cut -d, -f1-9"
# sorted by calls, ascending: the root's 3 calls before loop's 10
expect_out callers-sort "compute root loop@app.c:20 main root" \
    sh -c "echo \$($QUERY '$db' --callers compute --sort calls:asc --format csv | tail -n +2 | cut -d, -f4)"
expect_out callers-more "(3 more rows; --top 0 lists them all)" \
    sh -c "$QUERY '$db' --callers compute --top 2 | tail -1"
expect_out callers-top-csv "3" sh -c "$QUERY '$db' --callers compute --top 2 --format csv | wc -l"
# a communication site by its label: one context, the node is given
expect_out callers-send "1,,0,MPI_Send@app.c:42,4,4,1,5,1.5
2,1,1,loop@app.c:20,3,3,1,5,1.5" \
    sh -c "$QUERY '$db' --callers 'MPI_Send@app.c:42' --depth 1 --format csv | tail -n +2 | cut -d, -f1-9"
expect_out callers-json-parses "5" sh -c "$QUERY '$db' --callers compute --format json |
    python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'"
expect_err callers-unknown 1 "hprof-query: no site matches 'nosuch' in $db" \
    $QUERY "$db" --callers nosuch
expect_err callers-sort-bad 1 "hprof-query: --sort: --callers sorts callers by time, pct, calls, contexts, site or site_id, not 'level'" \
    $QUERY "$db" --callers compute --sort level

# recursion: a copy where compute (node 5) calls itself (node 10, not
# outer: its 2 calls and 1 s are inside node 5's); the callers view counts
# outer contexts only, so compute keeps 2 contexts, 13 calls and 16 s
cp "$db" "$dir/r.db"
python3 -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute('INSERT INTO node VALUES (10, 5, 6, 4, 0, 10, 10)')
db.execute('INSERT INTO stat VALUES (10, 0, 0, 2, 1.0, 0.5, 0.5, 2, 1.0, 0.5, 0.5)')
db.commit()" "$dir/r.db" || exit 99
expect_out callers-recursion "1,,0,compute,6,,2,13,16
2,1,1,loop@app.c:20,3,3,1,10,12.5
3,1,1,root,1,1,1,3,3.5" \
    sh -c "$QUERY '$dir/r.db' --callers compute --depth 1 --format csv | tail -n +2 | cut -d, -f1-9"

# hprof-merge --aggregate recomputes the stored aggregates from the rows:
# unchanged rows give the same reports; the recursion copy's inner
# compute (not outer) stays out of the site's time (16 s) while its 2
# calls count (15: real profiles give an inner activation no calls, they
# go to the outermost one)
cp "$db" "$dir/a.db"
expect_out aggregate-message "hprof-merge: re-aggregated $dir/a.db" $MERGE --aggregate "$dir/a.db"
expect_out aggregate-same "$($QUERY "$db" --format csv --top 0; $QUERY "$db" --flat --format csv; $QUERY "$db" --matrix --format csv)" \
    sh -c "$QUERY '$dir/a.db' --format csv --top 0; $QUERY '$dir/a.db' --flat --format csv; $QUERY '$dir/a.db' --matrix --format csv"
$MERGE --aggregate "$dir/r.db" >/dev/null
expect_out aggregate-recursion "6,compute,procedure,15,16" \
    sh -c "$QUERY '$dir/r.db' --flat --format csv | grep '^6,' | cut -d, -f1-5"
expect_err aggregate-not-db 1 "hprof-merge: $dir/none.db: unable to open database file" \
    $MERGE --aggregate "$dir/none.db"

# ---- --sort ----
# flat by calls: compute 13, loop 10, MPI_Recv 5, MPI_Send@42 5 (sites
# of equal calls keep the listing's order, by time: 2 s before 1.5 s);
# ascending: MPI_Send@60 1, main 2
expect_out sort-flat "6 3 7 4" sh -c "echo \$($QUERY '$db' --flat --sort calls --top 4 --format csv | tail -n +2 | cut -d, -f1)"
expect_out sort-flat-asc "8 2" sh -c "echo \$($QUERY '$db' --flat --sort calls:asc --top 2 --format csv | tail -n +2 | cut -d, -f1)"
expect_out sort-flat-label "5 7 4 8" sh -c "echo \$($QUERY '$db' --flat --sort label --top 4 --format csv | tail -n +2 | cut -d, -f1)"
expect_out sort-flat-more "(5 more rows; --top 0 lists them all)" sh -c "$QUERY '$db' --flat --sort calls --top 3 | tail -1"
# the tree sorts siblings: by exclusive time main (3.25) comes after
# compute (3.5) under the root; under main Allreduce (1.5) before loop (1)
expect_out sort-tree-excl "1 9 2 6 3 5 7 4 8" sh -c "echo \$($QUERY '$db' --sort excl --format csv | tail -n +2 | cut -d, -f1)"
expect_out sort-tree-lazy-all "$($QUERY "$db" --sort excl --format csv --top 0)" \
    $QUERY "$db" --sort excl --format csv --top 30
expect_out sort-ranks "1 0" sh -c "echo \$($QUERY '$db' --ranks compute --sort time --format csv | tail -n +2 | cut -d, -f1)"
expect_err sort-unknown 1 "hprof-query: --sort: this report has no column 'nope' (its columns: site, label, kind, calls, time, excl, mean, max, imbalance, pct, worst_rank, worst_thread)" \
    $QUERY "$db" --flat --sort nope
expect_err sort-tree-depth 1 "hprof-query: --sort: the tree sorts siblings by time, pct, mean, excl, calls, max, imbalance, site or node, not 'depth'" \
    $QUERY "$db" --sort depth
expect_err sort-usage 2 "hprof-query: --sort needs COLUMN, COLUMN:asc or COLUMN:desc, not calls:up (try --help)" \
    $QUERY "$db" --flat --sort calls:up

# ---- --format hatchet ----
$QUERY "$db" --format hatchet >"$dir/h.json" 2>"$dir/err" || fail "hatchet: $(cat "$dir/err")"
checks=$((checks + 1))
python3 - "$dir/h.json" <<'PY' || fail "hatchet: the literal form does not hold"
import json, sys
roots = json.load(open(sys.argv[1]))
assert isinstance(roots, list) and len(roots) == 1, roots
seen = {}
def walk(n, parent):
    assert set(n) <= {"frame", "metrics", "children"}, n.keys()
    f, m = n["frame"], n["metrics"]
    assert isinstance(f["name"], str) and isinstance(f["type"], str)
    assert m["parent"] == parent, (m, parent)
    assert ("_hatchet_nid" in m) == (parent is not None)
    if parent is not None:
        assert m["_hatchet_nid"] == m["node"]
    assert m["node"] not in seen
    seen[m["node"]] = (f["name"], f["type"], m["time (inc)"], m["time"], m["calls"])
    assert m["time"] >= 0 and m["time (inc)"] >= m["time"] - 1e-12
    kids = n.get("children", [])
    assert sum(k["metrics"]["time (inc)"] for k in kids) <= m["time (inc)"] + 1e-9
    for k in kids:
        walk(k, m["node"])
walk(roots[0], None)
# mkprofile's tree (test_query.sh derives these numbers)
want = {1: ("root", "root", 34, 8.5, 3), 2: ("main", "procedure", 22, 3.25, 2),
        3: ("loop@app.c:20", "loop", 17, 1, 10), 5: ("compute", "procedure", 12.5, 12.5, 10),
        4: ("MPI_Send@app.c:42", "comm", 1.5, 1.5, 5), 9: ("compute", "procedure", 3.5, 3.5, 3)}
for node, w in want.items():
    assert seen[node] == w, (node, seen[node], w)
assert len(seen) == 9, len(seen)
assert roots[0]["metrics"]["worst_rank"] == 1 and roots[0]["metrics"]["worst_thread"] is None
PY
expect_out hatchet-depth "1 2 9" sh -c "$QUERY '$db' --format hatchet --depth 1 | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
print(r[\"metrics\"][\"node\"], *[k[\"metrics\"][\"node\"] for k in r[\"children\"]])
assert all(\"children\" not in k for k in r[\"children\"])'"
expect_err hatchet-flat 2 "hprof-query: --format hatchet is for the top-down listing only (try --help)" \
    $QUERY "$db" --flat --format hatchet

# ---- issue 26: the views' fixes ----
# --flat and --tasks print every row in CSV and JSON (--help: "all in CSV
# and JSON"); text keeps 30 and says how many it left out.  mkbig -n 100
# has 65 sites; in a copy whose sites are tasks (odd ids) and task
# creations (even ids) task_children has 45 rows.
"$MKBIG" -n 100 2 "$dir/b.hpf" && "$MERGE" -o "$dir/b.db" "$dir/b.hpf" >/dev/null 2>&1 || exit 99
cp "$dir/b.db" "$dir/t.db"
python3 -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute(\"UPDATE site SET kind = 'omp', name = CASE WHEN id % 2 THEN 'task' ELSE 'task create' END WHERE id > 1\")
db.commit()" "$dir/t.db" || exit 99
expect_out flat-csv-all "66" sh -c "$QUERY '$dir/b.db' --flat --format csv | wc -l"
expect_out flat-json-all "65" sh -c "$QUERY '$dir/b.db' --flat --format json |
    python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'"
expect_out flat-text-30 "(35 more rows; --top 0 lists them all)" sh -c "$QUERY '$dir/b.db' --flat | tail -1"
expect_out flat-csv-top "11" sh -c "$QUERY '$dir/b.db' --flat --top 10 --format csv | wc -l"
expect_out tasks-csv-all "46" sh -c "$QUERY '$dir/t.db' --tasks --format csv | wc -l"
expect_out tasks-json-all "45" sh -c "$QUERY '$dir/t.db' --tasks --format json |
    python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'"
expect_out tasks-text-30 "(15 more rows; --top 0 lists them all)" sh -c "$QUERY '$dir/t.db' --tasks | tail -1"

# --comm on a completion call: a copy with MPI_Isend@app.c:70 (rank 0 -> 1,
# 3 transfers of 800 bytes) and MPI_Waitall@app.c:71 (no comm records: the
# completions are recorded at the posting line) under main, and
# MPI_Irecv@app.c:80 under loop (another context: not listed)
cp "$db" "$dir/w.db"
python3 -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for sid, name, line, parent in ((9, 'MPI_Isend', 70, 2), (10, 'MPI_Waitall', 71, 2), (11, 'MPI_Irecv', 80, 3)):
    db.execute(\"INSERT INTO site(id, kind, name, func, file, line, end_line, parent, flags, label)\"
               \" VALUES (?, 'comm', ?, 'main', '/src/app.c', ?, ?, 2, 0, ?)\",
               (sid, name, line, line, '%s@app.c:%d' % (name, line)))
    db.execute('INSERT INTO node VALUES (?, ?, ?, ?, 1, ?, ?)', (sid + 1, parent, sid, 2 if parent == 2 else 3, sid + 1, sid + 1))
    db.execute('INSERT INTO stat VALUES (?, 0, 0, 3, 0.25, 0.05, 0.1, 3, 0.25, 0.05, 0.1)', (sid + 1,))
db.execute('INSERT INTO comm VALUES (10, 0, 0, 1, 3, 2400, 0, 0.1, 0, 0.01, 0.05, 100)')
db.execute('INSERT INTO comm VALUES (12, 0, 0, 1, 3, 0, 2400, 0.1, 0, 0.01, 0.05, 101)')
db.commit()" "$dir/w.db" || exit 99
$MERGE --aggregate "$dir/w.db" >/dev/null || exit 99
expect_out comm-waitall "communication of MPI_Waitall@app.c:71
peer  dir  count  bytes_sent  bytes_recv  tran  sync  min  max
MPI_Waitall@app.c:71 completes requests: the time of completions is charged to the posting lines (--comm on them: MPI_Isend@app.c:70)" \
    $QUERY "$dir/w.db" --comm MPI_Waitall
expect_out comm-waitall-csv "peer,dir,count,bytes_sent,bytes_recv,tran,sync,min,max" \
    $QUERY "$dir/w.db" --comm MPI_Waitall --format csv
expect_out comm-waitall-csv-stderr "hprof-query: MPI_Waitall@app.c:71 completes requests: the time of completions is charged to the posting lines (--comm on them: MPI_Isend@app.c:70)" \
    sh -c "$QUERY '$dir/w.db' --comm MPI_Waitall --format csv 2>&1 >/dev/null"
expect_out comm-isend-no-note "2" sh -c "$QUERY '$dir/w.db' --comm MPI_Isend@app.c:70 --format csv | wc -l"

# reports whose output is fixed refuse another --format in one line
expect_err check-json 2 "hprof-query: --format json does not apply to --check (its output is text lines) (try --help)" \
    $QUERY "$db" --check --format json
expect_err folded-csv 2 "hprof-query: --format csv does not apply to --folded (its output is folded stacks) (try --help)" \
    $QUERY "$db" --folded --format csv
expect_err flamegraph-json 2 "hprof-query: --format json does not apply to --flamegraph (its output is an SVG file) (try --help)" \
    $QUERY "$db" --flamegraph "$dir/x.svg" --format json
expect_out check-text "0" sh -c "$QUERY '$db' --check --format text >/dev/null; echo \$?"

# text fits in 120 columns: the tree without depth, parent and mean (the
# indentation and time / ranks show them), the flat listing without mean,
# short headings; a label too long for the rest is cut in its middle,
# its end (file:line) kept.  CSV keeps every column and the whole label.
expect_out tree-text-heading "node site calls time max imb pct excl wrank wthr" \
    sh -c "$QUERY '$db' | sed -n 7p | tr -s ' '"
expect_out flat-text-heading "site label kind calls time excl max imb pct wrank wthr" \
    sh -c "$QUERY '$db' --flat | head -1 | tr -s ' '"
cp "$db" "$dir/L.db"
python3 -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute('UPDATE site SET label = ? WHERE id = 3', ('loop@' + 'ab' * 40 + '.c:20',))
db.commit()" "$dir/L.db" || exit 99
$MERGE --aggregate "$dir/L.db" >/dev/null || exit 99
expect_out tree-text-120 "0 1" sh -c "echo \$($QUERY '$dir/L.db' | awk 'length(\$0) > 120' | wc -l) \$($QUERY '$dir/L.db' | grep -c '\\.\\.\\.babababababababababababab\\.c:20 ')"
expect_out flat-text-120 "0 1" sh -c "echo \$($QUERY '$dir/L.db' --flat | awk 'length(\$0) > 120' | wc -l) \$($QUERY '$dir/L.db' --flat | grep -c '\\.\\.\\.bababab.*\\.c:20 ')"
expect_out tree-csv-whole "3,2,loop@abababababababababababababababababababababababababababababababababababababababab.c:20" \
    sh -c "$QUERY '$dir/L.db' --format csv | grep '^3,' | cut -d, -f1-3"

# bytes in text with a unit (binary, 3 significant digits), raw in CSV and
# JSON: MPI_Send@app.c:42 sent 5000 B = 4.88 KiB, the Allreduce 32 B
expect_out comm-bytes-text "1 to 5 4.88 KiB 0 B" \
    sh -c "$QUERY '$db' --comm MPI_Send@app.c:42 | sed -n 3p | awk '{ print \$1, \$2, \$3, \$4, \$5, \$6, \$7 }'"
expect_out comm-bytes-text-small "32 B 32 B" \
    sh -c "$QUERY '$db' --comm MPI_Allreduce | sed -n 3p | awk '{ print \$4, \$5, \$6, \$7 }'"
expect_out comm-bytes-csv "1,to,5,5000,0" sh -c "$QUERY '$db' --comm MPI_Send@app.c:42 --format csv | sed -n 2p | cut -d, -f1-5"
expect_out comm-bytes-json "5000" sh -c "$QUERY '$db' --comm MPI_Send@app.c:42 --format json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"bytes_sent\"])'"
expect_out comm-bytes-waitall-copy "2.34 KiB" \
    sh -c "$QUERY '$dir/w.db' --comm MPI_Isend@app.c:70 | sed -n 3p | awk '{ print \$4, \$5 }'"

echo "$checks checks, $failures failed"
[ $failures -eq 0 ]
