#!/bin/bash
# tests/instrument/pfor.sh - where hprof-instrument puts the probe of a
# loop bound to an OpenMP parallel loop: tests/instrument/src/pfor.c
# (parallel for with schedule and reduction, for inside parallel, parallel
# for collapse(2), parallel for in a function called from a parallel
# region; 2 threads, 4 entries each, 1 ms per iteration) is built with
# hprof-cc three ways and run without MPI:
#   gcc.pomp  - gcc, the POMP2 rewriting (the default);
#   gcc.gomp  - gcc, hprof-cc --no-omp: GOMP records OpenMP;
#   clang.ompt - clang, --no-omp: OMPT records OpenMP (when clang links
#               -fopenmp here).
# Checks, as pfor.c's header states: stdout is the plain build's; on both
# threads every loop's node is a child of its parallel construct's node,
# with count 4 (one per region entry) and time >= its iterations x 1 ms
# and <= its parent's; the loops of combined constructs that cannot be
# split get no probe (--list); `hprof-query --check` on every profile
# (POMP2, GOMP and OMPT); tests/instrument/src/pfor_forms.c (the
# forms a split must keep: unbraced bodies, labels, _Pragma, simd,
# lastprivate, ordered) prints its ground truth built every way.
#
# usage: tests/instrument/pfor.sh [BUILDDIR]   (default: the current directory).
# Env: HPROF_KEEP_TMP=1.  Prints "ok - NAME" / "not ok - NAME: ..." per
# check and a last line "N passed, M failed".
set -uo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
HPCC=$builddir/instrument/hprof-cc
INST=$builddir/instrument/hprof-instrument
SRC=$srcdir/tests/instrument/src/pfor.c

. "$srcdir/tests/lib.sh"

if [ ! -x "$HPCC" ] || [ ! -x "$QUERY" ] || ! command -v gcc >/dev/null; then
    skipped "parallel loop probes" "no gcc, hprof-cc or hprof-query"
    echo "$pass passed, $fail failed"
    exit 0
fi
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"

export OMP_WAIT_POLICY=passive HPROF_SUMMARY=off
export HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir
unset HPROF_FILTER HPROF_COMM_FUNCS HPROF_KEEP HPROF_TIER

test_tmpdir pfor

LA=$(line_of "$SRC" A) LB=$(line_of "$SRC" B) LC=$(line_of "$SRC" C) LD=$(line_of "$SRC" D)
# loop line, its parallel construct's line, iterations per thread per entry
LOOPS=("$((LA + 1)) $LA 4" "$((LB + 3)) $LB 4" "$((LC + 1)) $LC 4" "$((LD + 1)) $LD 8")
ENTRIES=4
EXPECT="pfor: A 28 B 28 C 28 D 56"

# variant NAME CC [HPROF-CC OPTIONS] - build, run, check one way.
variant() {
    local name=$1 cc=$2 d=$tmp/$1 out
    shift 2
    mkdir -p "$d"
    if ! "$cc" -fopenmp -O2 "$SRC" -o "$d/plain" 2>"$d/plain.cc"; then
        skipped "$name" "$cc cannot build -fopenmp here"
        return
    fi
    if ! (cd "$d" && "$HPCC" --keep "$@" "$cc" -fopenmp -g -O2 -Wall -Wextra "$SRC" -o "$d/inst" \
        -L"$LIBDIR" -Wl,-rpath,"$LIBDIR") 2>"$d/inst.cc" || [ -s "$d/inst.cc" ]; then
        notok "$name: hprof-cc build without a warning" "$(head -3 "$d/inst.cc" | oneline)"
        return
    fi
    ok "$name: hprof-cc build without a warning"
    out=$(HPROF_OUTPUT=$d/p.hpf timeout 120 "$d/inst" 2>"$d/run.err")
    expect_eq "$name: stdout = the plain build's" "$("$d/plain")" "$out"
    expect_eq "$name: stdout = pfor.c's ground truth" "$EXPECT" "$out"
    [ -s "$d/p.hpf" ] || { notok "$name: profile written" "$(tail -2 "$d/run.err" | oneline)"; return; }
    check_profile "$name" "$d/p.hpf"
    local l got ll lp it
    for l in "${LOOPS[@]}"; do
        read -r ll lp it <<<"$l"
        got=$(q "$d/p.hpf" "SELECT t.thread, t.count, ps.kind, ps.name, ps.line
            FROM stat t JOIN node n ON n.id = t.node JOIN site s ON s.id = n.site
            JOIN node pn ON pn.id = n.parent JOIN site ps ON ps.id = pn.site
            WHERE s.kind = 'loop' AND s.line = $ll AND t.count > 0 ORDER BY t.thread")
        expect_eq "$name: loop $ll is below parallel $lp on both threads, once per region entry" \
            "0,$ENTRIES,omp,parallel,$lp;1,$ENTRIES,omp,parallel,$lp" "$got"
        # time: >= iterations x 1 ms per entry (less 2%), <= the parent's (+1%)
        got=$(q "$d/p.hpf" "SELECT t.thread, t.time >= 0.98 * $it * $ENTRIES * 0.001, t.time <= 1.01 * pt.time + 2e-6
            FROM stat t JOIN node n ON n.id = t.node JOIN site s ON s.id = n.site
            JOIN stat pt ON pt.node = n.parent AND pt.rank = t.rank AND pt.thread = t.thread
            WHERE s.kind = 'loop' AND s.line = $ll AND t.count > 0 ORDER BY t.thread")
        expect_eq "$name: loop $ll time >= $it x $ENTRIES ms and within its parallel node per thread" "0,1,1;1,1,1" "$got"
    done
}

variant gcc.pomp gcc
variant gcc.gomp gcc --no-omp
if command -v clang >/dev/null; then
    variant clang.ompt clang --no-omp
else
    skipped "clang.ompt" "no clang"
fi

# ---- the forms the split must keep meaning the same -------------------
# pfor_forms.c: unbraced if/loop bodies, a label, a _Pragma operator, for
# simd with reduction and lastprivate, if/num_threads, ordered; built
# with -Wall -Wextra through hprof-cc with and without POMP2, gcc and
# clang: no warning, stdout = the ground truth, no loop skipped, and the
# profile's invariants (strict for GOMP).
FORMS=$srcdir/tests/instrument/src/pfor_forms.c
forms() {   # forms NAME CC [HPROF-CC OPTIONS]
    local name=$1 cc=$2 d=$tmp/forms.$1 out
    shift 2
    mkdir -p "$d"
    if ! (cd "$d" && "$HPCC" "$@" "$cc" -fopenmp -g -O2 -Wall -Wextra "$FORMS" -o "$d/inst" \
        -L"$LIBDIR" -Wl,-rpath,"$LIBDIR") 2>"$d/inst.cc" || [ -s "$d/inst.cc" ]; then
        notok "forms $name: hprof-cc build without a warning" "$(head -3 "$d/inst.cc" | oneline)"
        return
    fi
    out=$(HPROF_OUTPUT=$d/p.hpf OMP_NUM_THREADS=2 timeout 60 "$d/inst" 2>"$d/run.err")
    expect_eq "forms $name: no warning, stdout = the ground truth" "o 0;o 1;o 2;o 3;549755289600 1099510579200 2016 1048575 63" \
        "$(printf '%s\n' "$out" | oneline)"
    check_profile "forms $name" "$d/p.hpf"
}
forms gcc.pomp gcc
forms gcc.gomp gcc --no-omp
if command -v clang >/dev/null && clang -fopenmp "$FORMS" -o "$tmp/forms.clang" 2>/dev/null; then
    forms clang.pomp clang
    forms clang.ompt clang --no-omp
fi
for o in "" --no-omp; do
    expect_eq "forms: --list $o: every loop has a probe" "6 0" \
        "$("$INST" --list $o "$FORMS" -fopenmp | grep -c '^loop ') $("$INST" --list $o "$FORMS" -fopenmp | grep -c '^# skipped loop')"
done

# ---- loops of combined parallel constructs that are not split ---------
# (made by a macro, clauses the split does not take): no probe, with the
# reason, and no probe outside the team; the parallel for guarded by
# #ifdef _OPENMP ... #endif is split, its loop probed (inside the team).
for o in "" --no-omp; do
    got=$("$INST" --list $o "$srcdir/tests/instrument/src/m_omp.c" -fopenmp |
        awk '/skipped loop .*combined parallel construct that is not split/ { n++ } $1 == "loop" { l = l $2 " " } END { print n + 0 "; " l }')
    expect_eq "list $o: the loops of unsplit parallel for (macro, _Pragma in a macro) get no probe, the #ifdef-guarded one (77) does" \
        "2; 22 32 38 50 59 77 " "$got"
done
"$INST" --no-omp -o "$tmp/split.c" "$SRC" -fopenmp
expect_eq "--no-omp: the three parallel for split into parallel + for nowait, no POMP2 call" "5 3 0" \
    "$(grep -c '^#pragma omp parallel ' "$tmp/split.c") $(grep -c '^#pragma omp for .*nowait$' "$tmp/split.c") $(grep -c POMP2_ "$tmp/split.c")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
