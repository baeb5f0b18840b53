#!/bin/bash
# tests/attr/run.sh - integration tests of what a site and a share are
# attributed to, against the ground truth stated in each program:
#   - tests/attr/tailcall.c + tailwrap.c: MPI_Allreduce reached through a
#     wrapper that ends in a tail call (jmp MPI_Allreduce) is named after the
#     wrapper, at the line of its call, with the exact count of both calling
#     lines of main (site flag 64); a direct call and a wrapper that is not a
#     tail call keep their own lines.  Built -O2 with the PLT, with
#     -fno-plt, and with the wrappers in a shared library; the tail-call
#     checks are skipped when objdump shows no jmp to MPI_Allreduce in
#     sum_all.  With one thread the MPI share is MPI time / wall, as before.
#   - tests/attr/mthreads.c: 4 threads per rank in MPI about half of the run
#     each: the MPI share (summary, hprof-query header, rank_mpi view) is a
#     share of wall x 4 threads, at most 100%, and says so; the summary
#     names each destination "from", "to" or "with", and hprof-query --comm
#     has the same in its dir column.
#   - every program prints the same stdout with and without hprof.
# The programs need special flags, so this script builds them itself.
#
# usage: tests/attr/run.sh [BUILDDIR]   (default: the current directory)
#        Env: MPICC, MPIRUN, HPROF_KEEP_TMP=1 keeps the temp dir.
# Prints "ok - NAME" / "not ok - NAME: expected X got Y" per check and a last
# line "N passed, M failed"; exits 1 if anything failed.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
# One timing-sensitive MPI test at a time, even under make -j2 check.
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
LIB=$LIBDIR/libhprof.so
S=$srcdir/tests/attr

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir attr

# ---------------------------------------------------------------- prerequisites
missing=
for f in "$QUERY" "$LIB" "$S/tailcall.c" "$S/tailwrap.c" "$S/mthreads.c"; do
    [ -e "$f" ] || missing="$missing $f"
done
for c in "$MPICC" "$MPIRUN" objdump; do
    command -v "$c" >/dev/null || missing="$missing $c"
done
if [ -n "$missing" ]; then
    notok "prerequisites" "missing:$missing (build with 'make' first)"
    echo "$pass passed, $fail failed"
    exit 1
fi

B=$tmp/bin
mkdir -p "$B"
HPLINK=(-L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR")

# build NAME CMD... - runs a compiler command; one failure when it fails.
build() {
    local name=$1
    shift
    if "$@" 2>"$tmp/build.err"; then return 0; fi
    notok "build of $name" "$(head -5 "$tmp/build.err" | oneline)"
    return 1
}

# summary_has NAME REGEX - a line of the last run's summary matches (grep -E).
summary_has() {
    if grep -Eq -- "$2" "$tmp/$RUN.err"; then ok "$1"; else
        notok "$1" "no summary line matches /$2/; summary: $(grep '^hprof:' "$tmp/$RUN.err" | head -30 | oneline)"
    fi
}

# ================================================================ tail calls
Ltj=$(line_of "$S/tailwrap.c" tail-jmp) Lnt=$(line_of "$S/tailwrap.c" not-tail)
La=$(line_of "$S/tailcall.c" call-a) Lb=$(line_of "$S/tailcall.c" call-b)
Ld=$(line_of "$S/tailcall.c" direct) Lm=$(line_of "$S/tailcall.c" call-m)
NA=$(define_of "$S/tailcall.c" NA) NB=$(define_of "$S/tailcall.c" NB)
ND=$(define_of "$S/tailcall.c" ND) NM=$(define_of "$S/tailcall.c" NM)

build "tailcall (plain)" "$MPICC" -g -O2 "$S/tailcall.c" "$S/tailwrap.c" -o "$B/tailcall.plain"
build "tailcall (-O2)" "$MPICC" -g -O2 -c "$S/tailwrap.c" -o "$B/tailwrap.o"
build "tailcall (-O2)" "$MPICC" -g -O2 "$S/tailcall.c" "$B/tailwrap.o" -o "$B/tailcall.plt" "${HPLINK[@]}"
build "tailcall (-fno-plt)" "$MPICC" -g -O2 -fno-plt -c "$S/tailwrap.c" -o "$B/tailwrap.noplt.o"
build "tailcall (-fno-plt)" "$MPICC" -g -O2 -fno-plt "$S/tailcall.c" "$B/tailwrap.noplt.o" \
    -o "$B/tailcall.noplt" "${HPLINK[@]}"
build "tailcall (shared wrapper library)" "$MPICC" -g -O2 -fPIC -shared "$S/tailwrap.c" \
    -o "$B/libtailwrap.so"
build "tailcall (shared wrapper library)" "$MPICC" -g -O2 -fno-plt "$S/tailcall.c" -o "$B/tailcall.so" \
    -L"$B" -ltailwrap -Wl,-rpath,"$B" "${HPLINK[@]}"
plain_run tailcall.plain 2 "$B/tailcall.plain"

# calls_at DB RANK FILE LINE - "function,calls" of the MPI_Allreduce site at FILE:LINE.
calls_at() {
    q "$1" "SELECT s.func, sum(st.count) FROM stat st JOIN node n ON n.id = st.node
            JOIN site s ON s.id = n.site WHERE st.rank = $2 AND s.name = 'MPI_Allreduce'
            AND s.file LIKE '%/$3' AND s.line = $4 GROUP BY s.func"
}
# tail_flag DB FILE LINE - site flag 64 (reached by a tail call) of that site.
tail_flag() {
    q "$1" "SELECT DISTINCT flags & 64 FROM site WHERE name = 'MPI_Allreduce'
            AND file LIKE '%/$2' AND line = $3"
}

# check_tailcall NAME BINARY WRAPPER_MODULE - one build of tailcall.c; the
# module is the linked file that holds sum_all (the program or the library).
check_tailcall() {
    local name=$1 bin=$2 wrap=$3 tail=1 r db
    [ -x "$bin" ] || return 0
    if ! objdump -d "$wrap" | awk '/<sum_all>:/,/^$/' | grep -Ec 'jmp[^<]*<MPI_Allreduce@' >/dev/null; then
        tail=0
        skipped "$name: tail-call checks" "gcc did not end sum_all in $wrap with a jmp to MPI_Allreduce"
    fi
    RUN=$name
    hp_run "$name" 2 "$bin"
    ran_ok "$name" || return 0
    db=$PROFILE
    same_stdout "$name: same stdout with and without hprof" "$tmp/tailcall.plain.out" "$tmp/$name.out"
    for r in 0 1; do
        if [ $tail = 1 ]; then
            expect_eq "$name: rank $r: sum_all's MPI_Allreduce at tailwrap.c:$Ltj, in sum_all, NA + NB calls" \
                "sum_all,$((NA + NB))" "$(calls_at "$db" $r tailwrap.c "$Ltj")"
            expect_eq "$name: rank $r: its records (all, NA + NB transfers, 16 B each way)" \
                "-1,$((NA + NB)),$((16 * (NA + NB))),$((16 * (NA + NB)))" \
                "$(comm_rows "$db" $r MPI_Allreduce tailwrap.c "$Ltj" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
        fi
        expect_eq "$name: rank $r: direct MPI_Allreduce at tailcall.c:$Ld, in main, ND calls" \
            "main,$ND" "$(calls_at "$db" $r tailcall.c "$Ld")"
        expect_eq "$name: rank $r: direct call's records (all, ND transfers, 16 B each way)" \
            "-1,$ND,$((16 * ND)),$((16 * ND))" \
            "$(comm_rows "$db" $r MPI_Allreduce tailcall.c "$Ld" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
        expect_eq "$name: rank $r: max_of's MPI_Allreduce (no tail call) at tailwrap.c:$Lnt, NM calls" \
            "max_of,$NM" "$(calls_at "$db" $r tailwrap.c "$Lnt")"
    done
    if [ $tail = 1 ]; then
        expect_eq "$name: no MPI_Allreduce site at main's lines of the wrapper calls" "0" \
            "$(q "$db" "SELECT count(*) FROM site WHERE name = 'MPI_Allreduce' AND file LIKE '%/tailcall.c'
                        AND line IN ($La, $Lb, $Lm)")"
        expect_eq "$name: site flag 64 on the tail-called site only" "64;0;0" \
            "$(tail_flag "$db" tailwrap.c "$Ltj"; tail_flag "$db" tailwrap.c "$Lnt"; tail_flag "$db" tailcall.c "$Ld")"
        summary_has "$name: summary: 2 x (NA + NB) calls at MPI_Allreduce@tailwrap.c:$Ltj (sum_all)" \
            "^hprof: +$((2 * (NA + NB))) .* MPI_Allreduce@tailwrap\\.c:$Ltj \\(sum_all\\)\$"
    fi
    expect_eq "$name: one thread calls MPI: the share is MPI time / wall, as before (per rank)" "1,0;1,0" \
        "$(q "$db" "SELECT mpi_threads, round(mpi_pct - 100.0 * mpi_time / wall, 9) FROM rank_mpi ORDER BY rank")"
}
check_tailcall tc-plt "$B/tailcall.plt" "$B/tailcall.plt"
check_tailcall tc-noplt "$B/tailcall.noplt" "$B/tailcall.noplt"
check_tailcall tc-shared "$B/tailcall.so" "$B/libtailwrap.so"

# ================================================================ threads and directions
Lr=$(line_of "$S/mthreads.c" mt-recv) Ls=$(line_of "$S/mthreads.c" mt-send)
Lsr=$(line_of "$S/mthreads.c" mt-sendrecv)
NT=$(define_of "$S/mthreads.c" NTHREADS) N=$(define_of "$S/mthreads.c" N)
BYTES=$((NT * N * 8))

build "mthreads (plain)" "$MPICC" -g -O1 -pthread "$S/mthreads.c" -o "$B/mthreads.plain"
build "mthreads" "$MPICC" -g -O1 -pthread "$S/mthreads.c" -o "$B/mthreads" "${HPLINK[@]}"

# dirs DB LINE - "peer,dir" rows of hprof-query --comm mthreads.c:LINE.
dirs() {
    "$QUERY" "$1" --comm "mthreads.c:$2" --format csv 2>&1 | tr -d '\r' |
        awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "peer") p = i; if ($i == "dir") d = i }
                           if (!p || !d) { print "no peer/dir columns: " $0; exit } next }
                 { print $p "," $d }'
}

check_mthreads() {
    local db pct r p
    RUN=mt
    hp_run mt 2 "$B/mthreads"
    if [ "$RC" = 77 ] || grep -q 'MPI_THREAD_MULTIPLE not provided' "$tmp/mt.err"; then
        skipped "mthreads" "MPI_THREAD_MULTIPLE not provided by this MPI"
        return 0
    fi
    ran_ok mt || return 0
    db=$PROFILE
    plain_run mt.plain 2 "$B/mthreads.plain"
    same_stdout "mthreads: same stdout with and without hprof" "$tmp/mt.plain.out" "$tmp/mt.out"
    for r in 0 1; do
        p=$((1 - r))
        expect_eq "mthreads: rank $r receive line: from $p, $NT transfers, $BYTES B" "$p,$NT,0,$BYTES" \
            "$(comm_rows "$db" $r MPI_Recv mthreads.c "$Lr" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
        expect_eq "mthreads: rank $r send line: to $p, $NT transfers, $BYTES B" "$p,$NT,$BYTES,0" \
            "$(comm_rows "$db" $r MPI_Send mthreads.c "$Ls" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
        expect_eq "mthreads: rank $r Sendrecv line: with $p, 2 x $NT transfers, $BYTES B each way" \
            "$p,$((2 * NT)),$BYTES,$BYTES" \
            "$(comm_rows "$db" $r MPI_Sendrecv mthreads.c "$Lsr" 'sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv)')"
    done

    # The share: the NT workers and the main thread (MPI_Comm_rank/size,
    # local calls) call MPI; MPI time summed over them exceeds the wall (so
    # "MPI time / wall" would print over 100%), the share of wall x (NT+1)
    # threads is about 40% and never above 100%.
    MT=$((NT + 1))
    expect_eq "mthreads: rank_mpi: $MT threads call MPI on each rank (main + $NT workers)" "$MT;$MT" \
        "$(q "$db" "SELECT mpi_threads FROM rank_mpi ORDER BY rank")"
    expect_cmp "mthreads: MPI time summed over threads exceeds 1.2 x wall on every rank" gt 1.2 \
        "$(q "$db" "SELECT min(mpi_time / wall) FROM rank_mpi")"
    expect_cmp "mthreads: rank_mpi: largest share <= 100%" le 100 "$(q "$db" "SELECT max(mpi_pct) FROM rank_mpi")"
    expect_cmp "mthreads: rank_mpi: smallest share >= 20% (each worker waits about half the run)" ge 20 \
        "$(q "$db" "SELECT min(mpi_pct) FROM rank_mpi")"
    summary_has "mthreads: summary names the denominator of the MPI share" \
        "^hprof: MPI time [0-9.]+% of wall x threads calling MPI \\($MT per rank; [0-9.]+ thread-s in MPI; min [0-9.]+%  mean [0-9.]+%  max [0-9.]+% over ranks\\)\$"
    pct=$(sed -n 's/^hprof: MPI time \([0-9.]*\)% of wall x threads.*/\1/p' "$tmp/mt.err")
    expect_cmp "mthreads: summary share <= 100%" le 100 "$pct"
    expect_cmp "mthreads: summary share = mean of rank_mpi.mpi_pct (0.1)" within \
        "$(q "$db" "SELECT avg(mpi_pct) FROM rank_mpi")" "$pct" 0.1
    local header
    header=$("$QUERY" "$db" 2>/dev/null | grep '^MPI time:' || true)
    if printf '%s\n' "$header" | grep -Ec "^MPI time: +[0-9.]+% min, [0-9.]+% mean, [0-9.]+% max over ranks, of wall x threads calling MPI \\($MT per rank\\)\$" >/dev/null; then
        ok "mthreads: hprof-query header names the denominator"
    else
        notok "mthreads: hprof-query header names the denominator" "got '$header'"
    fi
    expect_cmp "mthreads: hprof-query header max <= 100%" le 100 \
        "$(printf '%s\n' "$header" | sed -n 's/.* mean, \([0-9.]*\)% max.*/\1/p')"

    # Directions, summed over ranks: 32000 B = 31.2 KiB per peer.
    local kib dkib
    kib=$(awk -v b=$BYTES 'BEGIN { printf "%.1f", b / 1024 }')
    dkib=$(awk -v b=$BYTES 'BEGIN { printf "%.1f", 2 * b / 1024 }')
    summary_has "mthreads: summary: receive line from 0 and from 1" \
        "^hprof:   MPI_Recv@mthreads\\.c:$Lr \\(worker\\):  from 0: $NT x, $kib KiB  from 1: $NT x, $kib KiB\$"
    summary_has "mthreads: summary: send line to 0 and to 1" \
        "^hprof:   MPI_Send@mthreads\\.c:$Ls \\(worker\\):  to 0: $NT x, $kib KiB  to 1: $NT x, $kib KiB\$"
    summary_has "mthreads: summary: Sendrecv line with 0 and with 1" \
        "^hprof:   MPI_Sendrecv@mthreads\\.c:$Lsr \\(worker\\):  with 0: $((2 * NT)) x, $dkib KiB  with 1: $((2 * NT)) x, $dkib KiB\$"
    expect_eq "mthreads: summary has no '->' destinations" "0" "$(grep -c -- '->' "$tmp/mt.err" || true)"
    expect_eq "mthreads: hprof-query --comm dir column, receive line" "0,from;1,from" "$(dirs "$db" "$Lr")"
    expect_eq "mthreads: hprof-query --comm dir column, send line" "0,to;1,to" "$(dirs "$db" "$Ls")"
    expect_eq "mthreads: hprof-query --comm dir column, Sendrecv line" "0,with;1,with" "$(dirs "$db" "$Lsr")"
}
[ -x "$B/mthreads" ] && check_mthreads

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
