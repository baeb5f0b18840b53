# tests/counters/local.mk - hardware counters per node (HPROF_COUNTERS):
# the fake back end's exact values, a PAPI software event's page faults,
# the one-line degradation.  run.sh builds its programs against this
# tree's libhprof.  Included from tests/local.mk.
EXTRA_DIST += tests/counters/run.sh tests/counters/fake.c tests/counters/pages.c \
	tests/counters/tier1.c tests/counters/tier2.c
if HAVE_MPI
TESTS += tests/counters/run.sh
endif
