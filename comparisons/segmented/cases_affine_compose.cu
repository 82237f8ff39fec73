// segmented cases for the non-commutative affine_compose over affine32 (see session.cuh): CUB's segmented
// reductions refuse it; every order-preserving backend must match the in-order fold bit for bit.
#include "comparisons/segmented/session.cuh"
#include "functors/affine_compose.cuh"

namespace reducelab::segmented::tool {
void add_affine_compose_cases(std::vector<case_entry>& into) {
  detail::add_cases<functors::affine_compose>(into, "affine_compose", type_list<functors::affine32>{});
}
}  // namespace reducelab::segmented::tool
