# pmpi/local.mk - libhprof.so: the MPI wrappers (generated from
# pmpi/mpi_spec.txt by pmpi/gen_wrappers.py, C and Fortran bindings)
# linked with the core.
EXTRA_DIST += pmpi/mpi_spec.txt pmpi/gen_wrappers.py pmpi/gen_fortran.py pmpi/mpi_coverage.py \
	pmpi/mpi31_functions.txt
if HAVE_MPI
lib_LTLIBRARIES += pmpi/libhprof.la
nodist_pmpi_libhprof_la_SOURCES = pmpi/wrappers.c pmpi/hp_mpi_ids.h
pmpi_libhprof_la_SOURCES = \
	pmpi/hp_mpi.h pmpi/init.c pmpi/record.c pmpi/waits.c \
	pmpi/rankmap.c pmpi/reqmap.c pmpi/rma.c pmpi/reduce.c pmpi/reduce_tree.c pmpi/output.c \
	pmpi/io.c pmpi/neighbor.c pmpi/hp_fortran.h pmpi/fortran.c pmpi/typesize.c \
	pmpi/linger.c pmpi/exit.c pmpi/hp_vtime.h pmpi/hp_vtime_int.h pmpi/vtime.c pmpi/vtime_defer.c \
	pmpi/vtime_clock.c pmpi/vtime_shadow.c pmpi/vtime_coll.c pmpi/vtime_persist.c
pmpi_libhprof_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/pmpi -I$(top_builddir)/pmpi $(MPI_CFLAGS)
pmpi_libhprof_la_CFLAGS = $(AM_CFLAGS) -pthread -fvisibility=hidden
pmpi_libhprof_la_LIBADD = libhprof/libhpcore.la $(LIBDW_LIBS) $(MPI_LIBS) -lpthread
pmpi_libhprof_la_LDFLAGS = -version-info 0:0:0
BUILT_SOURCES += pmpi/wrappers.c pmpi/hp_mpi_ids.h
CLEANFILES += pmpi/wrappers.c pmpi/hp_mpi_ids.h

pmpi/hp_mpi_ids.h: pmpi/wrappers.c
pmpi/wrappers.c: $(top_srcdir)/pmpi/mpi_spec.txt $(top_srcdir)/pmpi/gen_wrappers.py \
		$(top_srcdir)/pmpi/gen_fortran.py $(top_srcdir)/pmpi/mpi_coverage.py
	$(AM_V_GEN)mkdir -p pmpi && $(PYTHON3) $(top_srcdir)/pmpi/gen_wrappers.py \
		$(top_srcdir)/pmpi/mpi_spec.txt pmpi/wrappers.c pmpi/hp_mpi_ids.h
endif
