// model_output in C++: members, references, scoped enums; non-arithmetic lvalues in ompadapt's words.
// EXPECT: 15:67: error: 'model_output' needs a modifiable lvalue of arithmetic type, not a pointer or an array
// EXPECT: 17:67: error: 'model_output' needs a modifiable lvalue of arithmetic type, not a struct, union or class
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
void f2(int n, Out &o) {
#pragma omp adaptation model_name(e1) variants(1, 2) model_output(o.ptr)
  n++;
#pragma omp adaptation model_name(e2) variants(1, 2) model_output(o)
  n++;
}
void use(Out &o) {
  long l = 0;
  f1(1, l, o);
}
