#!/bin/bash
# tests/interactive/run.sh - hprof-query -i driven over a pipe: navigation
# (cd by path, by #N, .., /, by label and file:line; pwd), ls and top rows,
# the reports of the current node, sql, errors that leave the session
# going, and the exit status.
#
# Ground truth 1: the known two-rank profile of tests/unit/mkprofile.c
# (test_query.sh and test_root.sh derive the same numbers).  Its tree:
#   #1 root: #2 main (22 s), #9 compute (3.5 s)
#   #2 main: #3 loop@app.c:20 (17 s), #6 MPI_Allreduce@app.c:50 (1.5 s),
#            #8 MPI_Send@app.c:60 (0.25 s)
#   #3 loop: #5 compute (12.5 s), #7 MPI_Recv@libapp.so+0x1a2b (2 s),
#            #4 MPI_Send@app.c:42 (1.5 s)
# #7's records are rank 1's: 5 calls, 2 s, tran 1.25, sync 0.75, from
# peer 0 5000 bytes.  The database has 9 nodes.
#
# Ground truth 2: real runs.  tests/mpi/late_sender (2 ranks): rank 0's
# MPI_Recv (line late-recv) is called once, by rank 0 only, receiving 400
# bytes from rank 1; the root has the program's 6 MPI call sites as
# children.  examples/jacobi 64 20 on 4 ranks x 2 threads: 20 iterations,
# each one parallel region per rank (20 executions on each of the 8
# threads: 160 calls of the region and of its implicit barrier) and one
# MPI_Sendrecv per rank (20 per rank).
#
# On a pty (script -qc, when hprof-query has libedit): a prompt per line
# read (5 lines typed) naming the current node ("hprof:/main> "), two
# up-arrows recall "pwd" after "cd #3", and Tab completes "pw" to pwd,
# "ma" to main, "lo" (under main) to loop@app.c:20, "/main/MPI_Send@app.c:6"
# to ...60 and the site "MPI_Allr" to MPI_Allreduce@app.c:50.
#
# usage: tests/interactive/run.sh [BUILDDIR]   (default: the current directory)
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
MPIRUN=${MPIRUN:-mpirun}
QUERY=$builddir/analyzer/hprof-query
MERGE=$builddir/analyzer/hprof-merge
MKPROFILE=$builddir/tests/unit/mkprofile
T=$builddir/tests/mpi
S=$srcdir/tests/mpi

. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir interactive
pass=0 fail=0 skip=0

for f in "$QUERY" "$MERGE" "$MKPROFILE"; do
    if [ ! -x "$f" ]; then
        notok "prerequisites" "missing: $f (build with 'make check TESTS=' first)"
        echo "$pass passed, $fail failed"
        exit 1
    fi
done

# session DB COMMANDS - stdout of `hprof-query -i DB` fed COMMANDS (printf
# format); stderr in $tmp/session.err, exit status in $tmp/session.rc.
session() {
    local rc=0
    printf "$2" | "$QUERY" -i "$1" 2>"$tmp/session.err" || rc=$?
    echo "$rc" >"$tmp/session.rc"
}
# same - exact comparison of whole outputs (no number normalisation).
same() {
    if [ "$2" = "$3" ]; then ok "$1"; else
        notok "$1" "expected '$(printf '%s' "$2" | oneline)' got '$(printf '%s' "$3" | oneline)'"
    fi
}

# ------------------------------------------------------------ mkprofile
"$MKPROFILE" "$tmp/p.hpf" && "$MERGE" "$tmp/p.hpf" >/dev/null || { notok "mkprofile" "failed"; exit 1; }
db=$tmp/p.db

same "cd by path, .., #N, /, label, file:line, relative path, ../.." \
"/ (#1)
/main/loop@app.c:20 (#3)
/main (#2)
/main/loop@app.c:20/MPI_Recv@libapp.so+0x1a2b (#7)
/ (#1)
/main/loop@app.c:20 (#3)
/main/MPI_Send@app.c:60 (#8)
/main/loop@app.c:20/compute (#5)
/main (#2)
/ (#1)" \
    "$(session "$db" 'pwd\ncd main/loop@app.c:20\npwd\ncd ..\npwd\ncd #7\npwd\ncd /\npwd\ncd loop@app.c:20\npwd\ncd app.c:60\npwd\ncd /main\ncd loop@app.c:20/compute\npwd\ncd ../..\npwd\ncd\npwd\n')"
same "navigation: nothing on stderr, exit 0" "0" "$(cat "$tmp/session.rc")$(cat "$tmp/session.err")"

same "ls: the children of the current node, the listing's columns" \
"node,depth,site,calls,time,mean,max,imbalance,pct,parent,excl,worst_rank,worst_thread
3,1,loop@app.c:20,10,17,8.5,9,1.05882352941176,50,2,1,1,0
6,1,MPI_Allreduce@app.c:50,4,1.5,0.75,1,1.33333333333333,4.41176470588235,2,1.5,1,0
8,1,MPI_Send@app.c:60,1,0.25,0.125,0.25,2,0.735294117647059,2,0.25,1,0" \
    "$(session "$db" 'format csv\ncd main\nls\n')"
same "ls NODE and text ls (columns node, site, calls: text leaves out depth)" \
"5 compute 10
7 MPI_Recv@libapp.so+0x1a2b 5
4 MPI_Send@app.c:42 5
2 main 2
9 compute 3" \
    "$(session "$db" 'ls #3\nls\n' | awk '$1 ~ /^[0-9]+$/ { print $1, $2, $3 }')"
same "top N: the listing under the current node" \
"node,depth,site,calls,time,mean,max,imbalance,pct,parent,excl,worst_rank,worst_thread
2,0,main,2,22,11,12,1.09090909090909,64.7058823529412,,3.25,1,0
3,1,loop@app.c:20,10,17,8.5,9,1.05882352941176,50,2,1,1,0" \
    "$(session "$db" 'cd main\nformat csv\ntop 2\n')"
same "top in text: the subtree line" \
    "subtree of main (#2, /main), pct of the whole run" \
    "$(session "$db" 'cd main\ntop\n' | grep '^subtree')"
same "comm and ranks of the current node (#7)" \
"peer,dir,count,bytes_sent,bytes_recv,tran,sync,min,max
0,from,5,0,5000,1.25,0.75,0.2,0.3
rank,calls,time,tran,sync,worst
0,0,0,0,0,0
1,5,2,1.25,0.75,1" \
    "$(session "$db" 'cd #7\nformat csv\ncomm\nranks\n')"
same "ranks SITE names another site" \
"rank,calls,time,tran,sync,worst
0,5,6,0,0,0
1,8,10,0,0,1" "$(session "$db" 'format csv\nranks compute\n')"
# the reports built beside -i: the same rows as their options give
same "callers, matrix and overheads as their options" \
    "$("$QUERY" "$db" --callers compute --format csv; "$QUERY" "$db" --matrix --format csv; "$QUERY" "$db" --overheads '#3' --format csv)" \
    "$(session "$db" 'format csv\ncallers compute\nmatrix\ncd #3\noverheads\n')"
same "sql" "n
9" "$(session "$db" 'sql SELECT COUNT(*) AS n FROM node\n')"
same "flat (csv, first two columns of the first row)" "site,label;1,root" \
    "$(session "$db" 'format csv\nflat\n' | head -2 | cut -d, -f1,2 | oneline)"
same "help lists every command" "ls cd pwd top comm threads ranks callers matrix overheads flat sql format help quit exit" \
    "$(session "$db" 'help\n' | awk '/^  [a-z]/ { printf "%s%s", s, $1; s = " " } END { print "" }')"

# errors: one line each on stderr, the next command still runs, exit 0;
# nothing runs after quit
same "errors leave the session going: stdout" \
"/ (#1)
/ (#1)
/ (#1)
/ (#1)
/ (#1)
n
9" "$(session "$db" 'pwd\nfrobnicate now\npwd\ncd #99\npwd\ncd /main/nosuch\npwd\ncd nosuch\npwd\nsql SELEC 1\nformat xml\nsql SELECT COUNT(*) AS n FROM node\nquit\npwd\n')"
same "errors leave the session going: one line each on stderr" \
"hprof-query: unknown command 'frobnicate' (help lists them)
hprof-query: no node #99 in $db
hprof-query: no node at path '/main/nosuch' in $db
hprof-query: no site matches 'nosuch' in $db
hprof-query: $db: near \"SELEC\": syntax error
hprof-query: format must be text, csv or json, not 'xml'" "$(cat "$tmp/session.err")"
same "errors: exit status 0" 0 "$(cat "$tmp/session.rc")"

same "an ambiguous SITE lists the contexts" \
    "hprof-query: 'app.c:100' is ambiguous, it matches 2 calling contexts: #5 (/main/loop@app.c:20/compute), #9 (/compute); name one by its path or node id #N" \
    "$(session "$db" 'cd app.c:100\n'; cat "$tmp/session.err")"
rc=0
echo pwd | "$QUERY" -i "$tmp/none.db" >"$tmp/none.out" 2>"$tmp/none.err" || rc=$?
same "a database that cannot be opened: exit 1, one line, no output" \
    "1;hprof-query: $tmp/none.db: No such file or directory;" \
    "$rc;$(cat "$tmp/none.err");$(cat "$tmp/none.out")"
rc=0
"$QUERY" -i --flat "$db" </dev/null >/dev/null 2>&1 || rc=$?
same "-i with another report: usage error" 2 "$rc"

# on a terminal (a pty from script(1)): the prompt (the current node's
# path), libedit's history: two up-arrows recall "pwd", which now prints
# #3's path; Tab completion
libs=$(ldd "$QUERY" 2>/dev/null || true)
if ! command -v script >/dev/null || [ "${libs#*libedit}" = "$libs" ]; then
    skipped "line editing on a terminal" "no script(1) or hprof-query built without libedit"
else
    (sleep 0.5; printf 'cd main\n'; sleep 0.3; printf 'pwd\n'; sleep 0.3; printf 'cd #3\n'; sleep 0.3
     printf '\033[A\033[A\n'; sleep 0.3; printf 'quit\n'; sleep 0.5) |
        timeout 20 script -qc "$QUERY -i $db" /dev/null >"$tmp/pty.out" 2>&1 || true
    same "terminal: a prompt per line read, history recalls pwd" "5;/main (#2);/main/loop@app.c:20 (#3)" \
        "$(grep -c 'hprof:[^ ]*> ' "$tmp/pty.out");$(tr -d '\r' <"$tmp/pty.out" | grep -o '/main[^ ]* (#[0-9]*)' | oneline)"
    same "terminal: the prompt names the current node" "hprof:/> ;hprof:/main> ;hprof:/main/loop@app.c:20> " \
        "$(tr -d '\r' <"$tmp/pty.out" | grep -o 'hprof:[^ ]*> ' | awk '!seen[$0]++' | oneline)"
    # Tab completes a command (pw -> pwd), a child's label (ma -> main, lo
    # -> loop@app.c:20), a path from / and a site label (MPI_Allr ->
    # MPI_Allreduce@app.c:50)
    (sleep 0.5; printf 'cd ma\t\n'; sleep 0.3; printf 'pw\t\n'; sleep 0.3; printf 'cd lo\t\n'; sleep 0.3
     printf 'pwd\n'; sleep 0.3; printf 'cd /main/MPI_Send@app.c:6\t\n'; sleep 0.3; printf 'pwd\n'; sleep 0.3
     printf 'comm MPI_Allr\t\n'; sleep 0.3; printf 'quit\n'; sleep 0.5) |
        timeout 20 script -qc "$QUERY -i $db" /dev/null >"$tmp/tab.out" 2>&1 || true
    same "terminal: Tab completes commands, node paths and site labels" \
        "/main (#2);/main/loop@app.c:20 (#3);/main/MPI_Send@app.c:60 (#8);communication of MPI_Allreduce@app.c:50" \
        "$(tr -d '\r' <"$tmp/tab.out" | grep -o '^/main[^ ]* (#[0-9]*)\|^communication of .*' | oneline)"
fi

# ------------------------------------------------------------- real runs
if ! command -v "$MPIRUN" >/dev/null || [ ! -x "$T/late_sender" ] ||
    [ ! -x "$builddir/examples/jacobi" ]; then
    skipped "real runs" "no $MPIRUN, $T/late_sender or examples/jacobi"
else
    Lr=$(line_of "$S/late_sender.c" late-recv)
    hp_run late 2 "$T/late_sender"
    if ran_ok late; then
        ldb=${PROFILE%.hpf}.db
        "$QUERY" "$PROFILE" --top 1 >/dev/null 2>&1 || true   # merges into $ldb
        id=$(q "$ldb" "SELECT n.id FROM node n JOIN site s ON s.id = n.site WHERE s.label = 'MPI_Recv@late_sender.c:$Lr'")
        same "late_sender: cd LABEL, pwd" "/MPI_Recv@late_sender.c:$Lr (#$id)" \
            "$(session "$ldb" "cd MPI_Recv@late_sender.c:$Lr\npwd\n")"
        same "late_sender: ranks and comm of the current node (calls, bytes)" \
"rank,calls
0,1
1,0
peer,dir,count,bytes_sent,bytes_recv
1,from,1,0,400" \
            "$(session "$ldb" "cd #$id\nformat csv\nranks\ncomm\n" | cut -d, -f1-5 | sed 's/^\(rank,calls\),.*/\1/; s/^\([01],[0-9]*\),.*/\1/')"
        same "late_sender: ls at the root lists the 6 MPI call sites" \
            "MPI_Barrier MPI_Comm_rank MPI_Comm_size MPI_Init MPI_Recv MPI_Send" \
            "$(session "$ldb" 'format csv\nls\n' | awk -F, 'NR > 1 { sub(/@.*/, "", $3); print $3 }' | sort | xargs)"
    fi

    hp_run jac 4 -x OMP_NUM_THREADS=2 "$builddir/examples/jacobi" 64 20
    if ran_ok jac; then
        jdb=${PROFILE%.hpf}.db
        "$QUERY" "$PROFILE" --top 1 >/dev/null 2>&1 || true
        Lp=$(q "$jdb" "SELECT MIN(line) FROM site WHERE kind = 'omp' AND name = 'parallel'")
        Ls=$(q "$jdb" "SELECT MIN(line) FROM site WHERE name = 'MPI_Sendrecv'")
        pid=$(q "$jdb" "SELECT n.id FROM node n JOIN site s ON s.id = n.site WHERE s.label = 'parallel@jacobi.c:$Lp'")
        bid=$(q "$jdb" "SELECT n.id FROM node n JOIN site s ON s.id = n.site WHERE s.label = 'implicit barrier@jacobi.c:$Lp'")
        same "jacobi: cd by label, ls, cd by a relative path with a space, .." \
"/parallel@jacobi.c:$Lp (#$pid)
site,calls
implicit barrier@jacobi.c:$Lp,160
/parallel@jacobi.c:$Lp/implicit barrier@jacobi.c:$Lp (#$bid)
/parallel@jacobi.c:$Lp (#$pid)" \
            "$(session "$jdb" "cd parallel@jacobi.c:$Lp\npwd\nformat csv\nls\ncd implicit barrier@jacobi.c:$Lp\npwd\ncd ..\npwd\n" | sed 's/^[0-9]*,[0-9]*,\([^,]*,[0-9]*\),.*/\1/; s/^node,depth,\(site,calls\),.*/\1/')"
        same "jacobi: threads of the region here: 8 threads x 20 executions" \
            "0,0,20;0,1,20;1,0,20;1,1,20;2,0,20;2,1,20;3,0,20;3,1,20" \
            "$(session "$jdb" "cd #$pid\nformat csv\nthreads\n" | awk -F, 'NR > 1 { print $1 "," $2 "," $3 }' | sort | oneline)"
        same "jacobi: ranks of MPI_Sendrecv by file:line, 20 calls per rank" \
            "0,20;1,20;2,20;3,20" \
            "$(session "$jdb" "format csv\ncd jacobi.c:$Ls\nranks\n" | awk -F, 'NR > 1 { print $1 "," $2 }' | oneline)"
    fi
fi

[ "$skip" = 0 ] || echo "# $skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
