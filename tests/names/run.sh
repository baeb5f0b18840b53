#!/bin/bash
# tests/names/run.sh - profile names and hprof's own stderr (issue 25
# items 4 and 5), with tests/names/serial.c and mpi.c (their headers state
# the ground truth):
#   - stderr is the program's own: under HPROF_SUMMARY=off, two runs of the
#     same program started in the same second (serial, tier 1; MPI, 2 ranks
#     under mpirun) each write stderr byte-identical to the plain program's,
#     and two profiles with distinct default names, each with its records;
#   - the summary's "drill down with" line quotes its path: a shell reading
#     it gets the path back (a space and a quote in it);
#   - two dying runs (MPI_Abort on rank 1 of 2) with one HPROF_OUTPUT keep
#     apart: the second's files are NAME.1.rank<N>.hpf; their directory
#     makes the user choose (one line naming both runs and how to pick
#     one, exit status 1); each run's files merge into both ranks' records.
# Every profile passes --check.
#
# usage: tests/names/run.sh [BUILDDIR]   (HPROF_KEEP_TMP=1 keeps the temp dir)
set -uo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=$(cd "${1:-.}" && pwd)
CC=${CC:-gcc}
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
LIBDIR=$builddir/pmpi/.libs
QUERY=$builddir/analyzer/hprof-query
S=$srcdir/tests/names
. "$srcdir/tests/lib.sh"
. "$srcdir/tests/mpi/lib.sh"
test_tmpdir names
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_WAIT_POLICY=passive HPROF_SUMMARY=off
unset HPROF_OUTPUT HPROF_FILTER HPROF_TIER

require_built "$QUERY" "$LIBDIR/libhprof.so"
LINK="-L$LIBDIR -lhprof -Wl,-rpath,$LIBDIR"
mkdir -p "$tmp/bin"
"$CC" -g -O1 "$S/serial.c" -o "$tmp/bin/serial.plain" &&
    "$CC" -g -O1 -finstrument-functions "$S/serial.c" -o "$tmp/bin/serial" $LINK &&
    "$MPICC" -g -O1 "$S/mpi.c" -o "$tmp/bin/mpi.plain" &&
    "$MPICC" -g -O1 "$S/mpi.c" -o "$tmp/bin/mpi" $LINK 2>"$tmp/build.err" ||
    notok "builds" "$(head -3 "$tmp/build.err" | oneline)"
STEPS=$(awk '$1 == "#define" && $2 == "STEPS" { print $3 }' "$S/serial.c")

mpi() { "$MPIRUN" -np 2 "${MPIFLAGS[@]}" -x HPROF_SUMMARY -x OMP_WAIT_POLICY "$@"; }
(cd "$tmp" && ./bin/serial.plain >serial.plain.out 2>serial.plain.err)
(cd "$tmp" && mpi ./bin/mpi.plain >mpi.plain.out 2>mpi.plain.err)

# twice NAME CMD... - two runs of CMD started together in $tmp/NAME (their
# stdout and stderr in NAME.1.* and NAME.2.*); up to 3 tries until both
# default names carry the same second.
twice() {
    local name=$1 d=$tmp/$1 try
    shift
    for try in 1 2 3; do
        rm -rf "$d" && mkdir -p "$d"
        (cd "$d" && "$@" >../$name.1.out 2>../$name.1.err) &
        (cd "$d" && "$@" >../$name.2.out 2>../$name.2.err) &
        wait
        [ "$(ls "$d" | sed 's/-[0-9]*\.hpf$//' | sort -u | wc -l)" = 1 ] && break
    done
}

# same_second_checks NAME PLAIN STEPS-SQL EXPECTED - the two runs' output
# and profiles.
same_second_checks() {
    local name=$1 plain=$2 f n=0
    for i in 1 2; do
        if cmp -s "$tmp/$plain.err" "$tmp/$name.$i.err" && cmp -s "$tmp/$plain.out" "$tmp/$name.$i.out"; then
            ok "$name run $i: stdout and stderr byte-identical to the plain program's"
        else
            notok "$name run $i: stdout and stderr byte-identical to the plain program's" \
                "stderr '$(head -3 "$tmp/$name.$i.err" | oneline)'"
        fi
    done
    expect_eq "$name: two profiles of the same second, named apart" 2 \
        "$(ls "$tmp/$name" | grep -cE "^hprof-$name-[0-9]{8}-[0-9]{6}-[0-9]+\.hpf$")"
    for f in "$tmp/$name"/*.hpf; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        check_profile "$name profile $n" "$f"
        expect_eq "$name profile $n: $3" "$4" "$(q "$f" "$5")"
    done
}

twice serial ../bin/serial
same_second_checks serial serial.plain "step() calls" "$STEPS" \
    "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
     WHERE s.kind = 'procedure' AND s.name = 'step'"
twice mpi mpi ../bin/mpi
same_second_checks mpi mpi.plain "MPI_Barrier calls (one per rank)" 2 \
    "SELECT sum(st.count) FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site
     WHERE s.name = 'MPI_Barrier'"

# The drill-down line, read by a shell, gives back the path.
odd="$tmp/a dir/it's"
mkdir -p "$tmp/a dir"
(cd "$tmp" && HPROF_SUMMARY=on HPROF_OUTPUT="$odd.hpf" ./bin/serial >/dev/null 2>quote.err)
line=$(sed -n 's/^hprof: drill down with: hprof-query //p' "$tmp/quote.err")
eval "set -- $line" 2>/dev/null || set -- "(not a shell word: $line)"
expect_eq "drill-down line: one shell word, the profile's path" "1:$odd.hpf" "$#:$1"

# Two dying runs with one HPROF_OUTPUT.
mkdir -p "$tmp/job"
for run in 1 2; do
    (cd "$tmp" && HPROF_OUTPUT=$tmp/job/job.hpf mpi -x HPROF_OUTPUT ./bin/mpi abort \
        >"$tmp/abort.$run.out" 2>"$tmp/abort.$run.err")
done
expect_eq "two dying runs: the second's files named apart" \
    "job.1.rank0.hpf job.1.rank1.hpf job.rank0.hpf job.rank1.hpf" "$(cd "$tmp/job" && echo *.hpf)"
rc=0
"$QUERY" "$tmp/job" >"$tmp/dir.out" 2>"$tmp/dir.err" || rc=$?
expect_eq "a directory with two runs: refused, one line" "1:1" "$rc:$(wc -l <"$tmp/dir.err")"
expect_eq "a directory with two runs: both named, and how to pick one" 1 \
    "$(grep -E "[ (]job\.hpf" "$tmp/dir.err" | grep -E "[ (]job\.1\.hpf" | grep -cE "hprof-query \S*job(\.1)?\.rank\*\.hpf")"
for stem in job job.1; do
    files=("$tmp/job/$stem".rank*.hpf)
    if out=$("$QUERY" "${files[@]}" --check 2>&1); then ok "run $stem: profile invariants hold"; else
        notok "run $stem: profile invariants" "$(printf '%s\n' "$out" | head -3 | oneline)"; fi
    expect_eq "run $stem: both ranks' records merged (MPI_Barrier once per rank)" "0,1;1,1" \
        "$("$QUERY" "${files[@]}" --sql "SELECT st.rank, sum(st.count) FROM stat st JOIN node n ON n.id = st.node
               JOIN site s ON s.id = n.site WHERE s.name = 'MPI_Barrier' GROUP BY st.rank ORDER BY 1" \
               --format csv 2>/dev/null | tail -n +2 | oneline)"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
