# analyzer/local.mk - rules for analyzer/: the profile reader, the SQLite
# writer and the command line tools hprof-merge and hprof-query.
noinst_LTLIBRARIES += analyzer/libhpanalyze.la
analyzer_libhpanalyze_la_SOURCES = \
	analyzer/hpf_read.h analyzer/hpf_read.c \
	analyzer/keymap.h analyzer/keymap.c \
	analyzer/nodemap.h analyzer/nodemap.c \
	analyzer/merge.h analyzer/merge.c \
	analyzer/db.h analyzer/db.c \
	analyzer/db_agg.h analyzer/db_agg.c analyzer/db_aggnode.c \
	analyzer/dbcomp.h analyzer/dbcomp.c \
	analyzer/parts.h analyzer/parts.c
analyzer_libhpanalyze_la_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
analyzer_libhpanalyze_la_LIBADD = libhprof/libhpcodec.la $(SQLITE_LIBS)

bin_PROGRAMS += analyzer/hprof-merge analyzer/hprof-query
analyzer_hprof_merge_SOURCES = analyzer/hprof-merge.c
analyzer_hprof_merge_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
analyzer_hprof_merge_LDADD = analyzer/libhpanalyze.la

analyzer_hprof_query_SOURCES = analyzer/hprof-query.c \
	analyzer/qopen.h analyzer/qopen.c \
	analyzer/sitesel.h analyzer/sitesel.c \
	analyzer/report.h analyzer/report.c analyzer/report_util.h analyzer/report_tree.c \
	analyzer/endings.h analyzer/endings.c \
	analyzer/trace.c analyzer/suggest.c \
	analyzer/flame.h analyzer/flame.c analyzer/flame_svg.c analyzer/flame_out.c \
	analyzer/check.h analyzer/check.c analyzer/checktree.c \
	analyzer/table.h analyzer/table.c
analyzer_hprof_query_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
analyzer_hprof_query_LDADD = analyzer/libhpanalyze.la

