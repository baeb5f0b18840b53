#!/bin/bash
# bench/record.sh - the record of hprof's overhead (`make bench`; never part
# of `make check`).  Writes BENCH_OUT/bench.md (markdown, what docs/performance.md's
# table is generated from: bench/readme.sh) and BENCH_OUT/bench.csv (one
# figure a row: section,item,variant,metric,value,unit) with:
#   - the machine, the date and the commit;
#   - whole programs: the bench kernels (bench/kernels/: force, dispatch,
#     tasks, solver, worktasks, regions; their own timer of the kernel part) and the bundled examples
#     (lizhang, jacobi: elapsed time of mpirun), each built plain, tier 0
#     (-lhprof), tier 1 (instrument/hprof-cc --tier=1 of this build tree:
#     -finstrument-functions, default policy: tiny procedures unhooked),
#     tier1raw (-finstrument-functions -lhprof by hand: every procedure
#     hooked), tier 2 (instrument/hprof-cc, default policy) and tier2filt
#     (tier 2 rebuilt with the filter `hprof-query --suggest-filter` writes
#     from one tier-2 run at the timed size: one round, as a user would),
#     the variants ALTERNATING in ROUNDS rounds; the ratio to plain of the same
#     round, median and spread (min-max); every variant's stdout, timer line
#     aside, must equal plain's (else "differs" in the table);
#   - profile size and peak memory (max RSS, /usr/bin/time) of the kernels
#     at two run lengths: 1x = a tenth of the timed size, 10x = the timed
#     size (the runs of the last round);
#   - per-event costs in ns: bench/run.sh's sections mpi, probe and omp
#     (ping-pong, wrapper, probe pair timed/throttled, tier-1 call, OpenMP
#     constructs under GOMP and OMPT), included as they print;
#   - the kernels force and solver in instructions (callgrind, 1 rank, 1
#     thread: the difference between two step counts), plain, tier2 and
#     tier2filt, with the ratio to plain (does not move with the load of
#     the machine, unlike the wall-clock ratios);
#   - per-event costs in instructions (callgrind, deterministic: the
#     difference between two iteration counts): probe pair timed and
#     throttled, tier-1 call, MPI wrapper, and bench/ompcost.sh (OpenMP
#     constructs under GOMP and OMPT) when it exists;
#   - the MPI message rate (bench/msgrate.sh): instructions added per
#     message (callgrind) and the rate of 2 ranks, plain vs -lhprof;
#   - virtual time without wildcard receives (bench/vtime.sh): the
#     instructions HPROF_VIRTUAL_TIME=1 adds per message and per iteration
#     of a halo-exchange stencil (callgrind, 1 rank);
#   - the fixed cost of a run (bench/fixed.sh);
#   - scale: hprof-merge and hprof-query at 1024 ranks (bench/scale.sh).
# usage: bench/record.sh [BUILDDIR]   (default: the current directory)
# Env: ROUNDS (default 5: `make bench` takes about 4.3 min on 2 cores, and
#      1.5 min more for bench/vtime.sh; 1
#      in quick mode), BENCH_OUT (default BUILDDIR/bench/results),
#      HPROF_BENCH_QUICK=1 (1 round, tiny sizes: tests the script in about a
#      minute, its figures mean nothing), MPICC, MPIRUN.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
quick=${HPROF_BENCH_QUICK:-0}
[ "$quick" = 0 ] && rounds=${ROUNDS:-5} || rounds=${ROUNDS:-1}
out=${BENCH_OUT:-$builddir/bench/results}
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
export MPICC MPIRUN
libdir=$builddir/pmpi/.libs
hpcc=$builddir/instrument/hprof-cc
if [ ! -e "$libdir/libhprof.so" ]; then
    echo "record: $libdir/libhprof.so not found; build first (make)" >&2
    exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir # hprof-cc: this build tree
unset HPROF_TIER   # hprof-cc: tier 2 unless --tier=1 is given
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-record.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/prof" "$out"
md=$tmp/bench.md
csvf=$tmp/bench.csv
cores=$(nproc)
half=$((cores / 2 > 0 ? cores / 2 : 1))

# Sizes: the timed size of each kernel and example (quick: tiny); the two
# step counts of the kernels under callgrind.
declare -A cg_steps
if [ "$quick" = 0 ]; then
    declare -A size=([force]=150 [dispatch]=5000000 [tasks]=8388608 [solver]=60 [worktasks]=131072 [regions]=12500 [jacobi]="1024 1000" [lizhang]="")
    cg_steps=([force]="2 4" [solver]="5 10")
    probe_iters=10000000 wrap_calls=1000000 fixed_rounds=21
    cg_lo=100000 cg_hi=200000 wrap_lo=10000 wrap_hi=20000
else
    declare -A size=([force]=4 [dispatch]=200000 [tasks]=131072 [solver]=4 [worktasks]=4096 [regions]=500 [jacobi]="128 50" [lizhang]="")
    cg_steps=([force]="1 2" [solver]="1 2")
    probe_iters=100000 wrap_calls=30000 fixed_rounds=3
    cg_lo=20000 cg_hi=40000 wrap_lo=3000 wrap_hi=6000
fi
kernels="force dispatch tasks solver worktasks regions"
examples="lizhang jacobi"
# tier 1 and tier 2 are hprof-cc's builds; tier1raw is tier 1 by hand
if [ -x "$hpcc" ]; then
    variants="plain tier0 tier1 tier1raw tier2 tier2filt"
else
    variants="plain tier0 tier1raw"
fi

say() { echo "record: [${SECONDS}s] $*" >&2; }

# csv SECTION ITEM VARIANT METRIC VALUE UNIT - one row of bench.csv.
csv() {
    local f row=
    for f in "$@"; do row="$row,\"${f//\"/\"\"}\""; done
    printf '%s\n' "${row#,}" >>"$csvf"
}

# ---------------------------------------------------------------- header
header() {
    local commit cpu
    commit=$(git -C "$srcdir" describe --always --dirty 2>/dev/null ||
        sed -n 's/^#define PACKAGE_VERSION "\(.*\)"/\1/p' "$builddir/config.h" 2>/dev/null || echo unknown)
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
    local -A m=([date]="$(date -u '+%Y-%m-%d %H:%M UTC')" [commit]="$commit" [cpu]="$cpu"
        [cores]="$cores" [kernel]="$(uname -r)" [gcc]="$(gcc --version | head -1)"
        [clang]="$(clang --version 2>/dev/null | head -1 || echo none)"
        [mpi]="$("$MPIRUN" --version 2>/dev/null | head -1)")
    {
        echo "### hprof overhead record (\`make bench\`)"
        echo
        if [ "$quick" != 0 ]; then
            echo "**QUICK MODE (HPROF_BENCH_QUICK=1): tiny sizes; these figures mean nothing.**"
            echo
        fi
        echo "Recorded ${m[date]}, commit \`${m[commit]}\`, on ${m[cpu]}, ${m[cores]} cores, Linux ${m[kernel]};"
        echo "${m[gcc]}; ${m[clang]}; ${m[mpi]}. Rounds: $rounds."
        echo
    } >>"$md"
    local k
    for k in date commit cpu cores kernel gcc clang mpi; do csv machine "$k" "" "" "${m[$k]}" ""; done
    csv machine rounds "" "" "$rounds" ""
    csv machine quick "" "" "$quick" ""
}

# ---------------------------------------------------------------- whole programs
# build PROG SRC FLAGS... - PROG.plain, .tier0, .tier1, .tier1raw, .tier2 in $tmp/bin.
build() {
    local p=$1 src=$2 b=$tmp/bin/$1
    shift 2
    local link=(-L"$libdir" -lhprof "-Wl,-rpath,$libdir")
    "$MPICC" -g -O2 "$@" "$src" -o "$b.plain" -lm
    "$MPICC" -g -O2 "$@" "$src" -o "$b.tier0" "${link[@]}" -lm
    "$MPICC" -g -O2 -finstrument-functions "$@" "$src" -o "$b.tier1raw" "${link[@]}" -lm
    # A tier-1 or tier-2 build that fails is reported, not fatal: its runs
    # fail, and the table shows "output differs".
    if [ -x "$hpcc" ] && ! { "$hpcc" --tier=1 "$MPICC" -g -O2 "$@" -c "$src" -o "$b.t1.o" &&
        "$hpcc" --tier=1 "$MPICC" "$@" "$b.t1.o" -o "$b.tier1" "${link[@]}" -lm; }; then
        say "hprof-cc --tier=1 failed to build $p"
    fi
    if [ -x "$hpcc" ] && ! { "$hpcc" "$MPICC" -g -O2 "$@" -c "$src" -o "$b.o" &&
        "$hpcc" "$MPICC" "$@" "$b.o" -o "$b.tier2" "${link[@]}" -lm; }; then
        say "hprof-cc failed to build $p (tier 2)"
    fi
    build_filtered "$p" "$src" "$@"
    local v
    for v in tier0 tier1 tier1raw tier2 tier2filt; do
        [ -x "$b.$v" ] || continue
        # not ldd | grep -q: with pipefail, ldd's SIGPIPE would count as "not found"
        ldd "$b.$v" >"$tmp/ldd.txt"
        grep -q 'libhprof\.so' "$tmp/ldd.txt" || echo "$p $v" >>"$tmp/nolib"
    done
}

# build_filtered PROG SRC FLAGS... - PROG.tier2filt: hprof-cc with the
# filter (PROG.filter) that hprof-query --suggest-filter writes from one
# run of PROG.tier2 at the timed size.
build_filtered() {
    local p=$1 src=$2 b=$tmp/bin/$1 cmd
    shift 2
    [ -x "$b.tier2" ] || return 0
    command_of "$p" tier2
    rm -rf "$tmp/prof"/*
    # shellcheck disable=SC2086  # the size may be several arguments
    HPROF_OUTPUT=$tmp/prof/suggest.hpf HPROF_SUMMARY=off "${cmd[@]}" ${size[$p]} </dev/null >/dev/null 2>>"$tmp/run.err" &&
        "$builddir/analyzer/hprof-query" "$tmp/prof/suggest.hpf" --suggest-filter -o "$b.filter" 2>>"$tmp/run.err" &&
        "$hpcc" --filter "$b.filter" "$MPICC" -g -O2 "$@" -c "$src" -o "$b.f.o" &&
        "$hpcc" "$MPICC" "$@" "$b.f.o" -o "$b.tier2filt" -L"$libdir" -lhprof "-Wl,-rpath,$libdir" -lm ||
        say "hprof-cc --filter (suggested) failed to build $p"
}

# command_of PROG VARIANT - sets cmd to the command that runs the binary the
# way PROG runs: force and the examples under mpirun with 2 ranks, dispatch,
# tasks and regions directly (regions: idle threads sleep, as on a shared
# or oversubscribed node).
command_of() {
    local p=$1 v=$2
    local mpi=("$MPIRUN" -np 2 --bind-to none -x HPROF_OUTPUT -x HPROF_SUMMARY -x OMP_NUM_THREADS)
    case $p in
    force) cmd=(env OMP_NUM_THREADS="$half" "${mpi[@]}" "$tmp/bin/$p.$v") ;;
    dispatch) cmd=("$tmp/bin/$p.$v") ;;
    tasks | solver) cmd=(env OMP_NUM_THREADS="$cores" "$tmp/bin/$p.$v") ;;
    worktasks) cmd=(env OMP_NUM_THREADS="$cores" OMP_WAIT_POLICY=passive "$tmp/bin/$p.$v") ;;
    regions) cmd=(env OMP_NUM_THREADS="$cores" OMP_WAIT_POLICY=passive "$tmp/bin/$p.$v") ;;
    *) cmd=(env OMP_NUM_THREADS=1 "${mpi[@]}" "$tmp/bin/$p.$v") ;;
    esac
}

# measure PROG VARIANT TAG ARGS... - one run: stdout in $tmp/TAG.out, max
# RSS (kB) in $tmp/TAG.rss, profile bytes in $tmp/TAG.hpf; prints seconds
# (the kernel's own timer, or mpirun's elapsed time for an example).
measure() {
    local p=$1 v=$2 tag=$3 t0 t1 cmd
    shift 3
    command_of "$p" "$v"
    rm -rf "$tmp/prof"/*
    t0=$(date +%s%N)
    HPROF_OUTPUT=$tmp/prof/$tag.hpf HPROF_SUMMARY=off /usr/bin/time -f %M -o "$tmp/$tag.rss" \
        "${cmd[@]}" "$@" </dev/null >"$tmp/$tag.out" 2>>"$tmp/run.err" ||
        echo "exit status $?" >>"$tmp/$tag.out" # differs from plain: shows in the table
    t1=$(date +%s%N)
    find "$tmp/prof" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }' >"$tmp/$tag.hpf"
    awk -v a="$t0" -v b="$t1" '$1 == "kernel" { k = $3 } END { printf "%.6f\n", k != "" ? k : (b - a) / 1e9 }' "$tmp/$tag.out"
}

# same_output TAG_A TAG_B - stdout equal, the timer line aside.
same_output() { cmp -s <(grep -v '^kernel ' "$tmp/$1.out") <(grep -v '^kernel ' "$tmp/$2.out"); }

whole_programs() {
    say "building kernels and examples ($variants)"
    build force "$srcdir/bench/kernels/force.c" -fopenmp
    build dispatch "$srcdir/bench/kernels/dispatch.c"
    build tasks "$srcdir/bench/kernels/tasks.c" -fopenmp
    build solver "$srcdir/bench/kernels/solver.c" -fopenmp
    build worktasks "$srcdir/bench/kernels/worktasks.c" -fopenmp
    build regions "$srcdir/bench/kernels/regions.c" -fopenmp
    build lizhang "$srcdir/examples/lizhang.c"
    build jacobi "$srcdir/examples/jacobi.c" -fopenmp
    local r p v s
    for r in $(seq 1 "$rounds"); do
        say "whole programs, round $r/$rounds"
        for p in $kernels $examples; do
            for v in $variants; do
                # shellcheck disable=SC2086  # the size may be several arguments
                s=$(measure "$p" "$v" "$p.$v" ${size[$p]})
                printf '%s\t%s\t%s\t%s\n' "$p" "$v" "$r" "$s" >>"$tmp/prog.results"
                same_output "$p.$v" "$p.plain" || echo "$p $v" >>"$tmp/differs"
            done
        done
    done
    # The last round's runs are the 10x length; one run each at a tenth.
    for p in $kernels; do
        for v in $variants; do
            cp "$tmp/$p.$v.rss" "$tmp/$p.$v.10x.rss"
            cp "$tmp/$p.$v.hpf" "$tmp/$p.$v.10x.hpf"
            measure "$p" "$v" "$p.$v.1x" $((${size[$p]} > 10 ? ${size[$p]} / 10 : 1)) >/dev/null
        done
    done
    programs_table
    memory_table
}

# ratio_stats PROG VARIANT - "median min max" of VARIANT/plain per round, and
# the median seconds of VARIANT.
ratio_stats() {
    awk -F'\t' -v p="$1" -v v="$2" '
        function med(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
        $1 == p && $2 == "plain" { base[$3] = $4 }
        $1 == p && $2 == v { t[$3] = $4 }
        END {
            for (r in t) if (base[r] > 0) { n++; q[n] = t[r] / base[r]; s[n] = t[r] }
            if (!n) { print "- - - -"; exit }
            sort(q, n); sort(s, n)
            printf "%.3f %.3f %.3f %.4f\n", med(q, n), q[1], q[n], med(s, n)
        }' "$tmp/prog.results"
}

programs_table() {
    local p v st med lo hi secs cell
    {
        echo "#### Whole programs"
        echo
        echo "Ratio to plain in the same round: median (min–max) of $rounds alternating rounds. Kernels: their own"
        echo "timer of the kernel part (force: 2 ranks × $half threads; dispatch: serial; tasks, solver: $cores threads, no MPI;"
        echo "worktasks: ~5 µs tasks, $cores threads, OMP_WAIT_POLICY=passive, no MPI;"
        echo "regions: $cores threads, OMP_WAIT_POLICY=passive, no MPI)."
        echo "Examples: elapsed time of \`mpirun\` with 2 ranks × 1 thread, start-up included. Plain: median seconds."
        echo "tier0: \`-lhprof\`; tier1: \`hprof-cc --tier=1\` (-finstrument-functions, tiny procedures unhooked);"
        echo "tier1raw: \`-finstrument-functions -lhprof\` by hand (every procedure hooked); tier2: \`hprof-cc\`;"
        echo "tier2filt: \`hprof-cc --filter\` with what \`hprof-query --suggest-filter\` wrote from one tier-2 run."
        echo
        printf '| program | plain s |'
        for v in $variants; do [ "$v" = plain ] || printf ' %s |' "$v"; done
        printf '\n|---|---:|'
        for v in $variants; do [ "$v" = plain ] || printf -- '---:|'; done
        printf '\n'
    } >>"$md"
    for p in $kernels $examples; do
        read -r _ _ _ secs < <(ratio_stats "$p" plain)
        printf '| %s | %s |' "$p" "$secs" >>"$md"
        csv programs "$p" plain seconds "$secs" s
        for v in $variants; do
            [ "$v" != plain ] || continue
            read -r med lo hi st < <(ratio_stats "$p" "$v")
            cell="$med ($lo–$hi)"
            grep -qx "$p $v" "$tmp/differs" 2>/dev/null && cell="$cell, output differs"
            grep -qx "$p $v" "$tmp/nolib" 2>/dev/null && cell="$cell, no libhprof"
            printf ' %s |' "$cell" >>"$md"
            csv programs "$p" "$v" ratio_median "$med" ratio
            csv programs "$p" "$v" ratio_min "$lo" ratio
            csv programs "$p" "$v" ratio_max "$hi" ratio
            csv programs "$p" "$v" seconds "$st" s
        done
        printf '\n' >>"$md"
    done
    {
        if [ -s "$tmp/differs" ]; then
            echo
            echo "Output differs from plain (timer line aside): $(tr '\n' ';' <"$tmp/differs")"
        fi
        if [ -s "$tmp/nolib" ]; then
            echo
            echo "\"no libhprof\": the linker dropped -lhprof (as needed): a program without MPI or OpenMP calls"
            echo "has nothing for tier 0 to record, so that variant is the plain program."
        fi
        echo
    } >>"$md"
}

memory_table() {
    local p v len kb bytes
    {
        echo "#### Profile size and peak memory"
        echo
        echo "Max RSS (/usr/bin/time; for force the largest of mpirun and its ranks) and bytes of the profile,"
        echo "run length 1× (a tenth of the timed size) and 10× (the timed size)."
        echo
        echo "| program | variant | max RSS 1× (kB) | max RSS 10× (kB) | profile 1× (B) | profile 10× (B) |"
        echo "|---|---|---:|---:|---:|---:|"
    } >>"$md"
    for p in $kernels; do
        for v in $variants; do
            printf '| %s | %s | %s | %s | %s | %s |\n' "$p" "$v" "$(tail -1 "$tmp/$p.$v.1x.rss")" \
                "$(tail -1 "$tmp/$p.$v.10x.rss")" "$(cat "$tmp/$p.$v.1x.hpf")" "$(cat "$tmp/$p.$v.10x.hpf")" >>"$md"
            for len in 1x 10x; do
                kb=$(tail -1 "$tmp/$p.$v.$len.rss")
                bytes=$(cat "$tmp/$p.$v.$len.hpf")
                csv memory "$p" "$v" "max_rss_$len" "$kb" kB
                csv memory "$p" "$v" "profile_$len" "$bytes" B
            done
        done
    done
    echo >>"$md"
}

# ---------------------------------------------------------------- tables of other scripts
# md_to_csv SECTION - the markdown tables on stdin as CSV rows: the text
# cells of a row make its item, each numeric cell a metric named by its
# column's header.
md_to_csv() {
    awk -v sec="$1" '
        function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
        function q(s) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
        !/^\|/ { intable = 0; next }
        /^\|[-:| ]+\|$/ { next }
        {
            n = split($0, c, "|")
            if (!intable) { intable = 1; for (i = 2; i < n; i++) h[i] = trim(c[i]); next }
            item = ""; delete num
            for (i = 2; i < n; i++) {
                v = trim(c[i])
                if (v ~ /^[-+]?[0-9][0-9.,]*([eE][-+]?[0-9]+)?( ?(ns|us|µs|ms|s|kB|B|%))?$/) {
                    gsub(/[ ,a-zµ%B]+$/, "", v); gsub(/,/, "", v); num[i] = v + 0
                } else if (v != "" && v != "-" && v != "–" && v !~ /^[-+]?(nan|inf)$/)
                    item = item (item == "" ? "" : " / ") v
            }
            for (i in num) print q(sec) "," q(item) ",\"\"," q(h[i]) "," q(num[i]) ",\"\""
        }' >>"$csvf"
}

# include SECTION TITLE CMD... - runs CMD, puts its stdout under TITLE in
# bench.md and its tables in bench.csv; a failing CMD is noted, not fatal.
include() {
    local sec=$1 title=$2
    shift 2
    say "$title"
    if "$@" >"$tmp/$sec.md" 2>"$tmp/$sec.err"; then
        {
            echo "#### $title"
            echo
            awk '/^\|/ && prev != "" && prev !~ /^\|/ { print "" } { print; prev = $0 }' "$tmp/$sec.md" | cat -s
            echo
        } >>"$md"
        md_to_csv "$sec" <"$tmp/$sec.md"
    else
        { echo "#### $title"; echo; echo "(failed: $(tail -1 "$tmp/$sec.err"))"; echo; } >>"$md"
    fi
}

per_event_ns() {
    ROUNDS=$rounds PROBE_ITERS=$probe_iters WRAPCOST_CALLS=$wrap_calls \
        RUN_PARTS="mpi probe omp" bash "$srcdir/bench/run.sh" "$builddir"
}

# ---------------------------------------------------------------- instructions
# ir CMD... - total instructions of CMD under callgrind (all threads); with
# CG_TOGGLE=FN only those made inside FN (the start-up's calibration spins
# on the clock, so a whole run's count moves by more than a cheap event's).
ir() {
    valgrind --tool=callgrind ${CG_TOGGLE:+--toggle-collect="$CG_TOGGLE"} \
        --callgrind-out-file="$tmp/cg.out" "$@" >/dev/null 2>"$tmp/cg.err" </dev/null
    sed -n 's/^summary: *//p; s/^totals: *//p' "$tmp/cg.out" | head -1
}

# per_iter LO HI CMD... - instructions per iteration: (I(HI) - I(LO)) / (HI - LO),
# CMD run with the iteration count as its first argument.
per_iter() {
    local lo=$1 hi=$2 a b
    shift 2
    local cmd=$1
    shift
    a=$(ir "$cmd" "$lo" "$@")
    b=$(ir "$cmd" "$hi" "$@")
    awk -v a="$a" -v b="$b" -v l="$lo" -v h="$hi" 'BEGIN { printf "%.1f\n", (b - a) / (h - l) }'
}

instructions() {
    command -v valgrind >/dev/null || { echo "(valgrind not installed)"; return 0; }
    local b=$tmp/bin pt pth t1 c0 wp wh wh0
    "$MPICC" -O2 -g -finstrument-functions -I"$srcdir/libhprof" "$srcdir/bench/probe.c" -o "$b/probe" \
        -L"$libdir" -lhprof "-Wl,-rpath,$libdir"
    "$MPICC" -O2 -g "$srcdir/bench/wrapcost.c" -o "$b/wrapcost.plain"
    "$MPICC" -O2 -g "$srcdir/bench/wrapcost.c" -o "$b/wrapcost.hprof" -L"$libdir" -lhprof "-Wl,-rpath,$libdir"
    export HPROF_OUTPUT=$tmp/prof/cg.hpf HPROF_SUMMARY=off
    pt=$(CG_TOGGLE=pair HPROF_THROTTLE_NS=0 per_iter "$cg_lo" "$cg_hi" "$b/probe" pair)
    pth=$(CG_TOGGLE=pair HPROF_THROTTLE_NS=1000 per_iter "$cg_lo" "$cg_hi" "$b/probe" pair)
    plh=$(CG_TOGGLE=leaf HPROF_THROTTLE_NS=1000 per_iter "$cg_lo" "$cg_hi" "$b/probe" leaf)
    pot=$(CG_TOGGLE=once HPROF_THROTTLE_NS=0 per_iter "$cg_lo" "$cg_hi" "$b/probe" once)
    poh=$(CG_TOGGLE=once HPROF_THROTTLE_NS=1000 per_iter "$cg_lo" "$cg_hi" "$b/probe" once)
    t1=$(CG_TOGGLE=calls HPROF_THROTTLE_NS=0 per_iter "$cg_lo" "$cg_hi" "$b/probe" tier1)
    t1h=$(CG_TOGGLE=calls HPROF_THROTTLE_NS=1000 per_iter "$cg_lo" "$cg_hi" "$b/probe" tier1)
    c0=$(CG_TOGGLE=calls per_iter "$cg_lo" "$cg_hi" "$b/probe" call)
    # wrapcost CALLS makes ~3 CALLS wrapped calls (Send, Iprobe, Irecv+Isend+Waitall).
    wp=$(per_iter "$wrap_lo" "$wrap_hi" "$b/wrapcost.plain")
    wh=$(per_iter "$wrap_lo" "$wrap_hi" "$b/wrapcost.hprof")
    wh0=$(HPROF_CALLPATH=0 per_iter "$wrap_lo" "$wrap_hi" "$b/wrapcost.hprof")
    wp0=$wp fp= fh= fp0= fh0=
    if command -v "${MPIF90:-mpif90}" >/dev/null; then   # the same calls from Fortran
        "${MPIF90:-mpif90}" -O2 -g "$srcdir/bench/fwrapcost.f90" -o "$b/fwrapcost.plain"
        "${MPIF90:-mpif90}" -O2 -g "$srcdir/bench/fwrapcost.f90" -o "$b/fwrapcost.hprof" \
            -L"$libdir" -lhprof "-Wl,-rpath,$libdir"
        fp=$(per_iter "$wrap_lo" "$wrap_hi" "$b/fwrapcost.plain")
        fh=$(per_iter "$wrap_lo" "$wrap_hi" "$b/fwrapcost.hprof")
        fh0=$(HPROF_CALLPATH=0 per_iter "$wrap_lo" "$wrap_hi" "$b/fwrapcost.hprof")
    fi
    unset HPROF_OUTPUT HPROF_SUMMARY
    echo
    echo "callgrind, 1 rank (no mpirun), the difference between two iteration counts ($cg_lo and $cg_hi;"
    echo "wrapcost: $wrap_lo and $wrap_hi), instructions per event (per iteration of the measuring loop: its own"
    echo "2-3 instructions included):"
    echo
    echo "| event | instructions |"
    echo "|---|---:|"
    echo "| tier-2 probe pair (enter+exit), timed | $pt |"
    echo "| tier-2 probe pair (enter+exit), throttled | $pth |"
    echo "| tier-2 probe pair called, not inlined (a site outside any loop of its procedure), timed | $pot |"
    echo "| tier-2 probe pair called, not inlined, throttled | $poh |"
    echo "| tier-2 probe pair of a leaf site (nothing inside records: a call-free loop), throttled | $plh |"
    echo "| tier-1 call (hooks: call site + procedure), timed, added | $(awk -v a="$t1" -v b="$c0" 'BEGIN { printf "%.1f", a - b }') |"
    echo "| tier-1 call (hooks: call site + procedure), throttled, added | $(awk -v a="$t1h" -v b="$c0" 'BEGIN { printf "%.1f", a - b }') |"
    echo "| MPI wrapper, added per call (mean of MPI_Send(PROC_NULL), MPI_Iprobe, Irecv+Isend+Waitall(self)) | $(awk -v a="$wh" -v b="$wp" 'BEGIN { printf "%.1f", (a - b) / 3 }') |"
    echo "| MPI wrapper, of which the tier-0 call path (HPROF_CALLPATH=3 vs 0) | $(awk -v a="$wh" -v b="$wh0" 'BEGIN { printf "%.1f", (a - b) / 3 }') |"
    [ -n "$fp" ] || return 0
    echo "| Fortran MPI wrapper (bench/fwrapcost.f90, the same calls), added per call | $(awk -v a="$fh" -v b="$fp" 'BEGIN { printf "%.1f", (a - b) / 3 }') |"
    echo "| Fortran minus C wrapper, added per call, HPROF_CALLPATH=0 (the conversions alone) | $(awk -v a="$fh0" -v b="$fp" -v c="$wh0" -v d="$wp0" 'BEGIN { printf "%+.1f", ((a - b) - (c - d)) / 3 }') |"
}

# The kernels force and solver in instructions per step, plain, tier2 and
# tier2filt (built by whole_programs): 1 rank without mpirun, 1 thread.
kernel_instructions() {
    command -v valgrind >/dev/null || { echo "(valgrind not installed)"; return 0; }
    local p v lo hi n base
    export HPROF_OUTPUT=$tmp/prof/cg.hpf HPROF_SUMMARY=off OMP_NUM_THREADS=1
    echo
    echo "callgrind, 1 rank (no mpirun), 1 thread: instructions per step (the difference between two step"
    echo "counts: force ${cg_steps[force]}, solver ${cg_steps[solver]}) and the ratio to plain."
    echo
    echo "| kernel | plain | tier2 | tier2 ratio | tier2filt | tier2filt ratio |"
    echo "|---|---:|---:|---:|---:|---:|"
    for p in force solver; do
        read -r lo hi <<<"${cg_steps[$p]}"
        printf '| %s |' "$p"
        base=
        for v in plain tier2 tier2filt; do
            if [ ! -x "$tmp/bin/$p.$v" ]; then
                printf ' - |'
                [ "$v" = plain ] || printf ' - |'
                continue
            fi
            rm -rf "$tmp/prof"/*
            n=$(per_iter "$lo" "$hi" "$tmp/bin/$p.$v")
            printf ' %s |' "$n"
            [ "$v" = plain ] && base=$n ||
                awk -v a="$n" -v b="$base" 'BEGIN { printf " %.3f |", (b > 0 ? a / b : 0) }'
        done
        printf '\n'
    done
    unset HPROF_OUTPUT HPROF_SUMMARY OMP_NUM_THREADS
}

# OpenMP constructs in instructions: bench/ompcost.sh when this tree has it.
omp_instructions() {
    if [ -f "$srcdir/bench/ompcost.sh" ]; then
        if [ "$quick" = 0 ]; then
            bash "$srcdir/bench/ompcost.sh" "$builddir"
        else
            QUICK=1 bash "$srcdir/bench/ompcost.sh" "$builddir"
        fi
    else
        echo
        echo "(bench/ompcost.sh not in this tree: the OpenMP constructs are in ns only, above)"
    fi
}

# Tier 0's cost per task, gcc and clang (bench/taskcost.sh).
task_cost() {
    if [ "$quick" = 0 ]; then
        ROUNDS=$rounds bash "$srcdir/bench/taskcost.sh" "$builddir"
    else
        ROUNDS=1 RUNS=1 LEAVES=4096 CG_LO=256 CG_HI=1024 bash "$srcdir/bench/taskcost.sh" "$builddir"
    fi
}

# What virtual time adds per message and per stencil iteration (bench/vtime.sh).
vtime_cost() {
    if [ "$quick" = 0 ]; then
        bash "$srcdir/bench/vtime.sh" "$builddir"
    else
        CG_LO=50 CG_HI=100 HALO_LO=20 HALO_HI=40 bash "$srcdir/bench/vtime.sh" "$builddir"
    fi
}

fixed_cost() { ROUNDS=$fixed_rounds bash "$srcdir/bench/fixed.sh" "$builddir"; }

# hprof-merge and hprof-query at 1024 ranks (bench/scale.sh; 64 in quick mode).
scale_figures() {
    if [ "$quick" = 0 ]; then
        bash "$srcdir/bench/scale.sh" "$builddir"
    else
        RANKS=64 ROUNDS=1 bash "$srcdir/bench/scale.sh" "$builddir"
    fi
}

# ---------------------------------------------------------------- main
: >"$csvf"
csv section item variant metric value unit
header
whole_programs
include ns "Per-event costs in ns (bench/run.sh: mpi, probe, omp)" per_event_ns
include kir "Bench kernels in instructions (callgrind)" kernel_instructions
include ir "Per-event costs in instructions (callgrind)" instructions
include ompir "OpenMP constructs in instructions (bench/ompcost.sh)" omp_instructions
include msgrate "MPI message rate (bench/msgrate.sh)" \
    env ROUNDS="$rounds" MSGRATE_ITERS="$([ "$quick" = 0 ] && echo 2000 || echo 100)" bash "$srcdir/bench/msgrate.sh" "$builddir"
include vtime "Virtual time (HPROF_VIRTUAL_TIME=1) without wildcard receives (bench/vtime.sh)" vtime_cost
include taskir "Tier 0 per task, GOMP and OMPT (bench/taskcost.sh)" task_cost
include fixed "Fixed cost of a run (bench/fixed.sh)" fixed_cost
include scale "Scale: hprof-merge and hprof-query on a synthetic 1024-rank profile (bench/scale.sh)" scale_figures
cp "$md" "$out/bench.md"
cp "$csvf" "$out/bench.csv"
say "wrote $out/bench.md and $out/bench.csv"
