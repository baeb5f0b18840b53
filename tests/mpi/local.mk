# tests/mpi/local.mk - MPI integration tests: small programs with known
# ground truth, linked in the tree against pmpi/libhprof.la, run under mpirun
# and checked through hprof-query by tests/mpi/run.sh.  Included from
# tests/local.mk.
EXTRA_DIST += tests/mpi/run.sh tests/mpi/lib.sh tests/mpi/requests.sh
if HAVE_MPI
HP_MPI_TESTS = tests/mpi/late_sender tests/mpi/ring_alltoall \
	tests/mpi/nonblocking tests/mpi/anysource tests/mpi/threads \
	tests/mpi/pcontrol tests/mpi/collectives tests/mpi/persistent \
	tests/mpi/probes tests/mpi/edge tests/mpi/many_sites tests/mpi/replace \
	tests/mpi/nofinalize tests/mpi/requests tests/mpi/mt_requests \
	tests/mpi/abort tests/mpi/msg_rate
check_PROGRAMS += $(HP_MPI_TESTS)
TESTS += tests/mpi/run.sh tests/mpi/requests.sh
HP_MPI_TEST_CF = $(AM_CFLAGS) $(MPI_CFLAGS) -pthread -g -O1
HP_MPI_TEST_LIBS = pmpi/libhprof.la $(MPI_LIBS)
HP_MPI_TEST_LF = -pthread -no-install

tests_mpi_late_sender_SOURCES = tests/mpi/late_sender.c
tests_mpi_late_sender_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_late_sender_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_late_sender_LDADD = $(HP_MPI_TEST_LIBS)

tests_mpi_ring_alltoall_SOURCES = tests/mpi/ring_alltoall.c
tests_mpi_ring_alltoall_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_ring_alltoall_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_ring_alltoall_LDADD = $(HP_MPI_TEST_LIBS)

tests_mpi_nonblocking_SOURCES = tests/mpi/nonblocking.c
tests_mpi_nonblocking_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_nonblocking_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_nonblocking_LDADD = $(HP_MPI_TEST_LIBS)

tests_mpi_anysource_SOURCES = tests/mpi/anysource.c
tests_mpi_anysource_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_anysource_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_anysource_LDADD = $(HP_MPI_TEST_LIBS)

tests_mpi_threads_SOURCES = tests/mpi/threads.c
tests_mpi_threads_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_threads_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_threads_LDADD = $(HP_MPI_TEST_LIBS)

tests_mpi_pcontrol_SOURCES = tests/mpi/pcontrol.c
tests_mpi_pcontrol_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_pcontrol_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_pcontrol_LDADD = $(HP_MPI_TEST_LIBS)

tests_mpi_collectives_SOURCES = tests/mpi/collectives.c
tests_mpi_collectives_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_collectives_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_collectives_LDADD = $(HP_MPI_TEST_LIBS)

tests_mpi_persistent_SOURCES = tests/mpi/persistent.c
tests_mpi_persistent_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_persistent_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_persistent_LDADD = $(HP_MPI_TEST_LIBS)

tests_mpi_probes_SOURCES = tests/mpi/probes.c
tests_mpi_probes_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_probes_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_probes_LDADD = $(HP_MPI_TEST_LIBS)

tests_mpi_edge_SOURCES = tests/mpi/edge.c
tests_mpi_edge_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_edge_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_edge_LDADD = $(HP_MPI_TEST_LIBS)

tests_mpi_many_sites_SOURCES = tests/mpi/many_sites.c
tests_mpi_many_sites_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_many_sites_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_many_sites_LDADD = $(HP_MPI_TEST_LIBS)
tests_mpi_replace_SOURCES = tests/mpi/replace.c
tests_mpi_replace_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_replace_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_replace_LDADD = $(HP_MPI_TEST_LIBS)
tests_mpi_nofinalize_SOURCES = tests/mpi/nofinalize.c
tests_mpi_nofinalize_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_nofinalize_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_nofinalize_LDADD = $(HP_MPI_TEST_LIBS)
tests_mpi_requests_SOURCES = tests/mpi/requests.c
tests_mpi_requests_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_requests_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_requests_LDADD = $(HP_MPI_TEST_LIBS)
tests_mpi_mt_requests_SOURCES = tests/mpi/mt_requests.c
tests_mpi_mt_requests_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_mt_requests_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_mt_requests_LDADD = $(HP_MPI_TEST_LIBS)
tests_mpi_abort_SOURCES = tests/mpi/abort.c
tests_mpi_abort_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_abort_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_abort_LDADD = $(HP_MPI_TEST_LIBS)
tests_mpi_msg_rate_SOURCES = tests/mpi/msg_rate.c
tests_mpi_msg_rate_CFLAGS = $(HP_MPI_TEST_CF)
tests_mpi_msg_rate_LDFLAGS = $(HP_MPI_TEST_LF)
tests_mpi_msg_rate_LDADD = $(HP_MPI_TEST_LIBS)
endif
