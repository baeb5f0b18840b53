#!/bin/bash
# tests/counters/run.sh - hardware counters per node (HPROF_COUNTERS) end
# to end: run, profile (CNTR section), hprof-merge's counter table.
#   - tests/counters/fake.c with the fake back end (HPROF_COUNTERS_FAKE=1,
#     HPROF_COUNTERS=A,B,UNAVAILABLE_C, 2 ranks, 2 threads each): the exact
#     values its header states, per node, per thread and per rank; the one
#     warning line naming UNAVAILABLE_C (printed by rank 0 only);
#   - tests/counters/pages.c with PAPI's perf_event software event
#     perf::PAGE-FAULTS: "touch" (2000 new pages) counts 2000..2064 page
#     faults per rank, "reuse" (the same pages again) at most 16; skipped
#     with a message where the event cannot be counted here;
#   - degradation: an unknown event beside it gives one warning line naming
#     it, the counting goes on; with no countable event at all, one line,
#     no counter rows; the program's stdout and exit status never change;
#   - tests/counters/tier1.c (tier 1, GOMP) with the fake back end: exact
#     values of procedures, call sites, a parallel region and its barriers
#     (waits) per thread;
#   - tests/counters/tier2.c (tier 2, hprof-cc) with the fake back end:
#     exact values of procedures, a call statement and a loop (the probes'
#     inline fast path stays unused with counters);
#   - hprof-query's counter columns and derived metrics, and the summary's
#     counter block, with the fake back end's exact values;
#   - an aggregated profile (HPROF_AGGREGATE=1) keeps no counters: the
#     listing's header and --flat say so in one line when the run counted
#     them (text only), and hprof-report's page; nothing when it did not.
# The programs call the user-region API, so they are built here against
# this tree's libhprof.
#
# usage: tests/counters/run.sh [BUILDDIR]   (default: the current directory)
#        Env: MPICC, MPIRUN, HPROF_KEEP_TMP=1 keeps the temp dir.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
S=$srcdir/tests/counters
. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir counters
unset HPROF_COUNTERS HPROF_COUNTERS_FAKE HPROF_COUNTERS_MULTIPLEX HPROF_FILTER
export HPROF_SUMMARY=off

build() {
    "$MPICC" -g -O1 -I"$srcdir/libhprof" "$S/$1.c" -o "$tmp/$1" -L"$LIBDIR" -lhprof \
        -Wl,-rpath,"$LIBDIR" -lpthread
}
build fake
build pages

# run NAME PROGRAM [VAR=VALUE...] - 2 ranks, profile $tmp/NAME.hpf, stdout
# $tmp/NAME.out, stderr $tmp/NAME.err, status in RC.
run() {
    local name=$1 prog=$2
    shift 2
    RC=0
    env "$@" HPROF_OUTPUT="$tmp/$name.hpf" timeout 300 "$MPIRUN" -np 2 "${MPIFLAGS[@]}" \
        -x HPROF_OUTPUT -x HPROF_SUMMARY -x HPROF_COUNTERS -x HPROF_COUNTERS_FAKE \
        -x HPROF_THROTTLE_CALLS -x HPROF_COUNTERS_MULTIPLEX -x HPROF_AGGREGATE "$tmp/$prog" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || RC=$?
}
# warnings NAME - the counter warning lines of run NAME
warnings() { grep -c 'HPROF_COUNTERS: not counted' "$tmp/$1.err" || true; }
# rows DB RANK - "thread,name,event,value" of every counter row of RANK
rows() {
    q "$1" "SELECT c.thread, s.name, c.event, c.value FROM counter c
            JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
            WHERE c.rank = $2 ORDER BY c.thread, s.name, c.event"
}
# value DB RANK REGION EVENT - a region's value on a rank (0 without a row)
value() {
    q "$1" "SELECT coalesce(sum(c.value), 0) FROM counter c JOIN node n ON n.id = c.node
            JOIN site s ON s.id = n.site WHERE c.rank = $2 AND s.name = '$3' AND c.event = '$4'"
}
# same_run NAME REFERENCE - stdout (sorted: ranks print in any order) and
# status as without counters
same_run() {
    expect_eq "$1: exit status unchanged" 0 "$RC"
    expect_eq "$1: stdout unchanged" "$(sort "$tmp/$2.out")" "$(sort "$tmp/$1.out")"
}

# ---- the fake back end: exact values
run fake_plain fake
run fake fake HPROF_COUNTERS=A,B,UNAVAILABLE_C HPROF_COUNTERS_FAKE=1 HPROF_THROTTLE_CALLS=0
same_run fake fake_plain
expect_eq "fake: one warning line" 1 "$(warnings fake)"
expect_eq "fake: it names UNAVAILABLE_C only" 1 \
    "$(grep 'HPROF_COUNTERS: not counted' "$tmp/fake.err" | grep -c ': UNAVAILABLE_C$' || true)"
check_profile fake "$tmp/fake.hpf"
"$builddir/analyzer/hprof-merge" -f -o "$tmp/fake.db" "$tmp/fake.hpf" >/dev/null
expected="0,MPI_Barrier,A,3
0,MPI_Barrier,B,6
0,inner,A,6
0,inner,B,12
0,outer,A,21
0,outer,B,42
1,inner,A,20
1,inner,B,40
1,worker,A,44
1,worker,B,88"
for r in 0 1; do
    expect_eq "fake: rank $r counter rows (per node and thread)" "$expected" "$(rows "$tmp/fake.db" $r)"
done
expect_eq "fake: plain run has no counter rows" 0 \
    "$("$builddir/analyzer/hprof-merge" -f -o "$tmp/plain.db" "$tmp/fake_plain.hpf" >/dev/null &&
       q "$tmp/plain.db" "SELECT count(*) FROM counter")"

# ---- an aggregated profile (HPROF_AGGREGATE=1) keeps no counters: the
# listing's header and --flat say so in one line when the run counted
# them, and nothing when it did not (or in CSV and JSON)
run fake_agg fake HPROF_COUNTERS=A,B HPROF_COUNTERS_FAKE=1 HPROF_THROTTLE_CALLS=0 HPROF_AGGREGATE=1
run plain_agg fake HPROF_AGGREGATE=1
check_profile "fake, aggregated" "$tmp/fake_agg.hpf"
check_profile "plain, aggregated" "$tmp/plain_agg.hpf"
note="counters:  counted (HPROF_COUNTERS), not kept: an aggregated profile (HPROF_AGGREGATE) has no counter columns; HPROF_AGGREGATE=0 keeps them"
notes() {
    local v n=""
    for v in "" "--flat" "--format csv" "--format json" "--flat --format csv"; do
        # shellcheck disable=SC2086
        n="$n$("$QUERY" "$1" $v 2>&1 | grep -cxF "$note" || true);"
    done
    echo "$n"
}
expect_eq "aggregated with counters: the listing and --flat say they are not kept, once (text only)" \
    "1;1;0;0;0;" "$(notes "$tmp/fake_agg.hpf")"
expect_eq "aggregated without counters, and the full profile with them: no such line" \
    "0;0;0;0;0;0;0;0;0;0;" "$(notes "$tmp/plain_agg.hpf")$(notes "$tmp/fake.db")"
expect_eq "aggregated with counters: no counter columns" "0" \
    "$("$QUERY" "$tmp/fake_agg.hpf" --flat --format csv | head -1 | grep -c ',A,B' || true)"
# hprof-report's page says it too, in one line under the run header
REPORT=$builddir/analyzer/hprof-report
cline='<p class="note" id="counters-dropped">Counters: counted (HPROF_COUNTERS), not kept: an aggregated profile (HPROF_AGGREGATE) has no counter columns; HPROF_AGGREGATE=0 keeps them.</p>'
for p in fake_agg plain_agg fake; do
    "$REPORT" "$tmp/$p.hpf" -o "$tmp/$p.html" >/dev/null 2>&1 || true
done
expect_eq "hprof-report: the aggregated page with counters says they are not kept, once; none without, nor the full page" \
    "1;0;0;yes" "$(grep -cxF "$cline" "$tmp/fake_agg.html" || true);$(grep -c 'counters-dropped' "$tmp/plain_agg.html" || true);$(grep -c 'counters-dropped' "$tmp/fake.html" || true);$([ -s "$tmp/fake.html" ] && echo yes)"

# ---- tier 1 (procedures and call sites) and an OpenMP region, exact
gcc -g -O0 -fopenmp -finstrument-functions "$S/tier1.c" -o "$tmp/tier1" -L"$LIBDIR" -lhprof \
    -Wl,-rpath,"$LIBDIR"
RC=0
# (its profile in the scratch directory: a default name would land in the
# directory make check runs in)
HPROF_OUTPUT="$tmp/tier1_plain.hpf" "$tmp/tier1" >"$tmp/tier1_plain.out" 2>"$tmp/tier1_plain.err" || RC=$?
check_profile tier1_plain "$tmp/tier1_plain.hpf"
HPROF_COUNTERS=A HPROF_COUNTERS_FAKE=1 HPROF_THROTTLE_CALLS=0 HPROF_OUTPUT="$tmp/tier1.hpf" \
    "$tmp/tier1" >"$tmp/tier1.out" 2>"$tmp/tier1.err" || RC=$?
same_run tier1 tier1_plain
check_profile tier1 "$tmp/tier1.hpf"
"$builddir/analyzer/hprof-merge" -f -o "$tmp/tier1.db" "$tmp/tier1.hpf" >/dev/null
T=$S/tier1.c
L=$(line_of "$T" LEAF) W=$(line_of "$T" TWICE) P=$(line_of "$T" PARALLEL)
B=$(line_of "$T" BARRIER)
expect_eq "tier1: procedures, call sites and the region, per thread" \
    "0,call,twice,$(line_of "$T" CALL-TWICE),33,3
0,procedure,twice,$W,27,3
0,call,leaf,$(line_of "$T" FIRST),9,3
0,procedure,leaf,$L,3,3
0,call,leaf,$(line_of "$T" SECOND),9,3
0,procedure,leaf,$L,3,3
0,omp,parallel,$P,9,1
0,call,leaf,$(line_of "$T" IN-REGION),3,1
0,procedure,leaf,$L,1,1
0,omp,barrier,$B,1,1
0,omp,implicit barrier,$P,1,1
1,omp,parallel,$P,9,1
1,call,leaf,$(line_of "$T" IN-REGION),3,1
1,procedure,leaf,$L,1,1
1,omp,barrier,$B,1,1
1,omp,implicit barrier,$P,1,1" \
    "$(q "$tmp/tier1.db" "SELECT c.thread, s.kind, s.name, s.line, c.value, st.count
        FROM counter c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
        JOIN stat st ON st.node = c.node AND st.rank = c.rank AND st.thread = c.thread
        WHERE s.name != 'main' ORDER BY c.thread, n.id")"

# ---- tier 2 (source probes; their inline fast path stays unused)
HPCC=$builddir/instrument/hprof-cc
if [ -x "$HPCC" ]; then
    RC=0
    HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir "$HPCC" --procedures=all --loops=all \
        gcc -g -O1 -c "$S/tier2.c" -o "$tmp/tier2.o" &&
        HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir "$HPCC" gcc "$tmp/tier2.o" -o "$tmp/tier2" ||
        RC=$?
    gcc -g -O1 "$S/tier2.c" -o "$tmp/tier2_plain" || RC=$?
    "$tmp/tier2_plain" >"$tmp/tier2_plain.out" 2>&1 || RC=$?
    HPROF_COUNTERS=A HPROF_COUNTERS_FAKE=1 HPROF_THROTTLE_CALLS=0 HPROF_OUTPUT="$tmp/tier2.hpf" \
        "$tmp/tier2" >"$tmp/tier2.out" 2>"$tmp/tier2.err" || RC=$?
    same_run tier2 tier2_plain
    "$builddir/analyzer/hprof-merge" -f -o "$tmp/tier2.db" "$tmp/tier2.hpf" >/dev/null
    expect_eq "tier2: procedures, call statement and loop" \
        "procedure,main,43,1
loop,for,41,1
call,leaf,30,10
procedure,leaf,10,10" \
        "$(q "$tmp/tier2.db" "SELECT s.kind, s.name, c.value, st.count
            FROM counter c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
            JOIN stat st ON st.node = c.node AND st.rank = c.rank AND st.thread = c.thread
            ORDER BY n.id")"
else
    skipped "tier2: procedures, call statement and loop" "instrumenter not built ($HPCC)"
fi

# ---- hprof-query's counter columns and derived metrics, fake values
# per interval: PAPI_TOT_CYC 1, PAPI_TOT_INS 2, PAPI_L2_TCM 3, PAPI_L2_TCA 4,
# so every node has IPC 2, 1500 L2 misses per 1000 instructions and an L2
# miss ratio of 0.75; outer over 2 ranks: 21 intervals x 2 = 42 cycles.
# csv_col CSV LABEL_PREFIX COLUMN - the column of the first row whose
# second field begins with LABEL_PREFIX (leading spaces ignored)
csv_col() {
    printf '%s\n' "$1" | awk -F, -v l="$2" -v c="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
        { f = $3; g = $2; sub(/^ +/, "", f); sub(/^ +/, "", g) }
        (index(g, l) == 1 || index(f, l) == 1) && k { print $k + 0; exit }'
}
run derived fake HPROF_COUNTERS=PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L2_TCM,PAPI_L2_TCA \
    HPROF_COUNTERS_FAKE=1 HPROF_THROTTLE_CALLS=0
"$builddir/analyzer/hprof-merge" -f -o "$tmp/derived.db" "$tmp/derived.hpf" >/dev/null
flat=$("$QUERY" "$tmp/derived.db" --flat --format csv)
tree=$("$QUERY" "$tmp/derived.db" --format csv)
got=""
for c in PAPI_TOT_CYC PAPI_TOT_INS PAPI_L2_TCM PAPI_L2_TCA IPC PAPI_L2_TCM/kins \
    PAPI_L2_TCM/PAPI_L2_TCA; do
    got="$got $(csv_col "$flat" outer@ "$c")"
done
expect_eq "derived: --flat outer's counters, IPC, misses/kins, miss ratio" \
    " 42 84 126 168 2 1500 0.75" "$got"
got=""
for c in PAPI_TOT_CYC IPC PAPI_L2_TCM/kins PAPI_L2_TCM/PAPI_L2_TCA; do
    got="$got $(csv_col "$tree" worker@ "$c")"
done
expect_eq "derived: listing worker's cycles, IPC, misses/kins, miss ratio" \
    " 88 2 1500 0.75" "$got"
expect_eq "derived: no counter columns without counters" "worst_thread" \
    "$("$QUERY" "$tmp/plain.db" --flat --format csv | head -1 | awk -F, '{ print $NF }')"

# ---- the end-of-run summary's counter block (sums over the 2 ranks)
run sum fake HPROF_COUNTERS=PAPI_TOT_CYC,PAPI_TOT_INS HPROF_COUNTERS_FAKE=1 \
    HPROF_THROTTLE_CALLS=0 HPROF_SUMMARY=on
block=$(sed -n '/counters of the top records/,$p' "$tmp/sum.err")
# summary_row LABEL - "cycles instructions IPC" of LABEL's row in the block
summary_row() {
    printf '%s\n' "$block" | awk -v l="$1" 'index($0, l) { print $2, $3, $4; exit }'
}
expect_eq "summary: outer's cycles, instructions, IPC" "42 84 2.00" \
    "$(summary_row 'region outer@fake.c')"
expect_eq "summary: worker's" "88 176 2.00" "$(summary_row 'region worker@fake.c')"
expect_eq "summary: MPI_Barrier's" "6 12 2.00" "$(summary_row 'MPI_Barrier@fake.c')"
run sum_plain fake HPROF_SUMMARY=on
expect_eq "summary without counters: a summary, no counter block" "1 0" \
    "$(grep -c 'hprof summary' "$tmp/sum_plain.err" || true) $(grep -c 'counters of the top' "$tmp/sum_plain.err" || true)"

# ---- a software event through PAPI
run pages_plain pages
run pages pages HPROF_COUNTERS=perf::PAGE-FAULTS,NO_SUCH_EVENT_X
same_run pages pages_plain
expect_eq "pages: one warning line" 1 "$(warnings pages)"
if grep 'HPROF_COUNTERS: not counted' "$tmp/pages.err" | grep -c 'perf::PAGE-FAULTS' >/dev/null; then
    skipped "pages: page faults per region" \
        "perf::PAGE-FAULTS cannot be counted here ($(grep 'HPROF_COUNTERS' "$tmp/pages.err" | head -1))"
else
    expect_eq "pages: the warning names NO_SUCH_EVENT_X only" 1 \
        "$(grep 'HPROF_COUNTERS: not counted' "$tmp/pages.err" | grep -c ': NO_SUCH_EVENT_X$' || true)"
    check_profile pages "$tmp/pages.hpf"
    "$builddir/analyzer/hprof-merge" -f -o "$tmp/pages.db" "$tmp/pages.hpf" >/dev/null
    for r in 0 1; do
        expect_cmp "pages: rank $r touch >= 2000 faults" ge 2000 \
            "$(value "$tmp/pages.db" $r touch perf::PAGE-FAULTS)"
        expect_cmp "pages: rank $r touch <= 2064 faults" le 2064 \
            "$(value "$tmp/pages.db" $r touch perf::PAGE-FAULTS)"
        expect_cmp "pages: rank $r reuse <= 16 faults" le 16 \
            "$(value "$tmp/pages.db" $r reuse perf::PAGE-FAULTS)"
    done
    expect_eq "pages: only the named event" "perf::PAGE-FAULTS" \
        "$(q "$tmp/pages.db" "SELECT DISTINCT event FROM counter")"
    # the same through PAPI's multiplexing (HPROF_COUNTERS_MULTIPLEX=1):
    # where the kernel cannot multiplex (this VM) one line says so and the
    # events are counted without it
    run mpx pages HPROF_COUNTERS=perf::PAGE-FAULTS HPROF_COUNTERS_MULTIPLEX=1
    same_run mpx pages_plain
    expect_eq "mpx: no event left out" 0 "$(warnings mpx)"
    expect_cmp "mpx: at most one line on multiplexing" le 1 \
        "$(grep -c 'HPROF_COUNTERS_MULTIPLEX' "$tmp/mpx.err" || true)"
    "$builddir/analyzer/hprof-merge" -f -o "$tmp/mpx.db" "$tmp/mpx.hpf" >/dev/null
    expect_cmp "mpx: rank 0 touch >= 2000 faults" ge 2000 \
        "$(value "$tmp/mpx.db" 0 touch perf::PAGE-FAULTS)"
    expect_cmp "mpx: rank 0 touch <= 2064 faults" le 2064 \
        "$(value "$tmp/mpx.db" 0 touch perf::PAGE-FAULTS)"
fi

# ---- nothing countable (the hardware presets of a VM without a PMU, or
# a name PAPI does not know): one line, no counters, same run
run none pages HPROF_COUNTERS=NO_SUCH_EVENT_Y,NO_SUCH_EVENT_Z
same_run none pages_plain
expect_eq "none: one warning line naming both" 1 \
    "$(grep 'HPROF_COUNTERS: not counted' "$tmp/none.err" | grep -c ': NO_SUCH_EVENT_Y, NO_SUCH_EVENT_Z$' || true)"
"$builddir/analyzer/hprof-merge" -f -o "$tmp/none.db" "$tmp/none.hpf" >/dev/null
expect_eq "none: no counter rows" 0 "$(q "$tmp/none.db" "SELECT count(*) FROM counter")"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
