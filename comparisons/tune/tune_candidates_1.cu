// `reducelab tune`, 1-byte values: tuned on logical_or over bool (the byte-wide predicate reduction).
#include "comparisons/tune/candidates.cuh"
#include "functors/logical_or.cuh"

namespace reducelab::tune {

std::unique_ptr<class_tuner> make_tuner_1() {
  return make_class_tuner(workload<functors::logical_or, bool>{"logical_or"});
}

}  // namespace reducelab::tune
