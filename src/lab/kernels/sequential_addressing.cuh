// Ladder step 4 (Harris's kernel 3): sequential addressing. At level s = blockDim / 2, ..., 1 thread tid < s
// combines sdata[tid] with sdata[tid + s]: consecutive threads touch consecutive words, so there are no bank
// conflicts, and the active threads are still the first ones. The price: tid is paired with tid + s, not with
// its neighbour, so the tile's result is a reordering of its values (value 0 meets value s first) - right only
// for a commutative functor. Half the threads are idle from the first level on: step 5 puts them to work.
// See variants/sequential_addressing.cuh.
#pragma once

#include "reducelab/core/traits.hpp"
#include "lab/kernels/ladder_tiles.cuh"

#include <cstddef>

namespace reducelab::kernels {

/// One tile of blockDim.x values from in[begin]; the result is valid in thread 0.
template <class OpT, class T>
__device__ __forceinline__ T sequential_addressing_tile(T* sdata, const T* in, std::size_t n, std::size_t begin,
                                                        OpT op) {
  const unsigned tid = threadIdx.x;
  const std::size_t i = begin + tid;
  sdata[tid] = i < n ? in[i] : identity_of<OpT, T>();
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = op(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  return sdata[0];
}

/// Launch with blockDim.x == BlockThreads, a power of two. Block b reduces tiles [b * tiles_per_block,
/// (b + 1) * tiles_per_block) of BlockThreads values and writes block_results[b].
template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    sequential_addressing(const T* __restrict__ in, std::size_t n, std::size_t tiles_per_block,
                          T* __restrict__ block_results, OpT op) {
  __shared__ T sdata[BlockThreads];
  reduce_block_tiles<T>(n, BlockThreads, tiles_per_block, block_results, op,
                        [&](std::size_t begin) { return sequential_addressing_tile(sdata, in, n, begin, op); });
}

}  // namespace reducelab::kernels
