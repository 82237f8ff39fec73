// A warp finds the coordinate of one diagonal of the merge path (segmented/merge_path.cuh) with 32 probes per round:
// when the segment ends are in global memory each round is one memory latency, so a million segments take 4 rounds
// instead of the 20 of a one-thread binary search, and segments of equal length one round (the guided first round).
#pragma once

#include "reducelab/segmented/merge_path.cuh"
#include "reducelab/warp/shuffle.cuh"

namespace reducelab::segmented::warp {

/// The coordinate of `diag` (the same as merge_path_search, ends of weight end_weight). All lanes must call it with
/// the same arguments; every lane gets the answer.
template <class EndsFnT>
__device__ __forceinline__ path_coord merge_path_search(long long diag, const EndsFnT& ends, long long num_segments,
                                                        long long num_elements, long long end_weight = 1) {
  const int lane = threadIdx.x % 32;
  long long lo = search_low(diag, num_elements, end_weight);
  long long hi = search_high(diag, num_segments, end_weight);
  if (hi - lo > 32) {  // the guided round (segmented/merge_path.cuh): two candidates per lane, loaded together
    const long long guess = guess_segments(diag, num_segments, num_elements, end_weight);
    const bool spread = end_comes_first(ends, probe_point(lo, hi, lane), diag, end_weight);
    const bool guided = end_comes_first(ends, guided_first(lo, hi, guess) + lane, diag, end_weight);
    const int spread_trues = __popc(__ballot_sync(::reducelab::warp::full_mask, spread));
    const int guided_trues = __popc(__ballot_sync(::reducelab::warp::full_mask, guided));
    narrow_guided(lo, hi, guess, spread_trues, guided_trues);
  }
  while (lo < hi) {
    const long long p = probe_point(lo, hi, lane);
    const bool holds = probe_valid(lo, hi, lane) && end_comes_first(ends, p, diag, end_weight);
    const int trues = __popc(__ballot_sync(::reducelab::warp::full_mask, holds));
    if (narrow(lo, hi, trues)) break;
  }
  return coord_at(diag, lo, ends, num_segments, end_weight);
}

}  // namespace reducelab::segmented::warp
