# man/local.mk - the manual pages.  hprof-cc(1), hprof-instrument(1),
# hprof-merge(1), hprof-query(1) and hprof-report(1) are made by help2man
# from the programs' own --help and --version, with man/NAME.h2m adding
# NAME, EXAMPLES and SEE ALSO: a page cannot drift from --help.  hprof(7)
# is made from man/settings.txt, the one table of the HPROF_* settings
# (man/settings.py).  The pages are distributed, so a build from the
# tarball needs no help2man; tests/help.sh checks them.
HPROF_MAN_INPUTS = man/hprof-cc.h2m man/hprof-instrument.h2m man/hprof-merge.h2m \
	man/hprof-query.h2m man/hprof-report.h2m man/hprof.7.in man/settings.txt \
	man/settings.py
EXTRA_DIST += $(HPROF_MAN_INPUTS) man/hprof-cc.1 man/hprof-instrument.1
dist_man_MANS = man/hprof-merge.1 man/hprof-query.1 man/hprof-report.1 man/hprof.7
if HAVE_LIBCLANG
dist_man_MANS += man/hprof-cc.1 man/hprof-instrument.1
endif
# The compiler-named copies of hprof-cc share its page.
HPROF_CC_MAN_ALIASES = hprof-gcc hprof-clang hprof-mpicc hprof-g++ hprof-clang++ \
	hprof-mpicxx hprof-gfortran hprof-mpif90 hprof-mpifort

# help2man runs the program built here (an order-only prerequisite: the
# page is remade when its help text's source changes, not at each link).
HPROF_HELP2MAN = $(HELP2MAN) --no-info --no-discard-stderr --section=1
man/hprof-merge.1: $(srcdir)/analyzer/bin/hprof-merge.c $(srcdir)/man/hprof-merge.h2m \
		$(top_srcdir)/configure.ac | analyzer/hprof-merge$(EXEEXT)
	$(AM_V_GEN)mkdir -p man && $(HPROF_HELP2MAN) --include=$(srcdir)/man/hprof-merge.h2m \
		--output=$@.tmp analyzer/hprof-merge$(EXEEXT) && mv $@.tmp $@
man/hprof-query.1: $(srcdir)/analyzer/bin/hprof-query.c $(srcdir)/man/hprof-query.h2m \
		$(top_srcdir)/configure.ac | analyzer/hprof-query$(EXEEXT)
	$(AM_V_GEN)mkdir -p man && $(HPROF_HELP2MAN) --include=$(srcdir)/man/hprof-query.h2m \
		--output=$@.tmp analyzer/hprof-query$(EXEEXT) && mv $@.tmp $@
man/hprof-report.1: $(srcdir)/analyzer/bin/hprof-report.c $(srcdir)/man/hprof-report.h2m \
		$(top_srcdir)/configure.ac | analyzer/hprof-report$(EXEEXT)
	$(AM_V_GEN)mkdir -p man && $(HPROF_HELP2MAN) --include=$(srcdir)/man/hprof-report.h2m \
		--output=$@.tmp analyzer/hprof-report$(EXEEXT) && mv $@.tmp $@
man/hprof-instrument.1: $(srcdir)/instrument/main.c $(srcdir)/man/hprof-instrument.h2m \
		$(top_srcdir)/configure.ac | instrument/hprof-instrument$(EXEEXT)
	$(AM_V_GEN)mkdir -p man && $(HPROF_HELP2MAN) --include=$(srcdir)/man/hprof-instrument.h2m \
		--output=$@.tmp instrument/hprof-instrument$(EXEEXT) && mv $@.tmp $@
man/hprof-cc.1: $(srcdir)/instrument/hprof-cc.in $(srcdir)/man/hprof-cc.h2m \
		$(top_srcdir)/configure.ac | instrument/hprof-cc
	$(AM_V_GEN)mkdir -p man && $(HPROF_HELP2MAN) --include=$(srcdir)/man/hprof-cc.h2m \
		--output=$@.tmp instrument/hprof-cc && mv $@.tmp $@
man/hprof.7: $(srcdir)/man/hprof.7.in $(srcdir)/man/settings.txt $(srcdir)/man/settings.py \
		$(top_srcdir)/configure.ac
	$(AM_V_GEN)mkdir -p man && $(PYTHON3) $(srcdir)/man/settings.py man \
		$(srcdir)/man/hprof.7.in $(srcdir)/man/settings.txt $(PACKAGE_VERSION) >$@.tmp && \
		mv $@.tmp $@
MAINTAINERCLEANFILES = $(dist_man_MANS) man/hprof-cc.1 man/hprof-instrument.1

if HAVE_LIBCLANG
install-data-hook: install-hprof-cc-man-aliases
uninstall-hook: uninstall-hprof-cc-man-aliases
endif
install-hprof-cc-man-aliases:
	$(MKDIR_P) '$(DESTDIR)$(man1dir)'
	for a in $(HPROF_CC_MAN_ALIASES); do \
		echo '.so man1/hprof-cc.1' >'$(DESTDIR)$(man1dir)/'$$a.1 || exit 1; \
	done
uninstall-hprof-cc-man-aliases:
	for a in $(HPROF_CC_MAN_ALIASES); do rm -f '$(DESTDIR)$(man1dir)/'$$a.1; done
.PHONY: install-hprof-cc-man-aliases uninstall-hprof-cc-man-aliases
