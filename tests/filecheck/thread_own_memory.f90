! Fortran's private allocatables (thread_own_memory.c has C's buffers): flang-19 gives each
! thread a descriptor on its own stack, copies the unallocated state into it from a descriptor
! of the enclosing procedure that only ever has a null base address, allocates with `malloc`
! and frees with `free`. What the thread allocated is its own: writing it and freeing it are
! no effects a smaller team would have fewer times, and the region adapts. A shared
! allocatable that every thread allocates or frees stays as written (OMPADAPT145), as does
! what flang-19 leaves to its runtime at -O0: an array assignment (`_FortranAAssign`) and
! ALLOCATE with STAT= (`_FortranAAllocatableSetBounds`), which write through descriptors.
!
! RUN: mkdir -p %t.mods && cd %S && %flang -O0 -c -J %t.mods -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt thread_own_memory.f90 -o %t.o 2> %t.remarks
! RUN: %FileCheck %s --check-prefixes=CHECK,O0 < %t.remarks
! RUN: cd %S && %flang -O2 -c -J %t.mods -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt thread_own_memory.f90 -o %t.O2.o 2> %t.O2.remarks
! RUN: %FileCheck %s --check-prefixes=CHECK,O2 < %t.O2.remarks
! The private copy's template and free, at -O0:
! RUN: cd %S && %flang -O0 -S -emit-llvm -J %t.mods thread_own_memory.f90 -o - | %FileCheck %s --check-prefix=IR

! IR-LABEL: define void @private_array_(
! IR: store { ptr, i64, i32, i8, i8, i8, i8, [1 x [3 x i64]] } { ptr null,
! IR: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(
! IR-LABEL: define internal void @private_array_..omp_par(
! IR: call ptr @malloc(
! IR: call void @free(

! CHECK-DAG: [OMPADAPT150] region 'private_array@{{.*}}': the parallel region became adaptive
subroutine private_array(n, a)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  double precision, allocatable :: w(:)
  integer :: i
  !$omp parallel private(w)
  allocate(w(n))
  !$omp do
  do i = 1, n
    w(i) = a(i) * 2
    a(i) = w(i) + 1
  end do
  !$omp end do
  deallocate(w)
  !$omp end parallel
end subroutine

! every thread writes its own array outside worksharing
! CHECK-DAG: [OMPADAPT150] region 'writes_own@{{.*}}': the parallel region became adaptive
subroutine writes_own(n, a)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  double precision, allocatable :: w(:)
  integer :: i, k
  !$omp parallel private(w, k)
  allocate(w(n))
  do k = 1, n
    w(k) = 2 * k
  end do
  !$omp do
  do i = 1, n
    a(i) = a(i) + w(i)
  end do
  !$omp end do
  deallocate(w)
  !$omp end parallel
end subroutine

! an array assignment: flang-19 calls _FortranAAssign at -O0, loops at -O2
! O0-DAG: [OMPADAPT145] region 'assigns_own@{{.*}}': left as written: every thread of the team calls '_FortranAAssign'
! O2-DAG: [OMPADAPT150] region 'assigns_own@{{.*}}': the parallel region became adaptive
subroutine assigns_own(n, a)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  double precision, allocatable :: w(:)
  integer :: i
  !$omp parallel private(w)
  allocate(w(n))
  w = 2
  !$omp do
  do i = 1, n
    a(i) = a(i) + w(i)
  end do
  !$omp end do
  deallocate(w)
  !$omp end parallel
end subroutine

! CHECK-DAG: [OMPADAPT145] region 'frees_shared@{{.*}}': left as written: every thread of the team calls 'free'
subroutine frees_shared(n, a, w)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  double precision, allocatable, intent(inout) :: w(:)
  integer :: i
  !$omp parallel
  !$omp do
  do i = 1, n
    a(i) = a(i) + 1
  end do
  !$omp end do
  if (allocated(w)) deallocate(w)
  !$omp end parallel
end subroutine

! CHECK-DAG: [OMPADAPT145] region 'allocates_shared@{{.*}}': left as written: every thread of the team writes shared memory
subroutine allocates_shared(n, a, w)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  double precision, allocatable, intent(inout) :: w(:)
  !$omp parallel
  if (.not. allocated(w)) allocate(w(n))
  !$omp end parallel
end subroutine

! ALLOCATE with STAT= (through the runtime: conservative)
! CHECK-DAG: [OMPADAPT145] region 'stat_alloc@{{.*}}': left as written: every thread of the team calls '_FortranAAllocatableSetBounds'
subroutine stat_alloc(n, a)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  double precision, allocatable :: w(:)
  integer :: i, ierr
  !$omp parallel private(w, ierr)
  allocate(w(n), stat=ierr)
  !$omp do
  do i = 1, n
    a(i) = a(i) + ierr
  end do
  !$omp end do
  deallocate(w)
  !$omp end parallel
end subroutine
