! tests/fmpi/fmpi.f90 - MPI from Fortran through `use mpi` (fmpi08.f90 does
! the same through `use mpi_f08`), with known ground truth.  Two ranks; each rank's partner is 1 - rank.
!
!  a. rank 0 sends NSEND = 5 messages of 100 integers (400 bytes) to rank 1
!     (MARK:send); rank 1 receives them with MPI_STATUS_IGNORE (MARK:recv).
!  b. each rank posts 3 receives (MARK:irecv) and 3 sends (MARK:isend) of
!     10 double precision (80 bytes) from/to its partner, completed by one
!     MPI_Waitall with a status array (MARK:waitall); every status names the
!     partner and MPI_Get_count gives 10.
!  c. 4 MPI_Allreduce of 8 double precision with MPI_IN_PLACE
!     (MARK:allreduce): 64 bytes sent and 64 received each; one
!     MPI_Allgather with MPI_IN_PLACE of 4 integers per rank
!     (MARK:allgather): 16 bytes sent and 16 received.
!  d. the module procedure halo_mod::exchange (halo.f90, compiled first in
!     the same command, so not inlined here) is called NEXCH = 6 times;
!     each does one MPI_Sendrecv of 16 integers (64 bytes) with the partner
!     (MARK:sendrecv): 12 records per rank (hprof counts its send and its
!     receive), 384 bytes sent and 384 received.  Its tier-0 call
!     path is a frame at the call (MARK:callexch).
!  e. MPI_Waitany over 2 receives, called twice (MARK:waitany): the
!     indices it returns are 1 and 2 in some order (Fortran counts from 1).
!  f. an OpenMP parallel do of 1000 iterations (MARK:pardo) whose sum is
!     printed.
!  g. MPI_Pcontrol(0), one MPI_Barrier (MARK:hidden), MPI_Pcontrol(1): the
!     barrier is not recorded; then one recorded MPI_Barrier (MARK:shown).
!  h. character arguments: a duplicate of MPI_COMM_WORLD is named
!     'halo comm' from a blank-padded variable, and MPI_Comm_get_name gives
!     the name back (resultlen 9); each rank writes 25 integers (100 bytes)
!     at offset 100 * rank to the file 'fmpi_io.tmp' (opened through a
!     blank-padded name) with MPI_File_write_at (MARK:fwrite): one record
!     with the peer "file" and 100 bytes sent; rank 0 deletes the file.
! Output: one line per rank, the same with and without hprof.
program fmpi
  use mpi
  use halo_mod
  implicit none
  integer, parameter :: NSEND = 5, NEXCH = 6
  integer :: rank, nprocs, partner, ierr, i, k, idx, cnt, bad
  integer :: ibuf(100), sb(16), rb(16), gath(8)
  integer :: reqs(6), stats(MPI_STATUS_SIZE, 6), req2(2)
  double precision :: sbufd(10, 3), rbufd(10, 3), x(8), w(2)
  double precision :: total
  character(len=40) :: cname, fname
  integer :: dup, rlen, fh
  integer(kind=MPI_OFFSET_KIND) :: off

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  partner = 1 - rank
  bad = 0

  ! a.
  do i = 1, NSEND
    if (rank == 0) then
      ibuf = i
      call MPI_Send(ibuf, 100, MPI_INTEGER, 1, i, MPI_COMM_WORLD, ierr) ! MARK:send
    else
      call MPI_Recv(ibuf, 100, MPI_INTEGER, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr) ! MARK:recv
      if (ibuf(100) /= i) bad = bad + 1
    end if
  end do

  ! b.
  sbufd = rank
  do k = 1, 3
    call MPI_Irecv(rbufd(1, k), 10, MPI_DOUBLE_PRECISION, partner, k, MPI_COMM_WORLD, reqs(k), ierr) ! MARK:irecv
  end do
  do k = 1, 3
    call MPI_Isend(sbufd(1, k), 10, MPI_DOUBLE_PRECISION, partner, k, MPI_COMM_WORLD, reqs(3 + k), ierr) ! MARK:isend
  end do
  call MPI_Waitall(6, reqs, stats, ierr) ! MARK:waitall
  do k = 1, 3
    call MPI_Get_count(stats(:, k), MPI_DOUBLE_PRECISION, cnt, ierr)
    if (stats(MPI_SOURCE, k) /= partner .or. cnt /= 10) bad = bad + 1
    if (reqs(k) /= MPI_REQUEST_NULL) bad = bad + 1
  end do

  ! c.
  do k = 1, 4
    x = rank + k
    call MPI_Allreduce(MPI_IN_PLACE, x, 8, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr) ! MARK:allreduce
    if (x(8) /= 2 * k + 1) bad = bad + 1
  end do
  gath = -1
  gath(4 * rank + 1:4 * rank + 4) = rank
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gath, 4, MPI_INTEGER, MPI_COMM_WORLD, ierr) ! MARK:allgather
  if (gath(1) /= 0 .or. gath(8) /= 1) bad = bad + 1

  ! d.
  do i = 1, NEXCH
    sb = rank * 100 + i
    call exchange(partner, sb, rb) ! MARK:callexch
    if (rb(16) /= partner * 100 + i) bad = bad + 1
  end do

  ! e.
  do k = 1, 2
    call MPI_Irecv(w(k), 1, MPI_DOUBLE_PRECISION, partner, 20 + k, MPI_COMM_WORLD, req2(k), ierr)
  end do
  do k = 1, 2
    call MPI_Send(dble(k), 1, MPI_DOUBLE_PRECISION, partner, 20 + k, MPI_COMM_WORLD, ierr)
  end do
  cnt = 0
  do k = 1, 2
    call MPI_Waitany(2, req2, idx, MPI_STATUS_IGNORE, ierr) ! MARK:waitany
    if (idx < 1 .or. idx > 2) bad = bad + 1
    cnt = cnt + idx
  end do
  if (cnt /= 3 .or. w(1) /= 1d0 .or. w(2) /= 2d0) bad = bad + 1

  ! f.
  total = 0
  !$omp parallel do reduction(+:total)
  do i = 1, 1000 ! MARK:pardo
    total = total + i
  end do
  !$omp end parallel do

  ! g.
  call MPI_Pcontrol(0)
  call MPI_Barrier(MPI_COMM_WORLD, ierr) ! MARK:hidden
  call MPI_Pcontrol(1)
  call MPI_Barrier(MPI_COMM_WORLD, ierr) ! MARK:shown

  ! h.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  cname = 'halo comm'
  call MPI_Comm_set_name(dup, cname, ierr)
  cname = 'overwritten'
  call MPI_Comm_get_name(dup, cname, rlen, ierr)
  if (cname /= 'halo comm' .or. rlen /= 9) bad = bad + 1
  call MPI_Comm_free(dup, ierr)
  if (dup /= MPI_COMM_NULL) bad = bad + 1
  fname = 'fmpi_io.tmp'
  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) bad = bad + 1
  ibuf(1:25) = rank
  off = 100 * rank
  call MPI_File_write_at(fh, off, ibuf, 25, MPI_INTEGER, MPI_STATUS_IGNORE, ierr) ! MARK:fwrite
  call MPI_File_close(fh, ierr)
  if (fh /= MPI_FILE_NULL) bad = bad + 1
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) call MPI_File_delete(fname, MPI_INFO_NULL, ierr)

  write (*, '(a,i0,a,i0,a,f10.1)') 'rank ', rank, ' bad ', bad, ' sum ', total
  call MPI_Finalize(ierr)
end program fmpi
