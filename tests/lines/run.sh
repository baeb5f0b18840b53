#!/bin/bash
# tests/lines/run.sh - every OpenMP construct at its pragma's line and
# named after the user function that contains it, in both tier-0 OpenMP
# sources, at every optimisation level: tests/lines/src/lines.c (one
# construct of each kind at a "MARK:tag" line, and a function whose region
# is its tail call) is built
#  - with gcc (GOMP interposition) at -O0, -O1, -O2, -O3 and -O2 -flto,
#  - with clang (OMPT) at -O0, -O1, -O2, -O3 and -O2 -flto,
# (and with gcc -O2 once more, its debug information split off into a
# file found by .gnu_debuglink), linked with -lhprof (and once without),
# run on 2 threads, and the whole
# list of OpenMP sites with records - construct, function, line, count -
# must be exactly the program's ground truth: no other line, no outlined
# function's name (`work._omp_fn.0`, `.omp_outlined._debug__.1`), no
# runtime or loader address, nothing at a tail call's caller (a region, an
# orphaned barrier), fork calls that clang merged told apart.  stdout is
# the same with and without hprof.
#
# usage: tests/lines/run.sh [BUILDDIR]   (default: the current directory).
# Env: CC_GCC (default gcc), CLANG (default clang), HPROF_KEEP_TMP=1.
# Prints "ok - NAME" / "not ok - NAME: ..." per check and "N passed, M failed".
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
CC_GCC=${CC_GCC:-gcc}
CLANG=${CLANG:-clang}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
SRC=$srcdir/tests/lines/src/lines.c
export OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2

. "$srcdir/tests/lib.sh"
test_tmpdir lines

REPS=$(define_of "$SRC" REPS)
NTASKS=$(define_of "$SRC" NTASKS)
N=$(define_of "$SRC" N)
NT=2
INL1=$((REPS / 2)) INL2=$((REPS - REPS / 2))
for tag in par for barrier single task taskwait taskgroup gtask critical ford ordered tailpar \
    inl1 inl2 orphan; do
    eval "L_$tag=$(line_of "$SRC" "MARK:$tag")"
done

# The ground truth: "construct,function,line,count" per site, counts
# summed over the threads, sorted as the query below sorts them.
common_truth() {
    cat <<EOF
parallel,work,$L_par,$((NT * REPS))
fork,work,$L_par,$REPS
join,work,$L_par,$REPS
implicit barrier,work,$L_par,$((NT * REPS))
implicit barrier,work,$L_for,$((NT * REPS))
single,work,$L_single,$REPS
task,work,$L_task,$((NTASKS * REPS))
task create,work,$L_task,$((NTASKS * REPS))
taskwait,work,$L_taskwait,$REPS
taskwait,work,$L_taskgroup,$REPS
task,work,$L_gtask,$REPS
task create,work,$L_gtask,$REPS
critical,work,$L_critical,$((NT * REPS))
critical wait,work,$L_critical,$((NT * REPS))
implicit barrier,work,$L_ford,$((NT * REPS))
ordered,work,$L_ordered,$((N * REPS))
ordered wait,work,$L_ordered,$((N * REPS))
parallel,tail,$L_tailpar,$((NT * REPS))
fork,tail,$L_tailpar,$REPS
join,tail,$L_tailpar,$REPS
implicit barrier,tail,$L_tailpar,$((NT * REPS))
barrier,work,$L_barrier,$((NT * REPS))
barrier,orphan,$L_orphan,$((2 * NT * REPS))
implicit barrier,work,$L_single,$((NT * REPS))
parallel,twice,$L_inl1,$((NT * INL1))
fork,twice,$L_inl1,$INL1
join,twice,$L_inl1,$INL1
implicit barrier,twice,$L_inl1,$((NT * INL1))
parallel,thrice,$L_inl2,$((NT * INL2))
fork,thrice,$L_inl2,$INL2
join,thrice,$L_inl2,$INL2
implicit barrier,thrice,$L_inl2,$((NT * INL2))
EOF
}
# GOMP: worksharing loops have no record of their own.
gomp_truth() { common_truth; }
# OMPT: each thread's part of a worksharing loop is a "loop".
ompt_truth() {
    common_truth
    cat <<EOF
loop,work,$L_for,$((NT * REPS))
loop,work,$L_ford,$((NT * REPS))
loop,twice,$L_inl1,$((NT * INL1))
loop,thrice,$L_inl2,$((NT * INL2))
EOF
}

# sites DB MODULE - every OpenMP site with records, as in the ground truth;
# " @module" appended when it is not in the program (MODULE).
sites() {
    q "$1" "SELECT s.name, coalesce(s.func, '?'), s.line, sum(st.count), coalesce(s.module, '?')
            FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
            WHERE s.kind = 'omp' GROUP BY s.name, s.func, s.line, s.module" |
        awk -F, -v m="$2" '{ print $1 "," $2 "," $3 "," $4 ($5 == m ? "" : " @" $5) }' |
        LC_ALL=C sort
}

# check SOURCE CC LABEL FLAGS... - build, run, compare with the truth.
check() {
    local source=$1 cc=$2 label=$3 name
    shift 3
    name=$source-$label
    local exe=$tmp/$name extra=()
    [ "$cc" = "$CLANG" ] && extra=(-gdwarf-aranges)
    if ! "$cc" -fopenmp -g "${extra[@]}" "$@" "$SRC" -o "$exe" -L"$LIBDIR" -lhprof \
        -Wl,-rpath,"$LIBDIR" 2>"$exe.cc" ||
        ! "$cc" -fopenmp -g "${extra[@]}" "$@" "$SRC" -o "$exe.plain" 2>>"$exe.cc"; then
        notok "$name: builds" "$(head -c 300 "$exe.cc" | oneline)"
        return
    fi
    if [ -n "${SPLIT_DEBUG:-}" ] && ! { objcopy --only-keep-debug "$exe" "$exe.debug" &&
        objcopy --strip-debug --add-gnu-debuglink="$exe.debug" "$exe"; } 2>>"$exe.cc"; then
        notok "$name: debug information split off" "$(head -c 300 "$exe.cc" | oneline)"
        return
    fi
    local rc=0
    HPROF_OUTPUT=$exe.hpf timeout 120 "$exe" >"$exe.out" 2>"$exe.err" </dev/null || rc=$?
    if [ "$rc" != 0 ] || [ ! -s "$exe.hpf" ]; then
        notok "$name: runs and writes a profile" "exit $rc: $(tail -3 "$exe.err" | oneline)"
        return
    fi
    timeout 120 "$exe.plain" >"$exe.plain.out" 2>/dev/null </dev/null || true
    if cmp -s "$exe.out" "$exe.plain.out"; then
        ok "$name: same stdout with and without hprof"
    else
        notok "$name: same stdout with and without hprof" \
            "'$(head -2 "$exe.out" | oneline)' vs '$(head -2 "$exe.plain.out" | oneline)'"
    fi
    expect_eq "$name: every OpenMP site at its pragma's line, in work() or tail(), counts exact" \
        "$("${source}_truth" | LC_ALL=C sort)" "$(sites "$exe.hpf" "$(basename "$exe")")"
    check_profile "$name" "$exe.hpf"
}

if ! command -v "$CC_GCC" >/dev/null; then
    skipped "GOMP lines" "no $CC_GCC"
else
    for o in O0 O1 O2 O3; do
        check gomp "$CC_GCC" "$o" "-$o"
    done
    check gomp "$CC_GCC" flto -O2 -flto
    # the debug information in a separate file found by .gnu_debuglink
    # (hprof searches this machine only, unless DEBUGINFOD_URLS is set)
    command -v objcopy >/dev/null && SPLIT_DEBUG=1 check gomp "$CC_GCC" O2-debuglink -O2
fi

syms=$(nm -D "$LIBDIR/libhprof.so" 2>/dev/null || true)
if ! command -v "$CLANG" >/dev/null; then
    skipped "OMPT lines" "no $CLANG"
elif ! printf '%s\n' "$syms" | grep -c ' T ompt_start_tool$' >/dev/null; then
    skipped "OMPT lines" "libhprof.so has no ompt_start_tool"
else
    for o in O0 O1 O2 O3; do
        check ompt "$CLANG" "$o" "-$o"
    done
    check ompt "$CLANG" flto -O2 -flto
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
