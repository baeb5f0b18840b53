#!/bin/bash
# tests/fortran/run.sh - Fortran at tiers 0, 1 and 2 against the ground
# truth stated in tests/fortran/heat.f90 (a module procedure, internal
# procedures, a tiny procedure, two OpenMP parallel do, a `use hprof` user
# region, the program heat), one process, no MPI:
#   - tier 0: gfortran -g -fopenmp heat.f90 -lhprof (GOMP source);
#   - tier 1: hprof-cc --tier=1 gfortran (compile and link in one command);
#   - tier 2: hprof-cc gfortran -c, then hprof-cc gfortran heat.o (opari2's
#     POMP2 calls, its init file at the link);
#   - tier 2 --procedures=all, and tier 1 --filter (exclude heat::smooth);
#   - tier 1 by hand without -g: module procedures named from their symbols;
#   - tests/fortran/constructs.f90 at tier 2: every OpenMP construct and
#     lock call through opari2 and the Fortran POMP2 entries, exact counts
#     at the construct's line; at tier 0 the constructs placed from the
#     text of their directives (gfortran's own lines are often a
#     neighbour's; a directive continued over lines starts at its first);
# checked from the database with SQL: exact counts of procedures, call
# sites, the user region and the OpenMP records, each at its MARK line;
# names as a Fortran programmer writes them (halo_mod::exchange,
# heat::smooth, heat; no gfortran symbol such as __halo_mod_MOD_exchange
# or MAIN__ anywhere); hprof-query --check clean on every profile (strict:
# no CHECK_TODO); the same stdout and exit status (3, from `stop 3`) as
# the plain build (heat.f90 with stubs of the hprof calls, no hprof).
# Then MPI from Fortran (tests/fortran/halo.f90, use mpi, 2 ranks under
# mpirun) at the three tiers, built with mpif90 (hprof-mpif90 --tier=1,
# hprof-cc mpif90): MPI_Sendrecv and MPI_Allreduce counted exactly at their lines
# in the module procedures that call them, MPI_Pcontrol(0)/(1) leaving
# two exchanges per rank unrecorded, the OpenMP records, the procedures,
# the call-path frame of tier 0 named after the program.
#
# usage: tests/fortran/run.sh [BUILDDIR]   (default: the current directory)
# Env: FC (default gfortran), MPIF90, MPIRUN, HPROF_KEEP_TMP=1 keeps the temp dir.  Prints
# "ok - NAME" / "not ok - NAME: expected X got Y" per check and a last
# line "N passed, M failed"; exits 1 if anything failed.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
# One MPI test at a time, even under make -j2 check.
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
. "$srcdir/tests/lib.sh"
instrumenter_env
FC=${FC:-gfortran}
LIBDIR=$builddir/pmpi/.libs
S=$srcdir/tests/fortran
SRC=$S/heat.f90
test_tmpdir fortran

if ! command -v "$FC" >/dev/null || [ ! -f "$builddir/libhprof/hprof.mod" ]; then
    skipped "Fortran tests" "$FC or libhprof/hprof.mod missing"
    echo "0 passed, 0 failed"
    exit 0
fi

# mark TAG - the line of heat.f90 carrying the comment "! MARK:TAG".
mark() {
    local n
    n=$(grep -n "! MARK:$1\$" "$SRC" | cut -d: -f1)
    if [ -z "$n" ] || [ "$(printf '%s\n' "$n" | wc -l)" != 1 ]; then
        echo "run.sh: marker '! MARK:$1' not found exactly once in $SRC" >&2
        exit 2
    fi
    echo "$n"
}

# count DB KIND NAME [LINE] - calls of the sites of KIND named NAME (at
# LINE), summed over threads; 0 when there is none.
count() {
    local where="s.kind = '$2' AND s.name = '$3'"
    [ -n "${4:-}" ] && where="$where AND s.line = $4"
    q "$1" "SELECT coalesce(sum(st.count), 0) $OMPJOIN WHERE $where"
}

# func_of DB KIND NAME - the function (func) of the sites of KIND named NAME.
func_of() {
    q "$1" "SELECT DISTINCT s.func FROM site s WHERE s.kind = '$2' AND s.name = '$3'"
}

# run NAME - runs $tmp/NAME (profile NAME.hpf, stdout NAME.out, status
# NAME.rc), checks its stdout and status against the plain build's and
# its profile's invariants.
run() {
    local rc=0
    (cd "$tmp" && HPROF_OUTPUT=$tmp/$1.hpf timeout 120 "./$1" >"$1.out" 2>"$1.err") || rc=$?
    echo "$rc" >"$tmp/$1.rc"
    expect_eq "$1: same stdout as the plain build" "$(cat "$tmp/plain.out")" "$(cat "$tmp/$1.out")"
    expect_eq "$1: same exit status as the plain build" "$(cat "$tmp/plain.rc")" "$rc"
    check_profile "$1" "$tmp/$1.hpf"
}

# names DB - no gfortran symbol shown for a procedure anywhere.
names() {
    expect_eq "$2: no gfortran symbol in the site names" "0" \
        "$(q "$1" "SELECT count(*) FROM site WHERE name LIKE '%\_MOD\_%' ESCAPE '\\' OR func LIKE '%\_MOD\_%' ESCAPE '\\'
                   OR name = 'MAIN__' OR func = 'MAIN__' OR name LIKE '%.0' OR func LIKE '%.0'
                   OR func LIKE '%omp_fn%'")"
}

# omp_checks DB NAME - the OpenMP records of both parallel do.
omp_checks() {
    local db=$1 name=$2 L=$(mark omp) LS=$(mark ompscale)
    expect_eq "$name: parallel (relax) run by 2 threads x 2 calls" 4 "$(count "$db" omp parallel "$L")"
    expect_eq "$name: fork (relax) on the master, 2 calls" 2 "$(count "$db" omp fork "$L")"
    expect_eq "$name: implicit barrier (relax) 4" 4 "$(count "$db" omp 'implicit barrier' "$L")"
    expect_eq "$name: parallel (scale) run by 2 threads" 2 "$(count "$db" omp parallel "$LS")"
    expect_eq "$name: fork (scale) 1" 1 "$(count "$db" omp fork "$LS")"
}

# region_checks DB NAME - the user region of `use hprof`.
region_checks() {
    expect_eq "$2: region solve 2 times at its line" 2 "$(count "$1" region solve "$(mark region)")"
    expect_eq "$2: region solve in halo_mod::relax" "halo_mod::relax" "$(func_of "$1" region solve)"
}

# proc_checks DB NAME TWICE - the procedures and their call sites
# (TWICE: halo_mod::twice's count, 0 when the policy leaves it unprobed).
proc_checks() {
    local db=$1 name=$2
    expect_eq "$name: procedure halo_mod::exchange 10" 10 "$(count "$db" procedure halo_mod::exchange)"
    expect_eq "$name: call halo_mod::exchange 10 at its line, from heat" "10;heat" \
        "$(count "$db" call halo_mod::exchange "$(mark exch)"; func_of "$db" call halo_mod::exchange)"
    expect_eq "$name: procedure heat::smooth ${4:-3} (internal)" "${4:-3}" "$(count "$db" procedure heat::smooth)"
    expect_eq "$name: procedure halo_mod::relax 2" 2 "$(count "$db" procedure halo_mod::relax)"
    expect_eq "$name: call halo_mod::relax 2 at its line" 2 "$(count "$db" call halo_mod::relax "$(mark relax)")"
    expect_eq "$name: procedure heat::scale 1 (internal)" 1 "$(count "$db" procedure heat::scale)"
    expect_eq "$name: the program heat run once" 1 "$(count "$db" procedure heat)"
    expect_eq "$name: procedure halo_mod::twice $3" "$3" "$(count "$db" procedure halo_mod::twice)"
    expect_eq "$name: gfortran's main not hooked" 0 "$(count "$db" procedure main)"
}

# ---- heat.f90: builds ---------------------------------------------------
cd "$tmp"
cp "$SRC" heat.f90
cat >stub.c <<'EOF'
/* the calls of `use hprof`, doing nothing: the plain build */
void hprof_region_begin_(const char *n, unsigned long l) { (void)n; (void)l; }
void hprof_region_end_(const char *n, unsigned long l) { (void)n; (void)l; }
EOF
build() {
    local what=$1
    shift
    if "$@" >"$tmp/$what.build" 2>&1; then ok "$what: built"; else
        notok "$what: built" "$(tail -3 "$tmp/$what.build" | oneline)"
    fi
}
build plain "$FC" -fopenmp -I"$builddir/libhprof" heat.f90 stub.c -o plain
build t0 "$FC" -g -fopenmp -I"$builddir/libhprof" heat.f90 -o t0 -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR"
build t1 "$HPCC" --tier=1 "$FC" -fopenmp heat.f90 -o t1
build t1nog "$FC" -fopenmp -finstrument-functions -I"$builddir/libhprof" heat.f90 -o t1nog \
    -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR"
mkdir -p t2dir pdir fdir
build t2 sh -c "cd t2dir && '$HPCC' '$FC' -fopenmp -O2 -c ../heat.f90 -o heat.o && '$HPCC' '$FC' -fopenmp heat.o -o ../t2"
build t2all sh -c "cd pdir && '$HPCC' --procedures=all '$FC' -fopenmp -c ../heat.f90 && '$HPCC' '$FC' -fopenmp heat.o -o ../t2all"
printf 'exclude function heat::smooth\n' >filter
build t1filter sh -c "cd fdir && '$HPCC' --tier=1 --filter ../filter '$FC' -fopenmp ../heat.f90 -o ../t1filter"

rc=0
./plain >plain.out 2>/dev/null || rc=$?
echo "$rc" >plain.rc
expect_eq "plain: stops with status 3" 3 "$rc"

# ---- tier 0 -------------------------------------------------------------
run t0
omp_checks t0.hpf t0
region_checks t0.hpf t0
names t0.hpf t0
expect_eq "t0: parallel (relax) in halo_mod::relax" "halo_mod::relax" "$(func_of t0.hpf omp parallel | grep relax || true)"
expect_eq "t0: parallel (scale) in heat::scale" "heat::scale" "$(func_of t0.hpf omp parallel | grep scale || true)"
expect_eq "t0: the fork of scale's region under the call-path frame heat at the call" "heat" \
    "$(q t0.hpf "SELECT f.name FROM node n JOIN site s ON s.id = n.site JOIN node p ON p.id = n.parent
                 JOIN site f ON f.id = p.site WHERE s.name = 'fork' AND s.line = $(mark ompscale)
                 AND f.line = $(mark scale)")"

# ---- tier 1 -------------------------------------------------------------
run t1
proc_checks t1.hpf t1 0
omp_checks t1.hpf t1
region_checks t1.hpf t1
names t1.hpf t1
expect_eq "t1: halo_mod::exchange under heat" "heat" \
    "$(q t1.hpf "SELECT DISTINCT f.name FROM node n JOIN site s ON s.id = n.site JOIN node c ON c.id = n.parent
                 JOIN node p ON p.id = c.parent JOIN site f ON f.id = p.site
                 WHERE s.kind = 'procedure' AND s.name = 'halo_mod::exchange'")"

run t1filter
proc_checks t1filter.hpf t1filter 0 0

# without -g: the module procedures named from their symbols
run t1nog
expect_eq "t1nog: procedures halo_mod::exchange 10, halo_mod::relax 2 (symbols)" "10;2" \
    "$(count t1nog.hpf procedure halo_mod::exchange; count t1nog.hpf procedure halo_mod::relax)"
expect_eq "t1nog: no module symbol shown" 0 \
    "$(q t1nog.hpf "SELECT count(*) FROM site WHERE name LIKE '%\_MOD\_%' ESCAPE '\\'")"

# ---- tier 2 -------------------------------------------------------------
run t2
proc_checks t2.hpf t2 0
omp_checks t2.hpf t2
region_checks t2.hpf t2
names t2.hpf t2
expect_eq "t2: POMP2 loop records of both parallel do (4 + 2)" "4;2" \
    "$(count t2.hpf omp loop "$(mark omp)"; count t2.hpf omp loop "$(mark ompscale)")"
expect_eq "t2: the init file registered the regions" "1" \
    "$(nm t2 | grep -c ' T POMP2_Init_regions$' || true)"

run t2all
proc_checks t2all.hpf t2all 3

# ---- constructs.f90: every OpenMP construct through opari2 (tier 2) ------
SRC=$S/constructs.f90
cp "$SRC" constructs.f90
mkdir -p d.cons
build cplain "$FC" -fopenmp constructs.f90 -o cplain
build c2 sh -c "cd d.cons && '$HPCC' '$FC' -fopenmp -c ../constructs.f90 && '$HPCC' '$FC' -fopenmp constructs.o -o ../c2"
build c0 "$FC" -g -O2 -fopenmp constructs.f90 -o c0 -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR"
./cplain >cplain.out 2>/dev/null || true
rc=0
(HPROF_OUTPUT=$tmp/c2.hpf timeout 120 ./c2 >c2.out 2>c2.err) || rc=$?
expect_eq "c2: same stdout and exit status as the plain build" "$(cat cplain.out);0" "$(cat c2.out);$rc"
check_profile c2 "$tmp/c2.hpf"
# omp_at NAME TAG - the calls of construct record NAME at the MARK:TAG line
# (of $db).
db=c2.hpf
omp_at() { count "$db" omp "$1" "$(mark "$2")"; }
expect_eq "c2: parallel 2, fork 1, join 1" "2;1;1" "$(omp_at parallel par; omp_at fork par; omp_at join par)"
expect_eq "c2: do: loop 2, implicit barrier 2" "2;2" "$(omp_at loop do; omp_at 'implicit barrier' do)"
expect_eq "c2: critical 2 holds, 2 waits" "2;2" "$(omp_at critical critical; omp_at 'critical wait' critical)"
expect_eq "c2: single 1, implicit barrier 2" "1;2" "$(omp_at single single; omp_at 'implicit barrier' single)"
expect_eq "c2: barrier 2, atomic 2" "2;2" "$(omp_at barrier barrier; omp_at atomic atomic)"
expect_eq "c2: sections: loop 2, implicit barrier 2" "2;2" \
    "$(omp_at loop sections; omp_at 'implicit barrier' sections)"
expect_eq "c2: master 1" 1 "$(omp_at master master)"
expect_eq "c2: omp_set_lock: 2 waits, 2 holds at the call" "2;2" "$(omp_at 'lock wait' lock; omp_at lock lock)"
expect_eq "c2: omp_set_nest_lock: 2 holds from the outer set, 2 waits at each set" "2;2;2;0" \
    "$(omp_at lock nest; omp_at 'lock wait' nest; omp_at 'lock wait' nest2; omp_at lock nest2)"
expect_eq "c2: task: 4 creations, 4 executions; taskwait 1" "4;4;1" \
    "$(omp_at 'task create' task; omp_at task task; omp_at taskwait taskwait)"
expect_eq "c2: the continued parallel do at its first line: 2 runs, 1 fork" "2;1" \
    "$(omp_at parallel cont; omp_at fork cont)"

# tier 0 (GOMP): the sites gfortran puts on a neighbouring line placed at
# their directives (omp_fortran.c)
rc=0
(HPROF_OUTPUT=$tmp/c0.hpf timeout 120 ./c0 >c0.out 2>c0.err) || rc=$?
expect_eq "c0: same stdout and exit status as the plain build" "$(cat cplain.out);0" "$(cat c0.out);$rc"
check_profile c0 "$tmp/c0.hpf"
db=c0.hpf
expect_eq "c0: parallel 2, fork 1" "2;1" "$(omp_at parallel par; omp_at fork par)"
expect_eq "c0: critical 2 holds, 2 waits" "2;2" "$(omp_at critical critical; omp_at 'critical wait' critical)"
expect_eq "c0: single 1 at its directive (gfortran: the critical's line), implicit barrier 2" "1;2" \
    "$(omp_at single single; omp_at 'implicit barrier' single)"
expect_eq "c0: barrier 2" 2 "$(omp_at barrier barrier)"
expect_eq "c0: sections: implicit barrier 2 at the directive" 2 "$(omp_at 'implicit barrier' sections)"
expect_eq "c0: single of the tasks 1 (gfortran: the line before)" 1 "$(omp_at single tasks)"
expect_eq "c0: task: 4 creations, 4 executions; taskwait 1" "4;4;1" \
    "$(omp_at 'task create' task; omp_at task task; omp_at taskwait taskwait)"
expect_eq "c0: the continued parallel do at its first line (gfortran: its last): 2 runs, 1 fork" "2;1" \
    "$(omp_at parallel cont; omp_at fork cont)"
expect_eq "c0: Fortran's omp_set_lock: 2 waits, 2 holds at the call" "2;2" \
    "$(omp_at 'lock wait' lock; omp_at lock lock)"
expect_eq "c0: Fortran's omp_set_nest_lock: 2 holds from the outer set, 2 waits at each set" "2;2;2;0" \
    "$(omp_at lock nest; omp_at 'lock wait' nest; omp_at 'lock wait' nest2; omp_at lock nest2)"

# ---- two sources built in another directory ------------------------------
# hprof-cc's first compile of a source runs in a directory of its own: the
# module of another source must still be found where the user's compiler
# wrote it (the current directory), and a stale module of the same name
# there must not shadow the one a source defines.
mkdir -p two/src two/build
cat >two/src/mm.f90 <<'EOF'
module mm
contains
  subroutine work(x)
    real(8) :: x
    integer :: i
    do i = 1, 3
      x = x + 1
      x = x * 2
      x = x - 1
      x = x / 2
      x = x + 3
    end do
  end subroutine work
end module mm
EOF
cat >two/src/two.f90 <<'EOF'
program two
  use mm
  real(8) :: x
  x = 0
  call work(x)
  print *, x
end program two
EOF
cat >two/build/stale.f90 <<'EOF'
module halo_mod
  integer :: stale
end module halo_mod
EOF
cp heat.f90 two/build/heat.f90
build two sh -c "cd two/build && '$FC' -c stale.f90 && '$HPCC' --tier=1 '$FC' -c ../src/mm.f90 &&
    '$HPCC' --tier=1 '$FC' -c ../src/two.f90 && '$HPCC' --tier=1 '$FC' mm.o two.o -o ../../two.x &&
    '$HPCC' --tier=1 '$FC' -fopenmp -c heat.f90"
expect_eq "two: no policy warning (modules found, none shadowed)" "" \
    "$(grep 'hprof-cc: warning' two.build || true)"
(cd "$tmp" && HPROF_OUTPUT=$tmp/two.hpf ./two.x >/dev/null 2>&1) || true
check_profile two "$tmp/two.hpf"
expect_eq "two: procedure mm::work once" 1 "$(count two.hpf procedure mm::work)"

# ---- halo.f90: MPI from Fortran -------------------------------------------
SRC=$S/halo.f90
MPIF90=${MPIF90:-mpif90}
MPIRUN=${MPIRUN:-mpirun}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# mpi_run NAME - NAME on 2 ranks, as run does.
mpi_run() {
    local rc=0
    (cd "$tmp" && HPROF_OUTPUT=$tmp/$1.hpf timeout 120 "$MPIRUN" -np 2 --bind-to none -x HPROF_OUTPUT \
        -x HPROF_SUMMARY "./$1" >"$1.out" 2>"$1.err" </dev/null) || rc=$?
    expect_eq "$1: same stdout as the plain build" "$(cat "$tmp/mplain.out")" "$(cat "$tmp/$1.out")"
    expect_eq "$1: same exit status as the plain build" "$(cat "$tmp/mplain.rc")" "$rc"
    check_profile "$1" "$tmp/$1.hpf"
}

# mpi_checks DB NAME - the MPI and OpenMP records of halo.f90.
mpi_checks() {
    local db=$1 name=$2
    expect_eq "$name: MPI_Sendrecv 8 (6 per rank, 2 under MPI_Pcontrol(0)) at its line" 8 \
        "$(count "$db" comm MPI_Sendrecv "$(mark sendrecv)")"
    expect_eq "$name: MPI_Sendrecv in halo_mod::exchange" "halo_mod::exchange" "$(func_of "$db" comm MPI_Sendrecv)"
    expect_eq "$name: MPI_Allreduce 2 at its line, in halo_mod::total" "2;halo_mod::total" \
        "$(count "$db" comm MPI_Allreduce "$(mark allreduce)"; func_of "$db" comm MPI_Allreduce)"
    expect_eq "$name: parallel run by 2 threads on 2 ranks, 2 forks" "4;2" \
        "$(count "$db" omp parallel "$(mark omp)"; count "$db" omp fork "$(mark omp)")"
    names "$db" "$name"
}

# mpi_proc_checks DB NAME - the procedures of halo.f90 (tiers 1 and 2).
mpi_proc_checks() {
    local db=$1 name=$2
    expect_eq "$name: procedure halo_mod::exchange 8 (MPI_Pcontrol(0) stops it too)" 8 \
        "$(count "$db" procedure halo_mod::exchange)"
    expect_eq "$name: call halo_mod::exchange 8 at its line, from halo" "8;halo" \
        "$(count "$db" call halo_mod::exchange "$(mark exch)"; func_of "$db" call halo_mod::exchange)"
    expect_eq "$name: halo_mod::total, halo_mod::relax, the program halo: once per rank" "2;2;2" \
        "$(count "$db" procedure halo_mod::total; count "$db" procedure halo_mod::relax; count "$db" procedure halo)"
}

mkdir -p d.mplain d.m0 d.m1 d.m2
cp "$SRC" halo.f90
build mplain sh -c "cd d.mplain && '$MPIF90' -fopenmp ../halo.f90 -o ../mplain"
build m0 sh -c "cd d.m0 && '$MPIF90' -g -fopenmp ../halo.f90 -o ../m0 -L'$LIBDIR' -lhprof -Wl,-rpath,'$LIBDIR'"
build m1 sh -c "cd d.m1 && '$builddir/instrument/hprof-mpif90' --tier=1 -fopenmp ../halo.f90 -o ../m1"
build m2 sh -c "cd d.m2 && '$HPCC' '$MPIF90' -fopenmp -c ../halo.f90 && '$HPCC' '$MPIF90' -fopenmp halo.o -o ../m2"
rc=0
(timeout 120 "$MPIRUN" -np 2 --bind-to none ./mplain >mplain.out 2>mplain.err </dev/null) || rc=$?
echo "$rc" >mplain.rc
expect_eq "mplain: prints the sum once, status 0" "1;0" "$(grep -c '^sum' mplain.out);$rc"

mpi_run m0
mpi_checks m0.hpf m0
expect_eq "m0: MPI_Sendrecv under the call-path frame halo at the call of exchange" "halo" \
    "$(q m0.hpf "SELECT DISTINCT f.name FROM node n JOIN site s ON s.id = n.site JOIN node p ON p.id = n.parent
                 JOIN site f ON f.id = p.site WHERE s.name = 'MPI_Sendrecv' AND f.line = $(mark exch)")"
mpi_run m1
mpi_checks m1.hpf m1
mpi_proc_checks m1.hpf m1
mpi_run m2
mpi_checks m2.hpf m2
mpi_proc_checks m2.hpf m2
expect_eq "m2: POMP2 loop records (2 ranks x 2 threads)" 4 "$(count m2.hpf omp loop "$(mark omp)")"

[ "$skip" = 0 ] || echo "# $skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
