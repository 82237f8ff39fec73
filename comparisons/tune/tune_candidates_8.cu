// `reducelab tune`, 8-byte values: tuned on plus over double and on affine_compose over affine32, which is not
// commutative (so CUB is not timed beside it) and costs three multiply-adds per combine: one policy must suit both.
#include "comparisons/tune/candidates.cuh"
#include "functors/affine_compose.cuh"
#include "functors/plus.cuh"

namespace reducelab::tune {

std::unique_ptr<class_tuner> make_tuner_8() {
  return make_class_tuner(workload<functors::plus, double>{"plus"},
                          workload<functors::affine_compose, functors::affine32>{"affine_compose"});
}

}  // namespace reducelab::tune
