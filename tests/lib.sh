# tests/lib.sh - shared helpers of the integration test scripts
# (tests/mpi/run.sh, tests/tiers/run.sh), sourced after they set $QUERY:
# a temporary directory, TAP-like "ok"/"not ok" lines with counters, exact
# and approximate comparisons, SQL through hprof-query, source markers and
# the invariant check of every profile a script makes (check_profile).

# test_tmpdir NAME - makes $tmp (kept with HPROF_KEEP_TMP=1).
test_tmpdir() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/hprof-$1.XXXXXX")
    if [ "${HPROF_KEEP_TMP:-0}" = 1 ]; then
        echo "# keeping temp dir $tmp"
    else
        trap 'rm -rf "$tmp"' EXIT
    fi
}

# instrumenter_env - this build tree's hprof-query, hprof-instrument and
# hprof-cc as $QUERY, $INST, $HPCC (needs $srcdir, $builddir); hprof-cc
# told to use the tree and to build tier 2; the user's filter and
# settings that change what it does unset.
instrumenter_env() {
    QUERY=$builddir/analyzer/hprof-query
    INST=$builddir/instrument/hprof-instrument
    HPCC=$builddir/instrument/hprof-cc
    export HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir HPROF_SUMMARY=off
    unset HPROF_FILTER HPROF_COMM_FUNCS HPROF_KEEP HPROF_TIER
}

pass=0
fail=0
skip=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
notok() { echo "not ok - $1: $2"; fail=$((fail + 1)); }
skipped() { echo "ok - $1 # SKIP $2"; skip=$((skip + 1)); }
oneline() { tr '\n' ';' | sed 's/;$//'; }

# Normalise CSV numbers so "800000.0" and "800000" compare equal.
norm() { awk -F, 'BEGIN { OFS = "," } { for (i = 1; i <= NF; i++) if ($i ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) $i = $i + 0; print }'; }

# expect_eq NAME EXPECTED GOT - exact (numbers normalised, rows joined by ';').
expect_eq() {
    local e g
    e=$(printf '%s\n' "$2" | awk 'NF' | norm | oneline)
    g=$(printf '%s\n' "$3" | awk 'NF' | norm | oneline)
    if [ "$e" = "$g" ]; then ok "$1"; else notok "$1" "expected '$e' got '$g'"; fi
}

# expect_cmp NAME OP BOUND GOT [BOUND2] - OP is lt, le, ge, gt, or within (BOUND±BOUND2).
expect_cmp() {
    local name=$1 op=$2 b=$3 g=$4 b2=${5:-0}
    if awk -v g="$g" -v b="$b" -v b2="$b2" -v op="$op" 'BEGIN {
            if (g !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) exit 1
            g += 0; b += 0; b2 += 0
            if (op == "lt") exit !(g < b); if (op == "le") exit !(g <= b)
            if (op == "gt") exit !(g > b); if (op == "ge") exit !(g >= b)
            if (op == "within") exit !(g >= b - b2 && g <= b + b2)
            exit 1 }'; then
        ok "$name"
    else
        case $op in
        within) notok "$name" "expected $b ± $b2 got '$g'" ;;
        *) notok "$name" "expected $op $b got '$g'" ;;
        esac
    fi
}

# q DB SQL - rows of the result as CSV without the header line; never fails
# (an error becomes the text "ERROR: ..." so the check shows it).
q() {
    local out
    if out=$("$QUERY" "$1" --sql "$2" --format csv 2>"$tmp/q.err"); then
        printf '%s\n' "$out" | tr -d '\r' | awk 'NR == 1 && /^[A-Za-z_"(]/ { next } NF { print }'
    else
        echo "ERROR: hprof-query failed: $(head -c 300 "$tmp/q.err" | oneline)"
    fi
}

# line_of FILE TAG - the line carrying the comment "/* MARK:TAG */" (tests),
# "/* TAG */" (examples) or, in Fortran, "! MARK:TAG" at its end, which
# must appear exactly once.
line_of() {
    local n
    n=$(grep -n -E "[ :]$2 \*/|! MARK:$2\$" "$1" | cut -d: -f1)
    if [ -z "$n" ] || [ "$(printf '%s\n' "$n" | wc -l)" != 1 ]; then
        echo "run.sh: marker comment '$2 */' not found exactly once in $1" >&2
        exit 2
    fi
    echo "$n"
}

# attempts NAME FUNC ARGS... - runs FUNC (a run plus its timing checks) up
# to 3 times while it has failures (a 2-core machine sometimes stalls a
# thread for a scheduler tick); prints the checks of the last run only.
attempts() {
    local name=$1 a p0=$pass f0=$fail s0=$skip
    shift
    for a in 1 2 3; do
        pass=$p0 fail=$f0 skip=$s0
        "$@" >"$tmp/attempt.log"
        if [ "$fail" = "$f0" ] || [ $a = 3 ]; then
            break
        fi
        echo "# $name: run $a had $((fail - f0)) failed checks, running again: $(grep '^not ok' "$tmp/attempt.log" | head -3 | oneline)"
    done
    cat "$tmp/attempt.log"
}

# Records of OpenMP constructs: from a stat row (st) to its node (n) and
# site (s), for "SELECT ... $OMPJOIN WHERE ...".
OMPJOIN="FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site"

# require_built FILE... - ends the test (a failed check, exit 1) unless
# every FILE exists.
require_built() {
    local f
    for f in "$@"; do
        if [ ! -e "$f" ]; then
            notok "prerequisites" "missing $f (build with 'make' first)"
            echo "$pass passed, $fail failed"
            exit 1
        fi
    done
}

# define_of FILE NAME - the number of the line "#define NAME N" of FILE.
define_of() { sed -n "s/^#define $2 \([0-9]*\).*/\1/p" "$1"; }

# with_fork DB FILE NAME LINE - per thread of rank 0, ascending, in ms: the
# time of construct NAME at FILE:LINE plus, on the thread that forked the
# region there, its "fork" record.  A master that its freshly woken team
# delays on the way into the region spends that time in the fork, not in
# the region, so the region's ground truth holds for the sum.
with_fork() {
    q "$1" "SELECT round(sum(st.time) * 1000, 3) $OMPJOIN WHERE st.rank = 0 AND s.kind = 'omp'
        AND s.name IN ('$3', 'fork') AND s.file LIKE '%/$2' AND s.line = $4
        GROUP BY st.thread ORDER BY 1"
}

# check_profile NAME FILE - `hprof-query FILE --check` on a profile the
# script made (docs/formats.md, "Checking a profile"): one "ok" line, or one "not ok"
# naming the first violations.  A missing profile is left to the run's own
# checks.  HPROF_CHECK=0 skips every check.  A script whose profiles still
# break an invariant for a known reason sets CHECK_TODO="reason": its
# violations are then printed as "not ok ... # TODO reason" and counted as
# skips, not failures (HPROF_CHECK_STRICT=1 counts them as failures).
check_profile() {
    local name=$1 file=$2 out rc=0
    [ "${HPROF_CHECK:-1}" = 1 ] && [ -s "$file" ] || return 0
    out=$("$QUERY" "$file" --check 2>&1) || rc=$?
    if [ "$rc" = 0 ]; then
        ok "$name: profile invariants hold"
        return 0
    fi
    out=$(printf '%s\n' "$out" | grep -v '^hprof-query: merged' | head -3 | oneline)
    if [ -n "${CHECK_TODO:-}" ] && [ "${HPROF_CHECK_STRICT:-0}" != 1 ]; then
        echo "not ok - $name: profile invariants: $out # TODO $CHECK_TODO"
        skip=$((skip + 1))
    else
        notok "$name: profile invariants" "$out"
    fi
}
