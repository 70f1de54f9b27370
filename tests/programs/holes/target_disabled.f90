! A Fortran target construct in pass-only mode (found by the generator, issue 41): flang-19 builds
! it without an offload image (-fopenmp-targets does not link), so it runs only with
! OMP_TARGET_OFFLOAD=DISABLED (stock crashes otherwise). The `cpu` variant's runtime must not
! ask libomptarget anything then: it was never initialised, and omp_get_initial_device crashed.
program main
  implicit none
  integer :: i, a(100)
  integer(8) :: s
  a = 1
  !$omp target map(tofrom: a)
  do i = 1, 100
    a(i) = a(i) + i
  end do
  !$omp end target
  s = 0
  !$omp parallel do reduction(+:s)
  do i = 1, 100
    s = s + a(i)
  end do
  print '(A, I10)', 'sum', s
end program
