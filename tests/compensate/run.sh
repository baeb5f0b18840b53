#!/bin/bash
# tests/compensate/run.sh - intrusion compensation against ground truth
# (docs/compensation.md): tests/compensate/tiny_calls.c built
# plain and in tier 2 (hprof-cc --procedures=all: leaf is a tiny procedure
# the default policy leaves unprobed), run in the same test:
#   - the plain build times its parent() itself (the ground truth);
#   - with timed probes (HPROF_THROTTLE_NS=0), the instrumented build's
#     raw parent time is at least 20% above it (else the test could show
#     nothing; throttled probes cost too little: see run_mode's callers),
#     and parent's compensated inclusive time (hprof-query, the default)
#     is within 5% of it;
#   - exact counts (parent 1, call leaf and procedure leaf CALLS each), the
#     same stdout, hprof-query --check on every profile, the summary's
#     overhead line, and no trace of the start-up calibration in the
#     profile (its sites and its scratch thread; in tier 1 too, whose hook
#     costs are measured at the end of the run);
#   - once with throttling off (HPROF_THROTTLE_NS=0: every call timed) and
#     once by default (leaf's probes throttled: counted only).
# Each mode alternates 7 plain and 7 instrumented runs and compares the
# medians (1 each without HPROF_TEST_TIMING=1); a mode whose checks fail
# is run again (attempts, tests/lib.sh).
#
# usage: tests/compensate/run.sh [BUILDDIR]   (default: the current directory)
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
QUERY=$builddir/analyzer/hprof-query
HPCC=$builddir/instrument/hprof-cc
SRC=$srcdir/tests/compensate/tiny_calls.c
CC=${CC:-gcc}

. "$srcdir/tests/lib.sh"
test_tmpdir compensate

if [ ! -x "$HPCC" ] || [ ! -x "$QUERY" ]; then
    skipped "intrusion compensation" "hprof-cc or hprof-query not built"
    echo "$pass passed, $fail failed"
    exit 0
fi
export HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir
unset HPROF_FILTER HPROF_THROTTLE_CALLS HPROF_THROTTLE_NS HPROF_COMPENSATE HPROF_SUMMARY HPROF_TIER

CALLS=$(define_of "$SRC" CALLS)
"$CC" -O2 -o "$tmp/plain" "$SRC"
"$HPCC" --procedures=all "$CC" -O2 -o "$tmp/inst" "$SRC"

# calc EXPR - floating-point arithmetic.
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

same_stdout() {
    if cmp -s "$2" "$3"; then ok "$1"; else notok "$1" "expected '$(oneline <"$2")' got '$(oneline <"$3")'"; fi
}

# parent_time DB [--raw] - procedure parent's inclusive time in seconds.
parent_time() {
    "$QUERY" "$1" ${2:-} --format csv --sql "SELECT printf('%.6f', st.time) FROM stat st
        JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
        WHERE s.kind = 'procedure' AND s.name = 'parent'" 2>/dev/null | tail -1
}

# median - the middle one of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# run_mode NAME THROTTLE_NS TIMING - RUNS plain and RUNS instrumented runs,
# alternating; the checks on the medians (each run's profile checked), the
# timing ones when TIMING is 1.
# The timing checks compare two programs' times on a shared VM, where a
# probe pair's real cost moves from run to run (13-26 ns measured at load
# 0.1, against 18-21 ns calibrated): they run with HPROF_TEST_TIMING=1
# (`make bench-compensate`), not in `make check`, which checks the rest.
TIMING=${HPROF_TEST_TIMING:-0}
RUNS=7
[ "$TIMING" = 1 ] || RUNS=1
run_mode() {
    local name=$1 throttle=$2 timing=$3 i plain raw comp
    : >"$tmp/plain.times"
    : >"$tmp/$name.raw"
    : >"$tmp/$name.comp"
    for i in $(seq $RUNS); do
        TINY_CALLS_TIME=$tmp/plain.time "$tmp/plain" >"$tmp/plain.out"
        cat "$tmp/plain.time" >>"$tmp/plain.times"
        rm -f "$tmp/$name.hpf" "$tmp/$name.db"
        env ${throttle:+HPROF_THROTTLE_NS=$throttle} HPROF_OUTPUT="$tmp/$name.hpf" \
            TINY_CALLS_TIME="$tmp/inst.time" "$tmp/inst" >"$tmp/$name.out" 2>"$tmp/$name.err"
        check_profile "$name run $i" "$tmp/$name.hpf"
        parent_time "$tmp/$name.hpf" --raw >>"$tmp/$name.raw"
        parent_time "$tmp/$name.hpf" >>"$tmp/$name.comp"
    done
    plain=$(median <"$tmp/plain.times")
    raw=$(median <"$tmp/$name.raw")
    comp=$(median <"$tmp/$name.comp")
    local db=$tmp/$name.hpf
    same_stdout "$name: stdout as without hprof" "$tmp/plain.out" "$tmp/$name.out"
    expect_eq "$name: calls of parent, call leaf, procedure leaf" "1;$CALLS;$CALLS" \
        "$(q "$db" "SELECT SUM(st.count) FROM stat st JOIN node n ON n.id = st.node
            JOIN site s ON s.id = n.site WHERE (s.kind, s.name) IN (('procedure', 'parent'),
            ('call', 'leaf'), ('procedure', 'leaf')) GROUP BY s.kind, s.name
            ORDER BY s.name DESC, s.kind")"
    echo "# $name: medians of $RUNS runs: plain parent $plain s, instrumented raw $raw s," \
        "compensated $comp s"
    if [ "$timing" = 1 ]; then
        expect_cmp "$name: raw parent time >= 1.2 x plain $plain s" ge "$(calc "$plain * 1.2")" "$raw"
        expect_cmp "$name: compensated parent time within 5% of plain" within "$plain" \
            "$comp" "$(calc "$plain * 0.05")"
    fi
    if grep -q "^hprof: estimated measurement overhead [0-9.e-]* s ([0-9.]*%), subtracted" \
        "$tmp/$name.err"; then
        ok "$name: summary states the estimated overhead"
    else
        notok "$name: summary states the estimated overhead" \
            "$(grep overhead "$tmp/$name.err" | oneline)"
    fi
}

# No trace of the calibration: its sites (the probe unit "hprof
# calibration", the MPI and OpenMP paths' call sites) and its scratch
# thread never reach the profile, whose costs it did fill.
no_trace() {
    local db=$tmp/$1.hpf
    expect_eq "$1: no calibration sites, one thread" "0;1" \
        "$(q "$db" "SELECT COUNT(*) FROM site WHERE name IN ('hprof calibration', 'MPI_Send',
            'barrier') OR file = 'hprof calibration'")
$(q "$db" "SELECT threads FROM rank")"
    expect_eq "$1: calibrated probe costs stored, inside <= outside" \
        "probe counted,1;probe folded,1;probe timed,1" \
        "$(q "$db" "SELECT kind, outside > 0 AND inside <= outside AND outside < 1e-6
            FROM rank_cost WHERE kind LIKE 'probe%' ORDER BY kind")"
}

# Tier 1: the hooks' costs are measured at the end of the run, again
# without a trace (no site of calibrate.c's hooked function).
tier1_no_trace() {
    "$CC" -O2 -finstrument-functions -o "$tmp/tier1" "$SRC" -L"$builddir/pmpi/.libs" \
        -Wl,-rpath,"$builddir/pmpi/.libs" -lhprof
    HPROF_SUMMARY=off HPROF_OUTPUT=$tmp/tier1.hpf "$tmp/tier1" >/dev/null
    check_profile "tier 1" "$tmp/tier1.hpf"
    expect_eq "tier 1: no calibration sites; hook costs stored" "0;hook counted,1;hook timed,1" \
        "$(q "$tmp/tier1.hpf" "SELECT COUNT(*) FROM site WHERE name = 'hooked_function'
            OR func = 'hooked_function' OR file LIKE '%calibrate.c'")
$(q "$tmp/tier1.hpf" "SELECT kind, outside > 0 AND inside <= outside FROM rank_cost
            WHERE kind LIKE 'hook%' ORDER BY kind")"
}

tier1_no_trace
# Timed probes make the raw time some 40-50% longer than the plain run.
# Throttled, the leaf's probes are counted inline (hp_fast.h), 1-3 ns a
# pair: parent's raw time is then 3-14% above plain, as much as its
# run-to-run spread on this machine, so there is no timing to check; the
# rest (counts, --check, the overhead line) is checked as with timing.
attempts "throttling off" run_mode timed 0 "$TIMING"
attempts "throttled (default)" run_mode throttled "" 0
no_trace throttled

# HPROF_COMPENSATE=off: the summary shows raw times and says so.
HPROF_COMPENSATE=off HPROF_OUTPUT=$tmp/off.hpf "$tmp/inst" >/dev/null 2>"$tmp/off.err"
if grep -q "^hprof: estimated measurement overhead .*, not subtracted" "$tmp/off.err"; then
    ok "HPROF_COMPENSATE=off: overhead stated, not subtracted"
else
    notok "HPROF_COMPENSATE=off: overhead stated, not subtracted" "$(grep overhead "$tmp/off.err" | oneline)"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
