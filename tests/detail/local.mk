# tests/detail/local.mk - the database in aggregate mode (no per-rank
# rows, read from the profile on demand) against detail mode: every view
# the same.  Included from tests/local.mk.
EXTRA_DIST += tests/detail/run.sh
TESTS += tests/detail/run.sh
