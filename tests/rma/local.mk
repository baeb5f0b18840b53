# tests/rma/local.mk - integration tests of one-sided communication (MPI
# RMA): programs with known ground truth, linked in the tree against
# pmpi/libhprof.la like tests/mpi/*, run and checked by tests/rma/run.sh.
# Included from tests/local.mk.
EXTRA_DIST += tests/rma/run.sh
if HAVE_MPI
check_PROGRAMS += tests/rma/active tests/rma/passive tests/rma/put_latency
TESTS += tests/rma/run.sh

tests_rma_active_SOURCES = tests/rma/active.c
tests_rma_active_CFLAGS = $(HP_MPI_TEST_CF)
tests_rma_active_LDFLAGS = $(HP_MPI_TEST_LF)
tests_rma_active_LDADD = $(HP_MPI_TEST_LIBS)

tests_rma_passive_SOURCES = tests/rma/passive.c
tests_rma_passive_CFLAGS = $(HP_MPI_TEST_CF)
tests_rma_passive_LDFLAGS = $(HP_MPI_TEST_LF)
tests_rma_passive_LDADD = $(HP_MPI_TEST_LIBS)

tests_rma_put_latency_SOURCES = tests/rma/put_latency.c
tests_rma_put_latency_CFLAGS = $(HP_MPI_TEST_CF)
tests_rma_put_latency_LDFLAGS = $(HP_MPI_TEST_LF)
tests_rma_put_latency_LDADD = $(HP_MPI_TEST_LIBS)
endif
