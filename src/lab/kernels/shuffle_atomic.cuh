// Grid-stride loop + shuffle tree, finished with atomics on the output instead of a second launch:
//   shuffle_atomic_per_warp:  lane 0 of every warp does atomic_combine(out, warp result)
//   shuffle_atomic_per_block: the block combines its warps through shared memory, thread 0 does one atomic
// *out must hold the identity before either runs (shuffle_atomic_init). Racing atomics land in any order,
// so the functor must be commutative and a floating-point result may change from run to run.
#pragma once

#include "lab/atomic/atomic_combine.cuh"
#include "reducelab/block/block_reduce.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/thread/thread_fold.cuh"
#include "reducelab/warp/warp_reduce.cuh"

#include <cstddef>

namespace reducelab::kernels {

/// slot = identity, in stream order (a kernel, not a copy from a host variable that may die before the copy).
/// The whole 8-byte slot is written first: a compare-and-swap for a 1- or 2-byte value reads its entire
/// 32-bit word, and those neighbouring bytes must hold defined values (compute-sanitizer initcheck).
template <class OpT, class T>
__global__ void shuffle_atomic_init(atomic_slot<T>* slot) {
  auto* words = reinterpret_cast<unsigned long long*>(slot);
  for (std::size_t w = 0; w < sizeof(atomic_slot<T>) / sizeof(unsigned long long); ++w) words[w] = 0;
  slot->value = identity_of<OpT, T>();
}

template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    shuffle_atomic_per_warp(const T* __restrict__ in, std::size_t n, T* out, OpT op) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * BlockThreads;
  const std::size_t rank = static_cast<std::size_t>(blockIdx.x) * BlockThreads + threadIdx.x;
  T acc = thread::fold_strided(identity_of<OpT, T>(), in, rank, n, threads, op);
  acc = warp::reduce_in_lane_order(acc, op);
  if (threadIdx.x % warp::threads_per_warp == 0) atomic_combine(out, acc, op);
}

template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    shuffle_atomic_per_block(const T* __restrict__ in, std::size_t n, T* out, OpT op) {
  __shared__ block::reduce_storage<T, BlockThreads> storage;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * BlockThreads;
  const std::size_t rank = static_cast<std::size_t>(blockIdx.x) * BlockThreads + threadIdx.x;
  T acc = thread::fold_strided(identity_of<OpT, T>(), in, rank, n, threads, op);
  acc = block::reduce_in_thread_order<BlockThreads>(acc, op, storage);
  if (threadIdx.x == 0) atomic_combine(out, acc, op);
}

}  // namespace reducelab::kernels
