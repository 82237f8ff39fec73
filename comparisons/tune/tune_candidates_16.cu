// `reducelab tune`, 16-byte values: tuned on argmax over double_idx64 (the common pair reduction; commutative, so
// CUB is timed beside it) and on affine_compose over affine64 (in order, with 64-bit multiplies).
#include "comparisons/tune/candidates.cuh"
#include "functors/affine_compose.cuh"
#include "functors/argmax.cuh"

namespace reducelab::tune {

std::unique_ptr<class_tuner> make_tuner_16() {
  return make_class_tuner(workload<functors::argmax, functors::double_idx64>{"argmax"},
                          workload<functors::affine_compose, functors::affine64>{"affine_compose"});
}

}  // namespace reducelab::tune
