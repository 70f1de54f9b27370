! flang-19's dynamic and guided loops: `__kmpc_dispatch_init_4u`/`_8u`, then a loop over chunks
! whose `__kmpc_dispatch_next` branches on a non-zero result straight to the header of the loop
! over the chunk (which the loop's latch also enters), and no `__kmpc_dispatch_deinit`. The
! chunk's iterations are divided among the team, as in clang's form: their stores are not
! replicated effects (OMPADAPT145), and the region becomes adaptive. What every thread runs
! around the loop still counts.
!
! RUN: mkdir -p %t.mods && cd %S && %flang -O0 -S -emit-llvm -J %t.mods -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt flang_dispatch.f90 -o %t.ll 2> %t.remarks
! RUN: %FileCheck %s < %t.remarks
! RUN: %FileCheck %s --check-prefix=IR < %t.ll
! At -O2 (the pass at the start of the pipeline), the same verdicts:
! RUN: cd %S && %flang -O2 -c -J %t.mods -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt flang_dispatch.f90 -o %t.o 2> %t.O2.remarks
! RUN: %FileCheck %s < %t.O2.remarks

! IR: call void @__kmpc_dispatch_init_4u(
! IR: call i32 @__kmpc_dispatch_next_4u(
! IR-NOT: __kmpc_dispatch_deinit

! CHECK-DAG: [OMPADAPT150] region 'dynamic_loop@{{.*}}': the parallel region became adaptive
subroutine dynamic_loop(n, a)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  integer :: i
  !$omp parallel do schedule(dynamic)
  do i = 1, n
    a(i) = a(i) * 2 + mod(i, 7)
  end do
end subroutine

! CHECK-DAG: [OMPADAPT150] region 'guided_loop@{{.*}}': the parallel region became adaptive
subroutine guided_loop(n, a)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  integer :: i
  !$omp parallel do schedule(guided, 4)
  do i = 1, n
    a(i) = a(i) + i
  end do
end subroutine

! 64-bit iterations: __kmpc_dispatch_init_8u / __kmpc_dispatch_next_8u
! IR: call void @__kmpc_dispatch_init_8u(
! IR: call i32 @__kmpc_dispatch_next_8u(
! CHECK-DAG: [OMPADAPT150] region 'dynamic_loop8@{{.*}}': the parallel region became adaptive
subroutine dynamic_loop8(n, a)
  integer(8), intent(in) :: n
  double precision, intent(inout) :: a(n)
  integer(8) :: i
  !$omp parallel do schedule(dynamic, 2)
  do i = 1, n
    a(i) = a(i) - 1
  end do
end subroutine

! In a parallel region with more than the loop: the loop divided, the rest replicated.
! CHECK-DAG: [OMPADAPT150] region 'loop_in_region@{{.*}}': the parallel region became adaptive
subroutine loop_in_region(n, a, b)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n), b(n)
  integer :: i
  !$omp parallel
  !$omp do schedule(dynamic)
  do i = 1, n
    a(i) = a(i) + 1
  end do
  !$omp end do
  !$omp do schedule(guided)
  do i = 1, n
    b(i) = a(i) * 3
  end do
  !$omp end do
  !$omp end parallel
end subroutine

! Negative: what every thread does around the loop still counts.
! CHECK-DAG: [OMPADAPT145] region 'counts_around_loop@{{.*}}': left as written: every thread of the team atomically updates shared memory
subroutine counts_around_loop(n, a, c)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  integer, intent(inout) :: c
  integer :: i
  !$omp parallel
  !$omp do schedule(dynamic)
  do i = 1, n
    a(i) = a(i) + 1
  end do
  !$omp end do
  !$omp atomic
  c = c + 1
  !$omp end parallel
end subroutine

! Negative: a chunk's iterations that ask for the thread number.
! CHECK-DAG: [OMPADAPT141] region 'asks_in_chunk@{{.*}}': left as written: it calls omp_get_thread_num
subroutine asks_in_chunk(n, a)
  use omp_lib
  integer, intent(in) :: n
  integer, intent(inout) :: a(n)
  integer :: i
  !$omp parallel do schedule(dynamic)
  do i = 1, n
    a(i) = omp_get_thread_num()
  end do
end subroutine
