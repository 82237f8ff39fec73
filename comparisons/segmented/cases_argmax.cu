// segmented cases for argmax over float_idx32 (see session.cuh).
#include "comparisons/segmented/session.cuh"
#include "functors/argmax.cuh"

namespace reducelab::segmented::tool {
void add_argmax_cases(std::vector<case_entry>& into) {
  detail::add_cases<functors::argmax>(into, "argmax", type_list<functors::float_idx32>{});
}
}  // namespace reducelab::segmented::tool
