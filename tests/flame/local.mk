# tests/flame/local.mk - hprof-query's pictures (--folded, --flamegraph) on
# the known profile of tests/unit/mkprofile and on real MPI runs.
# Included from tests/local.mk.
EXTRA_DIST += tests/flame/run.sh
if HAVE_MPI
TESTS += tests/flame/run.sh
endif
