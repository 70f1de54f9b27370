! expect: private_scratch adaptive
! expect: shared_count left atomically updates shared memory
! A private allocatable each thread allocates, fills outside worksharing and frees: memory the
! thread allocated is its own, so the region adapts.
subroutine private_scratch(n, a)
  integer, intent(in) :: n
  double precision, intent(inout) :: a(n)
  double precision, allocatable :: w(:)
  integer :: i, k
  !$omp parallel private(w, k)
  allocate(w(8))
  do k = 1, 8
    w(k) = k * 0.5d0
  end do
  !$omp do
  do i = 1, n
    a(i) = a(i) + w(mod(i, 8) + 1)
  end do
  !$omp end do
  deallocate(w)
  !$omp end parallel
end subroutine

subroutine shared_count(c)
  integer, intent(inout) :: c
  !$omp parallel
  !$omp atomic
  c = c + 1
  !$omp end parallel
end subroutine

program main
  use omp_lib
  double precision :: a(3000)
  integer :: r, c
  a = 1
  do r = 1, 5
    call private_scratch(3000, a)
  end do
  c = 0
  call shared_count(c)
  print '(A, F20.2, A, L2)', 'a ', sum(a), ' count ', c == omp_get_max_threads()
end program
