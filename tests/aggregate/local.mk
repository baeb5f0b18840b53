# tests/aggregate/local.mk - the aggregated run mode (HPROF_AGGREGATE):
# tests/aggregate/run.sh runs agg_truth at 64 oversubscribed ranks with
# both profiles written from the same records and compares every number
# the views print.  Included from tests/local.mk.
EXTRA_DIST += tests/aggregate/run.sh
if HAVE_MPI
check_PROGRAMS += tests/aggregate/agg_truth
TESTS += tests/aggregate/run.sh
tests_aggregate_agg_truth_SOURCES = tests/aggregate/agg_truth.c
tests_aggregate_agg_truth_CFLAGS = $(HP_MPI_TEST_CF)
tests_aggregate_agg_truth_LDFLAGS = $(HP_MPI_TEST_LF)
tests_aggregate_agg_truth_LDADD = $(HP_MPI_TEST_LIBS)
endif
