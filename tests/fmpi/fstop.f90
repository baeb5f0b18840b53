! tests/fmpi/fstop.f90 - a Fortran program that ends with ERROR STOP
! without MPI_Finalize, on one rank: its records up to then stay, in its
! own file, and the program's output and exit status (4) are unchanged.
! Ground truth: 3 MPI_Barrier calls (MARK:sbarrier), flagged unfinalized.
program fstop
  use mpi
  implicit none
  integer :: ierr, i
  call MPI_Init(ierr)
  do i = 1, 3
    call MPI_Barrier(MPI_COMM_WORLD, ierr) ! MARK:sbarrier
  end do
  write (*, '(a)') 'fstop: leaving without MPI_Finalize'
  flush (6)
  error stop 4
end program fstop
