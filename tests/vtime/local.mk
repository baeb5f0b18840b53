# tests/vtime/local.mk - virtual time (HPROF_VIRTUAL_TIME=1) against the
# ground truth of tests/vtime/order.c, built plain and in tier 2 by
# tests/vtime/run.sh.  Included from tests/local.mk.
EXTRA_DIST += tests/vtime/run.sh tests/vtime/order.c tests/vtime/order.f90
if HAVE_MPI
TESTS += tests/vtime/run.sh
endif
