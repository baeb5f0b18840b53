# tests/policy/local.mk - hprof-instrument's default instrumentation
# policy (nested call-free loops, tiny procedures and their calls left
# unprobed in the site table), --loops=all/--procedures=all, and
# hprof-query --suggest-filter, against the ground truth of
# tests/policy/policy.c.  Included from instrument/local.mk.
TESTS += tests/policy/run.sh
EXTRA_DIST += tests/policy/run.sh tests/policy/policy.c tests/policy/calls.c tests/policy/leaf.c tests/policy/looptiny.c tests/policy/looptiny.h tests/policy/exitdeep.c tests/policy/exitthrottled.c
