! order.f90 - ground truth for virtual time from Fortran (tests/vtime/run.sh):
! the order in which two wildcard receives (MPI_ANY_SOURCE, through the
! Fortran bindings, which hprof wraps with its C wrappers) match two
! senders whose real-time order monitoring reverses.  Rank 1 calls the
! tiny procedure leaf CALLS = 4,000,000 times (some 10-50 ms plain, far
! longer with every call probed: hprof-cc --procedures=all,
! HPROF_THROTTLE_CALLS=0), then sends; rank 2 spins SPIN_MS = 150 ms of
! CPU time, then sends; rank 0 receives twice with MPI_ANY_SOURCE.
! Ground truth: the plain build prints "order: 1 2" (rank 0's stdout).
module order_work
  implicit none
  integer, parameter :: CALLS = 4000000, SPIN_MS = 150, TAG = 7
  integer(8), save :: sink = 0
contains
  subroutine leaf(i)
    integer(8), intent(in) :: i
    sink = sink + ieor(i, ishft(i, -3))
  end subroutine leaf

  subroutine compute()
    integer(8) :: i
    do i = 1, CALLS
      call leaf(i)
    end do
  end subroutine compute

  subroutine spin()
    real :: t0, t
    call cpu_time(t0)
    t = t0
    do while ((t - t0) * 1000.0 < SPIN_MS)
      call cpu_time(t)
    end do
  end subroutine spin
end module order_work

program order
  use mpi
  use order_work
  implicit none
  integer :: rank, ierr, from(2), i, st(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    do i = 1, 2
      call MPI_Recv(from(i), 1, MPI_INTEGER, MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, st, ierr)
      if (st(MPI_SOURCE) /= from(i)) from(i) = -from(i)
    end do
    write (*, '(a, i0, a, i0)') 'order: ', from(1), ' ', from(2)
  else if (rank == 1 .or. rank == 2) then
    if (rank == 1) call compute()
    if (rank == 2) call spin()
    call MPI_Send(rank, 1, MPI_INTEGER, 0, TAG, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
end program order
