# examples/local.mk - rules for examples/ (filled in by its work)
