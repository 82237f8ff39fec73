// Must NOT compile: reducelab::reduce with a functor that has no identity for the value type. CTest checks
// that the message is the readable one from reducelab/core/traits.hpp, not a cascade from deep inside.
#include <reducelab/reduce.cuh>

struct no_identity_op {
  __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

int reduce_without_identity(const int* d_in, std::size_t n) { return reducelab::reduce(d_in, n, no_identity_op{}); }
