# tests/unload/local.mk - modules loaded with dlopen and unloaded with
# dlclose before the run ends, at tiers 0, 1 and 2 (tests/unload/run.sh
# builds its programs itself).  Included from tests/local.mk.
EXTRA_DIST += tests/unload/run.sh tests/unload/host.c tests/unload/plug.c tests/unload/other.c
TESTS += tests/unload/run.sh
