# tests/fmpi/local.mk - MPI from Fortran at tier 0: tests/fmpi/run.sh
# builds its programs itself with mpif90 (use mpi, use mpi_f08, MPI_Abort)
# against pmpi/.libs/libhprof.so.  Included from tests/local.mk.
EXTRA_DIST += tests/fmpi/run.sh tests/fmpi/fmpi.f90 tests/fmpi/halo.f90 tests/fmpi/fmpi08.f90 \
	tests/fmpi/fabort.f90 tests/fmpi/fstop.f90
if HAVE_MPI
TESTS += tests/fmpi/run.sh
endif
