# tests/fuzz/local.mk - a short libFuzzer run of the profile reader and
# merge on every `make check` (HPROF_FUZZ_SECONDS, default 20).  Included
# from tests/local.mk.
TESTS += tests/fuzz/run.sh
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/fuzz_profile.c
