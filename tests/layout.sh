#!/bin/bash
# tests/layout.sh - the shape the code must keep (issue 9, one event
# boundary): event sources (libhprof/sources/, pmpi/) record only through
# the event boundary (libhprof/core/hp_event.h) and never touch the store's
# internals; the OpenMP sources share no weak flags (the core decides who
# records, hp_source.h); the end of run's snapshot only reads; the analyzer
# and the instrumenter link the codec, not the runtime; the analyzer's
# folders include one way (bin -> render -> query -> db -> read, see
# analyzer/local.mk); no source file is over 800 lines; no script under
# pipefail tests 'producer | grep -q'.  Each check names
# the first offending line.
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

# The analyzer's layers (issue 26): each folder includes only the folders
# below it, their headers by folder ("db/db.h"), its own by bare name.
layers="read db query render bin"
declare -A may=([read]="" [db]="read" [query]="db read" [render]="query db read"
                [bin]="render query db read")
check "every analyzer source sits in a layer folder" "" \
    "$(ls analyzer/*.[ch] 2>/dev/null | head -3 | tr '\n' ' ')$(for d in analyzer/*/; do
        d=${d#analyzer/}; d=${d%/}; [[ " $layers " == *" $d "* ]] ||
        ls analyzer/"$d"/*.[ch] 2>/dev/null | head -1; done | tr '\n' ' ')"
bad=""
while IFS= read -r hit; do
    file=${hit%%:*}; dir=${file#analyzer/}; dir=${dir%%/*}
    inc=$(sed -E 's/^[^:]*:[0-9]+:[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/' <<<"$hit")
    if [[ $inc == */* ]]; then
        to=${inc%%/*}
        [[ " $layers " == *" $to "* ]] || continue          # not the analyzer's
        [[ " ${may[$dir]} " == *" $to "* ]] && [ -e "analyzer/$inc" ] && continue
    else
        [ -e "analyzer/$dir/$inc" ] && continue               # its own folder
        ls analyzer/*/"$inc" >/dev/null 2>&1 || continue      # codec, config.h
    fi
    bad=$hit; break
done < <(grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' analyzer/*/*.[ch])
check "analyzer folders include one way (bin > render > query > db > read)" "" "$bad"

long=$(wc -l libhprof/core/*.[ch] libhprof/codec/*.[ch] libhprof/finish/*.[ch] "${sources[@]}" \
       analyzer/*/*.[ch] instrument/*.[ch] |
       awk '$2 != "total" && $1 > 800 { print $2 " " $1 }' | head -5 | tr '\n' ' ')
check "no source file over 800 lines" "" "$long"

# A script under pipefail never ends a condition with 'producer | grep -q':
# grep -q exits at its first match, the producer may die of SIGPIPE, and
# the condition turns false (the CI failure of tests/instrument/run.sh's
# 'ldd ... | grep -q libasan'); 'grep -c ... >/dev/null' reads it all.
quiet=$(for f in $(git ls-files '*.sh' 2>/dev/null || find tests bench scripts examples -name '*.sh'); do
            if [ "$f" != tests/layout.sh ] && grep -c 'pipefail' "$f" >/dev/null; then
                grep -nE '[^|]\|[[:space:]]*grep[[:space:]]+-[A-Za-z]*q' "$f" |
                    grep -vE '^[0-9]+:[[:space:]]*#' | sed "s|^|$f:|" || true
            fi
        done | head -3 | tr '\n' ' ' || true)
check "no 'producer | grep -q' in a script under pipefail" "" "$quiet"

cd "$builddir"
for prog in analyzer/hprof-query analyzer/hprof-merge analyzer/hprof-report instrument/hprof-instrument; do
    [ -x "$prog" ] || continue
    check "$prog links the codec without the runtime" "0" \
        "$(nm "$prog" | grep -cE ' [Tt] (hp_thread_attach|hp_snapshot|hp_event_team_begin)$' || true)"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
