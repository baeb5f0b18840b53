# tests/tier1policy/local.mk - `hprof-cc --tier=1`: the default
# instrumentation policy applied to -finstrument-functions hooks (tiny
# procedures unhooked, --procedures=all, filter rules on whole names, the
# fallback for a file libclang cannot parse, a probe instead of hooks on
# a static procedure called once), against the ground truth of
# tests/tier1policy/t1policy.c, nested.c and once.c.  Included from
# instrument/local.mk.
TESTS += tests/tier1policy/run.sh
EXTRA_DIST += tests/tier1policy/run.sh tests/tier1policy/t1policy.c tests/tier1policy/nested.c \
	tests/tier1policy/once.c
