// A warp finds the coordinate of one diagonal of the merge path (segmented/merge_path.cuh) with 32 probes per round:
// when the segment ends are in global memory each round is one memory latency, so a million segments take 4 rounds
// instead of the 20 of a one-thread binary search, and segments of equal length one round (the guided first round).
#pragma once

#include "reducelab/segmented/merge_path.cuh"
#include "reducelab/warp/shuffle.cuh"

namespace reducelab::segmented::warp {

/// The coordinate of `diag` (the same as merge_path_search, ends of weight end_weight). All lanes must call it with
/// the same arguments but `early_end`; every lane gets the answer. Where early_from >= 0, lane j holds in early_end
/// the end of segment early_from + j (where that is below num_segments), loaded early (segmented/merge_path.cuh,
/// early candidates).
template <class EndsFnT>
__device__ __forceinline__ path_coord merge_path_search(long long diag, const EndsFnT& ends, long long num_segments,
                                                        long long num_elements, long long end_weight = 1,
                                                        long long early_from = -1, long long early_end = 0) {
  const int lane = threadIdx.x % 32;
  long long lo = search_low(diag, num_elements, end_weight);
  long long hi = search_high(diag, num_segments, end_weight);
  if (early_from >= 0 && lo < hi) {
    const long long left = num_segments - early_from;
    const int count = left < 32 ? static_cast<int>(left) : 32;
    const bool holds = lane < count && early_end <= diag - end_weight * (early_from + lane + 1);
    const int trues = __popc(__ballot_sync(::reducelab::warp::full_mask, holds));
    long long answer;
    if (answer_from_candidates(lo, hi, early_from, count, trues, answer)) lo = hi = answer;
  }
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
