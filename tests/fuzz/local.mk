# tests/fuzz/local.mk - a short libFuzzer run of the profile reader, the
# merge and the database writer, and of the instrumenter, on every `make
# check` (HPROF_FUZZ_SECONDS, default 20 per target).  Included from
# tests/local.mk.
TESTS += tests/fuzz/run.sh
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/fuzz_profile.c tests/fuzz/fuzz_instrument.c
