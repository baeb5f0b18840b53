# tests/tailsites/local.mk - OpenMP constructs that gcc -O2 reaches by a
# tail call or inlines into a region, at their pragma's lines with exact
# counts (tests/tailsites/run.sh builds tests/tailsites/src/tail.c itself
# with gcc, clang and hprof-cc).  Included from tests/local.mk.
EXTRA_DIST += tests/tailsites/run.sh tests/tailsites/src/tail.c \
	tests/tailsites/src/reduction.c tests/tailsites/src/tier1.c
if HAVE_MPI
TESTS += tests/tailsites/run.sh
endif
