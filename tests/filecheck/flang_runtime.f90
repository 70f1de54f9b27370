! flang-19's runtime functions (`_FortranA*`), which flang declares without attributes: the
! pass knows what flang's runtime headers declare of them (pass/src/team/flang_runtime.rs).
! Numeric intrinsics (EXPONENT, MODULO, ...) write nothing; reductions to a scalar (SUM,
! MAXVAL, DOT_PRODUCT) only read what their descriptors describe: a region calling them, in its
! loop or in every thread, becomes adaptive. I/O and what writes through descriptors (MAXLOC's
! result, assignment) are effects every thread would have (OMPADAPT145); a runtime function not
! in the table stays code the compiler cannot see (OMPADAPT143).
!
! RUN: mkdir -p %t.mods && cd %S && %flang -O0 -S -emit-llvm -J %t.mods -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt flang_runtime.f90 -o %t.ll 2> %t.remarks
! RUN: %FileCheck %s --check-prefixes=CHECK,O0 < %t.remarks
! RUN: %FileCheck %s --check-prefix=IR < %t.ll
! At -O2 (the pass at the start of the pipeline), the same verdicts:
! RUN: cd %S && %flang -O2 -c -J %t.mods -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt flang_runtime.f90 -o %t.o 2> %t.O2.remarks
! RUN: %FileCheck %s --check-prefixes=CHECK,O2 < %t.O2.remarks

! IR-DAG: declare {{.*}}i32 @_FortranAExponent8_4(double)
! IR-DAG: declare {{.*}}double @_FortranAModuloReal8(double, double, ptr, i32)
! IR-DAG: declare {{.*}}double @_FortranASumReal8(ptr, ptr, i32, i32, ptr)
! IR-DAG: declare {{.*}}double @_FortranAMaxvalReal8(ptr, ptr, i32, i32, ptr)
! IR-DAG: declare {{.*}}double @_FortranADotProductReal8(ptr, ptr, ptr, i32)

! CHECK-DAG: [OMPADAPT150] region 'numeric_in_loop@{{.*}}': the parallel region became adaptive
subroutine numeric_in_loop(n, a, e)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  integer, intent(out) :: e(n)
  integer :: i
  !$omp parallel do
  do i = 1, n
    e(i) = exponent(a(i)) + mod(i, 5)
    a(i) = modulo(a(i), 3.5d0) + a(i) ** i + nint(a(i)) + floor(a(i))
  end do
end subroutine

! every thread computes its own (private) s and m: reads only
! CHECK-DAG: [OMPADAPT150] region 'sums_in_region@{{.*}}': the parallel region became adaptive
subroutine sums_in_region(n, a, b)
  integer, intent(in) :: n
  double precision, intent(in) :: a(n)
  double precision, intent(inout) :: b(n)
  double precision :: s, m
  integer :: i
  !$omp parallel private(s, m)
  s = sum(a)
  m = maxval(a) + dot_product(a, a)
  !$omp do
  do i = 1, n
    b(i) = b(i) + s / m
  end do
  !$omp end parallel
end subroutine

! CHECK-DAG: [OMPADAPT145] region 'prints_per_thread@{{.*}}': left as written: every thread of the team calls '_FortranAioBeginExternalListOutput', which may write memory or do I/O
subroutine prints_per_thread(n)
  integer, intent(in) :: n
  !$omp parallel
  print *, n
  !$omp end parallel
end subroutine

! MAXLOC writes its result through a descriptor: counted, whatever the result's owner
! (at -O2 flang calls its own simplified copy of MAXLOC, which writes through the descriptor)
! O2-DAG: [OMPADAPT145] region 'locates_per_thread@{{.*}}': left as written: every thread of the team
! O0-DAG: [OMPADAPT145] region 'locates_per_thread@{{.*}}': left as written: every thread of the team calls '_FortranAMaxlocReal8', which may write memory or do I/O
subroutine locates_per_thread(n, a, k)
  integer, intent(in) :: n
  double precision, intent(in) :: a(n)
  integer, intent(inout) :: k(n)
  integer :: loc(1), i
  !$omp parallel private(loc)
  loc = maxloc(a)
  !$omp do
  do i = 1, n
    k(i) = loc(1)
  end do
  !$omp end parallel
end subroutine

! not in the table: code the compiler cannot see
! CHECK-DAG: [OMPADAPT143] region 'unknown_runtime@{{.*}}': left as written: it calls '_FortranAArgumentCount', which is not defined in this translation unit
subroutine unknown_runtime(n, a)
  integer, intent(in) :: n
  integer, intent(inout) :: a(n)
  integer :: i
  !$omp parallel do
  do i = 1, n
    a(i) = command_argument_count() + i
  end do
end subroutine
