// Block-level reduction of one contiguous range [begin, end) of the input, with two algorithms chosen by name:
//
//   range_algorithm::striped    thread t folds begin+t, begin+t+B, ... (every load coalesced), then the block
//                               tree. Thread t's register mixes inputs from all over the range, so the result
//                               is right only for a commutative functor.
//   range_algorithm::in_order   each warp owns a contiguous run of tiles of 32*K items (K*sizeof(T) ~ 32 bytes
//                               per lane). A tile is loaded striped (coalesced) into the warp's slice of shared
//                               memory, then lane l folds items [l*K, l*K + K) left to right, the warp combines
//                               its lanes in lane order, and lane 0 appends the tile to the warp's running
//                               value; the block finally combines warps in warp order. Every combine joins
//                               neighbours in input order, so any associative functor gets the in-order result.
//
// default_range_algorithm<OpT> picks striped for commutative functors and in_order otherwise. The result is
// valid in thread 0 only, and the storage is free for reuse only after a __syncthreads() by the caller.
// `in` is deliberately not __restrict__: single_pass_last_block and grid_sync_cooperative read partials that
// other blocks wrote during the same launch, which must not go through the non-coherent read-only cache.
// Kernels mark their own input pointer __restrict__, which is enough for the input loads.
#pragma once

#include "reducelab/block/block_reduce.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/thread/thread_fold.cuh"
#include "reducelab/warp/warp_reduce.cuh"

#include <cstddef>

namespace reducelab::block {

enum class range_algorithm { striped, in_order };

template <class OpT>
inline constexpr range_algorithm default_range_algorithm =
    is_commutative_v<OpT> ? range_algorithm::striped : range_algorithm::in_order;

/// Items a lane folds per tile in the in-order algorithm: 32 bytes' worth, at least one.
template <class T>
inline constexpr int in_order_items = sizeof(T) >= 32 ? 1 : static_cast<int>(32 / sizeof(T));

/// Items in one warp tile of the in-order algorithm.
template <class T>
inline constexpr std::size_t in_order_tile = std::size_t{32} * in_order_items<T>;

template <class T, int BlockThreads, range_algorithm Algorithm>
struct range_storage {
  reduce_storage<T, BlockThreads> reduce;
};

template <class T, int BlockThreads>
struct range_storage<T, BlockThreads, range_algorithm::in_order> {
  reduce_storage<T, BlockThreads> reduce;
  // One padding slot after every 32 items: lane l reading its K consecutive items then hits distinct banks
  // (for 4-byte T exactly; 2-way at worst for the wider types) instead of a K-way conflict.
  static constexpr std::size_t slice = in_order_tile<T> + in_order_tile<T> / 32;
  T staging[BlockThreads / warp::threads_per_warp][slice];
};

namespace detail {
__device__ __forceinline__ std::size_t padded(std::size_t item) { return item + item / 32; }
}  // namespace detail

/// Commutative functors only: thread t folds begin+t, begin+t+B, ..., then the block tree.
template <int BlockThreads, class T, class OpT>
__device__ __forceinline__ T reduce_range(const T* in, std::size_t begin, std::size_t end, OpT op,
                                          range_storage<T, BlockThreads, range_algorithm::striped>& storage) {
  const T acc = thread::fold_strided(identity_of<OpT, T>(), in, begin + threadIdx.x, end, BlockThreads, op);
  return reduce_in_thread_order<BlockThreads>(acc, op, storage.reduce);
}

/// Any associative functor: the combination of in[begin], ..., in[end - 1] in input order.
template <int BlockThreads, class T, class OpT>
__device__ __forceinline__ T reduce_range(const T* in, std::size_t begin, std::size_t end, OpT op,
                                          range_storage<T, BlockThreads, range_algorithm::in_order>& storage) {
  constexpr int items = in_order_items<T>;
  constexpr std::size_t tile = in_order_tile<T>;
  constexpr int warps = BlockThreads / warp::threads_per_warp;
  const int lane = threadIdx.x % warp::threads_per_warp;
  const int warp_id = threadIdx.x / warp::threads_per_warp;

  // Whole tiles per warp, so that every warp but the last loads full, aligned tiles.
  const std::size_t tiles = (end - begin + tile - 1) / tile;
  const std::size_t warp_span = (tiles + warps - 1) / warps * tile;
  const std::size_t warp_begin = begin + warp_id * warp_span < end ? begin + warp_id * warp_span : end;
  const std::size_t warp_end = warp_begin + warp_span < end ? warp_begin + warp_span : end;
  T* stage = storage.staging[warp_id];

  T running = identity_of<OpT, T>();
  for (std::size_t first = warp_begin; first < warp_end; first += tile) {
    const std::size_t count = warp_end - first < tile ? warp_end - first : tile;
    T mine = identity_of<OpT, T>();
    if (count == tile) {
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const std::size_t item = lane + j * warp::threads_per_warp;
        stage[detail::padded(item)] = in[first + item];
      }
      __syncwarp();
#pragma unroll
      for (int j = 0; j < items; ++j) mine = op(mine, stage[detail::padded(lane * items + j)]);
    } else {
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const std::size_t item = lane + j * warp::threads_per_warp;
        if (item < count) stage[detail::padded(item)] = in[first + item];
      }
      __syncwarp();
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const std::size_t item = static_cast<std::size_t>(lane) * items + j;
        if (item < count) mine = op(mine, stage[detail::padded(item)]);
      }
    }
    __syncwarp();  // the slice is rewritten by the next tile
    mine = warp::reduce_in_lane_order(mine, op);
    running = op(running, mine);  // meaningful in lane 0, which holds the tile's in-order result
  }
  const T value = lane == 0 ? running : identity_of<OpT, T>();
  return reduce_in_thread_order<BlockThreads>(value, op, storage.reduce);
}

/// Combine levels of reduce_in_thread_order: a 5-level warp tree, then (several warps) one over the warps.
template <int BlockThreads>
constexpr std::size_t block_tree_depth() {
  return BlockThreads > 32 ? 10 : 5;
}

/// Upper bound on the combines any input of a range of `length` items passes through in reduce_range.
template <int BlockThreads, range_algorithm Algorithm, class T>
constexpr std::size_t range_depth(std::size_t length) {
  if constexpr (Algorithm == range_algorithm::striped) {
    return (length + BlockThreads - 1) / BlockThreads + block_tree_depth<BlockThreads>();
  } else {
    constexpr std::size_t warps = BlockThreads / 32;
    const std::size_t tiles = (length + in_order_tile<T> - 1) / in_order_tile<T>;
    const std::size_t tiles_per_warp = (tiles + warps - 1) / warps;
    return in_order_items<T> + 5 + tiles_per_warp + block_tree_depth<BlockThreads>();
  }
}

}  // namespace reducelab::block
