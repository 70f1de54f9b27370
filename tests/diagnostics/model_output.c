// model_output takes any modifiable lvalue of arithmetic type (variable, member, array element,
// EXPECT: 22:67: error: 'model_output' needs a modifiable lvalue of arithmetic type, not a pointer or an array
// EXPECT: 24:67: error: 'model_output' needs a modifiable lvalue of arithmetic type, not a struct, union or class
// EXPECT: 26:67: error: 'model_output' takes a modifiable lvalue of arithmetic type
// EXPECT: 28:67: error: expression is not assignable
// EXPECT: 30:67: error: cannot assign to variable 'c' with const-qualified type 'const double'
// EXPECT: 21:51: note: variable 'c' declared const here
// EXPECT: 32:54: error: 'model_output' takes a modifiable lvalue of arithmetic type
// dereference); anything else is reported in ompadapt's words at the argument.
struct out { int threads; double frac; unsigned bits : 3; };
void f1(int n, struct out *o, int sel[3], int *p) {
#pragma omp adaptation model_name(ok1) variants(1, 2) model_output(o->threads)
  n++;
#pragma omp adaptation model_name(ok2) variants(1, 2) model_output(sel[1])
  n++;
#pragma omp adaptation model_name(ok3) variants(1, 2) model_output(*p)
  n++;
#pragma omp adaptation model_name(ok4) variants(1, 2) model_output(o->bits)
  n++;
}
void f2(int n, struct out o, int *p, const double c) {
#pragma omp adaptation model_name(e1) variants(1, 2) model_output(p)
  n++;
#pragma omp adaptation model_name(e2) variants(1, 2) model_output(o)
  n++;
#pragma omp adaptation model_name(e3) variants(1, 2) model_output(3)
  n++;
#pragma omp adaptation model_name(e4) variants(1, 2) model_output(n + 1)
  n++;
#pragma omp adaptation model_name(e5) variants(1, 2) model_output(c)
  n++;
#pragma omp adaptation model_name(e6) variants(1, 2) model_output()
  n++;
}
