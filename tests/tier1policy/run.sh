#!/bin/bash
# tests/tier1policy/run.sh - `hprof-cc --tier=1`: the instrumentation
# policy applied to -finstrument-functions hooks, against the ground truth
# stated in tests/tier1policy/t1policy.c and nested.c:
#  - hprof-instrument --tier=1 --list: add, step_once, sq unhooked (tiny),
#    main hooked, address_add and step probed (static, called once);
#  - default build (no -g given): procedure nodes address_add 300, main 1,
#    step 200 and none for add, step_once, sq; the hooked procedures sit at
#    the same file:line as in a by-hand `gcc -g -finstrument-functions`
#    build (the copy keeps every line, hprof-cc adds -g);
#  - --procedures=all: add 150000, address_add 300, main 1, sq 1000,
#    step 200, step_once 100000 (those of the by-hand build too);
#  - --filter `exclude function step`: address_add 300, main 1, no step;
#  - --procedures=all --filter `exclude function add`: no add, address_add
#    300 and the rest as with --procedures=all (whole names, not parts);
#  - --filter `include function add`: add 150000 and the default ones;
#  - the same default counts built with clang;
#  - HPROF_TIER=1 with the hprof-gcc copy = --tier=1;
#  - nested.c (libclang cannot parse it): one warning, compiled as is with
#    every procedure hooked: twice 1000 calls;
#  - once.c: the static procedure called once (work) gets a probe instead
#    of hooks and is inlined into main as in the plain build (no symbol
#    left, gcc and clang), with exact counts; those called twice, also
#    through a pointer, recursively, or not static stay hooked;
#  - stdout identical plain and instrumented; `hprof-query --check` on
#    every profile.
# usage: tests/tier1policy/run.sh [BUILDDIR]
set -uo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
LIBDIR=$builddir/pmpi/.libs
SRC=$srcdir/tests/tier1policy/t1policy.c
NESTED=$srcdir/tests/tier1policy/nested.c

. "$srcdir/tests/lib.sh"
instrumenter_env
test_tmpdir tier1policy
cd "$tmp" || exit 1

L_ADD=$(line_of "$SRC" add)
L_AA=$(line_of "$SRC" address_add)
L_STEP=$(line_of "$SRC" step)
L_ONCE=$(line_of "$SRC" step_once)
L_SQ=$(line_of "$SRC" sq)
L_MAIN=$(line_of "$SRC" main)
N_AA=$(define_of "$SRC" N_AA)
N_STEP=$(define_of "$SRC" N_STEP)
N_INNER=$(define_of "$SRC" N_INNER)
N_SQ=$(define_of "$SRC" N_SQ)

gcc -O2 "$SRC" -o plain 2>build.err || notok "plain build" "$(head -3 build.err | oneline)"
./plain >plain.out

# run NAME: runs ./NAME into NAME.hpf, checks stdout and the profile
run() {
    HPROF_OUTPUT=$1.hpf "./$1" >"$1.out"
    expect_eq "$1: stdout as plain" "$(cat plain.out)" "$(cat "$1.out")"
    check_profile "$1" "$1.hpf"
}

# build NAME HPROF-CC-OPTIONS...: hprof-cc --tier=1 gcc -O2 (no -g), quiet
build() {
    local name=$1
    shift
    if ! "$HPCC" --tier=1 "$@" gcc -O2 "$SRC" -o "$name" 2>"$name.err" || [ -s "$name.err" ]; then
        notok "$name: build without warnings" "$(head -3 "$name.err" | oneline)"
        return 1
    fi
    run "$name"
}

# procs PROFILE: "name,calls" of every procedure node of t1policy.c
procs() {
    q "$1" "SELECT s.name, SUM(st.count) FROM stat st JOIN node n ON n.id = st.node
            JOIN site s ON s.id = n.site WHERE s.kind = 'procedure' GROUP BY s.name ORDER BY s.name"
}

# where PROFILE: "name,file,line" of every procedure site
where() {
    q "$1" "SELECT name, file, line FROM site WHERE kind = 'procedure' ORDER BY name"
}

ALL="add,$((N_AA * N_INNER));address_add,$N_AA;main,1;sq,$N_SQ;step,$N_STEP;step_once,$((N_STEP * N_INNER))"
DEF="address_add,$N_AA;main,1;step,$N_STEP"

# ---- the policy's choice --------------------------------------------------
expect_eq "list: tiny add, step_once, sq unhooked; main hooked; address_add, step probed" \
    "unhooked $L_ADD add;probed $L_AA address_add;unhooked $L_ONCE step_once;probed $L_STEP step;unhooked $L_SQ sq;hooked $L_MAIN main;policy: tier=1 procedures=default tiny=loops<=32" \
    "$("$INST" --tier=1 --list "$SRC" | awk '$1 == "policy:" { print; next } { print $1 " " $3 " " $4 }' | sed 's/:$//')"
expect_eq "list --procedures=all: every procedure hooked or probed" 0 \
    "$("$INST" --tier=1 --procedures=all --list "$SRC" | grep -c '^unhooked')"

# ---- the by-hand tier 1 build: every procedure hooked ----------------------
gcc -g -O2 -finstrument-functions "$SRC" -o raw -L"$LIBDIR" -lhprof -Wl,-rpath,"$LIBDIR" 2>raw.err ||
    notok "raw: build" "$(head -3 raw.err | oneline)"
run raw
expect_eq "raw: -finstrument-functions alone hooks all six" "$ALL" "$(procs raw.hpf)"

# ---- default: tiny procedures unhooked --------------------------------------
if build def; then
    expect_eq "default: address_add, main, step counted; add, step_once, sq no node" "$DEF" "$(procs def.hpf)"
    expect_eq "default: procedures at the file:line of the by-hand -g build" \
        "$(where raw.hpf | grep -E '^(address_add|main|step),')" "$(where def.hpf)"
    expect_eq "default: the procedures resolve to t1policy.c (hprof-cc added -g)" \
        "address_add,t1policy.c;main,t1policy.c;step,t1policy.c" \
        "$(where def.hpf | awk -F, '{ n = split($2, p, "/"); print $1 "," p[n] }')"
fi

# ---- --procedures=all: every procedure hooked -------------------------------
if build all --procedures=all; then
    expect_eq "--procedures=all: all six counted exactly" "$ALL" "$(procs all.hpf)"
    expect_eq "--procedures=all: procedures at the file:line of the by-hand -g build" \
        "$(where raw.hpf)" "$(where all.hpf)"
fi

# ---- a filter excluding a procedure that is not tiny -------------------------
printf 'exclude function step\n' >step.txt
if build fstep --filter step.txt; then
    expect_eq "filter 'exclude function step': no step; address_add, main counted" \
        "address_add,$N_AA;main,1" "$(procs fstep.hpf)"
fi
expect_eq "list --filter: step unhooked by the filter, step_once by the policy" \
    "step_once: tiny procedure: straight-line, no call;step: the filter excludes it" \
    "$("$INST" --tier=1 --filter step.txt --list "$SRC" | grep -E '^unhooked procedure [0-9]+ step' | cut -d' ' -f4-)"
printf 'exclude function add\n' >add.txt
if build fadd --procedures=all --filter add.txt; then
    expect_eq "--procedures=all, filter 'exclude function add': no add, address_add kept" \
        "$(printf '%s\n' "$ALL" | tr ';' '\n' | grep -v '^add,' | oneline)" "$(procs fadd.hpf)"
fi

printf 'include function add\n' >incl.txt
if build incl --filter incl.txt; then
    expect_eq "filter 'include function add': the tiny add hooked, step_once and sq not" \
        "add,$((N_AA * N_INNER));$DEF" "$(procs incl.hpf)"
fi

# ---- clang honours the attribute too ---------------------------------------
if command -v clang >/dev/null; then
    if "$HPCC" --tier=1 clang -O2 "$SRC" -o clang1 2>clang1.err && [ ! -s clang1.err ]; then
        run clang1
        expect_eq "clang: address_add, main, step counted; add, step_once, sq no node" "$DEF" "$(procs clang1.hpf)"
    else
        notok "clang: build without warnings" "$(head -3 clang1.err | oneline)"
    fi
else
    skipped "clang" "clang not installed"
fi

# ---- HPROF_TIER=1 and the hprof-gcc copy ----------------------------------
if HPROF_TIER=1 "$builddir/instrument/hprof-gcc" -O2 "$SRC" -o env 2>env.err && [ ! -s env.err ]; then
    run env
    expect_eq "HPROF_TIER=1 hprof-gcc: as --tier=1" "$DEF" "$(procs env.hpf)"
else
    notok "HPROF_TIER=1 hprof-gcc: build without warnings" "$(head -3 env.err | oneline)"
fi
expect_eq "HPROF_TIER=3: refused" "2,1" \
    "$(HPROF_TIER=3 "$HPCC" gcc -O2 "$SRC" -o bad 2>bad.err; echo "$?,$(grep -c 'unknown tier' bad.err)")"

# ---- a file the instrumenter cannot parse ---------------------------------
gcc -O2 "$NESTED" -o nested.plain 2>build.err || notok "nested.c: plain build" "$(head -3 build.err | oneline)"
if "$HPCC" --tier=1 gcc -O2 "$NESTED" -o nested 2>nested.err; then
    expect_eq "nested.c: one warning: policy not applied, every procedure hooked" 1 \
        "$(grep -c 'hprof-cc: warning: .*nested.c: policy not applied, every procedure hooked' nested.err)"
    HPROF_OUTPUT=nested.hpf ./nested >nested.out
    expect_eq "nested.c: stdout as plain" "$(./nested.plain)" "$(cat nested.out)"
    check_profile nested nested.hpf
    expect_eq "nested.c: the tiny twice hooked, exact count" "$(define_of "$NESTED" N_TWICE)" \
        "$(q nested.hpf "SELECT SUM(st.count) FROM stat st JOIN node n ON n.id = st.node
                         JOIN site s ON s.id = n.site WHERE s.kind = 'procedure' AND s.name = 'twice'")"
else
    notok "nested.c: build falls back" "$(head -3 nested.err | oneline)"
fi

# ---- once.c: a probe instead of hooks where hooks would stop inlining ---------
ONCE=$srcdir/tests/tier1policy/once.c
N_WORK=$(define_of "$ONCE" N_WORK)
N_DOWN=$(define_of "$ONCE" N_DOWN)
expect_eq "once.c list: work probed; twice, pointed, countdown, shared, main hooked" \
    "probed $(line_of "$ONCE" work) work;hooked $(line_of "$ONCE" twice) twice;hooked $(line_of "$ONCE" pointed) pointed;hooked $(line_of "$ONCE" countdown) countdown;hooked $(line_of "$ONCE" shared) shared;hooked $(line_of "$ONCE" main) main" \
    "$("$INST" --tier=1 --list "$ONCE" | awk '$2 == "procedure" { print $1 " " $3 " " $4 }' | sed 's/:$//')"
# once_build CC: the plain and the tier 1 build, run and checked
once_build() {
    local cc=$1
    "$cc" -O2 "$ONCE" -o "once.$cc.plain" 2>build.err || notok "once.c: $cc plain build" "$(head -3 build.err | oneline)"
    if ! "$HPCC" --tier=1 "$cc" -O2 "$ONCE" -o "once.$cc" 2>"once.$cc.err" || [ -s "once.$cc.err" ]; then
        notok "once.c: $cc build without warnings" "$(head -3 "once.$cc.err" | oneline)"
        return
    fi
    HPROF_OUTPUT=once.$cc.hpf "./once.$cc" >"once.$cc.out"
    expect_eq "once.c $cc: stdout as plain" "$("./once.$cc.plain")" "$(cat "once.$cc.out")"
    check_profile "once.c $cc" "once.$cc.hpf"
    if nm "once.$cc.plain" | grep -c ' t work$' >/dev/null; then
        skipped "once.c $cc: work inlined" "$cc does not inline work even without hooks"
    else
        expect_eq "once.c $cc: work inlined into main as in the plain build" 0 \
            "$(nm "once.$cc" | grep -c ' t work$')"
    fi
    expect_eq "once.c $cc: exact counts, work right under main" \
        "countdown,$((N_DOWN + 1));main,1;pointed,2;shared,1;twice,2;work,$N_WORK;main" \
        "$(procs "once.$cc.hpf")
$(q "once.$cc.hpf" "SELECT ps.name FROM node n JOIN site s ON s.id = n.site JOIN node p ON p.id = n.parent
                    JOIN site ps ON ps.id = p.site WHERE s.kind = 'procedure' AND s.name = 'work'")"
}
once_build gcc
if command -v clang >/dev/null; then
    once_build clang
else
    skipped "once.c clang" "clang not installed"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
