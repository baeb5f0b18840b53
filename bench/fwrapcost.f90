! fwrapcost.f90 - hprof benchmark (bench/run.sh): wrapcost.c's three loops
! called from Fortran (`use mpi`), so that the added cost of a Fortran
! binding's wrapper can be set beside the C wrapper's on the same call:
! 10^6 MPI_Send to MPI_PROC_NULL, 10^6 MPI_Iprobe that find no message,
! and 10^6/3 rounds of MPI_Irecv + MPI_Isend of 8 bytes to the rank itself
! + MPI_Waitall.  Rank 0 prints the median over 5 batches of ns per call:
! "wrapcost Fortran CALL NS_PER_CALL".
! usage: fwrapcost [CALLS]   (default 1000000)
program fwrapcost
  use mpi
  implicit none
  integer, parameter :: BATCHES = 5
  integer :: rank, ierr, b, v, st(MPI_STATUS_SIZE), r(2)
  integer(kind=8) :: calls, per, i, rounds
  logical :: flag
  double precision :: ns_send(BATCHES), ns_iprobe(BATCHES), ns_self(BATCHES), t0, x, y
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  calls = 1000000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) calls
  end if
  per = max(calls / BATCHES, 1_8)
  v = 42
  x = 1
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  do b = 1, BATCHES
    t0 = MPI_Wtime()
    do i = 1, per
      call MPI_Send(v, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, ierr)
    end do
    ns_send(b) = (MPI_Wtime() - t0) * 1d9 / per
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  do b = 1, BATCHES
    t0 = MPI_Wtime()
    do i = 1, per
      call MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, flag, st, ierr)
    end do
    ns_iprobe(b) = (MPI_Wtime() - t0) * 1d9 / per
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  rounds = per / 3
  do b = 1, BATCHES
    t0 = MPI_Wtime()
    do i = 1, rounds
      call MPI_Irecv(y, 1, MPI_DOUBLE_PRECISION, rank, 7, MPI_COMM_WORLD, r(1), ierr)
      call MPI_Isend(x, 1, MPI_DOUBLE_PRECISION, rank, 7, MPI_COMM_WORLD, r(2), ierr)
      call MPI_Waitall(2, r, MPI_STATUSES_IGNORE, ierr)
    end do
    ns_self(b) = (MPI_Wtime() - t0) * 1d9 / (3 * rounds)
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a,f0.1)') 'wrapcost Fortran MPI_Send(PROC_NULL) ', median(ns_send)
    write (*, '(a,f0.1)') 'wrapcost Fortran MPI_Iprobe ', median(ns_iprobe)
    write (*, '(a,f0.1)') 'wrapcost Fortran Irecv+Isend+Waitall(self) ', median(ns_self)
  end if
  call MPI_Finalize(ierr)
contains
  double precision function median(a)
    double precision, intent(in) :: a(BATCHES)
    double precision :: s(BATCHES), t
    integer :: j, k
    s = a
    do j = 2, BATCHES
      do k = j, 2, -1
        if (s(k - 1) <= s(k)) exit
        t = s(k); s(k) = s(k - 1); s(k - 1) = t
      end do
    end do
    median = s((BATCHES + 1) / 2)
  end function median
end program fwrapcost
