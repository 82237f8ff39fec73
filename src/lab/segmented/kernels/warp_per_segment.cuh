// Segmented step 2 - one warp per segment, in input order and coalesced. The segment is cut into warp tiles of
// 32*K items (K*sizeof(T) ~ 32 bytes per lane, block::in_order_items). A tile is loaded striped (lane l takes
// items l, l+32, ...: every load instruction of the warp reads contiguous memory) into the warp's slice of
// shared memory; lane l then folds items [l*K, l*K + K) left to right, warp::reduce_in_lane_order combines the
// lanes, and lane 0 appends the tile to the segment's running value. Every combine joins neighbours in input
// order, so any associative functor gets the in-order result. Segments start anywhere (CUB's offsets carry no
// alignment), so loads are per value, not 16-byte vectors.
#pragma once

#include "lab/segmented/kernels/segments.cuh"
#include "reducelab/block/block_reduce_range.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/warp/warp_reduce.cuh"

#include <cstddef>

namespace reducelab::segmented::kernels {

/// One warp's staging slice: a tile plus one padding slot after every 32 items, so that lane l reading its K
/// consecutive items hits distinct banks (4-byte T; 2-way at worst for wider types).
template <class T>
struct warp_range_stage {
  static constexpr int items = block::in_order_items<T>;
  static constexpr int tile = 32 * items;
  static __device__ __forceinline__ int padded(int i) { return i + i / 32; }
  T slot[tile + tile / 32];
};

/// in[first], ..., in[last - 1] combined in input order (identity if first == last); valid in lane 0. Every lane
/// of the warp must call it with the same range; the stage is free for reuse when it returns.
template <class T, class OpT>
__device__ __forceinline__ T reduce_warp_range(const T* __restrict__ in, std::size_t first, std::size_t last, OpT op,
                                               warp_range_stage<T>& stage) {
  using stage_t = warp_range_stage<T>;
  constexpr int items = stage_t::items;
  constexpr int tile = stage_t::tile;
  const int lane = threadIdx.x % 32;
  T running = identity_of<OpT, T>();
  for (std::size_t t = first; t < last; t += tile) {
    const int count = last - t < static_cast<std::size_t>(tile) ? static_cast<int>(last - t) : tile;
    T mine;
    if (count == tile) {
      T r[items];
#pragma unroll
      for (int j = 0; j < items; ++j) r[j] = in[t + j * 32 + lane];  // all loads issued before any store
#pragma unroll
      for (int j = 0; j < items; ++j) stage.slot[stage_t::padded(j * 32 + lane)] = r[j];
      __syncwarp();
      mine = stage.slot[stage_t::padded(lane * items)];
#pragma unroll
      for (int j = 1; j < items; ++j) mine = op(mine, stage.slot[stage_t::padded(lane * items + j)]);
    } else {
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const int i = j * 32 + lane;
        if (i < count) stage.slot[stage_t::padded(i)] = in[t + i];
      }
      __syncwarp();
      mine = identity_of<OpT, T>();  // lanes past the end of the segment
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const int i = lane * items + j;
        if (i < count) mine = op(mine, stage.slot[stage_t::padded(i)]);
      }
    }
    __syncwarp();  // the slice is rewritten by the next tile
    mine = warp::reduce_in_lane_order(mine, op);
    running = op(running, mine);  // lane 0 holds the tile's in-order result
  }
  return running;
}

template <int BlockThreads, class OpT, class T, class OffsetT>
__global__ void __launch_bounds__(BlockThreads)
    warp_per_segment(const T* __restrict__ in, const OffsetT* __restrict__ begin, const OffsetT* __restrict__ end,
                     std::size_t num_segments, T* __restrict__ out, OpT op) {
  constexpr int warps = BlockThreads / 32;
  __shared__ warp_range_stage<T> stage[warps];
  const int lane = threadIdx.x % 32;
  const int warp_id = threadIdx.x / 32;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * warps;
  for (std::size_t s = static_cast<std::size_t>(blockIdx.x) * warps + warp_id; s < num_segments; s += stride) {
    const segment seg = segment_at(begin, end, s);  // the same for every lane: the loop stays warp-uniform
    const T value = reduce_warp_range(in, seg.first, seg.last, op, stage[warp_id]);
    if (lane == 0) out[s] = value;
  }
}

}  // namespace reducelab::segmented::kernels
