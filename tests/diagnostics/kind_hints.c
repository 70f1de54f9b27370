// A range kind written with parentheses gets the bracketed form, and a misspelt kind its
// did-you-mean, both with a fix-it (tests/tests/diagnostics.rs checks them with
// -fdiagnostics-parseable-fixits); a feature that is not a number gets an error in ompadapt's
// words, alone.
// EXPECT: 13:65: error: 'thread_limit' takes its values in brackets: 'thread_limit[64:256:64]' (a range B:E:S, or one value)
// EXPECT: 16:65: error: unknown variant kind 'threads_limit[...]'; did you mean 'thread_limit'?; the kinds are cpu, gpu, thread_limit[B:E:S], num_teams[B:E:S], coschedule[B:E:S] (before a target construct); serial, threads[B:E:S] (shares of the team, 0 < share <= 1), num_threads[B:E:S], schedule(static|dynamic|guided|auto[, chunk]) (before a parallel for; the team sizes also before a parallel region)
// EXPECT: 19:48: error: static assertion failed due to requirement '(286 >> __builtin_classify_type(a)) & 1': ompadapt: feature 'a' is not a number: a feature is an integer or floating-point value the region's cost depends on (for a pointer or an array, the number of elements it holds)
// EXPECT: 22:48: error: static assertion failed due to requirement '(286 >> __builtin_classify_type(s)) & 1': ompadapt: feature 's' is not a number: a feature is an integer or floating-point value the region's cost depends on (for a pointer or an array, the number of elements it holds)
struct shape {
  int n;
};
void f(double *a, double *b, int n, struct shape s) {
#pragma omp adaptation model_name(k1) features(n) variants(gpu, thread_limit(64:256:64))
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(k2) features(n) variants(gpu, threads_limit[64:256:64])
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(k3) features(a) variants(serial, threads[0.5:1:0.5])
#pragma omp parallel for
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(k4) features(s) variants(serial, threads[0.5:1:0.5])
#pragma omp parallel for
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(k5) features(n, s.n, 2.5 * n) variants(serial, threads[0.5:1:0.5])
#pragma omp parallel for
  for (int i = 0; i < n; ++i) a[i] = b[i];
}
