// model_output in C++: members, references, scoped enums; non-arithmetic lvalues in ompadapt's words.
// EXPECT: 19:67: error: 'model_output' needs a modifiable lvalue of arithmetic type, not a pointer or an array
// EXPECT: 21:67: error: 'model_output' needs a modifiable lvalue of arithmetic type, not a struct, union or class
// EXPECT: 23:67: error: 'model_output' needs a modifiable lvalue of arithmetic type, not a function
// EXPECT: 25:67: error: 'model_output' needs a modifiable lvalue of arithmetic type, not a pointer or an array
enum class Mode { slow, fast };
struct Out { int threads = 0; Mode mode = Mode::slow; int *ptr = nullptr; };
template <typename T> void f1(int n, T &t, Out &o) {
#pragma omp adaptation model_name(ok1) variants(1, 2) model_output(t)
  n++;
#pragma omp adaptation model_name(ok2) variants(0, 1) model_output(o.mode)
  n++;
#pragma omp adaptation model_name(ok3) variants(1, 2) model_output(o.threads)
  n++;
}
int g();
int arr[3];
void f2(int n, Out &o) {
#pragma omp adaptation model_name(e1) variants(1, 2) model_output(o.ptr)
  n++;
#pragma omp adaptation model_name(e2) variants(1, 2) model_output(o)
  n++;
#pragma omp adaptation model_name(e3) variants(1, 2) model_output(g)
  n++;
#pragma omp adaptation model_name(e4) variants(1, 2) model_output(arr)
  n++;
}
void use(Out &o) {
  long l = 0;
  f1(1, l, o);
}
