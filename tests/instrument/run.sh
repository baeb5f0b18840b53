#!/bin/bash
# tests/instrument/run.sh - tests of hprof-instrument and hprof-cc:
#  - site tables (--list) of small known sources, filters, skip reasons;
#  - messy C (tests/instrument/src/m_*.c and a generated file of several
#    thousand lines) compiled plain and through hprof-cc with gcc and clang
#    at -O2 -Wall -Wextra: same stdout, same warnings at the same lines;
#  - diagnostics and debug line info of instrumented code point at the
#    original lines; files that cannot be parsed are compiled as is after
#    one warning; dependency files, object names, --keep;
#  - CC="hprof-cc mpicc" in a tiny autoconf project;
#  - user regions and control pragmas (m_regions.c): region nodes, counts
#    and times, nothing recorded between off/on, no probes between
#    noinstrument/instrument, the C API of hprof.h;
#  - an instrumented MPI+OpenMP program under mpirun: its static sites and
#    the procedure -> loop -> comm nesting in hprof-query; local MPI calls
#    (MPI_Dims_create, MPI_Comm_rank) are call statements (m_local.c).
#
# usage: tests/instrument/run.sh [BUILDDIR]   (default: the current
# directory, as `make check` runs it).  HPROF_KEEP_TMP=1 keeps the temp dir.
# Prints "ok - NAME" / "not ok - NAME: why" and a last line
# "N passed, M failed"; exits 1 if anything failed.
set -uo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
# One timing-sensitive MPI test at a time, even under make -j2 check.
. "$(dirname "${BASH_SOURCE[0]}")/../serial.sh"
S=$srcdir/tests/instrument/src
INST=$builddir/instrument/hprof-instrument
HPCC=$builddir/instrument/hprof-cc
QUERY=$builddir/analyzer/hprof-query
export HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2
export HPROF_SUMMARY=off
unset HPROF_FILTER HPROF_COMM_FUNCS HPROF_KEEP HPROF_TIER

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-inst.XXXXXX")
if [ "${HPROF_KEEP_TMP:-0}" = 1 ]; then echo "# keeping $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
export HPROF_OUTPUT=$tmp/out.hpf
cd "$tmp" || exit 1

# check_profile (the invariants of every profile made here) from tests/lib.sh
. "$srcdir/tests/lib.sh"
# Known violations of the profile invariants (check_profile): delete this
# line once issue 9 fixes them.
pass=0
fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1: $2"; fail=$((fail + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "expected [$2] got [$3]"; fi; }
have() { command -v "$1" >/dev/null 2>&1; }
MPIFLAGS=$(mpicc --showme:compile 2>/dev/null)

# ---- site tables ------------------------------------------------------
got=$("$INST" --list --comm-func exchange -- "$S/list_nest.c" $MPIFLAGS 2>&1)
check "list: nested loops, calls, comm, named wrapper" "$(cat "$S/list_nest.expected")" "$got"

# Probes inside a loop of their procedure are inlined, the others (the
# procedure's own, its top-level loops and statements) called: by site
# index of the list above, 8-11 and 13 are inside loops.
"$INST" --comm-func exchange -o ln.inst.c -- "$S/list_nest.c" $MPIFLAGS 2>/dev/null
check "probes: inlined inside loops, called outside" \
    "once 0;once 1;once 2;once 3;once 4;once 5;once 6;once 7;in 8;in 9;in 10;in 11;once 12;in 13;once 14" \
    "$(grep -o 'hprof_probe_enter_[a-z]*(&__hprof_[a-z]*[0-9]*, __hprof_u(), __hprof_i(), [0-9]*)' ln.inst.c |
        sed 's/hprof_probe_enter_\([a-z]*\)(.*, \([0-9]*\))/\1 \2/' | tr '\n' ';' | sed 's/;$//')"

got=$(HPROF_COMM_FUNCS=exchange "$INST" --list "$S/list_nest.c" $MPIFLAGS 2>&1 | grep -c '^comm .* exchange ')
check "list: HPROF_COMM_FUNCS names a wrapper" 1 "$got"

printf 'exclude function help?r\n' >filter.txt
got=$("$INST" --list --filter filter.txt "$S/list_nest.c" $MPIFLAGS 2>&1 | awk '{ print $1, $2, $4, $5 }' | tr '\n' ';')
# the calls of the excluded procedure stay in the table, without a probe
check "list: --filter drops a procedure and its loops" \
    "procedure 8 exchange -1;comm 10 MPI_Sendrecv_replace 0;procedure 24 main -1;call 28 MPI_Comm_rank 2;call 29 MPI_Comm_size 2;loop 30 for 2;loop 31 for 5;unprobed call 32 helper;comm 33 MPI_Allreduce 6;call 35 exchange 5;loop 37 do 2;unprobed call 39 helper;comm 40 MPI_Barrier 2;policy: loops=default tiny=loops<=32 ;" \
    "$got"
got=$(HPROF_FILTER=filter.txt "$INST" --list "$S/list_nest.c" $MPIFLAGS 2>&1 | grep -c '^procedure')
check "list: HPROF_FILTER at instrumentation" 2 "$got"

got=$("$INST" --list "$S/m_goto.c" | grep '^#' | tr '\n' ';')
check "list: goto into a loop and Duff's device are skipped" \
    "# skipped loop 37 while: a goto from outside jumps into the loop;# skipped loop 49 do: a case label of an outer switch is inside the loop;" "$got"
got=$("$INST" --list "$S/m_omp.c" -fopenmp | grep -c 'collapse')
check "list: loops bound by collapse(2) get no probe" 2 "$got"
# (w is tiny: its calls are found, probed only with --procedures=all)
got=$("$INST" --list --procedures=all "$S/m_omp.c" -fopenmp | grep -c '^call .* w ')
check "list: calls inside parallel regions are found, not under omp atomic" 5 "$got"
got=$("$INST" --list "$S/m_macros.c" | grep -c '^# skipped procedure.*made by a macro')
check "list: functions made by a macro are reported, not wrapped" 2 "$got"

# A pragma the preprocessor skips (#if 0, zlib's "#pragma warn" under
# __BORLANDC__) is not parsed: nothing of it may be read or freed (the
# instrumenter freed stack garbage, aborting on zlib's crc32.c and example.c).
printf '#if 0\n#pragma omp parallel\n#endif\n#ifdef NOT_DEFINED\n#pragma warn -8004\n#endif\nint main(void) { return 0; }\n' >skipped_pragma.c
if ldd "$INST" 2>/dev/null | grep -c libasan >/dev/null; then
    # An AddressSanitizer build (tests/sanitize.sh) cannot run under
    # valgrind; the sanitizer itself reports a bad read or free.
    "$INST" -o skipped_pragma.inst.c -- skipped_pragma.c >vg.out 2>&1; rc=$?
    check "instrument: pragmas in skipped regions read no invalid memory (ASan)" "0 0" \
        "$rc $(grep -c 'ERROR: AddressSanitizer\|runtime error' vg.out)"
elif have valgrind; then
    valgrind -q --error-exitcode=9 "$INST" -o skipped_pragma.inst.c -- skipped_pragma.c >vg.out 2>&1; rc=$?
    check "instrument: pragmas in skipped regions read no uninitialised memory (valgrind)" "0 0" \
        "$rc $(grep -c 'uninitialised\|Invalid' vg.out)"
else
    notok "instrument: pragmas in skipped regions" "valgrind not found"
fi

# ---- bad input ----------------------------------------------------------
rm -f m_syntax.inst.c
cp "$S/m_syntax.c" .
out=$("$INST" m_syntax.c 2>&1); rc=$?
check "instrument: syntax error exits 1 with one line" "1 1 hprof-instrument: m_syntax.c:" \
    "$rc $(echo "$out" | wc -l) $(echo "$out" | cut -d' ' -f1-2)"
check "instrument: nothing written on error" no "$([ -e m_syntax.inst.c ] && echo yes || echo no)"
out=$("$INST" nonexistent.c 2>&1); rc=$?
check "instrument: missing file" "1 hprof-instrument: nonexistent.c: No such file or directory" "$rc $out"

# ---- the generated file: thousands of lines, a function of hundreds -----
gen() {
    echo '#include <stdio.h>'
    echo 'static unsigned mix(unsigned x) { return x * 2654435761u + 1; }'
    for f in $(seq 1 400); do
        echo "static unsigned f$f(unsigned x)"
        echo "{"
        echo "    unsigned i, s = x;"
        echo "    for (i = 0; i < $((f % 5 + 1)); i++) {"
        echo "        s = mix(s + i);"
        echo "        if (s % 7 == 3)"
        echo "            continue;"
        echo "        s ^= i;"
        echo "    }"
        echo "    return s;"
        echo "}"
    done
    echo "static unsigned long long long_function(unsigned x)"
    echo "{"
    echo "    unsigned long long t = 0;"
    echo "    unsigned k;"
    for f in $(seq 1 400); do
        echo "    t += f$f(x + $f);"
        [ $((f % 50)) = 0 ] && echo "    for (k = 0; k < 3; k++) t ^= mix((unsigned)t + k);"
    done
    echo "    return t;"
    echo "}"
    echo 'int main(void) { printf("%llu\n", long_function(7)); return 0; }'
}
gen >m_big.c
check "generated file has thousands of lines" yes "$([ "$(wc -l <m_big.c)" -gt 4000 ] && echo yes)"
got=$("$INST" --list --loops=all --procedures=all m_big.c | awk '{ n[$1]++ } END { print n["procedure"], n["loop"], n["call"] }')
check "list: generated file sites" "403 408 809" "$got"

# ---- messy programs: plain vs instrumented, gcc and clang -------------
# warn_lines FILE: the compiler's "file:line: warning: message" lines, sorted
warn_lines() { grep -E ': warning: ' "$1" | grep -v '^hprof-instrument: ' | sed -E 's/^([^:]*):([0-9]+):[0-9]+: /\1:\2: /' | sort; }
compare() {   # compare NAME CC FLAGS... -- SOURCE
    local name=$1 cc=$2; shift 2
    local flags=() src
    while [ "$1" != -- ]; do flags+=("$1"); shift; done
    src=$2
    local b=${src##*/}; b=${b%.c}
    rm -rf p i; mkdir -p p i
    if ! $cc "${flags[@]}" "$src" -o "p/$b" 2>p/err; then notok "$name" "plain build failed: $(head -3 p/err)"; return; fi
    if ! (cd i && "$HPCC" --keep $cc "${flags[@]}" "$src" -o "$b") 2>i/err; then
        notok "$name" "instrumented build failed: $(head -3 i/err)"; return
    fi
    if grep -q 'hprof-cc: warning' i/err; then notok "$name" "$(grep 'hprof-cc' i/err)"; return; fi
    if ! grep -q hprof_probe_enter "i/$b.inst.c"; then notok "$name" "no probes in $b.inst.c"; return; fi
    if [ "$(warn_lines p/err)" != "$(warn_lines i/err)" ]; then
        notok "$name" "warnings differ: plain [$(warn_lines p/err | tr '\n' ' ')] instrumented [$(warn_lines i/err | tr '\n' ' ')]"
        return
    fi
    local a c
    a=$("p/$b" 2>&1); c=$(HPROF_OUTPUT="$tmp/i/$b.hpf" "i/$b" 2>&1)
    if [ "$a" != "$c" ]; then notok "$name" "output differs: [$a] vs [$c]"; return; fi
    # Without MPI the profile is written when the program exits.
    if [ -s "i/$b.hpf" ]; then ok "$name"; else notok "$name" "no profile written at exit"; fi
    check_profile "$name" "i/$b.hpf"
}
for cc in gcc clang; do
    have $cc || continue
    W="-O2 -Wall -Wextra"
    compare "messy goto/return/break/continue ($cc)" $cc $W -- "$S/m_goto.c"
    compare "messy macros: loops, whole functions ($cc)" $cc $W -- "$S/m_macros.c"
    compare "messy K&R, variadic, comma, calls in return/initializers ($cc)" $cc $W -- "$S/m_knr.c"
    compare "messy static inline in header, #include of a .c ($cc)" $cc $W -- "$S/m_inline.c"
    compare "messy switch, loops in loop conditions ($cc)" $cc $W -- "$S/m_switch.c"
    compare "messy OpenMP default(none), reduction, collapse, _Pragma ($cc)" $cc $W -fopenmp -- "$S/m_omp.c"
    compare "messy OpenMP, compiled without -fopenmp ($cc)" $cc $W -Wno-unknown-pragmas -- "$S/m_omp.c"
    compare "messy -std=c89 -pedantic ($cc)" $cc -std=gnu89 -pedantic $W -- "$S/m_goto.c"
    compare "generated file of several thousand lines ($cc)" $cc $W -- "$tmp/m_big.c"
    compare "diagnostics at original lines ($cc)" $cc $W -fopenmp -- "$S/m_lines.c"
done

# ---- files libclang cannot take ---------------------------------------
rm -rf g; mkdir g
(cd g && "$HPCC" gcc -O2 "$S/m_gnu.c" -o m_gnu) 2>g/err; rc=$?
check "gcc-only code: compiled as is after one warning" \
    "0 1 hprof-cc: warning: $S/m_gnu.c not instrumented: " \
    "$rc $(grep -c 'hprof-cc' g/err) $(grep 'hprof-cc' g/err | sed 's/\(not instrumented: \).*/\1/')"
check "gcc-only code: runs" 7 "$(g/m_gnu 2>&1)"
(cd g && "$HPCC" gcc -c "$S/m_syntax.c") 2>g/err2; rc=$?
check "syntax error: one warning, then the compiler's own error" "1 1 yes" \
    "$([ $rc != 0 ] && echo 1) $(grep -c 'hprof-cc: warning' g/err2) $(grep -q 'error:' g/err2 && echo yes)"

# ---- object names, dependency files, --keep, debug lines ----------------
rm -rf d; mkdir -p d/sub d/obj
cp "$S/m_lines.c" d/sub/
(cd d && "$HPCC" gcc -O0 -g -fopenmp -c sub/m_lines.c -MD -MF obj/m_lines.d -MT m_lines.o 2>/dev/null)
check "hprof-cc -c dir/x.c writes x.o in the cwd" yes "$([ -f d/m_lines.o ] && echo yes)"
check "dependency file names the original source" "1 0" \
    "$(grep -c 'sub/m_lines.c' d/obj/m_lines.d) $(grep -c 'hprof-cc\.' d/obj/m_lines.d)"
(cd d && HPROF_KEEP=1 "$HPCC" gcc -O0 -g -fopenmp -c sub/m_lines.c -o obj/x.o 2>/dev/null)
check "HPROF_KEEP leaves the instrumented source next to the object" yes "$([ -f d/obj/m_lines.inst.c ] && echo yes)"
check "instrumented object refers to the runtime (weakly)" yes "$(nm d/obj/x.o | grep ' w hprof_enter' >/dev/null && echo yes)"
if have addr2line && have readelf; then
    (cd d && gcc -O0 -g -fopenmp sub/m_lines.c -o plain && "$HPCC" gcc -O0 -g -fopenmp sub/m_lines.c -o inst) 2>/dev/null
    lines() { for f in main g; do addr2line -e "$1" "$(nm "$1" | awk -v f=$f '$3 == f { print $1 }')"; done | sed 's/ (discriminator.*//' | tr '\n' ' '; }
    check "debug info: functions start at their original lines" "$(lines d/plain)" "$(lines d/inst)"
    got=$(readelf --debug-dump=line d/inst 2>/dev/null | grep -c 'hprof-cc\.')
    check "debug info: no temporary file names" 0 "$got"
    # every line of the instrumented line table is a line of the original file
    maxl=$(wc -l <d/sub/m_lines.c)
    got=$(objdump --dwarf=decodedline d/inst 2>/dev/null | awk -v m="$maxl" '$1 == "m_lines.c" && $2 ~ /^[0-9]+$/ && $2 > m { bad++ } END { print bad + 0 }')
    check "debug info: line numbers stay within the original file" 0 "$got"
fi

# ---- CC="hprof-cc mpicc" in an autoconf project -------------------------
if have autoconf && have mpicc; then
    rm -rf ac; mkdir ac
    cat >ac/configure.ac <<'EOT'
AC_INIT([tiny], [1.0])
AC_PROG_CC
AC_CHECK_HEADERS([mpi.h])
AC_CHECK_FUNCS([MPI_Init])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
EOT
    cat >ac/Makefile.in <<'EOT'
CC = @CC@
CFLAGS = @CFLAGS@
tiny: tiny.o
	$(CC) $(CFLAGS) tiny.o -o tiny
tiny.o: tiny.c
	$(CC) $(CFLAGS) -c tiny.c
EOT
    cat >ac/tiny.c <<'EOT'
#include <stdio.h>
static int sq(int x) { return x * x; }
int main(void) { int i, s = 0; for (i = 0; i < 4; i++) s += sq(i); printf("%d\n", s); return 0; }
EOT
    if (cd ac && autoconf >/dev/null 2>&1 && ./configure CC="$HPCC mpicc" >conf.log 2>&1 && make >make.log 2>&1); then
        check "configure CC=\"hprof-cc mpicc\" && make: program works" 14 "$(ac/tiny)"
        check "configure CC=\"hprof-cc mpicc\": object instrumented" yes "$(nm ac/tiny.o | grep hprof_enter >/dev/null && echo yes)"
        check "configure CC=\"hprof-cc mpicc\": checks pass" "yes yes" \
            "$(grep -q 'HAVE_MPI_H 1' ac/config.log && echo yes) $(grep -q 'HAVE_MPI_INIT 1' ac/config.log && echo yes)"
    else
        notok "configure CC=\"hprof-cc mpicc\"" "$(tail -5 ac/conf.log ac/make.log 2>/dev/null | tr '\n' ' ')"
    fi
fi

# ---- an instrumented MPI program under mpirun -------------------------
if have mpicc && have mpirun && [ -x "$QUERY" ]; then
    rm -rf mp; mkdir mp
    if (cd mp && "$HPCC" --comm-func xchg --comm-func total mpicc -fopenmp -O2 "$S/m_mpi.c" -o m_mpi) 2>mp/err; then
        plain=$(mpicc -fopenmp -O2 "$S/m_mpi.c" -o mp/plain && mpirun -np 2 --bind-to none mp/plain 2>/dev/null)
        got=$(HPROF_OUTPUT=$tmp/mp/p.hpf mpirun -np 2 --bind-to none mp/m_mpi 2>/dev/null)
        check_profile "mpi" mp/p.hpf
        check "mpi: instrumented output is the plain output" "$plain" "$got"
        got=$("$QUERY" mp/p.hpf --sql "SELECT kind, name, line FROM site WHERE kind IN ('procedure','loop','call','comm') AND (flags & 1) = 0 ORDER BY line, kind" --format csv 2>/dev/null | tr '\n' ';')
        check "mpi: static sites arrive in the profile" \
            "kind,name,line;procedure,xchg,9;comm,MPI_Sendrecv_replace,12;procedure,total,16;comm,MPI_Allreduce,19;procedure,relax,23;loop,for,28;procedure,main,33;call,MPI_Comm_rank,38;call,MPI_Comm_size,39;loop,for,40;loop,for,42;comm,xchg,43;call,relax,44;comm,MPI_Barrier,45;comm,total,47;" "$got"
        got=$("$QUERY" mp/p.hpf --depth 3 --format csv 2>/dev/null | awk -F, '
            $3 == "main" && $2 == 1 { m = 1; next }
            m && $2 == 2 { l = ($3 == "for@m_mpi.c:42"); next }
            m && l && $2 == 3 && $3 == "MPI_Barrier@m_mpi.c:45" { print "yes"; exit }')
        check "mpi: --depth 3 shows procedure -> loop -> comm" yes "$got"
        got=$("$QUERY" mp/p.hpf --depth 3 --format csv 2>/dev/null | awk -F, '$2 == 3 && $3 == "xchg@m_mpi.c:43" { print "yes"; exit }')
        check "mpi: the named wrapper is a comm site in the loop" yes "$got"
    else
        notok "mpi: instrumented build" "$(head -3 mp/err)"
    fi
    # Local MPI calls (the spec's KIND local) are call statements, not
    # communication statements: the call-statement node is the one the
    # wrapper records into (no second, dynamic site).
    got=$("$INST" --list "$S/m_local.c" $MPIFLAGS 2>&1 | awk '$4 ~ /^MPI_/ { print $1, $2, $4 }' | tr '\n' ';')
    check "local: --list makes MPI_Comm_rank/size and MPI_Dims_create calls, MPI_Allreduce comm" \
        "call 12 MPI_Comm_rank;call 13 MPI_Comm_size;call 16 MPI_Dims_create;comm 19 MPI_Allreduce;" "$got"
    rm -rf ml; mkdir ml
    if (cd ml && "$HPCC" mpicc -O2 "$S/m_local.c" -o m_local) 2>ml/err; then
        plain=$(mpicc -O2 "$S/m_local.c" -o ml/plain && mpirun -np 2 --bind-to none ml/plain 2>/dev/null)
        got=$(HPROF_OUTPUT=$tmp/ml/p.hpf mpirun -np 2 --bind-to none ml/m_local 2>/dev/null)
        check_profile "local" ml/p.hpf
        check "local: instrumented output is the plain output" "$plain" "$got"
        got=$("$QUERY" ml/p.hpf --sql "SELECT s.kind, s.line, s.flags & 128, sum(st.count) FROM site s JOIN node n ON n.site = s.id JOIN stat st ON st.node = n.id WHERE s.name = 'MPI_Dims_create' GROUP BY s.id" --format csv 2>/dev/null | tail -n +2 | tr '\n' ';')
        check "local: MPI_Dims_create is one call site (flag 128), 4 calls x 2 ranks" "call,16,128,8;" "$got"
        got=$("$QUERY" ml/p.hpf --sql "SELECT (SELECT group_concat(callee || ':' || call_line) FROM LC) || ' / ' || (SELECT count(*) FROM PCOM WHERE comm = 'MPI_Dims_create') || ' / ' || (SELECT count(*) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site WHERE s.kind = 'call') AS r" --format csv 2>/dev/null | tail -n +2)
        check "local: MPI_Dims_create in LC, not in PCOM, no communication record at a call" "MPI_Dims_create:16 / 0 / 0" "$got"
    else
        notok "local: instrumented build" "$(head -3 ml/err)"
    fi
fi

# ---- OpenMP constructs rewritten into POMP2 calls (--omp) -------------
# --list shows the POMP2 regions; the instrumented programs compile without
# a warning and print what the plain ones print; --no-omp keeps the pragmas
# but splits a parallel for into parallel + for nowait (its loop probe
# opens inside the team: tests/instrument/pfor.sh).
O=$srcdir/tests/omp/src
got=$("$INST" --list "$O/imbalance.c" -fopenmp $MPIFLAGS 2>&1 | grep '^omp' | awk '{ print $1, $2, $4, $5 }' | tr '\n' ';')
L_imb=$(grep -n 'MARK:imb-region' "$O/imbalance.c" | cut -d: -f1)
check "omp: --list shows the parallel for of imbalance.c at its pragma" "omp $L_imb parallelfor 0;" "$got"
got=$("$INST" --list "$O/critical.c" -fopenmp $MPIFLAGS 2>&1 | grep '^omp' | awk '{ print $4 }' | tr '\n' ' ')
check "omp: --list shows the regions of critical.c" "parallel barrier critical barrier single " "$got"
got=$("$INST" --list "$S/m_pomp.c" -fopenmp 2>&1 | grep '^omp' | awk '{ print $4 }' | tr '\n' ' ')
check "omp: --list shows single/sections/master/task regions" \
    "task task taskwait parallel single master barrier sections critical atomic flush for ordered single task parallelfor parallelsections " "$got"
got=$("$INST" --list --no-omp "$S/m_pomp.c" -fopenmp 2>&1 | grep -c '^omp')
check "omp: --no-omp lists no POMP2 region" 0 "$got"
"$INST" --no-omp -o nopomp.c "$S/m_pomp.c" -fopenmp
check "omp: --no-omp leaves the pragmas alone but for the split of the parallel for" \
    "0 $(($(grep -c '#pragma omp' "$S/m_pomp.c") + 1)) 1" \
    "$(grep -c POMP2_ nopomp.c) $(grep -c '#pragma omp' nopomp.c) $(grep -c '^#pragma omp for .* nowait$' nopomp.c)"
omp_compare() {   # omp_compare NAME CC SOURCE [MPI]
    local name=$1 cc=$2 src=$3 run=() b
    b=${src##*/}; b=${b%.c}
    rm -rf po; mkdir po
    [ -n "${4:-}" ] && run=(mpirun -np 1 --bind-to none)
    if ! $cc -fopenmp -O2 -Wall -Wextra "$src" -o "po/$b" 2>po/err; then notok "$name" "plain build failed: $(head -3 po/err)"; return; fi
    if ! (cd po && "$HPCC" --keep $cc -fopenmp -O2 -Wall -Wextra "$src" -o "$b.i") 2>po/ierr; then
        notok "$name" "instrumented build failed: $(head -3 po/ierr)"; return
    fi
    if [ -s po/ierr ]; then notok "$name" "warnings: $(head -3 po/ierr | tr '\n' ' ')"; return; fi
    if ! grep -q POMP2_ po/$b.i.inst.c 2>/dev/null && ! grep -q POMP2_ po/$b.inst.c 2>/dev/null; then
        notok "$name" "no POMP2 calls in the instrumented source"; return
    fi
    local a c
    a=$("${run[@]}" "po/$b" 2>&1); c=$(HPROF_OUTPUT="$tmp/po/$b.hpf" "${run[@]}" "po/$b.i" 2>&1)
    if [ "$a" = "$c" ]; then ok "$name"; else notok "$name" "output differs: [$a] vs [$c]"; fi
    check_profile "$name" "po/$b.hpf"
}
for cc in gcc clang; do
    have $cc || continue
    omp_compare "omp: single/sections/master/task/ordered/locks instrumented = plain ($cc)" $cc "$S/m_pomp.c"
done
if have mpicc && have mpirun; then
    for f in imbalance critical; do
        omp_compare "omp: $f.c instrumented = plain (mpicc)" mpicc "$O/$f.c" mpi
    done
fi

# ---- user regions and instrumentation control --------------------------
# m_regions.c: "#pragma hprof region begin/end", "off/on", the seed's
# "#pragma omp inst ..." aliases, "noinstrument/instrument" and the C API
# of hprof.h; no MPI, so the profile is written at exit.
if have gcc && [ -x "$QUERY" ]; then
    rm -rf rg; mkdir rg
    RF=(-O1 -g -fopenmp -I"$srcdir/libhprof")
    gcc "${RF[@]}" "$S/m_regions.c" -o rg/plain 2>/dev/null
    if (cd rg && "$HPCC" --keep gcc "${RF[@]}" "$S/m_regions.c" -o inst) 2>rg/err; then
        check "regions: unknown #pragma hprof warned once, at its line" 1 \
            "$(grep -c 'm_regions.c:104: warning: unknown #pragma hprof' rg/err)"
        check "regions: no probe and no POMP2 call between noinstrument and instrument" "0 2" \
            "$(sed -n '/NOINST-START/,/NOINST-END/p' rg/m_regions.inst.c | grep -c 'hprof_probe_enter\|POMP2_') $(grep -c NOINST-START rg/m_regions.inst.c)"
        check "regions: OpenMP rewritten and probes kept outside noinstrument" "yes yes" \
            "$(grep -q POMP2_Parallel_fork rg/m_regions.inst.c && echo yes) $(grep -q 'hprof_probe_enter_[a-z]*(.*spin(4)' rg/m_regions.inst.c && echo yes)"
        check "regions: pragmas replaced by calls on their own lines" \
            "72:hprof_region_begin(\"outer\"); 80:; 81:hprof_region_begin(\"seed\"); 85:hprof_collect(0); 93:hprof_collect(1);" \
            "$(awk '/^#line 1 /{f=1;n=0;next} f{n++; if (n==72||n==80||n==81||n==85||n==93) printf "%d:%s ", n, $0}' rg/m_regions.inst.c | sed 's/ $//')"
        check "regions: --list skips the sites between noinstrument and instrument" 5 \
            "$("$INST" --list "$S/m_regions.c" "${RF[@]}" 2>/dev/null | grep -c '^# skipped.*noinstrument')"
        a=$(rg/plain 2>&1); c=$(HPROF_OUTPUT=$tmp/rg/p.hpf rg/inst 2>rg/run.err)
        check_profile "regions" rg/p.hpf
        check "regions: calls of the hprof API are not call statements (a region would hang under its begin call)" 0 \
            "$("$QUERY" rg/p.hpf --sql "SELECT COUNT(*) FROM site WHERE kind = 'call' AND name LIKE 'hprof%'" --format csv 2>/dev/null | tail -1)"
        check "regions: same stdout as plain" "$a" "$c"
        check "regions: one warning for the mismatched end" 1 "$(grep -c 'does not close the innermost' rg/run.err)"
        # raw times: the regions spin until deadlines (the probes' cost is
        # inside the spins, not added to them)
        got=$("$QUERY" rg/p.hpf --sql "SELECT s.name || ':' || SUM(st.count) || ':' || (SUM(st.raw_time) >= CASE s.name WHEN 'outer' THEN 0.015 WHEN 'inner' THEN 0.015 WHEN 'seed' THEN 0.004 WHEN 'api' THEN 0.010 WHEN 'api inner' THEN 0.004 END) FROM site s JOIN node n ON n.site = s.id JOIN stat st ON st.node = n.id WHERE s.kind = 'region' GROUP BY s.id ORDER BY s.name" --format csv 2>/dev/null | tail -n +2 | tr '\n' ';')
        check "regions: nodes, exact counts, times >= their spins" "api:2:1;api inner:2:1;inner:3:1;outer:1:1;seed:1:1;" "$got"
        got=$("$QUERY" rg/p.hpf --sql "SELECT s.name || '@' || s.file || ':' || s.line FROM site s WHERE s.kind = 'region' ORDER BY s.name" --format csv 2>/dev/null | tail -n +2 | sed 's|@.*/|@|' | tr '\n' ';')
        check "regions: sites at the pragma / call lines" "api@m_regions.c:58;api inner@m_regions.c:60;inner@m_regions.c:74;outer@m_regions.c:72;seed@m_regions.c:81;" "$got"
        got=$("$QUERY" rg/p.hpf --sql "SELECT COUNT(*) FROM node n JOIN site s ON s.id = n.site WHERE s.name IN ('hidden', 'hidden_work', 'quiet_work', 'bogus')" --format csv 2>/dev/null | tail -1)
        check "regions: nothing recorded between off and on" 0 "$got"
        got=$("$QUERY" rg/p.hpf --sql "SELECT s.name || ':' || SUM(st.count) FROM site s JOIN node n ON n.site = s.id JOIN stat st ON st.node = n.id WHERE s.kind = 'procedure' AND s.name = 'spin' GROUP BY s.id" --format csv 2>/dev/null | tail -1)
        check "regions: spin counted only while collecting" "spin:8" "$got"
    else
        notok "regions: instrumented build" "$(head -3 rg/err | tr '\n' ' ')"
    fi
fi

# ---- real code: hprof's own analyzer built through hprof-cc ------------
# Some 2,700 lines of real C (SQLite, libdw headers, many loops, early
# returns, goto cleanups): instrumented without a warning, and the
# instrumented hprof-query answers exactly as the plain one.
MKPROFILE=$builddir/tests/unit/mkprofile
if [ -x "$MKPROFILE" ] && [ -x "$QUERY" ] && [ -e "$builddir/libhprof/.libs/libhpcore.a" ]; then
    rm -rf self; mkdir self
    self_libs=    # hprof-query -i's line editing, when the build has it
    grep -q '^#define HAVE_LIBEDIT 1' "$builddir/config.h" && self_libs=$(pkg-config --libs libedit)
    # the runtime's counters (HPROF_COUNTERS), when the build has PAPI
    grep -q '^#define HAVE_PAPI 1' "$builddir/config.h" && self_libs="$self_libs -lpapi"
    # the runtime's call paths (HPROF_CALLPATH), when the build has libunwind
    grep -q '^#define HAVE_LIBUNWIND 1' "$builddir/config.h" && self_libs="$self_libs -lunwind"
    for f in "$srcdir"/analyzer/*/*.c; do
        case $f in */hprof-merge.c | */hprof-report.c | */html_*.c) continue ;; esac
        "$HPCC" gcc -O2 -Wall -Wextra -I"$srcdir/libhprof" -I"$srcdir/libhprof/codec" -I"$builddir" -I"$srcdir/analyzer" \
            -c "$f" -o "self/$(basename "$f" .c).o" 2>>self/err
    done
    if [ -s self/err ]; then
        notok "self: analyzer instrumented without warnings" "$(head -3 self/err | tr '\n' ' ')"
    # the probes are weak references, which take no member out of a
    # static archive: -u names the runtime's entry point
    elif gcc ${HPROF_TEST_LDFLAGS:-} -Wl,-u,hprof_register_unit -o self/hprof-query self/*.o "$builddir/libhprof/.libs/libhpcore.a" \
        "$builddir/libhprof/.libs/libhpcodec.a" -lsqlite3 -ldw -lpthread $self_libs 2>self/err; then
        ok "self: analyzer instrumented without warnings"
        # grep reads all of nm's output (-q would stop early: nm then dies of
        # SIGPIPE, which pipefail turns into a miss)
        n=$(for o in self/*.o; do nm "$o" | grep hprof_register_unit >/dev/null && echo x; done | wc -l)
        check "self: every analyzer object carries its site table" "$(ls self/*.o | wc -l)" "$n"
        "$MKPROFILE" self/p.hpf && "$QUERY" self/p.hpf >/dev/null 2>&1
        k=0
        for args in "" "--flat" "--comm app.c:42 --by-rank" "--ranks main" "--sql SELECT_*_FROM_PC" "--format json"; do
            a=${args//_/ }
            k=$((k + 1))
            export HPROF_OUTPUT=$tmp/self/q$k.hpf
            if [ "${a#--sql }" != "$a" ]; then
                want=$("$QUERY" self/p.db --sql "${a#--sql }" 2>&1); got=$(self/hprof-query self/p.db --sql "${a#--sql }" 2>&1)
            else
                want=$("$QUERY" self/p.db $a 2>&1); got=$(self/hprof-query self/p.db $a 2>&1)
            fi
            check "self: instrumented hprof-query ${a:-(listing)} = plain" "$want" "$got"
        done
        export HPROF_OUTPUT=$tmp/out.hpf
        for k in 1 2 3 4 5 6; do check_profile "self: instrumented hprof-query run $k" "self/q$k.hpf"; done
        check "self: the instrumented hprof-query wrote its own profile at exit" yes \
            "$([ -s "$tmp/self/q1.hpf" ] && "$QUERY" "$tmp/self/q1.hpf" --sql "SELECT 'yes' FROM site WHERE kind = 'procedure' AND name = 'hpq_report_tree'" --format csv 2>/dev/null | tail -1)"
    else
        notok "self: link of the instrumented analyzer" "$(head -3 self/err | tr '\n' ' ')"
    fi
fi

# the profiles of the runs without their own HPROF_OUTPUT
for f in out.hpf out.hpf.[0-9]*; do check_profile "default output $f" "$f"; done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
