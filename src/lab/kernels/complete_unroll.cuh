// Ladder step 7 (Harris's kernel 6): complete unrolling. The block size is a template parameter, so every
// level of the tree is written out behind an `if constexpr (BlockThreads >= ...)` that the compiler resolves:
// no loop counter, no run-time test of s, only the __syncthreads the levels need. The load (two values per
// thread, step 5) and the last warp (explicit __syncwarp, step 6) are unchanged, and so is the limit: the
// pairing tid / tid + s makes it commutative-only. Each thread still loads just two values, so the blocks
// spend most of their time in the tree rather than in loads - the next step of the ladder (many values per
// thread) is beyond this file. See variants/complete_unroll.cuh.
#pragma once

#include "reducelab/core/traits.hpp"
#include "lab/kernels/ladder_tiles.cuh"
#include "lab/kernels/unrolled_last_warp.cuh"

#include <cstddef>

namespace reducelab::kernels {

/// One tree level above the last warp: threads below s combine sdata[tid] with sdata[tid + s].
template <int S, class OpT, class T>
__device__ __forceinline__ void unrolled_level(T* sdata, unsigned tid, OpT op) {
  if (tid < S) sdata[tid] = op(sdata[tid], sdata[tid + S]);
  __syncthreads();
}

/// One tile of 2 * BlockThreads values from in[begin]; the result is valid in thread 0.
template <int BlockThreads, class OpT, class T>
__device__ __forceinline__ T complete_unroll_tile(T* sdata, const T* in, std::size_t n, std::size_t begin, OpT op) {
  const unsigned tid = threadIdx.x;
  const std::size_t i = begin + tid;
  T value = i < n ? in[i] : identity_of<OpT, T>();
  if (i + BlockThreads < n) value = op(value, in[i + BlockThreads]);
  sdata[tid] = value;
  __syncthreads();
  if constexpr (BlockThreads >= 1024) unrolled_level<512>(sdata, tid, op);
  if constexpr (BlockThreads >= 512) unrolled_level<256>(sdata, tid, op);
  if constexpr (BlockThreads >= 256) unrolled_level<128>(sdata, tid, op);
  if constexpr (BlockThreads >= 128) unrolled_level<64>(sdata, tid, op);
  T result = identity_of<OpT, T>();  // only thread 0's result is used
  if (tid < 32) result = last_warp_reduce(sdata, tid, op);
  return result;
}

/// Launch with blockDim.x == BlockThreads, a power of two from 64 to 1024. Block b reduces tiles
/// [b * tiles_per_block, (b + 1) * tiles_per_block) of 2 * BlockThreads values and writes block_results[b].
template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    complete_unroll(const T* __restrict__ in, std::size_t n, std::size_t tiles_per_block, T* __restrict__ block_results,
                    OpT op) {
  static_assert(BlockThreads >= 64 && BlockThreads <= 1024 && (BlockThreads & (BlockThreads - 1)) == 0,
                "complete_unroll: the block size must be a power of two from 64 to 1024");
  __shared__ T sdata[BlockThreads];
  reduce_block_tiles<T>(n, 2 * BlockThreads, tiles_per_block, block_results, op,
                        [&](std::size_t begin) { return complete_unroll_tile<BlockThreads>(sdata, in, n, begin, op); });
}

}  // namespace reducelab::kernels
