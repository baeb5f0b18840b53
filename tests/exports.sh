#!/bin/bash
# tests/exports.sh - libhprof.so exports only what it interposes or offers:
# MPI_*, the Fortran bindings of the MPI functions (mpi_*, mpi_*_,
# mpi_*__, mpi_*_f08_: the upper-case mangling is MPI_*), GOMP_*, the
# omp_* lock calls it wraps, POMP2_*, ompt_start_tool,
# __kmpc_fork_call, __kmpc_fork_teams and __kmpc_fork_call_if (they note
# the outlined function of each clang region), libomptarget's
# __tgt_target_*mapper (clang's target regions),
# __cyg_profile_*, dlclose (an unloaded module's sites are resolved
# first: finish/unload.c), _exit and _Exit (pmpi/exit.c) and the hprof_*
# API; no internal hp_* symbol (they are
# hidden, so the library calls its own helpers directly, not through the
# PLT, and no program can bind to them).
# usage: tests/exports.sh [BUILDDIR]
set -euo pipefail
builddir=$(cd "${1:-.}" && pwd)
lib=$builddir/pmpi/.libs/libhprof.so
if [ ! -e "$lib" ]; then
    echo "not ok - $lib exists"
    echo "0 passed, 1 failed"
    exit 1
fi
pass=0 fail=0
check() {
    if [ "$2" = "$3" ]; then echo "ok - $1"; pass=$((pass + 1));
    else echo "not ok - $1: expected '$2' got '$3'"; fail=$((fail + 1)); fi
}
syms=$(nm -D --defined-only "$lib" | awk '{ print $3 }')
check "no hp_* symbol is exported" "" "$(printf '%s\n' "$syms" | grep '^hp_' | head -5 | tr '\n' ' ')"
check "every exported symbol is an interposed or offered one" "" \
    "$(printf '%s\n' "$syms" | grep -Ev '^(MPI_|mpi_|GOMP_|omp_|POMP2_|pomp2_|ompt_start_tool$|__kmpc_fork_(call|teams|call_if)$|__tgt_target_(teams_)?(nowait_)?mapper$|__cyg_profile_|dlclose$|hprof_|_exit$|_Exit$)' |
       grep -v '^$' | head -5 | tr '\n' ' ')"
check "MPI_Send, GOMP_parallel, POMP2_Parallel_fork, hprof_enter are exported" "4" \
    "$(printf '%s\n' "$syms" | grep -cE '^(MPI_Send|GOMP_parallel|POMP2_Parallel_fork|hprof_enter)$')"
check "MPI_Send's Fortran bindings are exported (MPI_SEND mpi_send mpi_send_ mpi_send__ mpi_send_f08_)" "5" \
    "$(printf '%s\n' "$syms" | grep -cE '^(MPI_SEND|mpi_send|mpi_send_|mpi_send__|mpi_send_f08_)$')"
check "every mpi_* export is a Fortran binding of a wrapped C function" "" \
    "$(printf '%s\n' "$syms" | sed -n 's/^mpi_\(.*\)_$/\1/p' | grep -v '_f08$' | while read -r f; do
           grep -qix "MPI_$f" <<<"$syms" || printf 'mpi_%s_ ' "$f"
       done)"
check "__kmpc_fork_call, __kmpc_fork_teams, __kmpc_fork_call_if are exported (OMPT builds)" "" \
    "$(if grep -q '^ompt_start_tool$' <<<"$syms"; then
           for s in __kmpc_fork_call __kmpc_fork_teams __kmpc_fork_call_if; do
               grep -qx "$s" <<<"$syms" || printf '%s ' "$s"
           done
       fi)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
