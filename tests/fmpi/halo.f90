! tests/fmpi/halo.f90 - the module of tests/fmpi/fmpi.f90 (its ground truth
! is there): halo_mod::exchange swaps 16 integers with a partner rank.
module halo_mod
  use mpi
  implicit none
contains
  subroutine exchange(partner, sbuf, rbuf)
    integer, intent(in) :: partner
    integer, intent(in) :: sbuf(16)
    integer, intent(out) :: rbuf(16)
    integer :: ierr
    call MPI_Sendrecv(sbuf, 16, MPI_INTEGER, partner, 7, rbuf, 16, MPI_INTEGER, partner, 7, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! MARK:sendrecv
  end subroutine exchange
end module halo_mod
