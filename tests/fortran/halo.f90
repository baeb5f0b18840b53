! halo.f90 - the MPI ground-truth program of tests/fortran/run.sh: MPI
! from Fortran (use mpi) in module procedures, with MPI_Pcontrol and
! OpenMP, in a program named halo.  Run on 2 ranks.
!
! Ground truth (sums over the 2 ranks):
!   - halo_mod::exchange   called NEX = 6 times per rank (MARK:exch), each
!                          one MPI_Sendrecv of 8 doubles with the other rank
!                          (MARK:sendrecv: gfortran gives a call continued
!                          over lines the line of its last part); the last NOFF = 2 calls run
!                          between MPI_Pcontrol(0) (MARK:off) and
!                          MPI_Pcontrol(1) (MARK:on), recorded nowhere: 4
!                          recorded calls per rank, 8 in all, of exchange
!                          and of its MPI_Sendrecv
!   - halo_mod::total      called once per rank (MARK:total): one
!                          MPI_Allreduce (MARK:allreduce), 2 in all
!   - halo_mod::relax      called once per rank (MARK:relax): a parallel
!                          do with num_threads(2) (MARK:omp): 4 thread-runs
!                          of the region and 2 forks in all
!   - halo                 the program, once per rank
! Rank 0 prints one line (the sum), the program ends with status 0.
module halo_mod
  use mpi
  implicit none
  integer, parameter :: n = 8
contains
  subroutine exchange(a, b, peer)
    real(8), intent(in) :: a(n)
    real(8), intent(out) :: b(n)
    integer, intent(in) :: peer
    integer :: ierr
    call MPI_Sendrecv(a, n, MPI_DOUBLE_PRECISION, peer, 7, b, n, MPI_DOUBLE_PRECISION, &
                      peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! MARK:sendrecv
  end subroutine exchange

  function total(x) result(s)
    real(8), intent(in) :: x
    real(8) :: s
    integer :: ierr
    call MPI_Allreduce(x, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr) ! MARK:allreduce
  end function total

  subroutine relax(a)
    real(8), intent(inout) :: a(n)
    integer :: i
    !$omp parallel do num_threads(2) ! MARK:omp
    do i = 1, n
      a(i) = sqrt(a(i) * a(i) + 1.0d0)
    end do
    !$omp end parallel do
  end subroutine relax
end module halo_mod

program halo
  use halo_mod
  implicit none
  real(8) :: a(n), b(n), s
  integer :: ierr, rank, size, k
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  a = rank + 1.0d0
  do k = 1, 6
    if (k == 5) call MPI_Pcontrol(0) ! MARK:off
    call exchange(a, b, 1 - rank) ! MARK:exch
    a = 0.5d0 * (a + b)
  end do
  call MPI_Pcontrol(1) ! MARK:on
  call relax(a) ! MARK:relax
  s = total(sum(a)) ! MARK:total
  if (rank == 0) write (*, '(a, f14.6)') 'sum', s
  call MPI_Finalize(ierr)
end program halo
