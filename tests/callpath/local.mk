# tests/callpath/local.mk - tier-0 call paths (HPROF_CALLPATH) on a real
# MPI run of tests/callpath/phases.c.  Included from tests/local.mk.
EXTRA_DIST += tests/callpath/run.sh tests/callpath/phases.c tests/callpath/ompphases.c \
	tests/callpath/rooted.c tests/callpath/tailwrap.c tests/callpath/alternate.c
if HAVE_MPI
TESTS += tests/callpath/run.sh
endif
