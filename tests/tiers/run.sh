#!/bin/bash
# tests/tiers/run.sh - integration tests of tiers 1 and 2 (procedures, call
# statements, loops, static line tables) against known ground truth:
#   - examples/lizhang.c, the seed paper's example program (Li & Zhang,
#     Fig. 12): the paper's questions answered from the database with SQL
#     and checked against the times each rank measured with its own clock
#     in the same run (tests/truth.sh's tolerance) and the exact counts
#     (total program time, transmission and sync time, the
#     procedures called from main per call line, p3's time and count, the
#     communication statement in loop1, loop1 and loop2, the procedure that
#     dominates top-down from main), and in tier 2 the static tables PL,
#     PCOM, PC, LL, LCOM, LC row by row;
#   - tests/tiers/recursion.c: direct and mutual recursion fold (exact
#     counts, outermost time = the program's own wall time, bounded nodes);
#   - tests/tiers/hot.c: throttling of a tiny hot function (site flag 16,
#     exact count), HPROF_THROTTLE_NS=0, and HPROF_FILTER (tier 2 only: in
#     tier 1 the filter is not applied at run time);
#   - tests/tiers/slowchild.c: a throttled procedure's time holds its rare
#     slow callee (the program's own clocks), marked estimated everywhere;
#   - every program prints the same stdout with and without instrumentation.
# Tier 1 = mpicc -g -O0 -finstrument-functions ... -lhprof; tier 2 = the
# source instrumenter (instrument/hprof-cc in the build tree), skipped with
# "# SKIP" when it is not built.  The programs need special flags, so this
# script builds them itself.  Every time is compared with the program's own
# clock in the same run, never with a designed time (a loaded machine
# stretches every spin); runs are still retried (up to 3) when a check fails.
#
# usage: tests/tiers/run.sh [BUILDDIR]   (default: the current directory)
#        Env: MPICC, MPIRUN, HPROF_KEEP_TMP=1 keeps the temp dir.
# Prints "ok - NAME" / "not ok - NAME: expected X got Y" per check and a last
# line "N passed, M failed"; exits 1 if anything failed.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
# One timing-sensitive MPI test at a time, even under make -j2 check.
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
LIB=$LIBDIR/libhprof.so
HPCC=$builddir/instrument/hprof-cc
S=$srcdir/tests/tiers
EX=$srcdir/examples/lizhang.c
NP=2

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
MPIFLAGS=(--oversubscribe --bind-to none)

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/truth.sh"
# Known violations of the profile invariants (check_profile): delete this
# line once issue 9 fixes them.
test_tmpdir tiers

# near_truth NAME SECONDS COUNT GOT - GOT (s) against the program's own
# time of COUNT events (s), within tests/truth.sh's tolerance.
near_truth() {
    expect_truth "$1" "$(calc "$2 * 1000") $3" "$(calc "$4 * 1000")"
}

# took FILE PART [RANK] - the seconds lizhang.c's ranks measured for PART
# ("in call p1", "at e2", "of work", ...: its "took" line on stderr),
# summed over the ranks, or rank RANK's.
took() {
    awk -v part="$2" -v r="${3:--1}" '/^lizhang: rank [0-9]+ took / {
            if (r >= 0 && $3 != r) next
            line = $0; sub(/^lizhang: rank [0-9]+ took /, "", line)
            n = split(line, P, ", ")
            for (i = 1; i <= n; i++) {
                v = P[i] + 0; lab = P[i]; sub(/^[0-9.]+ (s )?/, "", lab)
                if (lab == part) s += v
            }
        } END { printf "%.6f", s }' "$1"
}

# def FILE NAME - the value of "#define NAME VALUE" in FILE.
def() { awk -v n="$2" '$1 == "#define" && $2 == n { print $3; exit }' "$1"; }

# calc EXPR - floating-point arithmetic.
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

# hp_run NAME CMD... - run with NP ranks, profile to $tmp/NAME.hpf, stdout in
# $tmp/NAME.out, stderr in $tmp/NAME.err; sets PROFILE and RC.
hp_run() {
    local name=$1
    shift
    RC=0
    rm -f "$tmp/$name.hpf" "$tmp/$name.db"
    RUN_START=$(date +%s.%N)
    HPROF_OUTPUT=$tmp/$name.hpf timeout 300 "$MPIRUN" -np "$NP" "${MPIFLAGS[@]}" -x HPROF_OUTPUT \
        "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || RC=$?
    RUN_SECONDS=$(calc "$(date +%s.%N) - $RUN_START")
    PROFILE=$tmp/$name.hpf
    check_profile "$name" "$PROFILE"
}
plain_run() {
    local name=$1
    shift
    RC=0
    timeout 300 "$MPIRUN" -np "$NP" "${MPIFLAGS[@]}" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || RC=$?
}

# ran_ok NAME - the last run exited 0 and left a profile.
ran_ok() {
    if [ "$RC" = 0 ] && [ -s "$PROFILE" ]; then
        return 0
    fi
    notok "$1 runs" "exit status $RC, profile $([ -s "$PROFILE" ] && echo present || echo missing); stderr: $(tail -5 "$tmp/$1.err" | oneline)"
    return 1
}

same_stdout() {
    if cmp -s "$2" "$3"; then ok "$1"; else notok "$1" "expected '$(oneline <"$2")' got '$(oneline <"$3")'"; fi
}


# ---------------------------------------------------------------- prerequisites
missing=
for f in "$QUERY" "$LIB" "$EX" "$S/recursion.c" "$S/hot.c" "$S/slowchild.c"; do
    [ -e "$f" ] || missing="$missing $f"
done
command -v "$MPICC" >/dev/null || missing="$missing $MPICC"
command -v "$MPIRUN" >/dev/null || missing="$missing $MPIRUN"
if [ -n "$missing" ]; then
    notok "prerequisites" "missing:$missing (build with 'make' first)"
    echo "$pass passed, $fail failed"
    exit 1
fi
have_t2=0
[ -x "$HPCC" ] && have_t2=1
# hprof-cc: use this build tree's instrumenter, header and library.
export HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir
unset HPROF_FILTER HPROF_KEEP HPROF_COMM_FUNCS HPROF_TIER

# Builds: plain, tier 1, tier 2 (when the instrumenter is built).
mkdir -p "$tmp/bin"
build_all() {   # build_all NAME SOURCE [HPROF-CC OPTIONS...]
    local name=$1 src=$2
    shift 2
    "$MPICC" -g -O2 "$src" -o "$tmp/bin/$name.plain" 2>"$tmp/build.err" ||
        notok "plain build of $name" "$(head -5 "$tmp/build.err" | oneline)"
    "$MPICC" -g -O0 -finstrument-functions "$src" -o "$tmp/bin/$name.t1" \
        -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" 2>"$tmp/build.err" ||
        notok "tier 1 build of $name" "$(head -5 "$tmp/build.err" | oneline)"
    if [ $have_t2 = 1 ]; then
        if "$HPCC" "$@" "$MPICC" -g -O2 -I"$srcdir/libhprof" -c "$src" -o "$tmp/bin/$name.o" 2>"$tmp/build.err" &&
            "$HPCC" "$MPICC" "$tmp/bin/$name.o" -o "$tmp/bin/$name.t2" \
                -L"$LIBDIR" -Wl,-rpath,"$LIBDIR" 2>>"$tmp/build.err"; then
            if grep -qi 'warn' "$tmp/build.err"; then
                notok "tier 2 build of $name: instrumented, no warnings" "$(head -5 "$tmp/build.err" | oneline)"
            else
                ok "tier 2 build of $name: instrumented, no warnings"
            fi
        else
            notok "tier 2 build of $name" "$(head -5 "$tmp/build.err" | oneline)"
        fi
    fi
}
build_all lizhang "$EX"
build_all recursion "$S/recursion.c"
# hot() is tiny (straight-line): the throttling checks need its probes
build_all hot "$S/hot.c" --procedures=all

# ================================================================ Li & Zhang
NL1=$(def "$EX" L1) NL2=$(def "$EX" L2)
Lmain=$(line_of "$EX" proc-main) Lp1=$(line_of "$EX" proc-p1) Lp2=$(line_of "$EX" proc-p2)
Lp3=$(line_of "$EX" proc-p3) Lp4=$(line_of "$EX" proc-p4)
Lc1=$(line_of "$EX" call-p1) Lc2=$(line_of "$EX" call-p2)
Lc31=$(line_of "$EX" call-p3-in-p1) Lc32=$(line_of "$EX" call-p3-in-p2)
Lc43=$(line_of "$EX" call-p4-in-p3) Lc4l=$(line_of "$EX" call-p4-in-loop2)
Le1=$(line_of "$EX" e1) Le2=$(line_of "$EX" e2) Ll1=$(line_of "$EX" loop1) Ll2=$(line_of "$EX" loop2)
Lbar=$(line_of "$EX" align) Lred=$(line_of "$EX" reduce)
# MPI_Comm_rank and MPI_Comm_size in main: local MPI calls, call sites in
# every tier (the wrappers' spec, KIND local), without a callee line.
Lrk=$(grep -n 'MPI_Comm_rank(' "$EX" | cut -d: -f1) Lsz=$(grep -n 'MPI_Comm_size(' "$EX" | cut -d: -f1)
Lin=$(grep -n 'MPI_Init(' "$EX" | cut -d: -f1)
PAIRS=$((NP / 2))   # ranks that wait (the even rank of each pair)
F=%lizhang.c

# sql_sum DB KIND LINE COLS - sums over the nodes of the site KIND at LINE of lizhang.c.
sql_sum() {
    q "$1" "SELECT $4 FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
            WHERE s.kind = '$2' AND s.line = $3 AND s.file LIKE '$F'"
}

# tree_ok NAME DB - no node takes longer than its parent on any rank (1% +
# 1 us slack for the clock reads between the two probes).
tree_ok() {
    # Per thread: the threads of an OpenMP team share their master's context,
    # so a region's node summed over threads may exceed a parent only the
    # master ran; within one thread, no child may exceed its parent.
    expect_eq "$1: no node's time exceeds its parent's in the same thread (nodes listed)" "" \
        "$(q "$2" "WITH nt AS (SELECT node, rank, thread, SUM(count) AS count, SUM(time) AS time
                               FROM stat GROUP BY node, rank, thread)
                    SELECT cs.label || ' > ' || ps.label || ' (rank ' || c.rank || ' thread ' || c.thread || ')'
                    FROM nt c JOIN node cn ON cn.id = c.node JOIN site cs ON cs.id = cn.site
                    JOIN node pn ON pn.id = cn.parent JOIN site ps ON ps.id = pn.site
                    JOIN nt p ON p.node = pn.id AND p.rank = c.rank AND p.thread = c.thread
                    WHERE pn.parent IS NOT NULL AND p.count > 0 AND c.time > p.time * 1.01 + 1e-6 ORDER BY 1")"
}

# walk DB - the path followed top-down from main's procedure node by the
# child with the largest time, as "label/label/..."; the last procedure on
# it in $DOMINANT.
# (MPI_Init's own time, which a loaded machine stretches, is not the
# program's work: the walk passes it by.)
walk() {
    local db=$1 node row path="" kind name
    node=$(q "$db" "SELECT n.id FROM node n JOIN site s ON s.id = n.site
                     WHERE s.kind = 'procedure' AND s.name = 'main' ORDER BY n.depth LIMIT 1")
    DOMINANT=main
    while [ -n "$node" ] && [ "${node#ERROR}" = "$node" ]; do
        row=$(q "$db" "SELECT n.id, s.kind, s.name, s.label FROM node n JOIN site s ON s.id = n.site
                        JOIN node_time t ON t.node = n.id WHERE n.parent = $node
                        AND s.name NOT LIKE 'MPI_Init%' ORDER BY t.time DESC LIMIT 1")
        [ -n "$row" ] || break
        IFS=, read -r node kind name label <<<"$row"
        path="$path/$label"
        [ "$kind" != procedure ] || DOMINANT=$name
    done
    WALK=$path
}

# lizhang_checks TIER BINARY - one profiled run and the paper's questions.
lizhang_checks() {
    local t=$1 db
    hp_run lz.$t "$tmp/bin/lizhang.$t"
    ran_ok lz.$t || return 0
    db=$PROFILE
    # The waits the ranks really saw (each message carries its sender's
    # arrival time): the exact truth of the sync delay, which a scheduler
    # tick can move a few ms away from the designed LATE values.
    local w1 w2
    w1=$(awk '/^lizhang: rank [0-9]+ waited/ { s += $5 } END { printf "%.6f", s }' "$tmp/lz.$t.err")
    w2=$(awk '/^lizhang: rank [0-9]+ waited/ { s += $9 } END { printf "%.6f", s }' "$tmp/lz.$t.err")
    local err=$tmp/lz.$t.err r
    expect_eq "$t lizhang: every rank printed its own times" "$NP" "$(grep -c '^lizhang: rank [0-9]* took ' "$err")"
    expect_cmp "$t lizhang: the even rank waited for its late partner at e1 and at e2 (the scenario holds)" gt 0 \
        "$(awk -v a="$w1" -v b="$w2" 'BEGIN { print (a < b ? a : b) }')"
    # total program time: a rank's wall (from the process's start to
    # MPI_Finalize) less its MPI_Init, per rank.  What runs before main
    # and after its last print is out of the program's sight (a loaded
    # machine stretches it by tens of ms): the wall covers main up to
    # MPI_Finalize as the rank timed it, the wall less MPI_Init covers the
    # rank's barrier, work and reduction, and the wall lies within the
    # mpirun as this script timed it.
    local walls
    walls=$(q "$db" "SELECT r.rank, r.wall, r.wall - coalesce(i.t, 0) FROM rank r LEFT JOIN
                    (SELECT st.rank AS rank, sum(st.time) AS t FROM stat st JOIN node n ON n.id = st.node
                     JOIN site s ON s.id = n.site WHERE s.name LIKE 'MPI_Init%' GROUP BY st.rank) i
                    ON i.rank = r.rank ORDER BY r.rank")
    expect_eq "$t lizhang: a wall window per rank" "$NP" "$(grep -c '^[0-9]*,' <<<"$walls")"
    expect_eq "$t lizhang: total program time per rank (wall less MPI_Init) covers what the rank timed, and the wall lies within the run (ranks outside)" "" \
        "$(while IFS=, read -r r wall prog; do
            awk -v r="$r" -v wall="$wall" -v prog="$prog" -v run="$RUN_SECONDS" -v main="$(took "$err" "in main before MPI_Finalize" "$r")" \
                -v own="$(calc "$(took "$err" "at align" "$r") + $(took "$err" "of work" "$r") + $(took "$err" "at reduce" "$r")")" \
                'BEGIN { if (wall < main || prog < own || wall > run) print r ": wall " wall " (main " main ", run " run "), less MPI_Init " prog " (barrier to reduction " own ")" }'
        done <<<"$walls")"
    expect_eq "$t lizhang: main's procedure node counts 1 per rank" "$NP" \
        "$(q "$db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                     WHERE s.kind = 'procedure' AND s.name = 'main'")"
    expect_eq "$t lizhang: main's time >= the work the rank timed inside it, on every rank (ranks short)" "" \
        "$(q "$db" "SELECT st.rank, sum(st.time) FROM stat st JOIN node n ON n.id = st.node
                     JOIN site s ON s.id = n.site WHERE s.kind = 'procedure' AND s.name = 'main' GROUP BY st.rank" |
            while IFS=, read -r r x; do
                awk -v r="$r" -v x="$x" -v w="$(took "$err" "of work" "$r")" 'BEGIN { if (x < w) print r ": " x " < " w }'
            done)"
    # transmission: 8-byte messages.  The synchronization delay of e1 and
    # e2 lasts until the partner's message is seen: at least the wait for
    # the partner's arrival the ranks observed, at most the ranks' own time
    # in the statements (a loaded machine may leave the waiting rank off
    # its CPU after the message came: hprof then counts that as sync, the
    # program cannot tell); their transmission is the rest.  The
    # collectives (the aligning MPI_Barrier, MPI_Reduce) count whole as
    # transmission.
    local e12 coll
    e12=$(calc "$(took "$err" "at e1") + $(took "$err" "at e2")")
    coll=$(calc "$(took "$err" "at align") + $(took "$err" "at reduce")")
    expect_truth_range "$t lizhang: total sync time between the observed waits and the ranks' time in e1 and e2" \
        "$(calc "($w1 + $w2) * 1000") $(calc "$e12 * 1000") $((NP * (2 + NL1)))" \
        "$(q "$db" "SELECT round(sum(sync) * 1000, 3) FROM comm")"
    expect_truth_range "$t lizhang: transmission time of e1 and e2 between 0 and the ranks' time in them less the observed waits" \
        "0 $(calc "($e12 - $w1 - $w2) * 1000") $((NP * (2 + NL1)))" \
        "$(q "$db" "SELECT round(coalesce(sum(c.tran), 0) * 1000, 3) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                     WHERE s.line IN ($Le1, $Le2) AND s.file LIKE '$F'")"
    expect_truth_range "$t lizhang: total transmission time between the ranks' time in the collectives and that plus e1's and e2's less the observed waits" \
        "$(calc "$coll * 1000") $(calc "($coll + $e12 - $w1 - $w2) * 1000") $((NP * (2 + NL1 + 2)))" \
        "$(q "$db" "SELECT round(coalesce(sum(tran), 0) * 1000, 3) FROM comm")"
    near_truth "$t lizhang: e1's and e2's sync + transmission = the ranks' own time in them" "$e12" $((NP * (2 + NL1))) \
        "$(q "$db" "SELECT coalesce(sum(c.tran + c.sync), 0) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                     WHERE s.line IN ($Le1, $Le2) AND s.file LIKE '$F'")"
    # procedures called from main, per call line
    near_truth "$t lizhang: call p1 at line $Lc1 from main = the ranks' own time around it" "$(took "$err" "in call p1")" "$NP" \
        "$(sql_sum "$db" call "$Lc1" 'sum(st.time)')"
    near_truth "$t lizhang: call p2 at line $Lc2 from main = the ranks' own time around it" "$(took "$err" "in call p2")" "$NP" \
        "$(sql_sum "$db" call "$Lc2" 'sum(st.time)')"
    expect_eq "$t lizhang: call statements directly under main (line, callee, count)" \
        "$(printf '%s\n' "$Lin,MPI_Init,$NP" "$Lrk,MPI_Comm_rank,$NP" "$Lsz,MPI_Comm_size,$NP"
            if [ "$t" = t1 ]; then printf '%s\n' "$Lc1,p1,$NP" "$Lc2,p2,$NP" "$Lc4l,p4,$((NP * NL1 * NL2))"; else
            printf '%s\n' "$Lc1,p1,$NP" "$Lc2,p2,$NP"; fi)" \
        "$(q "$db" "SELECT s.line, s.name, sum(st.count) FROM node n JOIN site s ON s.id = n.site
                     JOIN node pn ON pn.id = n.parent JOIN site ps ON ps.id = pn.site JOIN stat st ON st.node = n.id
                     WHERE s.kind = 'call' AND ps.kind = 'procedure' AND ps.name = 'main' AND s.file LIKE '$F'
                     GROUP BY s.line, s.name ORDER BY s.line")"
    # p3: summed over both call lines
    near_truth "$t lizhang: p3 total time = the ranks' own time inside it" "$(took "$err" "in p3")" $((2 * NP)) \
        "$(q "$db" "SELECT sum(st.time) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                     WHERE s.kind = 'procedure' AND s.name = 'p3'")"
    expect_eq "$t lizhang: p3 count = $((2 * NP)) (summed over both call lines)" $((2 * NP)) \
        "$(q "$db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                     WHERE s.kind = 'procedure' AND s.name = 'p3'")"
    expect_eq "$t lizhang: p3 per call line (line, count)" "$Lc31,$NP"$'\n'"$Lc32,$NP" \
        "$(q "$db" "SELECT s.line, sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                     WHERE s.kind = 'call' AND s.name = 'p3' GROUP BY s.line ORDER BY s.line")"
    expect_eq "$t lizhang: p4 count = $((NP * (2 + NL1 * NL2)))" $((NP * (2 + NL1 * NL2))) \
        "$(q "$db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                     WHERE s.kind = 'procedure' AND s.name = 'p4'")"
    # the communication statement in loop1 (e2) and the one in p3 (e1)
    near_truth "$t lizhang: time of e2 (line $Le2, in loop1) = the ranks' own time in it" "$(took "$err" "at e2")" $((NP * NL1)) \
        "$(sql_sum "$db" comm "$Le2" 'sum(st.time)')"
    expect_eq "$t lizhang: e2 count" $((NP * NL1)) "$(sql_sum "$db" comm "$Le2" 'sum(st.count)')"
    expect_truth_range "$t lizhang: sync of e2 between the observed waits at e2 and the ranks' time in it" \
        "$(calc "$w2 * 1000") $(calc "$(took "$err" "at e2") * 1000") $((NP * NL1))" \
        "$(q "$db" "SELECT round(sum(c.sync) * 1000, 3) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                     WHERE s.line = $Le2 AND s.file LIKE '$F'")"
    expect_eq "$t lizhang: e1 count (line $Le1, in p3)" $((NP * 2)) "$(sql_sum "$db" comm "$Le1" 'sum(st.count)')"
    # loops (tier 2 only)
    if [ "$t" = t2 ]; then
        near_truth "$t lizhang: loop1 time = the ranks' own time around it" "$(took "$err" "in loop1")" "$NP" \
            "$(sql_sum "$db" loop "$Ll1" 'sum(st.time)')"
        expect_eq "$t lizhang: loop1 count = 1 per rank" "$NP" "$(sql_sum "$db" loop "$Ll1" 'sum(st.count)')"
        near_truth "$t lizhang: loop2 time = the ranks' own time around it" "$(took "$err" "in loop2")" $((NP * NL1)) \
            "$(sql_sum "$db" loop "$Ll2" 'sum(st.time)')"
        expect_eq "$t lizhang: loop2 count = $NL1 per rank" $((NP * NL1)) "$(sql_sum "$db" loop "$Ll2" 'sum(st.count)')"
        expect_eq "$t lizhang: e2's node is under loop1's node" "loop,$Ll1" \
            "$(q "$db" "SELECT DISTINCT ps.kind, ps.line FROM node n JOIN site s ON s.id = n.site
                         JOIN node pn ON pn.id = n.parent JOIN site ps ON ps.id = pn.site
                         WHERE s.kind = 'comm' AND s.line = $Le2 AND s.file LIKE '$F'")"
    fi
    # top-down from main by the largest child
    tree_ok "$t lizhang" "$db"
    walk "$db"
    expect_eq "$t lizhang: top-down from main the dominant procedure is p4 (path $WALK)" p4 "$DOMINANT"
    plain_run lz.plain "$tmp/bin/lizhang.plain"
    same_stdout "$t lizhang: same stdout with and without instrumentation" "$tmp/lz.plain.out" "$tmp/lz.$t.out"
}

static_tables() {
    local db=$1 notsetup="AND comm NOT IN ('MPI_Init', 'MPI_Init_thread', 'MPI_Comm_rank', 'MPI_Comm_size', 'MPI_Finalize')"
    expect_eq "t2 lizhang: PL (procedure line -> loops)" "$Lmain,main,$Ll1" \
        "$(q "$db" "SELECT proc_line, proc, loop_line FROM PL WHERE file LIKE '$F' ORDER BY 1, 3")"
    # Whether MPI_Init/Comm_rank/Comm_size/Finalize count as communication
    # statements is the instrumenter's choice; they are left out here.
    expect_eq "t2 lizhang: PCOM (procedure line -> communication statements)" \
        "$(printf '%s\n' "$Lp3,p3,$Le1,MPI_Sendrecv" "$Lmain,main,$Lbar,MPI_Barrier" "$Lmain,main,$Lred,MPI_Reduce" | sort -t, -k1,1n -k3,3n)" \
        "$(q "$db" "SELECT proc_line, proc, comm_line, comm FROM PCOM WHERE file LIKE '$F' $notsetup ORDER BY 1, 3")"
    expect_eq "t2 lizhang: PC (procedure line -> call line, callee, callee line)" \
        "$(printf '%s\n' "$Lmain,main,$Lc1,p1,$Lp1" "$Lmain,main,$Lc2,p2,$Lp2" "$Lp1,p1,$Lc31,p3,$Lp3" \
            "$Lp2,p2,$Lc32,p3,$Lp3" "$Lp3,p3,$Lc43,p4,$Lp4" "$Lmain,main,$Lrk,MPI_Comm_rank," \
            "$Lmain,main,$Lsz,MPI_Comm_size," | sort -t, -k1,1n -k3,3n)" \
        "$(q "$db" "SELECT proc_line, proc, call_line, callee, callee_line FROM PC WHERE file LIKE '$F' ORDER BY 1, 3")"
    expect_eq "t2 lizhang: LL (loop line -> nested loops)" "$Ll1,$Ll2" \
        "$(q "$db" "SELECT loop_line, inner_loop_line FROM LL WHERE file LIKE '$F' ORDER BY 1, 2")"
    expect_eq "t2 lizhang: LCOM (loop line -> communication statements)" "$Ll1,$Le2,MPI_Sendrecv" \
        "$(q "$db" "SELECT loop_line, comm_line, comm FROM LCOM WHERE file LIKE '$F' ORDER BY 1, 2")"
    expect_eq "t2 lizhang: LC (loop line -> call line, callee, callee line)" "$Ll2,$Lc4l,p4,$Lp4" \
        "$(q "$db" "SELECT loop_line, call_line, callee, callee_line FROM LC WHERE file LIKE '$F' ORDER BY 1, 2")"
}

attempts "tier 1 lizhang" lizhang_checks t1
if [ $have_t2 = 1 ]; then
    attempts "tier 2 lizhang" lizhang_checks t2
    [ ! -s "$tmp/lz.t2.hpf" ] || static_tables "$tmp/lz.t2.hpf"
else
    skipped "tier 2: Li & Zhang questions and static tables" "instrumenter not built ($HPCC)"
fi

# ================================================================ recursion
R=$S/recursion.c
FIB_N=$(def "$R" FIB_N) EO_N=$(def "$R" EO_N) EO_REPS=$(def "$R" EO_REPS)
FIB_CALLS=$(awk -v n="$FIB_N" 'BEGIN { a = 0; b = 1; for (i = 0; i < n + 1; i++) { t = a + b; a = b; b = t } print 2 * a - 1 }')
EVEN_CALLS=$((EO_REPS * (EO_N / 2 + 1)))
ODD_CALLS=$((EO_REPS * EO_N / 2))

# proc_sum DB NAME COLS RANK - sums over the procedure nodes of NAME on RANK.
proc_sum() {
    q "$1" "SELECT $3 FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
            WHERE s.kind = 'procedure' AND s.name = '$2' AND st.rank = $4"
}

# The outermost times are checked raw (stat.raw_time): the program's own
# wall time includes what the probes cost, which compensation takes out.
recursion_checks() {
    local t=$1 db r w
    hp_run rec.$t "$tmp/bin/recursion.$t"
    ran_ok rec.$t || return 0
    db=$PROFILE
    for r in $(seq 0 $((NP - 1))); do
        expect_eq "$t recursion: rank $r fib($FIB_N) count = $FIB_CALLS" "$FIB_CALLS" "$(proc_sum "$db" fib 'sum(st.count)' $r)"
        expect_eq "$t recursion: rank $r is_even count = $EVEN_CALLS" "$EVEN_CALLS" "$(proc_sum "$db" is_even 'sum(st.count)' $r)"
        expect_eq "$t recursion: rank $r is_odd count = $ODD_CALLS" "$ODD_CALLS" "$(proc_sum "$db" is_odd 'sum(st.count)' $r)"
        w=$(sed -n "s/^recursion-wall: rank $r fib //p" "$tmp/rec.$t.err")
        near_truth "$t recursion: rank $r fib's outermost time = its wall time ${w}s" "$w" 1 "$(proc_sum "$db" fib 'sum(st.raw_time)' $r)"
        w=$(sed -n "s/^recursion-wall: rank $r even //p" "$tmp/rec.$t.err")
        near_truth "$t recursion: rank $r is_even's outermost time = its wall time ${w}s" "$w" 1 "$(proc_sum "$db" is_even 'sum(st.raw_time)' $r)"
    done
    expect_cmp "$t recursion: fewer than 10 nodes for fib (its procedure and call sites)" lt 10 \
        "$(q "$db" "SELECT count(DISTINCT n.id) FROM node n JOIN site s ON s.id = n.site WHERE s.name = 'fib' OR s.func = 'fib'")"
    expect_cmp "$t recursion: fewer than 20 nodes for is_even and is_odd" lt 20 \
        "$(q "$db" "SELECT count(DISTINCT n.id) FROM node n JOIN site s ON s.id = n.site
                     WHERE s.name IN ('is_even', 'is_odd') OR s.func IN ('is_even', 'is_odd')")"
    tree_ok "$t recursion" "$db"
    expect_eq "$t recursion: no site throttled" 0 "$(q "$db" "SELECT count(*) FROM site WHERE flags & 16")"
    plain_run rec.plain "$tmp/bin/recursion.plain"
    same_stdout "$t recursion: same stdout with and without instrumentation" "$tmp/rec.plain.out" "$tmp/rec.$t.out"
}

attempts "tier 1 recursion" recursion_checks t1
if [ $have_t2 = 1 ]; then
    attempts "tier 2 recursion" recursion_checks t2
else
    skipped "tier 2: recursion" "instrumenter not built ($HPCC)"
fi

# ================================================================ throttling and filter
H=$S/hot.c
HOT_CALLS=$(def "$H" HOT_CALLS) COLD_CALLS=$(def "$H" COLD_CALLS) COLD_US=$(def "$H" COLD_US)
echo 'exclude function hot' >"$tmp/filter.txt"

hot_checks() {
    local t=$1 db
    plain_run hot.plain "$tmp/bin/hot.plain"
    hp_run hot.$t "$tmp/bin/hot.$t"
    if ran_ok hot.$t; then
        db=$PROFILE
        expect_eq "$t throttling: hot's procedure site has flag 16 (throttled)" 16 \
            "$(q "$db" "SELECT flags & 16 FROM site WHERE kind = 'procedure' AND name = 'hot'")"
        expect_eq "$t throttling: hot's count is exact" $((NP * HOT_CALLS)) \
            "$(q "$db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                         WHERE s.kind = 'procedure' AND s.name = 'hot'")"
        expect_eq "$t throttling: cold is not throttled, count exact" "0,$((NP * COLD_CALLS))" \
            "$(q "$db" "SELECT max(s.flags & 16), sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                         WHERE s.kind = 'procedure' AND s.name = 'cold'")"
        # cold is timed, never extrapolated: each call >= COLD_US (a stall of
        # the machine can only make calls longer).
        expect_cmp "$t throttling: cold's shortest call >= ${COLD_US}us" ge "$(calc "$COLD_US * 0.99 / 1e6")" \
            "$(q "$db" "SELECT min(st.min) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                         WHERE s.kind = 'procedure' AND s.name = 'cold'")"
        for r in $(seq 0 $((NP - 1))); do
            expect_cmp "$t throttling: rank $r hot's time (call statements) <= the wall time of its loop" le \
                "$(sed -n "s/^hot-wall: rank $r loop //p" "$tmp/hot.$t.err")" \
                "$(q "$db" "SELECT sum(st.time) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                             WHERE s.kind = 'call' AND s.name = 'hot' AND st.rank = $r")"
        done
        tree_ok "$t throttling" "$db"
        same_stdout "$t throttling: same stdout with and without instrumentation" "$tmp/hot.plain.out" "$tmp/hot.$t.out"
    fi
    hp_run hot.$t.nothrottle -x HPROF_THROTTLE_NS=0 "$tmp/bin/hot.$t"
    if ran_ok hot.$t.nothrottle; then
        expect_eq "$t HPROF_THROTTLE_NS=0: no site throttled, hot's count exact" "0,$((NP * HOT_CALLS))" \
            "$(q "$PROFILE" "SELECT (SELECT count(*) FROM site WHERE flags & 16), sum(st.count) FROM stat st
                         JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                         WHERE s.kind = 'procedure' AND s.name = 'hot'")"
    fi
    if [ "$t" = t2 ]; then
        hp_run hot.$t.filter -x HPROF_FILTER="$tmp/filter.txt" "$tmp/bin/hot.$t"
        if ran_ok hot.$t.filter; then
            expect_eq "$t HPROF_FILTER 'exclude function hot': no node for procedure hot" 0 \
                "$(q "$PROFILE" "SELECT count(*) FROM node n JOIN site s ON s.id = n.site WHERE s.kind = 'procedure' AND s.name = 'hot'")"
            expect_eq "$t HPROF_FILTER 'exclude function hot': cold still counted" $((NP * COLD_CALLS)) \
                "$(q "$PROFILE" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                             WHERE s.kind = 'procedure' AND s.name = 'cold'")"
            same_stdout "$t HPROF_FILTER: same stdout" "$tmp/hot.plain.out" "$tmp/hot.$t.filter.out"
        fi
    fi
}

attempts "tier 1 throttling" hot_checks t1
if [ $have_t2 = 1 ]; then
    attempts "tier 2 throttling and filter" hot_checks t2
else
    skipped "tier 2: throttling and HPROF_FILTER" "instrumenter not built ($HPCC)"
fi

# ================================================================ a throttled procedure's time
# slowchild.c: step (throttled) calls a 20 us slow every 1000th call.  Its
# time must hold slow's (measured by the program inside slow's calls, so
# within hprof's measurement of them whatever the load) and stay
# within the program's wall time of the loop of steps (raw times: the
# program's clocks include the probes); counts exact; the estimated time
# marked in the database, the views and the summary.
SC=$S/slowchild.c
SC_STEPS=$(def "$SC" STEPS) SC_EVERY=$(def "$SC" SLOW_EVERY)
build_all slowchild "$SC"
slowchild_checks() {
    local t=$1 db r
    hp_run slowchild.$t "$tmp/bin/slowchild.$t"
    ran_ok slowchild.$t || return 0
    db=$PROFILE
    expect_eq "$t slowchild: step and slow counted exactly" "$((NP * SC_STEPS)),$((NP * SC_STEPS / SC_EVERY))" \
        "$(q "$db" "SELECT sum(st.count * (s.name = 'step')), sum(st.count * (s.name = 'slow')) FROM stat st
                     JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site WHERE s.kind = 'procedure'")"
    expect_eq "$t slowchild: step's site throttled (16), its time estimated (4096)" 4112 \
        "$(q "$db" "SELECT max(flags & 4112) FROM site WHERE kind = 'procedure' AND name = 'step'")"
    for r in $(seq 0 $((NP - 1))); do
        local line loop slow step loopnode
        line=$(grep "^slowchild: rank $r " "$tmp/slowchild.$t.err")
        loop=$(echo "$line" | awk '{ print $5 }') slow=$(echo "$line" | awk '{ print $7 }')
        step=$(proc_sum "$db" step 'sum(st.raw_time)' $r)
        expect_cmp "$t slowchild: rank $r step's time >= slow's as the program measured it inside slow (${slow}s)" ge \
            "$(calc "$slow * (1 - $TRUTH_REL)")" "$step"
        [ "$t" = t2 ] || continue
        # tier 2 probes the loop (measured): the program's clock around it,
        # and step inside it
        loopnode=$(q "$db" "SELECT sum(st.raw_time) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                            WHERE s.kind = 'loop' AND s.line = $(line_of "$SC" loop-steps) AND st.rank = $r")
        expect_truth "$t slowchild: rank $r the loop of steps = the program's clock around it" "$(calc "$loop * 1000") 1" \
            "$(calc "$loopnode * 1000")"
        expect_cmp "$t slowchild: rank $r step's time <= its loop's" le "$loopnode" "$step"
    done
    expect_eq "$t slowchild: the tree marks step's time estimated" yes \
        "$("$QUERY" "$db" 2>/dev/null | grep -c ' step \[est\] ' >/dev/null && echo yes)"
    expect_eq "$t slowchild: the folded stacks mark it" yes \
        "$("$QUERY" "$db" --folded 2>/dev/null | grep -c ';step \[est\]' >/dev/null && echo yes)"
    expect_eq "$t slowchild: the summary marks it" yes \
        "$(grep -q 'procedure step .*\[throttled: time estimated\]' "$tmp/slowchild.$t.err" && echo yes)"
}
attempts "tier 1 throttled time" slowchild_checks t1
if [ $have_t2 = 1 ]; then
    attempts "tier 2 throttled time" slowchild_checks t2
fi

# ================================================================ examples/jacobi.c instrumented
# The hybrid demo program (MPI + OpenMP) must print the same in tiers 1 and
# 2 as plain, with 2 ranks x 2 threads; tier 2 must see its loops (the
# OpenMP-parallel update loop among them) and its halo exchange as static
# communication statements of exchange_halo, called inside the iteration
# loop.
JAC=$srcdir/examples/jacobi.c
JARGS=(256 100)
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
"$MPICC" -g -O2 -fopenmp "$JAC" -o "$tmp/bin/jacobi.plain" -lm
"$MPICC" -g -O2 -fopenmp -finstrument-functions "$JAC" -o "$tmp/bin/jacobi.t1" -lm \
    -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR"
plain_run jacobi.plain -x OMP_NUM_THREADS -x OMP_WAIT_POLICY "$tmp/bin/jacobi.plain" "${JARGS[@]}"
hp_run jacobi.t1 -x OMP_NUM_THREADS -x OMP_WAIT_POLICY "$tmp/bin/jacobi.t1" "${JARGS[@]}"
if ran_ok jacobi.t1; then
    same_stdout "t1 jacobi: same stdout as plain" "$tmp/jacobi.plain.out" "$tmp/jacobi.t1.out"
fi
if [ $have_t2 = 1 ]; then
    if "$HPCC" "$MPICC" -g -O2 -fopenmp -c "$JAC" -o "$tmp/bin/jacobi.o" 2>"$tmp/build.err" &&
        "$HPCC" "$MPICC" -fopenmp "$tmp/bin/jacobi.o" -o "$tmp/bin/jacobi.t2" -lm \
            -L"$LIBDIR" -Wl,-rpath,"$LIBDIR" 2>>"$tmp/build.err" && ! grep -qi warn "$tmp/build.err"; then
        ok "t2 jacobi: instrumented build without warnings"
    else
        notok "t2 jacobi: instrumented build without warnings" "$(head -5 "$tmp/build.err" | oneline)"
    fi
    hp_run jacobi.t2 -x OMP_NUM_THREADS -x OMP_WAIT_POLICY "$tmp/bin/jacobi.t2" "${JARGS[@]}"
    if ran_ok jacobi.t2; then
        db=$PROFILE
        same_stdout "t2 jacobi: same stdout as plain" "$tmp/jacobi.plain.out" "$tmp/jacobi.t2.out"
        Lsr=$(grep -n 'HALO-SENDRECV \*/' "$JAC" | cut -d: -f1)
        expect_eq "t2 jacobi: the Sendrecv halo exchange is a static comm statement of exchange_halo" \
            "comm,procedure,exchange_halo" \
            "$(q "$db" "SELECT s.kind, p.kind, p.name FROM site s JOIN site p ON p.id = s.parent WHERE s.name = 'MPI_Sendrecv' AND s.line = $Lsr")"
        expect_eq "t2 jacobi: exchange_halo is called from inside the iteration loop of main" "loop,main" \
            "$(q "$db" "SELECT DISTINCT p.kind, p.func FROM site s JOIN site p ON p.id = s.parent WHERE s.kind = 'call' AND s.name = 'exchange_halo'")"
        expect_eq "t2 jacobi: each rank runs the Sendrecv statement once per iteration" "$((NP * JARGS[1]))" \
            "$(q "$db" "SELECT sum(t.count) FROM stat t JOIN node n ON n.id = t.node JOIN site s ON s.id = n.site WHERE s.name = 'MPI_Sendrecv' AND s.line = $Lsr")"
        expect_cmp "t2 jacobi: at least 4 loops in the static table (LL has the nests)" ge 4 \
            "$(q "$db" "SELECT count(*) FROM site WHERE kind = 'loop' AND file LIKE '%jacobi.c'")"
        tree_ok "t2 jacobi" "$db"
    fi
else
    skipped "t2 jacobi" "instrumenter not built ($HPCC)"
fi

# ================================================================ a program without MPI
# Tiers 1 and 2 on serial code: the profile and the summary come at exit.
SER=$S/serial.c
FIBN=$(def "$SER" FIB_CALLS) SPIN=$(def "$SER" SPIN_MS)
gcc -g -O2 "$SER" -o "$tmp/bin/serial.plain"
"$tmp/bin/serial.plain" >"$tmp/serial.plain.out"
serial_checks() {
    local t=$1 db
    db=$tmp/serial.$t.hpf
    rm -f "$db" "${db%.hpf}.db"
    HPROF_OUTPUT=$db "$tmp/bin/serial.$t" >"$tmp/serial.$t.out" 2>"$tmp/serial.$t.err"
    check_profile "$t serial" "$db"
    same_stdout "$t serial: same stdout as plain" "$tmp/serial.plain.out" "$tmp/serial.$t.out"
    expect_eq "$t serial: profile written at exit, summary on stderr" "yes,yes" \
        "$([ -s "$db" ] && echo yes || echo no),$(grep -q '^hprof: profile written to' "$tmp/serial.$t.err" && echo yes || echo no)"
    expect_eq "$t serial: fib calls exact, one procedure node" "$FIBN,1" \
        "$(q "$db" "SELECT sum(st.count), count(*) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site WHERE s.kind = 'procedure' AND s.name = 'fib'")"
    expect_cmp "$t serial: work() spun 3 x ${SPIN} ms (its own time, stderr)" ge "$(calc "3 * $SPIN / 1000")" \
        "$(awk '/^serial: work took/ { print $4 }' "$tmp/serial.$t.err")"
    near_truth "$t serial: work() = its own time" "$(awk '/^serial: work took/ { print $4 }' "$tmp/serial.$t.err")" 1 \
        "$(q "$db" "SELECT sum(st.time) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site WHERE s.kind = 'procedure' AND s.name = 'work'")"
}
gcc -g -O0 -finstrument-functions "$SER" -o "$tmp/bin/serial.t1" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR"
attempts "tier 1 serial" serial_checks t1
if [ $have_t2 = 1 ]; then
    "$HPCC" gcc -g -O2 "$SER" -o "$tmp/bin/serial.t2" -L"$LIBDIR" -Wl,-rpath,"$LIBDIR"
    attempts "tier 2 serial" serial_checks t2
    expect_eq "t2 serial: the loops of spin_ms and work() are the static table PL" \
        "spin_ms,$(line_of "$SER" spin-loop);work,$(line_of "$SER" work-loop)" \
        "$(q "$tmp/serial.t2.hpf" "SELECT proc, loop_line FROM PL ORDER BY proc")"
else
    skipped "tier 2 serial" "instrumenter not built ($HPCC)"
fi

[ "$skip" = 0 ] || echo "# $skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
