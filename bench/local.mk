# bench/local.mk - `make bench`: wrapper-cost and ping-pong benchmarks of
# plain vs -lhprof builds, probe costs of tiers 1 and 2, whole-program
# overhead of the examples (bench/run.sh); first and second hprof-query on
# a 10^6-node profile (bench/query.sh, alone: `make bench-query`); the
# fixed cost of a run (bench/fixed.sh, alone: `make bench-fixed`); OpenMP
# constructs in instructions, GOMP vs OMPT (bench/ompcost.sh, alone:
# `make bench-ompcost`, QUICK=1 for a short one).  Never
# part of `make check`.
EXTRA_DIST += bench/run.sh bench/query.sh bench/fixed.sh bench/ompcost.sh bench/pingpong.c bench/wrapcost.c bench/ompbench.c \
	bench/probe.c
.PHONY: bench bench-query bench-fixed bench-ompcost
bench: all
	$(SHELL) $(top_srcdir)/bench/run.sh $(abs_top_builddir)
	$(MAKE) $(AM_MAKEFLAGS) bench-query
	$(MAKE) $(AM_MAKEFLAGS) bench-fixed
bench-fixed: all
	bash $(top_srcdir)/bench/fixed.sh $(abs_top_builddir)
bench-query: all tests/unit/mkdeep$(EXEEXT)
	bash $(top_srcdir)/bench/query.sh $(abs_top_builddir)
bench-ompcost: all
	bash $(top_srcdir)/bench/ompcost.sh $(abs_top_builddir)
