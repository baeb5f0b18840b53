#!/bin/sh
# test_config.sh - HPROF_* values that name the wrong kind of file or are
# malformed numbers, end to end: a small OpenMP program linked with
# libhprof must exit with status 2 before it runs, print exactly one line
# naming the variable, and write no profile.
#
# Ground truth: the program prints "ok" once when it runs; under each bad
# setting it does not run (stdout empty), exit status 2, stderr exactly
#   HPROF_FILTER=/etc        hprof: HPROF_FILTER='/etc' is a directory, not a rule file
#   HPROF_MAX_NODES=' 5'     hprof: HPROF_MAX_NODES=' 5' is not a whole number from 1 to 1073741824
#   HPROF_FILTER=''          hprof: HPROF_FILTER='' names no rule file (unset it to record every site)
#   HPROF_COUNTERS=',,,'     hprof: HPROF_COUNTERS=',,,' names no event (unset it to read no counters)
# A rule file that does not exist stops every rank with status 2; the
# line naming it is printed by rank 0, and by a rank that may not share
# rank 0's host (its launcher's local rank differs from its world rank:
# its file system may differ) at once; the other ranks of rank 0's host
# wait for the launcher to end the job (still silent after 2 s): under
# mpirun -np 3 on one host, one line in all.
# and with a good HPROF_OUTPUT it prints "ok" and writes that file.  (An
# HPROF_OUTPUT that names a device is not refused: the run goes on and no
# profile is written, tests/writes/run.sh.)
# usage: tests/unit/test_config.sh [BUILDDIR]  (default: top_builddir or .)
set -u
top=$(cd "${1:-${top_builddir:-.}}" && pwd)
LIBDIR=$top/pmpi/.libs
CC=${CC_GCC:-gcc}
[ -f "$LIBDIR/libhprof.so" ] || { echo "SKIP: no $LIBDIR/libhprof.so"; exit 77; }
command -v "$CC" >/dev/null || { echo "SKIP: no $CC"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/test_config.XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT
failures=0

fail() {
    printf 'FAIL: %s\n' "$*"
    failures=$((failures + 1))
}

cat >"$dir/p.c" <<'PROG'
#include <stdio.h>
int main(void)
{
    int n = 0;
#pragma omp parallel reduction(+ : n)
    n += 1;
    printf("ok\n");
    return n > 0 ? 0 : 1;
}
PROG
"$CC" -fopenmp -g "$dir/p.c" -o "$dir/p" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" ||
    exit 99
unset HPROF_FILTER HPROF_OUTPUT HPROF_MAX_NODES
export HPROF_SUMMARY=off
cd "$dir" || exit 99 # a profile written by mistake stays in the temporary directory

# expect_refused NAME VALUE MESSAGE
expect_refused() {
    env "$1=$2" "$dir/p" >"$dir/out" 2>"$dir/err"
    rc=$?
    [ $rc -eq 2 ] || fail "$1='$2': exit $rc, expected 2"
    [ ! -s "$dir/out" ] || fail "$1='$2': the program ran: $(cat "$dir/out")"
    [ "$(cat "$dir/err")" = "$3" ] || fail "$1='$2': stderr '$(cat "$dir/err")', expected '$3'"
}

expect_refused HPROF_FILTER /etc "hprof: HPROF_FILTER='/etc' is a directory, not a rule file"
expect_refused HPROF_MAX_NODES " 5" \
    "hprof: HPROF_MAX_NODES=' 5' is not a whole number from 1 to 1073741824"
expect_refused HPROF_FILTER "" \
    "hprof: HPROF_FILTER='' names no rule file (unset it to record every site)"
expect_refused HPROF_COUNTERS ",,," \
    "hprof: HPROF_COUNTERS=',,,' names no event (unset it to read no counters)"
expect_refused HPROF_COUNTERS " , " \
    "hprof: HPROF_COUNTERS=' , ' names no event (unset it to read no counters)"

# a missing rule file: who says it, as the launcher's variables tell
missing="hprof: HPROF_FILTER: $dir/no-such-rules: No such file or directory"
# expect_filter_line NAME LINES VAR=VALUE... - exit status 2, LINES lines
expect_filter_line() {
    name=$1 lines=$2
    shift 2
    env HPROF_FILTER="$dir/no-such-rules" "$@" "$dir/p" >"$dir/out" 2>"$dir/err"
    rc=$?
    [ $rc -eq 2 ] || fail "missing filter, $name: exit $rc, expected 2"
    want=$([ "$lines" = 1 ] && echo "$missing")
    [ "$(cat "$dir/err")" = "$want" ] ||
        fail "missing filter, $name: stderr '$(cat "$dir/err")', expected '$want'"
}
expect_filter_line "no launcher" 1
expect_filter_line "rank 0" 1 OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_LOCAL_RANK=0
expect_filter_line "rank 2, first on another host" 1 OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_LOCAL_RANK=0
expect_filter_line "PMIx rank 1, host unknown" 1 PMIX_RANK=1
# expect_waiting NAME VAR=VALUE... - still running and silent after 2 s
expect_waiting() {
    name=$1
    shift
    env HPROF_FILTER="$dir/no-such-rules" "$@" timeout 2 "$dir/p" >"$dir/out" 2>"$dir/err"
    rc=$?
    [ $rc -eq 124 ] && [ ! -s "$dir/err" ] ||
        fail "missing filter, $name: exit $rc (124: still waiting), stderr '$(cat "$dir/err")'"
}
expect_waiting "rank 2 on rank 0's host" OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_LOCAL_RANK=2
expect_waiting "hydra rank 1 on rank 0's host" PMI_RANK=1 MPI_LOCALRANKID=1
# mpirun_lines NAME WANT VAR=VALUE - 3 ranks on this host: exactly one
# line WANT (the ranks that leave it to rank 0 do not exit first, so
# mpirun cannot stop rank 0 before it prints)
mpirun_lines() {
    if ! command -v mpirun >/dev/null 2>&1; then
        return 0
    fi
    env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$3" \
        timeout 120 mpirun -np 3 --oversubscribe --bind-to none -x "${3%%=*}" -x HPROF_SUMMARY \
        "$dir/p" >"$dir/out" 2>"$dir/err" </dev/null
    n=$(grep -c "^hprof: " "$dir/err")
    [ "$n" = 1 ] && grep -qxF "$2" "$dir/err" ||
        fail "$1 under mpirun -np 3: $n lines, expected one '$2': $(cat "$dir/err")"
}
mpirun_lines "missing filter" "$missing" HPROF_FILTER="$dir/no-such-rules"
mpirun_lines "malformed setting" "hprof: HPROF_MAX_NODES='x' is not a whole number from 1 to 1073741824" \
    HPROF_MAX_NODES=x

# the good case still runs and writes its profile
HPROF_OUTPUT=$dir/good.hpf "$dir/p" >"$dir/out" 2>"$dir/err" || fail "good: exit $?: $(cat "$dir/err")"
[ "$(cat "$dir/out")" = ok ] || fail "good: stdout '$(cat "$dir/out")', expected 'ok'"
[ -s "$dir/good.hpf" ] || fail "good: $dir/good.hpf not written"

if [ $failures -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "all HPROF_* configuration tests passed"
