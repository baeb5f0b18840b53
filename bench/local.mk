# bench/local.mk - `make bench`: wrapper-cost and ping-pong benchmarks of
# plain vs -lhprof builds, probe costs of tiers 1 and 2, whole-program
# overhead of the examples (bench/run.sh).  Never part of `make check`.
EXTRA_DIST += bench/run.sh bench/pingpong.c bench/wrapcost.c bench/ompbench.c bench/probe.c
.PHONY: bench
bench: all
	$(SHELL) $(top_srcdir)/bench/run.sh $(abs_top_builddir)
