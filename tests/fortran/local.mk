# tests/fortran/local.mk - Fortran at tiers 0, 1 and 2 against the ground
# truth of tests/fortran/heat.f90, constructs.f90 and, with MPI, halo.f90
# (names, counts, OpenMP through GOMP and opari2's POMP2, `use hprof`, the
# policy and the filter).  The programs need gfortran, mpif90, hprof-cc
# and the module hprof.mod, so run.sh builds them itself.  Included from
# tests/local.mk.
EXTRA_DIST += tests/fortran/run.sh tests/fortran/heat.f90 tests/fortran/halo.f90 \
	tests/fortran/constructs.f90
if HAVE_LIBCLANG
if HAVE_MPI
if HAVE_GFORTRAN
TESTS += tests/fortran/run.sh
endif
endif
endif
