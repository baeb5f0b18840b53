! heat.f90 - the ground-truth program of tests/fortran/run.sh: a module
! procedure, an internal procedure, a tiny procedure, an OpenMP parallel
! do and a user region of `use hprof`, in a program named heat.
!
! Ground truth (one process; the parallel do has num_threads(NT), NT = 2):
!   - halo_mod::exchange   called NEXCH = 10 times, from heat (MARK:exch)
!   - heat::smooth         (internal) called NSMOOTH = 3 times (MARK:smooth)
!   - halo_mod::relax      called NRELAX = 2 times (MARK:relax)
!   - halo_mod::twice      tiny (straight-line, no call): unprobed by the
!                          policy; called NTWICE = 3 times (MARK:twice)
!   - heat                 the program (gfortran's MAIN__), run once
!   - heat::scale         (internal) called NSCALE = 1 time (MARK:scale),
!                          holds a parallel do with num_threads(NT) too
!                          (MARK:ompscale): outside any region, so at
!                          tier 0 its fork's call path has the frame heat
!                          at the call (MARK:scale)
!   - user region "solve"  in halo_mod::relax (MARK:region), 2 times
!   - parallel do          in halo_mod::relax (MARK:omp), forked 2 times by
!                          one thread, run by NT threads each time: 4
!                          thread-executions of the region, NITER = 1000
!                          iterations each time
! It prints one line (a checksum of the work) and stops with status 3.
module halo_mod
  use hprof
  implicit none
  integer, parameter :: n = 1000
contains
  subroutine exchange(a)
    real(8), intent(inout) :: a(n)
    integer :: i
    do i = 2, n
      a(i) = a(i) + 0.5d0 * a(i - 1)
      a(i) = a(i) * 0.25d0
      a(i) = a(i) + 1.0d0
      a(i) = a(i) - 0.125d0
      a(i) = max(a(i), 0.0d0)
    end do
  end subroutine exchange

  pure function twice(x) result(y)
    real(8), intent(in) :: x
    real(8) :: y
    y = 2.0d0 * x
  end function twice

  subroutine relax(a)
    real(8), intent(inout) :: a(n)
    integer :: i
    call hprof_region_begin('solve') ! MARK:region
    !$omp parallel do num_threads(2) ! MARK:omp
    do i = 1, n
      a(i) = sqrt(a(i) * a(i) + 1.0d0)
    end do
    !$omp end parallel do
    call hprof_region_end('solve')
  end subroutine relax
end module halo_mod

program heat
  use halo_mod
  implicit none
  real(8) :: a(n), s
  integer :: k
  a = 1.0d0
  s = 0.0d0
  do k = 1, 10
    call exchange(a) ! MARK:exch
  end do
  do k = 1, 3
    s = s + twice(a(k)) ! MARK:twice
    call smooth(a) ! MARK:smooth
  end do
  do k = 1, 2
    call relax(a) ! MARK:relax
  end do
  call scale(a) ! MARK:scale
  write (*, '(a, f14.6)') 'checksum', s + sum(a)
  stop 3
contains
  subroutine scale(b)
    real(8), intent(inout) :: b(n)
    integer :: i
    !$omp parallel do num_threads(2) ! MARK:ompscale
    do i = 1, n
      b(i) = 0.5d0 * b(i)
    end do
    !$omp end parallel do
  end subroutine scale

  subroutine smooth(b)
    real(8), intent(inout) :: b(n)
    integer :: i
    do i = 2, n - 1
      b(i) = 0.5d0 * b(i) + 0.25d0 * (b(i - 1) + b(i + 1))
      b(i) = b(i) + 0.0d0
      b(i) = b(i) * 1.0d0
      b(i) = b(i) - 0.0d0
    end do
  end subroutine smooth
end program heat
