! corpus: flang's if() clause
! expect: scale adaptive
! expect: scale_unless_small adaptive
! flang-19 lowers `!$omp parallel do if(c)` to one call, __kmpc_fork_call_if; the pass writes its
! branch out (a fork where c holds, the program's serialized region where it does not), so the
! region adapts like clang's form. Called with the condition true and false, and with a
! condition that changes between calls.
subroutine scale(n, x, big)
  integer, intent(in) :: n
  logical, intent(in) :: big
  double precision, intent(inout) :: x(n)
  integer :: i
  !$omp parallel do if(big)
  do i = 1, n
    x(i) = x(i) * 2 + i
  end do
  !$omp end parallel do
end subroutine

subroutine scale_unless_small(n, x)
  integer, intent(in) :: n
  double precision, intent(inout) :: x(n)
  integer :: i
  double precision :: s
  s = 0
  !$omp parallel do if(n > 1000) reduction(+:s)
  do i = 1, n
    x(i) = x(i) + 1
    s = s + x(i)
  end do
  !$omp end parallel do
  x(1) = x(1) + mod(s, 1000d0)
end subroutine

program main
  integer, parameter :: n = 20000
  double precision :: x(n)
  integer :: k
  x = 1
  do k = 1, 4
    call scale(n, x, mod(k, 2) == 0)
    call scale_unless_small(n, x)
    call scale_unless_small(500, x)
    x = mod(x, 1000d0)
  end do
  print '(F20.3)', sum(x)
end program
