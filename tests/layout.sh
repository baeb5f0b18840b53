#!/bin/bash
# tests/layout.sh - the shape the code must keep (issue 9, one event
# boundary): event sources (libhprof/sources/, pmpi/) record only through
# the event boundary (libhprof/core/hp_event.h) and never touch the store's
# internals; the OpenMP sources share no weak flags (the core decides who
# records, hp_source.h); the end of run's snapshot only reads; the analyzer
# and the instrumenter link the codec, not the runtime; no source file is
# over 800 lines.  Each check names the first offending line.
# usage: tests/layout.sh [BUILDDIR]   (run from the build tree, srcdir below)
set -euo pipefail
builddir=$(cd "${1:-.}" && pwd)
srcdir=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
pass=0 fail=0
check() {
    if [ "$2" = "$3" ]; then echo "ok - $1"; pass=$((pass + 1));
    else echo "not ok - $1: expected '$2' got '$3'"; fail=$((fail + 1)); fi
}
cd "$srcdir"
# pmpi/wrappers.c and hp_mpi_ids.h are generated (in the build tree).
sources=(libhprof/sources/*.c libhprof/sources/*.h
         $(ls pmpi/*.c pmpi/*.h | grep -vE 'pmpi/(wrappers\.c|hp_mpi_ids\.h)$'))

# The store's internals: node and comm arrays, the tree, the context
# fields, the per-thread site cache, the site registry's links.
store='hp_node_add|hp_node_at|hp_cct_child|hp_comm_find|hp_comm_at|hp_active_of|\bsite_cache\b|\bt->(current|comm_ctx|team|task_acc|task_cur|task_fold|task_seq)\b|->callee *='
hits=$(grep -nE "$store" "${sources[@]}" | grep -vE '^\S+:[0-9]+:\s*(/?\*|//)' | head -3 || true)
check "sources use no store internals (record through hp_event.h)" "" "$hits"
hits=$(grep -nE '#include "hp_(thread|task|snapshot)\.h"' "${sources[@]}" | head -3 || true)
check "sources include the event boundary, not the store" "" "$hits"
check "no weak symbols between sources" "" \
    "$(grep -n '__attribute__((weak' libhprof/*/*.c libhprof/*/*.h pmpi/*.c | head -3 || true)"
check "every OpenMP source asks the core before recording" "gomp ompt pomp2 " \
    "$(for s in gomp ompt pomp2; do cat libhprof/sources/$s*.c libhprof/sources/hp_$s*.h 2>/dev/null |
        grep 'hp_omp_source_\(records\|claim\)' >/dev/null && printf '%s ' $s; done)"
check "the snapshot only reads (no event, no source call)" "" \
    "$(grep -nE 'hp_event_|hp_sources_|hp_thread_zero' libhprof/finish/snapshot.c | head -3 || true)"
check "one end-of-run pipeline (only finish.c takes snapshots)" "libhprof/finish/finish.c" \
    "$(grep -nE '\bhp_snapshot\(' libhprof/*/*.c pmpi/*.c | grep -v ':int hp_snapshot(' |
       cut -d: -f1 | sort -u | tr '\n' ' ' | sed 's/ $//')"
long=$(wc -l libhprof/core/*.[ch] libhprof/codec/*.[ch] libhprof/finish/*.[ch] "${sources[@]}" \
       analyzer/*.[ch] instrument/*.[ch] |
       awk '$2 != "total" && $1 > 800 { print $2 " " $1 }' | head -5 | tr '\n' ' ')
check "no source file over 800 lines" "" "$long"

cd "$builddir"
for prog in analyzer/hprof-query analyzer/hprof-merge analyzer/hprof-report instrument/hprof-instrument; do
    [ -x "$prog" ] || continue
    check "$prog links the codec without the runtime" "0" \
        "$(nm "$prog" | grep -cE ' [Tt] (hp_thread_attach|hp_snapshot|hp_event_team_begin)$' || true)"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
