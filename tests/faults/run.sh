#!/bin/bash
# tests/faults/run.sh - the records of a run that dies (faults.c states the
# ground truth).  With 3 ranks: MPI_Abort on rank 1, a segfault on rank 1,
# exit() without MPI_Finalize on rank 1, SIGTERM to mpirun (a batch
# system's time limit).  Each rank writes NAME.rank<N>.hpf: the rank that
# failed its own way, the others when the launcher sends them SIGTERM.
# Checked for each: the exit status and stdout are those of the plain
# program; one line per rank names its file; hprof-query merges the files
# (named, or their directory) and the merged records hold every rank's ring
# (20 Sendrecvs, 800 B each way to its neighbours) and barrier, the MPI_Recv
# the survivors were waiting in, how each rank ended (its RANK flags), and
# the invariants (--check).  Then: a missing rank is named; files of two
# runs, a rank in two files and a directory without per-rank files are
# refused with one line; a program's own SIGUSR1 handler runs and nothing
# is written; a process without MPI that raises SIGTERM (then each of
# SIGINT, SIGHUP, SIGXCPU, SIGUSR1, SIGUSR2, SIGSEGV, SIGBUS, SIGILL, SIGFPE,
# SIGABRT) leaves its profile, flagged with the signal, and dies with the
# plain program's status; SIGTERM while an OpenMP team spins in its region
# leaves the open region on each thread; a forked child that calls exit()
# writes nothing; HPROF_SIGNALS=0 writes nothing.
#
# usage: tests/faults/run.sh [BUILDDIR]
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
MERGE=$builddir/analyzer/hprof-merge
T=$builddir/tests/faults
S=$srcdir/tests/faults

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir faults

for f in "$QUERY" "$MERGE" "$T/faults"; do
    if [ ! -e "$f" ]; then
        notok "prerequisites" "missing: $f (build with 'make check' first)"
        echo "$pass passed, $fail failed"
        exit 1
    fi
done
mkdir -p "$tmp/plain"
"$MPICC" -g -O1 -fopenmp "$S/faults.c" -o "$tmp/plain/faults" || notok "plain build of faults.c" "$MPICC failed"

src=faults.c
L_ring=$(line_of "$S/$src" f-ring)
L_barrier=$(line_of "$S/$src" f-barrier)
L_wait=$(line_of "$S/$src" f-wait)
L_region=$(line_of "$S/$src" f-region)
SIGTERM_FLAGS=$((8 | 15 << 24)) SIGSEGV_FLAGS=$((8 | 11 << 24))

# launch NAME PROG MODE - one run of 3 ranks with its profile at
# $tmp/NAME.hpf; sets RC.  Mode term: SIGTERM to mpirun once rank 0 says
# "ready".
launch() {
    local name=$1 prog=$2 mode=$3 pid i
    RC=0
    rm -f "$tmp/$name".*
    if [ "$mode" != term ]; then
        HPROF_OUTPUT=$tmp/$name.hpf timeout 120 "$MPIRUN" -np 3 "${MPIFLAGS[@]}" -x HPROF_OUTPUT \
            "$prog" "$mode" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || RC=$?
        return 0
    fi
    HPROF_OUTPUT=$tmp/$name.hpf "$MPIRUN" -np 3 "${MPIFLAGS[@]}" -x HPROF_OUTPUT \
        "$prog" "$mode" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null &
    pid=$!
    for ((i = 0; i < 600; i++)); do
        grep -q '^ready$' "$tmp/$name.out" 2>/dev/null && break
        sleep 0.1
    done
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" || RC=$?
}

# ring_checks DB WHAT RANKS - each rank's ring and barrier in the records.
ring_checks() {
    local db=$1 what=$2 r
    for r in $3; do
        expect_eq "$what: rank $r ring: 20 Sendrecvs, 800 B to rank $(((r + 1) % 3)), 800 B from rank $(((r + 2) % 3))" \
            "$(((r + 1) % 3)),20,800,0;$(((r + 2) % 3)),20,0,800" \
            "$(q "$db" "SELECT c.peer, sum(c.count), sum(c.bytes_sent), sum(c.bytes_recv) FROM comm c
                        JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
                        WHERE c.rank = $r AND s.name = 'MPI_Sendrecv' AND s.line = $L_ring
                        GROUP BY c.peer ORDER BY sum(c.bytes_recv), c.peer")"
        expect_eq "$what: rank $r barrier once" 1 \
            "$(q "$db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                        WHERE st.rank = $r AND s.name = 'MPI_Barrier' AND s.line = $L_barrier")"
    done
}

# fault_checks MODE "RANK:FLAGS ..." WAITING - a run that dies in MODE.
fault_checks() {
    local mode=$1 flags=$2 waiting=$3 rc_hp plain_rc r files
    launch "$mode" "$T/faults" "$mode"
    rc_hp=$RC
    launch "$mode.plain" "$tmp/plain/faults" "$mode"
    plain_rc=$RC
    expect_eq "$mode: same exit status as without hprof" "$plain_rc" "$rc_hp"
    same_stdout "$mode: same stdout as without hprof" "$tmp/$mode.plain.out" "$tmp/$mode.out"
    files=$(cd "$tmp" && ls "$mode".* 2>/dev/null | grep -E '\.(hpf|partial)$' | tr '\n' ' ' || true)
    expect_eq "$mode: every rank wrote its own file, no whole-run or partial file" \
        "$mode.rank0.hpf $mode.rank1.hpf $mode.rank2.hpf " "$files"
    for r in 0 1 2; do
        expect_eq "$mode: rank $r says in one line where its records are" 1 \
            "$(grep -c "rank $r.*: its records up to then are in $tmp/$mode.rank$r.hpf" "$tmp/$mode.err" || true)"
    done
    "$QUERY" "$tmp/$mode".rank*.hpf --check >"$tmp/$mode.check" 2>&1 &&
        ok "$mode: the merged ranks' invariants hold" ||
        notok "$mode: the merged ranks' invariants hold" "$(grep -v merged "$tmp/$mode.check" | head -3 | oneline)"
    local db=$tmp/$mode.db
    expect_eq "$mode: hprof-query merged the three files into $mode.db" "yes,3" \
        "$([ -s "$db" ] && echo yes || echo no),$(q "$db" "SELECT count(*) FROM rank")"
    ring_checks "$db" "$mode" "0 1 2"
    expect_eq "$mode: how each rank ended (RANK flags)" "$flags" \
        "$(q "$db" "SELECT rank || ':' || flags FROM rank ORDER BY rank" | tr '\n' ' ' | sed 's/ $//')"
    for r in $waiting; do
        expect_eq "$mode: rank $r was waiting in MPI_Recv at faults.c:$L_wait (one call under way, time > 0)" "1,1" \
            "$(q "$db" "SELECT sum(st.count), sum(st.time) > 0 FROM stat st JOIN node n ON n.id = st.node
                        JOIN site s ON s.id = n.site WHERE st.rank = $r AND s.name = 'MPI_Recv' AND s.line = $L_wait")"
    done
}

fault_checks abort "0:$SIGTERM_FLAGS 1:4 2:$SIGTERM_FLAGS" "0 2"
expect_eq "abort: the report's header says how each rank ended" \
    "ended:     ranks 0, 2 by SIGTERM; rank 1 by MPI_Abort (their records end there)" \
    "$("$QUERY" "$tmp/abort.db" 2>/dev/null | grep '^ended:')"
fault_checks segv "0:$SIGTERM_FLAGS 1:$SIGSEGV_FLAGS 2:$SIGTERM_FLAGS" "0 2"
fault_checks exit "0:$SIGTERM_FLAGS 1:16 2:$SIGTERM_FLAGS" "0 2"
fault_checks term "0:$SIGTERM_FLAGS 1:$SIGTERM_FLAGS 2:$SIGTERM_FLAGS" "0 1 2"

# ---- a missing rank, the directory form, bad inputs (from the abort run)
mkdir -p "$tmp/two" "$tmp/runs" "$tmp/empty"
cp "$tmp/abort.rank0.hpf" "$tmp/abort.rank1.hpf" "$tmp/two/"
"$QUERY" "$tmp/two" >"$tmp/two.out" 2>"$tmp/two.err" && rc=0 || rc=$?
expect_eq "directory with ranks 0 and 1: merged, rank 2 named missing" \
    "0;hprof-query: merged the 2 per-rank files of $tmp/two/abort.hpf into $tmp/two/abort.db; rank 2 of 3 has no records (no file holds them)" \
    "$rc;$(cat "$tmp/two.err")"
expect_eq "directory with ranks 0 and 1: the header names the missing rank" \
    "missing:   rank 2 of 3 has no records in this profile" "$(grep '^missing:' "$tmp/two.out")"
ring_checks "$tmp/two/abort.db" "directory with ranks 0 and 1" "0 1"
expect_eq "hprof-merge of two per-rank files: the note names the missing rank" \
    "hprof-merge: wrote $tmp/m.db (3 ranks, S sites, N nodes); rank 1 of 3 has no records (no file holds them)" \
    "$("$MERGE" -o "$tmp/m.db" "$tmp/abort.rank0.hpf" "$tmp/abort.rank2.hpf" 2>&1 |
       sed 's/, [0-9]* sites, [0-9]* nodes)/, S sites, N nodes)/')"
cp "$tmp/abort.rank0.hpf" "$tmp/segv.rank1.hpf" "$tmp/runs/"
expect_err_line() {
    local name=$1 want=$2 rc=0 out
    shift 2
    out=$("$@" 2>&1 >/dev/null) || rc=$?
    expect_eq "$name: one line, exit status non-zero" "1;$want" "$([ "$rc" != 0 ] && echo 1 || echo 0);$out"
}
expect_err_line "a directory with the files of two runs" \
    "hprof-query: $tmp/runs: holds the per-rank files of several runs (abort.hpf, segv.hpf): name the files of one, e.g. hprof-query $tmp/runs/segv.rank*.hpf" \
    "$QUERY" "$tmp/runs"
expect_err_line "files of two runs named" \
    "hprof-query: $tmp/segv.rank1.hpf: not a file of the run $tmp/abort.hpf (NAME.rank<N>.hpf)" \
    "$QUERY" "$tmp/abort.rank0.hpf" "$tmp/segv.rank1.hpf"
cp "$tmp/abort.rank0.hpf" "$tmp/two/abort.rank7.hpf"
expect_err_line "a rank in two files" \
    "hprof-query: $tmp/two/abort.rank7.hpf: rank 0 has records in this file and in an earlier one ($tmp/two/abort.rank0.hpf)" \
    "$QUERY" "$tmp/two"
# r0 r1 r1: the earlier file named is the one that holds rank 1
mkdir -p "$tmp/dup"
cp "$tmp/abort.rank0.hpf" "$tmp/abort.rank1.hpf" "$tmp/dup/"
cp "$tmp/abort.rank1.hpf" "$tmp/dup/abort.rank2.hpf"
expect_err_line "rank 1 in its own file and a copy named rank 2" \
    "hprof-query: $tmp/dup/abort.rank2.hpf: rank 1 has records in this file and in an earlier one ($tmp/dup/abort.rank1.hpf)" \
    "$QUERY" "$tmp/dup"
# two runs' files renamed to share one name: refused by the RUN header
# field that differs, the arguments (abort, segv) ...
mkdir -p "$tmp/renamed"
cp "$tmp/abort.rank0.hpf" "$tmp/abort.rank2.hpf" "$tmp/renamed/"
cp "$tmp/segv.rank1.hpf" "$tmp/renamed/abort.rank1.hpf"
expect_err_line "two runs renamed to one name, other arguments" \
    "hprof-query: $tmp/renamed/abort.rank1.hpf: not of the same run as $tmp/renamed/abort.rank0.hpf (its RUN section: argv[1] 'segv', not 'abort')" \
    "$QUERY" "$tmp/renamed"
# ... or, the same program with the same arguments run again, the time
# the runs took: every rank of one run lives when MPI_Init completes
launch abort2 "$T/faults" abort
mkdir -p "$tmp/again"
cp "$tmp/abort.rank0.hpf" "$tmp/abort.rank2.hpf" "$tmp/again/"
cp "$tmp/abort2.rank1.hpf" "$tmp/again/abort.rank1.hpf"
expect_eq "two runs with the same arguments renamed to one name: refused by their times, one line" \
    "1;1;hprof-query: $tmp/again/abort.rank1.hpf: not of the same run as $tmp/again/abort.rank0.hpf (its RUN section: run time T to T ns (unix), not overlapping T to T)" \
    "$("$QUERY" "$tmp/again" >/dev/null 2>"$tmp/again.err" && echo 0 || echo 1);$(wc -l <"$tmp/again.err");$(sed 's/[0-9]\{12,\}/T/g' "$tmp/again.err")"
expect_err_line "a directory without per-rank files" \
    "hprof-query: $tmp/empty: no per-rank profile (NAME.rank<N>.hpf) in this directory" \
    "$QUERY" "$tmp/empty"

# ---- the program's own handler: it runs, nothing is written, the run goes on
launch usr1 "$T/faults" usr1
expect_eq "usr1: the program's SIGUSR1 handler ran 3 times, the run ended normally" "0;1" \
    "$RC;$(grep -c '^usr1: handled 3$' "$tmp/usr1.out")"
expect_eq "usr1: the whole-run profile, no per-rank file" "usr1.hpf" \
    "$(cd "$tmp" && ls usr1.* | grep -E '\.hpf$' | tr '\n' ' ' | sed 's/ $//')"
check_profile usr1 "$tmp/usr1.hpf"
ring_checks "$tmp/usr1.hpf" usr1 "0 1 2"

# ---- no MPI: SIGTERM raised by the process itself
# serial_run SIGNUM VAR=VALUE... - $prog serial SIGNUM, no core file; sets RC.
serial_run() {
    local sig=$1
    shift
    RC=0
    # (in a subshell: the shell's own "Terminated" line stays out of the log)
    (env "$@" bash -c 'ulimit -c 0; exec timeout 60 "$0" serial "$1"' "$prog" "$sig" \
        >"$tmp/serial.out" 2>"$tmp/serial.err" </dev/null
     exit $?) 2>/dev/null || RC=$?
}
prog=$tmp/plain/faults serial_run 15 OMP_NUM_THREADS=2
plain_rc=$RC
cp "$tmp/serial.out" "$tmp/serial.plain.out"
rm -f "$tmp/serial.hpf"
prog=$T/faults serial_run 15 OMP_NUM_THREADS=2 HPROF_OUTPUT="$tmp/serial.hpf"
expect_eq "serial: killed by its own SIGTERM as without hprof (143)" "143;143" "$plain_rc;$RC"
same_stdout "serial: same stdout as without hprof" "$tmp/serial.plain.out" "$tmp/serial.out"
expect_eq "serial: one line names the profile" 1 \
    "$(grep -c "^hprof: SIGTERM ended the process; its records up to then are in $tmp/serial.hpf" "$tmp/serial.err")"
check_profile serial "$tmp/serial.hpf"
expect_eq "serial: $((5)) regions per thread, flagged ended by SIGTERM" "5,$SIGTERM_FLAGS;5,$SIGTERM_FLAGS" \
    "$(q "$tmp/serial.hpf" "SELECT sum(st.count), max(r.flags) FROM stat st JOIN node n ON n.id = st.node
        JOIN site s ON s.id = n.site JOIN rank r ON r.rank = st.rank
        WHERE s.name = 'parallel' AND s.line = $L_region GROUP BY st.thread ORDER BY st.thread")"
# every other signal handled, raised the same way (no core files: ulimit)
for sig in INT HUP XCPU USR1 USR2 SEGV BUS ILL FPE ABRT; do
    num=$(kill -l "$sig")
    rm -f "$tmp/serial.hpf"
    prog=$tmp/plain/faults serial_run "$num" OMP_NUM_THREADS=2
    plain_rc=$RC
    prog=$T/faults serial_run "$num" OMP_NUM_THREADS=2 HPROF_OUTPUT="$tmp/serial.hpf"
    expect_eq "serial SIG$sig: the same exit status as without hprof ($((128 + num))), one line, flags $((8 | num << 24))" \
        "$plain_rc;$((128 + num));1;$((8 | num << 24))" \
        "$RC;$RC;$(grep -c "^hprof: SIG$sig ended the process; its records up to then are in $tmp/serial.hpf" "$tmp/serial.err");$(q "$tmp/serial.hpf" "SELECT flags FROM rank")"
done
# SIGTERM while a team spins in its region: the open regions are closed
# at the snapshot, at least the 0.5 s the script waited on each thread
L_spin=$(line_of "$S/$src" f-spin)
OMP_NUM_THREADS=2 HPROF_OUTPUT=$tmp/spin.hpf "$T/faults" spin >"$tmp/spin.out" 2>"$tmp/spin.err" </dev/null &
pid=$!
for ((i = 0; i < 600; i++)); do grep -q '^ready$' "$tmp/spin.out" 2>/dev/null && break; sleep 0.1; done
sleep 0.5
kill -TERM "$pid"
RC=0
wait "$pid" 2>/dev/null || RC=$?
expect_eq "spin: killed by SIGTERM (143), one line" "143;1" \
    "$RC;$(grep -c "^hprof: SIGTERM ended the process; its records up to then are in $tmp/spin.hpf" "$tmp/spin.err")"
check_profile spin "$tmp/spin.hpf"
expect_eq "spin: the open region once per thread, each at least 0.5 s" "1,1;1,1" \
    "$(q "$tmp/spin.hpf" "SELECT sum(st.count), sum(st.time) >= 0.5 FROM stat st JOIN node n ON n.id = st.node
        JOIN site s ON s.id = n.site WHERE s.name = 'parallel' AND s.line = $L_spin
        GROUP BY st.thread ORDER BY st.thread")"

# a forked child that calls exit() writes nothing (its records are a copy
# of its parent's): one profile, the parent's
for sig_setting in 1 0; do
    rm -rf "$tmp/fk" && mkdir "$tmp/fk"
    RC=0
    OMP_NUM_THREADS=2 HPROF_OUTPUT=$tmp/fk/ HPROF_SIGNALS=$sig_setting "$T/faults" fork \
        >"$tmp/fk.out" 2>"$tmp/fk.err" </dev/null || RC=$?
    expect_eq "fork (HPROF_SIGNALS=$sig_setting): the run ends normally, one profile in the directory" \
        "0;fork: child exited 0;1" "$RC;$(cat "$tmp/fk.out");$(ls "$tmp/fk" | wc -l)"
done

rm -f "$tmp/serial.hpf"
prog=$T/faults serial_run 15 OMP_NUM_THREADS=2 HPROF_OUTPUT="$tmp/serial.hpf" HPROF_SIGNALS=0
expect_eq "serial with HPROF_SIGNALS=0: the same death, nothing written" "143,no" \
    "$RC,$([ -e "$tmp/serial.hpf" ] && echo yes || echo no)"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
