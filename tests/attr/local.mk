# tests/attr/local.mk - integration tests of attribution: MPI call sites
# reached through a tail call, the MPI share with several threads per rank,
# and the direction of each destination.  tests/attr/run.sh builds its
# programs itself (-O2 with and without -fno-plt, a shared library).
# Included from tests/local.mk.
EXTRA_DIST += tests/attr/run.sh tests/attr/tailcall.c tests/attr/tailwrap.c \
	tests/attr/mthreads.c
if HAVE_MPI
TESTS += tests/attr/run.sh
endif
