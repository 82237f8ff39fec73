// segmented cases for plus over int32, float and double (see session.cuh).
#include "comparisons/segmented/session.cuh"
#include "functors/plus.cuh"

namespace reducelab::segmented::tool {
void add_plus_cases(std::vector<case_entry>& into) {
  detail::add_cases<functors::plus>(into, "plus", type_list<std::int32_t, float, double>{});
}
}  // namespace reducelab::segmented::tool
