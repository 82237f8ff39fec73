// The per-thread work of the one-block path for a commutative functor: each thread folds its own 16-byte vectors,
// in no particular order across the block, with no trip through shared memory.
//
// Thread t of a block of BlockThreads reads vectors t, t + BlockThreads, ... (each load instruction of the block
// covers BlockThreads * 16 contiguous bytes), VectorsPerThread of them in flight before it folds any, and folds
// the values of each vector into its running value. Only for values that tile a vector exactly (1, 2, 4, 8 or
// 16 bytes): a vector then holds whole values, so a thread needs no neighbour's bytes. The warp tiles of
// agent/warp_tiles.cuh keep input order instead, at the cost of transposing each tile through shared memory.
#pragma once

#include "reducelab/agent/warp_tiles.cuh"
#include "reducelab/core/traits.hpp"

#include <cuda/std/type_traits>

#include <cstddef>
#include <cstring>

namespace reducelab::agent {

/// Whether a 16-byte vector holds a whole number of T (so a thread can fold a vector on its own).
template <class T>
inline constexpr bool vector_holds_whole_values = vectorizable<T> && vector_bytes % sizeof(T) == 0;

/// Values in one 16-byte vector.
template <class T>
inline constexpr int values_per_vector = static_cast<int>(vector_bytes / sizeof(T));

/// Fold vectors threadIdx.x, threadIdx.x + BlockThreads, ... below `count` (vector pointer, 16-byte aligned) into
/// `running`, in this thread's own order. Every thread of the block may call it; each gets its own share.
template <int BlockThreads, int VectorsPerThread, class T, class OpT>
__device__ __forceinline__ T fold_block_vectors(const uint4* __restrict__ vectors, std::size_t count, T running,
                                                OpT op) {
  static_assert(vector_holds_whole_values<T>, "a thread folds whole values only");
  constexpr int per_vector = values_per_vector<T>;
  constexpr std::size_t pass = static_cast<std::size_t>(BlockThreads) * VectorsPerThread;
  for (std::size_t base = 0; base < count; base += pass) {
    uint4 r[VectorsPerThread];
#pragma unroll
    for (int j = 0; j < VectorsPerThread; ++j) {  // all loads issued before any is used
      const std::size_t i = base + static_cast<std::size_t>(j) * BlockThreads + threadIdx.x;
      if (i < count) r[j] = __ldg(vectors + i);
    }
#pragma unroll
    for (int j = 0; j < VectorsPerThread; ++j) {
      if (base + static_cast<std::size_t>(j) * BlockThreads + threadIdx.x >= count) continue;
      T x[per_vector];
      memcpy(x, &r[j], sizeof x);  // register moves: the compiler sees through it
#pragma unroll
      for (int k = 0; k < per_vector; ++k) running = op(running, x[k]);
    }
  }
  return running;
}

}  // namespace reducelab::agent
