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

# the good case still runs and writes its profile
HPROF_OUTPUT=$dir/good.hpf "$dir/p" >"$dir/out" 2>"$dir/err" || fail "good: exit $?: $(cat "$dir/err")"
[ "$(cat "$dir/out")" = ok ] || fail "good: stdout '$(cat "$dir/out")', expected 'ok'"
[ -s "$dir/good.hpf" ] || fail "good: $dir/good.hpf not written"

if [ $failures -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "all HPROF_* configuration tests passed"
