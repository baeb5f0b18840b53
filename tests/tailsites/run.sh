#!/bin/bash
# tests/tailsites/run.sh - OpenMP constructs that gcc -O2 reaches by a
# tail call or inlines into a region (issue 24 items 1-3), each at its
# pragma's line with the exact count the program knows:
# tests/tailsites/src/tail.c (its header states the truth) is built with
#  - gcc -O2 -fopenmp -lhprof (tier 0, GOMP interposition),
#  - clang -O2 -fopenmp -lhprof (tier 0, OMPT), when clang is there,
#  - hprof-cc gcc -O2 -fopenmp (tier 2: POMP2), when the instrumenter is,
# run on 2 threads, and the list of its barriers and taskwaits with
# records - construct, line, count summed over threads - must be exactly
# the truth: each loop's end barrier at its own `omp for` (not the
# region's first loop's, not a loop body's line, not an explicit
# "barrier", not another loop's when gcc gives the call the row of the
# code before it), a single's tail-jumped end barrier at the single (not at
# the explicit barrier just before it), orphaned loops in the function that holds them, the
# recursive tail-called taskwaits at their own line (not at the lines of
# the tasks that called them).  stdout is the same with and without
# hprof; every profile passes hprof-query --check.
#
# usage: tests/tailsites/run.sh [BUILDDIR]   (default: the current directory).
# Env: CC_GCC (default gcc), CLANG (default clang), HPROF_KEEP_TMP=1.
# Prints "ok - NAME" / "not ok - NAME: ..." per check and "N passed, M failed".
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
CC_GCC=${CC_GCC:-gcc}
CLANG=${CLANG:-clang}
LIBDIR=$builddir/pmpi/.libs
SRC=$srcdir/tests/tailsites/src/tail.c
export OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2

. "$srcdir/tests/lib.sh"
instrumenter_env
test_tmpdir tailsites

REPS=$(define_of "$SRC" REPS)
NT=$(define_of "$SRC" NT)
SWEEPS=$(define_of "$SRC" SWEEPS)
PLANES=$(define_of "$SRC" PLANES)
STAGES=$(define_of "$SRC" STAGES)
for tag in two first second dyn dfirst dsecond solve o1 o2 o3 o4 o5 last o6 pl p1 p2 \
    p3 p4 p5 p6 ck bar single tpar swait mwait; do
    eval "L_$tag=$(line_of "$SRC" "MARK:$tag")"
done

# The truth: "construct,line,count" per site (counts summed over the
# threads); the taskwaits as the program counted them.
truth() {
    local swaits mwaits one=$((NT * REPS))
    swaits=$(awk '$1 == "swait" { print $2 }' "$1")
    mwaits=$(awk '$1 == "mwait" { print $2 }' "$1")
    cat <<EOF
implicit barrier,$L_two,$one
implicit barrier,$L_first,$one
implicit barrier,$L_second,$one
implicit barrier,$L_dyn,$one
implicit barrier,$L_dfirst,$one
implicit barrier,$L_dsecond,$one
implicit barrier,$L_solve,$one
implicit barrier,$L_o1,$one
implicit barrier,$L_o2,$((one * SWEEPS))
implicit barrier,$L_o3,$one
implicit barrier,$L_o4,$((one * SWEEPS))
implicit barrier,$L_o5,$one
implicit barrier,$L_last,$one
implicit barrier,$L_o6,$one
implicit barrier,$L_pl,$one
implicit barrier,$L_p1,$((one * PLANES))
implicit barrier,$L_p2,$((one * PLANES))
implicit barrier,$L_p3,$((one * PLANES))
implicit barrier,$L_p4,$((one * PLANES * STAGES))
implicit barrier,$L_p5,$((one * PLANES))
implicit barrier,$L_p6,$((one * PLANES))
implicit barrier,$L_ck,$one
barrier,$L_bar,$one
implicit barrier,$L_single,$one
implicit barrier,$L_tpar,$NT
taskwait,$L_swait,$swaits
taskwait,$L_mwait,$mwaits
EOF
}

# sites FILE - every barrier and taskwait site with records, as in the truth.
sites() {
    q "$1" "SELECT s.name, s.line, sum(st.count) $OMPJOIN
            WHERE s.kind = 'omp' AND s.name IN ('implicit barrier', 'barrier', 'taskwait')
            GROUP BY s.name, s.line"
}

# funcs FILE - the function each orphaned loop's barrier is named after.
funcs() {
    q "$1" "SELECT DISTINCT s.line, s.func $OMPJOIN WHERE s.kind = 'omp'
            AND s.line IN ($L_o1, $L_o2, $L_o3, $L_o4, $L_o5, $L_o6, $L_mwait, $L_swait)
            ORDER BY 1"
}

# profiled LABEL EXE - runs EXE with hprof (profile EXE.hpf, its truth
# file EXE.truth) and EXE.plain without: the stdouts must be the same.
# Fails (returns 1) when the run writes no profile.
profiled() {
    local label=$1 exe=$2 rc=0
    HPROF_OUTPUT=$exe.hpf TAIL_TRUTH=$exe.truth timeout 120 "$exe" >"$exe.out" 2>"$exe.err" \
        </dev/null || rc=$?
    if [ "$rc" != 0 ] || [ ! -s "$exe.hpf" ]; then
        notok "$label: runs and writes a profile" "exit $rc: $(tail -3 "$exe.err" | oneline)"
        return 1
    fi
    timeout 120 "$exe.plain" >"$exe.plain.out" 2>/dev/null </dev/null || true
    expect_eq "$label: same stdout with and without hprof" \
        "$(cat "$exe.plain.out")" "$(cat "$exe.out")"
    check_profile "$label" "$exe.hpf"
}

# run LABEL EXE - tail.c's run, compared with its truth.
run() {
    profiled "$1" "$2" || return 0
    expect_eq "$1: every barrier and taskwait at its pragma's line, counts exact" \
        "$(truth "$2.truth" | LC_ALL=C sort)" "$(sites "$2.hpf" | LC_ALL=C sort)"
}

# build LABEL CC FLAGS... - $tmp/LABEL with -lhprof, $tmp/LABEL.plain without.
build() {
    local label=$1 cc=$2
    shift 2
    if "$cc" -fopenmp -g -O2 "$@" "$SRC" -o "$tmp/$label" -L"$LIBDIR" -lhprof \
        -Wl,-rpath,"$LIBDIR" 2>"$tmp/$label.cc" &&
        "$cc" -fopenmp -g -O2 "$@" "$SRC" -o "$tmp/$label.plain" 2>>"$tmp/$label.cc"; then
        return 0
    fi
    notok "$label: builds" "$(head -c 300 "$tmp/$label.cc" | oneline)"
    return 1
}

if build gcc-t0 "$CC_GCC"; then
    run gcc-t0 "$tmp/gcc-t0"
    expect_eq "gcc-t0: orphaned constructs named after the function that holds them" \
        "$L_o1,solve_cell;$L_o2,solve_cell;$L_o3,solve_cell;$L_o4,backsubstitute;$L_o5,finish;$L_o6,last_orphan;$L_mwait,merge;$L_swait,sortp" \
        "$(funcs "$tmp/gcc-t0.hpf" | oneline)"
fi

# gcc only: clang combines reductions without GOMP_atomic_start.
RSRC=$srcdir/tests/tailsites/src/reduction.c
RREPS=$(define_of "$RSRC" REPS)
RNT=$(define_of "$RSRC" NT)
if SRC=$RSRC build gcc-reduction "$CC_GCC" && profiled gcc-reduction "$tmp/gcc-reduction"; then
    expect_eq "gcc-reduction: a two-variable reduction's GOMP_atomic at its loop's pragma, the real atomic at its own" \
        "atomic,$(line_of "$RSRC" MARK:atomic),$((RNT * RREPS));reduction,$(line_of "$RSRC" MARK:red),$((RNT * RREPS))" \
        "$(q "$tmp/gcc-reduction.hpf" "SELECT s.name, s.line, sum(st.count) $OMPJOIN
            WHERE s.kind = 'omp' AND s.name IN ('atomic', 'reduction')
            GROUP BY s.name, s.line ORDER BY 1" | oneline)"
fi

# tier 1 (gcc -finstrument-functions): region and task bodies that are a
# tail-called call, at their own lines, none in hprof's code; a loop's
# barrier call whose row gcc gives to the serial loop after it, at the loop.
TSRC=$srcdir/tests/tailsites/src/tier1.c
TREPS=$(define_of "$TSRC" REPS)
TNT=$(define_of "$TSRC" NT)
TNTASK=$(define_of "$TSRC" NTASK)
if SRC=$TSRC build gcc-t1 "$CC_GCC" -finstrument-functions && profiled gcc-t1 "$tmp/gcc-t1"; then
    expect_eq "gcc-t1: a region's and a task's only call at its own line, counts exact" \
        "leaf,main,$(line_of "$TSRC" MARK:leaf),$((TNTASK * TREPS));work,main,$(line_of "$TSRC" MARK:call),$((TNT * TREPS))" \
        "$(q "$tmp/gcc-t1.hpf" "SELECT s.name, s.func, s.line, sum(st.count) $OMPJOIN
            WHERE s.kind = 'call' AND s.name IN ('work', 'leaf') GROUP BY s.id ORDER BY 1" | oneline)"
    L_ssor=$(line_of "$TSRC" MARK:ssor)
    L_update=$(line_of "$TSRC" MARK:update)
    t1one=$((TNT * TREPS))
    expect_eq "gcc-t1: ssor's barriers at their constructs (not scale's at update), counts exact" \
        "$(printf '%s\n' "barrier,$(line_of "$TSRC" MARK:bar1),$t1one" \
            "barrier,$(line_of "$TSRC" MARK:bar2),$t1one" "implicit barrier,$L_ssor,$t1one" \
            "implicit barrier,$(line_of "$TSRC" MARK:scale),$t1one" | LC_ALL=C sort | oneline)" \
        "$(q "$tmp/gcc-t1.hpf" "SELECT s.name, s.line, sum(st.count) $OMPJOIN
            WHERE s.kind = 'omp' AND s.name IN ('implicit barrier', 'barrier')
            AND s.line BETWEEN $L_ssor AND $L_update GROUP BY s.name, s.line" | LC_ALL=C sort | oneline)"
    expect_eq "gcc-t1: no call site in hprof's own code" "0" \
        "$(q "$tmp/gcc-t1.hpf" "SELECT count(*) FROM site WHERE kind = 'call' AND
            (file LIKE '%gomp_real.c' OR func LIKE 'hp\\_%' ESCAPE '\\')")"
fi

syms=$(nm -D "$LIBDIR/libhprof.so" 2>/dev/null || true)
if ! command -v "$CLANG" >/dev/null; then
    skipped "clang-t0" "no $CLANG"
elif ! grep -q ' T ompt_start_tool$' <<<"$syms"; then
    skipped "clang-t0" "libhprof.so has no ompt_start_tool"
elif build clang-t0 "$CLANG" -gdwarf-aranges; then
    run clang-t0 "$tmp/clang-t0"
fi

if [ ! -x "$HPCC" ]; then
    skipped "gcc-t2" "instrumenter not built ($HPCC)"
elif "$HPCC" "$CC_GCC" -fopenmp -g -O2 "$SRC" -o "$tmp/gcc-t2" 2>"$tmp/gcc-t2.cc" &&
    "$CC_GCC" -fopenmp -g -O2 "$SRC" -o "$tmp/gcc-t2.plain" 2>>"$tmp/gcc-t2.cc"; then
    run gcc-t2 "$tmp/gcc-t2"
else
    notok "gcc-t2: builds" "$(head -c 300 "$tmp/gcc-t2.cc" | oneline)"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
