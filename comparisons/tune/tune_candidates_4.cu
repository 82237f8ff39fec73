// `reducelab tune`, 4-byte values: tuned on plus over int32 and over float (the same loads, another combine).
#include "comparisons/tune/candidates.cuh"
#include "functors/plus.cuh"

#include <cstdint>

namespace reducelab::tune {

std::unique_ptr<class_tuner> make_tuner_4() {
  return make_class_tuner(workload<functors::plus, std::int32_t>{"plus"}, workload<functors::plus, float>{"plus"});
}

}  // namespace reducelab::tune
