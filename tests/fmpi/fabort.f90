! tests/fmpi/fabort.f90 - MPI_Abort called from Fortran leaves the aborting
! rank's records, as from C.  Two ranks: rank 1 sends NS = 3 messages of
! 4 integers (16 bytes) to rank 0 (MARK:fsend), which receives them
! (MARK:frecv); then rank 1 calls MPI_Abort(MPI_COMM_WORLD, 5) (MARK:fabort)
! while rank 0 waits in MPI_Barrier.  Ground truth in the file rank 1
! writes: peer 0, count 3, bytes_sent 48 at fsend; rank 0 has no records.
! Rank 0 prints the last value it received before the abort.
program fabort
  use mpi
  implicit none
  integer, parameter :: NS = 3
  integer :: rank, ierr, i, buf(4)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  do i = 1, NS
    if (rank == 1) then
      buf = i
      call MPI_Send(buf, 4, MPI_INTEGER, 0, i, MPI_COMM_WORLD, ierr) ! MARK:fsend
    else
      call MPI_Recv(buf, 4, MPI_INTEGER, 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! MARK:frecv
    end if
  end do
  if (rank == 0) then
    write (*, '(a,i0)') 'received ', buf(4)
    flush (6)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  else
    call MPI_Abort(MPI_COMM_WORLD, 5, ierr) ! MARK:fabort
  end if
  call MPI_Finalize(ierr)
end program fabort
