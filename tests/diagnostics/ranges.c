// Variant lists and ranges: constants only, positive steps, no mixing, no duplicates.
// EXPECT: 9:58: error: range END must be a numeric constant
// EXPECT: 13:63: error: range STEP must be positive
// EXPECT: 17:63: error: range STEP must be positive
// EXPECT: 21:59: error: variants cannot mix identifiers and numbers
// EXPECT: 25:59: error: duplicate variant 'gpu'
// EXPECT: 25:54: note: first listed here
void f1(int n) {
#pragma omp begin adaptation model_name(r1) variants([64:n:64])
#pragma omp end adaptation
}
void f2(int n) {
#pragma omp begin adaptation model_name(r2) variants([0.0:1.0:0.0])
#pragma omp end adaptation
}
void f3(int n) {
#pragma omp begin adaptation model_name(r3) variants([0.0:1.0:-0.1])
#pragma omp end adaptation
}
void f4(int n) {
#pragma omp begin adaptation model_name(r4) variants(cpu, 64)
#pragma omp end adaptation
}
void f5(int n) {
#pragma omp begin adaptation model_name(r5) variants(gpu, gpu)
#pragma omp end adaptation
}
