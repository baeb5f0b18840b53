#!/bin/bash
# tests/unload/run.sh - modules unloaded before the run ends (issue 25
# item 2).  host.c loads plug.so with dlopen, calls it, unloads it with
# dlclose, then other.so (which the loader may put at plug.so's old
# addresses), then plug.so again; plug.c and other.c state the ground
# truth.  Built at tier 2 (hprof-cc gcc, every object), tier 1 (gcc
# -finstrument-functions -lhprof) and tier 0 with uninstrumented modules
# (host linked with -lhprof, and the plain host under
# LD_PRELOAD=libhprof.so).  Checked for each: the exit status, stdout and
# stderr (HPROF_SUMMARY=off) are the plain program's; a profile is written
# and passes --check; each module's OpenMP region is at its own file and
# line, in its own function (tiers 0 and 1), with one fork per call
# (plug.c 2, other.c 1);
# tiers 1 and 2: the procedures' call counts (plug_work 2, other_work 1);
# tier 1: the calls of plug_step and other_step at their lines (2 x 1000,
# 500); tier 2: the loops at their lines, entered once per call.
#
# usage: tests/unload/run.sh [BUILDDIR]   (HPROF_KEEP_TMP=1 keeps the temp dir)
set -uo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
CC=${CC:-gcc}
LIBDIR=$builddir/pmpi/.libs
S=$srcdir/tests/unload
. "$srcdir/tests/lib.sh"
instrumenter_env
test_tmpdir unload
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive

require_built "$QUERY" "$LIBDIR/libhprof.so"
def() { awk -v n="$2" '$1 == "#define" && $2 == n { print $3; exit }' "$1"; }
PLUG_N=$(def "$S/host.c" PLUG_N) OTHER_N=$(def "$S/host.c" OTHER_N)
L_ppar=$(line_of "$S/plug.c" p-par) L_opar=$(line_of "$S/other.c" o-par)
L_ploop=$(line_of "$S/plug.c" p-loop) L_oloop=$(line_of "$S/other.c" o-loop)
L_pcall=$(line_of "$S/plug.c" p-call) L_ocall=$(line_of "$S/other.c" o-call)
LINK="-L$LIBDIR -lhprof -Wl,-rpath,$LIBDIR"

# build DIR CC-WORDS [FLAGS] - plug.so, other.so and host in $tmp/DIR
# (host -fopenmp: libgomp stays loaded while its threads live).
build() {
    local dir=$tmp/$1 cc=$2 flags=$3 m
    mkdir -p "$dir"
    for m in plug other; do
        $cc -g -O2 -fopenmp -fPIC -shared $flags "$S/$m.c" -o "$dir/$m.so" 2>>"$tmp/build.err" ||
            return 1
    done
}
build plain "$CC" "" && "$CC" -g -O2 -fopenmp "$S/host.c" -o "$tmp/plain/host" -ldl ||
    notok "plain build" "$(head -3 "$tmp/build.err" | oneline)"
"$tmp/plain/host" "$tmp/plain" >"$tmp/plain.out" 2>"$tmp/plain.err"
plain_rc=$?
have_t2=0
if [ -x "$HPCC" ] && build t2 "$HPCC $CC" "" &&
    "$HPCC" "$CC" -g -O2 -fopenmp "$S/host.c" -o "$tmp/t2/host" -ldl 2>>"$tmp/build.err"; then
    have_t2=1
elif [ -x "$HPCC" ]; then
    notok "tier 2 build" "$(head -3 "$tmp/build.err" | oneline)"
fi
build t1 "$CC" "-finstrument-functions $LINK" &&
    "$CC" -g -O2 -fopenmp -finstrument-functions "$S/host.c" -o "$tmp/t1/host" -ldl $LINK ||
    notok "tier 1 build" "$(head -3 "$tmp/build.err" | oneline)"
mkdir -p "$tmp/t0"
"$CC" -g -O2 -fopenmp "$S/host.c" -o "$tmp/t0/host" -ldl $LINK ||
    notok "tier 0 build" "$(head -3 "$tmp/build.err" | oneline)"

# rows DB KIND NAME - file (without the directory), line, function and
# summed count of the sites of kind KIND named NAME in the two modules.
rows() {
    q "$1" "SELECT replace(s.file, '$S/', ''), s.line, s.func, sum(st.count)
            FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
            WHERE s.kind = '$2' AND s.name = '$3' AND s.file IN ('$S/plug.c', '$S/other.c')
            GROUP BY 1, 2, 3 ORDER BY 1 DESC, 2"
}

# unload_checks NAME TIER PRELOAD HOST - one run of HOST with the modules
# of $tmp/NAME (tier 0: the plain ones), LD_PRELOAD=PRELOAD when not empty.
unload_checks() {
    local t=$1 tier=$2 preload=$3 host=$4 db=$tmp/$1.hpf mods=$tmp/$1 rc
    [ "$tier" = 0 ] && mods=$tmp/plain
    rm -f "$db" "$tmp/$t.db"
    HPROF_OUTPUT=$db LD_PRELOAD=$preload timeout 120 "$host" "$mods" >"$tmp/$t.out" 2>"$tmp/$t.err" </dev/null
    rc=$?
    expect_eq "$t: exit status as without hprof" "$plain_rc" "$rc"
    if cmp -s "$tmp/plain.out" "$tmp/$t.out" && cmp -s "$tmp/plain.err" "$tmp/$t.err"; then
        ok "$t: same stdout and stderr as without hprof"
    else
        notok "$t: same stdout and stderr as without hprof" \
            "'$(cat "$tmp/$t.out" "$tmp/$t.err" | head -5 | oneline)'"
    fi
    if [ ! -s "$db" ]; then
        notok "$t: writes a profile" "no $db"
        return 0
    fi
    check_profile "$t" "$db"
    # (POMP2's sites, tier 2, name no function)
    local pf=plug_work of=other_work
    [ "$tier" = 2 ] && pf= of=
    expect_eq "$t: each module's region at its line, in its function, one fork per call" \
        "plug.c,$L_ppar,$pf,2;other.c,$L_opar,$of,1" "$(rows "$db" omp fork | oneline)"
    [ "$tier" = 0 ] && return 0
    expect_eq "$t: plug_work called twice, other_work once, at their files" \
        "plug.c,plug_work,2;other.c,other_work,1" \
        "$(q "$db" "SELECT replace(s.file, '$S/', ''), s.name, sum(st.count)
                    FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
                    WHERE s.kind = 'procedure' AND s.name IN ('plug_work', 'other_work')
                    GROUP BY 1, 2 ORDER BY 1 DESC" | oneline)"
    if [ "$tier" = 1 ]; then
        expect_eq "$t: the calls of plug_step and other_step at their lines" \
            "plug.c,$L_pcall,plug_work,$((2 * PLUG_N));other.c,$L_ocall,other_work,$OTHER_N" \
            "$(rows "$db" call plug_step | oneline);$(rows "$db" call other_step | oneline)"
    else
        expect_eq "$t: each module's loop at its line, entered once per call" \
            "plug.c,$L_ploop,plug_work,2;other.c,$L_oloop,other_work,1" \
            "$(rows "$db" loop for | grep -E "^(plug.c,$L_ploop|other.c,$L_oloop)," | oneline)"
    fi
}

if [ $have_t2 = 1 ]; then
    unload_checks t2 2 "" "$tmp/t2/host"
else
    skipped "tier 2: unloaded modules" "instrumenter not built ($HPCC)"
fi
unload_checks t1 1 "" "$tmp/t1/host"
unload_checks t0 0 "" "$tmp/t0/host"
unload_checks t0-preload 0 "$LIBDIR/libhprof.so" "$tmp/plain/host"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
