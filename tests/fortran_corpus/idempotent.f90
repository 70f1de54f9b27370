! expect: wavefront adaptive
! expect: counted left writes shared memory
! Idempotent stores: every thread stores the same value into a common block's variable, and a
! local captured by the region, outside worksharing; a variable every thread increments stays
! as written. (A common block, not a module: the corpus is built without -J.)

subroutine wavefront(n, grid, w)
  double precision :: t0
  integer :: entered
  common /sweep_state/ t0, entered
  integer, intent(in) :: n
  double precision, intent(inout) :: grid(n)
  double precision, intent(in) :: w
  double precision :: s, ww
  integer :: i
  ww = w
  !$omp parallel
  t0 = 1
  s = ww * 2 + 1
  !$omp do
  do i = 1, n
    grid(i) = grid(i) * s + t0
  end do
  !$omp end do
  !$omp end parallel
end subroutine

subroutine counted()
  double precision :: t0
  integer :: entered
  common /sweep_state/ t0, entered
  !$omp parallel
  !$omp critical
  entered = entered + 1
  !$omp end critical
  !$omp end parallel
end subroutine

program main
  double precision :: t0
  integer :: entered
  common /sweep_state/ t0, entered
  double precision :: grid(1500)
  integer :: r, i
  do i = 1, 1500
    grid(i) = mod(i, 11) * 0.001d0
  end do
  do r = 1, 3
    call wavefront(1500, grid, 0.125d0)
  end do
  entered = 0
  call counted()
  print '(A, F24.6, A, F6.1, A, L2)', 'sum ', sum(grid), ' t0 ', t0, ' entered ', entered > 0
end program
