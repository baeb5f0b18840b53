#!/bin/sh
# test_deep.sh - the database of a deep, large calling-context tree (an
# interpreter's recursion: Lua's test suite gave 10^6 nodes at depth ~300
# and, with a path string per node, a 2.26 GB database for a 48 MB
# profile).  mkdeep writes 10^5 nodes in chains of 300; the checks:
#   - the database is at most 3x the profile (no per-node path strings);
#   - the node table's preorder intervals give exact subtrees: the root
#     holds every other node, a chain's head its 299 descendants;
#   - the view node_path builds a node's path from its parents: the
#     deepest node of the first chain has 300 components, f1 first;
#   - hprof-query --check passes on it;
#   - the default listing (--top 30: only the listed nodes and their
#     siblings are loaded) gives the first rows of the whole listing
#     (--top 0: the whole tree loaded at once), also within --depth 2, and
#     on mkprofile's profile, whose children are not in id order;
#   - freshness by content: a database is merged again when its profile is
#     replaced by a different one, even one dated before the database.
# Run from the build directory (as `make check` does) or with top_builddir set.
set -u
top=${top_builddir:-.}
MKDEEP=$top/tests/unit/mkdeep
MKPROFILE=$top/tests/unit/mkprofile
QUERY=$top/analyzer/hprof-query
dir=$(mktemp -d "${TMPDIR:-/tmp}/test_deep.XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0
check() {
    if [ "$2" = "$3" ]; then echo "ok - $1"; pass=$((pass + 1))
    else echo "not ok - $1: expected '$2' got '$3'"; fail=$((fail + 1)); fi
}
q() { "$QUERY" "$dir/deep.db" --format csv --sql "$1" 2>/dev/null | tail -n +2; }

N=100000 D=300
"$MKDEEP" "$dir/deep.hpf" $N $D || { echo "not ok - mkdeep"; exit 1; }
"$QUERY" "$dir/deep.hpf" --check >"$dir/check.out" 2>&1
check "hprof-query --check passes" "0" "$?"
nodes=$(q "SELECT count(*) FROM node")
prof=$(stat -c %s "$dir/deep.hpf") db=$(stat -c %s "$dir/deep.db")
check "database <= 3 x profile ($db vs $prof bytes, $nodes nodes)" "yes" \
    "$([ "$db" -le $((3 * prof)) ] && echo yes || echo no)"
check "no path column in the node table" "0" \
    "$(q "SELECT count(*) FROM pragma_table_info('node') WHERE name = 'path'")"
check "the root's interval holds every other node" "$((nodes - 1))" \
    "$(q "SELECT count(*) FROM node c, node p WHERE p.parent IS NULL AND c.lo > p.lo AND c.lo <= p.hi")"
check "a chain's head holds its $((D - 1)) descendants" "$((D - 1))" \
    "$(q "SELECT count(*) FROM node c, node p JOIN site s ON s.id = p.site
          WHERE p.depth = 1 AND s.name = 'f1' AND c.lo > p.lo AND c.lo <= p.hi")"
check "node_path of the deepest node under f1: $D components, from /f1/" "$D,/f1/" \
    "$(q "SELECT length(path) - length(replace(path, '/', '')), substr(path, 1, 4)
          FROM node_path JOIN node n USING (id) WHERE n.depth = $D
          AND n.lo > (SELECT lo FROM node p JOIN site s ON s.id = p.site WHERE p.depth = 1 AND s.name = 'f1')
          AND n.lo <= (SELECT hi FROM node p JOIN site s ON s.id = p.site WHERE p.depth = 1 AND s.name = 'f1')")"
check "a node's path has its depth in components" "0" \
    "$(q "SELECT count(*) FROM node_path JOIN node n USING (id)
          WHERE n.depth > 0 AND length(path) - length(replace(path, '/', '')) != n.depth")"

for opts in "--top 30" "--top 30 --depth 2" "--top 1000"; do
    n=${opts#--top }; n=${n%% *}
    "$QUERY" "$dir/deep.db" --format csv $opts >"$dir/lazy.csv" 2>&1
    whole=$(echo "$opts" | sed "s/--top $n/--top 0/")
    "$QUERY" "$dir/deep.db" --format csv $whole 2>&1 | head -n $((n + 1)) >"$dir/all.csv"
    check "listing $opts: the first rows of the whole listing ($n rows)" "$((n + 1)),same" \
        "$(wc -l <"$dir/lazy.csv"),$(cmp -s "$dir/lazy.csv" "$dir/all.csv" && echo same || echo differ)"
done
# CSV and JSON without --top: every row, as --top 0 gives them (every
# node is listed: the root and the N - 1 called ones); text stops at 30
# rows and says how many it left out
"$QUERY" "$dir/deep.db" --format csv >"$dir/all.csv" 2>&1
"$QUERY" "$dir/deep.db" --format csv --top 0 >"$dir/top0.csv" 2>&1
check "CSV without --top: all $nodes rows, as --top 0" "$((nodes + 1)),same" \
    "$(wc -l <"$dir/all.csv"),$(cmp -s "$dir/all.csv" "$dir/top0.csv" && echo same || echo differ)"
check "JSON without --top: all $nodes rows" "$nodes" \
    "$("$QUERY" "$dir/deep.db" --format json 2>&1 | grep -c '^  {"node": ')"
check "text without --top: 30 rows and the rest counted" "30,($((nodes - 30)) more rows" \
    "$("$QUERY" "$dir/deep.db" 2>&1 | sed -n '/^node /,$p' | sed '1d;$d' | wc -l),$("$QUERY" "$dir/deep.db" 2>&1 | tail -1 | cut -d';' -f1)"
"$MKPROFILE" "$dir/known.hpf" || { echo "not ok - mkprofile"; exit 1; }
"$QUERY" "$dir/known.hpf" --format csv --top 30 >"$dir/lazy.csv" 2>/dev/null
"$QUERY" "$dir/known.hpf" --format csv --top 0 >"$dir/all.csv" 2>/dev/null
check "mkprofile's listing: loaded lazily = loaded whole (9 rows, node 7 before 4)" "10,same,7" \
    "$(wc -l <"$dir/lazy.csv"),$(cmp -s "$dir/lazy.csv" "$dir/all.csv" && echo same || echo differ),$(sed -n 6p "$dir/lazy.csv" | cut -d, -f1)"

# Freshness: a smaller profile put in place, dated a day before the
# database, must be merged again.
"$MKDEEP" "$dir/other.hpf" 600 $D || { echo "not ok - mkdeep"; exit 1; }
mv "$dir/other.hpf" "$dir/deep.hpf"
touch -d "@$(( $(stat -c %Y "$dir/deep.db") - 86400 ))" "$dir/deep.hpf"
"$QUERY" "$dir/deep.hpf" --flat >/dev/null 2>"$dir/err"
check "a replaced, older-dated profile is merged again" "1" "$(grep -c 'merged' "$dir/err")"
check "... and the database shows the new one" "600" "$(q "SELECT count(*) - 1 FROM node")"
"$QUERY" "$dir/deep.hpf" --flat >/dev/null 2>"$dir/err"
check "an unchanged profile is not merged again" "0" "$(grep -c 'merged' "$dir/err")"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
