# tests/io/local.mk - MPI-IO, neighbourhood collectives, local MPI calls
# and the MPI-3.1 coverage line of docs/mpi.md: programs with known ground truth
# run under mpirun by tests/io/run.sh; tests/io/coverage.sh compares
# docs/mpi.md's coverage fragment with what pmpi/gen_wrappers.py computes from
# the spec.  Included from tests/local.mk.
EXTRA_DIST += tests/io/run.sh tests/io/coverage.sh
TESTS += tests/io/coverage.sh
if HAVE_MPI
HP_IO_TESTS = tests/io/io tests/io/neighbor tests/io/locals
check_PROGRAMS += $(HP_IO_TESTS)
TESTS += tests/io/run.sh
HP_IO_TEST_CF = $(AM_CFLAGS) $(MPI_CFLAGS) -g -O1
HP_IO_TEST_LIBS = pmpi/libhprof.la $(MPI_LIBS)

tests_io_io_SOURCES = tests/io/io.c
tests_io_io_CFLAGS = $(HP_IO_TEST_CF)
tests_io_io_LDFLAGS = -no-install
tests_io_io_LDADD = $(HP_IO_TEST_LIBS)

tests_io_neighbor_SOURCES = tests/io/neighbor.c
tests_io_neighbor_CFLAGS = $(HP_IO_TEST_CF)
tests_io_neighbor_LDFLAGS = -no-install
tests_io_neighbor_LDADD = $(HP_IO_TEST_LIBS)

tests_io_locals_SOURCES = tests/io/locals.c
tests_io_locals_CFLAGS = $(HP_IO_TEST_CF)
tests_io_locals_LDFLAGS = -no-install
tests_io_locals_LDADD = $(HP_IO_TEST_LIBS)
endif
