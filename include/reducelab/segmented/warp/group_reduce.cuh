// In-order reductions over parts of a warp, for the segmented kernels (the library's pieces agent and the lab's
// sub-warp and key-labelled variants):
//
//   reduce_in_group_order<G>   the lanes of an aligned group of G lanes (G = 2, 4, 8, 16, 32), in lane order.
//                              Offsets grow 1, 2, ..., G/2 as in warp::reduce_in_lane_order, so the group's
//                              first lane ends with rank 0 op rank 1 op ... op rank G-1. Only the group's lanes
//                              shuffle (mask = the group), so groups of one warp may run different trip counts.
//   reduce_in_group_order_converged<G>  the same, when the whole warp calls it together: full-warp shuffles.
//   warp_max                   the largest int of the warp's lanes (the short pass's group mode: its step count).
//   reduce_runs_in_lane_order  contiguous runs of lanes of any lengths (reduce-by-key within a warp): given the
//                              last lane of its run, every run's first lane ends with the run in lane order.
//
// Both serve non-commutative functors: every combine joins a left neighbour with the right one.
#pragma once

#include "reducelab/warp/shuffle.cuh"

namespace reducelab::segmented {

/// The lanes of this lane's aligned group of G lanes, as a shuffle mask.
template <int G>
__device__ __forceinline__ unsigned group_lanes() {
  static_assert(G == 2 || G == 4 || G == 8 || G == 16 || G == 32, "a lane group has 2, 4, 8, 16 or 32 lanes");
  if constexpr (G == 32) {
    return ::reducelab::warp::full_mask;
  } else {
    const int lane = threadIdx.x % 32;
    return ((1u << G) - 1u) << (lane / G * G);
  }
}

/// Combine the values of this lane's group of G lanes in lane order; valid in the group's first lane only.
/// Every lane of the group must call it (the other groups of the warp need not). `mask` names the lanes that shuffle
/// together: the group's by default.
template <int G, class T, class OpT>
__device__ __forceinline__ T reduce_in_group_order(T value, OpT op, unsigned mask = group_lanes<G>()) {
  const int lane = threadIdx.x % 32;
  const int rank = lane % G;
#pragma unroll
  for (int offset = 1; offset < G; offset *= 2) {
    // Like __shfl_down_sync with width G: a lane whose partner lies past the group reads its own value, and what
    // it then holds is never read by the first lane.
    const int source = rank + offset < G ? lane + offset : lane;
    const T other = ::reducelab::warp::shfl_idx(value, source, mask);
    value = op(value, other);
  }
  return value;
}

/// reduce_in_group_order for a whole warp that calls it together (every lane, converged): the same result, with
/// full-warp shuffles. Groups of one warp naming different masks in one shuffle are served one group after another,
/// which made sub-warp groups of 2 and 4 lanes slower than one lane per segment (H100, segmented library).
template <int G, class T, class OpT>
__device__ __forceinline__ T reduce_in_group_order_converged(T value, OpT op) {
  return reduce_in_group_order<G>(value, op, ::reducelab::warp::full_mask);
}

/// The largest `value` of the warp's lanes (every lane calls it, converged).
__device__ __forceinline__ int warp_max(int value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_max_sync(::reducelab::warp::full_mask, value);
#else
  for (int offset = 16; offset > 0; offset /= 2) {
    const int other = __shfl_xor_sync(::reducelab::warp::full_mask, value, offset);
    value = other > value ? other : value;
  }
  return value;
#endif
}

/// Reduce contiguous runs of lanes in lane order. `run_last` is the last lane of this lane's run (a lane that
/// belongs to no run passes run_last < lane). After the step with offset k, lane i holds lanes
/// [i, min(i + 2k, run_last + 1)) combined in order, so each run's first lane ends with its whole run. Every
/// lane of the warp must call it.
template <class T, class OpT>
__device__ __forceinline__ T reduce_runs_in_lane_order(T value, int run_last, OpT op) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const T other = ::reducelab::warp::shfl_down(value, offset);
    if (lane + offset <= run_last) value = op(value, other);
  }
  return value;
}

}  // namespace reducelab::segmented
