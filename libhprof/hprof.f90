! hprof.f90 - the public API of hprof (hprof.h) for Fortran: `use hprof`.
!
!   call hprof_region_begin('solve')   ! a user region node named solve
!   call hprof_region_end('solve')     ! (trailing blanks are not part of it)
!   call hprof_collect(0)              ! stop recording; 1 resumes
!   call hprof_reset()                 ! zero what was recorded so far
!
! hprof_collect and hprof_reset are the C functions (bind(C)); the region
! calls go to hprof_region_begin_/end_ in libhprof (sources/region.c),
! which take the CHARACTER name with its hidden length as gfortran passes
! it, so that the region's site is the caller's line.  The module holds
! interfaces only: a program that uses it links -lhprof, no Fortran code
! of hprof's.  Built by gfortran at hprof's build; installed as hprof.mod
! next to hprof.h (hprof-cc adds that directory to the include path).
module hprof
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  private
  public :: hprof_collect, hprof_reset, hprof_region_begin, hprof_region_end

  interface
    subroutine hprof_collect(on) bind(C, name='hprof_collect')
      import :: c_int
      integer(c_int), value, intent(in) :: on
    end subroutine hprof_collect

    subroutine hprof_reset() bind(C, name='hprof_reset')
    end subroutine hprof_reset

    subroutine hprof_region_begin(name)
      character(len=*), intent(in) :: name
    end subroutine hprof_region_begin

    subroutine hprof_region_end(name)
      character(len=*), intent(in) :: name
    end subroutine hprof_region_end
  end interface
end module hprof
