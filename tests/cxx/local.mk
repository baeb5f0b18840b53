# tests/cxx/local.mk - C++ at tiers 0, 1 and 2 (hprof-cc with mpicxx, g++,
# hprof-mpicxx; demangled names; exceptions through instrumented frames)
# against the ground truth of tests/cxx/prog.cpp, constructs.cpp and
# header.cpp.  run.sh builds the programs itself.  Included from
# tests/local.mk.
EXTRA_DIST += tests/cxx/run.sh tests/cxx/prog.cpp tests/cxx/constructs.cpp \
	tests/cxx/header.cpp tests/cxx/grid.h
if HAVE_MPI
TESTS += tests/cxx/run.sh
endif
