# tests/local.mk - rules for tests/ (filled in by its work)
