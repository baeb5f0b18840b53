#!/bin/bash
# examples/demo.sh - a guided tour of hprof on a real hybrid program: installs
# what is missing, builds and installs hprof (scripts/build.sh), compiles the
# Jacobi stencil (examples/jacobi.c) with `mpicc ... -lhprof` as a user would,
# runs it with 4 MPI ranks x 2 OpenMP threads, then drills into the profile
# with hprof-query: the top-down view, and the per-destination table of the
# halo exchange.  Everything goes to _build/demo/ (made fresh every time).
# usage: examples/demo.sh [N [ITERATIONS]]   (arguments of jacobi)
# Env: PREFIX (default /usr/local, as for scripts/build.sh).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
prefix=${PREFIX:-/usr/local}
demo=$top/_build/demo
step=0
say() {
    step=$((step + 1))
    printf '\n==> %d. %s\n' "$step" "$*"
}
show() {
    printf '    $ %s\n' "$*"
    "$@"
}

say "Install missing packages and build + install hprof into $prefix (scripts/build.sh)"
bash scripts/build.sh
export PATH=$prefix/bin:$PATH

rm -rf "$demo"
mkdir -p "$demo"

say "Compile the Jacobi example with the profiler: only -lhprof is added to the link"
extra=()
if [ "$prefix" != /usr/local ]; then
    # shellcheck disable=SC2054
    extra=(-I"$prefix/include" -L"$prefix/lib" -Wl,-rpath,"$prefix/lib")
fi
show mpicc -g -O2 -fopenmp "${extra[@]}" examples/jacobi.c -o "$demo/jacobi" -lhprof -lm

say "Run it: 4 MPI ranks x 2 OpenMP threads; the profile goes to $demo (HPROF_OUTPUT)"
echo "    (root needs --allow-run-as-root; 8 threads on $(nproc) cores need --oversubscribe and"
echo "     OMP_WAIT_POLICY=passive; rank 0 prints the hprof summary on stderr at MPI_Finalize)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HPROF_OUTPUT=$demo OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
show mpirun -np 4 --oversubscribe --bind-to none \
    -x HPROF_OUTPUT -x OMP_NUM_THREADS -x OMP_WAIT_POLICY \
    "$demo/jacobi" "$@" 2>&1 </dev/null | tee "$demo/run.log"

profile=$(sed -n 's/^hprof: profile written to \(.*[^ ]\) *$/\1/p' "$demo/run.log" | tail -1)
if [ -z "$profile" ] || [ ! -e "$profile" ]; then
    profile=$(ls -t "$demo"/*.hpf 2>/dev/null | head -1 || true)
fi
if [ -z "$profile" ]; then
    echo "demo: no profile was written to $demo (see the output above)" >&2
    exit 1
fi

say "Top-down view of the whole run: every MPI call site with its source line"
show hprof-query "$profile"

halo=$(grep -n 'HALO-SENDRECV \*/' examples/jacobi.c | cut -d: -f1)
say "Drill down into the halo exchange (MPI_Sendrecv at jacobi.c:$halo): per destination,"
echo "    transmission time vs synchronization delay (rank r talks to r-1 and r+1)"
show hprof-query "$profile" --comm "jacobi.c:$halo" --by-rank

irecv=$(grep -n 'HALO-IRECV \*/' examples/jacobi.c | cut -d: -f1)
say "The other halo direction is nonblocking: its wait time is charged to the posting line"
show hprof-query "$profile" --comm "jacobi.c:$irecv"

omp=$(grep -n '#pragma omp parallel for' examples/jacobi.c | head -1 | cut -d: -f1)
say "OpenMP, still without recompiling: the update loop's parallel region (jacobi.c:$omp)"
echo "    per thread: time in the region and the wait at its end barrier"
show hprof-query "$profile" --threads "jacobi.c:$omp"

say "Tier 2: instrument the seed paper's example (examples/lizhang.c) with hprof-cc and"
echo "    follow it top-down: procedures, the call lines that activate them, loops, and"
echo "    communication statements, each with its source line"
show hprof-cc mpicc -g -O2 -c examples/lizhang.c -o "$demo/lizhang.o"
show hprof-cc mpicc "$demo/lizhang.o" -o "$demo/lizhang" "${extra[@]}"
HPROF_OUTPUT=$demo/lizhang.hpf HPROF_SUMMARY=off show mpirun -np 2 --oversubscribe --bind-to none \
    -x HPROF_OUTPUT -x HPROF_SUMMARY "$demo/lizhang" 2>/dev/null </dev/null
show hprof-query "$demo/lizhang.hpf" --depth 6
say "The static line tables of the paper, from the same database: PC (procedure line ->"
echo "    call line, callee, callee line) and LCOM (loop line -> communication line)"
show hprof-query "$demo/lizhang.hpf" --sql "SELECT * FROM PC"
show hprof-query "$demo/lizhang.hpf" --sql "SELECT * FROM LCOM"

printf '\nDone. The profile is %s; try also:\n' "$profile"
echo "    hprof-query $profile --flat"
echo "    hprof-query $profile --ranks jacobi.c:$halo"
echo "    hprof-query $profile --sql \"SELECT s.name, s.line, sum(c.sync) FROM comm c JOIN node n ON n.id=c.node JOIN site s ON s.id=n.site GROUP BY s.id\""
