! flang-19's forms of OpenMP constructs in pass-only mode (issue 41).
! num_threads: flang pushes the clause's value in the block before the fork (`entry: push;
! br omp_parallel`), not right before it as clang does. The team "the program asked for" (the
! `threads=1` variant, and the base of every share) is the pushed value, not
! omp_get_max_threads().
! Reductions: the private copy must be updated through the reduction's operator; `max(mx, e)`
! (flang's select on a comparison) is, `if (i*i > top) top = i*i` under `+` is not.
!
! RUN: cd %S && %flang -O0 -S -emit-llvm -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt flang_forms.f90 -o %t.ll 2> %t.remarks
! RUN: %FileCheck %s --check-prefix=IR < %t.ll
! RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
! At -O2 (the pass at the start of the pipeline), the same verdicts:
! RUN: cd %S && %flang -O2 -c -g -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt flang_forms.f90 -o %t.o 2> %t.O2.remarks
! RUN: %FileCheck %s --check-prefix=REMARK < %t.O2.remarks

! The program's push is replaced by the variant's, right before the fork (left where it was, it
! would go to the first fork after it: the runtime's start-up region).
! IR-LABEL: define void @fixed_team_(
! IR-NOT: call void @__kmpc_push_num_threads(ptr @{{[0-9]+}}, i32 %{{.*}}, i32 3)
! IR-NOT: call i32 @omp_get_max_threads()
! IR: call void (ptr, ptr, ptr, i32, ptr, ptr, i32, ...) @__ompadapt_v6_enter_team(ptr @{{.*}}, ptr %{{.*}}, ptr null, i32 {{[0-9]+}}, ptr %ompadapt.ctx, ptr @{{[0-9]+}}, i32 3, double %ompadapt.trip_count)
! IR-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(
subroutine fixed_team(n, a)
  integer, intent(in) :: n
  integer, intent(inout) :: a(n)
  integer :: i
  !$omp parallel do num_threads(3)
  do i = 1, n
    a(i) = a(i) + i
  end do
end subroutine

! IR-LABEL: define void @variable_team_(
! IR: %[[T:[0-9]+]] = load i32, ptr %1
! IR: call void (ptr, ptr, ptr, i32, ptr, ptr, i32, ...) @__ompadapt_v6_enter_team(ptr @{{.*}}, ptr %{{.*}}, ptr null, i32 {{[0-9]+}}, ptr %ompadapt.ctx, ptr @{{[0-9]+}}, i32 %[[T]], double %ompadapt.trip_count)
subroutine variable_team(n, t, a)
  integer, intent(in) :: n, t
  integer, intent(inout) :: a(n)
  integer :: i
  !$omp parallel do num_threads(t)
  do i = 1, n
    a(i) = a(i) * 2
  end do
end subroutine

! REMARK-DAG: [OMPADAPT146] region 'max_through_plus@{{.*}}': left as written: it updates its copy of a reduction variable by something other than the reduction's operator (+)
subroutine max_through_plus(n, top)
  integer, intent(in) :: n
  integer(8), intent(out) :: top
  integer :: i
  top = 0
  !$omp parallel do reduction(+:top)
  do i = 1, n
    if (int(i, 8) * i > top) top = int(i, 8) * i
  end do
end subroutine

! REMARK-DAG: [OMPADAPT150] region 'maximum@{{.*}}': the parallel region became adaptive
subroutine maximum(n, mx)
  integer, intent(in) :: n
  integer(8), intent(out) :: mx
  integer :: i
  mx = 0
  !$omp parallel do reduction(max:mx)
  do i = 1, n
    mx = max(mx, int(mod(i * 7, 13), 8))
  end do
end subroutine

! REMARK-DAG: [OMPADAPT146] region 'product_through_plus@{{.*}}': left as written: it updates its copy of a reduction variable by something other than the reduction's operator (*)
subroutine product_through_plus(n, p)
  integer, intent(in) :: n
  integer(8), intent(out) :: p
  integer :: i
  p = 1
  !$omp parallel do reduction(*:p)
  do i = 1, n
    p = p + i
  end do
end subroutine
