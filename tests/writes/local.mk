# tests/writes/local.mk - where the profile goes when things go wrong: a
# rewritten process title, a full disk, a failed collective write, long
# paths, devices and missing directories.  tests/writes/run.sh builds
# tests/writes/rewrite.c itself (serially with -finstrument-functions, and
# with mpicc).  Included from tests/local.mk.
EXTRA_DIST += tests/writes/run.sh tests/writes/rewrite.c
if HAVE_MPI
TESTS += tests/writes/run.sh
endif
