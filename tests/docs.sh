#!/bin/bash
# tests/docs.sh - the documentation does not rot (issue 27): every relative
# link of README.md and docs/*.md points to a file that exists (and, with
# #anchor, to one of its headings); every fenced ```sh example of those
# files runs against this build tree and exits 0.  The examples of one file
# run in order in one fresh directory that holds examples/ (the source
# tree's) and app.c, app.cpp, app.f90, small MPI programs of the tree that
# stand for "your program" (examples/jacobi.c, tests/cxx/prog.cpp,
# tests/fortran/halo.f90).  An example that cannot run on a CI machine is
# marked with the line "<!-- docs-test: skip (why) -->" right before its
# fence, or right after its closing fence.  A failure names FILE:LINE of
# the command that failed and the end of its output.
# usage: tests/docs.sh [BUILDDIR]   (from the build tree; srcdir in the env)
# Env: HPROF_DOCS_ONLY=FILE runs the examples of that file only.
set -uo pipefail
builddir=$(cd "${1:-.}" && pwd)
srcdir=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
PY=${PYTHON3:-python3}
. "$srcdir/tests/lib.sh"
test_tmpdir docs

cd "$srcdir"
docs=(README.md docs/*.md)

# extract.py: the links and the sh blocks of the markdown files, as lines
# "link FILE LINE TARGET" (relative targets only, resolved to a path from
# the top, #anchor kept), "anchor FILE SLUG" (GitHub's slug of every
# heading), and "block FILE LINE SKIP" with the block's text in
# $tmp/blocks/N.sh (N counts from 1).
cat >"$tmp/extract.py" <<'EOF'
import os, re, sys
out_dir = sys.argv[1]
n = 0
def slug(text):
    text = re.sub(r'[^\w\- ]', '', text.strip().lower())
    return text.replace(' ', '-')
for path in sys.argv[2:]:
    lines = open(path, encoding='utf-8').read().split('\n')
    fence, start, seen = None, 0, {}
    for i, line in enumerate(lines, 1):
        if fence is not None:
            if re.match(r'^```+\s*$', line):
                if fence == 'sh':
                    before = lines[start - 2].strip() if start >= 2 else ''
                    after = lines[i].strip() if i < len(lines) else ''
                    skip = int('docs-test: skip' in before or 'docs-test: skip' in after)
                    n += 1
                    open(os.path.join(out_dir, '%d.sh' % n), 'w').write(
                        '\n'.join(lines[start:i - 1]) + '\n')
                    print('block', path, start, skip)
                fence = None
            continue
        m = re.match(r'^```+([^`]*)$', line)   # CommonMark: no ` in the info
        if m:
            fence, start = m.group(1).strip(), i
            continue
        m = re.match(r'^#+ (.*)', line)
        if m:
            s = slug(m.group(1).replace('`', ''))
            k = seen.get(s, 0)
            seen[s] = k + 1
            print('anchor', path, s if k == 0 else '%s-%d' % (s, k))
        for target in re.findall(r'\]\(([^)\s]+)\)', re.sub(r'`[^`]*`', '', line)):
            if re.match(r'^[a-z]+:', target):
                continue
            file, _, anchor = target.partition('#')
            full = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            print('link', path, i, full + ('#' + anchor if anchor else ''))
EOF
mkdir -p "$tmp/blocks"
if ! "$PY" "$tmp/extract.py" "$tmp/blocks" "${docs[@]}" >"$tmp/index"; then
    notok "the markdown files can be read" "$PY failed on ${docs[*]}"
    echo "docs: $pass passed, $fail failed"
    exit 1
fi

# Links: the file exists; an #anchor is a heading of that file.
bad=
while read -r kind file line target; do
    [ "$kind" = link ] || continue
    path=${target%%#*}
    if [ ! -e "$path" ]; then
        bad+="$file:$line: $target: no such file; "
    elif [ "$path" != "$target" ]; then
        anchor=${target#*#}
        grep -qxF "anchor $path $anchor" "$tmp/index" ||
            bad+="$file:$line: $target: no heading with that anchor in $path; "
    fi
done <"$tmp/index"
nlinks=$(grep -c '^link ' "$tmp/index")
if [ -z "$bad" ]; then ok "the $nlinks relative links of README.md and docs/ lead to a file and heading"
else notok "relative links of README.md and docs/" "$bad"; fi

# The README opens with the two set-up commands (CI and the guide say so).
expect_eq "README.md opens with examples/demo.sh and tests/check.sh" \
    '```sh;examples/demo.sh;tests/check.sh' \
    "$(head -3 README.md | awk '{ print $1 }')"

# Examples: the build tree's commands first in PATH, its library found by
# the compilers and the loader, Open MPI allowed to run as root.
if [ ! -e "$builddir/pmpi/.libs/libhprof.so" ] || ! command -v mpicc >/dev/null; then
    skipped "the sh examples run" "no MPI build in $builddir"
    echo "docs: $pass passed, $fail failed"
    [ "$fail" = 0 ]
    exit
fi
mkdir -p "$tmp/bin"
for cmd in analyzer/hprof-query analyzer/hprof-merge analyzer/hprof-report \
    instrument/hprof-instrument instrument/hprof-cc instrument/hprof-*cc \
    instrument/hprof-clang* instrument/hprof-g++ instrument/hprof-mpicxx \
    instrument/hprof-gfortran instrument/hprof-mpif90 instrument/hprof-mpifort; do
    [ -x "$builddir/$cmd" ] && ln -sf "$builddir/$cmd" "$tmp/bin/"
done
export PATH=$tmp/bin:$PATH HPROF_BUILDDIR=$builddir HPROF_SRCDIR=$srcdir
export LIBRARY_PATH=$builddir/pmpi/.libs${LIBRARY_PATH:+:$LIBRARY_PATH}
export LD_LIBRARY_PATH=$builddir/pmpi/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CPATH=$srcdir/libhprof${CPATH:+:$CPATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
export OMP_WAIT_POLICY=passive
unset HPROF_OUTPUT HPROF_FILTER HPROF_TIER HPROF_KEEP HPROF_COUNTERS HPROF_SUMMARY

# workdir FILE - the fresh directory of FILE's examples, with its fixtures.
workdir() {
    local dir=$tmp/run/${1//\//_}
    if [ ! -d "$dir" ]; then
        mkdir -p "$dir"
        ln -s "$srcdir/examples" "$dir/examples"
        cp "$srcdir/examples/jacobi.c" "$dir/app.c"
        cp "$srcdir/tests/cxx/prog.cpp" "$dir/app.cpp"
        cp "$srcdir/tests/fortran/halo.f90" "$dir/app.f90"
    fi
    echo "$dir"
}

n=0 ran=0 skips=0
while read -r kind file line skip; do
    [ "$kind" = block ] || continue
    n=$((n + 1))
    if [ -n "${HPROF_DOCS_ONLY:-}" ] && [ "$file" != "$HPROF_DOCS_ONLY" ]; then continue; fi
    if [ "$skip" = 1 ]; then skips=$((skips + 1)); continue; fi
    dir=$(workdir "$file")
    # One line before the block's text, so that its line k is line k + 1.
    { echo 'trap '\''echo "docs-failed-line: $LINENO" >&2'\'' ERR'
      cat "$tmp/blocks/$n.sh"; } >"$tmp/blocks/$n.run"
    ran=$((ran + 1))
    if (cd "$dir" && timeout 300 bash -e -o pipefail "$tmp/blocks/$n.run") \
        </dev/null >"$tmp/blocks/$n.out" 2>&1; then
        ok "$file:$line: the example runs"
    else
        rc=$?
        at=$(sed -n 's/^docs-failed-line: //p' "$tmp/blocks/$n.out" | tail -1)
        where=$file:$((line + ${at:-1} - 1))
        notok "$where: the example fails (exit $rc)" \
            "$(sed -n "${at:-1}p" "$tmp/blocks/$n.run"): $(grep -v '^docs-failed-line' "$tmp/blocks/$n.out" | tail -5 | oneline)"
    fi
done <"$tmp/index"
echo "# $ran examples run, $skips marked docs-test: skip"
echo "docs: $pass passed, $fail failed"
[ "$fail" = 0 ]
