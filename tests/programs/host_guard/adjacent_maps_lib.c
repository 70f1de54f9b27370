/* Built without the plugin (a library that maps the caller's data): what the cpu variant of a
 * region elsewhere must find present, with its extent. */
void lib_map_to(double *x, int n) {
#pragma omp target enter data map(to : x[0 : n])
}

void lib_unmap(double *x, int n) {
#pragma omp target exit data map(from : x[0 : n])
}
