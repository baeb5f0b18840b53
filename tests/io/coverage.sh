#!/bin/bash
# tests/io/coverage.sh - the MPI-3.1 coverage fragment of docs/mpi.md is
# generated: it must be exactly what `pmpi/gen_wrappers.py --coverage` computes from
# pmpi/mpi_spec.txt and pmpi/mpi31_functions.txt, so a spec change that is
# not followed by `--update-readme` fails here.  Also checks that the
# fragment states a count (of C functions, and of those whose Fortran
# bindings are wrapped too), and that the generator rejects a spec naming a
# function twice (the coverage would count it twice) or a fortran_excluded
# line that matches nothing.  No MPI needed.
#
# usage: tests/io/coverage.sh [BUILDDIR]   (the sources are found next to
# this script).  Prints ok/not ok lines and "N passed, M failed".
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PY=${PYTHON3:-python3}
GEN=$srcdir/pmpi/gen_wrappers.py
SPEC=$srcdir/pmpi/mpi_spec.txt
LIST=$srcdir/pmpi/mpi31_functions.txt
QUERY=true
. "$srcdir/tests/lib.sh"
test_tmpdir coverage

if ! "$PY" "$GEN" --coverage "$SPEC" "$LIST" >"$tmp/want.md" 2>"$tmp/gen.err"; then
    notok "gen_wrappers.py --coverage runs" "$(oneline <"$tmp/gen.err")"
fi
begin=$(head -1 "$tmp/want.md")
end=$(tail -1 "$tmp/want.md")
awk -v b="$begin" -v e="$end" '$0 == b { on = 1 } on { print } on && $0 == e { exit }' \
    "$srcdir/docs/mpi.md" >"$tmp/have.md"
if cmp -s "$tmp/want.md" "$tmp/have.md"; then
    ok "docs/mpi.md's coverage fragment is what the generator computes from the spec"
else
    notok "docs/mpi.md's coverage fragment is what the generator computes from the spec" \
        "run: $PY pmpi/gen_wrappers.py --update-readme pmpi/mpi_spec.txt pmpi/mpi31_functions.txt docs/mpi.md; diff: $(diff "$tmp/want.md" "$tmp/have.md" | head -6 | oneline)"
fi
line=$(grep -m1 '^\*\*MPI-3.1 coverage: ' "$tmp/want.md" || true)
if [[ $line =~ ^\*\*MPI-3\.1\ coverage:\ ([0-9]+)\ of\ the\ ([0-9]+)\ C\ functions ]]; then
    expect_eq "the coverage line counts the functions of the MPI-3.1 list" \
        "$(grep -c '^MPI_' "$LIST")" "${BASH_REMATCH[2]}"
    expect_cmp "at least 280 functions are wrapped" ge 280 "${BASH_REMATCH[1]}"
else
    notok "the coverage line states 'N of the M C functions'" "got '$line'"
fi
{ cat "$SPEC"; grep '^MPI_Comm_rank ' "$SPEC"; } >"$tmp/dup.txt"
if "$PY" "$GEN" --coverage "$tmp/dup.txt" "$LIST" >/dev/null 2>"$tmp/dup.err"; then
    notok "a function named twice in the spec is an error" "accepted"
else
    expect_eq "a function named twice in the spec is an error" 1 \
        "$(grep -c "dup.txt:[0-9]*: MPI_Comm_rank is already specified at .*dup.txt:[0-9]*" "$tmp/dup.err")"
fi

line=$(grep -m1 '^\*\*Fortran:\*\* ' "$tmp/want.md" || true)
if [[ $line =~ ^\*\*Fortran:\*\*\ ([0-9]+)\ of\ these\ ([0-9]+)\ functions ]]; then
    expect_cmp "at least 320 functions have their Fortran bindings wrapped" ge 320 "${BASH_REMATCH[1]}"
    expect_eq "the Fortran sentence counts every wrapped function" \
        "$(awk -F'|' '/^MPI_/ { k = $2; gsub(/ /, "", k); if (k != "excluded" && k != "fortran_excluded") n++ }
                      END { print n }' "$SPEC")" "${BASH_REMATCH[2]}"
else
    notok "the coverage fragment states 'N of these M functions' for Fortran" "got '$line'"
fi
{ cat "$SPEC"; echo 'MPI_Nothing_* | fortran_excluded | | matches no function'; } >"$tmp/fex.txt"
if "$PY" "$GEN" --coverage "$tmp/fex.txt" "$LIST" >/dev/null 2>"$tmp/fex.err"; then
    notok "a fortran_excluded line that matches no wrapped function is an error" "accepted"
else
    expect_eq "a fortran_excluded line that matches no wrapped function is an error" 1 \
        "$(grep -c "fex.txt:[0-9]*: MPI_Nothing_\* matches no wrapped function" "$tmp/fex.err")"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
