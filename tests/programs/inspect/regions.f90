! Two regions of one procedure, one adaptive and one left as written (it asks for its thread
! number), for `ompadapt inspect` and names at the directives' lines (tests/tests/inspect.rs).
subroutine scale(n, x, owner)
  use omp_lib
  integer :: n, i, owner
  real :: x(n)
  !$omp parallel do
  do i = 1, n
    x(i) = 2.0 * x(i)
  end do
  !$omp end parallel do
  owner = 0
  !$omp parallel reduction(+:owner)
  owner = owner + omp_get_thread_num()
  !$omp end parallel
end subroutine

program main
  real :: x(100)
  integer :: owner
  x = 1
  call scale(100, x, owner)
  print *, sum(x), owner >= 0
end program
