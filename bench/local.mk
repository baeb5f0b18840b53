# bench/local.mk - rules for bench/ (filled in by its work)
