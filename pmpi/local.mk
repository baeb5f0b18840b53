# pmpi/local.mk - rules for pmpi/ (filled in by its work)
