# tests/lines/local.mk - every OpenMP construct at its pragma's line:
# tests/lines/run.sh builds tests/lines/src/lines.c itself with gcc (GOMP)
# and clang (OMPT) at -O0..-O3 and with -flto against the built
# libhprof.so.  Included from tests/local.mk.
EXTRA_DIST += tests/lines/run.sh tests/lines/src/lines.c
if HAVE_MPI
TESTS += tests/lines/run.sh
endif
