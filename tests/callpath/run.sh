#!/bin/bash
# tests/callpath/run.sh - tier-0 call paths (HPROF_CALLPATH): runs
# tests/callpath/phases.c (two phases calling one MPI_Allreduce wrapper;
# its header states the ground truth) built without instrumentation and
# without frame pointers, on 2 ranks, and checks through hprof-query:
#   - default depth 3: the statement's calls split by phase, per rank
#     exactly SETUP under main -> setup -> MPI_Allreduce, SOLVE under
#     main -> solve -> MPI_Allreduce (run with 4 and 9) and 2 under
#     main -> scratch -> MPI_Allreduce (a frame of run-time size: walked by
#     libunwind, not by the offsets table); the frames are
#     call nodes named after their function at the calling line, counting
#     and timing the calls made through them (exclusive time 0, time = the
#     statement's); no frame of the C library's start code;
#   - HPROF_CALLPATH=2: only setup/solve/scratch above the statement; =1
#     and =0: one node at the root with SETUP + SOLVE + 2 calls (no paths);
#   - OpenMP regions (ompphases.c, gcc's GOMP and clang's OMPT, 3
#     threads): the region, its fork and its join under main -> setup or
#     main -> solve, the frames counting the region's thread parts (6, 15);
#   - a tier-1 build (-finstrument-functions): no frame at all (paths are
#     for sites reached with no instrumented frame open);
#   - HPROF_VERBOSE's count of walks (18 per rank) and of those done by
#     libunwind (6: the first from each wrapper, the 2 through the VLA
#     frame): the others read the offsets table, which keeps a walk at a
#     few ns (a key mixing up the wrappers once made every walk libunwind's);
#   - with counters (HPROF_COUNTERS_FAKE): each frame has its calls' counts;
#   - rooted.c: calls made in a main with a run-time sized frame (walked by
#     libunwind) learn their empty path once: 42 walks, 3 by libunwind;
#   - tailwrap.c: a wrapper that tail-calls MPI_Allreduce, called from a
#     function inlined into main and from one of its own: the calls of the
#     wrapper are frames above the statement (its calling lines are seen);
#   - alternate.c: one call site reached in turn through two callers whose
#     frames lie at the same addresses, and through a recursion at depths
#     1 and 2: each path its exact calls (a remembered walk is reused only
#     when the stack words it read are unchanged);
#   - stdout identical with and without hprof; HPROF_CALLPATH=17 and =x
#     are one-line errors; every profile passes hprof-query --check.
# usage: tests/callpath/run.sh [BUILDDIR]
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
S=$srcdir/tests/callpath
. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir callpath

if [ ! -e "$LIBDIR/libhprof.so" ] || ! command -v "$MPICC" >/dev/null; then
    notok "prerequisites" "missing $LIBDIR/libhprof.so or $MPICC (build with 'make check' first)"
    echo "$pass passed, $fail failed"
    exit 1
fi
src=phases.c
La=$(line_of "$S/$src" allreduce)
Lsc=$(line_of "$S/$src" setup-call)
Lvc=$(line_of "$S/$src" solve-call)
Lms=$(line_of "$S/$src" main-setup)
Lmv=$(line_of "$S/$src" main-solve)
Lxc=$(line_of "$S/$src" scratch-call)
Lmx=$(line_of "$S/$src" main-scratch)
mkdir -p "$tmp/plain"
"$MPICC" -g -O2 "$S/$src" -o "$tmp/plain/phases"
"$MPICC" -g -O2 "$S/$src" -o "$tmp/phases" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR"
"$MPICC" -g -O2 -finstrument-functions "$S/$src" -o "$tmp/phases1" -L"$LIBDIR" -lhprof \
    -Wl,-rpath,"$LIBDIR"

# paths DB - every path with calls, and its calls per rank (rank 0's rows)
paths() {
    q "$1" "SELECT p.path, s.count FROM node_path p JOIN stat s ON s.node = p.id
            WHERE s.rank = 0 AND s.count > 0 ORDER BY p.path" | oneline
}
AR="MPI_Allreduce@phases.c:$La"
MS="main@phases.c:$Lms"
MV="main@phases.c:$Lmv"
SE="setup@phases.c:$Lsc"
SO="solve@phases.c:$Lvc"
MX="main@phases.c:$Lmx"
SX="scratch@phases.c:$Lxc"
LOCAL="/MPI_Comm_rank@phases.c:$((Lms - 2)),1;/MPI_Comm_size@phases.c:$((Lms - 1)),1"
INIT="/MPI_Init@phases.c:$((Lms - 3)),1"

# ---- default depth (3)
unset HPROF_CALLPATH
plain_run plain 2 "$tmp/plain/phases" 4 9
cp "$tmp/plain.out" "$tmp/expected.out"
export HPROF_VERBOSE=1
hp_run d3 2 -x HPROF_VERBOSE "$tmp/phases" 4 9
unset HPROF_VERBOSE
if ran_ok d3; then
    # 18 walks per rank (4 + 9 + 2 MPI_Allreduce, MPI_Init, _Comm_rank,
    # _Comm_size); libunwind does the first from each of the 4 wrappers and
    # the 2 through scratch's frame, the others read the offsets table
    expect_eq "depth 3: walks per rank, and those by libunwind" \
        "hprof: call paths: 18 walks, 6 of them by libunwind" \
        "$(grep '^hprof: call paths:' "$tmp/d3.err")"
    expect_eq "depth 3: stdout as without hprof" "$(cat "$tmp/expected.out")" "$(cat "$tmp/d3.out")"
    expect_eq "depth 3: each phase its own path, exact calls per rank" \
        "$LOCAL;$INIT;/$MS,4;/$MS/$SE,4;/$MS/$SE/$AR,4;/$MV,9;/$MV/$SO,9;/$MV/$SO/$AR,9;/$MX,2;/$MX/$SX,2;/$MX/$SX/$AR,2" \
        "$(paths "$PROFILE")"
    expect_eq "depth 3: frames are dynamic call sites flagged frame, named after their function" \
        "setup,phases.c,$Lsc,setup;solve,phases.c,$Lvc,solve;scratch,phases.c,$Lxc,scratch;main,phases.c,$Lms,main;main,phases.c,$Lmv,main;main,phases.c,$Lmx,main" \
        "$(q "$PROFILE" "SELECT name, replace(file, rtrim(file, replace(file, '/', '')), ''), line, func
             FROM site WHERE kind = 'call' AND (flags & 2048) != 0 ORDER BY line" | oneline)"
    expect_eq "depth 3: a frame's time is its calls' (exclusive 0), on both ranks" "0|0" \
        "$(q "$PROFILE" "SELECT COUNT(*) FROM node_excl e JOIN node n ON n.id = e.node
             JOIN site s ON s.id = n.site WHERE (s.flags & 2048) != 0 AND abs(e.excl) > 1e-12" |
             oneline)|$(q "$PROFILE" "SELECT COUNT(*) FROM node n JOIN site s ON s.id = n.site
             JOIN node_time f ON f.node = n.id JOIN node c ON c.parent = n.id
             JOIN node_time ct ON ct.node = c.id WHERE (s.flags & 2048) != 0
             AND (f.calls != ct.calls OR abs(f.time - ct.time) > 1e-12)")"
    expect_eq "depth 3: no frame in the C library" "0" \
        "$(q "$PROFILE" "SELECT COUNT(*) FROM site WHERE (flags & 2048) != 0
             AND (func LIKE '%libc%' OR module LIKE 'libc.so%')")"
    expect_eq "depth 3: --flat merges the statement over its paths: 15 calls per rank, 30 in all" \
        "30" "$(q "$PROFILE" "SELECT calls FROM site_time WHERE label = '$AR'")"
fi

# ---- counters (the fake back end: an MPI call adds 1 to A, 2 to B): a
# frame has the counts of the calls made through it, like their time
export HPROF_COUNTERS=A,B HPROF_COUNTERS_FAKE=1
hp_run cnt 2 -x HPROF_COUNTERS -x HPROF_COUNTERS_FAKE "$tmp/phases" 4 9
unset HPROF_COUNTERS HPROF_COUNTERS_FAKE
if ran_ok cnt; then
    expect_eq "counters: the statement under solve: 9 calls, A 9, B 18 per rank" "9|18" \
        "$(q "$PROFILE" "SELECT SUM(CASE WHEN c.event = 'A' THEN c.value END) || '|' ||
             SUM(CASE WHEN c.event = 'B' THEN c.value END) AS v FROM counter c
             JOIN node_path p ON p.id = c.node WHERE c.rank = 0 AND p.path = '/$MV/$SO/$AR'")"
    expect_eq "counters: every frame's = its child's, per rank and event (6 frames x 2 ranks x 2)" \
        "24|0" "$(q "$PROFILE" "SELECT COUNT(*) || '|' || SUM(f.value != k.value) AS v
             FROM counter f JOIN node n ON n.id = f.node JOIN site s ON s.id = n.site
             JOIN node c ON c.parent = n.id JOIN counter k ON k.node = c.id AND k.rank = f.rank
             AND k.thread = f.thread AND k.event = f.event WHERE (s.flags & 2048) != 0")"
    expect_eq "counters: one row per node, rank, thread and event (scratch's two calls on one line merged)" \
        "0" "$(q "$PROFILE" "SELECT COUNT(*) AS v FROM (SELECT 1 FROM counter
             GROUP BY node, rank, thread, event HAVING COUNT(*) > 1)")"
fi

# ---- depth 2, 1, 0
export HPROF_CALLPATH=2
hp_run d2 2 -x HPROF_CALLPATH "$tmp/phases" 4 9
ran_ok d2 && expect_eq "depth 2: only the callers of the statement" \
    "$LOCAL;$INIT;/$SX,2;/$SX/$AR,2;/$SE,4;/$SE/$AR,4;/$SO,9;/$SO/$AR,9" "$(paths "$PROFILE")"
for n in 1 0; do
    export HPROF_CALLPATH=$n
    hp_run d$n 2 -x HPROF_CALLPATH "$tmp/phases" 4 9
    ran_ok d$n && expect_eq "depth $n: one node at the root, 15 calls (no call paths)" \
        "/$AR,15;$LOCAL;$INIT" "$(paths "$PROFILE")"
done
unset HPROF_CALLPATH

# ---- tier 1: sites reached inside instrumented frames keep no call path
hp_run t1 2 "$tmp/phases1" 4 9
if ran_ok t1; then
    expect_eq "tier 1: no frame sites" "0" "$(q "$PROFILE" "SELECT COUNT(*) FROM site WHERE (flags & 2048) != 0")"
    expect_eq "tier 1: the statement under sum_all, 15 calls" "15" \
        "$(q "$PROFILE" "SELECT SUM(s.count) FROM stat s JOIN node n ON n.id = s.node
             JOIN site t ON t.id = n.site WHERE s.rank = 0 AND t.name = 'MPI_Allreduce'")"
fi

# ---- OpenMP regions (tests/callpath/ompphases.c, 3 threads, 2 and 5
# calls of the kernel): the region goes under the frames of the call that
# forks it, with its fork and join records; a frame counts the region's
# thread parts (the forking thread from fork to join, the others their
# part), so its calls are the region's
omp_paths() {
    q "$1" "SELECT p.path, SUM(s.count) AS n FROM node_path p JOIN stat s ON s.node = p.id
            WHERE s.count > 0 AND p.path NOT LIKE '%barrier%' GROUP BY p.id ORDER BY p.path" |
        oneline
}
os=ompphases.c
Lo=$(line_of "$S/$os" region)
Oms="main@$os:$(line_of "$S/$os" main-setup)"
Omv="main@$os:$(line_of "$S/$os" main-solve)"
Ose="setup@$os:$(line_of "$S/$os" setup-call)"
Oso="solve@$os:$(line_of "$S/$os" solve-call)"
OMP_EXPECTED="/$Oms,6;/$Oms/$Ose,6;/$Oms/$Ose/fork@$os:$Lo,2;/$Oms/$Ose/join@$os:$Lo,2;/$Oms/$Ose/parallel@$os:$Lo,6;/$Omv,15;/$Omv/$Oso,15;/$Omv/$Oso/fork@$os:$Lo,5;/$Omv/$Oso/join@$os:$Lo,5;/$Omv/$Oso/parallel@$os:$Lo,15"
for cc in gcc clang; do
    command -v $cc >/dev/null || { skipped "OpenMP regions, $cc" "no $cc"; continue; }
    $cc -g -O2 -fopenmp "$S/$os" -o "$tmp/omp-$cc" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" ||
        { notok "OpenMP regions, $cc" "build failed"; continue; }
    rc=0
    OMP_NUM_THREADS=3 HPROF_OUTPUT=$tmp/omp-$cc.hpf HPROF_SUMMARY=off "$tmp/omp-$cc" 2 5 \
        >"$tmp/omp-$cc.out" 2>"$tmp/omp-$cc.err" || rc=$?
    expect_eq "OpenMP regions, $cc: ran, its own count" "0|regions 7, thread parts 21" \
        "$rc|$(cat "$tmp/omp-$cc.out")"
    check_profile "omp-$cc" "$tmp/omp-$cc.hpf"
    expect_eq "OpenMP regions, $cc: each phase its path, thread parts and fork/join counts" \
        "$OMP_EXPECTED" "$(omp_paths "$tmp/omp-$cc.hpf")"
done

# ---- bad values
for v in 17 x; do
    out=$(HPROF_CALLPATH=$v "$tmp/phases" 2>&1 >/dev/null) && rc=0 || rc=$?
    expect_eq "HPROF_CALLPATH=$v: one line naming it, exit 2" "1|2|1" \
        "$(printf '%s\n' "$out" | wc -l)|$rc|$(printf '%s\n' "$out" | grep -c HPROF_CALLPATH)"
done

# ---- calls made in main itself, main's frame walked by libunwind
src=rooted.c
"$MPICC" -g -O2 "$S/$src" -o "$tmp/rooted" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR"
export HPROF_VERBOSE=1
hp_run rooted 2 -x HPROF_VERBOSE "$tmp/rooted" 40
unset HPROF_VERBOSE
if ran_ok rooted; then
    expect_eq "rooted: 42 walks per rank, 3 by libunwind (an empty path is learned once)" \
        "hprof: call paths: 42 walks, 3 of them by libunwind" \
        "$(grep '^hprof: call paths:' "$tmp/rooted.err")"
    expect_eq "rooted: the barriers at the root, under no frame, 40 per rank" "0,40;1,40" \
        "$(q "$PROFILE" "SELECT st.rank, sum(st.count) FROM stat st
            JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
            WHERE s.name = 'MPI_Barrier' AND s.line = $(line_of "$S/$src" rooted-barrier)
            AND n.parent = (SELECT id FROM node WHERE site = 1) GROUP BY st.rank ORDER BY st.rank")"
    expect_eq "rooted: no frame at all" "0" \
        "$(q "$PROFILE" "SELECT count(*) FROM site WHERE flags & 2048")"
    expect_eq "rooted: stdout" "rooted: 40 barriers (1)" "$(cat "$tmp/rooted.out")"
fi

# ---- a wrapper that tail-calls MPI, called from a function inlined into
# main and from one of its own (tailwrap.c's header)
src=tailwrap.c
"$MPICC" -g -O2 "$S/$src" -o "$tmp/tailwrap" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR"
TWA="MPI_Allreduce@$src:$(line_of "$S/$src" tw-allreduce)"
TWI="sum_atoms@$src:$(line_of "$S/$src" tw-inlined-call)"
TWM="main@$src:$(line_of "$S/$src" tw-main-step)"
TWS="step@$src:$(line_of "$S/$src" tw-step-call)"
# tw_paths DB - rank 0's paths through the wrapper's MPI call, and their calls
tw_paths() {
    q "$1" "SELECT p.path, s.count FROM node_path p JOIN stat s ON s.node = p.id
            WHERE s.rank = 0 AND s.count > 0 AND p.path NOT LIKE '%MPI_Init@%'
            AND p.path NOT LIKE '%MPI_Comm_rank@%' ORDER BY p.path" | oneline
}
if objdump -d "$tmp/tailwrap" | awk '/<add_int>:/, /^$/' | grep -c 'jmp .*<MPI_Allreduce' >/dev/null; then
    ok "tailwrap: add_int ends in a tail call of MPI_Allreduce"
else
    notok "tailwrap: add_int ends in a tail call of MPI_Allreduce" "no jmp to MPI_Allreduce in objdump -d"
fi
unset HPROF_CALLPATH
hp_run tw3 2 "$tmp/tailwrap" 5 7
if ran_ok tw3; then
    expect_eq "tailwrap: stdout" "tailwrap: 10 14" "$(cat "$tmp/tw3.out")"
    expect_eq "tailwrap depth 3: the wrapper's calls under the calls of it, 5 from inlined sum_atoms, 7 from step" \
        "/$TWM,7;/$TWM/$TWS,7;/$TWM/$TWS/$TWA,7;/$TWI,5;/$TWI/$TWA,5" "$(tw_paths "$PROFILE")"
    expect_eq "tailwrap depth 3: --callers of the statement: its calling lines, calls over both ranks" \
        "$TWS,14;$TWI,10" \
        "$("$QUERY" "$PROFILE" --callers "$TWA" --format csv | awk -F, '$3 == 1 { print $4 "," $8 }' | sort | oneline)"
fi
export HPROF_CALLPATH=2
hp_run tw2 2 -x HPROF_CALLPATH "$tmp/tailwrap" 5 7
unset HPROF_CALLPATH
ran_ok tw2 && expect_eq "tailwrap depth 2: only the calls of the wrapper above it" \
    "/$TWS,7;/$TWS/$TWA,7;/$TWI,5;/$TWI/$TWA,5" "$(tw_paths "$PROFILE")"

src=alternate.c
"$MPICC" -g -O2 "$S/$src" -o "$tmp/alternate" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR"
ALT=alternate.c
AAR="MPI_Allreduce@$ALT:$(line_of "$S/$src" alt-allreduce)"
AMA="main@$ALT:$(line_of "$S/$src" alt-main-a)"
AMB="main@$ALT:$(line_of "$S/$src" alt-main-b)"
AMB2="main@$ALT:$(line_of "$S/$src" alt-main-b2)"
AMD="main@$ALT:$(line_of "$S/$src" alt-main-d)"
AAC="phase_a@$ALT:$(line_of "$S/$src" alt-a-call)"
ABC="phase_b@$ALT:$(line_of "$S/$src" alt-b-call)"
ADC="descend@$ALT:$(line_of "$S/$src" alt-d-call)"
ADR="descend@$ALT:$(line_of "$S/$src" alt-d-rec)"
hp_run alt 2 "$tmp/alternate" 30
if ran_ok alt; then
    expect_eq "alternate: stdout" "alternate: a 30 b 60 depth1 30 depth2 30" "$(cat "$tmp/alt.out")"
    expect_eq "alternate: the statement's calls under each path that reached it, 30 per rank each" \
        "/$ADR/$ADC/$AAR,30;/$AMA/$AAC/$AAR,30;/$AMB/$ABC/$AAR,30;/$AMB2/$ABC/$AAR,30;/$AMD/$ADC/$AAR,30" \
        "$(tw_paths "$PROFILE" | tr ';' '\n' | grep "/$AAR," | sort | oneline)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
