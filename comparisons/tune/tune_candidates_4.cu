// `reducelab tune`, 4-byte values: tuned on plus over int32 and over float (the same loads, another combine), and on
// maximum over float: with plus alone the one-block path took 4 loads per thread (0c6865d), where plus ties at 2^12
// and maximum/float lost to CUB there (0.88-0.91x at 3dfe5d0, results/*-lib/report.md).
#include "comparisons/tune/candidates.cuh"
#include "functors/maximum.cuh"
#include "functors/plus.cuh"

#include <cstdint>

namespace reducelab::tune {

std::unique_ptr<class_tuner> make_tuner_4() {
  return make_class_tuner(workload<functors::plus, std::int32_t>{"plus"}, workload<functors::plus, float>{"plus"},
                          workload<functors::maximum, float>{"maximum"});
}

}  // namespace reducelab::tune
