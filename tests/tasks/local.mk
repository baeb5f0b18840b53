# tests/tasks/local.mk - the task tree and the task timeline for every
# OpenMP event source: tests/tasks/run.sh builds tests/tasks/src/tasktree.c
# and tests/tasks/rec.sh tests/tasks/src/taskrec.c (recursive and
# unbalanced trees, no MPI) with gcc, clang, hprof-cc and opari2 at test
# time; tests/tasks/target_wait.sh a deferred target task that forks a
# region inside its encountering thread's taskwait (tier 0).  Included from tests/local.mk.
EXTRA_DIST += tests/tasks/run.sh tests/tasks/src/tasktree.c tests/tasks/src/taskloop.c \
	tests/tasks/rec.sh tests/tasks/src/taskrec.c \
	tests/tasks/target_wait.sh tests/tasks/src/target_wait.c
TESTS += tests/tasks/rec.sh tests/tasks/target_wait.sh
if HAVE_MPI
TESTS += tests/tasks/run.sh
endif
