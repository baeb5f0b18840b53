# instrument/local.mk - hprof-instrument (the libclang source-to-source
# instrumenter, tier 2) and hprof-cc (the compiler wrapper that runs it),
# plus their tests in tests/instrument/.
EXTRA_DIST += instrument/hprof-cc.in
if HAVE_LIBCLANG
bin_PROGRAMS += instrument/hprof-instrument
instrument_hprof_instrument_SOURCES = instrument/hpi.h instrument/main.c \
	instrument/source.c instrument/collect.c instrument/emit.c \
	instrument/omp.c instrument/control.c
instrument_hprof_instrument_CPPFLAGS = $(AM_CPPFLAGS) $(CLANG_CFLAGS)
instrument_hprof_instrument_LDADD = libhprof/libhpcore.la $(CLANG_LIBS)
bin_SCRIPTS += instrument/hprof-cc
include tests/instrument/local.mk
endif
