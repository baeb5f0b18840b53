#!/bin/bash
# tests/dist.sh - the release tarball holds what a release needs (issue 27):
# every file git tracks is among the files `make distdir` copies, except
# the few that only a git checkout uses (listed below with the reason).  A
# new source, test program or page left out of EXTRA_DIST fails here at
# once, instead of in `make distcheck` or a user's build.  Skipped (77)
# outside a git checkout, e.g. in the tarball's own `make check`.
# usage: tests/dist.sh [BUILDDIR]   (from the build tree; srcdir in the env)
set -uo pipefail
builddir=$(cd "${1:-.}" && pwd)
srcdir=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$srcdir/tests/lib.sh"
test_tmpdir dist

# Tracked, but not for the tarball: CI's entry point and git's own file.
not_shipped='^(\.ci/run|\.gitignore)$'

# The top of a checkout (a tarball unpacked inside another checkout, as
# make distcheck does, is not one).
top=$(git -C "$srcdir" rev-parse --show-toplevel 2>/dev/null || true)
if [ -z "$top" ] || [ "$(cd "$top" && pwd -P)" != "$(cd "$srcdir" && pwd -P)" ]; then
    echo "dist: $srcdir is not the top of a git checkout: nothing to compare"
    exit 77
fi
git -C "$srcdir" ls-files | grep -vE "$not_shipped" | sort >"$tmp/git"

# make distdir into a directory of our own (not the one distcheck uses).
dist=$tmp/tree
if ! make -s -C "$builddir" distdir distdir="$dist" top_distdir="$dist" >"$tmp/make.log" 2>&1; then
    notok "make distdir runs" "$(tail -5 "$tmp/make.log" | oneline)"
    echo "dist: $pass passed, $fail failed"
    exit 1
fi
(cd "$dist" && find . -type f | sed 's|^\./||' | sort) >"$tmp/dist"

missing=$(comm -23 "$tmp/git" "$tmp/dist")
expect_eq "every file git tracks is in the tarball (else add it to EXTRA_DIST)" "" "$missing"
n=$(wc -l <"$tmp/git")
expect_cmp "the comparison saw the tracked files" gt 100 "$n"
echo "dist: $pass passed, $fail failed"
[ "$fail" = 0 ]
