#!/bin/bash
# tests/detail/run.sh - the database with and without its per-rank rows
# (issue 26; README "Aggregates and the format version").  Each profile
# is merged twice, with hprof-merge --detail (stat and comm rows stored)
# and --no-detail (aggregate mode: stat and comm are virtual tables that
# read the rows from the per-node index the merge wrote, rank_index, and
# the comm records from the profile, analyzer/db/detail.c, rankidx.h),
# each copy next to its own copy of the profile, and the aggregate-mode
# database once more with its index dropped (the rows decoded from the
# profile, as before the index); then every view of hprof-query in text,
# CSV and JSON (listing, --flat, --comm, --comm --by-rank, --ranks,
# --callers, --threads, --matrix, --matrix SITE, --tasks, --overheads,
# --raw, --check, --folded, --task-trace, SQL on the rows), an
# interactive session and hprof-report's page must print the same bytes
# from the databases, and the sums of a site's comm rows that aggregate
# mode makes in C for --comm SITE --by-rank and --matrix SITE
# (hprof_comm_sums) must be those of the SQL over `comm`, every double to
# its last bit (printf %.17g; the views print 15 digits).  Profiles: tests/unit/mkprofile's two ranks (and
# the same run as the two files its ranks wrote alone, and its variant
# with two sites of a rank merged into one node), bench/mkbig's 8
# ranks x 2 threads, and a real run of examples/jacobi at NP=4 x 2
# OpenMP threads (skipped without mpirun).  Then:
#   - by default a small profile keeps its rows (run key detail 1), and
#     --no-detail's database holds none (stat and comm are virtual);
#   - hprof-merge --aggregate of an aggregate-mode database recomputes
#     the same tables from the rows read from the profile;
#   - the profile gone (moved away) or changed (a byte appended): a view
#     of comm rows fails with one line naming the profile and saying
#     to keep it or merge with --detail, exit 1; the listing, which reads
#     only aggregates, and the stat rows (from the index) still work;
#     database and profile moved together to another directory: the
#     profile is found beside the database;
#   - a database of format 4 (the one before) alone is refused in one line
#     ("database format 4 is older ... run hprof-merge"), next to its
#     profile it is merged again into format 5.
# usage: tests/detail/run.sh [BUILDDIR]
set -u
srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
QUERY=$builddir/analyzer/hprof-query
MERGE=$builddir/analyzer/hprof-merge
REPORT=$builddir/analyzer/hprof-report
MKPROFILE=$builddir/tests/unit/mkprofile
MKBIG=$builddir/bench/mkbig
. "$srcdir/tests/lib.sh"
test_tmpdir detail
for f in "$QUERY" "$MERGE" "$REPORT" "$MKPROFILE" "$MKBIG"; do
    [ -x "$f" ] || { notok "prerequisites" "missing: $f (make check TESTS= first)"; exit 1; }
done
command -v sqlite3 >/dev/null || { echo "skip: no sqlite3"; exit 77; }

# both NAME FILE... - copies the profile FILE... into $tmp/NAME.d/ (detail)
# and $tmp/NAME.a/ (aggregates) and merges each: $D and $A, the databases.
both() {
    local name=$1 f
    shift
    mkdir -p "$tmp/$name.d" "$tmp/$name.a" "$tmp/$name.f"
    for f in "$@"; do
        cp "$f" "$tmp/$name.d/" && cp "$f" "$tmp/$name.a/" && cp "$f" "$tmp/$name.f/"
    done
    D=$tmp/$name.d/run.db A=$tmp/$name.a/run.db F=$tmp/$name.f/run.db
    (cd "$tmp/$name.d" && "$MERGE" --detail -o run.db "${@##*/}" >/dev/null) &&
        (cd "$tmp/$name.a" && "$MERGE" --no-detail -o run.db "${@##*/}" >/dev/null) &&
        (cd "$tmp/$name.f" && "$MERGE" --no-detail -o run.db "${@##*/}" >/dev/null) ||
        notok "$name: merges" "hprof-merge failed"
    sqlite3 "$F" "DROP TABLE rank_index"
    expect_eq "$name: aggregate mode writes the per-rank index, detail mode not" "$index;0" \
        "$(sqlite3 "$A" "SELECT value FROM run WHERE key = 'rank_index'");$(sqlite3 "$D" \
           "SELECT COUNT(*) FROM sqlite_master WHERE name = 'rank_index'")"
    expect_eq "$name: detail mode stores the rows, aggregate mode does not" "1 table;0 virtual" \
        "$(sqlite3 "$D" "SELECT value FROM run WHERE key = 'detail'") $(sqlite3 "$D" \
           "SELECT CASE WHEN sql LIKE 'CREATE VIRTUAL%' THEN 'virtual' ELSE 'table' END
            FROM sqlite_master WHERE name = 'stat'");$(sqlite3 "$A" \
           "SELECT value FROM run WHERE key = 'detail'") $(sqlite3 "$A" \
           "SELECT CASE WHEN sql LIKE 'CREATE VIRTUAL%' THEN 'virtual' ELSE 'table' END
            FROM sqlite_master WHERE name = 'stat'")"
}

# out DB ARGS... - hprof-query's stdout and stderr, its exit status last,
# the database's directory left out of it
out() {
    local db=$1 rc=0
    shift
    "$QUERY" "$db" "$@" >"$tmp/out" 2>&1 || rc=$?
    sed "s#$(dirname "$db")/##g" "$tmp/out"
    echo "exit $rc"
}

# The SQL over the comm rows of the nodes NODES that --comm SITE --by-rank
# and --matrix SITE ran before aggregate mode summed them in C
# (hprof_comm_sums, analyzer/db/detail_sums.c), every double in full.
by_rank_sql() {
    echo "SELECT rank, peer, SUM(count), SUM(bytes_sent), SUM(bytes_recv),
          printf('%.17g', SUM(tran)), printf('%.17g', SUM(sync)), printf('%.17g', MIN(min)),
          printf('%.17g', MAX(max)) FROM comm WHERE node IN ($1)
          GROUP BY comm.rank, comm.peer ORDER BY comm.rank, comm.peer"
}
matrix_sql() {
    echo "WITH r AS (SELECT c.rank AS rank, c.peer AS peer, c.count AS count,
          c.bytes_sent AS sent, c.bytes_recv AS recvd, c.tran AS tran, c.sync AS sync,
          (c.bytes_sent = 0 AND (c.bytes_recv > 0 OR s.name NOT LIKE '%send%')) AS rcv
          FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
          WHERE c.peer >= 0 AND (s.flags & 4) = 0 AND c.node IN ($1))
          SELECT CASE WHEN rcv THEN peer ELSE rank END, CASE WHEN rcv THEN rank ELSE peer END,
          SUM(CASE WHEN rcv THEN 0 ELSE sent END),
          SUM(CASE WHEN rcv THEN 0 WHEN recvd > 0 THEN count / 2 ELSE count END),
          printf('%.17g', SUM(tran)), printf('%.17g', SUM(sync)) FROM r GROUP BY 1, 2 ORDER BY 1, 2"
}
leftout_sql() {
    echo "SELECT COALESCE(SUM(CASE WHEN c.peer = -1 THEN c.bytes_sent END), 0),
          COALESCE(SUM(CASE WHEN c.peer = -1 THEN c.count END), 0),
          printf('%.17g', COALESCE(SUM(CASE WHEN c.peer = -1 OR (c.peer >= 0 AND (s.flags & 4) != 0)
          THEN c.tran + c.sync END), 0.0)) AS coll_time,
          COALESCE(SUM(CASE WHEN c.peer = -2 THEN c.bytes_sent + c.bytes_recv END), 0),
          COALESCE(SUM(CASE WHEN c.peer >= 0 AND (s.flags & 4) = 0 THEN c.bytes_sent END), 0)
          FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
          WHERE c.node IN ($1)"
}

# sums_exact NAME SITE - in aggregate mode (with and without the index)
# hprof_comm_sums gives, to the last bit, the sums that SQLite made of the
# site's comm rows (--comm SITE --by-rank, --matrix SITE), the nodes
# listed in any order
sums_exact() {
    local name=$1 site=$2 db nodes rev bad=""
    nodes=$(sqlite3 "$D" "SELECT group_concat(id) FROM (SELECT n.id AS id FROM node n
                          JOIN site s ON s.id = n.site WHERE s.label = '$site' ORDER BY n.id)")
    rev=$(echo "$nodes" | tr ',' '\n' | sort -rn | tr '\n' ',' | sed 's/,$//')
    for db in "$A" "$F"; do
        [ "$(out "$db" --format csv --sql "$(by_rank_sql "$nodes")" | tail -n +2)" = \
          "$(out "$db" --format csv --sql "SELECT k1, k2, n1, n2, n3, printf('%.17g', t1),
             printf('%.17g', t2), printf('%.17g', t3), printf('%.17g', t4)
             FROM hprof_comm_sums('peers', '$rev')" | tail -n +2)" ] || bad="$bad [peers $db]"
        [ "$(out "$db" --format csv --sql "$(matrix_sql "$nodes")" | tail -n +2)" = \
          "$(out "$db" --format csv --sql "SELECT k1, k2, n1, n2, printf('%.17g', t1),
             printf('%.17g', t2) FROM hprof_comm_sums('matrix', '$rev')" | tail -n +2)" ] ||
            bad="$bad [matrix $db]"
        [ "$(out "$db" --format csv --sql "$(leftout_sql "$nodes")" | tail -n +2)" = \
          "$(out "$db" --format csv --sql "SELECT n1, n2, printf('%.17g', t1), n3, n4
             FROM hprof_comm_sums('leftout', '$rev')" | tail -n +2)" ] || bad="$bad [leftout $db]"
    done
    expect_eq "$name: the site's sums made in C are SQLite's to the last bit (nodes $nodes)" "" "$bad"
}

# views NAME SITE [OMPSITE] - every view the same from $D and $A
views() {
    local name=$1 site=$2 omp=${3:-} f v n=0 bad=""
    local -a list=()
    for f in text csv json; do
        list+=("--format $f --top 0" "--format $f --flat --top 0" "--format $f --comm $site"
               "--format $f --comm $site --by-rank" "--format $f --ranks $site"
               "--format $f --callers $site" "--format $f --matrix"
               "--format $f --matrix $site" "--format $f --tasks" "--format $f --overheads"
               "--format $f --raw --top 0" "--format $f --raw --flat --top 0"
               "--format $f --raw --ranks $site" "--format $f --depth 2 --top 5")
        [ -n "$omp" ] && list+=("--format $f --threads $omp" "--format $f --ranks $omp")
    done
    list+=("--check" "--folded" "--task-trace")
    for v in "${list[@]}"; do
        n=$((n + 1))
        # shellcheck disable=SC2086
        want=$(out "$D" $v)
        # shellcheck disable=SC2086
        [ "$want" = "$(out "$A" $v)" ] || bad="$bad [$v]"
        # shellcheck disable=SC2086
        [ "$want" = "$(out "$F" $v)" ] || bad="$bad [no index: $v]"
    done
    for v in "SELECT * FROM stat ORDER BY node, rank, thread" "SELECT * FROM comm ORDER BY id" \
             "SELECT * FROM stat ORDER BY rank, thread, node" \
             "SELECT * FROM stat WHERE node IN (1, 3, 5) ORDER BY node, rank, thread" \
             "SELECT node, COUNT(*), SUM(time), MAX(max) FROM stat GROUP BY node" \
             "SELECT c.* FROM comm_range k JOIN comm c ON c.id BETWEEN k.first AND k.last"; do
        n=$((n + 1))
        want=$(out "$D" --sql "$v")
        [ "$want" = "$(out "$A" --sql "$v")" ] || bad="$bad [--sql $v]"
        [ "$want" = "$(out "$F" --sql "$v")" ] || bad="$bad [no index: --sql $v]"
    done
    expect_eq "$name: the $n views print the same in detail and aggregate mode, with and without the index" "" "$bad"
    sums_exact "$name" "$site"
    expect_eq "$name: --check holds (both modes)" "exit 0" "$(out "$A" --check | tail -1)"
    expect_eq "$name: the per-rank rows are there in aggregate mode" \
        "$(sqlite3 "$D" "SELECT COUNT(*) FROM stat")" \
        "$("$QUERY" "$A" --format csv --sql "SELECT COUNT(*) FROM stat" | tail -1)"
    "$REPORT" "$D" -o "$tmp/$name.d.html" >/dev/null 2>&1
    "$REPORT" "$A" -o "$tmp/$name.a.html" >/dev/null 2>&1
    expect_eq "$name: hprof-report's page the same" "same" \
        "$(cmp -s <(sed "s#$tmp/$name.d/##g" "$tmp/$name.d.html") \
                  <(sed "s#$tmp/$name.a/##g" "$tmp/$name.a.html") && echo same)"
    printf 'top\nranks %s\ncomm %s\ncd %s\nls\n' "$site" "$site" "$site" >"$tmp/session"
    expect_eq "$name: an interactive session the same" "same" \
        "$(cmp -s <("$QUERY" -i "$D" <"$tmp/session" 2>&1 | sed "s#$tmp/$name.d/##g") \
                  <("$QUERY" -i "$A" <"$tmp/session" 2>&1 | sed "s#$tmp/$name.a/##g") &&
           echo same)"
}

# ---- mkprofile's two ranks, as one file and as the files its ranks wrote alone
"$MKPROFILE" "$tmp/p.hpf" && "$MKPROFILE" -r 0 "$tmp/d.rank0.hpf" &&
    "$MKPROFILE" -r 1 "$tmp/d.rank1.hpf" || { notok "mkprofile" "failed"; exit 1; }
"$MERGE" -o "$tmp/default.db" "$tmp/p.hpf" >/dev/null
expect_eq "mkprofile: a small profile keeps its rows by default" "1" \
    "$(sqlite3 "$tmp/default.db" "SELECT value FROM run WHERE key = 'detail'")"
index=2 both mkprofile "$tmp/p.hpf"
views mkprofile MPI_Send@app.c:42
index=1 both parts "$tmp/d.rank0.hpf" "$tmp/d.rank1.hpf"
views parts MPI_Send@app.c:42

# ---- two sites of a rank merged into one node (mkprofile -m: rank 1
# calls MPI_Send twice on app.c:60): one stat row of the two records, in
# the index too
"$MKPROFILE" -m "$tmp/m.hpf" || notok "mkprofile -m" "failed"
index=2 both merged "$tmp/m.hpf"
views merged MPI_Send@app.c:60

# ---- bench/mkbig: 8 ranks, 2 threads, 40 comm nodes with 5 peers
"$MKBIG" -n 400 -c 40 -p 5 -t 2 8 "$tmp/b.hpf" >/dev/null || notok "mkbig" "failed"
index=2 both mkbig "$tmp/b.hpf"
views mkbig MPI_Send@comm.c:7

# ---- hprof-merge --aggregate on an aggregate-mode database: the SQL
# definitions re-run over the rows read from the profile give the tables
# the merge computed in C (rank_site and comm_node_rank, views there,
# become tables)
cp "$A" "$tmp/mkbig.a/re.db"
"$MERGE" --aggregate "$tmp/mkbig.a/re.db" >/dev/null 2>"$tmp/err" || notok "--aggregate" "$(cat "$tmp/err")"
bad=""
for t in node_time node_worst_rank node_worst_thread node_excl node_hist site_time site_worst \
         comm_node_peer comm_node_rank rank_site comm_matrix; do
    [ "$(out "$A" --format csv --sql "SELECT * FROM $t ORDER BY 1, 2")" = \
      "$(out "$tmp/mkbig.a/re.db" --format csv --sql "SELECT * FROM $t ORDER BY 1, 2")" ] ||
        bad="$bad $t"
done
expect_eq "mkbig: --aggregate of an aggregate-mode database gives the same tables" "" "$bad"

# ---- a site of several nodes (bench/mkbig -c 200: a comm site every 64
# nodes): a rank's rows with a peer in each, added in node order
"$MKBIG" -n 800 -c 200 -p 5 8 "$tmp/s.hpf" >/dev/null || notok "mkbig -c 200" "failed"
index=2 both sums "$tmp/s.hpf"
sums_exact sums MPI_Send@comm.c:1
bad=""
for f in text csv json; do
    for v in "--comm MPI_Send@comm.c:1 --by-rank" "--matrix MPI_Send@comm.c:1"; do
        # shellcheck disable=SC2086
        want=$(out "$D" --format $f $v)
        # shellcheck disable=SC2086
        [ "$want" = "$(out "$A" --format $f $v)" ] || bad="$bad [$f $v]"
        # shellcheck disable=SC2086
        [ "$want" = "$(out "$F" --format $f $v)" ] || bad="$bad [no index: $f $v]"
    done
done
expect_eq "sums: --by-rank and --matrix of a site of several nodes the same in both modes" "" "$bad"
expect_eq "sums: --check holds" "exit 0" "$(out "$A" --check | tail -1)"

# ---- many threads: 16 threads x 250 nodes a rank (more rows of a rank
# than the index's first buffer holds, several a node): the rows and
# --check the same
"$MKBIG" -n 4000 -c 100 -p 5 -t 16 4 "$tmp/t16.hpf" >/dev/null || notok "mkbig -t 16" "failed"
index=2 both threads16 "$tmp/t16.hpf"
bad=""
for v in "SELECT * FROM stat ORDER BY node, rank, thread" "SELECT * FROM stat ORDER BY rank, thread, node" \
         "SELECT * FROM comm ORDER BY id"; do
    [ "$(out "$D" --sql "$v")" = "$(out "$A" --sql "$v")" ] || bad="$bad [$v]"
done
[ "$(out "$D" --check)" = "$(out "$A" --check)" ] || bad="$bad [--check]"
expect_eq "threads16: the rows and --check the same with the index" "" "$bad"

# ---- the profile gone or changed
A=$tmp/mkbig.a/run.db D=$tmp/mkbig.d/run.db
mv "$tmp/mkbig.a/b.hpf" "$tmp/b.away"
got=$(out "$A" --ranks MPI_Send@comm.c:7)
expect_eq "profile gone: one line naming it, exit 1" "1;exit 1" \
    "$(echo "$got" | head -1 | grep -c "^hprof-query: run.db: b.hpf: the profile is gone since this database was merged");$(echo "$got" | tail -1)"
expect_eq "... nothing more" "2" "$(echo "$got" | wc -l)"
expect_eq "... it says to keep the profile or merge with --detail" "1" \
    "$(echo "$got" | grep -c 'keep the profile, or merge it with hprof-merge --detail')"
expect_eq "profile gone: the listing (aggregates only) still works" "exit 0" \
    "$(out "$A" --top 3 | tail -1)"
expect_eq "profile gone: the stat rows (from the index) still there" \
    "$(out "$D" --sql "SELECT * FROM stat ORDER BY rank, thread, node")" \
    "$(out "$A" --sql "SELECT * FROM stat ORDER BY rank, thread, node")"
cp "$tmp/b.away" "$tmp/mkbig.a/b.hpf"
printf 'x' >>"$tmp/mkbig.a/b.hpf"
got=$(out "$A" --comm MPI_Send@comm.c:7 --by-rank)
expect_eq "profile changed: a view of comm rows fails in one line naming it, exit 1" "1;2;exit 1" \
    "$(echo "$got" | head -1 | grep -c "^hprof-query: .*b.hpf: the profile has changed since");$(echo "$got" | wc -l);$(echo "$got" | tail -1)"
expect_eq "profile changed: the stat rows come from the index, --check holds" "exit 0" \
    "$(out "$A" --check | tail -1)"
F=$tmp/mkbig.f/run.db
printf 'x' >>"$tmp/mkbig.f/b.hpf"
got=$(out "$F" --check)
expect_eq "profile changed, no index: --check fails in one line naming it, exit 1" "1;2;exit 1" \
    "$(echo "$got" | head -1 | grep -c "^hprof-query: sqlite: b.hpf: the profile has changed since");$(echo "$got" | wc -l);$(echo "$got" | tail -1)"
cp "$tmp/b.away" "$tmp/mkbig.a/b.hpf"
expect_eq "the profile back: --check holds again" "exit 0" "$(out "$A" --check | tail -1)"
mv "$tmp/mkbig.a" "$tmp/moved"
expect_eq "database and profile moved together: the profile is found beside the database" \
    "$(out "$tmp/mkbig.d/run.db" --ranks MPI_Send@comm.c:7)" \
    "$(out "$tmp/moved/run.db" --ranks MPI_Send@comm.c:7)"
mv "$tmp/moved" "$tmp/mkbig.a"

# ---- the format version: 5; format 4 refused alone, merged again next to its profile
expect_eq "format 5" "5" "$(sqlite3 "$A" "PRAGMA user_version")"
cp "$A" "$tmp/old.db"
sqlite3 "$tmp/old.db" "PRAGMA user_version = 4"
expect_eq "format 4 alone: refused in one line, exit 1" \
    "hprof-query: old.db: database format 4 is older than this hprof-query reads (5): run hprof-merge on its profile again;exit 1" \
    "$(out "$tmp/old.db" | oneline)"
sqlite3 "$tmp/mkprofile.a/run.db" "PRAGMA user_version = 4"
mv "$tmp/mkprofile.a/run.db" "$tmp/mkprofile.a/p.db"
"$QUERY" "$tmp/mkprofile.a/p.hpf" >/dev/null 2>&1
expect_eq "format 4 next to its profile: merged again" "5" \
    "$(sqlite3 "$tmp/mkprofile.a/p.db" "PRAGMA user_version")"

# ---- a real run: examples/jacobi 64 50 at NP=4, 2 OpenMP threads
MPIRUN=${MPIRUN:-mpirun}
if ! command -v "$MPIRUN" >/dev/null || [ ! -x "$builddir/examples/jacobi" ]; then
    skipped "jacobi NP=4" "no $MPIRUN or examples/jacobi"
else
    . "$srcdir/tests/serial.sh"
    . "$srcdir/tests/mpi/lib.sh"
    hp_run jac 4 -x OMP_NUM_THREADS=2 "$builddir/examples/jacobi" 64 50
    if ran_ok jac; then
        index=2 both jacobi "$PROFILE"
        views jacobi MPI_Sendrecv@jacobi.c:56 parallel@jacobi.c:68
    fi
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
