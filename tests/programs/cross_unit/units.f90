! Procedures main.f90's regions call, in a translation unit of their own.
double precision function smooth(x)
  double precision, intent(in) :: x
  smooth = x * 0.5d0 + 1d0
end function

integer function asks(i)
  use omp_lib
  integer, intent(in) :: i
  asks = i + omp_get_thread_num()
end function
