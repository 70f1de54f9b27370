! expect: primary_counts adaptive
! expect: guard_in_loop left omp_get_thread_num
! `if (omp_get_thread_num() == 0)` in code every thread runs is `masked`: thread 0 alone counts
! the region's executions, the same with any team. Inside a worksharing loop the guard gives
! thread 0 a team-dependent share: left as written.
subroutine primary_counts(n, a, c)
  use omp_lib
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  integer, intent(inout) :: c
  integer :: i, tid
  !$omp parallel private(tid)
  tid = omp_get_thread_num()
  if (tid == 0) then
    c = c + 1
  end if
  !$omp do
  do i = 1, n
    a(i) = a(i) * 0.5d0 + i
  end do
  !$omp end do
  !$omp end parallel
end subroutine

subroutine guard_in_loop(n, k)
  use omp_lib
  integer, intent(in) :: n
  integer, intent(out) :: k
  integer :: i, tid
  k = 0
  !$omp parallel private(tid) reduction(+:k)
  tid = omp_get_thread_num()
  !$omp do
  do i = 1, n
    if (tid == 0) k = k + 1
  end do
  !$omp end do
  !$omp end parallel
end subroutine

program main
  double precision :: a(2000)
  integer :: c, r, k
  a = 1
  c = 0
  do r = 1, 7
    call primary_counts(2000, a, c)
  end do
  call guard_in_loop(100, k)
  print '(A, F20.4, A, I6, A, L2)', 'a ', sum(a), ' calls ', c, ' some ', k > 0
end program
