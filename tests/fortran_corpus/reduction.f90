! corpus: team-size invariant
! expect: norms adaptive
! A reduction over integer-valued terms (exact in any order) and a parallel region whose work
! is all in a worksharing loop.
subroutine norms(n, v, s)
  integer, intent(in) :: n
  double precision, intent(in) :: v(n)
  double precision, intent(out) :: s
  integer :: i
  s = 0
  !$omp parallel do reduction(+:s)
  do i = 1, n
    s = s + v(i) * v(i)
  end do
  !$omp end parallel do
end subroutine

program main
  integer, parameter :: n = 5000
  double precision :: v(n), s, total
  integer :: i, r
  do i = 1, n
    v(i) = mod(i, 5)
  end do
  total = 0
  do r = 1, 30
    call norms(n, v, s)
    total = total + s
  end do
  print '(A, F20.1)', 'norms', total
end program
