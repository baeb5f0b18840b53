# tests/compensate/local.mk - intrusion compensation against ground truth:
# tests/compensate/tiny_calls.c built plain and in tier 2 by
# tests/compensate/run.sh, which compares the compensated time of its
# parent region with the plain build's own measurement.  `make check` runs
# its exact checks; `make bench-compensate` its timing ones too (they
# compare two programs' times, which this VM moves by more than 5%).
# Included from tests/local.mk.
EXTRA_DIST += tests/compensate/run.sh tests/compensate/tiny_calls.c
TESTS += tests/compensate/run.sh
.PHONY: bench-compensate
bench-compensate: all
	HPROF_TEST_TIMING=1 bash $(top_srcdir)/tests/compensate/run.sh $(abs_top_builddir)
