#!/bin/bash
# scripts/build.sh - build and install hprof from this source tree:
# missing packages (scripts/deps.sh), autoreconf only when the autotools
# inputs changed, configure (--prefix=/usr/local) only when needed, make -j2,
# then make install + ldconfig only when something was rebuilt.  Idempotent:
# a second run does nothing but a quick `make`.
# Env: PREFIX (default /usr/local), JOBS (default 2), HPROF_NO_INSTALL=1.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
prefix=${PREFIX:-/usr/local}
jobs=${JOBS:-2}

bash scripts/deps.sh

# newer_than REF FILE... - true if REF is missing or any FILE is newer.
newer_than() {
    local ref=$1 f
    shift
    [ -e "$ref" ] || return 0
    for f in "$@"; do
        [ -e "$f" ] && [ "$f" -nt "$ref" ] && return 0
    done
    return 1
}

shopt -s nullglob
am_inputs=(configure.ac Makefile.am ./*/local.mk ./*/*/local.mk)
shopt -u nullglob

if newer_than configure "${am_inputs[@]}" || newer_than Makefile.in "${am_inputs[@]}"; then
    echo "build: autoreconf -fi"
    mkdir -p m4
    autoreconf -fi
fi
if [ ! -e Makefile ] || newer_than config.status configure; then
    echo "build: ./configure --prefix=$prefix"
    ./configure -q --prefix="$prefix"
fi

echo "build: make -j$jobs"
make -j"$jobs"

if [ "${HPROF_NO_INSTALL:-0}" = 1 ]; then
    exit 0
fi
# Install when anything under the built directories changed since the last
# install (stamp under _build/, which git ignores) or the library is absent.
stamp=_build/install.stamp
mkdir -p _build
if [ ! -e "$stamp" ] || [ ! -e "$prefix/lib/libhprof.so" ] ||
    [ -n "$(find libhprof pmpi analyzer instrument hprof.pc config.status -newer "$stamp" -type f -print -quit 2>/dev/null)" ]; then
    echo "build: make install (prefix $prefix)"
    make install >_build/install.log 2>&1 || { cat _build/install.log; exit 1; }
    command -v ldconfig >/dev/null && ldconfig 2>/dev/null || /sbin/ldconfig || true
    touch "$stamp"
else
    echo "build: install in $prefix is up to date"
fi
