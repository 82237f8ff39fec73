// Ladder step 5 (Harris's kernel 4): first combine during load. A tile is 2 * blockDim values and each thread
// loads two of them, in[begin + tid] and in[begin + tid + blockDim], combining them before the store to sdata;
// then step 4's sequential-addressing tree. No thread is idle at the first level any more, and half as many
// blocks cover the input. Still commutative-only (tid meets tid + blockDim, then tid + s). What is left is
// instruction overhead: at s <= 32 only one warp works, yet every level pays a __syncthreads and the loop
// bookkeeping - step 6 unrolls that last warp. See variants/first_add_during_load.cuh.
#pragma once

#include "reducelab/core/traits.hpp"
#include "lab/kernels/ladder_tiles.cuh"

#include <cstddef>

namespace reducelab::kernels {

/// One tile of 2 * blockDim.x values from in[begin]; the result is valid in thread 0.
template <class OpT, class T>
__device__ __forceinline__ T first_add_during_load_tile(T* sdata, const T* in, std::size_t n, std::size_t begin,
                                                        OpT op) {
  const unsigned tid = threadIdx.x;
  const std::size_t i = begin + tid;
  T value = i < n ? in[i] : identity_of<OpT, T>();
  if (i + blockDim.x < n) value = op(value, in[i + blockDim.x]);
  sdata[tid] = value;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = op(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  return sdata[0];
}

/// Launch with blockDim.x == BlockThreads, a power of two. Block b reduces tiles [b * tiles_per_block,
/// (b + 1) * tiles_per_block) of 2 * BlockThreads values and writes block_results[b].
template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    first_add_during_load(const T* __restrict__ in, std::size_t n, std::size_t tiles_per_block,
                          T* __restrict__ block_results, OpT op) {
  __shared__ T sdata[BlockThreads];
  reduce_block_tiles<T>(n, 2 * BlockThreads, tiles_per_block, block_results, op,
                        [&](std::size_t begin) { return first_add_during_load_tile(sdata, in, n, begin, op); });
}

}  // namespace reducelab::kernels
