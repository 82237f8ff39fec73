// Ladder step 3 (Harris's kernel 2): the interleaved tree of step 2, but thread tid works on index 2 * s * tid,
// so the active threads are the first blockDim / 2s: whole warps are busy or idle and the divergent branch and
// the % are gone. Same pairs as step 2 (sdata[k] with sdata[k + s], k a multiple of 2s), so the tile's result
// is still in input order. New problem: the active threads' addresses are 2s apart, so at s >= 16 (4-byte
// values) many threads of a warp hit the same shared-memory bank and their accesses serialize - step 4 fixes
// that. See variants/interleaved_strided.cuh.
#pragma once

#include "reducelab/core/traits.hpp"
#include "lab/kernels/ladder_tiles.cuh"

#include <cstddef>

namespace reducelab::kernels {

/// One tile of blockDim.x values from in[begin]; the result is valid in thread 0.
template <class OpT, class T>
__device__ __forceinline__ T interleaved_strided_tile(T* sdata, const T* in, std::size_t n, std::size_t begin, OpT op) {
  const unsigned tid = threadIdx.x;
  const std::size_t i = begin + tid;
  sdata[tid] = i < n ? in[i] : identity_of<OpT, T>();
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] = op(sdata[index], sdata[index + s]);
    __syncthreads();
  }
  return sdata[0];
}

/// Launch with blockDim.x == BlockThreads, a power of two. Block b reduces tiles [b * tiles_per_block,
/// (b + 1) * tiles_per_block) of BlockThreads values and writes block_results[b].
template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    interleaved_strided(const T* __restrict__ in, std::size_t n, std::size_t tiles_per_block,
                        T* __restrict__ block_results, OpT op) {
  __shared__ T sdata[BlockThreads];
  reduce_block_tiles<T>(n, BlockThreads, tiles_per_block, block_results, op,
                        [&](std::size_t begin) { return interleaved_strided_tile(sdata, in, n, begin, op); });
}

}  // namespace reducelab::kernels
