# tests/omp/local.mk - OpenMP integration tests: tier 0 through GOMP
# interposition (gomp.sh builds the programs of tests/omp/src/ itself with
# gcc's -fopenmp against the built libhprof.so).  Included from
# tests/local.mk.
EXTRA_DIST += tests/omp/gomp.sh tests/omp/src/imbalance.c \
	tests/omp/src/critical.c tests/omp/src/constructs.c tests/omp/src/ordered.c \
	tests/omp/src/nesting.c tests/omp/src/truth.h \
	tests/omp/join.sh tests/omp/src/shortregions.c tests/omp/src/tasks.c tests/omp/src/serial_part.c
if HAVE_MPI
TESTS += tests/omp/gomp.sh tests/omp/join.sh
endif
