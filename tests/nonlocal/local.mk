# tests/nonlocal/local.mk - non-local exits (longjmp, siglongjmp out of a
# signal handler, pthread_exit and exit from nested functions) in tiers 1
# and 2, against the ground truth of tests/nonlocal/interp.c.  The program
# needs special compilers and flags, so run.sh builds it itself.  Included
# from tests/local.mk.
EXTRA_DIST += tests/nonlocal/run.sh tests/nonlocal/interp.c
if HAVE_MPI
TESTS += tests/nonlocal/run.sh
endif
