# bench/local.mk - `make bench`: the record of hprof's overhead
# (bench/record.sh: bench.md and bench.csv in bench/results/ of the build
# tree, or BENCH_OUT): the bench kernels (bench/kernels/) and the examples
# at tiers 0/1/2, per-event costs in ns (bench/run.sh) and in instructions
# (callgrind), profile size and peak memory, the fixed cost of a run
# (bench/fixed.sh), OpenMP constructs in instructions, GOMP vs OMPT
# (bench/ompcost.sh; alone: `make bench-ompcost`), tier 0 per task, gcc
# and clang (bench/taskcost.sh; alone: `make bench-taskcost`).  `make bench-readme` puts bench.md between the bench
# markers of docs/performance.md (bench/readme.sh).  `make bench-run`: bench/run.sh's
# tables alone; `make bench-query`: first and second hprof-query on a
# 10^6-node profile (bench/query.sh); `make bench-fixed`: the fixed cost
# alone.  Never part of `make check`.  `make bench-scale`: hprof-merge and
# the queries on a synthetic 1024-rank profile (bench/mkbig.c, bench/scale.sh;
# 4096 ranks with SCALE_4096=1).  `make bench-msgrate`: the MPI message
# rate (bench/msgrate.sh: instructions per message, rate ratio).
# `make bench-aggscale`: hprof-merge, the queries and hprof-report on the
# aggregated profile of 10^5 ranks (bench/aggmerge, bench/aggscale.sh).
EXTRA_DIST += bench/run.sh bench/query.sh bench/fixed.sh bench/ompcost.sh bench/pingpong.c bench/wrapcost.c bench/fwrapcost.f90 bench/ompbench.c \
	bench/probe.c bench/record.sh bench/readme.sh bench/kernels/force.c bench/kernels/force.h bench/kernels/dispatch.c bench/kernels/solver.c \
	bench/kernels/tasks.c bench/kernels/worktasks.c bench/kernels/regions.c bench/scale.sh \
	bench/msgrate.c bench/msgrate.sh bench/taskcost.sh bench/aggscale.sh bench/halo.c
# the synthetic large profile of bench/scale.sh (built with the test programs)
check_PROGRAMS += bench/mkbig
# one round of the aggregated run mode's reduction (DESIGN.md)
check_PROGRAMS += bench/aggmerge
bench_aggmerge_SOURCES = bench/aggmerge.c
bench_aggmerge_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libhprof/finish
bench_aggmerge_LDADD = libhprof/libhpcore.la -lpthread
bench_mkbig_SOURCES = bench/mkbig.c
bench_mkbig_LDADD = libhprof/libhpcodec.la
.PHONY: bench bench-run bench-readme bench-query bench-fixed bench-ompcost bench-scale bench-msgrate bench-taskcost bench-aggscale
bench: all bench/mkbig$(EXEEXT)
	bash $(top_srcdir)/bench/record.sh $(abs_top_builddir)
bench-readme:
	bash $(top_srcdir)/bench/readme.sh $${BENCH_OUT:-$(abs_top_builddir)/bench/results}/bench.md $(top_srcdir)/docs/performance.md
bench-run: all
	$(SHELL) $(top_srcdir)/bench/run.sh $(abs_top_builddir)
bench-fixed: all
	bash $(top_srcdir)/bench/fixed.sh $(abs_top_builddir)
bench-query: all tests/unit/mkdeep$(EXEEXT)
	bash $(top_srcdir)/bench/query.sh $(abs_top_builddir)
bench-ompcost: all
	bash $(top_srcdir)/bench/ompcost.sh $(abs_top_builddir)
bench-scale: all bench/mkbig$(EXEEXT)
	bash $(top_srcdir)/bench/scale.sh $(abs_top_builddir)
bench-msgrate: all
	bash $(top_srcdir)/bench/msgrate.sh $(abs_top_builddir)
bench-aggscale: all bench/aggmerge$(EXEEXT)
	bash $(top_srcdir)/bench/aggscale.sh $(abs_top_builddir)
bench-taskcost: all
	bash $(top_srcdir)/bench/taskcost.sh $(abs_top_builddir)
# `make bench-live`: live snapshots (HPROF_LIVE): snapshots of a 10^6-node
# tree in CPU ms (bench/livesnap.c) and the added cost of HPROF_LIVE=1 on a
# 4-rank x 2-thread run, the snapshot threads' CPU time (bench/live.sh).
EXTRA_DIST += bench/live.sh
check_PROGRAMS += bench/livesnap
bench_livesnap_SOURCES = bench/livesnap.c
bench_livesnap_CFLAGS = $(AM_CFLAGS) -pthread
bench_livesnap_LDADD = libhprof/libhpcore.la -lpthread
.PHONY: bench-live
bench-live: all bench/livesnap$(EXEEXT)
	bash $(top_srcdir)/bench/live.sh $(abs_top_builddir)
# `make bench-vtime`: what HPROF_VIRTUAL_TIME=1 adds per message and per
# iteration of a halo-exchange stencil (bench/vtime.sh, callgrind on
# bench/msgrate.c and bench/halo.c); also part of `make bench`.
EXTRA_DIST += bench/vtime.sh
.PHONY: bench-vtime
bench-vtime: all
	bash $(top_srcdir)/bench/vtime.sh $(abs_top_builddir)
