# examples/local.mk - the example programs: built in the tree against the
# uninstalled libhprof (pmpi/libhprof.la) for the tests; examples/demo.sh
# builds them against the installed library instead, as a user would.
EXTRA_DIST += examples/jacobi.c examples/demo.sh
if HAVE_MPI
check_PROGRAMS += examples/jacobi
examples_jacobi_SOURCES = examples/jacobi.c
examples_jacobi_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fopenmp -g -O2
examples_jacobi_LDFLAGS = -fopenmp -no-install
examples_jacobi_LDADD = pmpi/libhprof.la $(MPI_LIBS) -lm
endif
