! A thread-0 guard in Fortran (thread_zero_guard.c has C's): `if (omp_get_thread_num() == 0)`
! in code every thread runs is `masked`; inside a worksharing loop, or with the number used
! otherwise, it stays OMPADAPT141.
!
! RUN: mkdir -p %t.mods && cd %S && %flang -O0 -c -J %t.mods -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt thread_zero_guard.f90 -o %t.o 2> %t.remarks
! RUN: %FileCheck %s < %t.remarks
! RUN: cd %S && %flang -O2 -c -J %t.mods -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt thread_zero_guard.f90 -o %t.O2.o 2> %t.O2.remarks
! RUN: %FileCheck %s < %t.O2.remarks

! CHECK-DAG: [OMPADAPT150] region 'primary_sets@{{.*}}': the parallel region became adaptive
subroutine primary_sets(n, a, first)
  use omp_lib
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  double precision, intent(out) :: first
  integer :: i, tid
  !$omp parallel private(tid)
  tid = omp_get_thread_num()
  if (tid == 0) then
    first = a(1)
  end if
  !$omp do
  do i = 1, n
    a(i) = a(i) + 1
  end do
  !$omp end do
  !$omp end parallel
end subroutine

! CHECK-DAG: [OMPADAPT141] region 'guard_in_loop@{{.*}}': left as written: it calls omp_get_thread_num
subroutine guard_in_loop(n, a)
  use omp_lib
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  integer :: i, tid
  !$omp parallel private(tid)
  tid = omp_get_thread_num()
  !$omp do
  do i = 1, n
    if (tid == 0) a(i) = i
  end do
  !$omp end do
  !$omp end parallel
end subroutine

! CHECK-DAG: [OMPADAPT141] region 'indexes_by_number@{{.*}}': left as written: it calls omp_get_thread_num
subroutine indexes_by_number(a)
  use omp_lib
  double precision, intent(inout) :: a(0:*)
  integer :: tid
  !$omp parallel private(tid)
  tid = omp_get_thread_num()
  if (tid == 0) a(0) = -1
  a(tid + 1) = tid
  !$omp end parallel
end subroutine
