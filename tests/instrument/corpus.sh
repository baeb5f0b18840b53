#!/bin/bash
# tests/instrument/corpus.sh - the instrumenter on real code: a regression
# corpus of small self-written snippets (tests/instrument/src/r_*.c), each
# compiled through hprof-cc with no fallback allowed (no hprof-cc warning),
# run (stdout identical to the plain build) and its probes counted in the
# profile against the ground truth in the snippet's header comment:
#  - statement macros used without ';' (also right before an else) and
#    macros declaring variables;
#  - a fallback's warning quotes the compiler's first error;
#  - instrumented objects linked by any driver without -lhprof;
#  - the one-word wrappers (hprof-gcc, hprof-mpicc) for `which $CC`;
#  - OpenMP constructs POMP2 cannot see (_Pragma in macros) are left to
#    the runtime's GOMP/OMPT source; an #if between pragma and statement
#    is no obstacle.
#
# usage: tests/instrument/corpus.sh [BUILDDIR]   (default: the current
# directory).  HPROF_KEEP_TMP=1 keeps the temp dir.  Prints "ok - NAME" /
# "not ok - NAME: why" and a last line "N passed, M failed".
set -uo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
S=$srcdir/tests/instrument/src
HPCC=$builddir/instrument/hprof-cc
# The snippets test where probes go, so their ground truth is every site
# probed: their tiny functions and call-free loops need ALL (the default
# policy leaves them unprobed; tests/policy checks it).
ALL="--loops=all --procedures=all"
QUERY=$builddir/analyzer/hprof-query
export HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir
export OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 HPROF_SUMMARY=off
unset HPROF_FILTER HPROF_COMM_FUNCS HPROF_KEEP HPROF_TIER

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-corpus.XXXXXX")
if [ "${HPROF_KEEP_TMP:-0}" = 1 ]; then echo "# keeping $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
cd "$tmp" || exit 1

pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1: $2"; fail=$((fail + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "expected [$2] got [$3]"; fi; }
have() { command -v "$1" >/dev/null 2>&1; }

# calls P.hpf: "callee@line=count;" of every call statement run
calls() {
    "$QUERY" "$1" --sql "SELECT s.name || '@' || s.line || '=' || SUM(st.count) FROM site s JOIN node n ON n.site = s.id JOIN stat st ON st.node = n.id WHERE s.kind = 'call' GROUP BY s.id ORDER BY s.line" --format csv 2>/dev/null | tail -n +2 | tr '\n' ';'
}

# ---- statement macros ---------------------------------------------------
for cc in gcc clang; do
    have $cc || continue
    rm -rf sm; mkdir sm
    $cc -O2 -Wall -Wextra "$S/r_stmtmac.c" -o sm/plain 2>/dev/null
    "$HPCC" $ALL $cc -O2 -Wall -Wextra "$S/r_stmtmac.c" -o sm/inst 2>sm/err
    check "statement macros ($cc): compiled instrumented, no warning" "" "$(cat sm/err)"
    check "statement macros ($cc): stdout plain and instrumented" "7 3 7 3;7 3 7 3" \
        "$(sm/plain);$(HPROF_OUTPUT=sm/p.hpf sm/inst)"
    check "statement macros ($cc): the call statements and their counts" \
        "g@15=1;g@22=1;g@29=1;first@30=1;" "$(calls sm/p.hpf)"
done
rm -rf da; mkdir da
"$HPCC" $ALL gcc -O2 -Wall -Wextra "$S/r_declarg.c" -o da/inst 2>da/err
check "declaring macro: the call in its argument keeps its probe" "|4 1|put@16=1;" \
    "$(cat da/err)|$(HPROF_OUTPUT=da/p.hpf da/inst)|$(calls da/p.hpf)"
check "statement macros: INIT left unwrapped, said so" \
    "# skipped call 28 init: macro expands to a declaration" \
    "$("$builddir/instrument/hprof-instrument" --list "$S/r_stmtmac.c" | grep '^#')"

rm -rf me; mkdir me
gcc -O2 -Wall -Wno-dangling-else "$S/r_macelse.c" -o me/plain 2>/dev/null
"$HPCC" $ALL gcc -O2 -Wall -Wno-dangling-else "$S/r_macelse.c" -o me/inst 2>me/err
check "statement macro before else: compiled instrumented, no warning, same stdout" "|7 1 7 8 3|7 1 7 8 3" \
    "$(cat me/err)|$(me/plain)|$(HPROF_OUTPUT=me/p.hpf me/inst)"
check "statement macro before else: the other call statements and their counts" \
    "g@24=1;pick@30=2;both@30=2;" "$(calls me/p.hpf)"
check "statement macro before else: its calls left unprobed, said so" \
    "# skipped call 17 g: statement macro followed by else;# skipped call 23 g: statement macro followed by else;" \
    "$("$builddir/instrument/hprof-instrument" --list "$S/r_macelse.c" | grep '^#' | tr '\n' ';')"

# ---- a fallback quotes the compiler's first error -------------------------
rm -rf fb; mkdir fb
"$HPCC" gcc -Wall "$S/r_clash.c" -o fb/clash 2>fb/err
check "fallback: one warning with the first error of the instrumented copy" \
    "1 hprof-cc: warning: $S/r_clash.c not instrumented: the instrumented source does not compile: $S/r_clash.c:8:44: error:" \
    "$(grep -c hprof-cc fb/err) $(grep hprof-cc fb/err | sed 's/\(error:\).*/\1/')"
check "fallback: the original runs" 5 "$(fb/clash)"

# ---- OpenMP constructs POMP2 cannot see ----------------------------------
# forks P.hpf: "fork@line=count;" of the OpenMP forks recorded
forks() {
    "$QUERY" "$1" --sql "SELECT s.name || '@' || s.line || '=' || SUM(st.count) FROM site s JOIN node n ON n.site = s.id JOIN stat st ON st.node = n.id WHERE s.kind = 'omp' AND s.name = 'fork' GROUP BY s.id ORDER BY s.line" --format csv 2>/dev/null | tail -n +2 | tr '\n' ';'
}
if have gcc && echo 'int main(void){return 0;}' | gcc -fopenmp -x c - -o omp-ok 2>/dev/null; then
    rm -rf om; mkdir om
    W="OpenMP construct left as is, not recorded"
    gcc -g -fopenmp "$S/r_ompif.c" -o om/plain
    "$HPCC" gcc -g -fopenmp "$S/r_ompif.c" -o om/pomp 2>om/err
    check "omp: #if after the pragma rewritten, _Pragma in a macro: one warning, compiled instrumented" \
        "hprof-instrument: $S/r_ompif.c:22: warning: $W (_Pragma from macro PAR_FOR); hprof-cc --no-omp leaves all OpenMP to the runtime" \
        "$(cat om/err)"
    check "omp: --list says so, and the loop under #if takes no probe" \
        "# skipped loop 19 for: a loop pragma binds it across #if/#else/#endif;# omp 22: _Pragma from macro PAR_FOR: left as is (not recorded);" \
        "$("$builddir/instrument/hprof-instrument" --list "$S/r_ompif.c" -fopenmp | grep -E '^# (omp|skipped loop 19)' | tr '\n' ';')"
    check "omp: stdout plain, POMP2, --no-omp" "100 1 2;100 1 2;100 1 2" \
        "$(om/plain);$(HPROF_OUTPUT=om/pomp.hpf om/pomp);$("$HPCC" --no-omp gcc -g -fopenmp "$S/r_ompif.c" -o om/gomp 2>om/err2 && HPROF_OUTPUT=om/gomp.hpf om/gomp)"
    check "omp: POMP2 build records the constructs it sees (all but the warned one)" "fork@17=1;fork@25=1;" "$(forks om/pomp.hpf)"
    check "omp: --no-omp build: no warning, GOMP records all three" "|fork@17=1;fork@22=1;fork@25=1;" \
        "$(cat om/err2)|$(forks om/gomp.hpf)"
fi

# ---- instrumented objects linked by any driver ---------------------------
rm -rf ln; mkdir ln
"$HPCC" $ALL gcc -O2 -Wall -c "$S/r_link_a.c" -o ln/a.o 2>ln/err &&
    "$HPCC" $ALL gcc -O2 -Wall -c "$S/r_link_b.c" -o ln/b.o 2>>ln/err
check "link: two C units instrumented, no warning" "" "$(cat ln/err)"
for drv in g++ mpicxx; do
    have $drv || continue
    $drv -O2 "$S/r_link_main.cc" ln/a.o ln/b.o -o ln/$drv.x 2>ln/lerr.$drv
    check "link: $drv without -lhprof links" "" "$(cat ln/lerr.$drv)"
    check "link: $drv-linked program's stdout unchanged" "55 110" "$(ln/$drv.x 2>/dev/null)"
    check "link: $drv-linked program warns once, unmeasured" \
        "1 hprof: warning: instrumented code runs without the hprof runtime (libhprof was not linked): not measured" \
        "$(ln/$drv.x 2>&1 >/dev/null | wc -l) $(ln/$drv.x 2>&1 >/dev/null | head -1)"
done
if have g++; then
    "$HPCC" $ALL g++ -O2 "$S/r_link_main.cc" ln/a.o ln/b.o -o ln/m.x 2>ln/merr
    check "link: through hprof-cc g++: measured, no warning" "55 110|" \
        "$(HPROF_OUTPUT=ln/m.hpf ln/m.x 2>ln/mrun)|$(cat ln/merr ln/mrun)"
    # the C++ main is instrumented too (hprof-cc handles C++)
    check "link: through hprof-cc g++: procedures and loop entered once" \
        "procedure scale@4=1;procedure main@8=1;procedure sum_to@10=1;loop for@14=1;" \
        "$("$QUERY" ln/m.hpf --sql "SELECT s.kind || ' ' || s.name || '@' || s.line || '=' || SUM(st.count) FROM site s JOIN node n ON n.site = s.id JOIN stat st ON st.node = n.id WHERE s.kind IN ('procedure', 'loop') GROUP BY s.id ORDER BY s.line, s.name" --format csv 2>/dev/null | tail -n +2 | tr '\n' ';')"
fi

# Non-PIE: objects compiled -fno-pie, linked -no-pie (weak references to
# absent probes then resolve to 0 at link time, not through the PLT).
if have g++; then
    "$HPCC" $ALL gcc -O2 -fno-pie -c "$S/r_link_a.c" -o ln/na.o 2>ln/nerr &&
        "$HPCC" $ALL gcc -O2 -fno-pie -c "$S/r_link_b.c" -o ln/nb.o 2>>ln/nerr &&
        g++ -no-pie -O2 "$S/r_link_main.cc" ln/na.o ln/nb.o -o ln/np.x 2>>ln/nerr
    check "link -no-pie without -lhprof: links, same stdout, one warning" \
        "|55 110|hprof: warning: instrumented code runs without the hprof runtime (libhprof was not linked): not measured" \
        "$(cat ln/nerr)|$(ln/np.x 2>/dev/null)|$(ln/np.x 2>&1 >/dev/null)"
    "$HPCC" $ALL g++ -no-pie -O2 "$S/r_link_main.cc" ln/na.o ln/nb.o -o ln/npm.x 2>ln/nmerr
    check "link -no-pie through hprof-cc g++: measured, procedures and loop entered once" \
        "55 110|procedure scale@4=1;procedure main@8=1;procedure sum_to@10=1;loop for@14=1;" \
        "$(HPROF_OUTPUT=ln/np.hpf ln/npm.x 2>&1)|$("$QUERY" ln/np.hpf --sql "SELECT s.kind || ' ' || s.name || '@' || s.line || '=' || SUM(st.count) FROM site s JOIN node n ON n.site = s.id JOIN stat st ON st.node = n.id WHERE s.kind IN ('procedure', 'loop') GROUP BY s.id ORDER BY s.line, s.name" --format csv 2>/dev/null | tail -n +2 | tr '\n' ';')"
fi

# ---- one-word compilers for builds that run `which $CC` ------------------
rm -rf ow; mkdir ow
for w in gcc mpicc; do
    have $w || continue
    got=$(PATH=$builddir/instrument:$PATH; CC=hprof-$w; which $CC)
    check "one word: which hprof-$w" "$builddir/instrument/hprof-$w" "$got"
    (PATH=$builddir/instrument:$PATH; CC=hprof-$w
     $CC $ALL -O2 -Wall -c "$S/r_stmtmac.c" -o ow/$w.o && $CC ow/$w.o -o ow/$w) 2>ow/err.$w
    check "one word: hprof-$w compiles and links instrumented, no warning" "" "$(cat ow/err.$w)"
    check "one word: hprof-$w program's stdout and call statements" "7 3 7 3 g@15=1;g@22=1;g@29=1;first@30=1;" \
        "$(HPROF_OUTPUT=ow/$w.hpf ow/$w) $(calls ow/$w.hpf)"
done

echo "$pass passed, $fail failed"
[ $fail = 0 ]
