# tests/instrument/local.mk - tests of hprof-instrument and hprof-cc:
# site tables of small known sources, messy C compiled plain and
# instrumented (gcc and clang) with identical output, and an instrumented
# MPI program under mpirun.  Included from instrument/local.mk.
TESTS += tests/instrument/run.sh
EXTRA_DIST += tests/instrument/run.sh tests/instrument/src
