! expect: numeric_in_loop adaptive
! expect: sums_in_region adaptive
! expect: unknown_runtime left not defined in this translation unit
! flang's runtime functions (`_FortranA*`) the pass knows from flang's runtime headers: numeric
! intrinsics and reductions to a scalar write nothing, so regions calling them adapt, in a loop
! or in every thread; a runtime function not in the table stays code the pass cannot see.
subroutine numeric_in_loop(n, a, e)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  integer, intent(out) :: e(n)
  integer :: i
  !$omp parallel do
  do i = 1, n
    e(i) = exponent(a(i)) + mod(i, 5)
    a(i) = modulo(a(i), 3.5d0) + nint(a(i)) + floor(a(i))
  end do
end subroutine

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

subroutine unknown_runtime(n, k)
  integer, intent(in) :: n
  integer, intent(inout) :: k(n)
  integer :: i
  !$omp parallel do
  do i = 1, n
    k(i) = command_argument_count() + i
  end do
end subroutine

program main
  integer :: e(500), k(300), r, i
  double precision :: a(500), b(500)
  do i = 1, 500
    a(i) = i * 0.75d0
  end do
  b = 0
  do r = 1, 3
    call numeric_in_loop(500, a, e)
    call sums_in_region(500, a, b)
  end do
  call unknown_runtime(300, k)
  print '(A, F24.6, A, I10, A, F24.6, A, I10)', 'a ', sum(a), ' e ', sum(e), ' b ', sum(b), ' k ', sum(k)
end program
