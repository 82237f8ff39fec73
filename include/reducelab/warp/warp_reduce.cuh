// Warp-level reduction with shuffles. Offsets grow 1, 2, 4, 8, 16: after the step with offset k, lane i holds
// lanes [i, i + 2k) combined in order, so lane 0 ends with lane 0 op lane 1 op ... op lane 31 in lane order.
// That makes one routine right for non-commutative functors too, at no cost for commutative ones.
// (The common 16, 8, 4, 2, 1 order gives lane 0 the combination (0,16,8,24,...), fine only if commutative.)
#pragma once

#include "reducelab/warp/shuffle.cuh"

namespace reducelab::warp {

inline constexpr int threads_per_warp = 32;

/// The smallest power of two that is at least n (n from 1 to 32): how many lanes a tree over n values needs.
constexpr int lanes_for(int n) { return n <= 1 ? 1 : 2 * lanes_for((n + 1) / 2); }

/// Combine the values of lanes 0 .. Lanes-1 in lane order (Lanes a power of two, by default the whole warp); the
/// result is valid in lane 0 only. All 32 lanes must call it. A tree over fewer lanes takes log2(Lanes) rounds
/// instead of five, for callers that know the other lanes hold nothing (block::combine_warp_leaders).
template <int Lanes = threads_per_warp, class T, class OpT>
__device__ __forceinline__ T reduce_in_lane_order(T value, OpT op) {
  static_assert(Lanes >= 1 && Lanes <= threads_per_warp && (Lanes & (Lanes - 1)) == 0,
                "reduce_in_lane_order: Lanes is a power of two from 1 to 32");
#pragma unroll
  for (int offset = 1; offset < Lanes; offset *= 2) {
    const T other = shfl_down(value, offset);
    value = op(value, other);
  }
  return value;
}

}  // namespace reducelab::warp
