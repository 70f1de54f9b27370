! Reductions whose private copies are not updated through the reduction's operator (issue 41,
! hole 2), in Fortran: those regions stay as written, the correct forms adapt.
program main
  implicit none
  integer :: i
  integer(8) :: top, p, s, m
  top = 0; p = 1; s = 0; m = 0
  !$omp parallel do reduction(+:top)
  do i = 0, 999
    if (mod(int(i, 8) * i, 997_8) > top) top = mod(int(i, 8) * i, 997_8)
  end do
  !$omp parallel do reduction(*:p)
  do i = 1, 99
    p = p + i
  end do
  !$omp parallel do reduction(+:s)
  do i = 0, 999
    s = s + mod(i, 7)
  end do
  !$omp parallel do reduction(max:m)
  do i = 0, 999
    m = max(m, mod(int(i, 8) * 31, 1013_8))
  end do
  print '(A, 4I12)', 'reductions', top, p, s, m
end program
