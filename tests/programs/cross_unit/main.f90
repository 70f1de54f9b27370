! Fortran regions whose code calls procedures of another translation unit (units.f90); see
! main.c. tests/tests/cross_unit.rs builds them apart and as one file (one_file.f90).
program cross_unit
  implicit none
  integer, parameter :: n = 2000
  double precision :: a(n)
  integer :: hits(n), i, rep
  double precision, external :: smooth
  integer, external :: asks
  a = 0
  hits = 0
  do rep = 1, 3
    ! expect: adaptive
    !$omp parallel do
    do i = 1, n
      a(i) = a(i) + smooth(dble(i))
    end do
    !$omp end parallel do
    ! expect: held OMPADAPT141
    !$omp parallel do
    do i = 1, n
      hits(i) = hits(i) + min(asks(i), 1)
    end do
    !$omp end parallel do
  end do
  print '(F20.6, I10)', sum(a), sum(hits)
end program
