#!/bin/bash
# tests/flame/run.sh - hprof-query's pictures: --folded (folded stacks of
# exclusive time) and --flamegraph (a self-contained SVG).
#
# Ground truth 1: the known two-rank profile of tests/unit/mkprofile.c
# (times in seconds; rank 0 has one thread, rank 1 two; no measurement
# costs, so compensated = raw).  Per rank and thread, exclusive = own -
# children, clamped at 0, then summed:
#   root        inclusive wall x threads (10x1 + 12x2 = 34 s, the default
#               report's root row), exclusive what its children (main
#               22, compute 3.5) leave: 34 - 25.5 = 8.5 s
#   compute     (under the root, r1t1) 3.5
#   main        r0 10-(8+0.5) = 1.5, r1 12-(9+1+0.25) = 1.75 -> 3.25
#   main;MPI_Allreduce@app.c:50         0.5 + 1.0 = 1.5
#   main;MPI_Send@app.c:60              0.25
#   main;loop@app.c:20                  r0 8-(1.5+6) = 0.5, r1 9-(2+6.5) = 0.5 -> 1.0
#   main;loop@app.c:20;MPI_Recv@libapp.so+0x1a2b   2.0
#   main;loop@app.c:20;MPI_Send@app.c:42           1.5
#   main;loop@app.c:20;compute          6 + 6.5 = 12.5
# in microseconds, sum 34000000 = the root.  Children by label (bytes).
# With the raw times of rank 0's loop;compute made 1 s longer (a copy of
# the database): compute 13.5 s, and loop's exclusive r0 8-(1.5+7) -> 0,
# r1 0.5 -> 0.5 s (summing before subtracting would give 0).
# SVG: 1180 px for the root's 34 s; loop@app.c:20 (17 s) is 590.000 px;
# main's tooltip "inclusive 22.000000 s (64.71%)", "exclusive 3.250000 s
# (9.56%)"; MPI_Send@app.c:42 (tran 1.0 > sync 0.5) is class mpi-tran,
# main (a procedure) compute; 9 nodes with time, 9 rects.  The loop's
# label made 'a;b<&>"' newline 'c' (a copy): folded 'a,b<&>"?c', the
# SVG's title 'a;b&lt;&amp;&gt;&quot;?c'.  Emptied of records and nodes
# (a copy), the profile's SVG has the root's rect only.  A copy with an
# MPI_Init site (flagged HP_SITEF_MPI) under main: class mpi-control.
#
# Ground truth 2: real runs.  tests/mpi/late_sender (2 ranks): rank 0's
# MPI_Recv waits 200 ms for a sender (sync ~0.2 s, tran ~0), so its node
# is class mpi-sync.  examples/jacobi (4 ranks x 2 threads): the folded
# values add up to the root (wall x threads summed over ranks) within
# half a microsecond per line, one rect per node at least 0.001 px wide
# (time x 1180 / root), the parallel region at line 68 is compute, its
# implicit barrier OpenMP sync, its fork OpenMP control, MPI_Init MPI
# control, the MPI_Allreduce at RESIDUAL-ALLREDUCE has a tooltip.
#
# usage: tests/flame/run.sh [BUILDDIR]   (default: the current directory)
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
MERGE=$builddir/analyzer/hprof-merge
MKPROFILE=$builddir/tests/unit/mkprofile
T=$builddir/tests/mpi
S=$srcdir/tests/mpi

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir flame
pass=0 fail=0 skip=0

for f in "$QUERY" "$MKPROFILE"; do
    if [ ! -x "$f" ]; then
        notok "prerequisites" "missing: $f (build with 'make check TESTS=' first)"
        echo "$pass passed, $fail failed"
        exit 1
    fi
done
command -v xmllint >/dev/null || { notok "prerequisites" "xmllint missing (libxml2-utils)"; }

# attr SVG NODE_LABEL ATTR - the attribute of the rect whose title starts
# with the label (the first such node).
rect_attr() {
    awk -v lab="$2" -v a="$3" '
        /^<g><title>/ { t = substr($0, 11); cur = (t == lab) }
        cur && /<rect data-node=/ { if (match($0, " " a "=\"[^\"]*\"")) {
            v = substr($0, RSTART + length(a) + 3, RLENGTH - length(a) - 4); print v; exit } }' "$1"
}
# the title block (3 lines) of the first node with the label
title_of() {
    awk -v lab="$2" '/^<g><title>/ { t = substr($0, 11); if (t == lab) { print t; getline; print; getline; sub(/<\/title>.*/, ""); print; exit } }' "$1" | oneline
}
node_rects() { grep -c '<rect data-node=' "$1" || true; }
# part_width SVG LABEL PART: the width of the mpi-tran or mpi-sync part
# drawn over an MPI node's rectangle (nothing when it has none)
part_width() {
    awk -v lab="$2" -v p="$3" '
        /^<g><title>/ { t = substr($0, 11); cur = (t == lab) }
        cur && /<rect data-node=/ { if (match($0, "data-part=\"" p "\" x=\"[0-9.]*\" y=\"[0-9.]*\" width=\"[0-9.]*\"")) {
            v = substr($0, RSTART, RLENGTH); sub(/.*width="/, "", v); sub(/"$/, "", v); print v }
            exit }' "$1"
}
zero_rects() { grep -c '<rect data-node="[0-9]*" data-class="[a-z-]*" x="[0-9.]*" y="[0-9.]*" width="0\.000"' "$1" || true; }
folded_sum() { awk '{ s += $NF } END { printf "%d\n", s }' "$1"; }

# ---------------------------------------------------------------- the known profile
"$MKPROFILE" "$tmp/p.hpf"
"$QUERY" "$tmp/p.hpf" --sql "SELECT 1" >/dev/null 2>&1
db=$tmp/p.db
"$QUERY" "$db" --folded >"$tmp/p.folded" 2>"$tmp/p.err" || true
expect_eq "mkprofile: folded stacks (exclusive us per context)" \
"root 8500000
compute 3500000
main 3250000
main;MPI_Allreduce@app.c:50 1500000
main;MPI_Send@app.c:60 250000
main;loop@app.c:20 1000000
main;loop@app.c:20;MPI_Recv@libapp.so+0x1a2b 2000000
main;loop@app.c:20;MPI_Send@app.c:42 1500000
main;loop@app.c:20;compute 12500000" "$(cat "$tmp/p.folded")"
expect_eq "mkprofile: folded values add up to the root (wall x threads, us)" \
    "$(q "$db" "SELECT CAST(ROUND(SUM(wall * MAX(threads, 1)) * 1e6) AS INTEGER) FROM rank")" \
    "$(folded_sum "$tmp/p.folded")"
"$QUERY" "$db" --folded -o "$tmp/p2.folded" >"$tmp/p2.out" 2>&1 || true
if cmp -s "$tmp/p.folded" "$tmp/p2.folded" && [ ! -s "$tmp/p2.out" ]; then
    ok "mkprofile: --folded -o FILE writes the same lines, nothing on stdout"
else
    notok "mkprofile: --folded -o FILE" "differs from stdout or printed: $(head -3 "$tmp/p2.out" | oneline)"
fi

# --raw reads raw_time: rank 0's loop;compute made 1 s longer in a copy
cp "$db" "$tmp/raw.db"
sqlite3 "$tmp/raw.db" "UPDATE stat SET raw_time = time + 1 WHERE node = (SELECT n.id FROM node n
    JOIN site s ON s.id = n.site JOIN node p ON p.id = n.parent JOIN site ps ON ps.id = p.site
    WHERE s.name = 'compute' AND ps.kind = 'loop') AND rank = 0"
expect_eq "--raw: raw times, exclusive clamped per thread before the sum" \
    "main;loop@app.c:20 500000;main;loop@app.c:20;compute 13500000" \
    "$("$QUERY" "$tmp/raw.db" --folded --raw | grep '^main;loop@app.c:20 \|;compute ' | oneline)"
expect_eq "without --raw: the compensated times of the same copy" \
    "main;loop@app.c:20 1000000;main;loop@app.c:20;compute 12500000" \
    "$("$QUERY" "$tmp/raw.db" --folded | grep '^main;loop@app.c:20 \|;compute ' | oneline)"

# the SVG
svg=$tmp/p.svg
"$QUERY" "$db" --flamegraph "$svg" >"$tmp/svg.out" 2>&1 || true
if xmllint --noout "$svg" 2>"$tmp/xmllint.err"; then ok "mkprofile: xmllint accepts the SVG"; else
    notok "mkprofile: xmllint accepts the SVG" "$(head -3 "$tmp/xmllint.err" | oneline)"
fi
expect_eq "mkprofile: one rect per node with time" 9 "$(node_rects "$svg")"
expect_eq "mkprofile: no node rect of zero width" 0 "$(zero_rects "$svg")"
expect_eq "mkprofile: root spans the 1180 px" 1180.000 "$(rect_attr "$svg" root width)"
expect_eq "mkprofile: loop@app.c:20 is 17/34 of it" 590.000 "$(rect_attr "$svg" loop@app.c:20 width)"
expect_eq "mkprofile: main's tooltip" \
    "main;inclusive 22.000000 s (64.71%);exclusive 3.250000 s (9.56%)" "$(title_of "$svg" main)"
expect_eq "mkprofile: main is drawn with its label" 1 "$(grep -c '>main</text>' "$svg" || true)"
expect_eq "mkprofile: MPI_Send@app.c:42 (tran > sync) is MPI transmission" mpi-tran \
    "$(rect_attr "$svg" MPI_Send@app.c:42 data-class)"
expect_eq "mkprofile: main (a procedure) is compute" compute "$(rect_attr "$svg" main data-class)"
# an MPI node is drawn in two parts: MPI_Send@app.c:42 took 1.5 s of
# which 0.5 s synchronization delay: 52.059 px = 34.706 + 17.353
expect_eq "mkprofile: MPI_Send@app.c:42's transmission part" 34.706 \
    "$(part_width "$svg" MPI_Send@app.c:42 mpi-tran)"
expect_eq "mkprofile: MPI_Send@app.c:42's synchronization part" 17.353 \
    "$(part_width "$svg" MPI_Send@app.c:42 mpi-sync)"
expect_eq "mkprofile: a procedure has no parts" "" "$(part_width "$svg" main mpi-tran)"
expect_eq "mkprofile: the 4 MPI nodes with a sync delay have parts" 4 \
    "$(grep -c 'data-part="mpi-sync"' "$svg" || true)"
expect_eq "mkprofile: a legend of the 7 classes" 7 "$(grep -c '<rect class="legend"' "$svg" || true)"
# MPI control: a copy with an MPI_Init site (flagged HP_SITEF_MPI, 128: an
# MPI call that moves no data) under main, 0.5 s on rank 0
cp "$db" "$tmp/init.db"
python3 -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute(\"INSERT INTO site(id, kind, name, func, file, line, end_line, parent, flags, label)\"
           \" VALUES (9, 'call', 'MPI_Init', 'main', 'app.c', 5, 5, 2, 128, 'MPI_Init@app.c:5')\")
db.execute('INSERT INTO node VALUES (10, 2, 9, 2, 0, 10, 10)')
db.execute('INSERT INTO stat VALUES (10, 0, 0, 1, 0.5, 0.5, 0.5, 1, 0.5, 0.5, 0.5)')
db.commit()" "$tmp/init.db"
"$MERGE" --aggregate "$tmp/init.db" >/dev/null 2>&1 || true
"$QUERY" "$tmp/init.db" --flamegraph "$tmp/init.svg" >/dev/null 2>&1 || true
expect_eq "mkprofile + MPI_Init: MPI control, in the legend" "mpi-control,1" \
    "$(rect_attr "$tmp/init.svg" MPI_Init@app.c:5 data-class),$(grep -c '<rect class="legend" data-class="mpi-control"' "$tmp/init.svg" || true)"
expect_eq "mkprofile: no external reference or script" 0 \
    "$(grep -c 'href\|<script\|xlink\|@import\|url(' "$svg" || true)"
"$QUERY" "$db" --flamegraph "$tmp/p2.svg" >/dev/null 2>&1 || true
if cmp -s "$svg" "$tmp/p2.svg"; then ok "mkprofile: same database, same SVG bytes"; else
    notok "mkprofile: deterministic SVG" "two runs differ"
fi

# bad output: one line naming it, exit 2, nothing left
: >"$tmp/notadir"
rc=0
"$QUERY" "$db" --flamegraph "$tmp/notadir/out.svg" >"$tmp/bad.out" 2>"$tmp/bad.err" || rc=$?
expect_eq "unwritable OUT: exit status 2" 2 "$rc"
expect_eq "unwritable OUT: one line naming it" "1,1" \
    "$(wc -l <"$tmp/bad.err"),$(grep -c "cannot write $tmp/notadir/out.svg" "$tmp/bad.err" || true)"
mkdir "$tmp/out"
"$QUERY" "$db" --flamegraph "$tmp/out/f.svg" >/dev/null 2>&1 || true
expect_eq "a written SVG leaves no temporary file" "f.svg" "$(ls "$tmp/out" | oneline)"
(umask 027 && "$QUERY" "$db" --flamegraph "$tmp/out/g.svg" >/dev/null 2>&1) || true
expect_eq "the SVG's mode is 0666 less the umask (027: 640)" 640 "$(stat -c %a "$tmp/out/g.svg")"

# a label with ';', markup and a newline (a copy): ',' and '?' in the
# folded line, escaped in the SVG, which stays valid XML
cp "$db" "$tmp/esc.db"
sqlite3 "$tmp/esc.db" "UPDATE site SET label = 'a;b<&>\"' || char(10) || 'c' WHERE kind = 'loop'"
expect_eq "a label's ';' and newline in a folded line" "main;a,b<&>\"?c 1000000" \
    "$("$QUERY" "$tmp/esc.db" --folded | grep '^main;a' | grep -v ';a[^;]*;')"
"$QUERY" "$tmp/esc.db" --flamegraph "$tmp/esc.svg" >/dev/null 2>&1 || true
if xmllint --noout "$tmp/esc.svg" 2>/dev/null &&
    grep -q '^<g><title>a;b&lt;&amp;&gt;&quot;?c$' "$tmp/esc.svg"; then
    ok "a label with markup is escaped in the SVG"
else
    notok "a label with markup is escaped in the SVG" "invalid XML or no escaped title"
fi

# an empty profile: only the root
cp "$db" "$tmp/empty.db"
sqlite3 "$tmp/empty.db" "DELETE FROM stat; DELETE FROM comm; DELETE FROM node WHERE parent IS NOT NULL"
rc=0
"$QUERY" "$tmp/empty.db" --flamegraph "$tmp/empty.svg" >/dev/null 2>"$tmp/empty.err" || rc=$?
expect_eq "empty profile: exit status 0" 0 "$rc"
if xmllint --noout "$tmp/empty.svg" 2>/dev/null; then ok "empty profile: valid SVG"; else
    notok "empty profile: valid SVG" "xmllint rejects it"
fi
expect_eq "empty profile: only the root's rect" "1,root" \
    "$(node_rects "$tmp/empty.svg"),$(rect_attr "$tmp/empty.svg" root data-class)"

# ---------------------------------------------------------------- real runs
if ! command -v "$MPIRUN" >/dev/null || [ ! -x "$T/late_sender" ] ||
    [ ! -x "$builddir/examples/jacobi" ]; then
    skipped "real runs" "no $MPIRUN, $T/late_sender or examples/jacobi"
else
    Lr=$(line_of "$S/late_sender.c" late-recv)
    hp_run late 2 "$T/late_sender"
    if ran_ok late; then
        "$QUERY" "$PROFILE" --flamegraph "$tmp/late.svg" >/dev/null 2>&1 || true
        expect_eq "late_sender: the late MPI_Recv is MPI synchronization" mpi-sync \
            "$(rect_attr "$tmp/late.svg" "MPI_Recv@late_sender.c:$Lr" data-class)"
    fi

    JSRC=$srcdir/examples/jacobi.c
    Lar=$(line_of "$JSRC" RESIDUAL-ALLREDUCE)
    hp_run jac 4 -x OMP_NUM_THREADS=2 "$builddir/examples/jacobi" 256 200
    if ran_ok jac; then
        jdb=${PROFILE%.hpf}.db
        "$QUERY" "$PROFILE" --folded >"$tmp/jac.folded" 2>/dev/null || true
        root_us=$(q "$jdb" "SELECT CAST(ROUND(SUM(wall * MAX(threads, 1)) * 1e6) AS INTEGER) FROM rank")
        nlines=$(wc -l <"$tmp/jac.folded")
        expect_cmp "jacobi: folded values add up to the root ($root_us us)" within "$root_us" \
            "$(folded_sum "$tmp/jac.folded")" "$(( (nlines + 1) / 2 + 1 ))"
        expect_eq "jacobi: no negative or zero value" 0 "$(awk '$NF <= 0' "$tmp/jac.folded" | wc -l)"
        "$QUERY" "$jdb" --flamegraph "$tmp/jac.svg" >/dev/null 2>&1 || true
        if xmllint --noout "$tmp/jac.svg" 2>/dev/null; then ok "jacobi: xmllint accepts the SVG"; else
            notok "jacobi: xmllint accepts the SVG" "rejected"
        fi
        expect_eq "jacobi: one rect per node with time" \
            "$(q "$jdb" "SELECT 1 + COUNT(*) AS n FROM (SELECT st.node, SUM(st.time) AS t FROM stat st
                JOIN node n ON n.id = st.node WHERE n.parent IS NOT NULL GROUP BY st.node)
                WHERE t * 1180.0 / (SELECT SUM(wall * MAX(threads, 1)) FROM rank) >= 0.001")" \
            "$(node_rects "$tmp/jac.svg")"
        expect_eq "jacobi: no node rect of zero width" 0 "$(zero_rects "$tmp/jac.svg")"
        Lp=$(q "$jdb" "SELECT MIN(line) FROM site WHERE kind = 'omp' AND name = 'parallel'")
        expect_eq "jacobi: the parallel region is compute, its implicit barrier OpenMP sync, its fork control" \
            "compute,omp-sync,omp-control" \
            "$(rect_attr "$tmp/jac.svg" "parallel@jacobi.c:$Lp" data-class),$(rect_attr "$tmp/jac.svg" \
                "implicit barrier@jacobi.c:$Lp" data-class),$(rect_attr "$tmp/jac.svg" "fork@jacobi.c:$Lp" data-class)"
        expect_eq "jacobi: MPI_Init is MPI control" mpi-control \
            "$(rect_attr "$tmp/jac.svg" "$(q "$jdb" "SELECT label FROM site WHERE name = 'MPI_Init'")" data-class)"
        expect_eq "jacobi: the residual MPI_Allreduce has a tooltip" 1 \
            "$(grep -c "^<g><title>MPI_Allreduce@jacobi.c:$Lar\$" "$tmp/jac.svg" || true)"
        "$QUERY" "$jdb" --flamegraph "$tmp/jac2.svg" >/dev/null 2>&1 || true
        if cmp -s "$tmp/jac.svg" "$tmp/jac2.svg"; then ok "jacobi: same bytes twice"; else
            notok "jacobi: deterministic SVG" "two runs differ"
        fi
    fi
fi

[ "$skip" = 0 ] || echo "# $skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
