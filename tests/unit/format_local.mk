# tests/unit/format_local.mk - unit tests of the profile reader (cmocka)
# and the shell test of hprof-merge/hprof-query on a known profile.
# Included from tests/local.mk.
check_PROGRAMS += tests/unit/mkprofile
tests_unit_mkprofile_SOURCES = tests/unit/mkprofile.c
tests_unit_mkprofile_LDADD = libhprof/libhpcore.la

TESTS += tests/unit/test_query.sh
EXTRA_DIST += tests/unit/test_query.sh tests/unit/expect.sh
TESTS += tests/unit/test_views.sh
EXTRA_DIST += tests/unit/test_views.sh
# hprof-merge's database, digested, equals the one before streaming
TESTS += tests/unit/test_stream.sh
EXTRA_DIST += tests/unit/test_stream.sh

# HPROF_* values of the wrong kind (a directory, a device, " 5"), end to end
TESTS += tests/unit/test_config.sh
EXTRA_DIST += tests/unit/test_config.sh

if HAVE_CMOCKA
# intrusion compensation's arithmetic on hand-made trees
check_PROGRAMS += tests/unit/test_compensate
TESTS += tests/unit/test_compensate
tests_unit_test_compensate_SOURCES = tests/unit/test_compensate.c
tests_unit_test_compensate_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_compensate_LDADD = libhprof/libhpcodec.la $(CMOCKA_LIBS)

check_PROGRAMS += tests/unit/test_format
tests_unit_test_format_SOURCES = tests/unit/test_format.c
tests_unit_test_format_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyzer
tests_unit_test_format_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_format_LDADD = analyzer/libhpanalyze.la $(CMOCKA_LIBS)
TESTS += tests/unit/test_format
endif

# hprof-query --check on known good and broken profiles
check_PROGRAMS += tests/unit/mkcheck
tests_unit_mkcheck_SOURCES = tests/unit/mkcheck.c
tests_unit_mkcheck_LDADD = libhprof/libhpcore.la
TESTS += tests/unit/test_check.sh
EXTRA_DIST += tests/unit/test_check.sh

# the database of a deep, large tree: no path strings, size bounded
check_PROGRAMS += tests/unit/mkdeep
tests_unit_mkdeep_SOURCES = tests/unit/mkdeep.c
tests_unit_mkdeep_LDADD = libhprof/libhpcodec.la
TESTS += tests/unit/test_deep.sh
EXTRA_DIST += tests/unit/test_deep.sh

# the aggregates hprof-merge stores and the database format version
TESTS += tests/unit/test_scale.sh
EXTRA_DIST += tests/unit/test_scale.sh
