# tests/matrix/local.mk - hprof-query --matrix, diff and scaling on the
# known profile of tests/unit/mkprofile and on real MPI runs.
# Included from tests/local.mk.
EXTRA_DIST += tests/matrix/run.sh
if HAVE_MPI
TESTS += tests/matrix/run.sh
endif
