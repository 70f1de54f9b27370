! Idempotent stores in Fortran (idempotent_stores.c has C's): every thread storing one value,
! the same in every thread, into a module variable or a local of the enclosing procedure (which
! flang passes through the fork's structure) adapts; another store of the variable in the
! region, or a value read from the variable itself, stays OMPADAPT145.
!
! RUN: mkdir -p %t.mods && cd %S && %flang -O0 -c -J %t.mods -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt idempotent_stores.f90 -o %t.o 2> %t.remarks
! RUN: %FileCheck %s < %t.remarks
! RUN: cd %S && %flang -O2 -c -J %t.mods -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt idempotent_stores.f90 -o %t.O2.o 2> %t.O2.remarks
! RUN: %FileCheck %s < %t.O2.remarks

module state
  double precision :: t0, pipe
  integer :: hits
end module

! CHECK-DAG: [OMPADAPT150] region 'wavefront@{{.*}}': the parallel region became adaptive
subroutine wavefront(n, grid)
  use state
  integer, intent(in) :: n
  double precision, intent(inout) :: grid(n)
  integer :: i
  !$omp parallel
  t0 = 0
  !$omp do
  do i = 2, n
    grid(i) = grid(i) + t0 + 1
  end do
  !$omp end do
  !$omp end parallel
end subroutine

! CHECK-DAG: [OMPADAPT150] region 'captured@{{.*}}': the parallel region became adaptive
subroutine captured(n, grid, start)
  integer, intent(in) :: n
  double precision, intent(inout) :: grid(n)
  double precision, intent(out) :: start
  double precision :: s
  integer :: i, m
  m = n
  !$omp parallel
  s = 2.5d0 * m
  !$omp do
  do i = 1, n
    grid(i) = grid(i) + s
  end do
  !$omp end do
  !$omp end parallel
  start = s
end subroutine

! CHECK-DAG: [OMPADAPT145] region 'stored_again@{{.*}}': left as written: every thread of the team writes shared memory '_QMstateEpipe'
subroutine stored_again(n, grid)
  use state
  integer, intent(in) :: n
  double precision, intent(inout) :: grid(n)
  integer :: i
  !$omp parallel
  pipe = 0
  !$omp single
  pipe = grid(1)
  !$omp end single
  !$omp do
  do i = 1, n
    grid(i) = grid(i) + pipe
  end do
  !$omp end do
  !$omp end parallel
end subroutine

! CHECK-DAG: [OMPADAPT145] region 'counts@{{.*}}': left as written: every thread of the team writes shared memory '_QMstateEhits'
subroutine counts()
  use state
  !$omp parallel
  hits = hits + 1
  !$omp end parallel
end subroutine
