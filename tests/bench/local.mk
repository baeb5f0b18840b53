# tests/bench/local.mk - smoke test of the bench kernels (bench/kernels/):
# they build plain, tier 1 and tier 2 and print the same lines (their own
# counts checked), no timing.  Included from tests/local.mk.
EXTRA_DIST += tests/bench/kernels.sh
if HAVE_MPI
TESTS += tests/bench/kernels.sh
endif
