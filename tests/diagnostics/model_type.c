// model_type, min_train_data and model_output arguments.
// EXPECT: 11:71: error: unknown model type 'svm'; expected 'dtree'/'decision_tree', 'rfc'/'random_forest', 'logistic'/'logistic_regression' or 'auto'
// EXPECT: 15:76: error: 'rfc' takes both the number of trees and the maximum depth, or neither
// EXPECT: 19:81: error: 'dtree' takes at most one parameter, the maximum depth
// EXPECT: 23:75: error: 'min_train_data' must be at least 1
// EXPECT: 27:73: error: expression is not assignable
// EXPECT: 32:73: error: cannot assign to variable 'k' with const-qualified type 'const int'
// EXPECT: 36:60: warning: 'model' is the paper's spelling of 'model_type'
// EXPECT: 36:73: warning: 'min_training_data' is the paper's spelling of 'min_train_data'
void f1(int n) {
#pragma omp begin adaptation model_name(t1) variants(a, b) model_type(svm)
#pragma omp end adaptation
}
void f2(int n) {
#pragma omp begin adaptation model_name(t2) variants(a, b) model_type(rfc, 10)
#pragma omp end adaptation
}
void f3(int n) {
#pragma omp begin adaptation model_name(t3) variants(a, b) model_type(dtree, 2, 3)
#pragma omp end adaptation
}
void f4(int n) {
#pragma omp begin adaptation model_name(t4) variants(a, b) min_train_data(0)
#pragma omp end adaptation
}
void f5(int n) {
#pragma omp begin adaptation model_name(t5) variants(a, b) model_output(n + 1)
#pragma omp end adaptation
}
void f6(int n) {
  const int k = 0;
#pragma omp begin adaptation model_name(t6) variants(a, b) model_output(k)
#pragma omp end adaptation
}
void f7(int n) {
#pragma omp begin adaptation model_name(t7) variants(a, b) model(dtree) min_training_data(4)
#pragma omp end adaptation
}
