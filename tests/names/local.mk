# tests/names/local.mk - profile names and hprof's own stderr: default
# names of runs started in the same second, the quoted drill-down line,
# two dying runs with one HPROF_OUTPUT (tests/names/run.sh builds its
# programs itself).  Included from tests/local.mk.
EXTRA_DIST += tests/names/run.sh tests/names/serial.c tests/names/mpi.c
if HAVE_MPI
TESTS += tests/names/run.sh
endif
