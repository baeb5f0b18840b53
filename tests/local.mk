# tests/local.mk - unit tests (cmocka, no MPI) and the MPI integration
# tests; `make check` runs them all.

# Every test's MPI_Init (under mpirun or a singleton) takes Open MPI's ob1
# point-to-point layer at once, the one it selects on this kind of machine
# anyway after probing the others (the cm layer's probe costs ~0.2 s of
# each MPI_Init here); a value the caller set is kept.
AM_TESTS_ENVIRONMENT = OMPI_MCA_pml=$${OMPI_MCA_pml:-ob1}; export OMPI_MCA_pml;
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_core
TESTS += tests/unit/test_core
tests_unit_test_core_SOURCES = tests/unit/test_core.c
tests_unit_test_core_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
tests_unit_test_core_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS) -lpthread
check_PROGRAMS += tests/unit/test_unwind
TESTS += tests/unit/test_unwind
tests_unit_test_unwind_SOURCES = tests/unit/test_unwind.c
tests_unit_test_unwind_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
tests_unit_test_unwind_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS) -lpthread
check_PROGRAMS += tests/unit/test_task
TESTS += tests/unit/test_task
tests_unit_test_task_SOURCES = tests/unit/test_task.c
tests_unit_test_task_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
tests_unit_test_task_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS) -lpthread
check_PROGRAMS += tests/unit/test_pomp2_stall
TESTS += tests/unit/test_pomp2_stall
tests_unit_test_pomp2_stall_SOURCES = tests/unit/test_pomp2_stall.c
tests_unit_test_pomp2_stall_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
tests_unit_test_pomp2_stall_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS) -lpthread
check_PROGRAMS += tests/unit/test_threads
TESTS += tests/unit/test_threads
tests_unit_test_threads_SOURCES = tests/unit/test_threads.c
tests_unit_test_threads_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
tests_unit_test_threads_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS) -lpthread
check_PROGRAMS += tests/unit/test_ompt_forked
TESTS += tests/unit/test_ompt_forked
tests_unit_test_ompt_forked_SOURCES = tests/unit/test_ompt_forked.c
tests_unit_test_ompt_forked_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
tests_unit_test_ompt_forked_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS) -lpthread
check_PROGRAMS += tests/unit/test_omp_pragma
TESTS += tests/unit/test_omp_pragma
tests_unit_test_omp_pragma_SOURCES = tests/unit/test_omp_pragma.c
tests_unit_test_omp_pragma_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_omp_pragma_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS)
check_PROGRAMS += tests/unit/test_symindex
TESTS += tests/unit/test_symindex
tests_unit_test_symindex_SOURCES = tests/unit/test_symindex.c
tests_unit_test_symindex_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_symindex_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS)
check_PROGRAMS += tests/unit/test_names
TESTS += tests/unit/test_names
tests_unit_test_names_SOURCES = tests/unit/test_names.c
tests_unit_test_names_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
# libstdc++ in the process, as in a C++ program: the demangler
tests_unit_test_names_LDFLAGS = -Wl,--no-as-needed
tests_unit_test_names_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS) -lstdc++
check_PROGRAMS += tests/unit/test_names_fortran
TESTS += tests/unit/test_names_fortran
tests_unit_test_names_fortran_SOURCES = tests/unit/test_names_fortran.c
tests_unit_test_names_fortran_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_names_fortran_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS)
check_PROGRAMS += tests/unit/test_omp_fortran
TESTS += tests/unit/test_omp_fortran
tests_unit_test_omp_fortran_SOURCES = tests/unit/test_omp_fortran.c
tests_unit_test_omp_fortran_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_omp_fortran_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS)
check_PROGRAMS += tests/unit/test_probe
TESTS += tests/unit/test_probe
tests_unit_test_probe_SOURCES = tests/unit/test_probe.c tests/unit/tree_util.h
tests_unit_test_probe_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
tests_unit_test_probe_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS) -lpthread
check_PROGRAMS += tests/unit/test_fast
TESTS += tests/unit/test_fast
tests_unit_test_fast_SOURCES = tests/unit/test_fast.c tests/unit/tree_util.h
tests_unit_test_fast_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
tests_unit_test_fast_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS) -lpthread
check_PROGRAMS += tests/unit/test_cyg_fast
TESTS += tests/unit/test_cyg_fast
tests_unit_test_cyg_fast_SOURCES = tests/unit/test_cyg_fast.c tests/unit/tree_util.h
tests_unit_test_cyg_fast_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
tests_unit_test_cyg_fast_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS) -lpthread
# the counter layer with the fake back end: exact values per node and thread
check_PROGRAMS += tests/unit/test_counters
TESTS += tests/unit/test_counters
tests_unit_test_counters_SOURCES = tests/unit/test_counters.c
tests_unit_test_counters_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
tests_unit_test_counters_LDADD = libhprof/libhpcore.la $(CMOCKA_LIBS) -lpthread
if HAVE_MPI
# The request table on its own: reqmap.c needs MPI's types, not MPI.
check_PROGRAMS += tests/unit/test_reqmap
TESTS += tests/unit/test_reqmap
tests_unit_test_reqmap_SOURCES = tests/unit/test_reqmap.c pmpi/reqmap.c libhprof/core/stack.c
tests_unit_test_reqmap_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/pmpi -I$(top_builddir)/pmpi $(MPI_CFLAGS)
tests_unit_test_reqmap_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
tests_unit_test_reqmap_LDADD = $(CMOCKA_LIBS) -lpthread
check_PROGRAMS += tests/unit/test_fortran
TESTS += tests/unit/test_fortran
tests_unit_test_fortran_SOURCES = tests/unit/test_fortran.c pmpi/fortran.c
tests_unit_test_fortran_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/pmpi $(MPI_CFLAGS)
tests_unit_test_fortran_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_fortran_LDADD = $(CMOCKA_LIBS) $(MPI_LIBS)
endif
endif
include tests/unit/format_local.mk
include tests/mpi/local.mk
include tests/faults/local.mk
include tests/death/local.mk
include tests/live/local.mk
include tests/rma/local.mk
include tests/aggregate/local.mk
include tests/fmpi/local.mk
include tests/tiers/local.mk
include tests/cxx/local.mk
include tests/fortran/local.mk
include tests/compensate/local.mk
include tests/vtime/local.mk
include tests/nonlocal/local.mk
include tests/unload/local.mk
include tests/names/local.mk
include tests/inline/local.mk
include tests/omp/local.mk
include tests/ompt/local.mk
include tests/pomp2/local.mk
include tests/lines/local.mk
include tests/tailsites/local.mk
include tests/tasks/local.mk
include tests/attr/local.mk
include tests/io/local.mk
include tests/shares/local.mk
include tests/fuzz/local.mk
include tests/writes/local.mk
include tests/bench/local.mk
include tests/flame/local.mk
include tests/matrix/local.mk
include tests/overheads/local.mk
include tests/interactive/local.mk
include tests/report/local.mk
include tests/callpath/local.mk
include tests/counters/local.mk
include tests/target/local.mk
include tests/detail/local.mk
if HAVE_MPI
TESTS += tests/exports.sh
endif
EXTRA_DIST += tests/exports.sh
# The code keeps one event boundary, one end of run, small files.
TESTS += tests/layout.sh
EXTRA_DIST += tests/layout.sh
# --help, -h, --version of every command; the manual pages (man/local.mk)
TESTS += tests/help.sh
EXTRA_DIST += tests/help.sh
EXTRA_DIST += tests/serial.sh
EXTRA_DIST += tests/lib.sh tests/truth.sh
# hprof-query --root (the subtree under one node) on mkprofile's profile
TESTS += tests/unit/test_root.sh
EXTRA_DIST += tests/unit/test_root.sh
# the listing's worst rank and thread: stored node_worst_rank, --raw, ties
TESTS += tests/unit/test_worst.sh
EXTRA_DIST += tests/unit/test_worst.sh
# The whole suite as CI runs it, and its sanitized part: in the tarball too.
EXTRA_DIST += tests/check.sh tests/sanitize.sh
# The README's and the guide's links and sh examples (tests/docs.sh), and
# every file git tracks that a release needs in the tarball (tests/dist.sh).
TESTS += tests/docs.sh tests/dist.sh
EXTRA_DIST += tests/docs.sh tests/dist.sh
