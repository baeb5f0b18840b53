#!/bin/bash
# tests/aggregate/run.sh - the aggregated run mode (HPROF_AGGREGATE): runs
# tests/aggregate/agg_truth at 64 oversubscribed ranks with
# HPROF_AGGREGATE=both (the full profile and the aggregated one from the
# same records) and checks that hprof-merge turns the aggregated profile
# into a database (run key aggregated, no per-rank rows) whose views equal
# the full profile's database's: byte for byte in text (the run header and
# tree, --flat, --callers, --root, --sort, --depth, --overheads, -i, --comm
# of a collective, which adds the class columns ranks, worst_rank and
# worst_time: the full database's comm rows give them; empty, with one
# line saying why, for a site of several calling contexts), CSV and JSON
# numbers to 1e-9 relative (sums are added in another order); per node min, ranks present and the fixed histogram
# of per-rank times (node_hist_fixed) against the full database's
# node_rank; per node and peer class the comm sums; what --matrix leaves
# out.  hprof-report's page works on it and says what it cannot show (the
# matrix, whose section shows --comm site:N's rows with the class columns
# per site instead; per-rank bars become the fixed bins).  The per-rank views and SQL
# on stat/comm refuse it in one line, exit 1.  Both profiles pass --check;
# the aggregated profile of 16 ranks has the same nodes and is smaller by
# no more than the 48 extra ranks' totals; unset (auto), a 2-rank run
# writes the full profile.  4 ranks of 2 OpenMP threads (shares.c): the
# aggregated --check holds, the listing and --flat equal, the overhead
# classes equal, the loss left empty, the page's OpenMP section the
# summary from the aggregates.
#
# usage: tests/aggregate/run.sh [BUILDDIR]  (default: the current
#        directory, as for `make check`).  Env: MPIRUN, HPROF_KEEP_TMP=1,
#        AGG_NP (default 64) and AGG_NP_SMALL (default 16).
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
T=$builddir/tests/aggregate
S=$srcdir/tests/aggregate
NP=${AGG_NP:-64}
NP_SMALL=${AGG_NP_SMALL:-16}
RTOT_LEN=132    # HP_RANK_TOTAL_LEN (libhprof/codec/hp_aggprof.h): one rank's totals

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir aggregate
if [ ! -x "$T/agg_truth" ] || [ ! -x "$QUERY" ]; then
    notok "prerequisites" "missing $T/agg_truth or $QUERY (build with 'make check' first)"
    echo "$pass passed, $fail failed"
    exit 1
fi

# keyed FILE COLUMN... - the rows of a CSV view keyed by the node's path
# (/label/label... as the database's node_path, from the node, parent and
# site columns, rows in preorder) or, without a parent column, by its label column: "key|v|v".
keyed() {
    local file=$1
    shift
    awk -F, -v want="$*" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; n = split(want, w, " "); next }
        {
            if ("parent" in col) {      # node_path: "/" for the root
                key = $col["parent"] == "" ? "/" : path[$col["parent"]] "/" $col["site"]
                path[$col["node"]] = key == "/" ? "" : key
            } else key = $col["label"]
            line = key
            for (i = 1; i <= n; i++) line = line "|" $col[w[i]]
            print line
        }' "$file" | sort
}

# same NAME EXPECTED GOT - two "key|v|v" listings hold the same keys and
# values: strings exactly, numbers to 1e-9 relative (1e-12 absolute).
same() {
    local name=$1 bad
    bad=$(awk -F'|' '
        function num(s) { return s ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ }
        function differ(a, b,   d, m) {
            if (!(num(a) && num(b))) return a != b
            d = a - b; if (d < 0) d = -d
            m = (a < 0 ? -a : a); if ((b < 0 ? -b : b) > m) m = (b < 0 ? -b : b)
            return d > 1e-9 * m + 1e-12
        }
        NR == FNR { e[$1] = $0; next }
        {
            if (!($1 in e)) { print "only in the aggregated view: " $0; next }
            split(e[$1], x, "|"); nf = split($0, y, "|")
            for (i = 2; i <= nf; i++) if (differ(x[i], y[i])) { print "full " e[$1] " / aggregated " $0; break }
            delete e[$1]
        }
        END { for (k in e) print "only in the full view: " e[k] }' "$2" "$3" | head -3 | oneline)
    local n
    n=$(wc -l <"$3")
    if [ -z "$bad" ] && [ "$n" -gt 0 ]; then ok "$name ($n rows)"; else notok "$name" "${bad:-no rows}"; fi
}

# ---------------------------------------------------------------- the run
export HPROF_SUMMARY=off
unset HPROF_AGGREGATE
export HPROF_CALLPATH=3   # frames above the MPI calls: a tree, not a list
HPROF_AGGREGATE=both hp_run both "$NP" -x HPROF_AGGREGATE -x HPROF_SUMMARY -x HPROF_CALLPATH "$T/agg_truth" "$tmp/data"
full=$tmp/both.hpf
agg=$tmp/both.agg.hpf
if ! ran_ok both || [ ! -s "$agg" ]; then
    notok "aggregated profile written" "no $agg; stderr: $(tail -3 "$tmp/both.err" | oneline)"
    echo "$pass passed, $fail failed"
    exit 1
fi
check_profile "aggregated profile" "$agg"
db=$tmp/both.db

# ---------------------------------------------------------------- the databases
MERGE=$builddir/analyzer/hprof-merge
REPORT=$builddir/analyzer/hprof-report
adb=$tmp/both.agg.db
"$QUERY" "$full" --flat >/dev/null 2>&1 || true     # the full database, $db
rc=0
merged=$("$MERGE" -f "$agg" -o "$adb" 2>&1) || rc=$?
expect_eq "hprof-merge writes the aggregated profile's database" \
    "0 yes" "$rc $(printf '%s' "$merged" | grep -c 'from the aggregated profile: no per-rank rows' >/dev/null && echo yes)"
expect_eq "its run key says it came from an aggregated run; no comm or task rows stored" \
    "1;0;0" "$(q "$adb" "SELECT (SELECT value FROM run WHERE key = 'aggregated'), (SELECT COUNT(*) FROM comm_range), (SELECT COUNT(*) FROM task)" | tr ',' '\n')"

# ---------------------------------------------------------------- text views, byte for byte
# view NAME ARGS... - the view of both databases, byte for byte.
view() {
    local name=$1 a b
    shift
    a=$("$QUERY" "$db" "$@" 2>&1) || true
    b=$("$QUERY" "$adb" "$@" 2>&1) || true
    if [ "$a" = "$b" ] && [ -n "$b" ]; then
        ok "$name: byte for byte ($(printf '%s\n' "$b" | wc -l) lines)"
    else
        notok "$name" "$(diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | sed -n '2,4p' | oneline)"
    fi
}
view "run header and tree" --top 0
view "--flat" --flat --top 0
view "--depth 1" --depth 1
view "--sort imbalance" --sort imbalance
view "--flat --sort max" --flat --sort max
view "--callers MPI_Allreduce" --callers MPI_Allreduce
sub=$(q "$db" "SELECT path FROM node_path WHERE id = (SELECT parent FROM node WHERE depth = 2 ORDER BY id LIMIT 1)" | tr -d "'")
view "--root $sub" --root "$sub"
view "--overheads" --overheads
# view_comm NAME SITE - --comm SITE: the full database's text, byte for
# byte, then the aggregated one's per-class columns (ranks, worst_rank,
# worst_time: checked below), which the text is cut before.
view_comm() {
    local name=$1 a b at
    a=$("$QUERY" "$db" --comm "$2" 2>&1) || true
    b=$("$QUERY" "$adb" --comm "$2" 2>&1) || true
    at=$(printf '%s\n' "$b" | sed -n 2p | awk '{ print index($0, "  ranks  wrank  worst_time") }')
    b=$(printf '%s\n' "$b" | awk -v at="$at" '{ print (at > 1 ? substr($0, 1, at - 1) : $0) }')
    if [ "$a" = "$b" ] && [ "$at" -gt 1 ]; then
        ok "$name: byte for byte, then the class columns ($(printf '%s\n' "$b" | wc -l) lines)"
    else
        notok "$name" "class columns at $at; $(diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | sed -n '2,4p' | oneline)"
    fi
}
view_comm "--comm of a collective (MPI_Allreduce)" MPI_Allreduce
view_comm "--comm of MPI-IO (MPI_File_write_at_all)" MPI_File_write_at_all
view "--tasks" --tasks
view "--folded" --folded
view "--sql on an aggregate" --sql "SELECT COUNT(*), SUM(calls) FROM node_time"
ia=$(printf 'ls\ncd 2\nls\ncallers\nflat\nquit\n' | "$QUERY" -i "$db" 2>&1) || true
ib=$(printf 'ls\ncd 2\nls\ncallers\nflat\nquit\n' | "$QUERY" -i "$adb" 2>&1) || true
if [ "$ia" = "$ib" ]; then ok "-i (ls, cd, callers, flat): byte for byte"; else notok "-i" "$(diff <(printf '%s\n' "$ia") <(printf '%s\n' "$ib") | sed -n '2,4p' | oneline)"; fi

# ---------------------------------------------------------------- CSV and JSON, to 1e-9
"$QUERY" "$db" --format csv >"$tmp/full_tree.csv"
"$QUERY" "$adb" --format csv >"$tmp/agg_tree.csv"
tree_cols="calls time mean max imbalance pct excl worst_rank worst_thread"
keyed "$tmp/full_tree.csv" $tree_cols >"$tmp/full_tree.k"
keyed "$tmp/agg_tree.csv" $tree_cols >"$tmp/agg_tree.k"
same "tree CSV: calls, time, mean, max, imbalance, pct, excl, worst rank and thread" \
    "$tmp/full_tree.k" "$tmp/agg_tree.k"
expect_eq "tree CSV: the same columns" "$(head -1 "$tmp/full_tree.csv")" "$(head -1 "$tmp/agg_tree.csv")"
"$QUERY" "$db" --flat --format csv >"$tmp/full_flat.csv"
"$QUERY" "$adb" --flat --format csv >"$tmp/agg_flat.csv"
flat_cols="calls time excl mean max imbalance pct worst_rank worst_thread"
keyed "$tmp/full_flat.csv" $flat_cols >"$tmp/full_flat.k"
keyed "$tmp/agg_flat.csv" $flat_cols >"$tmp/agg_flat.k"
same "--flat CSV: calls, time, excl, mean, max, imbalance, pct, worst rank and thread per site" \
    "$tmp/full_flat.k" "$tmp/agg_flat.k"
for f in full agg; do
    d=$db; [ "$f" = agg ] && d=$adb
    "$QUERY" "$d" --overheads --format csv |
        awk -F, 'NR > 1 { k = $4; $1 = $2 = $3 = $4 = ""; gsub(/^ +/, ""); gsub(/ /, "|"); print k "|" $0 }' \
        | sed 's/||*/|/g' | sort >"$tmp/${f}_ovh.k"
done
same "--overheads CSV: total and classes per node" "$tmp/full_ovh.k" "$tmp/agg_ovh.k"
jf=$("$QUERY" "$db" --format json | grep -c '"node"') || true
ja=$("$QUERY" "$adb" --format json | grep -c '"node"') || true
expect_eq "JSON listing: the same rows" "$jf" "$ja"

# ---------------------------------------------------------------- distributions
# min, ranks present and the fixed histogram per node (not the root: its
# row is the run's thread time), from the full database's per-rank sums.
bins=""
lows=(0 1e-6 3.1622776601683795e-6 1e-5 3.1622776601683795e-5 1e-4 3.1622776601683795e-4
      1e-3 3.1622776601683795e-3 1e-2 3.1622776601683795e-2 1e-1 3.1622776601683795e-1
      1.0 3.1622776601683795 10.0)
for k in $(seq 0 15); do
    hi=${lows[$((k + 1))]:-}
    cond="r.time >= ${lows[$k]}"
    [ "$k" = 0 ] && cond="r.time < 1e-6"
    [ "$k" -gt 0 ] && [ -n "$hi" ] && cond="$cond AND r.time < $hi"
    bins="$bins${bins:+ || ' ' || }SUM($cond)"
done
q "$db" "SELECT p.path || '|' || t.min || '|' || (SELECT COUNT(*) FROM node_rank r WHERE r.node = t.node)
           || '|' || (SELECT $bins FROM node_rank r WHERE r.node = t.node) AS k
         FROM node_time t JOIN node_path p ON p.id = t.node
         WHERE t.node != 1 AND t.calls > 0" | sed "s/^'//; s/'$//" | sort >"$tmp/full_dist.k"
q "$adb" "SELECT p.path || '|' || t.min || '|' || h.ranks || '|' || h.b0 || ' ' || h.b1 || ' ' || h.b2
           || ' ' || h.b3 || ' ' || h.b4 || ' ' || h.b5 || ' ' || h.b6 || ' ' || h.b7 || ' ' || h.b8
           || ' ' || h.b9 || ' ' || h.b10 || ' ' || h.b11 || ' ' || h.b12 || ' ' || h.b13 || ' '
           || h.b14 || ' ' || h.b15 AS k
         FROM node_time t JOIN node_path p ON p.id = t.node JOIN node_hist_fixed h ON h.node = t.node
         WHERE t.node != 1 AND t.calls > 0" | sed "s/^'//; s/'$//" | sort >"$tmp/agg_dist.k"
same "min, ranks present and fixed histogram of per-rank times per node" \
    "$tmp/full_dist.k" "$tmp/agg_dist.k"
expect_eq "node_hist (10 bins from min to max) is not made up: no rows" 0 \
    "$(q "$adb" "SELECT COUNT(*) FROM node_hist")"

# ---------------------------------------------------------------- comm
# Per node and peer class: the full database's comm rows summed (ranks
# as peers, *all* of a collective, *file*) against comm_node_peer.
q "$db" "WITH c AS (SELECT node, CASE WHEN peer >= 0 THEN '*ranks*' WHEN peer = -1
                THEN '*all*' ELSE '*file*' END AS cls, count, bytes_sent, bytes_recv, tran, sync,
                min, max FROM comm)
         SELECT p.path || '#' || c.cls || '|' || SUM(count) || '|' || SUM(bytes_sent) || '|'
           || SUM(bytes_recv) || '|' || SUM(tran) || '|' || SUM(sync) || '|' || MIN(min) || '|'
           || MAX(max) AS k
         FROM c JOIN node_path p ON p.id = c.node GROUP BY c.node, c.cls" |
    sed "s/^'//; s/'$//" | sort >"$tmp/full_comm.k"
q "$adb" "SELECT p.path || '#' || CASE c.peer WHEN -3 THEN '*ranks*' WHEN -1 THEN '*all*'
                ELSE '*file*' END || '|' || count || '|' || bytes_sent || '|' || bytes_recv || '|'
           || tran || '|' || sync || '|' || min || '|' || max AS k
         FROM comm_node_peer c JOIN node_path p ON p.id = c.node" |
    sed "s/^'//; s/'$//" | sort >"$tmp/agg_comm.k"
same "comm per node and peer class: count, bytes, tran, sync, min, max" \
    "$tmp/full_comm.k" "$tmp/agg_comm.k"
q "$db" "WITH c AS (SELECT node, rank, CASE WHEN peer >= 0 THEN '*ranks*' WHEN peer = -1
                THEN '*all*' ELSE '*file*' END AS cls, tran + sync AS t FROM comm),
           pr AS (SELECT node, cls, rank, SUM(t) AS t FROM c GROUP BY node, cls, rank),
           w AS (SELECT node, cls, rank, t, ROW_NUMBER() OVER (PARTITION BY node, cls
                ORDER BY t DESC, rank) AS k FROM pr)
         SELECT p.path || '#' || w.cls || '|' || (SELECT COUNT(*) FROM pr WHERE pr.node = w.node
           AND pr.cls = w.cls) || '|' || w.rank || '|' || w.t AS k
         FROM w JOIN node_path p ON p.id = w.node WHERE w.k = 1" |
    sed "s/^'//; s/'$//" | sort >"$tmp/full_class.k"
q "$adb" "SELECT p.path || '#' || CASE c.peer WHEN -3 THEN '*ranks*' WHEN -1 THEN '*all*'
                ELSE '*file*' END || '|' || ranks || '|' || worst_rank || '|' || worst_time AS k
         FROM comm_node_class c JOIN node_path p ON p.id = c.node" |
    sed "s/^'//; s/'$//" | sort >"$tmp/agg_class.k"
same "comm_node_class per node and peer class: ranks, worst rank and its time" \
    "$tmp/full_class.k" "$tmp/agg_class.k"
# --comm SITE shows them (one calling context a site here): per class the
# ranks, the worst rank and its time the full database's comm rows give
for site in MPI_Sendrecv MPI_Allreduce MPI_Alltoall MPI_File_write_at_all; do
    "$QUERY" "$adb" --comm "$site" --format csv 2>&1 |
        awk -F, -v s="$site" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
            { print s "#" $col["peer"] "|" $col["ranks"] "|" $col["worst_rank"] "|" $col["worst_time"] }'
done | sed 's/#file|/#*file*|/' | sort >"$tmp/agg_view_class.k"
q "$db" "WITH c AS (SELECT s.name AS site, c.node AS node, rank, CASE WHEN peer >= 0 THEN '*ranks*'
                WHEN peer = -1 THEN '*all*' ELSE '*file*' END AS cls, tran + sync AS t FROM comm c
                JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site WHERE s.name IN
                ('MPI_Sendrecv', 'MPI_Allreduce', 'MPI_Alltoall', 'MPI_File_write_at_all')),
           pr AS (SELECT site, cls, rank, SUM(t) AS t FROM c GROUP BY site, cls, rank),
           w AS (SELECT site, cls, rank, t, ROW_NUMBER() OVER (PARTITION BY site, cls
                ORDER BY t DESC, rank) AS k FROM pr)
         SELECT w.site || '#' || w.cls || '|' || (SELECT COUNT(*) FROM pr WHERE pr.site = w.site
           AND pr.cls = w.cls) || '|' || w.rank || '|' || w.t AS k FROM w WHERE w.k = 1" |
    sed "s/^'//; s/'$//" | sort >"$tmp/full_view_class.k"
same "--comm SITE: per class the ranks, the worst rank and its time" \
    "$tmp/full_view_class.k" "$tmp/agg_view_class.k"
# a site of several calling contexts (bench/aggmerge: site i % 20 of
# node i): the per-context figures do not add up to the site's, so the
# columns are empty and one line says where they are
AGGMERGE=$builddir/bench/aggmerge
if [ -x "$AGGMERGE" ]; then
    "$AGGMERGE" 200 20 1 "$tmp/am.hpf" 8 >/dev/null &&
        "$MERGE" -f -o "$tmp/am.db" "$tmp/am.hpf" >/dev/null 2>&1 || notok "bench/aggmerge" "failed"
    check_profile "bench/aggmerge's aggregated profile" "$tmp/am.hpf"
    got=$("$QUERY" "$tmp/am.db" --comm MPI_Call0@bench.c:1 2>&1) || true
    expect_eq "--comm of a site of three calling contexts: no ranks or worst rank, one line why" \
        "-;-;-;1" "$(printf '%s\n' "$got" | sed -n 3p | awk '{ print $(NF - 2) ";" $(NF - 1) ";" $NF }');$(printf '%s\n' "$got" | grep -c 'kept per calling context, and the site has several: --sql "SELECT \* FROM comm_node_class WHERE node IN (21,41,')"
else
    skipped "--comm of a site of several calling contexts" "no bench/aggmerge"
fi
expect_eq "every class is there (point-to-point, collective, file)" "*all*;*file*;*ranks*" \
    "$(cut -d'#' -f2 "$tmp/agg_comm.k" | cut -d'|' -f1 | sort -u | oneline)"
q "$db" "SELECT * FROM comm_leftout" | tr ',' '|' | sed 's/^/leftout|/' >"$tmp/full_left.k"
q "$adb" "SELECT * FROM comm_leftout" | tr ',' '|' | sed 's/^/leftout|/' >"$tmp/agg_left.k"
same "what --matrix leaves out (collective bytes, calls, time; file bytes; p2p bytes)" \
    "$tmp/full_left.k" "$tmp/agg_left.k"
"$QUERY" "$adb" --comm MPI_Sendrecv --format csv >"$tmp/agg_sr.csv" 2>&1 || true
expect_eq "--comm of a point-to-point site: one '*ranks*' row with the peers' sums" \
    "*ranks*,$(q "$db" "SELECT SUM(count) || ',' || SUM(bytes_sent) FROM comm_node_peer c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site WHERE s.name = 'MPI_Sendrecv'" | tr -d "'\"")" \
    "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } { print $col["peer"] "," $col["count"] "," $col["bytes_sent"] }' "$tmp/agg_sr.csv")"

# ---------------------------------------------------------------- the report page
rc=0
"$REPORT" "$adb" -o "$tmp/agg.html" >"$tmp/report.out" 2>&1 || rc=$?
"$REPORT" "$db" -o "$tmp/full.html" >/dev/null 2>&1 || true
expect_eq "hprof-report writes the aggregated run's page" "0 yes" \
    "$rc $([ -s "$tmp/agg.html" ] && echo yes)"
expect_eq "the page has the full run's sections" \
    "$(grep -o '<h2>[^<]*</h2>' "$tmp/full.html" | oneline)" "$(grep -o '<h2>[^<]*</h2>' "$tmp/agg.html" | oneline)"
# the page without its matrix and imbalance sections (per-rank data):
# one element a line, from the matrix's heading to the next section's.
outside() { sed 's/></>\n</g' "$1" | awk '/<h2>Communication matrix/ { skip = 1 } /<h2 id="ovh-title"|<h2>OpenMP|<h2>Task/ { skip = 0 } !skip'; }
if [ "$(outside "$tmp/full.html")" = "$(outside "$tmp/agg.html")" ]; then
    ok "the page outside the matrix and imbalance sections: byte for byte ($(outside "$tmp/agg.html" | wc -l) elements)"
else
    notok "the page outside the matrix and imbalance sections" "$(diff <(outside "$tmp/full.html") <(outside "$tmp/agg.html") | sed -n '2,3p' | cut -c1-200 | oneline)"
fi
expect_eq "the page's imbalance section: the same nodes by the same cost" \
    "$(grep -o 'class="inode" data-node="[0-9]*" data-cost="[^"]*"' "$tmp/full.html" | oneline)" \
    "$(grep -o 'class="inode" data-node="[0-9]*" data-cost="[^"]*"' "$tmp/agg.html" | oneline)"
expect_eq "the page says the matrix is not kept, draws fixed bins, no per-rank bars" "1 yes 0" \
    "$(grep -c 'id="matrix-aggregated"' "$tmp/agg.html") $(grep -c 'class="hbin"' "$tmp/agg.html" >/dev/null && echo yes) $(grep -c 'class="ibar"' "$tmp/agg.html")"
# its communication section: per site and peer class (one calling context
# a site here) the numbers and class columns of --comm site:N, which equal
# the full database's (above); no empty cell, no line about them
page_classes() {
    { grep -o '<tr class="cclass" data-site="[0-9]*" data-peer="[^"]*">.*</tr>' "$1" || true; } |
        sed 's/<tr class="cclass" data-site="\([0-9]*\)" data-peer="\([^"]*\)"><td class="l">[^<]*<\/td><td class="l">[^<]*<\/td><td>/\1|\2|/; s/<\/td><td>/|/g; s/<\/td><\/tr>$//'
}
for s in $(page_classes "$tmp/agg.html" | cut -d'|' -f1 | sort -un); do
    "$QUERY" "$adb" --comm "site:$s" --format csv | tr -d '\r' | awk -F, -v s="$s" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { printf "%s|%s|%s|%s|%s|%.6f|%.6f|%s|%s|%.6f\n", s, $c["peer"], $c["count"], $c["bytes_sent"],
              $c["bytes_recv"], $c["tran"], $c["sync"], $c["ranks"], $c["worst_rank"], $c["worst_time"] }'
done | sort >"$tmp/query_classes.k"
page_classes "$tmp/agg.html" | sort >"$tmp/page_classes.k"
nsites=$(q "$adb" "SELECT COUNT(DISTINCT n.site) FROM comm_node_peer p JOIN node n ON n.id = p.node")
expect_eq "the page's communication per site and class: --comm site:N's numbers and class columns" \
    "$(paste -sd' ' "$tmp/query_classes.k")" "$(paste -sd' ' "$tmp/page_classes.k")"
expect_eq "... of the $nsites sites (at most 20), no empty class cell, no line about one" \
    "$([ "$nsites" -gt 20 ] && echo 20 || echo "$nsites"),0,0" \
    "$(cut -d'|' -f1 "$tmp/page_classes.k" | sort -u | wc -l),$(awk -F'|' '$8 == "" || $9 == "" || $10 == ""' "$tmp/page_classes.k" | wc -l),$(grep -c 'id="comm-classes-several"' "$tmp/agg.html" || true)"

# ---------------------------------------------------------------- per-rank views
# refused NAME ARGS... - the view refuses the aggregated run's database in
# one line naming HPROF_AGGREGATE=0, exit 1.
refused() {
    local name=$1 out rc=0
    shift
    out=$("$QUERY" "$adb" "$@" 2>&1) || rc=$?
    expect_eq "$name on the aggregated run's database: one line naming HPROF_AGGREGATE=0, exit 1" \
        "1 1 yes" "$rc $(printf '%s\n' "$out" | wc -l) $(printf '%s' "$out" | grep -c 'HPROF_AGGREGATE=0' >/dev/null && echo yes)"
}
refused "--ranks" --ranks MPI_Barrier
refused "--matrix" --matrix
refused "--comm --by-rank" --comm MPI_Sendrecv --by-rank
refused "SQL on stat" --sql "SELECT COUNT(*) FROM stat"
refused "SQL on comm" --sql "SELECT COUNT(*) FROM comm"
refused "--task-trace" --task-trace
refused "--suggest-filter" --suggest-filter
rc=0
out=$("$QUERY" "$adb" --check 2>&1) || rc=$?
expect_eq "--check of the aggregated run's database checks its profile" "0 yes" \
    "$rc $(printf '%s' "$out" | grep -c '^check: ok: aggregated profile of' >/dev/null && echo yes)"

# ---------------------------------------------------------------- OpenMP ranks
# tests/shares/shares.c (2 threads a rank, a parallel region under main)
# at 4 ranks: the aggregated profile's --check holds (a worker thread's
# forked context sums its children's time into main's), the listing and
# --flat are byte for byte, the overhead classes per node equal and the
# loss of parallelism, which the profile does not hold, is left empty;
# the page's OpenMP section is the summary from the aggregates.
LIBDIR=$builddir/pmpi/.libs
mkdir -p "$tmp/bin"
if "$MPICC" -g -O1 -fopenmp -finstrument-functions "$srcdir/tests/shares/shares.c" \
        -o "$tmp/bin/shares" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" 2>"$tmp/cc.err"; then
    HPROF_AGGREGATE=both hp_run omp 4 -x HPROF_AGGREGATE -x HPROF_SUMMARY -x OMP_NUM_THREADS=2 "$tmp/bin/shares"
    if ran_ok omp && [ -s "$tmp/omp.agg.hpf" ]; then
        check_profile "OpenMP ranks: aggregated profile" "$tmp/omp.agg.hpf"
        db=$tmp/omp.db
        adb=$tmp/omp.agg.db
        "$QUERY" "$PROFILE" --flat >/dev/null 2>&1 || true
        "$MERGE" -f "$tmp/omp.agg.hpf" -o "$adb" >/dev/null 2>&1 || true
        view "OpenMP ranks: run header and tree" --top 0
        view "OpenMP ranks: --flat" --flat --top 0
        for f in full agg; do
            d=$db; [ "$f" = agg ] && d=$adb
            "$QUERY" "$d" --overheads --format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                { key = $col["parent"] == "" ? "/" : path[$col["parent"]] "/" $col["label"]
                  path[$col["node"]] = key == "/" ? "" : key
                  print key "|" $col["computation"] "|" $col["data_movement"] "|"
                  $col["synchronization"] "|" $col["control"] }' | sort >"$tmp/omp_${f}_ovh.k"
        done
        same "OpenMP ranks: --overheads computation, data, sync, control per node" \
            "$tmp/omp_full_ovh.k" "$tmp/omp_agg_ovh.k"
        expect_eq "OpenMP ranks: the loss of parallelism is left empty, not 0" "" \
            "$("$QUERY" "$adb" --overheads --format csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } $col["loss"] != "" { print }')"
        "$REPORT" "$adb" -o "$tmp/omp.html" >/dev/null 2>&1 || true
        expect_eq "OpenMP ranks: the page's OpenMP section is the regions' summary over ranks and threads" 1 \
            "$(grep -c 'id="omp-summary"' "$tmp/omp.html" 2>/dev/null || true)"
    else
        notok "OpenMP ranks: aggregated profile written" "$(tail -3 "$tmp/omp.err" | oneline)"
    fi
else
    notok "build of shares.c" "$(head -3 "$tmp/cc.err" | oneline)"
fi

# ---------------------------------------------------------------- size
HPROF_AGGREGATE=1 hp_run small "$NP_SMALL" -x HPROF_AGGREGATE -x HPROF_SUMMARY -x HPROF_CALLPATH "$T/agg_truth" "$tmp/data2"
if ran_ok small; then
    nodes() { "$QUERY" "$1" --check | sed -n 's/.*ranks, \([0-9]*\) nodes.*/\1/p'; }
    expect_eq "the same nodes at $NP_SMALL and $NP ranks" "$(nodes "$agg")" "$(nodes "$PROFILE")"
    big=$(stat -c %s "$agg")
    small=$(stat -c %s "$PROFILE")
    expect_cmp "aggregated profile at $NP ranks ($big bytes) grows from $NP_SMALL ranks ($small) by the ranks' totals only" \
        le $(( (NP - NP_SMALL) * RTOT_LEN )) $((big - small))
    echo "# sizes: full $(stat -c %s "$full") bytes at $NP ranks; aggregated $small at $NP_SMALL, $big at $NP"
fi

# ---------------------------------------------------------------- auto
# HPROF_AGGREGATE unset is auto: the full profile (format 5) below 4096 ranks.
hp_run auto 2 -x HPROF_SUMMARY "$T/agg_truth"
if ran_ok auto; then
    expect_eq "HPROF_AGGREGATE=auto at 2 ranks: the full profile (format version 5)" 5 \
        "$(od -An -tu4 -j8 -N4 "$PROFILE" | tr -d ' ')"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
