# tests/tiers/local.mk - integration tests of tiers 1 and 2 (procedures,
# call statements, loops, static line tables, recursion folding,
# throttling, HPROF_FILTER) against the known ground truth of
# examples/lizhang.c and tests/tiers/*.c.  The programs need special
# compilers and flags (-finstrument-functions, hprof-cc), so
# tests/tiers/run.sh builds them itself.  Included from tests/local.mk.
EXTRA_DIST += tests/tiers/run.sh tests/tiers/recursion.c tests/tiers/hot.c tests/tiers/slowchild.c tests/tiers/serial.c examples/lizhang.c
if HAVE_MPI
TESTS += tests/tiers/run.sh
endif
