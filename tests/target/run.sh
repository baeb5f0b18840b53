#!/bin/bash
# tests/target/run.sh - a program whose only OpenMP is target regions,
# run on the host, at tier 0 with gcc (target.c states the ground truth):
# built as `gcc -fopenmp target.c -lhprof` at -O0, -O2 and with only its
# plain target regions (-DONLY_TARGET), it leaves a
# profile (libhprof stays linked: it defines GOMP_target_ext, which the
# program calls; before, a linker with --as-needed dropped it and nothing
# was written), its target regions at their pragma lines with exact
# counts, the parallel region of the combined construct below its target
# region, stdout as without hprof, and the invariants (--check).  With
# clang built for offloading to the host (-fopenmp-targets=x86_64-pc-
# linux-gnu, when the toolchain can), the same for its target regions
# (libomptarget's __tgt_target_*mapper).  (Without -fopenmp-targets clang
# calls a target region's host code directly: no runtime call, nothing
# recorded at tier 0.)
#
# usage: tests/target/run.sh [BUILDDIR]
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
QUERY=$builddir/analyzer/hprof-query
LIBDIR=$builddir/pmpi/.libs
S=$srcdir/tests/target
CC=${CC_GCC:-gcc}

. "$srcdir/tests/lib.sh"
test_tmpdir target
pass=0 fail=0 skip=0

L_sum=$(line_of "$S/target.c" t-sum)
L_team=$(line_of "$S/target.c" t-team)

for opt in -O0 -O2 -DONLY_TARGET; do
    prog=$tmp/target$opt
    "$CC" -fopenmp -g $opt "$S/target.c" -o "$tmp/plain" || notok "plain build $opt" "$CC failed"
    "$tmp/plain" >"$tmp/plain.out"
    "$CC" -fopenmp -g $opt "$S/target.c" -o "$prog" -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" ||
        notok "build $opt" "$CC failed"
    rc=0
    HPROF_SUMMARY=off OMP_NUM_THREADS=2 HPROF_OUTPUT=$tmp/t$opt.hpf "$prog" >"$tmp/t$opt.out" \
        2>"$tmp/t$opt.err" || rc=$?
    expect_eq "$opt: exit 0, stdout as without hprof, nothing on stderr" \
        "0;$(cat "$tmp/plain.out");" "$rc;$(cat "$tmp/t$opt.out");$(cat "$tmp/t$opt.err")"
    if [ ! -s "$tmp/t$opt.hpf" ]; then
        notok "$opt: a profile is written" "no $tmp/t$opt.hpf (libhprof linked: $(ldd "$prog" | grep -c hprof))"
        continue
    fi
    ok "$opt: a profile is written"
    check_profile "target$opt" "$tmp/t$opt.hpf"
    want="$L_sum,main,3,0;$L_team,main,1,0"
    [ "$opt" = -DONLY_TARGET ] && want="$L_sum,main,3,0"
    expect_eq "$opt: target regions at their pragma lines in main, 3 and 1 runs on thread 0" \
        "$want" \
        "$(q "$tmp/t$opt.hpf" "SELECT s.line, s.func, sum(st.count), st.thread FROM stat st
            JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
            WHERE s.kind = 'omp' AND s.name = 'target' GROUP BY s.id ORDER BY s.line" | oneline)"
    [ "$opt" = -DONLY_TARGET ] && continue
    expect_eq "$opt: the combined construct's parallel region lies below its target region, on each of 2 threads" \
        "$L_team,2" \
        "$(q "$tmp/t$opt.hpf" "SELECT s.line, count(DISTINCT st.thread) FROM stat st
            JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
            JOIN node p ON p.id = n.parent JOIN site ps ON ps.id = p.site
            WHERE s.name = 'parallel' AND ps.name = 'target' AND ps.line = $L_team
            GROUP BY s.id" | oneline)"
done

# clang, offloading to the host
CLANG=${CC_CLANG:-clang}
offload=-fopenmp-targets=x86_64-pc-linux-gnu
if ! "$CLANG" -fopenmp $offload -g "$S/target.c" -o "$tmp/clang-plain" 2>/dev/null ||
    ! "$tmp/clang-plain" >"$tmp/clang-plain.out" 2>/dev/null; then
    skipped "clang $offload" "$CLANG cannot build or run it here"
else
    "$CLANG" -fopenmp $offload -g "$S/target.c" -o "$tmp/clang" -L"$LIBDIR" -lhprof \
        -Wl,-rpath,"$LIBDIR" || notok "clang build" "$CLANG failed"
    rc=0
    HPROF_SUMMARY=off OMP_NUM_THREADS=2 HPROF_OUTPUT=$tmp/clang.hpf "$tmp/clang" >"$tmp/clang.out" \
        2>"$tmp/clang.err" || rc=$?
    expect_eq "clang: exit 0, stdout as without hprof, nothing on stderr" \
        "0;$(cat "$tmp/clang-plain.out");" "$rc;$(cat "$tmp/clang.out");$(cat "$tmp/clang.err")"
    check_profile clang "$tmp/clang.hpf"
    expect_eq "clang: target regions at their pragma lines in main, 3 and 1 runs on thread 0" \
        "$L_sum,main,3,0;$L_team,main,1,0" \
        "$(q "$tmp/clang.hpf" "SELECT s.line, s.func, sum(st.count), st.thread FROM stat st
            JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
            WHERE s.kind = 'omp' AND s.name = 'target' GROUP BY s.id ORDER BY s.line" | oneline)"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
