#!/bin/bash
# tests/inline/run.sh - tier 1 (-finstrument-functions) with inlining:
# gcc calls the hooks of an inlined function with the return address of
# the function it was inlined into; each inlined call must count once, at
# its own line (tests/inline/inlined.c states the ground truth):
#   - call statements of inlined.c per (line, callee): exact counts;
#   - the inlined calls are in compute, under compute's procedure node,
#     flagged as inlined (site flag 256); scale's procedure count exact;
#   - stdout identical with and without hprof;
#   - hprof-query --check on every profile (tests/lib.sh check_profile).
# With gcc (CC) and, when installed, clang.  Skipped for a compiler that
# did not inline scale (objdump shows a call to it).
#
# usage: tests/inline/run.sh [BUILDDIR]   (default: the current directory)
#        HPROF_KEEP_TMP=1 keeps the temp dir.
# Prints "ok - NAME" / "not ok - NAME: why" per check and a last line
# "N passed, M failed"; exits 1 if anything failed.
set -uo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
CC=${CC:-gcc}
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
SRC=$srcdir/tests/inline/inlined.c
. "$srcdir/tests/lib.sh"
test_tmpdir inline
export HPROF_SUMMARY=off
unset HPROF_FILTER

for f in "$QUERY" "$LIBDIR/libhprof.so" "$SRC"; do
    if [ ! -e "$f" ]; then
        notok "prerequisites" "missing $f (build with 'make' first)"
        echo "$pass passed, $fail failed"
        exit 1
    fi
done

N=$(awk '$1 == "#define" && $2 == "N" { print $3 }' "$SRC")
La=$(line_of "$SRC" inl-a) Lb=$(line_of "$SRC" inl-b) Lc=$(line_of "$SRC" call-compute)

"$CC" -O2 -g "$SRC" -o "$tmp/plain" && "$tmp/plain" >"$tmp/plain.out" ||
    notok "plain build and run" "$CC failed"

# inline_checks COMPILER - one -O2 tier-1 build and run, and the checks.
inline_checks() {
    local cc=$1 bin=$tmp/t1-$1 db=$tmp/t1-$1.hpf body
    if ! "$cc" -O2 -g -finstrument-functions "$SRC" -o "$bin" \
        -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" 2>"$tmp/build.err"; then
        notok "$cc: tier 1 build" "$(head -3 "$tmp/build.err" | oneline)"
        return
    fi
    # scale inlined: compute's code calls the entry hook 3 times (its own
    # and two inlined calls of scale) and never scale itself.
    body=$(objdump -d --no-show-raw-insn "$bin" | awk '/<compute>:$/ { f = 1; next } f && /^$/ { exit } f')
    if [ "$(grep -c 'call.*<scale' <<<"$body")" != 0 ] ||
        [ "$(grep -c 'call.*<__cyg_profile_func_enter' <<<"$body")" -lt 3 ]; then
        skipped "$cc: tier 1 inlining" "$cc did not inline scale into compute"
        return
    fi
    ok "$cc: scale is inlined into compute at two lines (objdump)"
    HPROF_OUTPUT=$db "$bin" >"$tmp/t1.out" 2>"$tmp/t1.err"
    if [ ! -s "$db" ]; then
        notok "$cc: tier 1 run writes a profile" "$(tail -3 "$tmp/t1.err" | oneline)"
        return
    fi
    if cmp -s "$tmp/plain.out" "$tmp/t1.out"; then ok "$cc: same stdout as without hprof"; else
        notok "$cc: same stdout as without hprof" "'$(oneline <"$tmp/t1.out")'"; fi
    check_profile "$cc" "$db"
    expect_eq "$cc: call statements of inlined.c (line, callee, calls)" \
        "$(printf '%s\n' "$La,scale,$((2 * N))" "$Lb,scale,$((2 * N / 4))" "$Lc,compute,2" | sort -n)" \
        "$(q "$db" "SELECT s.line, s.name, sum(st.count) FROM stat st JOIN node n ON n.id = st.node
                     JOIN site s ON s.id = n.site WHERE s.kind = 'call' AND s.file LIKE '%/inlined.c'
                     GROUP BY s.line, s.name ORDER BY s.line")"
    expect_eq "$cc: the inlined calls: in compute, under compute's procedure node, flagged inlined" \
        "$La,compute,compute,256;$Lb,compute,compute,256" \
        "$(q "$db" "SELECT DISTINCT s.line, s.func, ps.name, s.flags & 256 FROM node n JOIN site s ON s.id = n.site
                     JOIN node pn ON pn.id = n.parent JOIN site ps ON ps.id = pn.site
                     WHERE s.kind = 'call' AND s.name = 'scale' ORDER BY s.line" | oneline)"
    expect_eq "$cc: scale's procedure count" $((2 * N + 2 * N / 4)) \
        "$(q "$db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                     WHERE s.kind = 'procedure' AND s.name = 'scale'")"
}

# omp_checks - gcc -fopenmp: bump() inlined into a parallel region's
# outlined function, which gcc does not instrument (omp_inlined.c).
omp_checks() {
    local src=$srcdir/tests/inline/omp_inlined.c bin=$tmp/omp-t1 db=$tmp/omp-t1.hpf
    local M L
    M=$(awk '$1 == "#define" && $2 == "M" { print $3 }' "$src")
    L=$(line_of "$src" omp-inl)
    gcc -O2 -g -fopenmp "$src" -o "$tmp/omp-plain" && "$tmp/omp-plain" >"$tmp/omp-plain.out" ||
        notok "omp: plain build and run" "gcc failed"
    if ! gcc -O2 -g -fopenmp -finstrument-functions "$src" -o "$bin" \
        -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" 2>"$tmp/build.err"; then
        notok "omp: tier 1 build" "$(head -3 "$tmp/build.err" | oneline)"
        return
    fi
    if objdump -d --no-show-raw-insn "$bin" | grep 'call.*<bump' >/dev/null; then
        skipped "omp: tier 1 inlining in an outlined function" "gcc did not inline bump"
        return
    fi
    HPROF_OUTPUT=$db "$bin" >"$tmp/omp-t1.out" 2>"$tmp/omp-t1.err"
    if [ ! -s "$db" ]; then
        notok "omp: tier 1 run writes a profile" "$(tail -3 "$tmp/omp-t1.err" | oneline)"
        return
    fi
    if cmp -s "$tmp/omp-plain.out" "$tmp/omp-t1.out"; then ok "omp: same stdout as without hprof"
    else notok "omp: same stdout as without hprof" "'$(oneline <"$tmp/omp-t1.out")'"; fi
    check_profile "omp" "$db"
    expect_eq "omp: bump's inlined call in the outlined body at its own line, counted once each" \
        "$L,bump,$((2 * M)),256" \
        "$(q "$db" "SELECT s.line, s.name, sum(st.count), s.flags & 256 FROM stat st JOIN node n ON n.id = st.node
                     JOIN site s ON s.id = n.site WHERE s.kind = 'call' AND s.name = 'bump'
                     GROUP BY s.id" | oneline)"
    expect_eq "omp: bump's procedure count" $((2 * M)) \
        "$(q "$db" "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                     WHERE s.kind = 'procedure' AND s.name = 'bump'")"
    expect_eq "omp: no call site outside omp_inlined.c (but main's, in libc)" "" \
        "$(q "$db" "SELECT s.name || '@' || s.file || ':' || s.line FROM site s
                     WHERE s.kind = 'call' AND s.name <> 'main' AND s.file NOT LIKE '%/omp_inlined.c'" | oneline)"
}

inline_checks "$CC"
omp_checks
if command -v clang >/dev/null 2>&1 && [ "$CC" != clang ]; then
    inline_checks clang
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
