// begin/end pairing: an end without begin, an end naming another model, a begin never closed,
// an end in another block than its begin, a begin outside a function body.
// EXPECT: 12:13: error: 'end adaptation' without a matching 'begin adaptation'
// EXPECT: 16:39: error: 'end adaptation' names 'other' but the innermost open adaptation region is 'outer'
// EXPECT: 16:39: note: 'outer' was opened at {{FILE}}:15
// EXPECT: 20:13: error: 'begin adaptation' of 'never' has no matching 'end adaptation'
// EXPECT: 26:13: error: 'end adaptation' must be in the same block as the 'begin adaptation' of 'inner' ({{FILE}}:24)
// EXPECT: 29:13: error: 'begin adaptation' must appear inside a function body
// EXPECT: 32:13: error: 'adaptation' must appear inside a function body
// (The end at line 30 closes the erroneous begin at line 29 silently: no cascade.)
void f1(void) {
#pragma omp end adaptation
}
void f2(void) {
#pragma omp begin adaptation model_name(outer) variants(a, b)
#pragma omp end adaptation model_name(other)
#pragma omp end adaptation model_name(outer)
}
void f3(void) {
#pragma omp begin adaptation model_name(never) variants(a, b)
}
void f4(int n) {
  if (n) {
#pragma omp begin adaptation model_name(inner) variants(a, b)
  }
#pragma omp end adaptation
}
int g;
#pragma omp begin adaptation model_name(global) variants(a, b)
#pragma omp end adaptation
int h;
#pragma omp adaptation model_name(single) variants(a, b)
int k;
