! tests/fmpi/fmpi08.f90 - MPI from Fortran through `use mpi_f08` (derived
! handle types, TYPE(MPI_Status), ierror left out everywhere: it is
! optional in mpi_f08; MPI_Init_thread), with known ground truth.  Two ranks; each rank's
! partner is 1 - rank.
!
!  a. rank 1 sends NSEND = 4 messages of 50 integers (200 bytes) to rank 0
!     (MARK:send08); rank 0 receives them into a TYPE(MPI_Status) whose
!     MPI_SOURCE must be 1 (MARK:recv08).
!  b. each rank posts 2 receives (MARK:irecv08) and 2 sends (MARK:isend08)
!     of 6 integers (24 bytes) from/to its partner, completed by one
!     MPI_Waitall with MPI_STATUSES_IGNORE (MARK:waitall08).
!  c. 3 MPI_Allreduce of 5 integers with MPI_IN_PLACE (MARK:allreduce08):
!     20 bytes sent and 20 received each.
!  d. the module procedure ring08::shift is called NSHIFT = 7 times; each
!     does one MPI_Sendrecv_replace of 3 double precision (24 bytes) with
!     the partner (MARK:replace08): 14 records per rank (its send and its
!     receive), 168 bytes sent and 168 received.
!  e. one MPI_Barrier (MARK:barrier08).
! Output: one line per rank, the same with and without hprof.
module ring08
  use mpi_f08
  implicit none
contains
  subroutine shift(partner, v)
    integer, intent(in) :: partner
    double precision, intent(inout) :: v(3)
    call MPI_Sendrecv_replace(v, 3, MPI_DOUBLE_PRECISION, partner, 3, partner, 3, &
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE) ! MARK:replace08
  end subroutine shift
end module ring08

program fmpi08
  use mpi_f08
  use ring08
  implicit none
  integer, parameter :: NSEND = 4, NSHIFT = 7
  integer :: rank, partner, i, k, provided
  integer :: bad = 0
  integer :: ibuf(50), isb(6, 2), irb(6, 2), x(5)
  type(MPI_Request) :: reqs(4)
  type(MPI_Status) :: st
  double precision :: v(3)

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided)
  if (provided < MPI_THREAD_FUNNELED) bad = bad + 1
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  partner = 1 - rank

  ! a.
  do i = 1, NSEND
    if (rank == 1) then
      ibuf = i
      call MPI_Send(ibuf, 50, MPI_INTEGER, 0, i, MPI_COMM_WORLD) ! MARK:send08
    else
      call MPI_Recv(ibuf, 50, MPI_INTEGER, MPI_ANY_SOURCE, i, MPI_COMM_WORLD, st) ! MARK:recv08
      if (st%MPI_SOURCE /= 1 .or. st%MPI_TAG /= i .or. ibuf(50) /= i) bad = bad + 1
    end if
  end do

  ! b.
  isb = rank
  do k = 1, 2
    call MPI_Irecv(irb(1, k), 6, MPI_INTEGER, partner, k, MPI_COMM_WORLD, reqs(k)) ! MARK:irecv08
  end do
  do k = 1, 2
    call MPI_Isend(isb(1, k), 6, MPI_INTEGER, partner, k, MPI_COMM_WORLD, reqs(2 + k)) ! MARK:isend08
  end do
  call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE) ! MARK:waitall08
  if (any(irb /= partner)) bad = bad + 1
  if (reqs(1) /= MPI_REQUEST_NULL) bad = bad + 1

  ! c.
  do k = 1, 3
    x = rank + k
    call MPI_Allreduce(MPI_IN_PLACE, x, 5, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD) ! MARK:allreduce08
    if (x(5) /= 2 * k + 1) bad = bad + 1
  end do

  ! d.
  do i = 1, NSHIFT
    v = rank * 10 + i
    call shift(partner, v)
    if (v(3) /= partner * 10 + i) bad = bad + 1
  end do

  ! e.
  call MPI_Barrier(MPI_COMM_WORLD) ! MARK:barrier08

  write (*, '(a,i0,a,i0)') 'rank ', rank, ' bad ', bad
  call MPI_Finalize()
end program fmpi08
