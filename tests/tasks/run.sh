#!/bin/bash
# tests/tasks/run.sh - the task tree and the task timeline, for every
# event source: tests/tasks/src/tasktree.c (fib with a cutoff, untied,
# final with included tasks, if(0); its expected counts printed by the
# program itself) built
#   gomp   gcc -fopenmp -lhprof            (tier 0, GOMP interposition)
#   ompt   clang -fopenmp -lhprof          (tier 0, OMPT tool)
#   pomp   hprof-cc mpicc (gcc) --omp      (tier 2, POMP2 from hprof-instrument)
#   opari2 opari2 + gcc -lhprof            (POMP2 from opari2)
# and run with 2 ranks x 2 threads and HPROF_TASK_TRACE.  Checked through
# hprof-query (--tasks, --task-trace in JSON and CSV, --sql):
#  - stdout identical to the plain build;
#  - waits leave out the tasks run meanwhile: per thread, taskwait and
#    barrier waits never add up to more than the time in the region;
#  - tasks created per (parent construct, child construct), exact, and no
#    other pair; tasks executed per construct, exact (opari2 puts an
#    if(false) task's POMP2 calls under if (pomp2_if): not a task there);
#    OMPT: the task create records count every task, untimed (the
#    callback lies inside libomp's creation: nothing to time);
#  - the timeline: a create and a run event per task, ids unique, every
#    run has its create, the id names the creating thread, and a task's
#    parent is the task that ran on the creating thread at that moment
#    (the create lies inside the parent's run there);
#  - the Chrome trace JSON: valid, a slice per event, one arrow (s + f)
#    per task;
#  - a small ring (HPROF_TASK_TRACE=64) keeps at most 64 events per thread;
#  - taskloop.c (GOMP and OMPT): output identical to the plain build for
#    every kind of taskloop (grainsize, num_tasks, collapse over unsigned
#    long long, nogroup, if(0), reduction, first/lastprivate) and a
#    detachable task, tasks created and executed per construct exact, and
#    equal (GOMP: nogroup, a task reduction, whose argument block libgomp
#    reads, a block over 64 KiB and one with a copy function included);
#  - bad input: a malformed HPROF_TASK_TRACE, --task-trace without a
#    timeline: one line, non-zero exit.
#
# usage: tests/tasks/run.sh [BUILDDIR].  Env: MPICC, MPIRUN, CLANG,
# HPROF_KEEP_TMP=1.  Prints "ok - NAME" / "not ok - NAME: ..." and a last
# line "N passed, M failed".
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
CLANG=${CLANG:-clang}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
HPCC=$builddir/instrument/hprof-cc
SRC=$srcdir/tests/tasks/src/tasktree.c

. "$srcdir/tests/lib.sh"
if ! command -v "$MPICC" >/dev/null; then
    skipped "task tests" "no $MPICC"
    echo "$pass passed, $fail failed"
    exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_WAIT_POLICY=passive
test_tmpdir tasks
NP=2
NT=2

# build SOURCE-KIND - $tmp/tt.KIND; returns 1 (after a "not ok") if it fails.
build() {
    local kind=$1 rc=0 lib=(-L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR")
    case $kind in
    plain) OMPI_CC=gcc "$MPICC" -fopenmp -g -O2 "$SRC" -o "$tmp/tt.plain" ;;
    gomp) OMPI_CC=gcc "$MPICC" -fopenmp -g -O2 "$SRC" -o "$tmp/tt.gomp" "${lib[@]}" ;;
    ompt) OMPI_CC=$CLANG "$MPICC" -fopenmp -g -gdwarf-aranges -O2 "$SRC" -o "$tmp/tt.ompt" "${lib[@]}" ;;
    pomp) (cd "$tmp" && HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir OMPI_CC=gcc \
               "$HPCC" "$MPICC" -fopenmp -g -O2 "$SRC" -o tt.pomp) ;;
    opari2) (cd "$tmp" && cp "$SRC" tasktree.c && opari2 --omp-task-untied=keep tasktree.c tasktree.mod.c &&
             OMPI_CC=gcc "$MPICC" -fopenmp -g -O2 $(opari2-config --cflags) -c tasktree.mod.c &&
             $(opari2-config --nm) tasktree.mod.o | $(opari2-config --region-initialization) >init.c &&
             OMPI_CC=gcc "$MPICC" -fopenmp -g -O2 $(opari2-config --cflags) -c init.c &&
             OMPI_CC=gcc "$MPICC" -fopenmp tasktree.mod.o init.o -o tt.opari2 "${lib[@]}") ;;
    esac >"$tmp/$kind.cc" 2>&1 || rc=$?
    if [ "$rc" != 0 ] || [ -s "$tmp/$kind.cc" ]; then
        notok "$kind: builds without a message" "$(head -3 "$tmp/$kind.cc" | oneline)"
        return 1
    fi
}

# run KIND TRACE - stdout $tmp/KIND.out, profile $tmp/KIND.hpf.
run() {
    local kind=$1 trace=$2 rc=0
    rm -f "$tmp/$kind.hpf" "$tmp/$kind.db"
    HPROF_OUTPUT=$tmp/$kind.hpf HPROF_SUMMARY=off HPROF_TASK_TRACE=$trace OMP_NUM_THREADS=$NT \
        timeout 300 "$MPIRUN" -np $NP --bind-to none -x HPROF_OUTPUT -x HPROF_SUMMARY \
        -x HPROF_TASK_TRACE -x OMP_NUM_THREADS -x OMP_WAIT_POLICY "$tmp/tt.$kind" \
        >"$tmp/$kind.out" 2>"$tmp/$kind.err" </dev/null || rc=$?
    if [ "$rc" != 0 ] || [ ! -s "$tmp/$kind.hpf" ]; then
        notok "$kind: runs and writes a profile" "exit $rc: $(tail -3 "$tmp/$kind.err" | oneline)"
        return 1
    fi
    check_profile "$kind" "$tmp/$kind.hpf"
}

field() { sed -n "s/.* $1 \([0-9]*\).*/\1/p" "$tmp/plain.out"; }

# span TAG - the lines "LO HI" a construct's sites may have: its pragma's
# line up to its body's end (gcc keys an outlined task by its function,
# whose line may be the body's first statement).
L() { line_of "$SRC" "$1"; }
span() {
    local l
    l=$(L "$1")
    case $1 in
    tree-a) echo "$l $(($(L tree-b) - 1))" ;;
    tree-final) echo "$l $(($(L tree-inner) - 1))" ;;
    tree-untied) echo "$l $((l + 6))" ;;
    tree-inner) echo "$l $((l + 4))" ;;
    tree-region) echo "$l $l" ;;
    *) echo "$l $((l + 1))" ;;
    esac
}

# pairs DB PARENT-NAME PARENT-TAG CHILD-TAG - tasks created at CHILD-TAG's
# construct by PARENT-TAG's construct ("parallel" for the region).
pairs() {
    local p c
    p=($(span "$3")); c=($(span "$4"))
    q "$1" "SELECT coalesce(sum(tc.created), 0) FROM task_children tc
        JOIN site ps ON ps.id = tc.parent_site JOIN site cs ON cs.id = tc.child_site
        WHERE ps.name = '$2' AND ps.line BETWEEN ${p[0]} AND ${p[1]}
        AND cs.line BETWEEN ${c[0]} AND ${c[1]} AND cs.file LIKE '%/tasktree.c'"
}
executed() {
    local l
    l=($(span "$2"))
    q "$1" "SELECT coalesce(sum(st.count), 0) FROM stat st JOIN node n ON n.id = st.node
        JOIN site s ON s.id = n.site WHERE s.kind = 'omp' AND s.name = 'task'
        AND s.line BETWEEN ${l[0]} AND ${l[1]} AND s.file LIKE '%/tasktree.c'"
}

check_tree() {
    local kind=$1 db=$tmp/$1.db if0=$NP npairs=10
    [ "$kind" = opari2 ] && { if0=0; npairs=9; }
    if cmp -s "$tmp/$kind.out" "$tmp/plain.out"; then ok "$kind: same stdout as the plain build"
    else notok "$kind: same stdout as the plain build" "$(head -2 "$tmp/$kind.out" | oneline)"; fi
    "$QUERY" "$tmp/$kind.hpf" --tasks >"$tmp/$kind.tasks" 2>/dev/null || true
    expect_eq "$kind: --tasks lists $npairs (parent, child) construct pairs" "$npairs" \
        "$(($(wc -l <"$tmp/$kind.tasks") - 2))"
    expect_eq "$kind: created by the region's implicit tasks: a, b, untied, final, if(0)" \
        "$NP;$NP;$((NP * UNTIED));$NP;$if0" \
        "$(pairs "$db" parallel tree-region tree-a);$(pairs "$db" parallel tree-region tree-b);$(pairs "$db" parallel tree-region tree-untied);$(pairs "$db" parallel tree-region tree-final);$(pairs "$db" parallel tree-region tree-if0)"
    expect_eq "$kind: created by a tasks: a, b (exact, $NP x $CA)" "$((NP * CA));$((NP * CA))" \
        "$(pairs "$db" task tree-a tree-a);$(pairs "$db" task tree-a tree-b)"
    expect_eq "$kind: created by b tasks: a, b (exact, $NP x $CB)" "$((NP * CB));$((NP * CB))" \
        "$(pairs "$db" task tree-b tree-a);$(pairs "$db" task tree-b tree-b)"
    expect_eq "$kind: created by the final task: its included tasks" "$((NP * FINAL))" \
        "$(pairs "$db" task tree-final tree-inner)"
    # a thread running tasks at a taskwait or barrier is working, not
    # waiting: its waits never add up to more than its time in the region
    # (beyond 1 ns, the clock's unit: the times are doubles, summed here in
    # another order than the region's own, a master that waited through
    # its whole region on a loaded machine gave 0.005160871 > 0.005160871)
    local lr
    lr=$(L tree-region)
    expect_eq "$kind: per thread, waits (taskwait, barriers) <= time in the region (rank:thread waits > region listed)" "" \
        "$(q "$db" "WITH w AS (SELECT st.rank, st.thread, sum(st.time) AS t FROM stat st
            JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site WHERE s.kind = 'omp'
            AND s.name IN ('taskwait', 'implicit barrier', 'barrier') AND s.file LIKE '%/tasktree.c'
            GROUP BY 1, 2), r AS (SELECT st.rank, st.thread, sum(st.time) AS t FROM stat st
            JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site WHERE s.kind = 'omp'
            AND s.name = 'parallel' AND s.line = $lr GROUP BY 1, 2)
            SELECT rank || ':' || thread || ' ' || printf('%.9f', w.t) || ' > ' || printf('%.9f', r.t)
            FROM w JOIN r USING (rank, thread) WHERE w.t > r.t + 1e-9")"
    # --threads at a task construct's line: its executions per thread
    expect_eq "$kind: --threads $(basename "$SRC"):$(L tree-a) lists the a tasks run per thread (sum $((NP * CALLS)))" \
        "$((NP * CALLS))" "$("$QUERY" "$db" --threads "tasktree.c:$(L tree-a)" --format csv 2>/dev/null |
            awk -F, 'NR > 1 { s += $3 } END { print s + 0 }')"
    expect_eq "$kind: executed at a, b, untied, final, inner, if(0)" \
        "$((NP * CALLS));$((NP * CALLS));$((NP * UNTIED));$NP;$((NP * FINAL));$if0" \
        "$(executed "$db" tree-a);$(executed "$db" tree-b);$(executed "$db" tree-untied);$(executed "$db" tree-final);$(executed "$db" tree-inner);$(executed "$db" tree-if0)"
    [ "$kind" = ompt ] || return 0
    # OMPT reports a creation from inside libomp's: no duration of the
    # program's, so the creations are counted untimed (no clock read)
    expect_eq "ompt: task create records count every task executed, none timed" \
        "$(q "$db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s
            ON s.id = n.site WHERE s.kind = 'omp' AND s.name = 'task' AND s.file LIKE '%/tasktree.c'");0" \
        "$(q "$db" "SELECT sum(st.count) || ';' || sum(st.timed) FROM stat st JOIN node n ON n.id = st.node
            JOIN site s ON s.id = n.site WHERE s.kind = 'omp' AND s.name = 'task create'
            AND s.file LIKE '%/tasktree.c'")"
}

check_timeline() {
    local kind=$1 db=$tmp/$1.db tasks
    tasks=$((2 * CALLS + UNTIED + 1 + FINAL))
    [ "$kind" = opari2 ] || tasks=$((tasks + 1))
    expect_eq "$kind: timeline: a create and a run per task on each rank ($tasks)" \
        "$tasks,$tasks;$tasks,$tasks" \
        "$(q "$db" "SELECT sum(kind = 'create'), sum(kind = 'run') FROM task GROUP BY rank ORDER BY rank")"
    expect_eq "$kind: timeline: ids unique, every run has its create, ids name the creating thread" "0;0;0" \
        "$(q "$db" "SELECT count(*) - count(DISTINCT rank || ':' || id) FROM task WHERE kind = 'run'");$(q "$db" "SELECT count(*) FROM task t WHERE kind = 'run' AND NOT EXISTS
            (SELECT 1 FROM task c WHERE c.rank = t.rank AND c.id = t.id AND c.kind = 'create')");$(q "$db" "SELECT count(*) FROM task WHERE kind = 'create' AND (id >> 40) - 1 <> thread")"
    expect_eq "$kind: timeline: creates by implicit tasks (parent 0) on each rank" \
        "$((tasks - 2 * (CA + CB) - FINAL));$((tasks - 2 * (CA + CB) - FINAL))" \
        "$(q "$db" "SELECT sum(parent = 0) FROM task WHERE kind = 'create' GROUP BY rank ORDER BY rank")"
    expect_eq "$kind: timeline: every parent is a task running on the creating thread around the create" "0" \
        "$(q "$db" "SELECT count(*) FROM task c WHERE c.kind = 'create' AND c.parent <> 0 AND NOT EXISTS
            (SELECT 1 FROM task p WHERE p.kind = 'run' AND p.rank = c.rank AND p.id = c.parent
             AND p.thread = c.thread AND c.begin >= p.begin AND c.end <= p.end)")"
    local json=$tmp/$kind.json got
    if "$QUERY" "$db" --task-trace >"$json" 2>"$tmp/$kind.json.err"; then
        got=$(python3 - "$json" <<'PY'
import json, sys, collections
ev = json.load(open(sys.argv[1]))["traceEvents"]
ph = collections.Counter(e["ph"] for e in ev)
flows = collections.Counter((e["id"], e["ph"]) for e in ev if e["ph"] in "sf")
ids = {i for i, _ in flows}
pairs = sum(1 for i in ids if flows[(i, "s")] == 1 and flows[(i, "f")] == 1)
print(ph["X"], ph["s"], ph["f"], pairs)
PY
)
        expect_eq "$kind: --task-trace: Chrome JSON, a slice per event, an arrow per task" \
            "$((2 * NP * tasks)) $((NP * tasks)) $((NP * tasks)) $((NP * tasks))" "$got"
    else
        notok "$kind: --task-trace" "$(oneline <"$tmp/$kind.json.err")"
    fi
    local csv=$tmp/$kind.csv
    if "$QUERY" "$db" --task-trace --format csv >"$csv" 2>"$tmp/$kind.csv.err"; then
        expect_eq "$kind: --task-trace --format csv: a row per creation and per execution" \
            "rank,thread,kind,site,id,parent,team,begin,end $((NP * tasks)) $((NP * tasks))" \
            "$(head -1 "$csv") $(grep -c ',create,' "$csv") $(grep -c ',run,' "$csv")"
    else
        notok "$kind: --task-trace --format csv" "$(oneline <"$tmp/$kind.csv.err")"
    fi
}

build plain || true
run_plain() {
    OMP_NUM_THREADS=$NT timeout 300 "$MPIRUN" -np $NP --bind-to none -x OMP_NUM_THREADS \
        -x OMP_WAIT_POLICY "$tmp/tt.plain" >"$tmp/plain.out" 2>"$tmp/plain.err" </dev/null
}
if [ ! -x "$tmp/tt.plain" ] || ! run_plain; then
    notok "plain tasktree runs" "$(tail -3 "$tmp/plain.err" 2>/dev/null | oneline)"
    echo "$pass passed, $fail failed"
    exit 1
fi
CALLS=$(field calls); CA=$(field a); CB=$(field b); UNTIED=$(field untied); FINAL=$(field final)

kinds=(gomp pomp)
syms=$(nm -D "$LIBDIR/libhprof.so" 2>/dev/null || true)   # (grep -q in a pipe: SIGPIPE)
command -v "$CLANG" >/dev/null && grep -q ' T ompt_start_tool$' <<<"$syms" && kinds+=(ompt)
command -v opari2 >/dev/null && kinds+=(opari2)
for kind in "${kinds[@]}"; do
    build "$kind" && run "$kind" 100000 || continue
    check_tree "$kind"
    check_timeline "$kind"
done

# ---- taskloop (tests/tasks/src/taskloop.c): GOMP wraps libgomp's argument
# block (bounds, header, the rest of the user's block); OMPT finds the
# taskloop's line behind libomp's own code address.
TL=$srcdir/tests/tasks/src/taskloop.c
tl_count() {   # tl_count DB NAME TAG - records NAME within 2 lines of TAG's pragma
    local l
    l=$(line_of "$TL" "$3")
    q "$1" "SELECT coalesce(sum(st.count), 0) FROM stat st JOIN node n ON n.id = st.node
        JOIN site s ON s.id = n.site WHERE s.kind = 'omp' AND s.name = '$2'
        AND s.line BETWEEN $l AND $l + 2 AND s.file LIKE '%/taskloop.c'"
}
tl_run() {     # tl_run KIND CC [EXTRA...] - builds and runs tl.KIND
    local kind=$1 cc=$2 rc=0
    shift 2
    OMPI_CC=$cc "$MPICC" -fopenmp -g -O2 "$@" "$TL" -o "$tmp/tl.$kind" -L"$LIBDIR" -lhprof \
        -Wl,-rpath,"$LIBDIR" >"$tmp/tl.$kind.cc" 2>&1 || { notok "taskloop $kind: builds" "$(head -3 "$tmp/tl.$kind.cc" | oneline)"; return 1; }
    HPROF_OUTPUT=$tmp/tl.$kind.hpf HPROF_SUMMARY=off OMP_NUM_THREADS=$NT timeout 300 \
        "$MPIRUN" -np $NP --bind-to none -x HPROF_OUTPUT -x HPROF_SUMMARY -x OMP_NUM_THREADS \
        -x OMP_WAIT_POLICY "$tmp/tl.$kind" >"$tmp/tl.$kind.out" 2>"$tmp/tl.$kind.err" </dev/null || rc=$?
    check_profile "taskloop $kind" "$tmp/tl.$kind.hpf"
    if [ "$rc" != 0 ] || ! cmp -s "$tmp/tl.$kind.out" "$tmp/tl.plain.out"; then
        notok "taskloop $kind: same stdout as the plain build" "exit $rc: $(head -2 "$tmp/tl.$kind.out" "$tmp/tl.$kind.err" | oneline)"
        return 1
    fi
    ok "taskloop $kind: same stdout as the plain build (bounds, firstprivate, lastprivate, collapse, reduction)"
}
OMPI_CC=gcc "$MPICC" -fopenmp -O2 "$TL" -o "$tmp/tl.plain" &&
    OMP_NUM_THREADS=$NT "$MPIRUN" -np $NP --bind-to none -x OMP_NUM_THREADS -x OMP_WAIT_POLICY \
        "$tmp/tl.plain" >"$tmp/tl.plain.out" 2>/dev/null </dev/null || notok "taskloop: plain build runs" "see $tmp"
TLR=$(sed -n 's/.* reps \([0-9]*\).*/\1/p' "$tmp/tl.plain.out")
TLT=$(sed -n 's/.* num \([0-9]*\).*/\1/p' "$tmp/tl.plain.out")
each=$((NP * TLR * TLT))
if tl_run gomp gcc; then
    db=$tmp/tl.gomp.hpf
    expect_eq "taskloop gomp: tasks created and executed at grainsize, num_tasks, ull+collapse, nogroup, if(0), reduction, a block over 64 KiB, a copy function ($each each)" \
        "$(for m in grain num ull nogroup if0 red big vla; do printf '%s,%s;' $each $each; done)" \
        "$(for m in grain num ull nogroup if0 red big vla; do printf '%s,%s;' "$(tl_count "$db" 'task create' loop-$m)" "$(tl_count "$db" task loop-$m)"; done)"
    expect_eq "detach gomp: the detachable task and the fulfilling one, created and executed" \
        "$((NP * TLR)),$((NP * TLR));$((NP * TLR)),$((NP * TLR))" \
        "$(tl_count "$db" 'task create' loop-detach),$(tl_count "$db" task loop-detach);$(tl_count "$db" 'task create' loop-fulfil),$(tl_count "$db" task loop-fulfil)"
fi
if [[ " ${kinds[*]} " == *" ompt "* ]] && tl_run ompt "$CLANG" -gdwarf-aranges; then
    db=$tmp/tl.ompt.hpf
    expect_eq "taskloop ompt: tasks created and executed at each of the 6 taskloops, at their lines ($each)" \
        "$(for m in grain num ull nogroup if0 red; do printf '%s,%s;' $each $each; done)" \
        "$(for m in grain num ull nogroup if0 red; do printf '%s,%s;' "$(tl_count "$db" 'task create' loop-$m)" "$(tl_count "$db" task loop-$m)"; done)"
    expect_eq "detach ompt: the detachable task and the fulfilling one, created and executed" \
        "$((NP * TLR)),$((NP * TLR));$((NP * TLR)),$((NP * TLR))" \
        "$(tl_count "$db" 'task create' loop-detach),$(tl_count "$db" task loop-detach);$(tl_count "$db" 'task create' loop-fulfil),$(tl_count "$db" task loop-fulfil)"
fi

# A small ring: at most 64 events per thread, the ring full on some thread.
if [ -x "$tmp/tt.gomp" ] && run gomp 64; then
    expect_eq "ring: HPROF_TASK_TRACE=64 keeps at most 64 events per thread, and fills" "64;64" \
        "$(q "$tmp/gomp.hpf" "SELECT max(n) FROM (SELECT rank, count(*) AS n FROM task GROUP BY rank, thread)
            GROUP BY rank ORDER BY rank")"
fi

# Bad input.
if [ -x "$tmp/tt.gomp" ]; then
    rc=0
    HPROF_TASK_TRACE=lots OMP_NUM_THREADS=$NT "$MPIRUN" -np 1 --bind-to none -x HPROF_TASK_TRACE \
        -x OMP_NUM_THREADS "$tmp/tt.gomp" >"$tmp/bad.out" 2>"$tmp/bad.err" </dev/null || rc=$?
    expect_eq "bad input: HPROF_TASK_TRACE=lots: exit 2 with one line naming it" "yes" \
        "$([ "$rc" != 0 ] && grep -c 'HPROF_TASK_TRACE' "$tmp/bad.err" | grep -cx 1 >/dev/null && echo yes || echo "no (exit $rc: $(oneline <"$tmp/bad.err"))")"
    run gomp 0 || true
    rc=0
    "$QUERY" "$tmp/gomp.db" --task-trace >"$tmp/none.json" 2>"$tmp/none.err" || rc=$?
    expect_eq "bad input: --task-trace without a timeline: exit 1, one line, no output" "1 1 0" \
        "$rc $(wc -l <"$tmp/none.err") $(wc -c <"$tmp/none.json")"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
