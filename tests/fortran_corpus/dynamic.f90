! expect: dynamic_scale adaptive
! expect: guided_sum adaptive
! expect: chunks_of8 adaptive
! expect: counted left atomically updates shared memory
! flang-19's dynamic and guided loops (__kmpc_dispatch_init/next, no deinit): the chunks are
! divided among the team, so these regions adapt; an update every thread makes around such a
! loop keeps its region as written.
subroutine dynamic_scale(n, v)
  integer, intent(in) :: n
  double precision, intent(inout) :: v(n)
  integer :: i
  !$omp parallel do schedule(dynamic)
  do i = 1, n
    v(i) = 2 * v(i) + mod(i, 7)
  end do
  !$omp end parallel do
end subroutine

subroutine guided_sum(n, v, s)
  integer, intent(in) :: n
  double precision, intent(in) :: v(n)
  double precision, intent(out) :: s
  integer :: i
  s = 0
  !$omp parallel do schedule(guided, 3) reduction(+:s)
  do i = 1, n
    s = s + v(i)
  end do
  !$omp end parallel do
end subroutine

subroutine chunks_of8(n, w)
  integer(8), intent(in) :: n
  integer(8), intent(inout) :: w(n)
  integer(8) :: i
  !$omp parallel do schedule(dynamic, 5)
  do i = 1, n
    w(i) = w(i) + i * i
  end do
  !$omp end parallel do
end subroutine

subroutine counted(n, v, c)
  integer, intent(in) :: n
  double precision, intent(inout) :: v(n)
  integer, intent(inout) :: c
  integer :: i
  !$omp parallel
  !$omp do schedule(dynamic)
  do i = 1, n
    v(i) = v(i) + 1
  end do
  !$omp end do
  !$omp atomic
  c = c + 1
  !$omp end parallel
end subroutine

program main
  use omp_lib
  integer :: r, c
  double precision :: v(2000), s
  integer(8) :: w(999)
  v = 1
  w = 3
  do r = 1, 5
    call dynamic_scale(2000, v)
    call chunks_of8(999_8, w)
  end do
  call guided_sum(2000, v, s)
  c = 0
  call counted(2000, v, c)
  print '(A, F20.1, A, F20.1, A, I20, A, L2)', 'v ', sum(v), ' s ', s, ' w ', sum(w), ' count ', c == omp_get_max_threads()
end program
