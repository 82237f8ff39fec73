// Segmented step 4 - G lanes per segment (G = 2, 4, 8, 16), 32/G segments per warp, for tiny segments: a warp
// per segment leaves 24-31 of its lanes idle on a segment of 1-8 items. A group reads its segment G items at a
// time (coalesced within the group) and reduces with reduce_in_group_order<G>, whose shuffles name only the
// group's lanes, so the groups of a warp may walk segments of different lengths.
//   commutative:     rank r folds first+r, first+r+G, ... (thread::fold_strided), then one group reduction
//   non-commutative: every G-item step is reduced in rank order and appended to the group's running value by
//                    rank 0, so the result is the in-order one (log2(G) shuffles per step instead of per segment)
#pragma once

#include "reducelab/segmented/warp/group_reduce.cuh"
#include "lab/segmented/kernels/segments.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/thread/thread_fold.cuh"

#include <cstddef>

namespace reducelab::segmented::kernels {

template <int G, int BlockThreads, class OpT, class T, class OffsetT>
__global__ void __launch_bounds__(BlockThreads)
    subwarp_per_segment(const T* __restrict__ in, const OffsetT* __restrict__ begin,
                        const OffsetT* __restrict__ end, std::size_t num_segments, T* __restrict__ out, OpT op) {
  static_assert(BlockThreads % 32 == 0, "whole warps");
  constexpr int groups_per_block = BlockThreads / G;
  const int rank = static_cast<int>(threadIdx.x % G);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * groups_per_block;
  for (std::size_t s = static_cast<std::size_t>(blockIdx.x) * groups_per_block + threadIdx.x / G; s < num_segments;
       s += stride) {
    const segment seg = segment_at(begin, end, s);  // the same for the whole group: its loop stays group-uniform
    T value;
    if constexpr (is_commutative_v<OpT>) {
      const T mine = thread::fold_strided(identity_of<OpT, T>(), in, seg.first + rank, seg.last, G, op);
      value = reduce_in_group_order<G>(mine, op);
    } else {
      value = identity_of<OpT, T>();
      for (std::size_t t = seg.first; t < seg.last; t += G) {
        const std::size_t i = t + rank;
        const T step = reduce_in_group_order<G>(i < seg.last ? in[i] : identity_of<OpT, T>(), op);
        value = op(value, step);  // meaningful in rank 0, which holds the step's in-order result
      }
    }
    if (rank == 0) out[s] = value;
  }
}

}  // namespace reducelab::segmented::kernels
