// Harris's kernel 7 ("multiple elements per thread"), generic over the functor and the value type: a grid
// sized to the device, each thread folds many inputs in a grid-stride loop (two per iteration, as Harris
// does, so each trip has two independent loads in flight), then a shared-memory tree whose levels are all
// unrolled at compile time because the block size is a template parameter. The last five levels run in one
// warp; Harris relied on warp-synchronous execution through a volatile pointer, which Volta's independent
// thread scheduling broke, so here every level keeps its result in a register and __syncwarp() separates the
// reads of a level from its writes. The tree halves the block: the block size must be a power of two.
#pragma once

#include "reducelab/core/traits.hpp"

#include <cstddef>

namespace reducelab::kernels {

template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    many_per_thread(const T* __restrict__ in, std::size_t n, T* __restrict__ block_results, OpT op) {
  static_assert(BlockThreads >= 64 && BlockThreads <= 1024 && (BlockThreads & (BlockThreads - 1)) == 0,
                "many_per_thread: the block size must be a power of two from 64 to 1024");
  __shared__ T shared[BlockThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * BlockThreads * 2;
  T acc = identity_of<OpT, T>();
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * BlockThreads * 2 + tid; i < n; i += stride) {
    if (i + BlockThreads < n) {
      acc = op(acc, op(in[i], in[i + BlockThreads]));
    } else {
      acc = op(acc, in[i]);
    }
  }
  shared[tid] = acc;
  __syncthreads();

  // Block-wide levels down to 64 values, one barrier each; `if constexpr` drops the levels a block lacks.
  if constexpr (BlockThreads >= 1024) {
    if (tid < 512) shared[tid] = acc = op(acc, shared[tid + 512]);
    __syncthreads();
  }
  if constexpr (BlockThreads >= 512) {
    if (tid < 256) shared[tid] = acc = op(acc, shared[tid + 256]);
    __syncthreads();
  }
  if constexpr (BlockThreads >= 256) {
    if (tid < 128) shared[tid] = acc = op(acc, shared[tid + 128]);
    __syncthreads();
  }
  if constexpr (BlockThreads >= 128) {
    if (tid < 64) shared[tid] = acc = op(acc, shared[tid + 64]);
    __syncthreads();
  }
  // The last warp: 64 -> 1.
  if (tid < 32) {
#pragma unroll
    for (int offset = 32; offset > 0; offset /= 2) {
      acc = op(acc, shared[tid + offset]);
      __syncwarp();
      shared[tid] = acc;
      __syncwarp();
    }
    if (tid == 0) block_results[blockIdx.x] = acc;
  }
}

}  // namespace reducelab::kernels
