#!/bin/bash
# tests/pomp2/run.sh - POMP2 compatibility (libhprof/sources/pomp2_*.c): the
# ground-truth programs tests/omp/src/imbalance.c and critical.c are
# instrumented with Debian's opari2 (`opari2 F.c F.mod.c`, the init file
# from `opari2-config --nm` | `--region-initialization`), built with
# `OMPI_CC=gcc mpicc -fopenmp $(opari2-config --cflags)` against -lhprof,
# run under mpirun, and checked through `hprof-query DB --sql`:
#  - the sites come from the ctc strings: static sites (no debug info) at
#    the pragma's file and line (the MARK lines) with the construct's end
#    line;
#  - every event counted once: exactly one "parallel" site for the region
#    (the GOMP interposition stands down), the counts exact;
#  - imbalance.c (2 threads): per-thread region time less its implicit
#    barrier, the barrier wait and the master's fork + region + join
#    against the program's own measurement (tests/truth.sh: 2% + 0.5 ms
#    per event), in the opari2 build, the tier-0 GOMP run of the
#    unmodified program (-lhprof without opari2) and the hprof-cc build;
#  - critical.c (4 threads): critical and lock wait and hold per thread
#    against the program's own measurement in both runs, holds >= NT x
#    HOLD, barrier and single counts;
#  - ordered.c (4 threads): ordered wait and hold per thread against the
#    program's own measurement in both runs, holds >= ITERS x HOLD, exact
#    atomic and flush counts per thread, the atomic counts equal to the
#    tier-0 GOMP run's, and those columns in hprof-query --threads;
#  - identical stdout with and without hprof (opari2-instrumented, and the
#    plain program without either).
#
# usage: tests/pomp2/run.sh [BUILDDIR]   (default: the current directory).
# Env: MPICC, MPIRUN, HPROF_KEEP_TMP=1.  Prints "ok - NAME" / "not ok -
# NAME: ..." per check and a last line "N passed, M failed".
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
S=$srcdir/tests/omp/src

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/truth.sh"

if ! command -v opari2 >/dev/null || ! command -v opari2-config >/dev/null; then
    skipped "POMP2 tests" "opari2 not installed"
    echo "$pass passed, $fail failed"
    exit 0
fi
if ! command -v "$MPICC" >/dev/null; then
    skipped "POMP2 tests" "no $MPICC"
    echo "$pass passed, $fail failed"
    exit 0
fi
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_WAIT_POLICY=passive
export OMPI_CC=gcc

test_tmpdir pomp2
# (-I: the programs of tests/omp/src include truth.h, and build copies them)
CFLAGS="-fopenmp -g -O2 -I$S"
P2CFLAGS=$(opari2-config --cflags)

# build NAME SRC - in $tmp: NAME (opari2-instrumented, -lhprof), NAME.gomp
# (unmodified, -lhprof: tier 0) and NAME.plain (unmodified, no hprof).
build() {
    local name=$1 src=$2 b
    b=$(basename "$src" .c)
    cp "$src" "$tmp/$b.c"
    if (cd "$tmp" && opari2 "$b.c" "$b.mod.c" &&
        "$MPICC" $CFLAGS $P2CFLAGS -c "$b.mod.c" -o "$b.mod.o" &&
        $(opari2-config --nm) "$b.mod.o" | $(opari2-config --region-initialization) >"$b.init.c" &&
        "$MPICC" $CFLAGS $P2CFLAGS -c "$b.init.c" -o "$b.init.o" &&
        "$MPICC" $CFLAGS "$b.mod.o" "$b.init.o" -o "$name" -L"$LIBDIR" -lhprof \
            -Wl,-rpath,"$LIBDIR" &&
        "$MPICC" $CFLAGS "$b.c" -o "$name.gomp" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" &&
        "$MPICC" $CFLAGS "$b.c" -o "$name.plain") >"$tmp/$name.cc" 2>&1; then
        if grep -q POMP2_Parallel_fork "$tmp/$b.mod.c"; then
            ok "$name: opari2-instrumented build against -lhprof"
        else
            notok "$name: opari2-instrumented build against -lhprof" "no POMP2 calls in $b.mod.c"
            return 1
        fi
    else
        notok "$name: opari2-instrumented build against -lhprof" "$(tail -5 "$tmp/$name.cc" | oneline)"
        return 1
    fi
}

# run NAME NT PROG - profile $tmp/NAME.hpf, stdout $tmp/NAME.out, the
# program's own measurement $tmp/NAME.truth (tests/truth.sh).
run() {
    local name=$1 nt=$2 prog=$3 rc=0
    rm -f "$tmp/$name.hpf" "$tmp/$name.db" "$tmp/$name.truth"
    HPROF_OUTPUT=$tmp/$name.hpf HPROF_TEST_TRUTH=$tmp/$name.truth timeout 300 "$MPIRUN" -np 1 --bind-to none \
        -x HPROF_OUTPUT -x HPROF_TEST_TRUTH -x OMP_WAIT_POLICY -x OMP_NUM_THREADS="$nt" \
        "$prog" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || rc=$?
    if [ "$rc" != 0 ] || [ ! -s "$tmp/$name.hpf" ]; then
        notok "$name: runs and writes a profile" "exit $rc: $(tail -3 "$tmp/$name.err" | oneline)"
        return 1
    fi
    ok "$name: runs and writes a profile"
    check_profile "$name" "$tmp/$name.hpf"
}

# same_output NAME NT - the plain program prints what the instrumented one did.
same_output() {
    local name=$1 nt=$2 rc=0
    timeout 300 "$MPIRUN" -np 1 --bind-to none -x OMP_WAIT_POLICY -x OMP_NUM_THREADS="$nt" \
        "$tmp/$name.plain" >"$tmp/$name.plain.out" 2>"$tmp/$name.plain.err" </dev/null || rc=$?
    if [ "$rc" = 0 ] && cmp -s "$tmp/$name.out" "$tmp/$name.plain.out" &&
        cmp -s "$tmp/$name.gomp.out" "$tmp/$name.plain.out"; then
        ok "$name: same stdout opari2+hprof, tier-0 hprof and plain"
    else
        notok "$name: same stdout opari2+hprof, tier-0 hprof and plain" \
            "exit $rc; '$(head -2 "$tmp/$name.out" | oneline)' vs '$(head -2 "$tmp/$name.plain.out" | oneline)'"
    fi
}

omp_where() { echo "s.kind = 'omp' AND s.name = '$2' AND s.file LIKE '%/$1' AND s.line = $3"; }
omp_nodes() { q "$1" "SELECT count(*), coalesce(sum(st.count), 0) $OMPJOIN WHERE $(omp_where "$2" "$3" "$4")"; }
omp_total() { q "$1" "SELECT coalesce(round(sum(st.time) * 1000, 3), 0) $OMPJOIN WHERE $(omp_where "$2" "$3" "$4")"; }
omp_times() {
    q "$1" "SELECT round(st.time * 1000, 3) $OMPJOIN WHERE st.rank = 0 AND $(omp_where "$2" "$3" "$4") ORDER BY st.time"
}
# nsites DB FILE NAME - how many sites of construct NAME the file has.
nsites() { q "$1" "SELECT count(*) FROM site s WHERE s.kind = 'omp' AND s.name = '$3' AND s.file LIKE '%/$2'"; }

# compare NAME A-LIST B-LIST TOL-ABS - element-wise |a - b| <= TOL-ABS.
compare() {
    local name=$1 a=$2 b=$3 tol=$4
    if [ "$(printf '%s\n' "$a" | awk 'NF' | wc -l)" != "$(printf '%s\n' "$b" | awk 'NF' | wc -l)" ]; then
        notok "$name" "'$(printf '%s' "$a" | oneline)' vs '$(printf '%s' "$b" | oneline)'"
        return
    fi
    if paste <(printf '%s\n' "$a") <(printf '%s\n' "$b") |
        awk -v t="$tol" '{ d = $1 - $2; if (d < 0) d = -d; if (d > t) bad = 1 } END { exit bad }'; then
        ok "$name"
    else
        notok "$name" "POMP2 '$(printf '%s' "$a" | oneline)' vs GOMP '$(printf '%s' "$b" | oneline)' (tolerance $tol ms)"
    fi
}

# ---------------------------------------------------------------- imbalance
src=imbalance.c
STEP=$(define_of "$S/$src" STEP_MS)
REPS=$(define_of "$S/$src" REPS)
L=$(line_of "$S/$src" imb-region)
LE=$(awk -v l="$L" 'NR > l && /^        }$/ { print NR; exit }' "$S/$src")
# imb_truth LABEL DB TRUTH - truth_imbalance (tests/truth.sh) of the region.
imb_truth() { truth_imbalance "$1" "$2" "$3" $src "$L" "$NT" "$REPS"; }
# imb_checks - one run of each build and its checks, under attempts (a
# thread descheduled between the program's clock read and hprof's probe
# is the one move the program cannot see).
imb_checks() {
    local NT=2 db=$tmp/imb.hpf gdb=$tmp/imb.gomp.hpf
    if run imb $NT "$tmp/imb" && run imb.gomp $NT "$tmp/imb.gomp"; then
        same_output imb $NT
        expect_eq "imbalance: the region is a static site from the ctc string at $src:$L-$LE" \
            "parallel,$L,$LE,0" "$(q "$db" "SELECT s.name, s.line, s.end_line, s.flags & 1 FROM site s
                WHERE s.kind = 'omp' AND s.name = 'parallel' AND s.file LIKE '%/$src'")"
        expect_eq "imbalance: counted once: one parallel and one implicit barrier site" "1;1" \
            "$(nsites "$db" $src parallel)
$(nsites "$db" $src 'implicit barrier')"
        expect_eq "imbalance: one region node per thread, $REPS regions each" \
            "$NT,$((NT * REPS))" "$(omp_nodes "$db" $src parallel "$L")"
        expect_eq "imbalance: implicit barrier under the region on every thread" \
            "$NT,$((NT * REPS))" "$(q "$db" "SELECT count(*), sum(st.count) $OMPJOIN
                JOIN node p ON p.id = n.parent JOIN site ps ON ps.id = p.site
                WHERE $(omp_where $src 'implicit barrier' "$L") AND ps.name = 'parallel' AND ps.line = $L")"
        expect_eq "imbalance: fork and join on the master, once per region" \
            "1,$REPS;1,$REPS" "$(omp_nodes "$db" $src fork "$L")
$(omp_nodes "$db" $src join "$L")"
        imb_truth "imbalance" "$db" "$tmp/imb.truth"
        # the loop record (POMP2 only) = the iterations
        expect_truth "imbalance: loop per thread = its iterations as the program timed them" \
            "$(truth "$tmp/imb.truth" work)" "$(omp_times "$db" $src loop "$L")"
        imb_truth "imbalance, tier-0 GOMP run" "$gdb" "$tmp/imb.gomp.truth"
        expect_eq "imbalance: same counts as the tier-0 GOMP run" \
            "$(omp_nodes "$gdb" $src parallel "$L")" "$(omp_nodes "$db" $src parallel "$L")"
    fi
}
if build imb "$S/$src"; then
    attempts imbalance imb_checks
fi

# ---------------------------------------------------------------- critical
src=critical.c
HOLD=$(define_of "$S/$src" HOLD_MS)
LR=$(line_of "$S/$src" crit-region)
LC=$(line_of "$S/$src" crit-critical)
LL=$(line_of "$S/$src" crit-lock)
# crit_truth LABEL DB TRUTH NAME LINE Q - truth_hold (tests/truth.sh).
crit_truth() { truth_hold "$1" "$2" "$3" $src "$4" "$5" "$6" "$NT" "$HOLD"; }
# crit_checks - one run of each build and its checks (under attempts, as
# imb_checks).
crit_checks() {
    local NT=4 db=$tmp/crit.hpf gdb=$tmp/crit.gomp.hpf c b
    if run crit $NT "$tmp/crit" && run crit.gomp $NT "$tmp/crit.gomp"; then
        same_output crit $NT
        expect_eq "critical: sites from the ctc strings at the pragmas' lines, static" \
            "critical,$LC,0;critical wait,$LC,0;parallel,$LR,0" \
            "$(q "$db" "SELECT s.name, s.line, s.flags & 1 FROM site s WHERE s.kind = 'omp'
                AND s.name IN ('parallel', 'critical', 'critical wait') AND s.file LIKE '%/$src' ORDER BY 1")"
        expect_eq "critical: counted once: one site each for parallel, critical, critical wait, lock" \
            "1;1;1;1" "$(nsites "$db" $src parallel)
$(nsites "$db" $src critical)
$(nsites "$db" $src 'critical wait')
$(nsites "$db" $src lock)"
        expect_eq "critical: one region node per thread" "$NT,$NT" "$(omp_nodes "$db" $src parallel "$LR")"
        for c in "critical $LC crit" "lock $LL lock"; do
            set -- $c
            expect_eq "critical: $1 wait and hold once per thread at $src:$2" \
                "$NT,$NT;$NT,$NT" "$(omp_nodes "$db" $src "$1 wait" "$2")
$(omp_nodes "$db" $src "$1" "$2")"
            crit_truth "critical" "$db" "$tmp/crit.truth" "$@"
            crit_truth "critical, tier-0 GOMP run" "$gdb" "$tmp/crit.gomp.truth" "$@"
        done
        for b in $(grep -n '#pragma omp barrier' "$S/$src" | cut -d: -f1); do
            expect_eq "critical: explicit barrier at $src:$b once per thread" "$NT,$NT" \
                "$(omp_nodes "$db" $src barrier "$b")"
        done
        expect_eq "critical: one single execution" "1" \
            "$(q "$db" "SELECT sum(st.count) $OMPJOIN WHERE s.kind = 'omp' AND s.name = 'single' AND s.file LIKE '%/$src'")"
    fi
}
if build crit "$S/$src"; then
    attempts critical crit_checks
fi

# ---------------------------------------------------------------- hprof-instrument (POMP2)
# The same program instrumented by hprof-cc, whose OpenMP rewriting emits
# the POMP2 calls opari2 emits: each event once, the times against the
# program's own measurement as for the opari2 build.
HPCC=$builddir/instrument/hprof-cc
src=imbalance.c
hpi_checks() {
    local NT=2 hdb
    if run imb.hpi $NT "$tmp/imb.hpi"; then
        hdb=$tmp/imb.hpi.hpf
        expect_eq "hprof-instrument imbalance: counted once: one parallel and one implicit barrier site" "1;1" \
            "$(nsites "$hdb" $src parallel)
$(nsites "$hdb" $src 'implicit barrier')"
        imb_truth "hprof-instrument imbalance" "$hdb" "$tmp/imb.hpi.truth"
        cmp -s "$tmp/imb.hpi.out" "$tmp/imb.out" && ok "hprof-instrument imbalance: same stdout" ||
            notok "hprof-instrument imbalance: same stdout" "$(head -2 "$tmp/imb.hpi.out" | oneline)"
    fi
}
if [ -x "$HPCC" ] && [ -s "$tmp/imb.hpf" ]; then
    L=$(line_of "$S/$src" imb-region)
    if HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir "$HPCC" "$MPICC" $CFLAGS "$S/$src" -o "$tmp/imb.hpi" \
        -L"$LIBDIR" -Wl,-rpath,"$LIBDIR" 2>"$tmp/imb.hpi.cc" && ! grep -q warning "$tmp/imb.hpi.cc"; then
        ok "imbalance: hprof-cc build with POMP2 rewriting, no warnings"
        attempts "hprof-instrument imbalance" hpi_checks
    else
        notok "imbalance: hprof-cc build with POMP2 rewriting, no warnings" "$(head -3 "$tmp/imb.hpi.cc" | oneline)"
    fi
fi

# ---------------------------------------------------------------- ordered, atomic, flush
# ordered.c at 4 threads through opari2: the ordered wait (enter..begin)
# and hold (begin..end), atomic (enter..exit) and flush sites from the ctc
# strings, each counted once; waits and holds per thread against the
# program's own measurement in this and the tier-0 GOMP run, holds >=
# ITERS x HOLD; exact atomic and flush counts per thread, ATOMICS and
# FLUSHES x (t+1), the atomic counts equal to GOMP's
# (GOMP_atomic_start/end); and all four columns in hprof-query --threads.
src=ordered.c
HOLD=$(define_of "$S/$src" HOLD_MS)
ITERS=$(define_of "$S/$src" ITERS)
ATOMICS=$(define_of "$S/$src" ATOMICS)
FLUSHES=$(define_of "$S/$src" FLUSHES)
LR=$(line_of "$S/$src" ord-region)
LO=$(line_of "$S/$src" ord-ordered)
LA=$(line_of "$S/$src" ord-atomic)
LF=$(line_of "$S/$src" ord-flush)
# per_thread DB NAME LINE FIRST [LAST] - counts per thread, ascending
# (the tier-0 GOMP run keys a call by a neighbouring line: FIRST..LAST).
per_thread() {
    q "$1" "SELECT sum(st.count) $OMPJOIN WHERE s.kind = 'omp' AND s.name = '$2' AND s.file LIKE '%/$src'
            AND s.line BETWEEN $3 AND ${4:-$3} GROUP BY st.rank, st.thread ORDER BY 1"
}
ord_total() {
    q "$1" "SELECT coalesce(round(sum(st.time) * 1000, 3), 0) $OMPJOIN WHERE s.kind = 'omp' AND s.name = '$2'
            AND s.file LIKE '%/$src' AND s.line BETWEEN $3 AND ${4:-$3}"
}
upto() { for ((i = 1; i <= $1; i++)); do echo $(($2 * i)); done; }
times() { for ((i = 0; i < $1; i++)); do echo "$2"; done; }
# ord_times DB NAME FIRST LAST - per-thread times (ms) of rank 0.
ord_times() {
    q "$1" "SELECT round(sum(st.time) * 1000, 3) $OMPJOIN WHERE st.rank = 0 AND s.kind = 'omp' AND s.name = '$2'
            AND s.file LIKE '%/$src' AND s.line BETWEEN $3 AND $4 GROUP BY st.thread ORDER BY 1"
}
# ord_truth LABEL DB TRUTH FIRST LAST - ordered waits and holds per thread
# against the program's own measurement (ordered.c's header,
# tests/truth.sh); the holds, spins of HOLD wall time, >= ITERS x HOLD.
ord_truth() {
    expect_eq "$1: the program timed $((ITERS / NT)) ordered waits and holds on each of $NT threads" \
        "$(times $((2 * NT)) $((ITERS / NT)))" "$(truth_counts "$3" ord_wait; truth_counts "$3" ord_hold)"
    expect_truth "$1: hold per thread = the program's time inside its ordered blocks" \
        "$(truth "$3" ord_hold)" "$(ord_times "$2" ordered "$4" "$5")"
    expect_truth "$1: wait per thread = the program's time from its iterations' start to inside the blocks" \
        "$(truth "$3" ord_wait)" "$(ord_times "$2" 'ordered wait' "$4" "$5")"
    expect_cmp "$1: total hold >= ITERS x HOLD = $((ITERS * HOLD)) ms" ge $((ITERS * HOLD)) \
        "$(ord_total "$2" ordered "$4" "$5")"
}
ord_checks() {
    local NT=4 db=$tmp/ord.hpf gdb=$tmp/ord.gomp.hpf hdr
    run ord $NT "$tmp/ord" && run ord.gomp $NT "$tmp/ord.gomp" || return 0
    same_output ord $NT
    expect_eq "ordered: program output" \
        "ordered: $NT threads, $ITERS iterations in order 1, atomic sum $((ATOMICS * NT * (NT + 1) / 2))" \
        "$(cat "$tmp/ord.out")"
    expect_eq "ordered: sites from the ctc strings at the pragmas' lines, static, one each" \
        "atomic,$LA,0;flush,$LF,0;ordered,$LO,0;ordered wait,$LO,0" \
        "$(q "$db" "SELECT s.name, s.line, s.flags & 1 FROM site s WHERE s.kind = 'omp'
            AND s.name IN ('ordered', 'ordered wait', 'atomic', 'flush') AND s.file LIKE '%/$src' ORDER BY 1")"
    expect_eq "ordered: ordered wait and hold $((ITERS / NT)) times per thread" \
        "$(times $((2 * NT)) $((ITERS / NT)))" \
        "$(per_thread "$db" 'ordered wait' "$LO")
$(per_thread "$db" ordered "$LO")"
    ord_truth "ordered" "$db" "$tmp/ord.truth" "$LO" "$LO"
    ord_truth "ordered, tier-0 GOMP run" "$gdb" "$tmp/ord.gomp.truth" $((LO - 1)) $((LO + 2))
    expect_eq "ordered: atomic updates per thread ATOMICS x (1..$NT) (exact)" "$(upto $NT "$ATOMICS")" \
        "$(per_thread "$db" atomic "$LA")"
    expect_eq "ordered: the same atomic counts as the tier-0 GOMP run" "$(per_thread "$gdb" atomic $((LA - 1)) $((LA + 1)))" \
        "$(per_thread "$db" atomic "$LA")"
    expect_eq "ordered: flushes per thread FLUSHES x (1..$NT) (exact)" "$(upto $NT "$FLUSHES")" \
        "$(per_thread "$db" flush "$LF")"
    hdr=$("$QUERY" "$db" --threads "$src:$LR" --format csv 2>/dev/null | head -1)
    expect_eq "ordered: --threads lists ord_wait, ord_hold, atomics and flushes" \
        "ord_wait,ord_hold,atomics,flushes" "$(tr ',' '\n' <<<"$hdr" | grep -E '^(ord_|atomics|flushes)' | oneline | tr ';' ',')"
    expect_eq "ordered: --threads flushes per thread" "$(upto $NT "$FLUSHES")" \
        "$("$QUERY" "$db" --threads "$src:$LR" --format csv 2>/dev/null |
            awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "flushes") k = i; next } { print k ? $k : "none" }' | sort -n)"
}
if build ord "$S/$src"; then
    attempts ordered ord_checks
fi

# ---------------------------------------------------------------- nesting
# nesting.c at 2 threads, opari2 (POMP2) and tier 0 (GOMP): what a
# construct's body records lies below the construct (rule a of
# hprof-query --check, which passes on both profiles):
#  - the user region "in_critical" once per thread below the "critical"
#    hold at MARK nest-critical, in both builds; "in_lock" once per thread
#    below the "lock" hold at MARK nest-lock;
#  - the loop's critical hold (MARK nest-loop-critical) once per thread,
#    below the "loop" node (POMP2) or the region (GOMP: no loop record);
#  - one "single" execution; the task's creation below the single's node
#    (POMP2) or the region (GOMP: single is the time of its call); one
#    task execution;
#  - the times of those holds, user regions and the task per thread
#    against the program's own measurement (tests/truth.sh).
src=nesting.c
LR=$(line_of "$S/$src" nest-region)
LK=$(line_of "$S/$src" nest-lock)
LC=$(line_of "$S/$src" nest-critical)
LL=$(line_of "$S/$src" nest-loop)
LLC=$(line_of "$S/$src" nest-loop-critical)
LS=$(line_of "$S/$src" nest-single)
LT=$(line_of "$S/$src" nest-task)
# below DB CHILD LINES PARENT LINES - "nodes,calls" of the records of
# CHILD (an OpenMP construct or a user region) at LINES ("A AND B") whose
# parent node is construct PARENT at LINES (the tier-0 GOMP run keys some
# constructs by a neighbouring line: a range).
below() {
    q "$1" "SELECT count(*), coalesce(sum(st.count), 0) FROM stat st JOIN node n ON n.id = st.node
            JOIN site s ON s.id = n.site JOIN node p ON p.id = n.parent JOIN site ps ON ps.id = p.site
            WHERE s.name = '$2' AND (s.kind = 'region' OR s.line BETWEEN $3)
            AND ps.kind = 'omp' AND ps.name = '$4' AND ps.line BETWEEN $5 AND ps.file LIKE '%/$src'"
}
# times_of DB NAME LINES - the per-thread times of NAME at LINES, in ms.
times_of() {
    q "$1" "SELECT round(st.time * 1000, 3) FROM stat st JOIN node n ON n.id = st.node
            JOIN site s ON s.id = n.site WHERE s.name = '$2' AND (s.kind = 'region' OR s.line BETWEEN $3)
            AND (s.kind = 'region' OR s.file LIKE '%/$src') ORDER BY 1"
}
# by_truth NAME Q TIMES - the times (ms, one per thread) against the
# program's own measurement of quantity Q in ${1%.hpf}.truth's run
# (nesting.c's header, tests/truth.sh).
by_truth() {
    expect_truth "$1 = the program's $2 time" "$(truth "$tr" "$2")" "$3"
}
nest_checks() {
    local NT=2 db=$tmp/nest.hpf gdb=$tmp/nest.gomp.hpf d crit loop tr c
    run nest $NT "$tmp/nest" && run nest.gomp $NT "$tmp/nest.gomp" || return 0
    same_output nest $NT
    expect_eq "nesting: program output" \
        "nesting: $NT critical entries, $NT lock holds, $NT loop iterations, 1 task" \
        "$(cat "$tmp/nest.out")"
    for d in "$db $LC $LLC $LL loop" "$gdb $((LC - 1)) $((LLC - 1)) $LR parallel"; do
        set -- $d
        tr=${1%.hpf}.truth
        expect_eq "nesting: $(basename "$1"): the program timed each hold, user region and the task" \
            "$NT;$NT;$NT;$NT;$NT;1" "$(for c in critical in_critical lock in_lock loop_critical task; do
                truth_counts "$tr" $c | awk '{ s += $1 } END { print s + 0 }'; done)"
        crit="$2 AND $((LC + 2))"
        expect_eq "nesting: $(basename "$1"): in_critical once per thread below the critical hold" \
            "$NT,$NT" "$(below "$1" in_critical "0 AND 0" critical "$crit")"
        by_truth "nesting: $(basename "$1"): critical hold" critical "$(times_of "$1" critical "$crit")"
        by_truth "nesting: $(basename "$1"): in_critical" in_critical "$(times_of "$1" in_critical "0 AND 0")"
        expect_eq "nesting: $(basename "$1"): in_lock once per thread below the lock hold" \
            "$NT,$NT" "$(below "$1" in_lock "0 AND 0" lock "$LK AND $LK")"
        by_truth "nesting: $(basename "$1"): lock hold" lock "$(times_of "$1" lock "$LK AND $LK")"
        by_truth "nesting: $(basename "$1"): in_lock" in_lock "$(times_of "$1" in_lock "0 AND 0")"
        loop="$4 AND $((LL + 2))"
        [ "$5" = parallel ] && loop="$LR AND $LR"
        expect_eq "nesting: $(basename "$1"): the loop's critical hold once per thread below $5" \
            "$NT,$NT" "$(below "$1" critical "$3 AND $((LLC + 2))" "$5" "$loop")"
        by_truth "nesting: $(basename "$1"): loop's critical hold" loop_critical \
            "$(times_of "$1" critical "$3 AND $((LLC + 2))")"
        by_truth "nesting: $(basename "$1"): task execution" task \
            "$(times_of "$1" task "$((LT - 1)) AND $((LT + 2))")"
        expect_eq "nesting: $(basename "$1"): one single execution" "1" \
            "$(q "$1" "SELECT sum(st.count) $OMPJOIN WHERE s.kind = 'omp' AND s.name = 'single'
                AND s.file LIKE '%/$src'")"
    done
    expect_eq "nesting: nest.hpf: the task's creation below the single" "1,1" \
        "$(below "$db" 'task create' "$LT AND $LT" single "$LS AND $LS")"
    expect_eq "nesting: nest.gomp.hpf: the task's creation below the region" "1,1" \
        "$(below "$gdb" 'task create' "$((LT - 1)) AND $((LT + 2))" parallel "$LR AND $LR")"
}
if build nest "$S/$src"; then
    attempts nesting nest_checks
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
