#!/bin/bash
# tests/omp/gomp.sh - tier 0 OpenMP through GOMP interposition (gcc's
# libgomp, libhprof/sources/gomp_*.c): builds the ground-truth programs of
# tests/omp/src/ and examples/jacobi.c with `OMPI_CC=gcc mpicc -fopenmp
# ... -lhprof` (and once without -lhprof), runs them under mpirun and checks
# the per-thread OpenMP records through `hprof-query DB --sql`:
#  - imbalance.c: per-thread region time less its implicit barrier, the
#    barrier wait, the master's fork + region + join and --threads' work
#    column against the program's own measurement (tests/truth.sh: 2% +
#    0.5 ms per event), region site at the pragma's line, counts and
#    fork/join on the master (2 and 4 threads);
#  - critical.c: critical and lock wait and hold per thread against the
#    program's own measurement, holds >= NT x HOLD, sites at the
#    construct's lines, exact counts;
#  - constructs.c: exact counts of single executions, explicit barriers,
#    end-of-loop barriers, tasks created, taskwaits, nested criticals, nest
#    and test locks, nested parallel regions, combined parallel loop and
#    parallel sections;
#  - tasks.c: tasks created and executed per construct (exact), their
#    exclusive time > 0 and <= the thread's region time, and firstprivate
#    VLA (copy function), if(0) and 64-byte aligned tasks;
#  - jacobi.c at 2 ranks x 2 threads: the parallel loop next to the MPI
#    call sites in one database, two threads per rank;
#  - ordered.c: ordered hold and wait per thread and --threads' work
#    column against the program's own measurement, holds >= ITERS x HOLD,
#    exact counts of long double atomic updates (GOMP_atomic_start/end) per
#    thread, no flush record, and those columns in hprof-query --threads;
#  - identical stdout with and without -lhprof for every program.
#
# usage: tests/omp/gomp.sh [BUILDDIR]   (default: the current directory).
# Env: MPICC, MPIRUN, HPROF_KEEP_TMP=1.  Prints "ok - NAME" / "not ok -
# NAME: ..." per check and a last line "N passed, M failed".
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
S=$srcdir/tests/omp/src

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_WAIT_POLICY=passive
# gcc's libgomp whatever mpicc's default compiler is.
export OMPI_CC=gcc

LEVELS=1

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/truth.sh"
test_tmpdir gomp

# build NAME SOURCE [LIBS...] - $tmp/NAME with -lhprof, $tmp/NAME.plain without.
build() {
    local name=$1 src=$2
    shift 2
    if "$MPICC" -fopenmp -g -O2 "$src" -o "$tmp/$name" -L"$LIBDIR" -lhprof \
        -Wl,-rpath,"$LIBDIR" "$@" 2>"$tmp/$name.cc" &&
        "$MPICC" -fopenmp -g -O2 "$src" -o "$tmp/$name.plain" "$@" 2>>"$tmp/$name.cc"; then
        if readelf -d "$tmp/$name" | grep 'NEEDED.*libhprof' >/dev/null; then
            ok "$name: builds with -fopenmp -lhprof"
        else
            notok "$name: builds with -fopenmp -lhprof" "libhprof is not a NEEDED library"
        fi
    else
        notok "$name: builds with -fopenmp -lhprof" "$(head -c 300 "$tmp/$name.cc" | oneline)"
        return 1
    fi
}

# run NAME NP NT PROG ARGS... - with hprof: profile $tmp/NAME.hpf, stdout
# $tmp/NAME.out, the program's own measurement $tmp/NAME.truth
# (tests/truth.sh); then the plain binary, whose stdout must be the same.
# OMP_MAX_ACTIVE_LEVELS=$LEVELS (1: nested regions get teams of one).
run() {
    local name=$1 np=$2 nt=$3 prog=$4 rc=0
    shift 4
    rm -f "$tmp/$name.hpf" "$tmp/$name.db" "$tmp/$name.truth"
    HPROF_OUTPUT=$tmp/$name.hpf HPROF_TEST_TRUTH=$tmp/$name.truth timeout 300 "$MPIRUN" -np "$np" --bind-to none \
        -x HPROF_OUTPUT -x HPROF_TEST_TRUTH -x OMP_WAIT_POLICY -x OMP_NUM_THREADS="$nt" -x OMP_MAX_ACTIVE_LEVELS="$LEVELS" \
        "$prog" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || rc=$?
    if [ "$rc" != 0 ] || [ ! -s "$tmp/$name.hpf" ]; then
        notok "$name: runs and writes a profile" "exit $rc: $(tail -3 "$tmp/$name.err" | oneline)"
        return 1
    fi
    ok "$name: runs and writes a profile"
    check_profile "$name" "$tmp/$name.hpf"
    rc=0
    timeout 300 "$MPIRUN" -np "$np" --bind-to none -x OMP_WAIT_POLICY -x OMP_NUM_THREADS="$nt" \
        -x OMP_MAX_ACTIVE_LEVELS="$LEVELS" "$prog.plain" "$@" >"$tmp/$name.plain.out" \
        2>"$tmp/$name.plain.err" </dev/null || rc=$?
    if [ "$rc" = 0 ] && cmp -s "$tmp/$name.out" "$tmp/$name.plain.out"; then
        ok "$name: same stdout with and without -lhprof"
    else
        notok "$name: same stdout with and without -lhprof" \
            "exit $rc; '$(head -3 "$tmp/$name.out" | oneline)' vs '$(head -3 "$tmp/$name.plain.out" | oneline)'"
    fi
}

# omp_sel FILE NAME LINE - the stat rows of OpenMP construct NAME at
# FILE:LINE (LINE may be "a AND b" for a range through BETWEEN).
omp_where() { echo "s.kind = 'omp' AND s.name = '$2' AND s.file LIKE '%/$1' AND s.line BETWEEN $3 AND ${4:-$3}"; }
# omp_sum DB FILE NAME LINE [LINE2] EXPR - one aggregate over those rows.
omp_sum() { q "$1" "SELECT coalesce($6, 0) $OMPJOIN WHERE $(omp_where "$2" "$3" "$4" "$5")"; }
# omp_nodes DB FILE NAME LINE - thread rows and total count there.
omp_nodes() { q "$1" "SELECT count(*), coalesce(sum(st.count), 0) $OMPJOIN WHERE $(omp_where "$2" "$3" "$4")"; }
# omp_times DB FILE NAME LINE - per-thread times in ms (rank 0), ascending.
omp_times() {
    q "$1" "SELECT round(st.time * 1000, 3) $OMPJOIN WHERE st.rank = 0 AND $(omp_where "$2" "$3" "$4") ORDER BY st.time"
}

# ---------------------------------------------------------------- imbalance
src=imbalance.c
STEP=$(define_of "$S/$src" STEP_MS)
REPS=$(define_of "$S/$src" REPS)
L=$(line_of "$S/$src" imb-region)
imb_forkjoin() {
    expect_eq "imbalance/$NT: fork and join on one thread (the master), once per region" \
        "1,$REPS;1,$REPS" "$(omp_nodes "$db" $src fork "$L")
$(omp_nodes "$db" $src join "$L")"
}
# imb_times - the times of imb$NT against the program's own measurement
# (imbalance.c's header, tests/truth.sh), per thread of rank 0: the
# shared truth_imbalance, then hprof-query --threads' work column.
imb_times() {
    local tr=$tmp/imb$NT.truth mid half
    truth_imbalance "imbalance/$NT" "$db" "$tr" $src "$L" "$NT" "$REPS"
    # hprof-query --threads: the work column (time less waits) per thread
    expect_truth "imbalance/$NT: --threads work per thread = its iterations as the program timed them" \
        "$(truth "$tr" work)" "$("$QUERY" "$db" --threads "$src:$L" --format csv 2>/dev/null |
            awk -F, 'NR > 1 { printf "%.3f\n", $5 * 1000 }')"
    # max/mean of the works: bounds from the program's works ± tolerance
    # (and the 2 decimals printed)
    read -r mid half < <(truth "$tr" work | awk -v r=$TRUTH_REL -v e=$TRUTH_EVENT_MS '{
            w = $1; t = r * w + e * $2; if (w > mx) { mx = w; tm = t } s += w; ts += t; n++ }
        END { lo = (mx - tm) / (s / n + ts / n); hi = (mx + tm) / (s / n - ts / n)
              printf "%.4f %.4f\n", (lo + hi) / 2, (hi - lo) / 2 + 0.005 }')
    expect_cmp "imbalance/$NT: --threads thread imbalance of work = max/mean of the program's works" within "$mid" \
        "$("$QUERY" "$db" --threads "$src:$L" 2>/dev/null | sed -n 's/^thread imbalance.* work \([0-9.]*\) .*/\1/p')" "$half"
}
# imb_checks NT - the run at NT threads and its checks (under `attempts`:
# a thread descheduled between the program's clock read and hprof's probe
# is the one move the program cannot see).
imb_checks() {
    NT=$1 db=$tmp/imb$1.hpf
    run imb$NT 1 "$NT" "$tmp/imb" || return 0
    expect_eq "imbalance/$NT: one region node per thread at $src:$L, $REPS regions each" \
        "$NT,$((NT * REPS))" "$(omp_nodes "$db" $src parallel "$L")"
    expect_eq "imbalance/$NT: implicit barrier under the region on every thread" \
        "$NT,$((NT * REPS))" "$(q "$db" "SELECT count(*), sum(st.count) $OMPJOIN
            JOIN node p ON p.id = n.parent JOIN site ps ON ps.id = p.site
            WHERE $(omp_where $src 'implicit barrier' "$L") AND ps.name = 'parallel' AND ps.line = $L")"
    imb_times
    imb_forkjoin
}
if build imb "$S/$src"; then
    for NT in 2 4; do
        attempts "imbalance/$NT" imb_checks $NT
    done
    # The plain binary with LD_PRELOAD: the same records.
    rm -f "$tmp/pre.hpf"
    HPROF_OUTPUT=$tmp/pre.hpf timeout 300 "$MPIRUN" -np 1 --bind-to none -x HPROF_OUTPUT \
        -x OMP_WAIT_POLICY -x OMP_NUM_THREADS=2 -x LD_PRELOAD="$LIBDIR/libhprof.so" \
        "$tmp/imb.plain" >"$tmp/pre.out" 2>"$tmp/pre.err" </dev/null || true
    check_profile "imbalance: LD_PRELOAD" "$tmp/pre.hpf"
    expect_eq "imbalance: LD_PRELOAD on the plain binary: region and implicit barrier per thread" \
        "2,$((2 * REPS));2,$((2 * REPS))" "$(omp_nodes "$tmp/pre.hpf" $src parallel "$L")
$(omp_nodes "$tmp/pre.hpf" $src 'implicit barrier' "$L")"
fi

# ---------------------------------------------------------------- critical
src=critical.c
HOLD=$(define_of "$S/$src" HOLD_MS)
LC=$(line_of "$S/$src" crit-critical)
LL=$(line_of "$S/$src" crit-lock)
# crit_checks - the run at 4 threads (a queueing of (0+1+2+3) x HOLD)
# and its checks (under `attempts`, as imb_checks).
crit_checks() {
    local NT=4 db=$tmp/crit.hpf tr=$tmp/crit.truth c b
    run crit 1 $NT "$tmp/crit" || return 0
    for c in "critical $LC crit" "lock $LL lock"; do
        set -- $c
        expect_eq "critical: $1 wait and hold once per thread at $src:$2" \
            "$NT,$NT;$NT,$NT" "$(omp_nodes "$db" $src "$1 wait" "$2")
$(omp_nodes "$db" $src "$1" "$2")"
        truth_hold critical "$db" "$tr" $src "$1" "$2" "$3" $NT "$HOLD"
    done
    for b in $(grep -n '#pragma omp barrier' "$S/$src" | cut -d: -f1); do
        expect_eq "critical: explicit barrier at $src:$b once per thread" "$NT" \
            "$(omp_sum "$db" $src barrier "$b" "$b" "sum(st.count)")"
    done
    expect_eq "critical: one single execution" "1" \
        "$(q "$db" "SELECT sum(st.count) $OMPJOIN WHERE s.kind = 'omp' AND s.name = 'single' AND s.file LIKE '%/$src'")"
}
if build crit "$S/$src"; then
    attempts critical crit_checks
fi

# ---------------------------------------------------------------- constructs
src=constructs.c
REPS=$(define_of "$S/$src" REPS)
NTASK=$(define_of "$S/$src" NTASK)
if build con "$S/$src"; then
    for NT in 2 4; do
        # 4 threads with nested parallelism on: the inner teams have 2 threads.
        if [ "$NT" = 4 ]; then LEVELS=2 inner=2; else LEVELS=1 inner=1; fi
        db=$tmp/con$NT.hpf
        run con$NT 1 $NT "$tmp/con" || continue
        grep -q "constructs: $NT threads" "$tmp/con$NT.out" ||
            notok "constructs/$NT: team of $NT" "$(head -1 "$tmp/con$NT.out")"
        n=$((REPS * NT))
        cnt() { omp_sum "$db" $src "$1" "$2" "${3:-$2}" "sum(st.count)"; }
        LREG=$(line_of "$S/$src" con-region)
        expect_eq "constructs/$NT: region count" "$n" "$(cnt parallel "$LREG")"
        # each single at its own line (gcc -O2 gives the call its neighbour's)
        expect_eq "constructs/$NT: single executions, one per region at each single's line" \
            "$REPS;$REPS;$REPS" "$(cnt single "$(line_of "$S/$src" con-single1)")
$(cnt single "$(line_of "$S/$src" con-single2)")
$(cnt single "$(line_of "$S/$src" con-tasks)")"
        expect_eq "constructs/$NT: explicit barrier once per thread and region" "$n" \
            "$(cnt barrier "$(line_of "$S/$src" con-barrier)")"
        L=$(line_of "$S/$src" con-dyn)
        expect_eq "constructs/$NT: end barrier of the dynamic loop (GOMP_loop_end) once per thread" "$n" \
            "$(cnt 'implicit barrier' "$L")"
        expect_eq "constructs/$NT: tasks created" "$((REPS * NTASK))" "$(cnt 'task create' "$(line_of "$S/$src" con-task)")"
        expect_eq "constructs/$NT: taskwaits" "$REPS" "$(cnt taskwait "$(line_of "$S/$src" con-taskwait)")"
        for m in con-crit-outer con-crit-inner; do
            L=$(line_of "$S/$src" $m)
            expect_eq "constructs/$NT: $m wait and hold once per thread and region" "$n;$n" \
                "$(cnt 'critical wait' "$L")
$(cnt critical "$L")"
        done
        L=$(line_of "$S/$src" con-nest-lock)
        expect_eq "constructs/$NT: nest lock set twice, held once per thread and region" "$n;$n;$n" \
            "$(cnt 'lock wait' "$L")
$(cnt 'lock wait' $((L + 1)))
$(cnt lock "$L")"
        expect_eq "constructs/$NT: omp_test_lock holds once per thread and region" "$n" \
            "$(cnt lock "$(line_of "$S/$src" con-test-lock)")"
        L=$(line_of "$S/$src" con-nested)
        # -O2 may key a tiny region by its body's first line.
        expect_eq "constructs/$NT: nested regions under the outer one, $inner thread(s) each" \
            "$((n * inner))" "$(q "$db" "SELECT sum(st.count) $OMPJOIN JOIN node p ON p.id = n.parent
                JOIN site ps ON ps.id = p.site WHERE $(omp_where $src parallel "$L" $((L + 2)))
                AND ps.name = 'parallel' AND ps.line = $LREG")"
        for m in con-pfor con-psections; do
            L=$(line_of "$S/$src" $m)
            expect_eq "constructs/$NT: $m region and its implicit barrier on every thread" "$n;$n" \
                "$(cnt parallel "$L")
$(cnt 'implicit barrier' "$L")"
        done
    done
    LEVELS=1
fi

# ---------------------------------------------------------------- tasks
# Task execution through GOMP_task's wrapped function: exact counts per
# construct (the outlined function's line: -O2 may key a tiny task by its
# body's first lines), task time > 0 and within the thread's
# region time, the firstprivate VLA (copy function), if(0) and aligned
# firstprivate tasks giving the same results.
src=tasks.c
VLAS=$(define_of "$S/$src" VLAS)
LR=$(line_of "$S/$src" tasks-region)
if build tasks "$S/$src"; then
    for NT in 1 2 4; do
        db=$tmp/tasks$NT.hpf
        run tasks$NT 1 $NT "$tmp/tasks" || continue
        out=$(cat "$tmp/tasks$NT.out")
        calls=$(sed -n 's/.*tasks per construct \([0-9]*\).*/\1/p' <<<"$out")
        grep -q "tasks: $NT threads" <<<"$out" || notok "tasks/$NT: team of $NT" "$out"
        vsum=$(awk -v nt=$NT -v v=$VLAS 'BEGIN { for (m = 0; m < nt; m++) for (k = 0; k < v; k++)
            for (i = 0; i < 100 + k; i++) s += i + m; print s }')
        expect_eq "tasks/$NT: VLA (copy function), if(0) and aligned tasks compute the right results" \
            "vla sum $vsum, if0 $((NT * (NT + 1) / 2)), misaligned 0" "$(sed -n 's/.*\(vla sum.*\)$/\1/p' <<<"$out")"
        cnt() { omp_sum "$db" $src "$1" "$2" "$3" "sum(st.count)"; }
        for m in tasks-a tasks-b; do
            L=$(line_of "$S/$src" $m)
            expect_eq "tasks/$NT: $m created and executed (exact, $calls)" "$calls;$calls" \
                "$(cnt 'task create' "$L" "$L");$(cnt task "$L" "$L")"
        done
        for m in "tasks-vla $((NT * VLAS))" "tasks-if0 $NT" "tasks-align $NT"; do
            set -- $m
            L=$(line_of "$S/$src" $1)
            expect_eq "tasks/$NT: $1 created and executed (exact, $2)" "$2;$2" \
                "$(cnt 'task create' "$L" "$L");$(cnt task "$L" "$L")"
        done
        expect_eq "tasks/$NT: taskwaits (exact)" "$calls" "$(cnt taskwait "$(line_of "$S/$src" tasks-wait)" "$(line_of "$S/$src" tasks-wait)")"
        La=$(line_of "$S/$src" tasks-a)
        expect_cmp "tasks/$NT: fib task execution time > 0 (ms)" gt 0 \
            "$(omp_sum "$db" $src task "$La" $((La + 3)) "round(sum(st.time) * 1000, 6)")"
        expect_eq "tasks/$NT: every task execution is recorded under the region node or nested in a task" "0" \
            "$(q "$db" "SELECT count(*) $OMPJOIN JOIN node p ON p.id = n.parent JOIN site ps ON ps.id = p.site
                WHERE s.kind = 'omp' AND s.name = 'task' AND s.file LIKE '%/$src'
                AND NOT (ps.name = 'parallel' AND ps.line = $LR) AND NOT (ps.kind = 'omp' AND ps.name = 'task')")"
        # per thread: the (inclusive) time of its outermost task executions <= its time in the region
        expect_eq "tasks/$NT: per thread, outermost task time <= region time" "0" \
            "$(q "$db" "WITH tk AS (SELECT st.rank, st.thread, sum(st.time) AS t $OMPJOIN
                    JOIN node p ON p.id = n.parent JOIN site ps ON ps.id = p.site
                    WHERE s.kind = 'omp' AND s.name = 'task' AND s.file LIKE '%/$src'
                    AND NOT (ps.kind = 'omp' AND ps.name = 'task') GROUP BY 1, 2),
                rg AS (SELECT st.rank, st.thread, sum(st.time) AS t $OMPJOIN WHERE $(omp_where $src parallel "$LR") GROUP BY 1, 2)
                SELECT count(*) FROM tk LEFT JOIN rg USING (rank, thread) WHERE rg.t IS NULL OR tk.t > rg.t")"
    done
fi

# ---------------------------------------------------------------- jacobi
src=jacobi.c
L=$(grep -n '#pragma omp parallel' "$srcdir/examples/$src" | cut -d: -f1)
if [ "$(printf '%s\n' "$L" | wc -l)" != 1 ]; then
    notok "jacobi: one parallel pragma" "found lines '$L'"
elif build jac "$srcdir/examples/$src" -lm; then
    db=$tmp/jac.hpf
    if run jac 2 2 "$tmp/jac" 256 50; then
        expect_eq "jacobi: the parallel loop at $src:$L, 2 threads on each of 2 ranks, one region per sweep" \
            "0,2,100;1,2,100" "$(q "$db" "SELECT st.rank, count(DISTINCT st.thread), sum(st.count)
                $OMPJOIN WHERE $(omp_where $src parallel "$L") GROUP BY st.rank ORDER BY st.rank")"
        expect_eq "jacobi: MPI call sites and the OpenMP region in the same tree (depth 1)" \
            "MPI_Allreduce,1;MPI_Sendrecv,1;parallel,1" "$(q "$db" "SELECT DISTINCT s.name, n.depth $OMPJOIN
                WHERE s.name IN ('MPI_Sendrecv', 'MPI_Allreduce', 'parallel') AND s.file LIKE '%/$src' ORDER BY 1")"
        expect_eq "jacobi: implicit barrier below the region on every thread" "4" \
            "$(q "$db" "SELECT count(*) $OMPJOIN WHERE $(omp_where $src 'implicit barrier' "$L") AND n.depth = 2")"
    fi
fi

# ---------------------------------------------------------------- loss of parallelism
# The master alone for SERIAL_MS while its other thread idles: the summary's
# loss of parallelism is the master's time alone x (NT - 1) thread-seconds:
# at least as long as the program timed it alone (from main's start, so
# MPI_Init_thread's own time, serial too, with it), at most the rank's wall
# less the master's work in the region (its own clock; the wall window
# starts with the process, before main).
src=serial_part.c
if build sp "$S/$src"; then
    if run sp 1 2 "$tmp/sp"; then
        wall=$(q "$tmp/sp.hpf" "SELECT wall FROM rank WHERE rank = 0")
        got=$(sed -n 's/.*loss of parallelism .*: \([0-9.]*\) thread-s).*/\1/p' "$tmp/sp.err")
        expect_truth_range "loss of parallelism (summary, ms): between the master's time alone x 1 idle thread and (wall - its work in the region) x 1, by its own clock" \
            "$(awk -v a="$(truth_by "$tmp/sp.truth" alone 0 | cut -d' ' -f1)" -v w="$wall" \
                -v k="$(truth_by "$tmp/sp.truth" work 0 | cut -d' ' -f1)" 'BEGIN { printf "%.3f %.3f 2\n", a, w * 1000 - k }')" \
            "$(awk -v g="$got" 'BEGIN { printf "%.3f", g * 1000 }')"
    fi
fi

# ---------------------------------------------------------------- pragmas only, --as-needed
# A program that uses OpenMP only through pragmas needs from libgomp only
# GOMP_* symbols libhprof defines: Debian's --as-needed then drops libgomp.
# hprof must load it itself, so the program still runs its team.
src=$srcdir/tests/ompt/src/fib.c
if OMPI_CC=gcc "$MPICC" -fopenmp -g -O2 "$src" -o "$tmp/po" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" 2>"$tmp/po.cc" &&
    OMPI_CC=gcc "$MPICC" -fopenmp -g -O2 "$src" -o "$tmp/po.plain" 2>>"$tmp/po.cc"; then
    LEVELS=1
    if run po 1 2 "$tmp/po"; then
        expect_eq "pragmas only: the region runs on 2 threads although libgomp was not linked ($(readelf -d "$tmp/po" | grep -c 'NEEDED.*libgomp') NEEDED)" \
            2 "$(q "$tmp/po.hpf" "SELECT count(DISTINCT st.thread) $OMPJOIN WHERE s.kind = 'omp' AND s.name = 'parallel'")"
    fi
else
    notok "pragmas only: build" "$(head -3 "$tmp/po.cc" | oneline)"
fi

# ---------------------------------------------------------------- ordered, atomic, flush
# ordered.c at 4 threads: ITERS/NT ordered holds and waits per thread,
# their times and --threads' work column (region less waits) against the
# program's own measurement (ordered.c's header), the holds >= ITERS x
# HOLD; thread t's ATOMICS x (t+1) long double updates through
# GOMP_atomic_start/end (exact); flush is a fence: no record; --threads
# lists ord_wait, ord_hold, atomics (not flushes).
src=ordered.c
HOLD=$(define_of "$S/$src" HOLD_MS)
ITERS=$(define_of "$S/$src" ITERS)
ATOMICS=$(define_of "$S/$src" ATOMICS)
LR=$(line_of "$S/$src" ord-region)
LO=$(line_of "$S/$src" ord-ordered)
LA=$(line_of "$S/$src" ord-atomic)
ord_checks() {
    local NT=4 db=$tmp/ord.hpf tr=$tmp/ord.truth hdr
    run ord 1 $NT "$tmp/ord" || return 0
    expect_eq "ordered: program output" \
        "ordered: $NT threads, $ITERS iterations in order 1, atomic sum $((ATOMICS * NT * (NT + 1) / 2))" \
        "$(cat "$tmp/ord.out")"
    # at the ordered construct's line (gcc -O2 gives the calls the loop's or the body's)
    cnt() { q "$db" "SELECT sum(st.count) $OMPJOIN WHERE $(omp_where $src "$1" "$2")
                     GROUP BY st.rank, st.thread ORDER BY 1"; }
    tot() { omp_sum "$db" $src "$1" "$2" "$2" "round(sum(st.time) * 1000, 3)"; }
    expect_eq "ordered: ordered wait and hold $((ITERS / NT)) times per thread" \
        "$(for ((i = 0; i < 2 * NT; i++)); do echo $((ITERS / NT)); done)" \
        "$(cnt 'ordered wait' "$LO")
$(cnt ordered "$LO")"
    expect_eq "ordered: the program timed $((ITERS / NT)) ordered waits and holds on each of $NT threads" \
        "$(for ((i = 0; i < 2 * NT; i++)); do echo $((ITERS / NT)); done)" \
        "$(truth_counts "$tr" ord_wait; truth_counts "$tr" ord_hold)"
    # a spin of HOLD_MS wall time: load can lengthen a hold, never shorten it
    expect_cmp "ordered: total hold >= ITERS x HOLD = $((ITERS * HOLD)) ms" ge $((ITERS * HOLD)) "$(tot ordered "$LO")"
    expect_truth "ordered: hold per thread = the program's time inside its ordered blocks" \
        "$(truth "$tr" ord_hold)" "$(omp_times "$db" $src ordered "$LO")"
    expect_truth "ordered: wait per thread = the program's time from its iterations' start to inside the blocks" \
        "$(truth "$tr" ord_wait)" "$(omp_times "$db" $src 'ordered wait' "$LO")"
    expect_eq "ordered: atomic updates per thread ATOMICS x (1..$NT) (GOMP_atomic_start/end, exact)" \
        "$(for ((i = 1; i <= NT; i++)); do echo $((ATOMICS * i)); done)" "$(cnt atomic "$LA")"
    expect_eq "ordered: no flush record (gcc emits a fence)" "0" \
        "$(q "$db" "SELECT count(*) $OMPJOIN WHERE s.kind = 'omp' AND s.name = 'flush'")"
    # col NAME - a column of `--threads` (csv) of the region, one row per thread.
    col() { "$QUERY" "$db" --threads "$src:$LR" --format csv 2>/dev/null |
        awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print k ? $k : "no column " c }'; }
    hdr=$("$QUERY" "$db" --threads "$src:$LR" --format csv 2>/dev/null | head -1)
    expect_eq "ordered: --threads lists ord_wait, ord_hold, atomics and no flushes" \
        "ord_wait,ord_hold,atomics" "$(tr ',' '\n' <<<"$hdr" | grep -E '^(ord_|atomics|flushes)' | oneline | tr ';' ',')"
    expect_eq "ordered: --threads atomics per thread" \
        "$(for ((i = 1; i <= NT; i++)); do echo $((ATOMICS * i)); done)" \
        "$(col atomics | sort -n)"
    # work = region less waits: the program's region time less the times
    # it may have waited (ordered.c's header); its events: the region's two
    # ends, the single, the ITERS/NT ordered waits and the barrier
    expect_truth "ordered: --threads work per thread = the program's region time less its waits" \
        "$(truth "$tr" work | awk -v e=$((ITERS / NT + 4)) '{ print $1, e }')" "$(col work | awk '{ printf "%.3f\n", $1 * 1000 }')"
    expect_truth "ordered: --threads ord_wait per thread = the program's" \
        "$(truth "$tr" ord_wait)" "$(col ord_wait | awk '{ printf "%.3f\n", $1 * 1000 }')"
}
if build ord "$S/$src"; then
    # (grep -q on a pipe would end objdump early: a SIGPIPE under pipefail)
    objdump -d "$tmp/ord" >"$tmp/ord.dis" 2>&1 || true
    if grep -q 'call.*<GOMP_atomic_start@plt>' "$tmp/ord.dis"; then
        ok "ordered: gcc calls GOMP_atomic_start for the long double update"
    else
        notok "ordered: gcc calls GOMP_atomic_start for the long double update" "not in objdump -d"
    fi
    attempts ordered ord_checks
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
