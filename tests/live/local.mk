# tests/live/local.mk - live snapshots (HPROF_LIVE) and hprof-query --live
# on a long-running MPI+OpenMP ground-truth program (tests/live/run.sh).
# Included from tests/local.mk.
EXTRA_DIST += tests/live/run.sh
if HAVE_MPI
check_PROGRAMS += tests/live/live
TESTS += tests/live/run.sh
tests_live_live_SOURCES = tests/live/live.c
tests_live_live_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fopenmp -g -O1
tests_live_live_LDFLAGS = -fopenmp -no-install
tests_live_live_LDADD = pmpi/libhprof.la $(MPI_LIBS)
endif
