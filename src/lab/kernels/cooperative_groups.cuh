// The grid-stride kernel written with cooperative groups: the block is a cg::thread_block, its warps are
// cg::tiled_partition<32> tiles, and a tile reduces with cg::reduce(tile, value, op).
//
// What cg::reduce (cooperative_groups/details/reduce.h, CUDA 13) accepts, and so the rule used here:
//   - cg::plus / cg::less (min) / cg::greater (max) / cg::bit_and / cg::bit_or / cg::bit_xor over integral
//     types of at most 4 bytes run the hardware redux instruction on sm_80+ (a butterfly of shuffles before).
//     A reducelab builtin over int32/uint32 is mapped onto the matching cg functor to get it.
//   - any other functor, including ours, takes the generic path: a shfl_xor butterfly (offsets 16, 8, 4, 2, 1)
//     through tile.shfl_xor, which moves any trivially copyable type of at most 32 bytes (static_assert in
//     details/helpers.h). The butterfly pairs lane i with i^16 first, so lane order is lost: commutative only.
//   - a type wider than 32 bytes falls back to warp::reduce_in_lane_order (our word-by-word shuffles).
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/thread/thread_fold.cuh"
#include "reducelab/warp/warp_reduce.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/std/type_traits>

#include <cstddef>

namespace reducelab::kernels {

namespace cg_detail {
namespace cg = ::cooperative_groups;

/// Reduce the 32 lanes of `tile` with op (result in every lane), by the rule in the file comment.
template <class TileT, class T, class OpT>
__device__ __forceinline__ T tile_reduce(const TileT& tile, T value, OpT op) {
  constexpr builtin_op kind = builtin_kind_v<OpT>;
  constexpr bool word32 = cuda::std::is_same_v<T, int> || cuda::std::is_same_v<T, unsigned>;
  if constexpr (word32 && kind == builtin_op::plus) {
    return cg::reduce(tile, value, cg::plus<T>());  // wraps, like functors::plus
  } else if constexpr (word32 && kind == builtin_op::minimum) {
    return cg::reduce(tile, value, cg::less<T>());
  } else if constexpr (word32 && kind == builtin_op::maximum) {
    return cg::reduce(tile, value, cg::greater<T>());
  } else if constexpr (word32 && kind == builtin_op::bit_and) {
    return cg::reduce(tile, value, cg::bit_and<T>());
  } else if constexpr (word32 && kind == builtin_op::bit_or) {
    return cg::reduce(tile, value, cg::bit_or<T>());
  } else if constexpr (word32 && kind == builtin_op::bit_xor) {
    return cg::reduce(tile, value, cg::bit_xor<T>());
  } else if constexpr (sizeof(T) <= 32) {
    return cg::reduce(tile, value, op);
  } else {
    return warp::reduce_in_lane_order(value, op);  // valid in lane 0 only, which is all the caller reads
  }
}
}  // namespace cg_detail

template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    cooperative_groups_reduce(const T* __restrict__ in, std::size_t n, T* __restrict__ block_results, OpT op) {
  namespace cg = ::cooperative_groups;
  constexpr int warps = BlockThreads / 32;
  static_assert(BlockThreads % 32 == 0 && warps <= 32, "cooperative_groups: block size a multiple of 32, <= 1024");
  __shared__ T warp_results[warps];
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);

  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * BlockThreads;
  const std::size_t rank = static_cast<std::size_t>(blockIdx.x) * BlockThreads + block.thread_rank();
  T acc = thread::fold_strided(identity_of<OpT, T>(), in, rank, n, threads, op);
  acc = cg_detail::tile_reduce(tile, acc, op);
  if (tile.thread_rank() == 0) warp_results[tile.meta_group_rank()] = acc;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    acc = tile.thread_rank() < warps ? warp_results[tile.thread_rank()] : identity_of<OpT, T>();
    acc = cg_detail::tile_reduce(tile, acc, op);
    if (tile.thread_rank() == 0) block_results[blockIdx.x] = acc;
  }
}

}  // namespace reducelab::kernels
