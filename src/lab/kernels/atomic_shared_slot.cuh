// Ladder step 1: one shared-memory slot per block, every thread combines its element into it with an atomic.
// The most direct way to say "reduce": no tree, no pairing scheme. The atomics on one address serialize, so a
// block does BlockThreads combines one after another. See variants/atomic_shared_slot.cuh.
#pragma once

#include "lab/atomic/atomic_combine.cuh"
#include "reducelab/core/traits.hpp"

#include <cstddef>

namespace reducelab::kernels {

/// Block b combines the inputs of tiles [b * tiles_per_block, (b + 1) * tiles_per_block) (tiles of BlockThreads
/// values) into one slot, in whatever order the atomics land, and writes the slot to block_results[b].
template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    atomic_shared_slot(const T* __restrict__ in, std::size_t n, std::size_t tiles_per_block,
                       T* __restrict__ block_results, OpT op) {
  __shared__ atomic_slot<T> slot;
  if (threadIdx.x == 0) slot.value = identity_of<OpT, T>();
  __syncthreads();
  const std::size_t begin = static_cast<std::size_t>(blockIdx.x) * tiles_per_block * BlockThreads;
  const std::size_t end = begin + tiles_per_block * BlockThreads < n ? begin + tiles_per_block * BlockThreads : n;
  for (std::size_t i = begin + threadIdx.x; i < end; i += BlockThreads) atomic_combine(&slot.value, in[i], op);
  __syncthreads();
  if (threadIdx.x == 0) block_results[blockIdx.x] = slot.value;
}

}  // namespace reducelab::kernels
