# tests/target/local.mk - a program whose only OpenMP is target regions,
# at tier 0 with gcc (tests/target/run.sh).  Included from tests/local.mk.
EXTRA_DIST += tests/target/run.sh tests/target/target.c
TESTS += tests/target/run.sh
