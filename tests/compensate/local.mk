# tests/compensate/local.mk - intrusion compensation against ground truth:
# tests/compensate/tiny_calls.c built plain and in tier 2 by
# tests/compensate/run.sh, which compares the compensated time of its
# parent region with the plain build's own measurement.  Included from
# tests/local.mk.
EXTRA_DIST += tests/compensate/run.sh tests/compensate/tiny_calls.c
TESTS += tests/compensate/run.sh
