! corpus: team-size invariant
! expect: saxpy adaptive
! expect: fill adaptive
! A parallel do over arrays with integer-valued data: the same with any team.
subroutine fill(n, x, y)
  integer, intent(in) :: n
  double precision, intent(out) :: x(n), y(n)
  integer :: i
  !$omp parallel do
  do i = 1, n
    x(i) = mod(i, 7)
    y(i) = mod(i, 3)
  end do
  !$omp end parallel do
end subroutine

subroutine saxpy(n, a, x, y)
  integer, intent(in) :: n
  double precision, intent(in) :: a, x(n)
  double precision, intent(inout) :: y(n)
  integer :: i
  !$omp parallel do
  do i = 1, n
    y(i) = y(i) + a * x(i)
  end do
  !$omp end parallel do
end subroutine

program main
  integer, parameter :: n = 20000
  double precision, allocatable :: x(:), y(:)
  integer :: r
  allocate(x(n), y(n))
  call fill(n, x, y)
  do r = 1, 40
    call saxpy(n, 2.0d0, x, y)
  end do
  print '(A, F20.1, F20.1)', 'saxpy', sum(y), y(n)
end program
