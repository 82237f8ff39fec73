// The grid-stride kernel with warp shuffles: each thread folds many inputs into a register, the block
// combines its threads with shuffles (block::reduce_in_thread_order) and writes one partial per block.
// How inputs are dealt to threads depends on the functor:
//   commutative:     thread t of T takes t, t+T, t+2T, ...       every load coalesced
//   non-commutative: thread t takes the contiguous chunk t       order kept: thread order = input order
#pragma once

#include "reducelab/block/block_reduce.cuh"
#include "reducelab/core/traits.hpp"

#include <cstddef>

namespace reducelab::kernels {

template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    grid_stride_shuffle(const T* __restrict__ in, std::size_t n, T* __restrict__ block_results, OpT op) {
  __shared__ block::reduce_storage<T, BlockThreads> storage;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * BlockThreads;
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * BlockThreads + threadIdx.x;
  T acc = identity_of<OpT, T>();
  if constexpr (is_commutative_v<OpT>) {
    for (std::size_t i = thread; i < n; i += threads) acc = op(acc, in[i]);
  } else {
    const std::size_t chunk = (n + threads - 1) / threads;
    const std::size_t begin = thread * chunk < n ? thread * chunk : n;
    const std::size_t end = begin + chunk < n ? begin + chunk : n;
    for (std::size_t i = begin; i < end; ++i) acc = op(acc, in[i]);
  }
  acc = block::reduce_in_thread_order<BlockThreads>(acc, op, storage);
  if (threadIdx.x == 0) block_results[blockIdx.x] = acc;
}

}  // namespace reducelab::kernels
