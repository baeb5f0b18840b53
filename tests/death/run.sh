#!/bin/bash
# tests/death/run.sh - ranks that end without MPI_Finalize (death.c states
# the ground truth).  Returning from main and exit(3) in every rank of 8
# (oversubscribed on 2 cores), 10 runs each: every run leaves every rank's
# own file and no .partial one, each rank names its file in one line, the
# exit status is the plain program's and stdout holds every rank's line;
# the last run's files
# merge with every rank's barrier and the invariants (--check).  An MPI
# error under MPI_ERRORS_ARE_FATAL (MPI_Send to rank 99 on rank 1 of 3):
# Open MPI's own message and exit status as without hprof, and the failing
# rank's file, whose records hold the MPI_Send.  A segfault on rank 1 of 3:
# Open MPI's crash report ("Process received signal" ... "End of error
# message") once, as without hprof, and the rank's file.  A rank missing
# from a run's files that left NAME.rank<N>.hpf.partial is named so by
# hprof-query.  A node file of a killed job is removed by the next run.
# A full disk
# (a tmpfs with one free page; skipped if mounting is not permitted) after
# a failed collective write (a stale NAME.hpf.partial): the one rank whose
# own file fits is named by rank 0 with the ranks whose records are lost.
#
# usage: tests/death/run.sh [BUILDDIR]
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
T=$builddir/tests/death
S=$srcdir/tests/death
RUNS=${HPROF_DEATH_RUNS:-10}

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir death

mkdir -p "$tmp/plain"
if ! [ -x "$QUERY" ] || ! [ -x "$T/death" ] || ! "$MPICC" -g -O1 "$S/death.c" -o "$tmp/plain/death"; then
    notok "prerequisites" "hprof-query, tests/death/death or the plain build missing (make check builds them)"
    echo "$pass passed, $fail failed"
    exit 1
fi
L_barrier=$(line_of "$S/death.c" d-barrier)
L_send=$(line_of "$S/death.c" d-send)

# run NAME NP PROG MODE [HPROF] - one run, the profile files in $tmp/NAME/;
# sets RC.
run() {
    local name=$1 np=$2 prog=$3 mode=$4
    RC=0
    rm -rf "${tmp:?}/$name" && mkdir -p "$tmp/$name"
    (ulimit -c 0
     HPROF_OUTPUT=$tmp/$name/d.hpf timeout 120 "$MPIRUN" -np "$np" "${MPIFLAGS[@]}" -x HPROF_OUTPUT \
         "$prog" "$mode" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null) || RC=$?
}

# rank_files NAME - the names of the files the run left.
rank_files() {
    (cd "$tmp/$1" && ls | tr '\n' ' ' | sed 's/ $//')
}

# A node file a killed job left (linger.c) names its node leader's pid:
# one of a pid that is gone and one of a live one (this shell's), planted
# before the runs below; their node leaders remove the first only.
shm=/dev/shm
[ -w "$shm" ] || shm=/tmp
host=$(hostname)
sh -c 'exit 0' & gone=$!
wait "$gone" || true
stale=$shm/hprof-$host-test$$-$gone.ended live=$shm/hprof-$host-test$$-$$.ended
printf '\1' >"$stale"
printf '\1' >"$live"

# ---- return and exit(3) on 8 ranks, 10 runs each
all8="d.rank0.hpf d.rank1.hpf d.rank2.hpf d.rank3.hpf d.rank4.hpf d.rank5.hpf d.rank6.hpf d.rank7.hpf"
for mode in return exit3; do
    run "$mode.plain" 8 "$tmp/plain/death" "$mode"
    plain_rc=$RC
    # every rank's line (without hprof some are lost: mpirun kills the
    # job while their output is on its way)
    for r in 0 1 2 3 4 5 6 7; do echo "death: rank $r of 8"; done >"$tmp/$mode.want"
    bad_files="" bad_rc="" bad_out="" bad_lines=""
    for ((i = 1; i <= RUNS; i++)); do
        name=$mode
        run "$name" 8 "$T/death" "$mode"
        files=$(rank_files "$name")
        [ "$files" = "$all8" ] || bad_files+=" run $i: $files;"
        [ "$RC" = "$plain_rc" ] || bad_rc+=" run $i: $RC;"
        sort "$tmp/$name.out" | cmp -s - "$tmp/$mode.want" || bad_out+=" run $i;"
        for r in 0 1 2 3 4 5 6 7; do
            [ "$(grep -c "rank $r exited without MPI_Finalize: its records up to then are in $tmp/$name/d.rank$r.hpf" \
                "$tmp/$name.err" || true)" = 1 ] || bad_lines+=" run $i rank $r;"
        done
    done
    expect_eq "$mode: every rank's file and no .partial in each of $RUNS runs of 8 ranks" "" "$bad_files"
    expect_eq "$mode: exit status $plain_rc as without hprof in each run" "" "$bad_rc"
    expect_eq "$mode: stdout holds every rank's line in each run" "" "$bad_out"
    expect_eq "$mode: each rank names its file in one line in each run" "" "$bad_lines"
    "$QUERY" "$tmp/$mode" --check >"$tmp/$mode.check" 2>&1 &&
        ok "$mode: the merged ranks' invariants hold" ||
        notok "$mode: the merged ranks' invariants hold" "$(grep -v merged "$tmp/$mode.check" | head -3 | oneline)"
    db=$tmp/$mode/d.db
    expect_eq "$mode: the last run's 8 ranks each ended without MPI_Finalize (flags 16), one barrier each" \
        "0:16:1 1:16:1 2:16:1 3:16:1 4:16:1 5:16:1 6:16:1 7:16:1" \
        "$(q "$db" "SELECT r.rank || ':' || r.flags || ':' || (SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site WHERE st.rank = r.rank AND s.name = 'MPI_Barrier' AND s.line = $L_barrier) AS v FROM rank r ORDER BY r.rank" | tr '\n' ' ' | sed 's/ $//')"
done

expect_eq "a killed job's node file (its leader's pid gone) is removed by the next run, a live job's kept" \
    "no yes" "$([ -e "$stale" ] && echo yes || echo no) $([ -e "$live" ] && echo yes || echo no)"
rm -f "$stale" "$live"

# the lines of Open MPI's own messages, without host, pid and job id
ompi_lines() {
    grep -E '\*\*\*|Signal|Failing at' "$1" | grep -v '^\[[^]]*\] \[ *[0-9]*\]' |
        sed -e 's/^\[[^]]*\] //' -e 's/reported by process \[[0-9]*,/reported by process [J,/' || true
}

# ---- an MPI error under MPI_ERRORS_ARE_FATAL, a segfault: on rank 1 of 3
# (Open MPI 4.1's mpirun sometimes loses a rank's message under load,
# with or without hprof: "ORTE_ERROR_LOG: ... show_help.c", or the plain
# run's message is missing altogether; then both runs are made again, at
# most 3 times)
for mode in send99 segv; do
    for ((a = 0; a < 3; a++)); do
        run "$mode.plain" 3 "$tmp/plain/death" "$mode"
        plain_rc=$RC
        run "$mode" 3 "$T/death" "$mode"
        if ! cat "$tmp/$mode.plain.err" "$tmp/$mode.err" | grep -c 'ORTE_ERROR_LOG: .*show_help' >/dev/null &&
            [ -n "$(ompi_lines "$tmp/$mode.plain.err")" ]; then
            break
        fi
    done
    expect_eq "$mode: the exit status as without hprof" "$plain_rc" "$RC"
    expect_eq "$mode: Open MPI's own messages on stderr as without hprof" \
        "$(ompi_lines "$tmp/$mode.plain.err")" "$(ompi_lines "$tmp/$mode.err")"
    expect_eq "$mode: every rank's file" "d.rank0.hpf d.rank1.hpf d.rank2.hpf" "$(rank_files "$mode")"
    "$QUERY" "$tmp/$mode" --check >"$tmp/$mode.check" 2>&1 &&
        ok "$mode: the merged ranks' invariants hold" ||
        notok "$mode: the merged ranks' invariants hold" "$(grep -v merged "$tmp/$mode.check" | head -3 | oneline)"
done
expect_eq "send99: Open MPI's message is there (An error occurred in MPI_Send)" 1 \
    "$(grep -c 'An error occurred in MPI_Send' "$tmp/send99.err" || true)"
expect_eq "send99: rank 1 says in one line that it ended with status 6 and where its records are" 1 \
    "$(grep -c "rank 1 ended without MPI_Finalize (_exit, status 6.*its records up to then are in $tmp/send99/d.rank1.hpf" "$tmp/send99.err" || true)"
expect_eq "send99: rank 1's records hold the failing MPI_Send (one call) and its barrier" "1;1" \
    "$(q "$tmp/send99/d.db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
        WHERE st.rank = 1 AND s.name = 'MPI_Send' AND s.line = $L_send");$(q "$tmp/send99/d.db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
        WHERE st.rank = 1 AND s.name = 'MPI_Barrier' AND s.line = $L_barrier")"
expect_eq "segv: Open MPI's crash report once, as without hprof" "1;1" \
    "$(grep -c 'Process received signal' "$tmp/segv.plain.err" || true);$(grep -c 'Process received signal' "$tmp/segv.err" || true)"
expect_eq "segv: rank 1 flagged ended by SIGSEGV" "$((8 | 11 << 24))" \
    "$(q "$tmp/segv/d.db" "SELECT flags FROM rank WHERE rank = 1")"

# ---- a lost rank that left a .partial file is named (from exit3's files)
mkdir -p "$tmp/lost"
cp "$tmp/exit3"/d.rank[0-46-7].hpf "$tmp/lost/"
: >"$tmp/lost/d.rank5.hpf.partial"
expect_eq "a rank without a file that left a .partial: hprof-query names both" \
    "hprof-query: merged the 7 per-rank files of $tmp/lost/d.hpf into $tmp/lost/d.db; rank 5 of 8 has no records (no file holds them); rank 5 left only an unfinished NAME.rank<N>.hpf.partial (killed while writing it)" \
    "$("$QUERY" "$tmp/lost" 2>&1 >/dev/null)"

# ---- a full disk: one per-rank file fits, the others' records are lost
full=$tmp/full
mkdir -p "$full"
if mount -t tmpfs -o size=64k tmpfs "$full" 2>/dev/null; then
    trap 'umount "$full" 2>/dev/null || true; [ "${HPROF_KEEP_TMP:-0}" = 1 ] || rm -rf "$tmp"' EXIT
    dd if=/dev/zero of="$full/fill" bs=4k count=15 2>/dev/null # one 4 KiB page left
    : >"$full/m.hpf.partial"                                    # the collective write fails
    RC=0
    HPROF_OUTPUT=$full/m.hpf timeout 120 "$MPIRUN" -np 3 "${MPIFLAGS[@]}" -x HPROF_OUTPUT \
        "$T/death" finalize >"$tmp/full.out" 2>"$tmp/full.err" </dev/null || RC=$?
    written=$(cd "$full" && ls | sed -n 's/^m\.rank\([0-9]\)\.hpf$/\1/p' | tr '\n' ' ' | sed 's/ $//')
    lost=$(for r in 0 1 2; do [[ " $written " == *" $r "* ]] || echo "$r"; done | tr '\n' ' ' | sed 's/ $//')
    expect_eq "full: exit status 0, one rank's file fits" "0;1" "$RC;$(echo "$written" | wc -w)"
    expect_eq "full: rank 0 names the rank whose file was written and the ranks whose records are lost" \
        "hprof: the records of rank $written are in one file per rank instead ($full/m.rank<N>.hpf); those of ranks ${lost/ /, } are lost" \
        "$(grep 'one file per rank instead' "$tmp/full.err")"
    expect_eq "full: each lost rank said why" 2 \
        "$(grep -cE "cannot write profile $full/m\.rank[${lost/ /}]\.hpf: No space left on device$" "$tmp/full.err" || true)"
    umount "$full"
else
    skipped "full disk" "cannot mount a tmpfs here (not permitted)"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
