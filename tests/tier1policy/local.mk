# tests/tier1policy/local.mk - `hprof-cc --tier=1`: the default
# instrumentation policy applied to -finstrument-functions hooks (tiny
# procedures unhooked, --procedures=all, filter rules on whole names, the
# fallback for a file libclang cannot parse), against the ground truth of
# tests/tier1policy/t1policy.c and nested.c.  Included from
# instrument/local.mk.
TESTS += tests/tier1policy/run.sh
EXTRA_DIST += tests/tier1policy/run.sh tests/tier1policy/t1policy.c tests/tier1policy/nested.c
