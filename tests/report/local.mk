# tests/report/local.mk - hprof-report's HTML page loaded in headless
# Chromium (skips, exit 77, without it), on the known profile of
# tests/unit/mkprofile and on real MPI runs.  Included from tests/local.mk.
EXTRA_DIST += tests/report/run.sh
if HAVE_MPI
TESTS += tests/report/run.sh
endif
