// Ladder step 6 (Harris's kernel 5): unroll the last warp. Once s <= 32 only warp 0 works, so the last six
// levels (s = 32, 16, ..., 1) need no __syncthreads and no loop: warp 0 runs them straight through.
//
// Harris's version declares sdata `volatile` and relies on the 32 lanes of a warp executing in lockstep, so
// that every lane's read of a level happens before any lane's write. Volta's independent thread scheduling
// removed that guarantee: lanes may drift apart, and a lane can then read a neighbour's value before or after
// that neighbour updated it. Here each level reads into a register, __syncwarp()s, writes, and __syncwarp()s
// again, which orders the lanes explicitly and makes the writes visible. (`volatile` would not work for struct
// value types anyway: a volatile struct cannot be passed to the functor.)
//
// As in Harris's kernel all 32 lanes run every level (no divergence); at level s the lanes >= s compute values
// no later level reads. That needs blockDim >= 64 (lane 31 reads sdata[31 + 32]). Still commutative-only, like
// steps 4 and 5. What remains: the tree loop above the last warp still tests s against blockDim at run time -
// step 7 makes the block size a compile-time constant. See variants/unrolled_last_warp.cuh.
#pragma once

#include "reducelab/core/traits.hpp"
#include "lab/kernels/ladder_tiles.cuh"

#include <cstddef>

namespace reducelab::kernels {

/// One level of the last-warp tree, run by all 32 lanes of warp 0: sdata[lane] = op(sdata[lane], sdata[lane + s]).
/// Returns the lane's new value.
template <class OpT, class T>
__device__ __forceinline__ T last_warp_level(T* sdata, unsigned lane, unsigned s, OpT op) {
  const T combined = op(sdata[lane], sdata[lane + s]);
  __syncwarp();  // every lane has read its operands before any lane overwrites one
  sdata[lane] = combined;
  __syncwarp();  // and the writes are visible to the next level's reads
  return combined;
}

/// The last six levels of a sequential-addressing tree over sdata[0, 64), by warp 0; the result is returned in
/// lane 0's register. (Re-reading it from sdata[0] after the call made racecheck report hazards against warp 0's
/// writes: the compiler is free to issue that shared load in every thread, ahead of the thread-0 test.)
template <class OpT, class T>
__device__ __forceinline__ T last_warp_reduce(T* sdata, unsigned lane, OpT op) {
  last_warp_level(sdata, lane, 32, op);
  last_warp_level(sdata, lane, 16, op);
  last_warp_level(sdata, lane, 8, op);
  last_warp_level(sdata, lane, 4, op);
  last_warp_level(sdata, lane, 2, op);
  return last_warp_level(sdata, lane, 1, op);
}

/// One tile of 2 * blockDim.x values from in[begin]; the result is valid in thread 0.
template <class OpT, class T>
__device__ __forceinline__ T unrolled_last_warp_tile(T* sdata, const T* in, std::size_t n, std::size_t begin, OpT op) {
  const unsigned tid = threadIdx.x;
  const std::size_t i = begin + tid;
  T value = i < n ? in[i] : identity_of<OpT, T>();
  if (i + blockDim.x < n) value = op(value, in[i + blockDim.x]);
  sdata[tid] = value;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] = op(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  T result = identity_of<OpT, T>();  // only thread 0's result is used
  if (tid < 32) result = last_warp_reduce(sdata, tid, op);
  return result;
}

/// Launch with blockDim.x == BlockThreads, a power of two >= 64. Block b reduces tiles [b * tiles_per_block,
/// (b + 1) * tiles_per_block) of 2 * BlockThreads values and writes block_results[b].
template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    unrolled_last_warp(const T* __restrict__ in, std::size_t n, std::size_t tiles_per_block,
                       T* __restrict__ block_results, OpT op) {
  static_assert(BlockThreads >= 64 && (BlockThreads & (BlockThreads - 1)) == 0,
                "unrolled_last_warp: the block size must be a power of two, at least 64");
  __shared__ T sdata[BlockThreads];
  reduce_block_tiles<T>(n, 2 * BlockThreads, tiles_per_block, block_results, op,
                        [&](std::size_t begin) { return unrolled_last_warp_tile(sdata, in, n, begin, op); });
}

}  // namespace reducelab::kernels
