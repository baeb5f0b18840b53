! constructs.f90 - the OpenMP ground-truth program of tests/fortran/run.sh
! for tier 2 (opari2 rewrites each construct into the POMP2 calls of
! libhprof/sources/pomp2_fortran.c): one parallel region of NT = 2
! threads, run once.  Ground truth, summed over the threads:
!   - parallel (MARK:par): 2 thread-runs, 1 fork, 1 join
!   - do (MARK:do): 2 thread-runs (POMP2 "loop"), 2 implicit barriers
!   - critical (MARK:critical): 2 holds
!   - single (MARK:single): 1 execution, 2 implicit barriers
!   - barrier (MARK:barrier): 2
!   - atomic (MARK:atomic): 2
!   - sections (MARK:sections): 2 thread-runs ("loop"), 2 implicit barriers
!   - master (MARK:master): 1 execution
!   - omp_set_lock (MARK:lock): 2 sets (lock wait) and 2 holds (lock)
!   - omp_set_nest_lock (MARK:nest): 2 holds, from the outer set to the
!     unset that releases it (MARK:nest2 sets it again while held)
!   - task (MARK:task), created NTASK = 4 times by the single thread of
!     MARK:tasks: 4 creations, 4 executions; taskwait (MARK:taskwait): 1
!   - a parallel do whose directive is continued over two lines
!     (MARK:cont): 2 thread-runs, 1 fork, at the directive's first line
! At tier 0 (GOMP) gfortran puts some runtime calls on a neighbouring
! line; the tests check there the constructs placed from the directives'
! text, and the lock calls (not: atomic and master, which make no runtime
! call, and an end barrier gfortran puts on the region's line).
! It prints one line of results.
program constructs
  use omp_lib
  implicit none
  integer :: i, s, t
  integer(omp_lock_kind) :: l
  integer(omp_nest_lock_kind) :: nl
  real(8) :: a(100), b(2)
  s = 0
  t = 0
  a = 1.0d0
  b = 0.0d0
  call omp_init_lock(l)
  call omp_init_nest_lock(nl)
  !$omp parallel num_threads(2) private(i) ! MARK:par
  !$omp do ! MARK:do
  do i = 1, 100
    a(i) = a(i) * 2.0d0
  end do
  !$omp end do
  !$omp critical ! MARK:critical
  s = s + 1
  !$omp end critical
  !$omp single ! MARK:single
  t = t + 1
  !$omp end single
  !$omp barrier ! MARK:barrier
  !$omp atomic ! MARK:atomic
  s = s + 1
  !$omp sections ! MARK:sections
  !$omp section
  b(1) = 1.0d0
  !$omp section
  b(2) = 2.0d0
  !$omp end sections
  !$omp master ! MARK:master
  t = t + 10
  !$omp end master
  call omp_set_lock(l) ! MARK:lock
  s = s + 1
  call omp_unset_lock(l)
  call omp_set_nest_lock(nl) ! MARK:nest
  call omp_set_nest_lock(nl) ! MARK:nest2
  s = s + 1
  call omp_unset_nest_lock(nl)
  call omp_unset_nest_lock(nl)
  !$omp single ! MARK:tasks
  do i = 1, 4
    !$omp task firstprivate(i) ! MARK:task
    a(i) = a(i) + 1.0d0
    !$omp end task
  end do
  !$omp taskwait ! MARK:taskwait
  !$omp end single
  !$omp end parallel
  !$omp parallel do num_threads(2) & ! MARK:cont
  !$omp& reduction(+:s)
  do i = 1, 10
    s = s + 1
  end do
  !$omp end parallel do
  call omp_destroy_lock(l)
  call omp_destroy_nest_lock(nl)
  write (*, '(a, 2i6, 2f10.2)') 'result', s, t, sum(a), sum(b)
end program constructs
