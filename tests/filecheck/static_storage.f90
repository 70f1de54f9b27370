! A saved variable of a `declare target` procedure (issue 41; tests/filecheck/static_storage.c
! says why): the device keeps a copy of its own that the offload entries do not name, so the launch
! calling the procedure keeps no `cpu` (OMPADAPT155 when `gpu` alone is left); a launch that
! touches no such variable keeps it.
!
! RUN: mkdir -p %t.mods && cd %S && %flang -O2 -c -g -J %t.mods -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt static_storage.f90 -o %t.o 2> %t.remarks
! RUN: %FileCheck %s < %t.remarks

module counters
contains
  integer function next_ticket()
    !$omp declare target
    integer, save :: issued = 0
    issued = issued + 1
    next_ticket = issued
  end function
end module

! CHECK-DAG: [OMPADAPT155] region 'tickets@static_storage.f90:[[#@LINE+6]]': left as written: the kernel uses 'issued' (a saved variable of 'next_ticket')
subroutine tickets(t)
  use counters
  implicit none
  integer :: t, r
  do r = 1, 4
    !$omp target map(from: t)
    t = next_ticket()
    !$omp end target
  end do
end subroutine

! CHECK-DAG: [OMPADAPT154] region 'plain@static_storage.f90:[[#@LINE+4]]': the offload launch became an adaptive region with variants cpu, gpu
subroutine plain(a)
  implicit none
  integer :: a(8)
  !$omp target map(tofrom: a)
  a = a + 1
  !$omp end target
end subroutine
