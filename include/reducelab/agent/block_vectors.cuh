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

/// Fold this thread's share of `count` vectors (vector pointer, 16-byte aligned) into `running`, in its own order.
/// The vectors go in passes of BlockThreads x VectorsPerThread; a block takes passes first_pass, first_pass +
/// pass_stride, ... (one block: 0, 1, 2, ...; a grid of G blocks: block b takes b, b + G, ..., so the grid reads the
/// input front to back together), and in a pass thread t reads vectors t, t + BlockThreads, ... (each load
/// instruction of the block covers BlockThreads * 16 contiguous bytes). Every thread of the block may call it.
template <int BlockThreads, int VectorsPerThread, class T, class OpT>
__device__ __forceinline__ T fold_block_vectors(const uint4* __restrict__ vectors, std::size_t count, T running,
                                                OpT op, std::size_t first_pass = 0, std::size_t pass_stride = 1) {
  static_assert(vector_holds_whole_values<T>, "a thread folds whole values only");
  constexpr int per_vector = values_per_vector<T>;
  constexpr std::size_t pass = static_cast<std::size_t>(BlockThreads) * VectorsPerThread;
  const auto fold_vector = [&](const uint4& v) {
    T x[per_vector];
    memcpy(x, &v, sizeof x);  // register moves: the compiler sees through it
#pragma unroll
    for (int k = 0; k < per_vector; ++k) running = op(running, x[k]);
  };
  // Whole passes: no load is guarded. With a guard on each load and the same guard on its fold, ptxas predicated
  // both alike and scheduled each fold before the next load for some functors (cuda::maximum on float: FSETP/FSEL
  // pairs), so one load was in flight instead of VectorsPerThread, and 512x4 ran like 512x1 (7.17 against 4.77 us
  // for plus at 64 KiB, H100, retune-57c68b9-tune.json). scripts/check_sass_loads.py checks the schedule.
  const std::size_t whole = count - count % pass;
  std::size_t base = first_pass * pass;
  for (; base < whole; base += pass_stride * pass) {
    uint4 r[VectorsPerThread];
#pragma unroll
    for (int j = 0; j < VectorsPerThread; ++j) r[j] = __ldg(vectors + base + j * BlockThreads + threadIdx.x);
#pragma unroll
    for (int j = 0; j < VectorsPerThread; ++j) fold_vector(r[j]);
  }
  if (base >= count) return running;  // past the end; otherwise base == whole: the partial last pass is this block's
  // The last, partial pass: each load reads an existing vector (an index past the end reads the last one again,
  // from cache), so every load is issued unconditionally and ahead of the folds, which skip the copies.
  uint4 r[VectorsPerThread];
#pragma unroll
  for (int j = 0; j < VectorsPerThread; ++j) {
    const std::size_t i = base + static_cast<std::size_t>(j) * BlockThreads + threadIdx.x;
    r[j] = __ldg(vectors + (i < count ? i : count - 1));
  }
#pragma unroll
  for (int j = 0; j < VectorsPerThread; ++j) {
    if (base + static_cast<std::size_t>(j) * BlockThreads + threadIdx.x < count) fold_vector(r[j]);
  }
  return running;
}

/// Any associative functor: fold vectors [begin, end) (vector pointer, 16-byte aligned) into `running` in input
/// order, VectorsPerThread loads issued before any fold. For one thread's contiguous run of the input: the block's
/// threads then hold consecutive runs, and a combine in thread order gives the in-order result with no transpose
/// through shared memory (kernels/one_block.cuh, for non-commutative functors). The warp's loads are not coalesced
/// (lanes read runs apart), which the one-block path's few kilobytes, all in L1 after the first touch, absorb.
/// As in fold_block_vectors, a load past the end reads the last vector again and its fold is skipped.
template <int VectorsPerThread, class T, class OpT>
__device__ __forceinline__ T fold_thread_run(const uint4* __restrict__ vectors, std::size_t begin, std::size_t end,
                                             T running, OpT op) {
  static_assert(vector_holds_whole_values<T>, "a thread folds whole values only");
  constexpr int per_vector = values_per_vector<T>;
  for (std::size_t base = begin; base < end; base += VectorsPerThread) {
    uint4 r[VectorsPerThread];
#pragma unroll
    for (int j = 0; j < VectorsPerThread; ++j) r[j] = __ldg(vectors + (base + j < end ? base + j : end - 1));
#pragma unroll
    for (int j = 0; j < VectorsPerThread; ++j) {
      if (base + j < end) {
        T x[per_vector];
        memcpy(x, &r[j], sizeof x);
#pragma unroll
        for (int k = 0; k < per_vector; ++k) running = op(running, x[k]);
      }
    }
  }
  return running;
}

}  // namespace reducelab::agent
