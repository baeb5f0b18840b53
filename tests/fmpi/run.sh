#!/bin/bash
# tests/fmpi/run.sh - MPI from Fortran at tier 0: the programs of tests/fmpi/
# (`use mpi`: fmpi.f90, `use mpi_f08`: fmpi08.f90, MPI_Abort: fabort.f90,
# ERROR STOP without MPI_Finalize: fstop.f90) built with mpif90 and
# -lhprof from this tree, or run plain with the library preloaded; their
# records are checked against each program's ground truth (its header
# comment): counts and bytes per line and peer, the 1-based Waitany index,
# MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, an optional ierror left out,
# character arguments, Pcontrol, call paths through Fortran frames, the
# aborting or stopping rank's own file; and stdout and exit status are the
# same as without hprof.
#
# usage: tests/fmpi/run.sh [BUILDDIR]   Env: MPIF90, MPIRUN, HPROF_KEEP_TMP=1.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPIF90=${MPIF90:-mpif90}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
LIB=$LIBDIR/libhprof.so
S=$srcdir/tests/fmpi

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir fmpi
export OMP_NUM_THREADS=2

for f in "$LIB" "$QUERY"; do
    [ -e "$f" ] || { notok "prerequisites" "missing: $f (build first)"; echo "$pass passed, $fail failed"; exit 1; }
done
if ! command -v "$MPIF90" >/dev/null; then
    notok "prerequisites" "no $MPIF90 (scripts/deps.sh installs gfortran and Open MPI)"
    echo "$pass passed, $fail failed"
    exit 1
fi

# build NAME "SRC..." [FLAGS...] - $tmp/NAME with hprof, $tmp/plain/NAME
# without; the sources in one command, in order (modules first).
build() {
    local name=$1 src=() f
    for f in $2; do src+=("$S/$f"); done
    shift 2
    mkdir -p "$tmp/plain" "$tmp/mod.$name" "$tmp/pmod.$name"
    "$MPIF90" -g -O2 "$@" -J "$tmp/mod.$name" "${src[@]}" -o "$tmp/$name" \
        -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" 2>"$tmp/$name.build" ||
        notok "build of $src with -lhprof" "$(head -3 "$tmp/$name.build" | oneline)"
    "$MPIF90" -g -O2 "$@" -J "$tmp/pmod.$name" "${src[@]}" -o "$tmp/plain/$name" 2>"$tmp/$name.pbuild" ||
        notok "plain build of $src" "$(head -3 "$tmp/$name.pbuild" | oneline)"
}

# run_both NAME WHAT - $tmp/NAME on 2 ranks with hprof, then plain: the
# same exit status, the same lines on stdout (in any order) and each
# rank's "bad 0"; true when the hprof run left a profile ($PROFILE).
run_both() {
    local rc_hprof
    hp_run "$1" 2 "$tmp/$1"
    rc_hprof=$RC
    plain_run "$1.plain" 2 "$tmp/plain/$1"
    expect_eq "$2: exit status as without hprof" "$RC" "$rc_hprof"
    RC=$rc_hprof
    ran_ok "$1" || return 1
    same_sorted "$1"
    expect_eq "$2: the program's own checks pass" "2" "$(grep -c ' bad 0\( \|$\)' "$tmp/$1.out")"
}

# same_sorted NAME - the ranks' lines of NAME.out and NAME.plain.out agree.
same_sorted() {
    sort "$tmp/$1.out" >"$tmp/$1.sorted"
    sort "$tmp/$1.plain.out" >"$tmp/$1.plain.sorted"
    same_stdout "$1: same stdout with and without hprof" "$tmp/$1.plain.sorted" "$tmp/$1.sorted"
}

# rows DB RANK MPI_NAME SRC TAG - peer,count,bytes_sent,bytes_recv per peer at a marked line.
rows() {
    comm_rows "$1" "$2" "$3" "$4" "$(line_of "$S/$4" "$5")" \
        'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)'
}
calls() { node_count "$1" "$2" "$3" "$4" "$(line_of "$S/$4" "$5")"; }
# coll DB RANK MPI_NAME SRC TAG - count,bytes_sent,bytes_recv of a collective's records.
coll() {
    q "$1" "SELECT sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv) FROM comm c
            JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
            WHERE c.rank = $2 AND s.name = '$3' AND s.file LIKE '%$4' AND s.line = $(line_of "$S/$4" "$5")"
}

build fmpi "halo.f90 fmpi.f90" -fopenmp
build fmpi08 fmpi08.f90
cd "$tmp"    # fmpi.f90 writes its file in the current directory
build fabort fabort.f90
build fstop fstop.f90

# ---------------------------------------------------------------- use mpi
src=fmpi.f90
if run_both fmpi "use mpi"; then
    db=$PROFILE
    expect_eq "use mpi: MPI_Send on rank 0, to rank 1" "1,5,2000,0" "$(rows "$db" 0 MPI_Send $src send)"
    expect_eq "use mpi: MPI_Recv (MPI_STATUS_IGNORE) on rank 1, from rank 0" "0,5,0,2000" \
        "$(rows "$db" 1 MPI_Recv $src recv)"
    expect_eq "use mpi: MPI_Irecv completed by MPI_Waitall, rank 0" "1,3,0,240" "$(rows "$db" 0 MPI_Irecv $src irecv)"
    expect_eq "use mpi: MPI_Isend completed by MPI_Waitall, rank 1" "0,3,240,0" "$(rows "$db" 1 MPI_Isend $src isend)"
    expect_eq "use mpi: one MPI_Waitall per rank" "1,1" \
        "$(calls "$db" 0 MPI_Waitall $src waitall),$(calls "$db" 1 MPI_Waitall $src waitall)"
    expect_eq "use mpi: MPI_Allreduce with MPI_IN_PLACE (count, bytes sent, received)" "4,256,256" \
        "$(coll "$db" 0 MPI_Allreduce $src allreduce)"
    expect_eq "use mpi: MPI_Allgather with MPI_IN_PLACE: the receive count's bytes" "1,16,16" \
        "$(coll "$db" 1 MPI_Allgather $src allgather)"
    expect_eq "use mpi: MPI_Sendrecv in the module procedure exchange (a send and a receive record each)" "1,12,384,384" \
        "$(rows "$db" 0 MPI_Sendrecv halo.f90 sendrecv)"
    expect_eq "use mpi: the Sendrecv site lies in halo_mod::exchange (its Fortran name)" "halo_mod::exchange" \
        "$(q "$db" "SELECT func FROM site WHERE name = 'MPI_Sendrecv' AND file LIKE '%halo.f90' AND line = $(line_of "$S/halo.f90" sendrecv)")"
    expect_eq "use mpi: the MPI_Send site lies in the program fmpi (MAIN__ by its name)" "fmpi" \
        "$(q "$db" "SELECT func FROM site WHERE name = 'MPI_Send' AND line = $(line_of "$S/$src" send)")"
    expect_eq "use mpi: the Sendrecv's call path goes through the call of exchange" "fmpi.f90:$(line_of "$S/$src" callexch)" \
        "$(q "$db" "SELECT DISTINCT substr(ps.file, length(ps.file) - 7) || ':' || ps.line FROM node n JOIN site s ON s.id = n.site
                    JOIN node p ON p.id = n.parent JOIN site ps ON ps.id = p.site
                    WHERE s.name = 'MPI_Sendrecv' AND s.file LIKE '%halo.f90'")"
    expect_eq "use mpi: no call-path frame in the main gfortran writes (start code, as the C library's)" "0" \
        "$(q "$db" "SELECT count(*) FROM site WHERE name = 'main'")"
    expect_eq "use mpi: MPI_File_write_at through a blank-padded file name: 100 bytes to the file" "-2,1,100,0" \
        "$(rows "$db" 1 MPI_File_write_at $src fwrite)"
    expect_eq "use mpi: MPI_Waitany twice per rank (its 1-based indices checked by the program)" "2,2" \
        "$(calls "$db" 0 MPI_Waitany $src waitany),$(calls "$db" 1 MPI_Waitany $src waitany)"
    expect_eq "use mpi: MPI_Pcontrol(0) hides a barrier, MPI_Pcontrol(1) shows the next" "0,1" \
        "$(calls "$db" 0 MPI_Barrier $src hidden),$(calls "$db" 0 MPI_Barrier $src shown)"
    expect_eq "use mpi: no MPI site is named after hprof's own wrappers" "0" \
        "$(q "$db" "SELECT count(*) FROM site WHERE file LIKE '%wrappers.c' OR func LIKE 'hp_%'")"
fi

# the plain binary with the library preloaded
hp_run fmpi.pre 2 -x LD_PRELOAD="$LIB" "$tmp/plain/fmpi"
if ran_ok fmpi.pre; then
    expect_eq "use mpi, LD_PRELOAD: MPI_Send on rank 0" "1,5,2000,0" "$(rows "$PROFILE" 0 MPI_Send $src send)"
    expect_eq "use mpi, LD_PRELOAD: MPI_Isend on rank 1" "0,3,240,0" "$(rows "$PROFILE" 1 MPI_Isend $src isend)"
fi

# ---------------------------------------------------------------- use mpi_f08
src=fmpi08.f90
if run_both fmpi08 "use mpi_f08"; then
    db=$PROFILE
    expect_eq "use mpi_f08: MPI_Send on rank 1, to rank 0" "0,4,800,0" "$(rows "$db" 1 MPI_Send $src send08)"
    expect_eq "use mpi_f08: MPI_Recv (MPI_ANY_SOURCE) on rank 0, from rank 1" "1,4,0,800" \
        "$(rows "$db" 0 MPI_Recv $src recv08)"
    expect_eq "use mpi_f08: MPI_Irecv, rank 1" "0,2,0,48" "$(rows "$db" 1 MPI_Irecv $src irecv08)"
    expect_eq "use mpi_f08: MPI_Isend, rank 0" "1,2,48,0" "$(rows "$db" 0 MPI_Isend $src isend08)"
    expect_eq "use mpi_f08: MPI_Waitall (MPI_STATUSES_IGNORE), once per rank" "1,1" \
        "$(calls "$db" 0 MPI_Waitall $src waitall08),$(calls "$db" 1 MPI_Waitall $src waitall08)"
    expect_eq "use mpi_f08: MPI_Allreduce with MPI_IN_PLACE" "3,60,60" \
        "$(coll "$db" 1 MPI_Allreduce $src allreduce08)"
    expect_eq "use mpi_f08: MPI_Sendrecv_replace in the module procedure shift (a send and a receive record each)" "0,14,168,168" \
        "$(rows "$db" 1 MPI_Sendrecv_replace $src replace08)"
    expect_eq "use mpi_f08: one MPI_Barrier per rank" "1,1" \
        "$(calls "$db" 0 MPI_Barrier $src barrier08),$(calls "$db" 1 MPI_Barrier $src barrier08)"
fi

# ---------------------------------------------------------------- MPI_Abort
src=fabort.f90
rm -f "$tmp/fab.hpf" "$tmp/fab.rank1.hpf"
HP_OUTPUT=$tmp/fab.hpf hp_run fab 2 "$tmp/fabort"
rc_hprof=$RC
plain_run fab.plain 2 "$tmp/plain/fabort"
expect_eq "Fortran MPI_Abort: same exit status as without hprof" "$RC" "$rc_hprof"
same_stdout "Fortran MPI_Abort: same stdout with and without hprof" "$tmp/fab.plain.out" "$tmp/fab.out"
expect_eq "Fortran MPI_Abort: one line names the file of the aborting rank" "1" \
    "$(grep -c "MPI_Abort (error code 5) on rank 1: its records up to then are in $tmp/fab.rank1.hpf" "$tmp/fab.err")"
if [ -s "$tmp/fab.rank1.hpf" ]; then
    check_profile fab.rank1 "$tmp/fab.rank1.hpf"
    expect_eq "Fortran MPI_Abort: rank 1's sends before the abort" "0,3,48,0" \
        "$(rows "$tmp/fab.rank1.hpf" 1 MPI_Send $src fsend)"
    expect_eq "Fortran MPI_Abort: only rank 1 has records, flagged aborted" "1,4" \
        "$(q "$tmp/fab.rank1.hpf" "SELECT group_concat(rank), group_concat(flags) FROM rank")"
else
    notok "Fortran MPI_Abort: rank 1 leaves its records" "no $tmp/fab.rank1.hpf; stderr: $(tail -3 "$tmp/fab.err" | oneline)"
fi

# ---------------------------------------------------------------- ERROR STOP
src=fstop.f90
rm -f "$tmp/fst.hpf" "$tmp/fst.rank0.hpf"
RC=0
HPROF_OUTPUT=$tmp/fst.hpf timeout 120 "$MPIRUN" -np 1 "${MPIFLAGS[@]}" -x HPROF_OUTPUT "$tmp/fstop" \
    >"$tmp/fst.out" 2>"$tmp/fst.err" </dev/null || RC=$?
rc_hprof=$RC
plain_run fst.plain 1 "$tmp/plain/fstop"
expect_eq "ERROR STOP without MPI_Finalize: same exit status as plain" "$RC" "$rc_hprof"
same_stdout "ERROR STOP without MPI_Finalize: same stdout as plain" "$tmp/fst.plain.out" "$tmp/fst.out"
expect_eq "ERROR STOP without MPI_Finalize: one hprof line naming the rank's file" 1 \
    "$(grep -c "^hprof.*rank 0 exited without MPI_Finalize: its records up to then are in $tmp/fst.rank0.hpf" "$tmp/fst.err")"
if [ -s "$tmp/fst.rank0.hpf" ]; then
    check_profile fst.rank0 "$tmp/fst.rank0.hpf"
    expect_eq "ERROR STOP without MPI_Finalize: the 3 barriers, flagged unfinalized" "3,16" \
        "$(q "$tmp/fst.rank0.hpf" "SELECT sum(st.count), max(r.flags) FROM stat st JOIN node n ON n.id = st.node
            JOIN site s ON s.id = n.site JOIN rank r ON r.rank = st.rank
            WHERE s.name = 'MPI_Barrier' AND s.line = $(line_of "$S/$src" sbarrier)")"
else
    notok "ERROR STOP without MPI_Finalize: the rank leaves its records" "no $tmp/fst.rank0.hpf; stderr: $(tail -3 "$tmp/fst.err" | oneline)"
fi

[ "$skip" = 0 ] || echo "# $skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
