# tests/inline/local.mk - tier-1 hooks of inlined functions counted once
# at the inlined call's own line (tests/inline/inlined.c); run.sh builds
# the program itself with gcc -O2 -finstrument-functions.  Included from
# tests/local.mk.
EXTRA_DIST += tests/inline/run.sh tests/inline/inlined.c tests/inline/omp_inlined.c
if HAVE_MPI
TESTS += tests/inline/run.sh
endif
