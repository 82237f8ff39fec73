// Warp-level reduction with shuffles. Offsets grow 1, 2, 4, 8, 16: after the step with offset k, lane i holds
// lanes [i, i + 2k) combined in order, so lane 0 ends with lane 0 op lane 1 op ... op lane 31 in lane order.
// That makes one routine right for non-commutative functors too, at no cost for commutative ones.
// (The common 16, 8, 4, 2, 1 order gives lane 0 the combination (0,16,8,24,...), fine only if commutative.)
#pragma once

#include "reducelab/warp/shuffle.cuh"

namespace reducelab::warp {

inline constexpr int threads_per_warp = 32;

/// Combine the 32 lanes' values in lane order; the result is valid in lane 0 only. All lanes must call it.
template <class T, class OpT>
__device__ __forceinline__ T reduce_in_lane_order(T value, OpT op) {
#pragma unroll
  for (int offset = 1; offset < threads_per_warp; offset *= 2) {
    const T other = shfl_down(value, offset);
    value = op(value, other);
  }
  return value;
}

}  // namespace reducelab::warp
