# tests/serial.sh - sourced by the test scripts that run MPI programs and
# check timings: under `make -j2 check` they would otherwise share the two
# cores and miss their tolerances.  Holds an exclusive lock on a file in
# the build tree (or HPROF_TEST_LOCK, to serialize several build trees on
# one machine) for the rest of the sourcing script's life.
hp_serial_lock=${HPROF_TEST_LOCK:-$builddir/tests/.timing.lock}
mkdir -p "$builddir/tests"
exec 9>"$hp_serial_lock"
flock 9
