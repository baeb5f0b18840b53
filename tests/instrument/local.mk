# tests/instrument/local.mk - tests of hprof-instrument and hprof-cc:
# site tables of small known sources, messy C compiled plain and
# instrumented (gcc and clang) with identical output, and an instrumented
# MPI program under mpirun; omp.sh: the OpenMP (POMP2) rewriting against
# the ground truth of tests/omp/src and the opari2 build; pfor.sh: the
# probes of loops bound to parallel loops open inside the team (POMP2,
# GOMP, OMPT); corpus.sh: a regression corpus of real-code snippets
# (statement macros, fallbacks, linking without -lhprof, the one-word
# wrappers); nests.sh: constructs whose pragma another directive follows
# (nested constructs, #if/#else/#endif); whole.sh: combined parallel loops
# a split would change (inscan and task reductions, ...) kept whole and
# measured as one region.  Included from instrument/local.mk.
TESTS += tests/instrument/run.sh tests/instrument/omp.sh tests/instrument/pfor.sh \
	tests/instrument/corpus.sh tests/instrument/nests.sh tests/instrument/whole.sh
EXTRA_DIST += tests/instrument/run.sh tests/instrument/omp.sh tests/instrument/pfor.sh \
	tests/instrument/corpus.sh tests/instrument/nests.sh tests/instrument/whole.sh \
	tests/instrument/src
