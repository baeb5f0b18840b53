#!/bin/bash
# tests/cxx/run.sh - C++ at every tier, against the ground truth stated in
# tests/cxx/prog.cpp's header comment (2 ranks, 2 OpenMP threads):
#   tier 0  mpicxx -g -O2 -fopenmp prog.cpp -lhprof
#   tier 1  hprof-cc --tier=1 mpicxx -g -O2 -fopenmp prog.cpp
#   tier 2  hprof-cc mpicxx -g -O2 -fopenmp prog.cpp
# Per tier: the build is silent, stdout and exit status are the plain
# build's, every profile passes `hprof-query --check` (a frame an exception
# unwinds through is closed), exact MPI counts and bytes per line, the
# OpenMP region's count, and the demangled names: the frames of tier 0's
# call paths, tier 1's procedures and calls (solver::Field<double>::sum()
# const, main::{lambda(int)#1}::operator()(int) const) and tier 2's
# procedures as written (solver::Field<T>::sum() const: one site per
# template, not per instantiation).  tests/cxx/constructs.cpp (serial:
# operators, constexpr, reference-returning calls, templates, a throw from
# a loop, nested lambdas, omp for over iterators) builds silently at tiers
# 1 and 2 with g++ and clang++, runs as plain, passes --check, with exact
# counts where it states them and --list's reasons for what tier 2 leaves
# alone.  tests/cxx/header.cpp: tier 1 unhooks the tiny functions of the
# program's header by name (tests/cxx/grid.h).  Then hprof-cc on a C++
# file the instrumenter cannot parse warns once and still links -lhprof,
# and a link of objects only (hprof-mpicxx) adds -lhprof.
#
# usage: tests/cxx/run.sh [BUILDDIR]   Env: MPICXX, MPIRUN, HPROF_KEEP_TMP=1.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICXX=${MPICXX:-mpicxx}
MPIRUN=${MPIRUN:-mpirun}
S=$srcdir/tests/cxx
P=$S/prog.cpp
LIBDIR=$builddir/pmpi/.libs
NP=2

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=2
MPIFLAGS=(--oversubscribe --bind-to none -x OMP_NUM_THREADS)

. "$srcdir/tests/lib.sh"
instrumenter_env
test_tmpdir cxx

if ! command -v "$MPICXX" >/dev/null || ! command -v "$MPIRUN" >/dev/null; then
    skipped "C++ tiers" "no $MPICXX or $MPIRUN"
    echo "$pass passed, $fail failed"
    exit 0
fi
if [ ! -x "$HPCC" ] || [ ! -x "$INST" ]; then
    skipped "C++ tiers" "hprof-instrument not built (no libclang)"
    echo "$pass passed, $fail failed"
    exit 0
fi

Lsend=$(line_of "$P" send) Lrecv=$(line_of "$P" recv) Lrank=$(line_of "$P" lambda-rank)
Lcheck=$(line_of "$P" call-check) Ldeep=$(line_of "$P" call-deep)
SUMS=$(define_of "$P" SUMS) TRIES=$(define_of "$P" TRIES) LAMBDAS=$(define_of "$P" LAMBDAS)
MSGS=$(define_of "$P" MSGS) COUNT=$(define_of "$P" COUNT)
LAMBDA='main::{lambda(int)#1}::operator()(int) const'

# ---------------------------------------------------------------- builds
b=$tmp/bin
mkdir -p "$b"
# build NAME CMD... - runs a build in $tmp; it must succeed without a word
build() {
    local name=$1
    shift
    if (cd "$tmp" && "$@") >"$tmp/$name.build" 2>&1; then
        if [ -s "$tmp/$name.build" ]; then
            notok "$name: builds silently" "$(head -3 "$tmp/$name.build" | oneline)"
        else
            ok "$name: builds silently"
        fi
    else
        notok "$name: builds" "$(head -5 "$tmp/$name.build" | oneline)"
    fi
}
build plain "$MPICXX" -g -O2 -fopenmp "$P" -o "$b/plain"
build t0 "$MPICXX" -g -O2 -fopenmp "$P" -o "$b/t0" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR"
build t1 "$HPCC" --tier=1 "$MPICXX" -g -O2 -fopenmp "$P" -o "$b/t1"
build t2 "$HPCC" "$MPICXX" -g -O2 -fopenmp "$P" -o "$b/t2"

# ---------------------------------------------------------------- runs
# run NAME - runs $b/NAME on NP ranks: $tmp/NAME.out, $RC, $PROFILE
run() {
    RC=0
    PROFILE=$tmp/$1.hpf
    HPROF_OUTPUT=$PROFILE timeout 300 "$MPIRUN" -np "$NP" "${MPIFLAGS[@]}" -x HPROF_OUTPUT \
        "$b/$1" >"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null || RC=$?
}
run plain
PLAIN_RC=$RC
expect_eq "plain: exits 0" 0 "$PLAIN_RC"

# sql SQL - on the profile of the tier being checked (CSV quotes removed)
sql() { q "$PROFILE" "$1" | tr -d '"'; }
same_stdout() {
    if cmp -s "$2" "$3"; then ok "$1"; else notok "$1" "expected '$(oneline <"$2")' got '$(oneline <"$3")'"; fi
}
FROM="FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site"

# procs - "name,count" of every procedure site, summed over ranks and threads
procs() {
    sql "SELECT s.name, sum(st.count) $FROM WHERE s.kind = 'procedure'
         AND s.file LIKE '%/prog.cpp' GROUP BY s.name ORDER BY s.name"
}

# common TIER - the checks every tier shares
common() {
    local t=$1
    expect_eq "$t: exit status as plain" "$PLAIN_RC" "$RC"
    same_stdout "$t: stdout as plain" "$tmp/plain.out" "$tmp/$t.out"
    [ -s "$PROFILE" ] || { notok "$t: profile written" "none: $(tail -3 "$tmp/$t.err" | oneline)"; return 1; }
    check_profile "$t" "$PROFILE"
    expect_eq "$t: MPI_Send at line $Lsend: $MSGS calls, $((MSGS * COUNT * 8)) bytes to rank 1" \
        "$MSGS,$((MSGS * COUNT * 8)),1" \
        "$(sql "SELECT sum(c.count), sum(c.bytes_sent), min(c.peer) FROM comm c JOIN node n ON n.id = c.node
                JOIN site s ON s.id = n.site WHERE s.name = 'MPI_Send' AND s.line = $Lsend")"
    expect_eq "$t: MPI_Recv at line $Lrecv: $MSGS calls, $((MSGS * COUNT * 8)) bytes from rank 0" \
        "$MSGS,$((MSGS * COUNT * 8)),0" \
        "$(sql "SELECT sum(c.count), sum(c.bytes_recv), min(c.peer) FROM comm c JOIN node n ON n.id = c.node
                JOIN site s ON s.id = n.site WHERE s.name = 'MPI_Recv' AND s.line = $Lrecv")"
    expect_eq "$t: MPI_Comm_rank in the lambda (line $Lrank): $LAMBDAS calls per rank" \
        "$((NP * LAMBDAS))" \
        "$(sql "SELECT sum(st.count) $FROM WHERE s.name = 'MPI_Comm_rank' AND s.line = $Lrank")"
    expect_eq "$t: the omp parallel for ran once per rank on 2 threads" "$((NP * 2))" \
        "$(sql "SELECT sum(st.count) $FROM WHERE s.kind = 'omp' AND s.name = 'parallel'")"
}

# tier 0: the frames of the call paths are named demangled
run t0
if common t0; then
    expect_eq "t0: MPI_Send and MPI_Recv lie in solver::Field<double>::exchange(int, int)" \
        "solver::Field<double>::exchange(int, int)" \
        "$(sql "SELECT DISTINCT s.func FROM site s WHERE s.name IN ('MPI_Send', 'MPI_Recv')")"
    expect_eq "t0: MPI_Comm_rank of line $Lrank lies in $LAMBDA" "$LAMBDA" \
        "$(sql "SELECT DISTINCT s.func FROM site s WHERE s.line = $Lrank")"
fi

# tier 1: procedures and calls demangled, exact counts
run t1
if common t1; then
    expect_eq "t1: procedures and their calls (demangled)" \
        "$(printf '%s\n' "main,$NP" "$LAMBDA,$((NP * LAMBDAS))" "omp_work(int),$NP" \
            "solver::Field<double>::Field(int),$NP" "solver::Field<double>::exchange(int, int),$NP" \
            "solver::Field<double>::scale(double),$NP" "solver::Field<double>::sum() const,$((NP * SUMS))" \
            "solver::check(int),$((NP * TRIES))" "solver::deep(int),$((NP * TRIES))" | sort)" \
        "$(procs | sort)"
    expect_eq "t1: deep calls check at line $Lcheck $TRIES times per rank, the throw included" \
        "solver::check(int),$((NP * TRIES))" \
        "$(sql "SELECT s.name, sum(st.count) $FROM WHERE s.kind = 'call' AND s.line = $Lcheck GROUP BY s.name")"
    expect_eq "t1: main calls deep at line $Ldeep $TRIES times per rank" \
        "solver::deep(int),$((NP * TRIES))" \
        "$(sql "SELECT s.name, sum(st.count) $FROM WHERE s.kind = 'call' AND s.line = $Ldeep GROUP BY s.name")"
    expect_eq "t1: no hooked procedure from the system headers" "" \
        "$(sql "SELECT DISTINCT s.name FROM site s WHERE s.kind = 'procedure' AND s.file LIKE '/usr/%'")"
fi

# tier 2: one site per source construct, names as written
run t2
if common t2; then
    expect_eq "t2: procedures and their calls (one per template)" \
        "$(printf '%s\n' "main,$NP" "$LAMBDA,$((NP * LAMBDAS))" "omp_work(int),$NP" \
            "solver::Field<T>::Field(int),$NP" "solver::Field<T>::exchange(int, int),$NP" \
            "solver::Field<T>::scale(T),$NP" "solver::Field<T>::sum() const,$((NP * SUMS))" \
            "solver::check(int),$((NP * TRIES))" "solver::deep(int),$((NP * TRIES))" | sort)" \
        "$(procs | sort)"
    expect_eq "t2: deep calls check at line $Lcheck $TRIES times per rank, the throw included" \
        "solver::check(int),$((NP * TRIES))" \
        "$(sql "SELECT s.name, sum(st.count) $FROM WHERE s.kind = 'call' AND s.line = $Lcheck GROUP BY s.name")"
    expect_eq "t2: main calls deep at line $Ldeep $TRIES times per rank" \
        "solver::deep(int),$((NP * TRIES))" \
        "$(sql "SELECT s.name, sum(st.count) $FROM WHERE s.kind = 'call' AND s.line = $Ldeep GROUP BY s.name")"
    expect_eq "t2: the call of deep is linked to its procedure" "solver::deep(int)" \
        "$(sql "SELECT DISTINCT p.name FROM site s JOIN site p ON p.id = s.callee WHERE s.line = $Ldeep")"
fi

# ---------------------------------------------------------------- constructs
# tests/cxx/constructs.cpp, serial: tiers 1 and 2 build silently, run as
# plain, --check holds, exact counts where it states them, and --list says
# what tier 2 leaves alone.
C=$S/constructs.cpp
CXX=${CXX:-g++}
THROWS=$(define_of "$C" THROWS) Lcx=$(line_of "$C" constexpr) Lref=$(line_of "$C" ref-call)
build c.plain "$CXX" -std=c++17 -g -O2 -fopenmp "$C" -o "$b/c.plain"
build c.t1 "$HPCC" --tier=1 "$CXX" -std=c++17 -g -O2 -fopenmp "$C" -o "$b/c.t1"
build c.t2 "$HPCC" "$CXX" -std=c++17 -g -O2 -fopenmp "$C" -o "$b/c.t2"
crun() {   # crun NAME: serial run, $RC, $PROFILE
    RC=0
    PROFILE=$tmp/$1.hpf
    HPROF_OUTPUT=$PROFILE timeout 120 "$b/$1" >"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null || RC=$?
}
crun c.plain
for t in t1 t2; do
    crun c.$t
    expect_eq "constructs $t: exit status as plain" 0 "$RC"
    same_stdout "constructs $t: stdout as plain" "$tmp/c.plain.out" "$tmp/c.$t.out"
    check_profile "constructs $t" "$PROFILE"
    expect_eq "constructs $t: thrower runs $THROWS times, the throw from its loop included" \
        "thrower(int),$THROWS;$LAMBDA,1" \
        "$(sql "SELECT s.name, sum(st.count) $FROM WHERE s.kind = 'procedure' AND s.name IN
                ('thrower(int)', '$LAMBDA') GROUP BY s.name ORDER BY s.name DESC")"
done
"$INST" --list "$C" -std=c++17 -fopenmp >"$tmp/c.list" 2>&1 || true
expect_eq "constructs: --list says why the constexpr function and a call returning a reference get no probe" \
    "# skipped procedure $Lcx geo::sq(int): constexpr: a probe would make it unusable in constant expressions (C++);# skipped call $Lref geo::counter(): returns a class, a reference or a dependent type: a statement expression would copy it (C++)" \
    "$(grep -E "^# skipped (procedure $Lcx|call $Lref) " "$tmp/c.list")"

# clang++ too (tier 1 hooks after inlining there): builds silently, runs as plain
if command -v clang++ >/dev/null; then
    build cl.plain clang++ -std=c++17 -g -O2 "$C" -o "$b/cl.plain"
    crun cl.plain
    for t in t1 t2; do
        build cl.$t "$HPCC" --tier=${t#t} clang++ -std=c++17 -g -O2 "$C" -o "$b/cl.$t"
        crun cl.$t
        expect_eq "constructs clang++ $t: exit status as plain" 0 "$RC"
        same_stdout "constructs clang++ $t: stdout as plain" "$tmp/cl.plain.out" "$tmp/cl.$t.out"
        check_profile "constructs clang++ $t" "$PROFILE"
    done
else
    skipped "constructs with clang++" "no clang++"
fi

# ---------------------------------------------------------------- headers
# tier 1: the tiny inline functions of the program's own header unhooked
# by name, unless the name is part of a hooked one's (tests/cxx/grid.h)
Hs=$S/header.cpp
NH=$(define_of "$Hs" N)
build h.t1 "$HPCC" --tier=1 "$CXX" -g -O2 "$Hs" -o "$b/h.t1"
crun h.t1
expect_eq "header t1: runs, prints as designed" "0|45 90 20" "$RC|$(cat "$tmp/h.t1.out")"
check_profile "header t1" "$PROFILE"
# (gcc hooks the implicit constructor and destructor too: no source to judge)
expect_eq "header t1: at hooked ($NH calls), total and atsum hooked, size2 (tiny) unhooked" \
    "$(printf '%s\n' "Grid::Grid(),1" "Grid::at(int),$NH" "Grid::atsum() const,1" "Grid::total() const,1" \
        "Grid::~Grid(),1" "main,1")" \
    "$(sql "SELECT s.name, sum(st.count) $FROM WHERE s.kind = 'procedure' GROUP BY s.name ORDER BY s.name")"
"$INST" --tier=1 --list "$Hs" >"$tmp/h.list" 2>&1 || true
expect_eq "header t1: --list says why" \
    "hooked header procedure $S/grid.h:15 Grid::at(int): tiny, but its name is part of the name of a hooked procedure;unhooked header procedure $S/grid.h:16 Grid::size2() const: tiny procedure of a header: excluded by name" \
    "$(grep 'header procedure' "$tmp/h.list")"

# ---------------------------------------------------------------- never silent
# A file libclang cannot parse (it defines __clang__) but g++ compiles.
cat >"$tmp/odd.cpp" <<'EOF'
#ifdef __clang__
#error not for clang
#endif
#include <cstdio>
int main() { std::printf("odd\n"); return 0; }
EOF
RC=0
(cd "$tmp" && "$HPCC" g++ -O2 odd.cpp -o "$b/odd") 2>"$tmp/odd.build" || RC=$?
expect_eq "a C++ file the instrumenter cannot parse: builds" 0 "$RC"
expect_eq "... with one warning naming the file and the reason" \
    "hprof-cc: warning: odd.cpp not instrumented: 2:2: not for clang" "$(cat "$tmp/odd.build")"
expect_eq "... and links libhprof" 1 "$(readelf -d "$b/odd" | grep -c 'NEEDED.*libhprof')"

# A link of objects only, by hprof-mpicxx (the compiler from its name).
RC=0
(cd "$tmp" && "$builddir/instrument/hprof-mpicxx" -g -O2 -fopenmp -c "$P" -o "$b/prog.o" &&
    "$builddir/instrument/hprof-mpicxx" -fopenmp "$b/prog.o" -o "$b/objs") >"$tmp/objs.build" 2>&1 || RC=$?
expect_eq "hprof-mpicxx: compiles and links objects silently" "0:" "$RC:$(oneline <"$tmp/objs.build")"
expect_eq "... the link of objects adds libhprof" 1 "$(readelf -d "$b/objs" | grep -c 'NEEDED.*libhprof')"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
