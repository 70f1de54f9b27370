! A saved variable of a `declare target` function (issue 41; the C program target_static_local.c
! says why): the device keeps a copy of its own, which the offload entries do not name, so the
! launch calling the function keeps no `cpu` (OMPADAPT155). flang-19 builds no offload image:
! the program runs with offloading disabled, where every variant must still print stock's
! output; the decision itself is checked in tests/filecheck/static_storage.f90.
module counters
contains
  integer function next_ticket()
    !$omp declare target
    integer, save :: issued = 0
    issued = issued + 1
    next_ticket = issued
  end function
end module

program main
  use counters
  implicit none
  integer :: r, t, a(8)
  t = 0
  a = 1
  do r = 1, 4
    !$omp target map(from: t)
    t = next_ticket()
    !$omp end target
    !$omp target map(tofrom: a)
    a = a + r
    !$omp end target
  end do
  print '(A, I4, I6)', 'tickets', t, sum(a)
end program
