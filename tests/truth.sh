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

# truth FILE NAME - rank 0's threads: "MS COUNT DELAY_MS" per thread, by
# thread number (DELAY_MS: truth.h's, empty in older files).
truth() {
    [ -s "$1" ] || return 0
    awk -v n="$2" '$1 == 0 && $3 == n { print $2, $4, $5, $6 }' "$1" | sort -n | awk '{ print $2, $3, $4 }'
}
# truth_by FILE NAME THREAD - rank 0's "MS COUNT" of one thread.
truth_by() {
    [ -s "$1" ] || return 0
    awk -v n="$2" -v t="$3" '$1 == 0 && $3 == n && $2 == t { print $4, $5 }' "$1"
}
# truth_counts FILE NAME - the event counts of rank 0's threads, ascending.
truth_counts() { truth "$1" "$2" | awk '{ print $2 }' | sort -n; }
# truth_total FILE NAME - "MS COUNT" summed over rank 0's threads.
truth_total() { truth "$1" "$2" | awk '{ m += $1; c += $2; d += $3 } END { printf "%.3f %d %.3f\n", m, c, d }'; }

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

# expect_truth_watched NAME BOUND "MS COUNT DELAY" rows "GOT" rows -
# expect_truth for events whose program watched its thread's time
# waiting for a CPU in the gaps between its clock reads and hprof's
# probes (DELAY ms, truth.h's truth_add_delayed): preemption there moves
# one clock and not the other, in one direction.  BOUND "le" for a wait
# (hprof's probes lie inside the program's window: hprof may be short by
# up to DELAY), "ge" for a hold (the program's reads lie inside hprof's
# probes: hprof may be long by up to DELAY).  Rows are paired sorted; as
# the bounds hold per thread, they hold between the k-th smallest of
# each, with the largest DELAY.
expect_truth_watched() {
    local name=$1 bound=$2 t g
    t=$(printf '%s\n' "$3" | awk 'NF' | sort -g | oneline)
    g=$(printf '%s\n' "$4" | awk 'NF' | sort -g | oneline)
    if awk -v t="$t" -v g="$g" -v b="$bound" -v r=$TRUTH_REL -v e=$TRUTH_EVENT_MS 'BEGIN {
            n = split(t, T, ";"); m = split(g, G, ";")
            if (n == 0 || n != m || (b != "le" && b != "ge")) exit 1
            d = 0
            for (i = 1; i <= n; i++) { split(T[i], f, " "); if (f[3] > d) d = f[3] }
            for (i = 1; i <= n; i++) {
                split(T[i], f, " ")
                if (G[i] !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) exit 1
                tol = r * f[1] + e * f[2]
                lo = f[1] - tol - (b == "le" ? d : 0)
                hi = f[1] + tol + (b == "ge" ? d : 0)
                if (G[i] < lo || G[i] > hi) exit 1
            }
            exit 0 }'; then
        ok "$name"
    else
        notok "$name" "program measured (ms count cpu-wait) '$t', hprof '$g' (±${TRUTH_REL}x + ${TRUTH_EVENT_MS} ms/event, and the cpu wait $([ "$bound" = le ] && echo below || echo above))"
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

# The checks the scripts share (they need q and OMPJOIN of tests/lib.sh).
#
# truth_imbalance LABEL DB TRUTH FILE LINE NT REPS - imbalance.c's region
# at FILE:LINE per thread of rank 0: region less its implicit barrier = the
# iterations the program timed; the barrier between the least and the
# most wait the program saw (threads paired by their work, k x STEP x
# REPS); the master's fork + region + join = its time around the pragma.
truth_imbalance() {
    local label=$1 db=$2 tr=$3 file=$4 line=$5 nt=$6 reps=$7 rows k
    expect_eq "$label: the program timed $reps iterations on each of $nt threads" \
        "$(for ((k = 0; k < nt; k++)); do echo "$reps"; done)" "$(truth_counts "$tr" work)"
    rows=$(q "$db" "SELECT round((r - b) * 1000, 3), round(b * 1000, 3) FROM (SELECT
            sum(CASE WHEN s.name = 'parallel' THEN st.time ELSE 0 END) AS r,
            sum(CASE WHEN s.name = 'implicit barrier' THEN st.time ELSE 0 END) AS b
            $OMPJOIN WHERE st.rank = 0 AND s.kind = 'omp' AND s.name IN ('parallel', 'implicit barrier')
            AND s.file LIKE '%/$file' AND s.line = $line GROUP BY st.thread) ORDER BY 1")
    expect_truth "$label: per thread, region less its implicit barrier = its iterations as the program timed them" \
        "$(truth "$tr" work)" "$(cut -d, -f1 <<<"$rows")"
    expect_truth_range "$label: per thread, implicit barrier wait between the end of the team's last iteration and the master's return (program's clock)" \
        "$(for ((k = 0; k < nt; k++)); do
            echo "$(truth_by "$tr" work $k | cut -d' ' -f1) $(truth_by "$tr" barrier_lo $k) $(truth_by "$tr" barrier_hi $k)"
        done | sort -g | awk '{ print $2, $4, $5 }')" "$(cut -d, -f2 <<<"$rows")"
    expect_truth "$label: the master's fork + region + join = its time from the pragma to after the region (program)" \
        "$(truth "$tr" wall)" "$(q "$db" "SELECT round(sum(st.time) * 1000, 3) $OMPJOIN WHERE st.rank = 0
            AND s.kind = 'omp' AND s.name IN ('parallel', 'fork', 'join') AND s.file LIKE '%/$file' AND s.line = $line
            AND st.thread IN (SELECT st.thread $OMPJOIN WHERE s.kind = 'omp' AND s.name = 'fork'
                              AND s.file LIKE '%/$file' AND s.line = $line)")"
}

# truth_times DB FILE NAME LINE - the times (ms) of construct NAME at
# FILE:LINE per record of rank 0, ascending.
truth_times() {
    q "$1" "SELECT round(st.time * 1000, 3) $OMPJOIN WHERE st.rank = 0 AND s.kind = 'omp'
            AND s.name = '$3' AND s.file LIKE '%/$2' AND s.line = $4 ORDER BY 1"
}

# truth_hold LABEL DB TRUTH FILE NAME LINE Q NT HOLD - construct NAME
# ("critical", "lock") at FILE:LINE: once per thread of rank 0, its wait
# and hold against the program's quantities Q_wait and Q_hold (critical.c's
# header); the holds, spins of HOLD ms of wall time, >= NT x HOLD in all
# (load lengthens a hold, never shortens it).
truth_hold() {
    local label=$1 db=$2 tr=$3 file=$4 name=$5 line=$6 qn=$7 nt=$8 hold=$9 k
    expect_eq "$label: the program timed one $name wait and hold on each of $nt threads" \
        "$(for ((k = 0; k < 2 * nt; k++)); do echo 1; done)" \
        "$(truth_counts "$tr" "${qn}_wait"; truth_counts "$tr" "${qn}_hold")"
    expect_truth_watched "$label: $name wait per thread = the program's time from before it to inside it" \
        le "$(truth "$tr" "${qn}_wait")" "$(truth_times "$db" "$file" "$name wait" "$line")"
    expect_truth_watched "$label: $name hold per thread = the program's time inside it" \
        ge "$(truth "$tr" "${qn}_hold")" "$(truth_times "$db" "$file" "$name" "$line")"
    expect_cmp "$label: total $name hold >= $nt x HOLD = $((nt * hold)) ms" ge $((nt * hold)) \
        "$(truth_times "$db" "$file" "$name" "$line" | awk '{ s += $1 } END { printf "%.3f\n", s }')"
}
