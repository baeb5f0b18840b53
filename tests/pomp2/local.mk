# tests/pomp2/local.mk - POMP2 compatibility (libhprof/sources/pomp2_*.c):
# tests/pomp2/run.sh instruments the programs of tests/omp/src/ with
# Debian's opari2 at test time and links them against libhprof.so (it
# skips when opari2 is not installed).  Included from tests/local.mk.
EXTRA_DIST += tests/pomp2/run.sh
if HAVE_MPI
TESTS += tests/pomp2/run.sh
endif
