// Syntax errors in every clause of the adaptation directives, one per directive, at the token
// that is wrong.
void s1(int n) {
#pragma omp adaptation model_name(a1) variants(1, 2) min_train_data()
  n++;
#pragma omp adaptation model_name("") variants(1, 2)
  n++;
#pragma omp adaptation model_name(a3) variants
  n++;
#pragma omp adaptation model_name(a4) variants(1, 2) 42
  n++;
#pragma omp adaptation model_name(a5) features() variants(1, 2)
  n++;
}
void s2(int n) {
#pragma omp declare adaptation feature(n) model(random_forest, 10, 2)
#pragma omp metadirective when(: parallel for) default()
  for (int i = 0; i < n; ++i) n--;
#pragma omp declare adaptation model_name(p2) feature(n)
#pragma omp metadirective when(: parallel for) default()
  for (int i = 0; i < n; ++i) n--;
#pragma omp declare adaptation use_model(p2) variant_mapping()
#pragma omp metadirective when(: parallel for) default()
  for (int i = 0; i < n; ++i) n--;
#pragma omp declare adaptation use_model(p2) variant_mapping(-1, 0)
#pragma omp metadirective when(: parallel for) default()
  for (int i = 0; i < n; ++i) n--;
#pragma omp declare adaptation feature(n)
#pragma omp metadirective
  for (int i = 0; i < n; ++i) n--;
}
void s3(int n) {
#pragma omp declare adaptation feature(min_sample_points(2) n)
#pragma omp metadirective when(: parallel for) default()
  for (int i = 0; i < n; ++i) n--;
#pragma omp declare adaptation feature(range[0:1], range[0:2]: n)
#pragma omp metadirective when(: parallel for) default()
  for (int i = 0; i < n; ++i) n--;
#pragma omp declare adaptation feature(min_sample_points(1), min_sample_points(2): n)
#pragma omp metadirective when(: parallel for) default()
  for (int i = 0; i < n; ++i) n--;
#pragma omp declare adaptation feature(min_sample_points(0): n)
#pragma omp metadirective when(: parallel for) default()
  for (int i = 0; i < n; ++i) n--;
#pragma omp declare adaptation feature(range[0:1:2]: n)
#pragma omp metadirective when(: parallel for) default()
  for (int i = 0; i < n; ++i) n--;
#pragma omp declare adaptation feature(range[0:1], foo(3): n)
#pragma omp metadirective when(: parallel for) default()
  for (int i = 0; i < n; ++i) n--;
#pragma omp declare adaptation feature()
#pragma omp metadirective when(: parallel for) default()
  for (int i = 0; i < n; ++i) n--;
}
void s4(int n) {
#pragma omp adaptation model_name(m4) variants(1, 2) model_type()
  n++;
#pragma omp adaptation model_name(m5) variants(1, 2) model_type(dtree, 0)
  n++;
#pragma omp adaptation model_name(m6) variants(1, 2) model_type(logistic, 3)
  n++;
#pragma omp adaptation model_name(m7) variants(1, 2) model_type(random_forest, )
  n++;
}
void s5(int n) {
#pragma omp begin adaptation model_name(m) variants(x, y)
#pragma omp metadirective when(user={adaptation(m == x)}: 42) default()
  n++;
#pragma omp metadirective when(user={adaptation(m == x)} parallel)
  n++;
#pragma omp metadirective when(user={adaptation(m == x)}: parallel) foo(x)
  n++;
#pragma omp metadirective when(user={adaptation(m == x)}: parallel) default
  n++;
#pragma omp metadirective when(user, {adaptation(m == x)}: parallel)
  n++;
#pragma omp metadirective when(device={kind(gpu)}, user={adaptation(m == x)}: parallel)
  n++;
#pragma omp metadirective when(user={adaptation(m == x), kind(gpu)}: parallel)
  n++;
#pragma omp metadirective when(user={adaptation(m == x), vendor}: parallel)
  n++;
#pragma omp metadirective when(user={adaptation(m == x x)}: parallel)
  n++;
#pragma omp metadirective when(user={adaptation(m == x), condition()}: parallel)
  n++;
#pragma omp metadirective when(user={adaptation(m x)}: parallel)
  n++;
#pragma omp metadirective when(user={adaptation(== x)}: parallel)
  n++;
#pragma omp metadirective when(user={adaptation(m == )}: parallel)
  n++;
#pragma omp end adaptation
}
void s6(int n) {
#pragma omp adaptation model_name(q) variants(1, 2)
  {
#pragma omp end adaptation
  }
}
void s7(int n) {
#pragma omp adaptation model_name(v1) variants(1, , 2)
  n++;
#pragma omp adaptation model_name(v2) variants(a+b)
  n++;
#pragma omp adaptation model_name(v3) variants([0:8])
  n++;
#pragma omp adaptation model_name(v4) variants([8:0:1])
  n++;
}
// EXPECT: 4:54: error: 'min_train_data' needs an integer expression
// EXPECT: 6:35: error: a region name must be non-empty, without escape sequences
// EXPECT: 8:47: error: expected '(' after 'variants'
// EXPECT: 10:54: error: expected a clause of 'adaptation'
// EXPECT: 12:48: error: expected a feature expression
// EXPECT: 16:64: error: 'model' takes the model type only
// EXPECT: 22:46: error: 'variant_mapping' needs at least one variant ID
// EXPECT: 25:62: error: a variant ID is an integer from 0 (the primary region's first variant)
// EXPECT: 29:13: error: 'metadirective' needs at least one 'when' or 'default' clause
// EXPECT: 33:61: error: expected ':' between the modifiers and the feature list
// EXPECT: 36:52: error: duplicate 'range' modifier
// EXPECT: 39:62: error: duplicate 'min_sample_points' modifier
// EXPECT: 42:58: error: 'min_sample_points' takes a positive integer
// EXPECT: 45:40: error: a feature range is written range[lower:upper]
// EXPECT: 48:52: error: expected 'range[lo:hi]' or 'min_sample_points(n)' before ':'
// EXPECT: 51:40: error: expected a feature expression
// EXPECT: 56:54: error: expected a model type: 'dtree'/'decision_tree', 'rfc'/'random_forest', 'logistic'/'logistic_regression' or 'auto'
// EXPECT: 58:72: error: model parameters must be at least 1
// EXPECT: 60:75: error: 'logistic' takes no parameters
// EXPECT: 62:80: error: expected an integer expression
// EXPECT: 67:59: error: expected an OpenMP directive name in this directive variant
// EXPECT: 69:27: error: expected ':' between the context selector and the directive variant
// EXPECT: 71:69: error: expected 'when', 'default' or 'otherwise' clause in 'metadirective'
// EXPECT: 73:76: error: expected '(' after 'default'
// EXPECT: 75:32: error: expected a context selector set such as user={adaptation(...)}
// EXPECT: 77:32: error: the 'device' selector set cannot be combined with adaptation selectors: a metadirective using 'adaptation' is decided at run time
// EXPECT: 79:58: error: the 'kind' selector cannot be combined with adaptation selectors
// EXPECT: 81:58: error: expected 'adaptation(...)' or 'condition(...)'
// EXPECT: 83:56: error: unexpected token in adaptation selector
// EXPECT: 85:58: error: 'condition' needs an expression
// EXPECT: 87:51: error: expected one of ==, !=, <, <=, >, >= after the model name
// EXPECT: 89:49: error: expected '<model> <relop> <variant>', e.g. adaptation(by_len == gpu)
// EXPECT: 91:54: error: expected a variant after the relational operator
// EXPECT: 98:13: error: 'end adaptation' inside the structured block of the 'adaptation' directive for 'q'
// EXPECT: 102:51: error: expected a variant
// EXPECT: 104:48: error: a variant is an identifier, a numeric constant or a range [BEGIN:END:STEP]
// EXPECT: 106:48: error: a range is written [BEGIN:END:STEP]
// EXPECT: 108:48: error: range END is smaller than BEGIN: the range is empty
