! The team "the program asked for" (issue 41, hole 3): flang-19 pushes num_threads in the block
! before the fork; the threads=F variants take their share of it.
program main
  implicit none
  integer :: i, n
  integer(8) :: a(600), s
  n = 3
  !$omp parallel do num_threads(n)
  do i = 1, 600
    a(i) = int(i, 8) * i
  end do
  !$omp parallel do num_threads(1)
  do i = 1, 600
    a(i) = a(i) + i
  end do
  s = sum(a)
  print '(A, I12)', 'sum', s
end program
