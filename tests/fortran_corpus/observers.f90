! expect: slots left omp_get_thread_num
! expect: count left atomically updates shared memory
! expect: scaled adaptive
! expect: carried left carries what the thread's previous iteration left
! Regions that observe their team stay as written: per-thread slots indexed by the thread
! number (sized by omp_get_max_threads, as LULESH does), and a count of the threads. A region
! with a num_threads clause adapts below that team.
subroutine slots(nt, part)
  use omp_lib
  integer, intent(in) :: nt
  double precision, intent(out) :: part(0:nt-1)
  integer :: t
  part = -1
  !$omp parallel private(t)
  t = omp_get_thread_num()
  part(t) = t + 1
  !$omp end parallel
end subroutine

subroutine count(c)
  integer, intent(out) :: c
  c = 0
  !$omp parallel
  !$omp atomic
  c = c + 1
  !$omp end parallel
end subroutine

subroutine scaled(n, v)
  integer, intent(in) :: n
  double precision, intent(inout) :: v(n)
  integer :: i
  !$omp parallel do num_threads(2)
  do i = 1, n
    v(i) = 2 * v(i) + 1
  end do
  !$omp end parallel do
end subroutine

! a private copy carried from iteration to iteration of a thread (libgomp's omp-parallel-for.c):
! lastprivate copies out the last thread's own sum
subroutine carried(n, a)
  integer, intent(in) :: n
  integer, intent(inout) :: a
  integer :: i
  !$omp parallel do firstprivate(a) lastprivate(a) schedule(static)
  do i = 1, n
    a = a + i
  end do
  !$omp end parallel do
end subroutine

program main
  use omp_lib
  integer :: nt, c, r, a
  double precision, allocatable :: part(:)
  double precision :: v(3000)
  nt = omp_get_max_threads()
  allocate(part(0:nt-1))
  call slots(nt, part)
  call count(c)
  v = 1
  do r = 1, 10
    call scaled(3000, v)
  end do
  a = 30
  call carried(100, a)
  print '(A, F12.1, A, L2, A, F20.1, A, I8)', 'slots', sum(part), ' count matches ', c == nt, ' scaled ', sum(v), ' carried ', a
end program
