# tests/death/local.mk - ranks that end without MPI_Finalize (return,
# exit, an MPI error under MPI_ERRORS_ARE_FATAL, a segfault): every rank's
# own file, every run, and the program's own exit status and messages
# (tests/death/run.sh).  Included from tests/local.mk.
EXTRA_DIST += tests/death/run.sh
if HAVE_MPI
check_PROGRAMS += tests/death/death
TESTS += tests/death/run.sh
tests_death_death_SOURCES = tests/death/death.c
tests_death_death_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) -g -O1
tests_death_death_LDFLAGS = -no-install
tests_death_death_LDADD = pmpi/libhprof.la $(MPI_LIBS)
endif
