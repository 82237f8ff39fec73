// Block-level reduction: every warp reduces its lanes in order, lane 0 of each warp stores the warp's result
// in shared memory, and the first warp reduces those in warp order. Order-preserving, so it serves any functor.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/warp/warp_reduce_hardware.cuh"

namespace reducelab::block {

/// Shared memory a block_reduce of BlockThreads threads needs (one slot per warp).
template <class T, int BlockThreads>
struct reduce_storage {
  static_assert(BlockThreads % warp::threads_per_warp == 0 && BlockThreads <= 1024,
                "block size must be a multiple of 32, at most 1024");
  T warp_results[BlockThreads / warp::threads_per_warp];
};

/// Combine the warps' values, held by lane 0 of each warp (the other lanes' values are ignored), in warp order:
/// for callers whose warps have already reduced their lanes, so no warp repeats a shuffle tree. The warps' values
/// are joined by warp::reduce (one instruction for the exact built-in pairs, warp/warp_reduce_hardware.cuh). The
/// result is valid in thread 0 only; the storage is free for reuse only after a __syncthreads() by the caller.
template <int BlockThreads, class T, class OpT>
__device__ __forceinline__ T combine_warp_leaders(T value, OpT op, reduce_storage<T, BlockThreads>& storage) {
  constexpr int warps = BlockThreads / warp::threads_per_warp;
  if constexpr (warps == 1) {
    return value;
  } else {
    const int lane = threadIdx.x % warp::threads_per_warp;
    const int warp_id = threadIdx.x / warp::threads_per_warp;
    if (lane == 0) storage.warp_results[warp_id] = value;
    __syncthreads();
    if (warp_id == 0) {
      value = lane < warps ? storage.warp_results[lane] : identity_of<OpT, T>();
      value = warp::reduce(value, op);
    }
    return value;
  }
}

/// Combine the values of all BlockThreads threads in thread order; the result is valid in thread 0 only.
/// Ends with the storage free for reuse only after a __syncthreads() by the caller.
template <int BlockThreads, class T, class OpT>
__device__ __forceinline__ T reduce_in_thread_order(T value, OpT op, reduce_storage<T, BlockThreads>& storage) {
  constexpr int warps = BlockThreads / warp::threads_per_warp;
  const int lane = threadIdx.x % warp::threads_per_warp;
  const int warp_id = threadIdx.x / warp::threads_per_warp;
  value = warp::reduce_in_lane_order(value, op);
  if constexpr (warps == 1) {
    return value;
  } else {
    if (lane == 0) storage.warp_results[warp_id] = value;
    __syncthreads();
    if (warp_id == 0) {
      value = lane < warps ? storage.warp_results[lane] : identity_of<OpT, T>();
      value = warp::reduce_in_lane_order(value, op);
    }
    return value;
  }
}

}  // namespace reducelab::block
