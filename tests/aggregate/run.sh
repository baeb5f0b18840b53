#!/bin/bash
# tests/aggregate/run.sh - the aggregated run mode (HPROF_AGGREGATE): runs
# tests/aggregate/agg_truth at 64 oversubscribed ranks with
# HPROF_AGGREGATE=both (the full profile and the aggregated one from the
# same records) and checks that every number the views print for the
# aggregated profile equals the full profile's: the run header, the tree
# (calls, time, mean, max, imbalance, pct, exclusive time, worst rank and
# thread), min, ranks present and the histogram of per-rank times per
# node (against the full database's node_time and node_rank), --flat, and
# per node and peer class the transfers, bytes, times, min, max and
# worst rank of --comm.  Times agree to 1e-9 relative (sums are added in
# another order).  Both profiles pass --check; the per-rank views refuse
# the aggregated one in one line; and the aggregated profile of 16 ranks
# has the same nodes and is smaller by no more than the 48 extra ranks'
# totals; unset (auto), a 2-rank run writes the full profile.
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

# ---------------------------------------------------------------- header and tree
"$QUERY" "$full" >"$tmp/full.txt" 2>/dev/null
"$QUERY" "$agg" >"$tmp/agg.txt"
expect_eq "run header (ranks, wall, thread time, MPI time) equal" \
    "$(grep -E '^(ranks|wall|threads|MPI time):' "$tmp/full.txt")" \
    "$(grep -E '^(ranks|wall|threads|MPI time):' "$tmp/agg.txt")"

"$QUERY" "$full" --format csv >"$tmp/full_tree.csv"
"$QUERY" "$agg" --format csv >"$tmp/agg_tree.csv"
tree_cols="calls time mean max imbalance pct excl worst_rank worst_thread"
keyed "$tmp/full_tree.csv" $tree_cols >"$tmp/full_tree.k"
keyed "$tmp/agg_tree.csv" $tree_cols >"$tmp/agg_tree.k"
same "tree: calls, time, mean, max, imbalance, pct, excl, worst rank and thread per node" \
    "$tmp/full_tree.k" "$tmp/agg_tree.k"

# min, ranks present and the histogram per node (not the root: its row is
# the run's thread time), from the full database's per-rank sums.
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
keyed "$tmp/agg_tree.csv" min ranks hist | grep -v '^/|' >"$tmp/agg_dist.k"
same "tree: min, ranks present and histogram of per-rank times per node" \
    "$tmp/full_dist.k" "$tmp/agg_dist.k"

# ---------------------------------------------------------------- flat
"$QUERY" "$full" --flat --format csv >"$tmp/full_flat.csv"
"$QUERY" "$agg" --flat --format csv >"$tmp/agg_flat.csv"
flat_cols="calls time excl max imbalance pct worst_rank worst_thread"
keyed "$tmp/full_flat.csv" $flat_cols >"$tmp/full_flat.k"
keyed "$tmp/agg_flat.csv" $flat_cols >"$tmp/agg_flat.k"
same "--flat: calls, time, excl, max, imbalance, pct, worst rank and thread per site" \
    "$tmp/full_flat.k" "$tmp/agg_flat.k"

# ---------------------------------------------------------------- comm
# Per node and peer class: the full database's comm rows summed (ranks
# as peers, *all* of a collective, *file*), and the rank with the most
# transmission + synchronization time (the lowest of equals).
q "$db" "WITH c AS (SELECT node, rank, CASE WHEN peer >= 0 THEN '*ranks*' WHEN peer = -1
                THEN '*all*' ELSE '*file*' END AS cls, count, bytes_sent, bytes_recv, tran, sync,
                min, max FROM comm),
           pr AS (SELECT node, cls, rank, SUM(tran + sync) AS t FROM c GROUP BY node, cls, rank),
           w AS (SELECT node, cls, rank, t FROM (SELECT *, ROW_NUMBER() OVER
                (PARTITION BY node, cls ORDER BY t DESC, rank) AS k FROM pr) WHERE k = 1)
         SELECT p.path || '|' || c.cls || '|' || SUM(count) || '|' || SUM(bytes_sent) || '|'
           || SUM(bytes_recv) || '|' || SUM(tran) || '|' || SUM(sync) || '|' || MIN(min) || '|'
           || MAX(max) || '|' || COUNT(DISTINCT c.rank) || '|' || w.rank || '|' || w.t AS k
         FROM c JOIN node_path p ON p.id = c.node JOIN w ON w.node = c.node AND w.cls = c.cls
         GROUP BY c.node, c.cls" | sed "s/^'//; s/'$//" |
    awk -F'|' 'BEGIN { OFS = "|" } { $1 = $1 "#" $2; $2 = ""; sub(/\|\|/, "|"); print }' |
    sort >"$tmp/full_comm.k"
"$QUERY" "$agg" --comm "" --format csv >"$tmp/agg_comm.csv"
awk -F, 'NR == FNR { if (FNR > 1) path[$1] = $11 == "" ? "" : path[$11] "/" $3; next }
         FNR > 1 { print path[$1] "#" $2 "|" $3 "|" $4 "|" $5 "|" $6 "|" $7 "|" $8 "|" $9 "|" $10 "|" $11 "|" $12 }' \
    "$tmp/agg_tree.csv" "$tmp/agg_comm.csv" | sort >"$tmp/agg_comm.k"
same "--comm: count, bytes, tran, sync, min, max, ranks and worst rank per node and peer class" \
    "$tmp/full_comm.k" "$tmp/agg_comm.k"
expect_eq "--comm: every class is there (point-to-point, collective, file)" "*all*;*file*;*ranks*" \
    "$(cut -d'#' -f2 "$tmp/agg_comm.k" | cut -d'|' -f1 | sort -u | oneline)"

# ---------------------------------------------------------------- per-rank views
for view in "--ranks MPI_Barrier" "--threads MPI_Barrier" "--matrix"; do
    rc=0
    # shellcheck disable=SC2086
    out=$("$QUERY" "$agg" $view 2>&1) || rc=$?
    expect_eq "$view on the aggregated profile: one line, exit 1" \
        "1 1 yes" "$rc $(printf '%s\n' "$out" | wc -l) $(printf '%s' "$out" | grep -c 'needs a full profile' >/dev/null && echo yes)"
done

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
