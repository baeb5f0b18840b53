# tests/truth.sh - checks of hprof's times against the test program's own
# measurement (tests/omp/src/truth.h), sourced after tests/lib.sh.  A run
# with HPROF_TEST_TRUTH=FILE makes the program append one line per rank,
# thread and quantity to FILE: "RANK THREAD NAME MS COUNT".  Load (a thread
# descheduled, a slow wake-up, another job on the machine) moves the true
# times and the program sees the same move as hprof, so the comparison
# needs only a tight tolerance for what lies between hprof's probe and the
# program's clock read:
#     TRUTH_REL x the time + TRUTH_EVENT_MS per measured event
# (COUNT events: the probe and wake-up latency of each edge).
TRUTH_REL=0.02
TRUTH_EVENT_MS=0.5

# truth FILE NAME - rank 0's threads: "MS COUNT" per thread, by thread number.
truth() {
    [ -s "$1" ] || return 0
    awk -v n="$2" '$1 == 0 && $3 == n { print $2, $4, $5 }' "$1" | sort -n | awk '{ print $2, $3 }'
}
# truth_by FILE NAME THREAD - rank 0's "MS COUNT" of one thread.
truth_by() {
    [ -s "$1" ] || return 0
    awk -v n="$2" -v t="$3" '$1 == 0 && $3 == n && $2 == t { print $4, $5 }' "$1"
}
# truth_counts FILE NAME - the event counts of rank 0's threads, ascending.
truth_counts() { truth "$1" "$2" | awk '{ print $2 }' | sort -n; }
# truth_total FILE NAME - "MS COUNT" summed over rank 0's threads.
truth_total() { truth "$1" "$2" | awk '{ m += $1; c += $2 } END { printf "%.3f %d\n", m, c }'; }

# expect_truth NAME "MS COUNT" rows "GOT" rows - hprof's times (ms) against
# the program's: both sorted ascending and paired (the sorted pairing is
# the closest of all pairings), each within the tolerance above.
expect_truth() {
    local name=$1 t g
    t=$(printf '%s\n' "$2" | awk 'NF' | sort -g | oneline)
    g=$(printf '%s\n' "$3" | awk 'NF' | sort -g | oneline)
    if awk -v t="$t" -v g="$g" -v r=$TRUTH_REL -v e=$TRUTH_EVENT_MS 'BEGIN {
            n = split(t, T, ";"); m = split(g, G, ";")
            if (n == 0 || n != m) exit 1
            for (i = 1; i <= n; i++) {
                split(T[i], f, " ")
                if (G[i] !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) exit 1
                d = G[i] - f[1]; if (d < 0) d = -d
                if (d > r * f[1] + e * f[2]) exit 1
            }
            exit 0 }'; then
        ok "$name"
    else
        notok "$name" "program measured (ms count) '$t', hprof '$g' (±${TRUTH_REL}x + ${TRUTH_EVENT_MS} ms/event)"
    fi
}

# expect_truth_range NAME "LO HI COUNT" rows "GOT" rows - row i of GOT
# between LO and HI of row i (same order), each bound with the tolerance.
expect_truth_range() {
    local name=$1 t g
    t=$(printf '%s\n' "$2" | awk 'NF' | oneline)
    g=$(printf '%s\n' "$3" | awk 'NF' | oneline)
    if awk -v t="$t" -v g="$g" -v r=$TRUTH_REL -v e=$TRUTH_EVENT_MS 'BEGIN {
            n = split(t, T, ";"); m = split(g, G, ";")
            if (n == 0 || n != m) exit 1
            for (i = 1; i <= n; i++) {
                split(T[i], f, " ")
                if (G[i] !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) exit 1
                if (G[i] < f[1] - r * f[1] - e * f[3] || G[i] > f[2] + r * f[2] + e * f[3]) exit 1
            }
            exit 0 }'; then
        ok "$name"
    else
        notok "$name" "program's bounds (lo hi count) '$t', hprof '$g' (±${TRUTH_REL}x + ${TRUTH_EVENT_MS} ms/event)"
    fi
}
