# tests/mpi/lib.sh - what the MPI integration scripts share, sourced after
# tests/lib.sh with $MPIRUN, $QUERY and $tmp set: Open MPI's settings as
# root on 2 cores, the test programs and their plain builds
# (programs_ready), runs with and without hprof (hp_run, plain_run, ran_ok,
# same_stdout) and the queries of a site's records (comm_rows, comm_sum,
# node_count).

# Open MPI as root, 4 ranks on 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
MPIFLAGS=(--oversubscribe --bind-to none)
# 8 OpenMP threads on 2 cores: spinning threads would starve the others.
export OMP_WAIT_POLICY=passive

# comm_rows DB RANK MPI_NAME FILE LINES COLS [EXTRA_WHERE] - per-peer sums at a site.
comm_rows() {
    q "$1" "SELECT c.peer, $6 FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
            WHERE c.rank = $2 AND s.name = '$3' AND s.file LIKE '%$4' AND s.line IN ($5) ${7:-}
            GROUP BY c.peer ORDER BY c.peer"
}
# comm_sum DB RANK MPI_NAME FILE LINES EXPR - one aggregate over a site's comm records.
comm_sum() {
    q "$1" "SELECT coalesce($6, 0) FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site
            WHERE c.rank = $2 AND s.name = '$3' AND s.file LIKE '%$4' AND s.line IN ($5)"
}
# node_count DB RANK MPI_NAME FILE LINES - calls counted in the site's nodes.
node_count() {
    q "$1" "SELECT coalesce(sum(st.count), 0) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
            WHERE st.rank = $2 AND s.name = '$3' AND s.file LIKE '%$4' AND s.line IN ($5)"
}

# hp_run NAME NP CMD... - run under mpirun with the profile going to
# $tmp/NAME.hpf (or $HP_OUTPUT if set); stdout in $tmp/NAME.out, stderr in
# $tmp/NAME.err.  Sets PROFILE (the path the summary reports, else the
# requested one) and RC, and checks the profile's invariants (check_profile).
hp_run() {
    local name=$1 np=$2
    shift 2
    RC=0
    HPROF_OUTPUT=${HP_OUTPUT:-$tmp/$name.hpf} timeout 300 "$MPIRUN" -np "$np" "${MPIFLAGS[@]}" -x HPROF_OUTPUT -x OMP_WAIT_POLICY \
        "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || RC=$?
    PROFILE=$(sed -n 's/^hprof: profile written to \(.*[^ ]\) *$/\1/p' "$tmp/$name.err" | tail -1)
    [ -n "$PROFILE" ] || PROFILE=${HP_OUTPUT:-$tmp/$name.hpf}
    check_profile "$name" "$PROFILE"
}

# plain_run NAME NP CMD... - the same without hprof (no HPROF_OUTPUT).
plain_run() {
    local name=$1 np=$2
    shift 2
    RC=0
    timeout 300 "$MPIRUN" -np "$np" "${MPIFLAGS[@]}" -x OMP_WAIT_POLICY "$@" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null || RC=$?
}

# ran_ok NAME - the last run exited 0 and left a profile (else one failure, with its stderr).
ran_ok() {
    if [ "$RC" = 0 ] && [ -s "$PROFILE" ]; then
        return 0
    fi
    if [ "$RC" != 0 ]; then
        notok "$1 runs" "exit status $RC; stderr: $(tail -5 "$tmp/$1.err" | oneline)"
    else
        notok "$1 runs" "no profile at $PROFILE; stderr: $(tail -5 "$tmp/$1.err" | oneline)"
    fi
    return 1
}

# programs_ready PROG... - the in-tree test programs $T/PROG, hprof-query,
# mpicc and mpirun must be there (else one failure and exit 1); then each
# $S/PROG.c is built without hprof into $tmp/plain/PROG, for the checks
# that the program's output is the same with and without hprof.
programs_ready() {
    local f p missing=
    for f in "$QUERY" "${@/#/$T/}"; do
        [ -e "$f" ] || missing="$missing $f"
    done
    command -v "$MPICC" >/dev/null || missing="$missing $MPICC"
    command -v "$MPIRUN" >/dev/null || missing="$missing $MPIRUN"
    if [ -n "$missing" ]; then
        notok "prerequisites" "missing:$missing (build with 'make check' first)"
        echo "$pass passed, $fail failed"
        exit 1
    fi
    mkdir -p "$tmp/plain"
    for p in "$@"; do
        "$MPICC" -g -O1 -pthread "$S/$p.c" -o "$tmp/plain/$p" || notok "plain build of $p.c" "$MPICC failed"
    done
}

# same_stdout NAME REFERENCE_OUT OTHER_OUT - output identity with/without hprof.
same_stdout() {
    if cmp -s "$2" "$3"; then
        ok "$1"
    else
        notok "$1" "expected '$(oneline <"$2")' got '$(oneline <"$3")'"
    fi
}

# stmt_times ERR TAG - the ranks' own clock at a statement, from the lines
# "TAG: rank R arrived A s, left L s" a test program prints on stderr
# (CLOCK_MONOTONIC: one clock for the ranks of a node): "R A L" per rank.
stmt_times() {
    awk -v tag="$2: rank" 'index($0, tag) == 1 { n = split(substr($0, length(tag) + 2), f, " ");
        print f[1], f[3], f[6] }' "$1" | sort -n
}
# sync_bounds ERR TAG RANK PEER - "WAIT OWN" in ms from stmt_times: RANK's
# wait for PEER's arrival (PEER "last": the last rank's; 0 if PEER came
# first) and its own time in its statement, the bounds of the
# synchronization delay of what it received from PEER there.
sync_bounds() {
    stmt_times "$1" "$2" | awk -v r="$3" -v p="$4" '{ a[$1] = $2; l[$1] = $3; if (n++ == 0 || $2 > last) last = $2 }
        END { if (p == "last") a[p] = last
              if ((r in a) && (p in a)) { w = (a[p] - a[r]) * 1000; if (w < 0) w = 0
                  printf "%.3f %.3f\n", w, (l[r] - a[r]) * 1000 } }'
}
# expect_sync LABEL ERR TAG RANK PEER SYNC [TRAN] - the sync delay (s) of
# what RANK received from PEER at TAG's statement at least RANK's wait for
# PEER's arrival and at most RANK's time in the statement; its
# transmission (s), if given, at most that time less the wait (the ranks'
# own clock; tests/truth.sh's tolerance).
expect_sync() {
    local w o who="rank $5's"
    [ "$5" != last ] || who="the last rank's"
    read -r w o <<<"$(sync_bounds "$2" "$3" "$4" "$5")"
    expect_truth_range "$1: sync delay between the wait for $who arrival and the time in the statement (program's clock, ms)" \
        "${w:-0} ${o:-0} 1" "$(awk -v s="$6" 'BEGIN { printf "%.3f", s * 1000 }')"
    [ -z "${7:-}" ] ||
        expect_truth_range "$1: transmission at most the time in the statement less that wait (ms)" \
            "0 $(awk -v w="${w:-0}" -v o="${o:-0}" 'BEGIN { printf "%.3f", o - w }') 1" \
            "$(awk -v s="$7" 'BEGIN { printf "%.3f", s * 1000 }')"
}
