# expect.sh - the checks the analyzer's shell tests share (sourced by
# test_query.sh, test_root.sh, test_views.sh): each compares a command's
# output with an exact expectation.  The sourcing script sets $dir (a
# scratch directory); failures and checks count what ran.
failures=0 checks=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# expect_out NAME EXPECTED COMMAND... : stdout must equal EXPECTED, exit 0
expect_out() {
    name=$1 want=$2
    shift 2
    checks=$((checks + 1))
    got=$("$@" 2>"$dir/err")
    rc=$?
    [ $rc -eq 0 ] || fail "$name: exit $rc: $(cat "$dir/err")"
    [ "$got" = "$want" ] || fail "$name: got
$got
expected
$want"
}

# expect_err NAME STATUS MESSAGE COMMAND... : stderr must equal MESSAGE,
# stdout must be empty, exit status must be STATUS
expect_err() {
    name=$1 status=$2 want=$3
    shift 3
    checks=$((checks + 1))
    "$@" >"$dir/out" 2>"$dir/err"
    rc=$?
    [ $rc -eq "$status" ] || fail "$name: exit $rc, expected $status"
    [ "$(cat "$dir/err")" = "$want" ] || fail "$name: stderr: $(cat "$dir/err"), expected $want"
    [ ! -s "$dir/out" ] || fail "$name: wrote to stdout: $(cat "$dir/out")"
}
