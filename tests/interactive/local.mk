# tests/interactive/local.mk - hprof-query -i driven over a pipe on the
# known profile of tests/unit/mkprofile and on real MPI runs.
# Included from tests/local.mk.
EXTRA_DIST += tests/interactive/run.sh
if HAVE_MPI
TESTS += tests/interactive/run.sh
endif
