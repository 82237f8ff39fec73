// Must NOT compile: a functor with no identity for the requested type. CTest checks the error message.
#include "reducelab/core/traits.hpp"

struct no_identity_op {
  __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

int main() { return reducelab::identity_of<no_identity_op, int>(); }
