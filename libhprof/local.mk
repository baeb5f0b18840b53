# libhprof/local.mk - the MPI-free runtime, as convenience libraries:
#   codec/    libhpcodec.la: the profile file format and the filter-file
#             rules, linked by the runtime, the analyzer and the
#             instrumenter (no runtime inside);
#   core/     the store (threads, sites, clock), the event boundary that
#             every source records through, and the table of sources;
#   sources/  the event sources: code probes and the user API, the tier-1
#             hooks, GOMP, OMPT and POMP2 (the MPI wrappers are in pmpi/);
#   finish/   the end of run: site resolution, snapshot, summary, writer.
# core + sources + finish make libhpcore.la, linked into libhprof.so
# (pmpi/) and into the unit tests.
noinst_LTLIBRARIES += libhprof/libhpcodec.la libhprof/libhpcore.la
libhprof_libhpcodec_la_SOURCES = \
	libhprof/codec/hp_format.h libhprof/codec/format.c \
	libhprof/codec/hp_profile.h libhprof/codec/encode.c \
	libhprof/codec/hp_filter.h libhprof/codec/filter.c \
	libhprof/codec/hp_compensate.h libhprof/codec/compensate.c \
	libhprof/codec/hp_names.h libhprof/codec/names.c \
	libhprof/codec/counters_codec.c \
	libhprof/codec/hp_aggprof.h libhprof/codec/aggprof.c
libhprof_libhpcodec_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden

libhprof_libhpcore_la_SOURCES = \
	libhprof/core/hp_clock.h libhprof/core/clock.c \
	libhprof/core/hp_config.h libhprof/core/config.c \
	libhprof/core/hp_log.h libhprof/core/log.c \
	libhprof/core/hp_map.h libhprof/core/map.c \
	libhprof/core/hp_site.h libhprof/core/site.c \
	libhprof/core/hp_thread.h libhprof/core/thread.c \
	libhprof/core/hp_stack.h libhprof/core/stack.c \
	libhprof/core/hp_event.h libhprof/core/event.c libhprof/core/callpath.c \
	libhprof/core/hp_throttle.h libhprof/core/throttle.c \
	libhprof/core/hp_unwind.h libhprof/core/unwind.c \
	libhprof/core/hp_frames.h libhprof/core/frames.c \
	libhprof/core/hp_fast.h libhprof/core/hp_fast_pair.h libhprof/core/fast.c \
	libhprof/core/hp_task.h libhprof/core/task.c \
	libhprof/core/hp_source.h libhprof/core/source.c \
	libhprof/core/hp_runtime.h libhprof/core/runtime.c \
	libhprof/core/hp_calibrate.h libhprof/core/calibrate.c \
	libhprof/core/hp_counters.h libhprof/core/counters.c \
	libhprof/core/counters_fake.c libhprof/core/counters_papi.c \
	libhprof/hprof_probe.h libhprof/sources/probe.c \
	libhprof/hprof.h libhprof/sources/api.c libhprof/sources/region.c \
	libhprof/sources/cyg.c \
	libhprof/sources/hp_omp.h libhprof/sources/omp.c libhprof/sources/omp_lock.c \
	libhprof/sources/hp_gomp.h libhprof/sources/gomp_real.c \
	libhprof/sources/gomp_parallel.c libhprof/sources/gomp_task.c \
	libhprof/sources/gomp_sync.c libhprof/sources/gomp_join.c \
	libhprof/sources/gomp_target.c libhprof/sources/tgt_target.c \
	libhprof/sources/hp_gomp_join.h \
	libhprof/sources/hp_ompt.h libhprof/sources/ompt.c libhprof/sources/ompt_mutex.c \
	libhprof/sources/hp_ompt_codeptr.h libhprof/sources/ompt_codeptr.c \
	libhprof/sources/ompt_fork.c libhprof/sources/ompt_site.c \
	libhprof/sources/ompt_pool.c libhprof/sources/ompt_task.c \
	libhprof/sources/ompt_forked.c \
	libhprof/sources/hp_ompt_task.h \
	libhprof/sources/hp_ompt_kinds.h libhprof/sources/ompt_kinds.c \
	libhprof/sources/hp_pomp2.h libhprof/sources/pomp2_region.c \
	libhprof/sources/pomp2_scope.c libhprof/sources/pomp2_team.c \
	libhprof/sources/pomp2_construct.c libhprof/sources/pomp2_task.c \
	libhprof/sources/pomp2_lock.c libhprof/sources/pomp2_fortran.c \
	libhprof/sources/hp_pomp2_ctc.h libhprof/sources/pomp2_ctc.c \
	libhprof/finish/hp_resolve.h libhprof/finish/resolve.c libhprof/finish/unload.c \
	libhprof/finish/hp_tailcall.h libhprof/finish/tailcall.c \
	libhprof/finish/hp_symindex.h libhprof/finish/symindex.c \
	libhprof/finish/hp_die_name.h libhprof/finish/die_name.c \
	libhprof/finish/hp_names_fortran.h libhprof/finish/names_fortran.c \
	libhprof/finish/hp_omp_lines.h libhprof/finish/omp_lines.c \
	libhprof/finish/hp_omp_pragma.h libhprof/finish/omp_pragma.c \
	libhprof/finish/hp_omp_follow.h libhprof/finish/omp_follow.c \
	libhprof/finish/hp_omp_fortran.h libhprof/finish/omp_fortran.c \
	libhprof/finish/hp_snapshot.h libhprof/finish/snapshot.c \
	libhprof/finish/snapshot_counters.c \
	libhprof/finish/hp_snapshot_image.h libhprof/finish/snapshot_image.c \
	libhprof/finish/hp_snapshot_room.h libhprof/finish/snapshot_room.c \
	libhprof/finish/hp_summary.h libhprof/finish/summary.c \
	libhprof/finish/summary_counters.c \
	libhprof/finish/hp_aggtree.h libhprof/finish/aggtree.c \
	libhprof/finish/hp_overhead.h libhprof/finish/overhead.c \
	libhprof/finish/hp_process.h libhprof/finish/process.c libhprof/finish/path.c \
	libhprof/finish/hp_finish.h libhprof/finish/finish.c \
	libhprof/finish/hp_crash.h libhprof/finish/crash.c \
	libhprof/finish/hp_live.h libhprof/finish/live.c
include_HEADERS += libhprof/hprof.h libhprof/hprof_probe.h

# The Fortran module of `use hprof` (interfaces only, no code to link),
# installed next to hprof.h.
EXTRA_DIST += libhprof/hprof.f90
if HAVE_GFORTRAN
nodist_include_HEADERS = libhprof/hprof.mod
BUILT_SOURCES += libhprof/hprof.mod
CLEANFILES += libhprof/hprof.mod
libhprof/hprof.mod: $(srcdir)/libhprof/hprof.f90
	$(AM_V_GEN)$(MKDIR_P) libhprof && $(HPROF_GFORTRAN) -c -J libhprof $(srcdir)/libhprof/hprof.f90 -o libhprof/hprof-mod.tmp.o && rm -f libhprof/hprof-mod.tmp.o
endif
libhprof_libhpcore_la_CFLAGS = $(AM_CFLAGS) -pthread -fvisibility=hidden
libhprof_libhpcore_la_CPPFLAGS = $(AM_CPPFLAGS) $(LIBDW_CFLAGS) $(OMPT_CFLAGS)
libhprof_libhpcore_la_LIBADD = libhprof/libhpcodec.la $(LIBDW_LIBS) $(UNWIND_LIBS) $(PAPI_LIBS) -lpthread
