// Warp-level inclusive scan of flagged stretches (segmented/merge_path.cuh: `then`), in lane order. Offsets grow 1, 2,
// 4, 8, 16 (Kogge-Stone): after the step with offset k, lane i holds lanes [i - 2k + 1, i] joined earlier-first, so any
// associative functor gets the in-order result.
#pragma once

#include "reducelab/segmented/merge_path.cuh"
#include "reducelab/warp/shuffle.cuh"
#include "reducelab/warp/warp_reduce.cuh"

namespace reducelab::segmented::warp {

/// The flagged value held by lane (this lane - delta); lanes below delta get their own back.
template <class T>
__device__ __forceinline__ flagged<T> shfl_up(const flagged<T>& x, int delta) {
  const int lane = threadIdx.x % ::reducelab::warp::threads_per_warp;
  const int src = lane >= delta ? lane - delta : lane;
  return {::reducelab::warp::shfl_idx(x.value, src), __shfl_sync(::reducelab::warp::full_mask, x.closed ? 1 : 0, src) != 0};
}

/// Lane i gets lanes 0..i joined in lane order. All lanes must call it.
template <class T, class OpT>
__device__ __forceinline__ flagged<T> inclusive_scan(flagged<T> x, OpT op) {
  const int lane = threadIdx.x % ::reducelab::warp::threads_per_warp;
#pragma unroll
  for (int offset = 1; offset < ::reducelab::warp::threads_per_warp; offset *= 2) {
    const flagged<T> earlier = shfl_up(x, offset);
    if (lane >= offset) x = then(earlier, x, op);
  }
  return x;
}

}  // namespace reducelab::segmented::warp
