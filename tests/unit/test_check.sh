#!/bin/sh
# test_check.sh - hprof-query --check on the known profiles of mkcheck: the
# good one passes (exit 0, one "ok" line), each variant fails (exit 1) and
# names the rule it breaks (the variants are listed in mkcheck.c).  Run from
# the build directory (as `make check` does) or with top_builddir set.
set -u
top=${top_builddir:-.}
MKCHECK=$top/tests/unit/mkcheck
QUERY=$top/analyzer/hprof-query
dir=$(mktemp -d "${TMPDIR:-/tmp}/test_check.XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# expect VARIANT STATUS PATTERN [ABSENT] - exit status STATUS, a line of
# stdout matching PATTERN (grep -E), none matching ABSENT.
expect() {
    v=$1 status=$2 want=$3 absent=${4:-}
    "$MKCHECK" "$dir/$v.hpf" "$v" || { fail "$v: mkcheck failed"; return; }
    "$QUERY" "$dir/$v.hpf" --check >"$dir/$v.out" 2>"$dir/$v.err"
    rc=$?
    [ $rc -eq "$status" ] || fail "$v: exit $rc, expected $status: $(cat "$dir/$v.out" "$dir/$v.err")"
    grep -Eq "$want" "$dir/$v.out" || fail "$v: no line matching '$want' in: $(cat "$dir/$v.out")"
    if [ -n "$absent" ] && grep -Eq "$absent" "$dir/$v.out"; then
        fail "$v: a line matching '$absent' in: $(cat "$dir/$v.out")"
    fi
}

expect ok 0 '^check: ok: 1 ranks, 2 threads, 16 node records: .*task creations = executions' '^check: rule'
expect a 1 '^check: rule a: rank 0 thread 0 node #[0-9]+ /main/parallel@app.c:20: children 8\.000000 s \(4\) > its time 6\.000000 s' '^check: rule [b-f]'
expect b 1 '^check: rule b: rank 0 thread 0 node #[0-9]+ /main/parallel@app.c:20: waits 6\.500000 s \(2\) > its time 6\.000000 s'
expect c 1 '^check: rule c: rank 0 thread 1 node #[0-9]+ /main/parallel@app.c:20: tasks and waits 7\.000000 s \(2\) > its time 6\.000000 s' '^check: rule [bdef]'
expect d 1 '^check: rule d: rank 0: task construct at app.c:22: 4 creations, 3 executions' '^check: rule [a-ce-f]'
expect d-abort 0 '^check: ok: .*incomplete run: task counts not compared' '^check: rule'
expect e 1 '^check: rule e: rank 0: MPI share 110\.00% > 100%' '^check: rule [a-df]'
expect e-root 1 "^check: rule e: rank 0 thread 1: the thread's top-level nodes 12\.000000 s > the rank's wall 10\.000000 s" '^check: rule [a-df]'
expect e-overflow 0 '^check: ok: 1 ranks, 2 threads, 16 node records' '^check: rule'
expect f 1 '^check: rule f: rank 0 thread 0 node #[0-9]+ /main/MPI_Allreduce@app.c:40: min 0\.600000 s > max 0\.400000 s' '^check: rule [a-e]'
expect f-zero 1 '^check: rule f: rank 0 thread 0 node #[0-9]+ /main/MPI_Allreduce@app.c:40: time 1\.000000 s with 0 calls' '^check: rule [a-e]'
expect untied 0 '^check: ok: 1 ranks, 2 threads, 16 node records: .*task creations = executions' '^check: rule'
expect untied-max 0 '^check: ok: 1 ranks, 2 threads, 16 node records: .*task creations = executions' '^check: rule'
expect f-max 1 '^check: rule f: rank 0 thread 0 node #[0-9]+ /main/MPI_Allreduce@app.c:40: time 1\.500000 s > 2 calls x max 0\.500000 s' '^check: rule [a-e]'
expect nested 0 '^check: ok: 1 ranks, 2 threads, 16 node records: .*task creations = executions'
# --threads: task_time sums the outermost tasks (a nested task is inside its parent's time)
got=$("$QUERY" "$dir/nested.hpf" --threads app.c:20 --format csv 2>&1 | grep '^0,' | cut -d, -f2,14,15 | tr '\n' ';')
[ "$got" = "0,3,2;1,2,2;" ] || fail "nested: --threads thread,tasks,task_time: got '$got', expected '0,3,2;1,2,2;'"
# the last line counts the violations
expect b 1 '^check: 3 violations$'

# labels are escaped in violations: variant d with its file app.c renamed
# to a<ESC>p.c (same length, checksums fixed)
python3 -c "
import struct, sys, zlib
d = bytearray(bytes(open(sys.argv[1], 'rb').read()).replace(b'app.c', b'a\x1bp.c'))
pos = 16
while pos + 16 <= len(d):
    n = struct.unpack_from('<Q', d, pos + 8)[0]
    struct.pack_into('<I', d, pos + 4, zlib.crc32(bytes(d[pos + 16:pos + 16 + n])))
    pos += 16 + n
open(sys.argv[2], 'wb').write(d)" "$dir/d.hpf" "$dir/ctl.hpf" || exit 99
"$QUERY" "$dir/ctl.hpf" --check >"$dir/ctl.out" 2>"$dir/ctl.err"
rc=$?
[ $rc -eq 1 ] || fail "ctl: exit $rc, expected 1: $(cat "$dir/ctl.err")"
grep -qxF 'check: rule d: rank 0: task construct at a\x1bp.c:22: 4 creations, 3 executions (a complete run executes every task it creates)' \
    "$dir/ctl.out" || fail "ctl: no escaped rule d line in: $(cat "$dir/ctl.out")"
[ "$(tr -d '\n' <"$dir/ctl.out" | LC_ALL=C tr -d '[:print:]' | wc -c)" -eq 0 ] ||
    fail "ctl: raw control characters in the --check output"

# --check excludes the other reports
"$QUERY" "$dir/ok.hpf" --check --flat >/dev/null 2>"$dir/excl.err"
rc=$?
[ $rc -eq 2 ] && grep -q 'exclude each other' "$dir/excl.err" || fail "--check --flat: exit $rc: $(cat "$dir/excl.err")"

if [ $failures -eq 0 ]; then
    echo "PASS: test_check.sh"
    exit 0
fi
exit 1
