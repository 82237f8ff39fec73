// Ladder step 2 (Harris's kernel 1): a shared-memory tree with interleaved addressing. Each thread loads one
// value into sdata; at level s = 1, 2, 4, ... the threads whose index is a multiple of 2s combine sdata[tid]
// with sdata[tid + s]. After level s, sdata[tid] holds sdata[tid .. tid + 2s) combined in order, so the tile's
// result is in input order. The `tid % (2 * s)` test leaves most threads of every warp idle (divergent
// branches), and % is slow: that is what step 3 fixes. See variants/interleaved_divergent.cuh.
#pragma once

#include "reducelab/core/traits.hpp"
#include "lab/kernels/ladder_tiles.cuh"

#include <cstddef>

namespace reducelab::kernels {

/// One tile of blockDim.x values from in[begin]; the result is valid in thread 0.
template <class OpT, class T>
__device__ __forceinline__ T interleaved_divergent_tile(T* sdata, const T* in, std::size_t n, std::size_t begin,
                                                        OpT op) {
  const unsigned tid = threadIdx.x;
  const std::size_t i = begin + tid;
  sdata[tid] = i < n ? in[i] : identity_of<OpT, T>();
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] = op(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  return sdata[0];
}

/// Launch with blockDim.x == BlockThreads, a power of two. Block b reduces tiles [b * tiles_per_block,
/// (b + 1) * tiles_per_block) of BlockThreads values and writes block_results[b].
template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    interleaved_divergent(const T* __restrict__ in, std::size_t n, std::size_t tiles_per_block,
                          T* __restrict__ block_results, OpT op) {
  __shared__ T sdata[BlockThreads];
  reduce_block_tiles<T>(n, BlockThreads, tiles_per_block, block_results, op,
                        [&](std::size_t begin) { return interleaved_divergent_tile(sdata, in, n, begin, op); });
}

}  // namespace reducelab::kernels
