# tests/shares/local.mk - the denominators of shares (tests/shares/run.sh
# builds its tier-1 OpenMP program itself).  Included from tests/local.mk.
EXTRA_DIST += tests/shares/run.sh tests/shares/shares.c
if HAVE_MPI
TESTS += tests/shares/run.sh
endif
