# analyzer/local.mk - rules for analyzer/ (filled in by its work)
