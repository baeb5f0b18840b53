# tests/faults/local.mk - a run that dies (MPI_Abort, a segfault, exit
# without MPI_Finalize, SIGTERM, a signal in a process without MPI): each
# rank's own file, merged by hprof-query (tests/faults/run.sh).  Included
# from tests/local.mk.
EXTRA_DIST += tests/faults/run.sh
if HAVE_MPI
check_PROGRAMS += tests/faults/faults
TESTS += tests/faults/run.sh
tests_faults_faults_SOURCES = tests/faults/faults.c
tests_faults_faults_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -fopenmp -g -O1
tests_faults_faults_LDFLAGS = -fopenmp -no-install
tests_faults_faults_LDADD = pmpi/libhprof.la $(MPI_LIBS)
endif
