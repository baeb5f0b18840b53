#!/bin/bash
# scripts/deps.sh - install the Debian packages hprof needs to build, test and
# run its demo, but only those missing: when everything is present it makes no
# apt call at all.  Run it (bash scripts/deps.sh) or source it; used by
# scripts/build.sh, examples/demo.sh and tests/check.sh.
set -euo pipefail

hprof_deps() {
    local pkgs=(build-essential gfortran autoconf automake libtool pkg-config python3
        openmpi-bin libopenmpi-dev libpapi-dev libunwind-dev libsqlite3-dev sqlite3 libedit-dev
        libcmocka-dev libdw-dev libelf-dev clang libclang-dev llvm-dev libomp-dev opari2
        libxml2-utils help2man)
    local missing=() p sudo=()
    for p in "${pkgs[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -c 'install ok installed' >/dev/null; then
            missing+=("$p")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        echo "deps: all ${#pkgs[@]} packages present"
        return 0
    fi
    [ "$(id -u)" = 0 ] || sudo=(sudo)
    echo "deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -q </dev/null
    "${sudo[@]}" apt-get install -y -q "${missing[@]}" </dev/null
}

# The headless browser of tests/report/run.sh: wanted, not needed (the
# test skips without it), so a failed install (no network) is only said.
hprof_optional_deps() {
    local p=chromium sudo=()
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -c 'install ok installed' >/dev/null; then
        return 0
    fi
    [ "$(id -u)" = 0 ] || sudo=(sudo)
    echo "deps: installing $p (optional)"
    export DEBIAN_FRONTEND=noninteractive
    if ! { "${sudo[@]}" apt-get update -q && "${sudo[@]}" apt-get install -y -q "$p"; } </dev/null; then
        echo "deps: $p could not be installed; tests/report/run.sh will skip"
    fi
}

hprof_deps
hprof_optional_deps
