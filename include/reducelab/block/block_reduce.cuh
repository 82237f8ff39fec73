// Block-level reductions, the result valid in thread 0:
//   reduce_in_thread_order         every warp reduces its lanes in order (shuffles), lane 0 of each warp stores the
//                                  warp's result, and the first warp reduces those in warp order: any functor;
//   reduce_in_order_through_slots  the same order through shared-memory slots instead of shuffle trees: any functor
//                                  (the one-block kernel's thread runs);
//   reduce_commutative             a fixed order that is not thread order, through slots, or one REDUX/vote
//                                  instruction per warp where the pair has one (the direct fold of both kernels);
//   combine_warp_leaders, reduce_lanes_commutative, reduce_lanes_in_order  the pieces the kernels call on their own.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/warp/warp_reduce_hardware.cuh"

#include <cuda/std/type_traits>

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

/// Whether a warp of (OpT, T) reduces in one instruction (warp/warp_reduce_hardware.cuh).
template <class OpT, class T>
inline constexpr bool warp_reduces_in_one_instruction =
    warp::hardware_path_for<OpT, T>() != warp::hardware_path::shuffle;

/// Shared memory of reduce_commutative where the threads' values travel through shared memory: a slot per thread.
template <class T, int BlockThreads>
struct slot_storage {
  static_assert(BlockThreads % warp::threads_per_warp == 0 && BlockThreads <= 1024,
                "block size must be a multiple of 32, at most 1024");
  T slots[BlockThreads];
};

/// Shared memory of reduce_commutative for (OpT, T): a slot per warp where a warp reduces in one instruction, else a
/// slot per thread.
template <class T, int BlockThreads, class OpT>
using commutative_storage = cuda::std::conditional_t<warp_reduces_in_one_instruction<OpT, T>,
                                                     reduce_storage<T, BlockThreads>, slot_storage<T, BlockThreads>>;

namespace detail {
/// Independent running values of fold_slots: four chains cut the dependent combines of 32 values from 31 to 9.
inline constexpr int slot_chains = 4;

/// The longest chain of combines of fold_slots over `count` values (for error bounds).
constexpr __host__ __device__ int fold_slots_depth(int count) {
  const int chains = count < slot_chains ? count : slot_chains;
  int tree = 0;
  while ((1 << tree) < chains) ++tree;
  return (count + chains - 1) / chains - 1 + tree;
}

/// Combine p[0], p[Stride], ..., p[(Count - 1) * Stride]: slot_chains running values, each over every
/// slot_chains-th slot, then joined pairwise. A fixed order, so the same bits every run.
template <int Count, int Stride, class T, class OpT>
__host__ __device__ __forceinline__ T fold_slots(const T* p, OpT op) {
  constexpr int chains = Count < slot_chains ? Count : slot_chains;
  T acc[chains];
#pragma unroll
  for (int c = 0; c < chains; ++c) acc[c] = p[c * Stride];
#pragma unroll
  for (int i = chains; i < Count; ++i) acc[i % chains] = op(acc[i % chains], p[i * Stride]);
#pragma unroll
  for (int step = 1; step < chains; step *= 2) {
#pragma unroll
    for (int c = 0; c + step < chains; c += 2 * step) acc[c] = op(acc[c], acc[c + step]);
  }
  return acc[0];
}
/// Combine p[0], p[1], ..., p[Count - 1] in that order: slot_chains running values over contiguous quarters, joined
/// left to right in pairs, so any associative functor gets the in-order result. The same depth as fold_slots.
template <int Count, class T, class OpT>
__host__ __device__ __forceinline__ T fold_slots_in_order(const T* p, OpT op) {
  constexpr int chains = Count < slot_chains ? Count : slot_chains;
  T acc[chains];
#pragma unroll
  for (int c = 0; c < chains; ++c) {
    const int first = c * Count / chains, last = (c + 1) * Count / chains;
    acc[c] = p[first];
#pragma unroll
    for (int i = first + 1; i < last; ++i) acc[c] = op(acc[c], p[i]);
  }
#pragma unroll
  for (int step = 1; step < chains; step *= 2) {
#pragma unroll
    for (int c = 0; c + step < chains; c += 2 * step) acc[c] = op(acc[c], acc[c + step]);
  }
  return acc[0];
}
}  // namespace detail

/// Shared memory of reduce_in_order_through_slots: a slot per thread, one padding slot after every warps' worth, so
/// that lane l reading its run of `warps` slots hits a bank of its own (4-byte values; two lanes share one for 8).
template <class T, int BlockThreads>
struct ordered_slot_storage {
  static_assert(BlockThreads % warp::threads_per_warp == 0 && BlockThreads <= 1024,
                "block size must be a multiple of 32, at most 1024");
  static constexpr int run = BlockThreads / warp::threads_per_warp;  // threads lane l of warp 0 folds
  static constexpr __host__ __device__ int padded(int t) { return t + t / run; }
  T slots[BlockThreads + warp::threads_per_warp];
};

/// Any associative functor: the combination of all BlockThreads threads' values in thread order, valid in thread 0,
/// through shared memory rather than shuffle trees (as reduce_commutative, with runs in place of strides): each
/// thread stores its value, lane l of warp 0 folds threads [l * run, (l + 1) * run) in order, and lane 0 the 32
/// lanes in order. The storage is free for reuse only after a __syncthreads() by the caller.
template <int BlockThreads, class T, class OpT>
__device__ __forceinline__ T reduce_in_order_through_slots(T value, OpT op, ordered_slot_storage<T, BlockThreads>& s) {
  using storage_t = ordered_slot_storage<T, BlockThreads>;
  constexpr int run = storage_t::run;
  const int lane = threadIdx.x % warp::threads_per_warp;
  s.slots[storage_t::padded(threadIdx.x)] = value;
  __syncthreads();
  if (threadIdx.x >= warp::threads_per_warp) return value;
  value = detail::fold_slots_in_order<run>(s.slots + storage_t::padded(lane * run), op);
  __syncwarp();  // every lane has read its run before slots [0, 32) are rewritten
  s.slots[lane] = value;
  __syncwarp();
  if (lane == 0) value = detail::fold_slots_in_order<warp::threads_per_warp>(s.slots, op);
  return value;
}

/// Any associative functor: combine the 32 lanes of the calling warp in lane order through the first 32 slots of `s`
/// (detail::fold_slots_in_order, folded by lane 0); the result is valid in lane 0. The in-order counterpart of
/// reduce_lanes_commutative, with the same contract: one warp at a time, every thread of it calls.
template <int BlockThreads, class T, class OpT>
__device__ __forceinline__ T reduce_lanes_in_order(T value, OpT op, ordered_slot_storage<T, BlockThreads>& s) {
  const int lane = threadIdx.x % warp::threads_per_warp;
  __syncwarp();  // the warp's earlier reads of these slots are done
  s.slots[lane] = value;
  __syncwarp();
  if (lane == 0) value = detail::fold_slots_in_order<warp::threads_per_warp>(s.slots, op);
  return value;
}

/// The longest chain of combines reduce_commutative, or reduce_in_order_through_slots, puts a value through (for
/// error bounds).
constexpr __host__ __device__ int reduce_commutative_depth(int block_threads) {
  const int warps = block_threads / 32;
  const int shuffle_tree = 5;  // the one-instruction path's equivalent
  const int slots = (warps > 1 ? detail::fold_slots_depth(warps) : 0) + detail::fold_slots_depth(32);
  return slots > 2 * shuffle_tree ? slots : 2 * shuffle_tree;
}

/// Commutative functors only: combine the values of all BlockThreads threads, in a fixed order (the same bits every
/// run, not thread order); the result is valid in thread 0. Where a warp reduces in one instruction (REDUX, vote),
/// each warp does, and the warps' values are joined the same way (combine_warp_leaders). Otherwise the values go
/// through shared memory rather than through shuffle trees: each thread stores its value, lane l of warp 0 folds
/// slots l, l + 32, ..., and lane 0 folds the 32 lanes' values. A shuffle round costs a shuffle's latency and a
/// combine's; this path costs one store, one barrier, loads that are all in flight together and about nine
/// dependent combines per stage, where the warp and block trees cost ten rounds. The storage is free for reuse
/// only after a __syncthreads() by the caller.
template <int BlockThreads, class T, class OpT>
__device__ __forceinline__ T reduce_commutative(T value, OpT op, reduce_storage<T, BlockThreads>& storage) {
  static_assert(is_commutative_v<OpT>, "reduce_commutative combines out of thread order");
  return combine_warp_leaders<BlockThreads>(warp::reduce(value, op), op, storage);
}

template <int BlockThreads, class T, class OpT>
__device__ __forceinline__ T reduce_commutative(T value, OpT op, slot_storage<T, BlockThreads>& storage) {
  static_assert(is_commutative_v<OpT>, "reduce_commutative combines out of thread order");
  constexpr int warps = BlockThreads / warp::threads_per_warp;
  const int lane = threadIdx.x % warp::threads_per_warp;
  if constexpr (warps > 1) {
    storage.slots[threadIdx.x] = value;
    __syncthreads();
    if (threadIdx.x >= warp::threads_per_warp) return value;
    value = detail::fold_slots<warps, warp::threads_per_warp>(storage.slots + lane, op);
    // Lane l overwrites slot l, which no other lane read.
    storage.slots[lane] = value;
  } else {
    storage.slots[lane] = value;
  }
  __syncwarp();
  if (lane == 0) value = detail::fold_slots<warp::threads_per_warp, 1>(storage.slots, op);
  return value;
}

/// Commutative functors only: combine the 32 lanes of the calling warp in a fixed order; the result is valid in lane
/// 0. Where the warp reduces in one instruction, it does (warp::reduce). Otherwise the lanes' values go through the
/// first 32 slots of `storage`, which lane 0 folds (detail::fold_slots: nine dependent combines rather than five
/// shuffle rounds). One warp at a time: the caller's warp must be the only one using the storage, and every thread of
/// it must call.
template <int BlockThreads, class T, class OpT>
__device__ __forceinline__ T reduce_lanes_commutative(T value, OpT op, reduce_storage<T, BlockThreads>&) {
  static_assert(is_commutative_v<OpT>, "reduce_lanes_commutative combines out of lane order");
  return warp::reduce(value, op);
}

template <int BlockThreads, class T, class OpT>
__device__ __forceinline__ T reduce_lanes_commutative(T value, OpT op, slot_storage<T, BlockThreads>& storage) {
  static_assert(is_commutative_v<OpT>, "reduce_lanes_commutative combines out of lane order");
  const int lane = threadIdx.x % warp::threads_per_warp;
  __syncwarp();  // the warp's earlier reads of these slots are done
  storage.slots[lane] = value;
  __syncwarp();
  if (lane == 0) value = detail::fold_slots<warp::threads_per_warp, 1>(storage.slots, op);
  return value;
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
