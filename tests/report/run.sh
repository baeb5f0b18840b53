#!/bin/bash
# tests/report/run.sh - hprof-report RUN -o OUT.html, loaded in headless
# Chromium (Debian's chromium, installed by scripts/deps.sh): the DOM
# after the page's script ran must hold the elements and the values the
# database holds.  Without Chromium the test skips (exit 77) saying so.
#
# Ground truth 1: the known two-rank profile of tests/unit/mkprofile.c
# (see tests/flame/run.sh): the root 34.000000 s (wall x threads summed
# over ranks, 100.0%); main inclusive 22.000000 s (64.7%), exclusive
# 3.250000 s (9.6%); rank 0 sends 5000 bytes to rank 1 (its MPI_Send at
# app.c:42), rank 1 100 bytes to rank 0 (MPI_Send at app.c:60), none to
# themselves (bytes sent, from the sender's records: rank 1's MPI_Recv of
# the 5000 bytes is not counted again); 9 nodes in the tree; 8 nodes other than the
# root have time, so 8 x 2 ranks = 16 imbalance bars; 9 flame graph
# rects; no OpenMP region, no task timeline.  A label made 'a<b>&"c'
# (a copy) is escaped: no <b> element appears in the DOM.  Overhead
# classes (tests/overheads/run.sh's ground truth, T = max(threads,
# omp_threads) = 2 per rank): the root 44 s = 20.25 computation + 3.125
# data movement + 2.125 synchronization + 0 control + 18.5 loss + 0
# unidentified, a bar of 4 segments (the classes above 0);
# loop@app.c:20 31.375 = 13.5 + 2.25 + 1.25 + 0 + 14.375 + 0; the rows
# are the root and the two levels below it, those of hprof-query
# --overheads --depth 2.
#
# Ground truth 2: real runs, the numbers read from their databases.
# examples/jacobi 256 200 at NP=2 x 2 threads: the root's total, the
# residual MPI_Allreduce's node (RESIDUAL-ALLREDUCE) with its inclusive
# time and % as the page formats them (%.6f s, %.1f%%), the matrix cell
# 0 -> 1 = SUM(bytes_sent) of rank 0 to peer 1, 10 x 2 = 20 bars, the
# node count, one flame graph rect per node at least 0.001 px wide, a
# per-thread table of the parallel region with 2 ranks x 2 threads = 4
# rows.  tests/tasks/src/tasktree.c (gcc, GOMP, NP=2 x 2 threads,
# HPROF_TASK_TRACE): one timeline rect per task execution of the `task`
# table.  The page parses (xmllint --html: no error but HTML5's element
# names it does not know), refers to no http(s) resource, and a
# screenshot is saved under the test's output directory.  The thread
# table's row of rank 0 thread 0 holds the region's calls and time from
# the database; the timeline has a lane per (rank, thread) that ran
# tasks, and the executions nested in an earlier one of their thread (as
# the database's begin and end say) are drawn on the lanes below it.
# The overhead-classes rows (ids, seconds of the total and the six
# classes) are those of hprof-query --overheads --depth 2 --format csv on
# the run's database, formatted %.6f.  A copy of the known profile with
# 200 ranks shows the matrix binned in 50 x 50 blocks and histograms
# instead of bars; a copy with a small node made costliest shows it first;
# a bench/mkbig run of 100 ranks checks histograms, slowest ranks, node
# order and matrix blocks against its database.  An aggregated profile's
# database (bench/aggmerge) has no matrix: its communication section is
# a table per site and peer class, the numbers of hprof-query --comm
# site:N with its class columns (ranks, worst_rank, worst_time; empty, and
# one line why, for a site of several calling contexts); a run that
# counted hardware counters (rank flag 64) says in one line that the
# aggregated profile did not keep them; of 200 sites at 10^5 ranks the
# page shows the 20 with the most time.
#
# Bad input: a file that is no hprof input, an SQLite database that is
# not hprof's: exit 1, one line; an unwritable OUT: exit 2, one line
# naming it, no file left; no Chromium: exit 77 with the reason.
#
# usage: tests/report/run.sh [BUILDDIR].  Env: CHROMIUM (default
# chromium), HPROF_KEEP_TMP=1; the screenshots go to
# BUILDDIR/tests/report/out/.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
CHROMIUM=${CHROMIUM:-chromium}
if ! command -v "$CHROMIUM" >/dev/null; then
    echo "SKIP: tests/report/run.sh: no headless browser ($CHROMIUM not found; install Debian's" \
         "chromium, e.g. bash scripts/deps.sh)"
    exit 77
fi
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
REPORT=$builddir/analyzer/hprof-report
MKPROFILE=$builddir/tests/unit/mkprofile
OUT=$builddir/tests/report/out

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir report
mkdir -p "$OUT"

for f in "$QUERY" "$REPORT" "$MKPROFILE"; do
    if [ ! -x "$f" ]; then
        notok "prerequisites" "missing: $f (build with 'make check TESTS=' first)"
        echo "$pass passed, $fail failed"
        exit 1
    fi
done
command -v xmllint >/dev/null || notok "prerequisites" "xmllint missing (libxml2-utils)"

# dom HTML NAME - the DOM after the page's script ran, into $tmp/NAME.dom,
# and a screenshot $OUT/NAME.png.
dom() {
    local url=file://$1 profile=$tmp/chromium-profile
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" \
        --dump-dom "$url" \
        >"$tmp/$2.dom" 2>"$tmp/$2.chromium.err" </dev/null || true
    rm -f "$OUT/$2.png"
    (cd "$tmp" && timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
        --user-data-dir="$profile" --screenshot="$OUT/$2.png" --window-size=1280,2000 "$url" \
        >>"$tmp/$2.chromium.err" 2>&1 </dev/null) || true
}
# the text of the element with id ID (on one line in the page)
by_id() { grep -o "id=\"$2\"[^>]*>[^<]*" "$1" | head -1 | sed 's/.*>//'; }
# attribute ATTR of the element with id ID
attr_of() { grep -o "id=\"$2\"[^>]*" "$1" | head -1 | sed -n "s/.* $3=\"\([^\"]*\)\".*/\1/p"; }
count() { grep -o "$2" "$1" | wc -l; }
# the line of node ID in the tree: "label incl (pct%) excl (pct%)"
tree_line() {
    grep "id=\"node-$2\"" "$1" | head -1 | sed 's/<\/summary>.*//; s/<[^>]*>//g; s/  */ /g; s/^ //; s/ $//' |
        sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g'
}
# parses as HTML: xmllint's errors other than its not knowing HTML5 tags
html_errors() {
    xmllint --html --noout "$1" 2>&1 | grep 'parser error' | grep -cv 'Tag [a-z]* invalid' || true
}
no_external() {   # http(s) addresses other than the SVG namespace name
    grep -o 'https\?://[^"'"'"' )<]*' "$1" | grep -vc '^http://www.w3.org/2000/svg$' || true
}
# the overhead-classes row of node ID: its data-s seconds (total, then
# computation .. unidentified), comma-separated
ovh_row() {
    grep -o "<tr id=\"ovh-$2\">.*" "$1" | head -1 | sed 's/<\/tr>.*//' |
        grep -o 'data-s="[^"]*"' | sed 's/data-s="//; s/"$//' | paste -sd,
}
# every overhead-classes row of the page as "ID:total,comp,...,unid"
ovh_rows_dom() {
    local id
    for id in $(grep -o '<tr id="ovh-[0-9]*">' "$1" | sed 's/[^0-9]//g'); do
        echo "$id:$(ovh_row "$1" "$id")"
    done
}
# the same rows from hprof-query --overheads --depth 2 (CSV: id, parent,
# depth, label, total, six classes), at most 40 as the page shows
ovh_rows_query() {
    "$QUERY" "$1" --overheads --depth 2 --format csv --top 0 | tail -n +2 | tr -d '\r' | head -40 |
        awk -F, '{ printf "%s:%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", $1, $5, $6, $7, $8, $9, $10, $11 }'
}
is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
# tree_times HTML - "kind id incl excl" per node ("node") and folded entry
# ("fold", the id its parent's) of the page's tree
tree_times() {
    sed -n 's/.*id="\(node\|fold\)-\([0-9]*\)".*class="incl"[^>]*>\([0-9.]*\) .*class="excl"[^>]*>\([0-9.]*\) .*/\1 \2 \3 \4/p' "$1"
}
# fold_sums HTML DB - "BAD/M": of the M folded entries, those whose
# parent's children do not add up (shown children + the entry = its
# children's time in the database, node_excl, and = the parent's inclusive
# less its exclusive time as the page shows them, within rounding)
fold_sums() {
    { q "$2" "SELECT n.id, n.parent, x.time FROM node n JOIN node_excl x ON x.node = n.id
              WHERE n.parent IS NOT NULL" | sed 's/^/db,/'; tree_times "$1" | tr ' ' ','; } |
    awk -F, '$1 == "db" { par[$2] = $3; kids[$3] += $4; nk[$3]++; next }
        $1 == "node" { incl[$2] = $3; excl[$2] = $4; shown[par[$2]] += $3; next }
        $1 == "fold" { fold[$2] = $3 }
        END { bad = 0; m = 0
              for (p in fold) { m++; tol = 1e-5 + 1e-6 * nk[p]
                  s = shown[p] + fold[p]; d1 = s - kids[p]; d2 = s - (incl[p] - excl[p])
                  if (d1 > tol || d1 < -tol || d2 > tol || d2 < -tol) bad++ }
              printf "%d/%d\n", bad, m }'
}
# missing HTML IDS... - the ids without a node-ID element in the page
missing() {
    local page=$1 id
    shift
    for id in "$@"; do grep -c "id=\"node-$id\"" "$page" >/dev/null || printf '%s ' "$id"; done
}
# folded_nodes HTML - the nodes the page's folded entries hold, summed
folded_nodes() {
    { grep -o 'class="fold" id="fold-[0-9]*"[^>]*><span[^>]*>[0-9]* smaller' "$1" || true; } |
        sed 's/.*>\([0-9]*\) smaller/\1/' | awk '{ s += $1 } END { print s + 0 }'
}

# ---------------------------------------------------------------- no browser
rc=0
CHROMIUM=$tmp/no-such-chromium bash "$srcdir/tests/report/run.sh" "$builddir" \
    >"$tmp/skip.out" 2>&1 || rc=$?
expect_eq "no Chromium: exit 77 (skip) saying why" "77,1" \
    "$rc,$(grep -c "^SKIP: .*no-such-chromium not found" "$tmp/skip.out" || true)"

# ---------------------------------------------------------------- the known profile
"$MKPROFILE" "$tmp/p.hpf"
db=$tmp/p.db
"$QUERY" "$tmp/p.hpf" --sql "SELECT 1" >/dev/null 2>&1
rc=0
"$REPORT" "$db" -o "$tmp/p.html" >"$tmp/p.out" 2>&1 || rc=$?
expect_eq "mkprofile: exit 0, nothing printed" "0," "$rc,$(oneline <"$tmp/p.out")"
expect_eq "mkprofile: the page parses as HTML" 0 "$(html_errors "$tmp/p.html")"
expect_eq "mkprofile: no http(s) reference" 0 "$(no_external "$tmp/p.html")"
expect_eq "mkprofile: no external script, style or image" 0 \
    "$(grep -c '<script [^>]*src=\|<link \|<img \|@import\|url(' "$tmp/p.html" || true)"
dom "$tmp/p.html" p
d=$tmp/p.dom
expect_eq "mkprofile: Chromium ran the page's script" ran \
    "$(sed -n 's/.*<body[^>]*data-script="\([a-z]*\)".*/\1/p' "$d")"
expect_eq "mkprofile: the script counted 9 tree nodes" 9 "$(by_id "$d" node-count)"
expect_eq "mkprofile: header: 2 ranks, 2 threads, total 34.000000 s" "2,2,34.000000" \
    "$(by_id "$d" ranks),$(by_id "$d" threads),$(by_id "$d" total)"
expect_eq "mkprofile: the root's line" "root 34.000000 (100.0%) 8.500000 (25.0%)" \
    "$(tree_line "$d" 1)"
mid=$(q "$db" "SELECT n.id FROM node n JOIN site s ON s.id = n.site WHERE s.label = 'main'")
expect_eq "mkprofile: main's line (inclusive, exclusive)" \
    "main 22.000000 (64.7%) 3.250000 (9.6%)" "$(tree_line "$d" "$mid")"
expect_eq "mkprofile: matrix 0 -> 1 5000 bytes (data and text), 1 -> 0 100, 0 -> 0 and 1 -> 1 none" \
    "5000,5000,100,0,0" \
    "$(attr_of "$d" m-0-1 data-bytes),$(by_id "$d" m-0-1),$(by_id "$d" m-1-0),$(by_id "$d" m-0-0),$(by_id "$d" m-1-1)"
expect_eq "mkprofile: 8 nodes x 2 ranks = 16 imbalance bars" 16 "$(count "$d" 'class="ibar"')"
expect_eq "mkprofile: the flame graph SVG inline with its 9 node rects" "1,9" \
    "$(count "$d" '<div id="flame">[[:space:]]*<svg\|<svg [^>]*viewBox'),$(count "$d" '<rect data-node=')"
expect_eq "mkprofile: no OpenMP table, no task timeline" "0,0" \
    "$(count "$d" 'id="omp"'),$(count "$d" 'id="timeline"')"
expect_eq "mkprofile: overhead classes of the root: 44 = 20.25 + 3.125 + 2.125 + 0 + 18.5 + 0" \
    "44.000000,20.250000,3.125000,2.125000,0.000000,18.500000,0.000000" "$(ovh_row "$d" 1)"
lid=$(q "$db" "SELECT n.id FROM node n JOIN site s ON s.id = n.site WHERE s.label = 'loop@app.c:20'")
expect_eq "mkprofile: overhead classes of loop@app.c:20: 31.375 = 13.5 + 2.25 + 1.25 + 0 + 14.375 + 0" \
    "31.375000,13.500000,2.250000,1.250000,0.000000,14.375000,0.000000" "$(ovh_row "$d" "$lid")"
expect_eq "mkprofile: the root's class bar has 4 segments (the classes above 0)" 4 \
    "$(grep -o '<tr id="ovh-1">.*' "$d" | head -1 | sed 's/<\/tr>.*//' | grep -o '<span style="width:' | wc -l)"
expect_eq "mkprofile: the overhead rows are hprof-query --overheads --depth 2's" \
    "$(ovh_rows_query "$db" | paste -sd' ')" "$(ovh_rows_dom "$d" | paste -sd' ')"
if is_png "$OUT/p.png"; then ok "mkprofile: screenshot $OUT/p.png"; else
    notok "mkprofile: screenshot" "no PNG at $OUT/p.png: $(tail -2 "$tmp/p.chromium.err" | oneline)"
fi

# escaping: a label with markup
cp "$db" "$tmp/esc.db"
sqlite3 "$tmp/esc.db" "UPDATE site SET label = 'a<b>&\"c' WHERE label = 'main'"
"$REPORT" "$tmp/esc.db" -o "$tmp/esc.html" >/dev/null 2>&1 || true
dom "$tmp/esc.html" esc
expect_eq "a label with markup is escaped: shown as text, no <b> element" "1,0" \
    "$(grep -c '<span class="lab"[^>]*>a&lt;b&gt;&amp;"c</span>' "$tmp/esc.dom" || true),$(count "$tmp/esc.dom" '<b>&amp;')"

# nodes by imbalance cost, time x (max/mean - 1), not inclusive time: a
# copy where a small node is made the costliest comes first, the root's
# child main (the most time) is not first
cost_id=$(q "$db" "SELECT t.node FROM node_time t WHERE t.node <> 1 AND t.time > 0
    ORDER BY t.time LIMIT 1")
cp "$db" "$tmp/cost.db"
sqlite3 "$tmp/cost.db" "UPDATE node_time SET max = 100 * mean WHERE node = $cost_id"
"$REPORT" "$tmp/cost.db" -o "$tmp/cost.html" >/dev/null 2>&1 || true
expect_eq "nodes by imbalance cost: the node made costliest first, the page says so" \
    "$cost_id,1" "$(grep -o 'class="inode" data-node="[0-9]*"' "$tmp/cost.html" | head -1 |
        sed 's/[^0-9]//g'),$(count "$tmp/cost.html" 'imbalance cost, time &#215; (max/mean')"

# more ranks than a page shows one by one (a copy with 200 rank rows): the
# matrix binned in 50 blocks of 4 ranks as hprof-query --matrix bins it
# (0 -> 1's 5000 bytes in block 0 -> 0), the 8 nodes as distributions
# (10 bins each) and their slowest ranks, no bar per rank
cp "$db" "$tmp/many.db"
sqlite3 "$tmp/many.db" "WITH RECURSIVE r(n) AS (SELECT 2 UNION ALL SELECT n + 1 FROM r WHERE n < 199)
    INSERT INTO rank(rank, threads, wall) SELECT n, 1, 1.0 FROM r"
"$REPORT" "$tmp/many.db" -o "$tmp/many.html" >/dev/null 2>&1 || true
expect_eq "200 ranks: matrix of 50 x 50 blocks of 4 ranks, block 0 -> 0 5100 bytes" \
    "1,4,2500,5100,1" "$(count "$tmp/many.html" 'id="matrix"'),$(attr_of "$tmp/many.html" matrix data-block),$(count "$tmp/many.html" '<td id="m-'),$(attr_of "$tmp/many.html" m-0-0 data-bytes),$(count "$tmp/many.html" '200 ranks binned into 50 blocks of 4 ranks')"
expect_eq "200 ranks: no bar per rank, 8 nodes x 10 histogram bins" "0,80" \
    "$(count "$tmp/many.html" 'class="ibar"'),$(count "$tmp/many.html" 'class="hbin"')"

# a synthetic run of 100 ranks (bench/mkbig: rank 7 is 50% slower): every
# node's histogram holds the 100 ranks, its slowest rank listed first is
# node_worst_rank's (rank 7 for the costliest), the first node is the
# costliest of node_time; the matrix's 50 x 50 blocks hold all bytes
MKBIG=$builddir/bench/mkbig
if [ -x "$MKBIG" ]; then
    "$MKBIG" -n 200 -c 16 -p 4 100 "$tmp/big.hpf" >/dev/null
    "$QUERY" "$tmp/big.hpf" --check >/dev/null 2>&1 && ok "mkbig 100 ranks: --check" ||
        notok "mkbig 100 ranks: --check" "$("$QUERY" "$tmp/big.hpf" --check 2>&1 | tail -1)"
    "$REPORT" "$tmp/big.db" -o "$tmp/big.html" >/dev/null 2>&1 || true
    top=$(q "$tmp/big.db" "SELECT node FROM node_time WHERE time > 0 AND node <> 1
        ORDER BY time * (max / mean - 1) DESC, time DESC, node LIMIT 1")
    first=$({ grep -o 'class="inode" data-node="[0-9]*"' "$tmp/big.html" || true; } | head -1 |
        sed 's/[^0-9]//g')
    wrank=$(q "$tmp/big.db" "SELECT rank FROM node_worst_rank WHERE node = $top")
    expect_eq "mkbig 100 ranks: first node the costliest, its slowest rank node_worst_rank's (7)" \
        "$top,7,7" "$first,$wrank,$(grep -o "class=\"wbar\" data-node=\"$top\" data-rank=\"[0-9]*\"" \
        "$tmp/big.html" | head -1 | sed 's/.*data-rank="//; s/"//')"
    sums=$({ grep -o 'class="hbin" data-node="[0-9]*" data-bin="[0-9]*" data-ranks="[0-9]*"' \
        "$tmp/big.html" || true; } |
        sed 's/.*data-node="\([0-9]*\)".*data-ranks="\([0-9]*\)"/\1 \2/' |
        awk '{ s[$1] += $2 } END { for (k in s) print s[k] }' | sort -u | paste -sd,)
    expect_eq "mkbig 100 ranks: 10 nodes x 10 bins, each node's bins hold 100 ranks; 5 slowest each" \
        "100,100,50,0" "$(count "$tmp/big.html" 'class="hbin"'),$sums,$(count "$tmp/big.html" 'class="wbar"'),$(count "$tmp/big.html" 'class="ibar"')"
    mbytes=$({ grep -o '<td id="m-[^>]*data-bytes="[0-9]*"' "$tmp/big.html" || true; } | sed 's/.*data-bytes="//; s/"//' |
        awk '{ s += $1 } END { printf "%.0f", s }')
    expect_eq "mkbig 100 ranks: 2500 matrix blocks holding comm_matrix's bytes" \
        "2500,$(q "$tmp/big.db" "SELECT printf('%.0f', SUM(bytes)) FROM comm_matrix")" \
        "$(count "$tmp/big.html" '<td id="m-'),$mbytes"
else
    notok "mkbig 100 ranks" "missing: $MKBIG"
fi

# folding (analyzer/render/html_fold.c): bench/mkbig's 5,000 nodes at 16
# ranks; the page folds the nodes under 0.1% of the root (the tree holds
# more than 2,000) and stays within 2 MB; every folded entry's parent adds
# up; the 20 nodes with the most time and the 10 costliest by imbalance
# are shown; shown nodes + folded ones = the database's nodes; the
# script counted the shown ones
if [ -x "$MKBIG" ]; then
    "$MKBIG" 16 "$tmp/fold.hpf" >/dev/null
    "$QUERY" "$tmp/fold.hpf" --check >/dev/null 2>&1 && ok "mkbig 5,000 nodes: --check" ||
        notok "mkbig 5,000 nodes: --check" "$("$QUERY" "$tmp/fold.hpf" --check 2>&1 | tail -1)"
    fdb=$tmp/fold.db
    "$REPORT" "$fdb" -o "$tmp/fold.html" >/dev/null 2>&1 || true
    f=$tmp/fold.html
    nnodes=$(q "$fdb" "SELECT COUNT(*) FROM node")
    nfolded=$(folded_nodes "$f")
    nshown=$(count "$f" '<details id="node-\|<div class="leaf" id="node-')
    expect_cmp "mkbig 5,000 nodes: folding happens (nodes folded)" gt 1000 "$nfolded"
    expect_cmp "mkbig 5,000 nodes: the page is at most 2 MB" le 2000000 "$(wc -c <"$f")"
    expect_eq "mkbig 5,000 nodes: shown + folded = the database's nodes; the note says so" \
        "$nnodes,$nfolded" "$((nshown + nfolded)),$(attr_of "$f" fold-note data-folded)"
    sums=$(fold_sums "$f" "$fdb")
    expect_eq "mkbig 5,000 nodes: every folded entry's parent adds up (bad/entries)" \
        "0/$(count "$f" 'class="fold" id="fold-')" "$sums"
    expect_cmp "mkbig 5,000 nodes: folded entries in the flame graph" gt 100 \
        "$(count "$f" '<rect data-fold=')"
    expect_eq "mkbig 5,000 nodes: the 20 nodes with the most time are shown" "" \
        "$(missing "$f" $(q "$fdb" "SELECT node FROM node_time ORDER BY time DESC, node LIMIT 20"))"
    expect_eq "mkbig 5,000 nodes: the 10 costliest nodes (imbalance) are shown" "" \
        "$(missing "$f" $(q "$fdb" "SELECT node FROM node_time WHERE time > 0 AND node <> 1
            ORDER BY CASE WHEN mean > 0 THEN time * (max / mean - 1) ELSE 0 END DESC, time DESC,
            node LIMIT 10"))"
    dom "$f" fold
    expect_eq "mkbig 5,000 nodes: the script counted the $nshown shown nodes" "$nshown" \
        "$(by_id "$tmp/fold.dom" node-count)"
    # a copy where every node has 0.2% of the root: the 2,000-entry budget
    # binds, the communication statements (over 0.1%) are shown all the
    # same, and a small leaf made the costliest by imbalance too
    cp "$fdb" "$tmp/dense.db"
    leaf=$(q "$fdb" "SELECT n.id FROM node n JOIN site s ON s.id = n.site WHERE s.kind <> 'comm'
        AND NOT EXISTS (SELECT 1 FROM node c WHERE c.parent = n.id) ORDER BY n.id DESC LIMIT 1")
    sqlite3 "$tmp/dense.db" "UPDATE node_excl SET time = 0.002 * (SELECT SUM(wall * MAX(threads, 1))
        FROM rank) WHERE node <> 1; UPDATE node_time SET max = 1e6 * mean WHERE node = $leaf"
    "$REPORT" "$tmp/dense.db" -o "$tmp/dense.html" >/dev/null 2>&1 || true
    d=$tmp/dense.html
    expect_eq "every node over 0.1%: the communication statements and the costliest leaf shown" "" \
        "$(missing "$d" $leaf $(q "$fdb" "SELECT n.id FROM node n JOIN site s ON s.id = n.site
            WHERE s.kind = 'comm'"))"
    expect_cmp "every node over 0.1%: at most 2,000 entries and the communication statements" le \
        "$((2000 + $(q "$fdb" "SELECT COUNT(*) FROM node n JOIN site s ON s.id = n.site WHERE s.kind = 'comm'")))" \
        "$(count "$d" '<details id="node-\|<div class="leaf" id="node-\|<div class="fold" id="fold-')"
    expect_cmp "every node over 0.1%: the page is at most 2 MB" le 2000000 "$(wc -c <"$d")"
    # 10^5 ranks (a copy with rank rows added): the page stays within 2 MB
    cp "$fdb" "$tmp/huge.db"
    sqlite3 "$tmp/huge.db" "WITH RECURSIVE r(n) AS (SELECT 16 UNION ALL SELECT n + 1 FROM r
        WHERE n < 99999) INSERT INTO rank(rank, threads, wall) SELECT n, 1, 0.0 FROM r"
    "$REPORT" "$tmp/huge.db" -o "$tmp/huge.html" >/dev/null 2>&1 || true
    expect_cmp "10^5 ranks x 5,000 nodes: the page is at most 2 MB" le 2000000 \
        "$(wc -c <"$tmp/huge.html")"
fi
# a small profile's page has no folding at all (the known profile's and
# jacobi's node counts are checked against their databases above/below)
expect_eq "mkprofile: nothing folded (no note, entry or folded rectangle)" "0,0,0" \
    "$(count "$tmp/p.html" 'id="fold-note"'),$(count "$tmp/p.html" 'class="fold"'),$(count "$tmp/p.html" 'data-fold=')"

# an aggregated profile's database (bench/aggmerge: 70 nodes of 20 sites at
# 8 ranks, so sites 3, 6 and 9 of the benchmark, site ids 5, 8 and 11, have
# two calling contexts with communication, the others one): the
# communication section's table per site and peer class is what
# hprof-query --comm site:N gives (count, bytes, tran, sync, ranks,
# worst_rank, worst_time, times %.6f), the class columns empty for the
# three sites of several contexts and one line naming them; a copy whose
# ranks say the run counted hardware counters (rank flag 64) says in one
# line that they were not kept, the page of the profile itself and of
# full databases do not
AGGMERGE=$builddir/bench/aggmerge
# page_classes HTML - the page's per-site class rows, "site|peer|count|
# bytes_sent|bytes_recv|tran|sync|ranks|worst_rank|worst_time"
page_classes() {
    { grep -o '<tr class="cclass" data-site="[0-9]*" data-peer="[^"]*">.*</tr>' "$1" || true; } |
        sed 's/<tr class="cclass" data-site="\([0-9]*\)" data-peer="\([^"]*\)"><td class="l">[^<]*<\/td><td class="l">[^<]*<\/td><td>/\1|\2|/; s/<\/td><td>/|/g; s/<\/td><\/tr>$//'
}
# query_classes DB SITE... - the same rows from hprof-query --comm site:N
query_classes() {
    local cdb=$1 s
    shift
    for s in "$@"; do
        "$QUERY" "$cdb" --comm "site:$s" --format csv | tr -d '\r' | awk -F, -v s="$s" '
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { w = $c["worst_time"] == "" ? "" : sprintf("%.6f", $c["worst_time"])
              printf "%s|%s|%s|%s|%s|%.6f|%.6f|%s|%s|%s\n", s, $c["peer"], $c["count"],
                  $c["bytes_sent"], $c["bytes_recv"], $c["tran"], $c["sync"], $c["ranks"],
                  $c["worst_rank"], w }'
    done
}
if [ -x "$AGGMERGE" ]; then
    "$AGGMERGE" 70 20 1 "$tmp/am.hpf" 8 >/dev/null
    "$QUERY" "$tmp/am.hpf" --check >/dev/null 2>&1 && ok "aggmerge 70 nodes: --check" ||
        notok "aggmerge 70 nodes: --check" "$("$QUERY" "$tmp/am.hpf" --check 2>&1 | tail -1)"
    adb=$tmp/am.db
    "$builddir/analyzer/hprof-merge" -f -o "$adb" "$tmp/am.hpf" >/dev/null 2>&1 || true
    "$REPORT" "$adb" -o "$tmp/am.html" >/dev/null 2>&1 || true
    a=$tmp/am.html
    sites=$(q "$adb" "SELECT DISTINCT n.site FROM comm_node_peer p JOIN node n ON n.id = p.node
        ORDER BY n.site")
    expect_eq "aggregated: a row per communication site and peer class, no matrix cells" \
        "$(q "$adb" "SELECT COUNT(*) FROM (SELECT DISTINCT n.site, p.peer FROM comm_node_peer p
            JOIN node n ON n.id = p.node)"),1,0" \
        "$(count "$a" '<tr class="cclass"'),$(count "$a" 'id="comm-classes"'),$(count "$a" '<td id="m-')"
    expect_eq "aggregated: the rows are hprof-query --comm site:N's, class columns included" \
        "$(query_classes "$adb" $sites | sort | paste -sd' ')" "$(page_classes "$a" | sort | paste -sd' ')"
    expect_cmp "aggregated: ... and there are some" gt 10 "$(page_classes "$a" | wc -l)"
    expect_eq "aggregated: empty class cells for sites 5, 8, 11 (two contexts), the others filled" \
        "5 8 11" "$(page_classes "$a" | awk -F'|' '$8 == "" { print $1 }' | sort -n | paste -sd' ')"
    expect_eq "aggregated: one line says why, with the SQL for those sites" 1 \
        "$(count "$a" 'id="comm-classes-several">ranks, worst_rank, worst_time: kept per calling context, and the sites with empty cells have several: <code>hprof-query RUN --sql "SELECT \* FROM comm_node_class WHERE node IN (SELECT id FROM node WHERE site IN (5,8,11))"</code>')"
    cp "$adb" "$tmp/amc.db"
    sqlite3 "$tmp/amc.db" "UPDATE rank SET flags = flags | 64"
    "$REPORT" "$tmp/amc.db" -o "$tmp/amc.html" >/dev/null 2>&1 || true
    cline='<p class="note" id="counters-dropped">Counters: counted (HPROF_COUNTERS), not kept: an aggregated profile (HPROF_AGGREGATE) has no counter columns; HPROF_AGGREGATE=0 keeps them.</p>'
    expect_eq "counters counted, not kept (rank flag 64): one line on the page; none without it" \
        "1,0,0" "$(grep -cxF "$cline" "$tmp/amc.html"),$(count "$a" 'counters-dropped'),$(count "$tmp/p.html" 'counters-dropped')"
    dom "$tmp/amc.html" amc
    expect_eq "aggregated: Chromium ran the page's script, the class table in the DOM" "ran,1" \
        "$(sed -n 's/.*<body[^>]*data-script="\([a-z]*\)".*/\1/p' "$tmp/amc.dom"),$(count "$tmp/amc.dom" 'id="comm-classes"')"
    expect_eq "aggregated: the page parses as HTML" 0 "$(html_errors "$tmp/amc.html")"
    # 10^5 ranks and 200 communication sites: the 20 with the most tran +
    # sync, in that order, and the note says how many there are
    "$AGGMERGE" 2000 200 1 "$tmp/am2.hpf" 100000 >/dev/null
    "$QUERY" "$tmp/am2.hpf" --check >/dev/null 2>&1 && ok "aggmerge 10^5 ranks: --check" ||
        notok "aggmerge 10^5 ranks: --check" "$("$QUERY" "$tmp/am2.hpf" --check 2>&1 | tail -1)"
    "$builddir/analyzer/hprof-merge" -f -o "$tmp/am2.db" "$tmp/am2.hpf" >/dev/null 2>&1 || true
    "$REPORT" "$tmp/am2.db" -o "$tmp/am2.html" >/dev/null 2>&1 || true
    expect_eq "aggregated, 10^5 ranks, 200 communication sites: the 20 with the most time, the note says so" \
        "$(q "$tmp/am2.db" "SELECT n.site FROM comm_node_peer p JOIN node n ON n.id = p.node
            GROUP BY n.site ORDER BY SUM(tran + sync) DESC, n.site LIMIT 20" | paste -sd' '),1" \
        "$({ grep -o 'class="cclass" data-site="[0-9]*"' "$tmp/am2.html" || true; } | sed 's/[^0-9]//g' |
            uniq | paste -sd' '),$(count "$tmp/am2.html" 'The 20 of 200 sites with the most time')"
else
    notok "aggregated profile's page" "missing: $AGGMERGE"
fi

# ---------------------------------------------------------------- bad input, bad output
echo "not a profile" >"$tmp/junk.txt"
rc=0
"$REPORT" "$tmp/junk.txt" -o "$tmp/junk.html" >/dev/null 2>"$tmp/junk.err" || rc=$?
expect_eq "bad input (a text file): exit 1, one line, no page" "1,1,no" \
    "$rc,$(wc -l <"$tmp/junk.err"),$([ -e "$tmp/junk.html" ] && echo yes || echo no)"
sqlite3 "$tmp/other.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1)"
rc=0
"$REPORT" "$tmp/other.db" -o "$tmp/other.html" >/dev/null 2>"$tmp/other.err" || rc=$?
expect_eq "bad input (an SQLite database, not hprof's): exit 1, one line naming it" "1,1,1" \
    "$rc,$(wc -l <"$tmp/other.err"),$(grep -c "other.db: not an hprof database" "$tmp/other.err" || true)"
: >"$tmp/notadir"
rc=0
"$REPORT" "$db" -o "$tmp/notadir/r.html" >/dev/null 2>"$tmp/bad.err" || rc=$?
expect_eq "unwritable OUT: exit 2, one line naming it" "2,1,1" \
    "$rc,$(wc -l <"$tmp/bad.err"),$(grep -c "cannot write $tmp/notadir/r.html" "$tmp/bad.err" || true)"
# a profile not merged yet: the bad output path is found before merging
# (no database left next to it), and every line is hprof-report's
"$MKPROFILE" "$tmp/fresh.hpf"
rc=0
"$REPORT" -o /nonexistent/x "$tmp/fresh.hpf" >/dev/null 2>"$tmp/fresh.err" || rc=$?
expect_eq "OUT in a missing directory: exit 2, checked before merging, one hprof-report line" \
    "2,no,hprof-report: cannot write /nonexistent/x: No such file or directory" \
    "$rc,$([ -e "$tmp/fresh.db" ] && echo yes || echo no),$(oneline <"$tmp/fresh.err")"
rc=0
"$REPORT" "$tmp/fresh.hpf" -o "$tmp/fresh.html" >/dev/null 2>"$tmp/fresh.err" || rc=$?
expect_eq "merging notes are hprof-report's" "0,hprof-report: merged $tmp/fresh.hpf into $tmp/fresh.db" \
    "$rc,$(oneline <"$tmp/fresh.err")"
rc=0
"$REPORT" --xyz "$db" -o "$tmp/xyz.html" >/dev/null 2>"$tmp/xyz.err" || rc=$?
expect_eq "unknown option: exit 2, named" "2,hprof-report: unknown option '--xyz'" \
    "$rc,$(oneline <"$tmp/xyz.err")"
mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
rc=0
"$REPORT" "$db" -o "$tmp/ro/r.html" >/dev/null 2>/dev/null || rc=$?
if [ "$(id -u)" = 0 ]; then
    expect_eq "a written page leaves no temporary file" "r.html" "$(ls "$tmp/ro" | oneline)"
else
    expect_eq "read-only directory: exit 2, nothing left" "2," "$rc,$(ls "$tmp/ro" | oneline)"
fi

# ---------------------------------------------------------------- real runs
if ! command -v "$MPIRUN" >/dev/null || [ ! -x "$builddir/examples/jacobi" ]; then
    skipped "real runs" "no $MPIRUN or examples/jacobi"
else
    JSRC=$srcdir/examples/jacobi.c
    Lar=$(line_of "$JSRC" RESIDUAL-ALLREDUCE)
    hp_run jac 2 -x OMP_NUM_THREADS=2 "$builddir/examples/jacobi" 256 200
    if ran_ok jac; then
        jdb=${PROFILE%.hpf}.db
        rc=0
        "$REPORT" "$PROFILE" -o "$tmp/jac.html" >"$tmp/jac.rout" 2>&1 || rc=$?
        expect_eq "jacobi: hprof-report exits 0" 0 "$rc"
        expect_eq "jacobi: the page parses as HTML" 0 "$(html_errors "$tmp/jac.html")"
        expect_eq "jacobi: no http(s) reference" 0 "$(no_external "$tmp/jac.html")"
        dom "$tmp/jac.html" jacobi
        d=$tmp/jacobi.dom
        expect_eq "jacobi: the script counted the database's nodes" \
            "$(q "$jdb" "SELECT COUNT(*) FROM node")" "$(by_id "$d" node-count)"
        total=$(q "$jdb" "SELECT printf('%.6f', SUM(wall * MAX(threads, 1))) FROM rank")
        expect_eq "jacobi: header: 2 ranks, total $total s" "2,$total" \
            "$(by_id "$d" ranks),$(by_id "$d" total)"
        expect_eq "jacobi: the root's line carries the total" "$(q "$jdb" "SELECT s.label FROM node n JOIN site s ON s.id = n.site WHERE n.parent IS NULL") $total (100.0%)" \
            "$(tree_line "$d" "$(q "$jdb" "SELECT id FROM node WHERE parent IS NULL")" | sed 's/%).*/%)/')"
        nid=$(q "$jdb" "SELECT MIN(n.id) FROM node n JOIN site s ON s.id = n.site
                        WHERE s.label = 'MPI_Allreduce@jacobi.c:$Lar'")
        want=$(q "$jdb" "SELECT printf('MPI_Allreduce@jacobi.c:$Lar %.6f (%.1f%%)', SUM(t),
                   100.0 * SUM(t) / (SELECT SUM(wall * MAX(threads, 1)) FROM rank)) AS line
                   FROM (SELECT SUM(time) AS t FROM stat WHERE node = $nid GROUP BY rank, thread)")
        expect_eq "jacobi: the residual MPI_Allreduce (node $nid) with its inclusive time" "$want" \
            "$(tree_line "$d" "$nid" | sed 's/%).*/%)/')"
        b01=$(q "$jdb" "SELECT COALESCE(SUM(bytes_sent), 0) FROM comm WHERE rank = 0 AND peer = 1")
        expect_cmp "jacobi: rank 0 sends to rank 1" gt 0 "$b01"
        expect_eq "jacobi: matrix cell 0 -> 1 = $b01 bytes" "$b01,$b01" \
            "$(attr_of "$d" m-0-1 data-bytes),$(by_id "$d" m-0-1)"
        expect_eq "jacobi: 10 nodes x 2 ranks = 20 imbalance bars" 20 "$(count "$d" 'class="ibar"')"
        expect_eq "jacobi: one flame graph rect per node with time (>= 0.001 px)" \
            "$(q "$jdb" "SELECT 1 + COUNT(*) AS n FROM (SELECT st.node, SUM(st.time) AS t FROM stat st
                JOIN node n ON n.id = st.node WHERE n.parent IS NOT NULL GROUP BY st.node)
                WHERE t * 1180.0 / (SELECT SUM(wall * MAX(threads, 1)) FROM rank) >= 0.001")" \
            "$(count "$d" '<rect data-node=')"
        pid=$(q "$jdb" "SELECT n.id FROM node n JOIN site s ON s.id = n.site WHERE s.kind = 'omp'
                        AND s.name = 'parallel' ORDER BY (SELECT SUM(time) FROM stat WHERE node = n.id) DESC LIMIT 1")
        expect_eq "jacobi: the parallel region's thread table, 2 ranks x 2 threads" 4 \
            "$(sed -n "/<table class=\"threads\" data-node=\"$pid\"/,/<\/table>/p" "$d" | grep -c '^<tr><td>' || true)"
        expect_eq "jacobi: its row of rank 0 thread 0 (calls, time) as the database has it" \
            "$(q "$jdb" "SELECT printf('<tr><td>0</td><td>0</td><td>%d</td><td>%.6f</td>', SUM(count), SUM(time))
                         AS r FROM stat WHERE node = $pid AND rank = 0 AND thread = 0")" \
            "$(sed -n "/<table class=\"threads\" data-node=\"$pid\"/,/<\/table>/p" "$d" |
               grep -o '^<tr><td>0</td><td>0</td><td>[0-9]*</td><td>[0-9.]*</td>')"
        expect_cmp "jacobi: overhead classes of the root and the levels below it" gt 1 \
            "$(ovh_rows_dom "$d" | wc -l)"
        expect_eq "jacobi: the overhead rows are hprof-query --overheads --depth 2's" \
            "$(ovh_rows_query "$jdb" | paste -sd' ')" "$(ovh_rows_dom "$d" | paste -sd' ')"
        if is_png "$OUT/jacobi.png"; then ok "jacobi: screenshot $OUT/jacobi.png"; else
            notok "jacobi: screenshot" "no PNG at $OUT/jacobi.png"
        fi
        # aggregate mode (hprof-merge --no-detail: stat and comm read from
        # the profile) at 10^5 ranks (a copy with rank rows added), the
        # profile moved away: the page is made from the aggregates alone,
        # the parallel region a row over ranks and threads (node_time,
        # node_worst_rank, node_worst_thread), no per-thread table
        mkdir -p "$tmp/agg"
        cp "$PROFILE" "$tmp/agg/jac.hpf"
        "$builddir/analyzer/hprof-merge" --no-detail -o "$tmp/agg/jac.db" "$tmp/agg/jac.hpf" >/dev/null 2>&1
        sqlite3 "$tmp/agg/jac.db" "WITH RECURSIVE r(n) AS (SELECT 2 UNION ALL SELECT n + 1 FROM r
            WHERE n < 99999) INSERT INTO rank(rank, threads, wall) SELECT n, 2, 0.0 FROM r"
        mv "$tmp/agg/jac.hpf" "$tmp/agg-moved.hpf"
        rc=0
        "$REPORT" "$tmp/agg/jac.db" -o "$tmp/agg.html" >"$tmp/agg.out" 2>&1 || rc=$?
        expect_eq "aggregate mode, 10^5 ranks, profile gone: exit 0, nothing printed" "0," \
            "$rc,$(oneline <"$tmp/agg.out")"
        row=$({ grep -o "<tr data-node=\"$pid\">.*" "$tmp/agg.html" 2>/dev/null || true; } |
            sed 's/<\/td>/\n/g; s/<[^>]*>//g')
        expect_eq "aggregate mode: the region's row (calls, time) from the aggregates, no per-thread table" \
            "$(q "$jdb" "SELECT t.calls || ' ' || printf('%.6f', t.time) FROM node_time t
                WHERE t.node = $pid" | tr ' ' ,),0" \
            "$(printf '%s\n' "$row" | sed -n '2p;3p' | paste -sd,),$(count "$tmp/agg.html" 'class="threads"')"
        expect_eq "aggregate mode: the region's slowest rank and thread, node_worst_rank's and node_worst_thread's" \
            "$(q "$jdb" "SELECT w.rank || ' ' || t.thread FROM node_worst_rank w JOIN node_worst_thread t
                ON t.node = w.node WHERE w.node = $pid" | tr ' ' ,)" \
            "$(printf '%s\n' "$row" | sed -n '6p;7p' | paste -sd,)"
        mv "$tmp/agg-moved.hpf" "$tmp/agg/jac.hpf"
    fi

    # tasks: the timeline
    LIBDIR=$builddir/pmpi/.libs
    if OMPI_CC=gcc "$MPICC" -fopenmp -g -O2 "$srcdir/tests/tasks/src/tasktree.c" -o "$tmp/tt" \
        -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" >"$tmp/tt.cc" 2>&1; then
        HPROF_TASK_TRACE=100000 hp_run tt 2 -x OMP_NUM_THREADS=2 -x HPROF_TASK_TRACE "$tmp/tt"
        if ran_ok tt; then
            tdb=${PROFILE%.hpf}.db
            "$REPORT" "$PROFILE" -o "$tmp/tt.html" >/dev/null 2>&1 || true
            dom "$tmp/tt.html" tasks
            nrun=$(q "$tdb" "SELECT MIN(COUNT(*), 20000) FROM task WHERE kind = 'run'")
            expect_cmp "tasks: the run recorded task executions" gt 0 "$nrun"
            expect_eq "tasks: one timeline rect per task execution ($nrun)" "$nrun" \
                "$(count "$tmp/tasks.dom" '<rect class="task"')"
            expect_eq "tasks: a lane per rank and thread that ran tasks" \
                "$(q "$tdb" "SELECT COUNT(*) FROM (SELECT DISTINCT rank, thread FROM task WHERE kind = 'run')")" \
                "$(sed -n '/<svg id="timeline"/,/<\/svg>/p' "$tmp/tasks.dom" | grep -c '^<text x="0"' || true)"
            nnest=$(q "$tdb" "SELECT COUNT(*) FROM task a WHERE a.kind = 'run' AND EXISTS (SELECT 1
                FROM task b WHERE b.kind = 'run' AND b.rank = a.rank AND b.thread = a.thread
                AND b.rowid <> a.rowid AND b.end > a.begin
                AND (b.begin < a.begin OR (b.begin = a.begin AND b.end > a.end)))")
            expect_eq "tasks: nested executions (run before an earlier one of the thread ended) on lanes below, $nnest" \
                "$nnest" "$(grep -o '<rect class="task" data-depth="[1-9][0-9]*"' "$tmp/tasks.dom" | wc -l)"
        fi
    else
        notok "tasks: tasktree.c builds" "$(head -3 "$tmp/tt.cc" | oneline)"
    fi
fi

[ "$skip" = 0 ] || echo "# $skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
