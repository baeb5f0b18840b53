# analyzer/local.mk - rules for analyzer/: the profile reader, the SQLite
# writer and the command line tools hprof-merge, hprof-query and
# hprof-report.  Four layers, each including only those below it
# (tests/layout.sh checks it), and the programs on top:
#   bin/     the three programs' main files and hprof-query -i
#   render/  pictures and pages drawn from query results: flame graph SVG,
#            folded stacks, hprof-report's HTML page
#   query/   hprof-query's reports and views over the database, and the
#            result tables they fill and print (text, CSV, JSON)
#   db/      hprof-merge's core: merging a profile's ranks, the SQLite
#            database and the aggregates stored in it
#   read/    decoding a profile file (.hpf)
# A header of another layer is included with its folder ("db/db.h");
# one of the same folder by its bare name.
ANALYZER_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/analyzer

noinst_LTLIBRARIES += analyzer/libhpanalyze.la
analyzer_libhpanalyze_la_SOURCES = \
	analyzer/read/hpf_read.h analyzer/read/hpf_read.c analyzer/read/hpf_file.c \
	analyzer/read/hpf_section.h analyzer/read/hpf_section.c \
	analyzer/read/hpf_agg.h analyzer/read/hpf_agg.c \
	analyzer/db/keymap.h analyzer/db/keymap.c \
	analyzer/db/nodemap.h analyzer/db/nodemap.c \
	analyzer/db/merge.h analyzer/db/merge.c \
	analyzer/db/db.h analyzer/db/db.c analyzer/db/db_tree.h analyzer/db/db_tree.c analyzer/db/identity.c \
	analyzer/db/db_agg.h analyzer/db/db_agg.c \
	analyzer/db/db_aggregator.h analyzer/db/db_aggregator.c \
	analyzer/db/db_aggnode.c analyzer/db/db_aggsite.c analyzer/db/db_aggcomm.c \
	analyzer/db/db_fromagg.h analyzer/db/db_fromagg.c analyzer/db/db_fromagg_tab.c \
	analyzer/db/db_rows.h analyzer/db/db_rows.c analyzer/db/statrow.h \
	analyzer/db/detail.h analyzer/db/detail.c \
	analyzer/db/detail_src.h analyzer/db/detail_src.c \
	analyzer/db/detail_sums.h analyzer/db/detail_sums.c \
	analyzer/db/rankidx.h analyzer/db/rankidx.c \
	analyzer/db/rankidx_read.h analyzer/db/rankidx_read.c \
	analyzer/db/db_order.h analyzer/db/db_order.c \
	analyzer/db/db_counters.h analyzer/db/db_counters.c \
	analyzer/db/dbcomp.h analyzer/db/dbcomp.c \
	analyzer/db/parts.h analyzer/db/parts.c \
	analyzer/db/phases.h analyzer/db/phases.c \
	analyzer/db/ovh_class.h analyzer/db/ovh_class.c analyzer/db/db_aggovh.c
analyzer_libhpanalyze_la_CPPFLAGS = $(ANALYZER_CPPFLAGS)
analyzer_libhpanalyze_la_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) -pthread
analyzer_libhpanalyze_la_LIBADD = libhprof/libhpcodec.la $(SQLITE_LIBS) -lpthread

bin_PROGRAMS += analyzer/hprof-merge analyzer/hprof-query
analyzer_hprof_merge_SOURCES = analyzer/bin/hprof-merge.c
analyzer_hprof_merge_CPPFLAGS = $(ANALYZER_CPPFLAGS)
analyzer_hprof_merge_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
analyzer_hprof_merge_LDADD = analyzer/libhpanalyze.la

# The reports (query/) and the pictures (render/flame*), shared by
# hprof-query and hprof-report.
noinst_LTLIBRARIES += analyzer/libhpreport.la
analyzer_libhpreport_la_SOURCES = \
	analyzer/query/qopen.h analyzer/query/qopen.c \
	analyzer/query/qlive.h analyzer/query/qlive.c analyzer/query/qlive_rates.c \
	analyzer/query/aggview.h analyzer/query/aggview.c \
	analyzer/query/aggcheck.h analyzer/query/aggcheck.c \
	analyzer/query/sitesel.h analyzer/query/sitesel.c \
	analyzer/query/nodepath.h analyzer/query/nodepath.c \
	analyzer/query/table.h analyzer/query/table.c \
	analyzer/query/report.h analyzer/query/report.c \
	analyzer/query/report_util.h analyzer/query/report_util.c \
	analyzer/query/report_tree.c \
	analyzer/query/counter_cols.h analyzer/query/counter_cols.c \
	analyzer/query/endings.h analyzer/query/endings.c \
	analyzer/query/trace.c analyzer/query/suggest.c analyzer/query/callers.c \
	analyzer/query/hatchet.c analyzer/query/overheads.c \
	analyzer/query/check.h analyzer/query/check.c \
	analyzer/query/checktree.h analyzer/query/checktree.c \
	analyzer/query/matrix.h analyzer/query/matrix.c analyzer/query/compare.c \
	analyzer/query/flame.h analyzer/query/flame.c \
	analyzer/render/flame_out.h analyzer/render/flame_out.c \
	analyzer/render/flame_svg.c
analyzer_libhpreport_la_CPPFLAGS = $(ANALYZER_CPPFLAGS)
analyzer_libhpreport_la_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
analyzer_libhpreport_la_LIBADD = analyzer/libhpanalyze.la

analyzer_hprof_query_SOURCES = analyzer/bin/hprof-query.c \
	analyzer/bin/interactive.h analyzer/bin/interactive.c \
	analyzer/bin/live_top.h analyzer/bin/live_top.c \
	analyzer/bin/complete.h analyzer/bin/complete.c
analyzer_hprof_query_CPPFLAGS = $(ANALYZER_CPPFLAGS)
analyzer_hprof_query_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(LIBEDIT_CFLAGS)
analyzer_hprof_query_LDADD = analyzer/libhpreport.la $(LIBEDIT_LIBS)

# hprof-report: the HTML page of a run (render/html*.c), on the same reports.
bin_PROGRAMS += analyzer/hprof-report
analyzer_hprof_report_SOURCES = analyzer/bin/hprof-report.c \
	analyzer/render/html.h analyzer/render/html_page.c \
	analyzer/render/html_comm.c analyzer/render/html_omp.c \
	analyzer/render/html_util.c analyzer/render/html_ovh.c \
	analyzer/render/html_imb.c analyzer/render/html_fold.c \
	analyzer/render/html_aggimb.c analyzer/render/html_aggcomm.c
analyzer_hprof_report_CPPFLAGS = $(ANALYZER_CPPFLAGS)
analyzer_hprof_report_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
analyzer_hprof_report_LDADD = analyzer/libhpreport.la
