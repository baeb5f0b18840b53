# tests/ompt/local.mk - tier 0 for clang/libomp (the OMPT tool in
# libhprof): tests/ompt/run.sh builds its programs with clang through
# mpicc at test time.  Included from tests/local.mk.
EXTRA_DIST += tests/ompt/run.sh tests/ompt/src/fib.c tests/ompt/src/constructs.c \
	tests/ompt/src/critical_reps.c tests/ompt/src/nesting.c tests/ompt/src/teams.c \
	tests/ompt/src/fork_if.c tests/ompt/src/untied_critical.c tests/ompt/src/loops.c \
	tests/ompt/src/tail_barrier.c
if HAVE_MPI
TESTS += tests/ompt/run.sh
endif
