# libhprof/local.mk - the MPI-free runtime core, as a convenience library
# linked into libhprof.so (pmpi/) and into the unit tests and analyzer.
noinst_LTLIBRARIES += libhprof/libhpcore.la
libhprof_libhpcore_la_SOURCES = \
	libhprof/hp_format.h libhprof/format.c \
	libhprof/hp_profile.h libhprof/encode.c \
	libhprof/hp_clock.h libhprof/clock.c \
	libhprof/hp_map.h libhprof/map.c \
	libhprof/hp_site.h libhprof/site.c \
	libhprof/hp_thread.h libhprof/thread.c \
	libhprof/hp_log.h libhprof/log.c \
	libhprof/hp_config.h libhprof/config.c \
	libhprof/hp_resolve.h libhprof/resolve.c \
	libhprof/hp_omp_lines.h libhprof/omp_lines.c \
	libhprof/hp_omp_pragma.h libhprof/omp_pragma.c \
	libhprof/hp_tailcall.h libhprof/tailcall.c \
	libhprof/hp_snapshot.h libhprof/snapshot.c \
	libhprof/hp_summary.h libhprof/summary.c \
	libhprof/hp_filter.h libhprof/filter.c \
	libhprof/hp_enter.h libhprof/enter.c \
	libhprof/hp_frames.h libhprof/frames.c \
	libhprof/hp_runtime.h libhprof/runtime.c \
	libhprof/hprof_probe.h libhprof/probe.c \
	libhprof/cyg.c \
	libhprof/hp_omp.h libhprof/omp.c libhprof/ompt.c \
	libhprof/hp_ompt_codeptr.h libhprof/ompt_codeptr.c libhprof/ompt_fork.c \
	libhprof/hp_ompt_kinds.h libhprof/ompt_kinds.c \
	libhprof/hp_task.h libhprof/task.c \
	libhprof/hp_stack.h libhprof/stack.c \
	libhprof/gomp.c \
	libhprof/pomp2.c libhprof/hp_pomp2_ctc.h libhprof/pomp2_ctc.c \
	libhprof/region.c \
	libhprof/hp_process.h libhprof/process.c \
	libhprof/hprof.h libhprof/api.c
include_HEADERS += libhprof/hprof.h libhprof/hprof_probe.h
libhprof_libhpcore_la_CFLAGS = $(AM_CFLAGS) -pthread -fvisibility=hidden
libhprof_libhpcore_la_CPPFLAGS = $(AM_CPPFLAGS) $(LIBDW_CFLAGS) $(OMPT_CFLAGS)
libhprof_libhpcore_la_LIBADD = $(LIBDW_LIBS) -lpthread
