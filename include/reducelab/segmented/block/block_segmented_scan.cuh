// Block-level exclusive scan of flagged stretches in thread order, with a carry-in in front of thread 0: every warp
// scans its lanes, the last lane of each warp stores the warp's stretch, warp 0 scans those behind the carry-in, and
// each thread joins its warp's prefix with its left neighbour's inclusive value. Joins are always earlier-first, so the
// result is the in-order one for any associative functor.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/segmented/merge_path.cuh"
#include "reducelab/segmented/warp/warp_segmented_scan.cuh"

namespace reducelab::segmented::block {

template <class T, int BlockThreads>
struct scan_storage {
  static_assert(BlockThreads % 32 == 0 && BlockThreads <= 1024, "block size must be a multiple of 32, at most 1024");
  static constexpr int warps = BlockThreads / 32;
  flagged<T> warp_total[warps];
  flagged<T> through_warp[warps];  // carry-in, then warps 0..w, joined
  T carry_in;
};

/// Thread t gets carry_in, then threads 0..t-1, joined in order (`exclusive`); `total` (valid in every thread) is
/// carry_in then all threads. carry_in is read from thread 0 only. Ends with __syncthreads() pending before the
/// storage is reused: the caller syncs.
template <int BlockThreads, class T, class OpT>
__device__ __forceinline__ void exclusive_scan(const flagged<T>& mine, const T& carry_in, OpT op,
                                               scan_storage<T, BlockThreads>& storage, flagged<T>& exclusive,
                                               flagged<T>& total) {
  constexpr int warps = BlockThreads / 32;
  const int lane = threadIdx.x % 32;
  const int warp_id = threadIdx.x / 32;
  const flagged<T> inclusive = warp::inclusive_scan(mine, op);
  if (lane == 31) storage.warp_total[warp_id] = inclusive;
  if (threadIdx.x == 0) storage.carry_in = carry_in;
  __syncthreads();
  if (warp_id == 0) {
    flagged<T> w = lane < warps ? storage.warp_total[lane] : flagged<T>{identity_of<OpT, T>(), false};
    w = warp::inclusive_scan(w, op);
    if (lane < warps) storage.through_warp[lane] = then(flagged<T>{storage.carry_in, false}, w, op);
  }
  __syncthreads();
  const flagged<T> before_warp = warp_id == 0 ? flagged<T>{storage.carry_in, false} : storage.through_warp[warp_id - 1];
  const flagged<T> left = warp::shfl_up(inclusive, 1);
  exclusive = lane == 0 ? before_warp : then(before_warp, left, op);
  total = storage.through_warp[warps - 1];
}

}  // namespace reducelab::segmented::block
