#!/bin/bash
# tests/live/run.sh - live snapshots (HPROF_LIVE, hprof-query --live) of
# live.c, whose header states the ground truth.  A run of 4 ranks x 2
# OpenMP threads with HPROF_LIVE=1, read while it runs: every live view
# (hprof-query --live --once) holds each rank's calls per site, never fewer
# than the view before and never more than the final profile; rank 0's
# MPI_Allreduce count lies between the iterations it had printed 0.1 s
# before its snapshot's end and those printed 0.3 s after (one interval is
# 1 s); every snapshot file passes --check; hprof-report --live --once writes a
# page that reloads itself; the refreshing view of the same run on a pipe
# prints frames with the last interval's rates, names rank 2 (3 x the work
# of the others) as the rank behind most often, and ends with the run;
# PATH.live/ is gone after the normal end.  The views' temporary databases
# go to $TMPDIR (a folder that does not exist: an error naming it) and are
# removed.  A run whose rank 1 is killed with SIGKILL once it has written
# two snapshots: the dead run's merge takes rank 1 from its last snapshot,
# says so, and passes --check.  Every rank killed with SIGKILL once each
# has written two: hprof-query PATH merges the snapshots (and the files of
# ranks that mpirun's SIGTERM reached first) as the run's files, naming
# each snapshot.  Live snapshots taken one after another, the unchanged
# records kept from the last (bench/livesnap, a growing tree of two
# threads): the last file is byte for byte a snapshot read from scratch.
#
# usage: tests/live/run.sh [BUILDDIR]
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
PROG=$builddir/tests/live/live
S=$srcdir/tests/live

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir live
export LD_LIBRARY_PATH=$builddir/pmpi/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

if ! [ -x "$QUERY" ] || ! [ -x "$PROG" ]; then
    notok "prerequisites" "hprof-query or tests/live/live missing (make check builds them)"
    echo "$pass passed, $fail failed"
    exit 1
fi
L_allreduce=$(line_of "$S/live.c" l-allreduce)

# start NAME ITERS [PIDFILE|- [SLOW_RANK]] - the program under mpirun in
# the background (PID: mpirun's), profile $tmp/NAME/out.hpf, stdout
# $tmp/NAME.out.
start() {
    mkdir -p "$tmp/$1"
    HPROF_LIVE=1 HPROF_SUMMARY=off HPROF_OUTPUT=$tmp/$1/out.hpf timeout 120 "$MPIRUN" -np 4 \
        "${MPIFLAGS[@]}" -x HPROF_LIVE -x HPROF_SUMMARY -x HPROF_OUTPUT -x OMP_WAIT_POLICY \
        -x LD_LIBRARY_PATH "$PROG" "$2" 20 ${3:+"$3"} ${4:+"$4"} >"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null &
    PID=$!
}

# per rank and site: "rank,label,calls" of a database or a live view
COUNTS="SELECT st.rank, s.label, sum(st.count) FROM stat st JOIN node n ON n.id = st.node
        JOIN site s ON s.id = n.site WHERE s.kind IN ('comm', 'omp', 'call')
        GROUP BY st.rank, s.label ORDER BY st.rank, s.label"
ALLREDUCE0="SELECT sum(st.count), (SELECT end_ns FROM rank WHERE rank = 0) FROM stat st
        JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
        WHERE st.rank = 0 AND s.name = 'MPI_Allreduce'"

# ---- a run read while it runs, and its refreshing view on a pipe ----
# (rank 2 does 3 x the work of the others: the view names it behind)
start normal 60 - 2
views=0 QPID=
private=$tmp/private # TMPDIR of the views: their temporary databases
mkdir -p "$private"
while kill -0 "$PID" 2>/dev/null; do
    sleep 0.7
    v=$((views + 1))
    rm -rf "$tmp/snap$v.live"
    cp -r "$tmp/normal/out.live" "$tmp/snap$v.live" 2>/dev/null || continue
    if [ -z "$QPID" ]; then
        TMPDIR=$private "$QUERY" --live "$tmp/normal/out.hpf" --interval 0.5 --flat --top 5 \
            >"$tmp/top.txt" 2>"$tmp/top.err" &
        QPID=$!
    fi
    TMPDIR=$private "$QUERY" --live "$tmp/normal/out.hpf" --once --sql "$COUNTS" --format csv \
        >"$tmp/view$v.csv" 2>/dev/null || continue
    TMPDIR=$private "$QUERY" --live "$tmp/snap$v.live" --once --sql "$ALLREDUCE0" --format csv \
        >"$tmp/truth$v.csv" 2>/dev/null || continue
    views=$v
    [ "$v" = 2 ] && "$builddir/analyzer/hprof-report" --live --once "$tmp/normal/out.hpf" \
        -o "$tmp/page.html" 2>"$tmp/page.err"
done
wait "$PID" && rc=0 || rc=$?
expect_eq "normal run: exit status" 0 "$rc"
expect_cmp "normal run: live views taken while it ran" ge 3 "$views"
if [ -e "$tmp/normal/out.live" ]; then
    notok "normal end: PATH.live/ removed" "$(ls "$tmp/normal/out.live" | oneline)"
else
    ok "normal end: PATH.live/ removed"
fi
check_profile "final profile" "$tmp/normal/out.hpf"
q "$tmp/normal/out.hpf" "$COUNTS" >"$tmp/final.csv"

# counts of a view (rank,label,count lines; header and live: lines dropped)
rows() { grep -v '^live:' "$1" | awk -F, 'NR > 1 && NF == 3'; }
monotonic=ok bounded=ok truth=ok checked=ok
prev=/dev/null
for v in $(seq 1 "$views"); do
    rows "$tmp/view$v.csv" >"$tmp/rows$v"
    # a count below the previous view's, or above the final profile's
    bad=$(awk -F, -v tag=earlier 'FNR == NR { c[$1 "," $2] = $3; next }
        ($1 "," $2) in c && $3 < c[$1 "," $2] { print tag, $0, "<", c[$1 "," $2] }' "$prev" "$tmp/rows$v")
    [ -z "$bad" ] || monotonic="view $v: $bad"
    bad=$(awk -F, 'FNR == NR { c[$1 "," $2] = $3; next }
        !(($1 "," $2) in c) || $3 > c[$1 "," $2] { print $0, ">", c[$1 "," $2] + 0 }' \
        "$tmp/final.csv" "$tmp/rows$v")
    [ -z "$bad" ] || bounded="view $v: $bad"
    prev=$tmp/rows$v
    # rank 0's Allreduce count against the iterations it had printed
    read -r count end_ns < <(grep -v '^live:' "$tmp/truth$v.csv" | awk -F, 'NR > 1 { print $1, $2 }')
    # (the snapshot's end is taken once its records are read: an
    # iteration printed in between is not in them; 0.1 s allows for it)
    lo=$(awk -v t="$end_ns" '$1 == "iter" && $3 <= t - 100000000 { n = $2 } END { print n + 0 }' "$tmp/normal.out")
    hi=$(awk -v t="$end_ns" '$1 == "iter" && $3 <= t + 300000000 { n = $2 } END { print n + 1 }' "$tmp/normal.out")
    echo "# view $v: rank 0 counted ${count:-none} MPI_Allreduce; the program had printed $lo 0.1 s before, $((hi - 1)) 0.3 s after"
    if ! [ "${count:-x}" -ge "$lo" ] 2>/dev/null || [ "$count" -gt "$hi" ]; then
        truth="view $v: rank 0 counted ${count:-none} MPI_Allreduce, the program had printed $lo 0.1 s before, $hi 0.3 s after"
    fi
    for f in "$tmp/snap$v.live"/rank*.hpf; do
        out=$("$QUERY" "$f" --check 2>&1) || checked="$f: $(echo "$out" | head -3 | oneline)"
    done
done
[ "$monotonic" = ok ] && ok "live views: counts never go backwards" || notok "live views: counts never go backwards" "$monotonic"
[ "$bounded" = ok ] && ok "live views: counts within the final profile's" || notok "live views: counts within the final profile's" "$bounded"
[ "$truth" = ok ] && ok "live views: rank 0's MPI_Allreduce count is the program's own at the snapshot" || notok "live views: rank 0's MPI_Allreduce count is the program's own" "$truth"
[ "$checked" = ok ] && ok "every snapshot passes --check" || notok "every snapshot passes --check" "$checked"
expect_cmp "the last view holds rows of every rank" ge 4 "$(cut -d, -f1 "$tmp/rows$views" | sort -u | wc -l)"

page=0
for want in '<meta http-equiv="refresh" content="5">' '<pre class="note">live: 4 ranks; snapshot age' \
    "MPI_Allreduce@live.c:$L_allreduce"; do
    grep -qF "$want" "$tmp/page.html" 2>/dev/null && page=$((page + 1))
done
expect_eq "hprof-report --live: a page that reloads itself, with the ages and the sites" 3 "$page"

# ---- the refreshing view of that run, started with its first snapshot ----
if [ -n "$QPID" ] && timeout 10 tail --pid="$QPID" -f /dev/null; then
    ok "refreshing view ends with the run"
else
    kill "$QPID" 2>/dev/null || true
    notok "refreshing view ends with the run" "still running 10 s after the run's end"
fi
expect_cmp "refreshing view: frames" ge 3 "$(grep -c '^--- frame' "$tmp/top.txt" || true)"
expect_cmp "refreshing view: rates of the last interval" ge 2 \
    "$(grep -c '^last [0-9.]* s: [0-9]* calls/s, MPI [0-9.]*%, OpenMP waits [0-9.]*% of thread time; behind:' "$tmp/top.txt" || true)"
# rank 2 computes 3 x as long as the others: the rank named behind most
# often (the first intervals hold MPI_Init, and 2 cores shared by 8
# threads blur the others: not every frame)
behind=$(grep '^last [0-9]' "$tmp/top.txt" | sed -n 's/.*behind: //p' | grep -o 'rank [0-9]*' |
    sort | uniq -c | sort -k1,1nr -k2 | awk 'NR == 1 { print $2, $3 }' || true)
expect_eq "refreshing view: rank 2 (3 x the work) is the rank behind most often" "rank 2" "$behind"
expect_eq "TMPDIR: the views' temporary databases removed from it" "" "$(ls "$private")"
TMPDIR=$tmp/no-such-dir "$QUERY" --live "$tmp/snap1.live" --once >/dev/null 2>"$tmp/notmp.err" &&
    rc=0 || rc=$?
if [ "$rc" != 0 ] && grep -cF "$tmp/no-such-dir/hprof-live-" "$tmp/notmp.err" >/dev/null; then
    ok "TMPDIR: a live view's temporary database goes there"
else
    notok "TMPDIR: a live view's temporary database goes there" "exit $rc: $(oneline <"$tmp/notmp.err")"
fi

# wait_snapshots DIR RANK... - until each RANK has written its second
# snapshot to DIR (each replaces the file, a new inode; 30 s at most): the
# first may come before the ranks' first iteration
wait_snapshots() {
    local dir=$1 r first now
    shift
    for r in "$@"; do
        first=
        for _ in $(seq 1 300); do
            now=$(stat -c %i "$dir/rank$r.hpf" 2>/dev/null || true)
            [ -z "$first" ] && first=$now
            [ -n "$now" ] && [ "$now" != "$first" ] && break
            sleep 0.1
        done
    done
}

# ---- rank 1 killed with SIGKILL: its last snapshot stands for it ----
start kill 400 "$tmp/pid"
for _ in $(seq 1 50); do [ -s "$tmp/pid1" ] && break; sleep 0.1; done
wait_snapshots "$tmp/kill/out.live" 1
kill -9 "$(cat "$tmp/pid1")" 2>/dev/null || true
wait "$PID" || true
files=$(cd "$tmp/kill" && { ls out.rank*.hpf; ls out.live; } 2>/dev/null | oneline)
expect_eq "killed rank: the others' files and its snapshot" "out.rank0.hpf;out.rank2.hpf;out.rank3.hpf;rank1.hpf" "$files"
"$QUERY" "$tmp/kill" --ranks MPI_Allreduce >"$tmp/kill.txt" 2>"$tmp/kill.note" || true
if grep -q 'rank 1: live snapshot from [0-9.]* s before the end' "$tmp/kill.note"; then
    ok "killed rank: the merge says its data is a live snapshot"
else
    notok "killed rank: the merge says its data is a live snapshot" "$(oneline <"$tmp/kill.note")"
fi
r1=$(q "$tmp/kill/out.db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node
        JOIN site s ON s.id = n.site WHERE st.rank = 1 AND s.name = 'MPI_Allreduce' AND s.line = $L_allreduce")
r0=$(q "$tmp/kill/out.db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node
        JOIN site s ON s.id = n.site WHERE st.rank = 0 AND s.name = 'MPI_Allreduce' AND s.line = $L_allreduce")
expect_cmp "killed rank: its MPI_Allreduce@live.c:$L_allreduce calls from the snapshot" ge 10 "$r1"
expect_cmp "killed rank: no more calls than rank 0" le "${r0:-0}" "$r1"
check_profile "killed run's merge" "$tmp/kill/out.db"

# ---- every rank killed with SIGKILL: the snapshots are the run ----
rm -f "$tmp"/pid?
start all 400 "$tmp/pid"
for _ in $(seq 1 50); do [ -s "$tmp/pid0" ] && [ -s "$tmp/pid3" ] && break; sleep 0.1; done
wait_snapshots "$tmp/all/out.live" 0 1 2 3
for r in 0 1 2 3; do kill -9 "$(cat "$tmp/pid$r")" 2>/dev/null || true; done
wait "$PID" || true
"$QUERY" "$tmp/all/out.hpf" --ranks MPI_Allreduce >"$tmp/all.txt" 2>"$tmp/all.note" || true
# mpirun may end a rank with SIGTERM before its SIGKILL: it then writes
# its own file, which the merge takes instead of its snapshot
own=$(cd "$tmp/all" && { ls out.rank*.hpf 2>/dev/null || true; } | wc -l)
expect_cmp "every rank killed: at least one left only its snapshot" lt 4 "$own"
expect_eq "every rank killed: the merge names each snapshot it takes" $((4 - own)) \
    "$(grep -o 'rank [0-3]: live snapshot from [0-9.]* s before the end' "$tmp/all.note" | wc -l)"
expect_eq "every rank killed: MPI_Allreduce@live.c:$L_allreduce counted on every rank" 4 \
    "$(q "$tmp/all/out.db" "SELECT count(DISTINCT st.rank) FROM stat st JOIN node n ON n.id = st.node
        JOIN site s ON s.id = n.site WHERE s.name = 'MPI_Allreduce' AND s.line = $L_allreduce AND st.count > 0")"
check_profile "every rank killed: the merge" "$tmp/all/out.db"

# ---- a snapshot kept for the next one (hp_snapshot_image.h) ----
# bench/livesnap: snapshots of a 20,000-node tree while a second thread
# records and the first thread's tree grows (the second's records move);
# a last one, nothing recording, is byte for byte the end-of-run writer's
# file of the records read from scratch
img=$("$builddir/bench/livesnap" 20000 "$tmp/image.hpf" grow 2>&1 || true)
expect_eq "kept snapshot: the same bytes as one read from scratch" 1 \
    "$(echo "$img" | grep -c 'same bytes as the end-of-run writer' || true)"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
