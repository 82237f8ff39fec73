// segmented cases for maximum over int32, float and double (see session.cuh).
#include "comparisons/segmented/session.cuh"
#include "functors/maximum.cuh"

namespace reducelab::segmented::tool {
void add_maximum_cases(std::vector<case_entry>& into) {
  detail::add_cases<functors::maximum>(into, "maximum", type_list<std::int32_t, float, double>{});
}
}  // namespace reducelab::segmented::tool
