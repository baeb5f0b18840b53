# instrument/local.mk - hprof-instrument (the libclang source-to-source
# instrumenter, tier 2) and hprof-cc (the compiler wrapper that runs it,
# also as hprof-gcc, hprof-clang, hprof-mpicc, hprof-g++, hprof-clang++,
# hprof-mpicxx),
# plus their tests in tests/instrument/.
EXTRA_DIST += instrument/hprof-cc.in
if HAVE_LIBCLANG
bin_PROGRAMS += instrument/hprof-instrument
instrument_hprof_instrument_SOURCES = instrument/hpi.h instrument/main.c \
	instrument/source.c instrument/hpi_collect.h instrument/collect.c \
	instrument/collect_walk.c instrument/collect_loop.c instrument/collect_macro.c \
	instrument/collect_once.c \
	instrument/emit.c instrument/policy.c instrument/tier1.c \
	instrument/omp.c instrument/hpi_omp.h instrument/omp_clause.c \
	instrument/omp_construct.c instrument/omp_split.c instrument/omp_asis.c \
	instrument/control.c \
	instrument/cxx.c instrument/cxx_headers.c instrument/collect_tiny.c instrument/collect_trip.c
nodist_instrument_hprof_instrument_SOURCES = instrument/hpi_mpi_kinds.h
instrument_hprof_instrument_CPPFLAGS = $(AM_CPPFLAGS) $(CLANG_CFLAGS)
instrument_hprof_instrument_LDADD = libhprof/libhpcodec.la $(CLANG_LIBS)
bin_SCRIPTS += instrument/hprof-cc
# hprof-cc's Fortran part, sourced by it
dist_pkgdata_DATA = instrument/hprof-cc-fortran.sh
# One-word compilers (hprof-cc reads the compiler from its own name), for
# builds that run `which $CC`: copies, so that they install as files.
HPROF_CC_WRAPPERS = instrument/hprof-gcc instrument/hprof-clang instrument/hprof-mpicc \
	instrument/hprof-g++ instrument/hprof-clang++ instrument/hprof-mpicxx
# ... and for Fortran builds (FC=hprof-mpif90)
HPROF_CC_WRAPPERS += instrument/hprof-gfortran instrument/hprof-mpif90 instrument/hprof-mpifort
bin_SCRIPTS += $(HPROF_CC_WRAPPERS)
CLEANFILES += $(HPROF_CC_WRAPPERS)
$(HPROF_CC_WRAPPERS): instrument/hprof-cc
	$(AM_V_GEN)rm -f $@ && cp instrument/hprof-cc $@ && chmod +x $@
# Which MPI calls are call statements (spec KIND local) and which get no
# site: generated from the one spec table of the MPI wrappers.
BUILT_SOURCES += instrument/hpi_mpi_kinds.h
CLEANFILES += instrument/hpi_mpi_kinds.h
instrument/hpi_mpi_kinds.h: $(top_srcdir)/pmpi/mpi_spec.txt $(top_srcdir)/pmpi/gen_wrappers.py \
		$(top_srcdir)/pmpi/mpi_coverage.py
	$(AM_V_GEN)mkdir -p instrument && $(PYTHON3) $(top_srcdir)/pmpi/gen_wrappers.py \
		--instrument $(top_srcdir)/pmpi/mpi_spec.txt $@
include tests/instrument/local.mk
include tests/policy/local.mk
include tests/tier1policy/local.mk
endif
