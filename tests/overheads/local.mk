# tests/overheads/local.mk - hprof-query --overheads on the known profile
# of tests/unit/mkprofile and on real MPI and OpenMP runs.
# Included from tests/local.mk.
EXTRA_DIST += tests/overheads/run.sh
if HAVE_MPI
TESTS += tests/overheads/run.sh
endif
