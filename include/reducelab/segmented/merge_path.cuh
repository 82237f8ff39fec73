// The merge-path arithmetic of the segmented reductions, as __host__ __device__ functions (unit-tested on the CPU:
// tests/test_segmented_partition.cu).
//
// S segments hold E elements laid end to end (segment s is elements [start(s), end(s)), end(s) = start(s + 1), counted
// from the first segment's start). Reducing them is a walk along a path of E + S steps: the elements in order, with
// the "end of segment s" step right after segment s's last element (right away for an empty segment). It is the merge
// of the list end(0..S) with the list of element indices 0..E, an end going first on a tie. Any point of the path is a
// coordinate (segment, element): the ends passed and the elements consumed, and diagonal d is the point with
// segment + element == d. Splitting the path into equal runs of diagonals gives every block the same work whatever the
// segment lengths: a block of a million empty segments and a block inside one giant segment walk the same number of
// steps. The coordinate of a diagonal is found by a binary search over the ends alone (merge_path_search).
//
// Weighted ends. A step is an element or an end, but an end costs the walk more than an element: it reads an offset
// and writes an output (12 bytes against 4 for int32 values), and closes a piece. So the blocks' shares are cut by
// cost instead: an end weighs `end_weight` (w) elements, a coordinate (x, y) costs y + w x, and diagonal d is the last
// point of the path whose cost is at most d: x = the ends whose step is over by d (end(x') + w (x' + 1) <= d), y =
// d - w x, but never past the end of segment x (a diagonal that falls inside an end's step stops before it). With
// w = 1 this is the unweighted path above. Uniform segment lengths split the same way for any w; skewed layouts
// (one giant segment among a million tiny ones) give the blocks of tiny segments fewer elements.
#pragma once

#include <cuda/std/type_traits>

namespace reducelab::segmented {

/// A point on the path: `segment` ends passed (the segment in progress), `element` elements consumed.
struct path_coord {  // no member initializers: it lives in __shared__ memory
  long long segment;
  long long element;
};

/// The diagonals [first, last) of one block.
struct diagonal_range {
  long long first;
  long long last;
};

/// Steps each block walks: an equal share of the path, but at least min_steps (a tile), so that a small problem
/// occupies few blocks and the rest of a fixed-size grid leaves at once.
__host__ __device__ constexpr long long steps_per_block(long long total_steps, long long grid, long long min_steps) {
  const long long share = grid > 0 ? (total_steps + grid - 1) / grid : total_steps;
  return share > min_steps ? share : min_steps;
}

/// The diagonals block `block` of `grid` covers on a path of total_steps steps (empty past the end of the path).
__host__ __device__ constexpr diagonal_range block_diagonals(long long block, long long grid, long long total_steps,
                                                             long long min_steps) {
  const long long per = steps_per_block(total_steps, grid, min_steps);
  const long long first = block * per < total_steps ? block * per : total_steps;
  const long long last = total_steps - first > per ? first + per : total_steps;
  return {first, last};
}

/// The cost of a whole path: E elements and S ends of weight w.
__host__ __device__ constexpr long long path_cost(long long num_segments, long long num_elements,
                                                  long long end_weight = 1) {
  return num_elements + end_weight * num_segments;
}

/// Whether, at diagonal `diag`, the step of segment x's end is over (end(x) + w (x + 1) <= diag; with w = 1: the end
/// comes before element diag - x - 1): the predicate the searches bisect (true for every x below the answer, false
/// from it on; ends must not decrease).
template <class EndsFnT>
__host__ __device__ __forceinline__ bool end_comes_first(const EndsFnT& ends, long long x, long long diag,
                                                         long long end_weight = 1) {
  return static_cast<long long>(ends(x)) <= diag - end_weight * (x + 1);
}

/// The first and one-past-last candidates for the ends passed at diagonal `diag`: every x with
/// E + w (x + 1) <= diag has passed, none with w (x + 1) > diag.
__host__ __device__ constexpr long long search_low(long long diag, long long num_elements, long long end_weight = 1) {
  return diag - num_elements > 0 ? (diag - num_elements) / end_weight : 0;
}
__host__ __device__ constexpr long long search_high(long long diag, long long num_segments, long long end_weight = 1) {
  return diag / end_weight < num_segments ? diag / end_weight : num_segments;
}

/// The coordinate of diagonal `diag` once its segment (the ends passed) is known: diag - w x elements, but not past
/// the end of segment x, which only a weight above 1 can reach (then one more read of the ends, which the search has
/// just probed around).
template <class EndsFnT>
__host__ __device__ __forceinline__ path_coord coord_at(long long diag, long long x, const EndsFnT& ends,
                                                        long long num_segments, long long end_weight = 1) {
  long long element = diag - end_weight * x;
  if (end_weight > 1 && x < num_segments) {
    const long long end = static_cast<long long>(ends(x));
    element = element < end ? element : end;
  }
  return {x, element};
}

/// The coordinate of diagonal `diag` (0 <= diag <= path_cost(S, E, w)). ends(x) is the end of segment x (relative to
/// the first segment's start), non-decreasing in x.
template <class EndsFnT>
__host__ __device__ path_coord merge_path_search(long long diag, const EndsFnT& ends, long long num_segments,
                                                 long long num_elements, long long end_weight = 1) {
  long long lo = search_low(diag, num_elements, end_weight);
  long long hi = search_high(diag, num_segments, end_weight);
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if (end_comes_first(ends, mid, diag, end_weight)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return coord_at(diag, lo, ends, num_segments, end_weight);
}

// A warp searches 32 candidates per round instead of one (a round is one memory latency when the ends are in global
// memory: 4 rounds for a million segments instead of 20). Lane j tests probe_point(lo, hi, j); the lanes' answers form
// a prefix of trues (the predicate is monotone), and narrow() keeps the window between the last true and first false.

/// Candidate tested by lane j (0..31) of a window [lo, hi): every candidate when the window holds at most 32,
/// otherwise 32 increasing points that cut it into 33 nearly equal parts.
__host__ __device__ constexpr long long probe_point(long long lo, long long hi, int j) {
  const long long count = hi - lo;
  return count <= 32 ? lo + j : lo + count * (j + 1) / 33;
}

/// Whether lane j's probe is a real candidate (a window of fewer than 32 leaves the high lanes idle).
__host__ __device__ constexpr bool probe_valid(long long lo, long long hi, int j) { return hi - lo > 32 || j < hi - lo; }

/// After a round in which the first `trues` probes held: the smaller window, or (done) the answer in lo.
__host__ __device__ constexpr bool narrow(long long& lo, long long& hi, int trues) {
  if (hi - lo <= 32) {
    lo += trues;
    hi = lo;
    return true;
  }
  const long long new_lo = trues == 0 ? lo : probe_point(lo, hi, trues - 1) + 1;
  const long long new_hi = trues == 32 ? hi : probe_point(lo, hi, trues);
  lo = new_lo;
  hi = new_hi;
  return lo >= hi;
}

// The first round is also guided (the warp search does it when the window holds more than 32 candidates): besides its
// probe_point, lane j loads a second candidate, guided_first + j, 32 consecutive ones around guess_segments(), where
// the answer would be if every segment had the average length. Both loads are in flight together, so the round costs
// one memory round trip as before. Why: each round of the search is a round trip made before the block reads any
// value (on the H100 about 0.6 µs each: the stretch was found 2.4 µs after entry at 2^24 int32 in segments of 4096,
// results/NVIDIA_H100_80GB_HBM3-segmented/policy-4byte.txt, the `timed` rows), and with uniform lengths the guess is
// exact to one candidate, so one round finds the answer instead of two to five. When the guess is wrong the spread
// probes narrow the window as they always did: never a round more.

/// The answer to expect at `diag` if all num_segments segments had the same length: diag * S / (w S + E), clamped to
/// the window. Any value is correct (it only places probes); this one is exact to one for uniform lengths.
__host__ __device__ inline long long guess_segments(long long diag, long long num_segments, long long num_elements,
                                                    long long end_weight = 1) {
  const long long lo = search_low(diag, num_elements, end_weight), hi = search_high(diag, num_segments, end_weight);
  const long long total = path_cost(num_segments, num_elements, end_weight);
  long long g = total > 0 ? static_cast<long long>(static_cast<double>(diag) * static_cast<double>(num_segments) /
                                                   static_cast<double>(total))
                          : 0;
  return g < lo ? lo : g > hi ? hi : g;
}

/// The first of the 32 guided candidates guided_first + j: centred on the guess, inside [lo, hi) (hi - lo > 32).
__host__ __device__ constexpr long long guided_first(long long lo, long long hi, long long guess) {
  const long long first = guess - 16;
  return first < lo ? lo : first > hi - 32 ? hi - 32 : first;
}

/// After the guided round (hi - lo > 32), in which the first `spread_trues` of the probe_point candidates and the
/// first `guided_trues` of the guided ones held: the window between the last candidate that held and the first that
/// did not, or (done) the answer in lo. Never wider than narrow() would leave it.
__host__ __device__ constexpr bool narrow_guided(long long& lo, long long& hi, long long guess, int spread_trues,
                                                 int guided_trues) {
  const long long first = guided_first(lo, hi, guess);
  long long new_lo = lo, new_hi = hi;
  narrow(new_lo, new_hi, spread_trues);
  if (guided_trues > 0 && first + guided_trues > new_lo) new_lo = first + guided_trues;  // after the last that held
  if (guided_trues < 32 && first + guided_trues < new_hi) new_hi = first + guided_trues;  // the first that did not
  lo = new_lo;
  hi = new_hi;
  return lo >= hi;
}

// Early candidates. A block's search cannot place its probes before it knows E (offsets[S] - offsets[0]): its
// diagonals are a share of the path's cost. But the guided round's guess is about block * S / grid whatever E is, so
// the kernel loads the 32 ends around that point in the same round trip as offsets[0] and offsets[S], and tests them
// once E is known. When they bracket the answer (uniform lengths), the search needs no round of its own; when they do
// not, it runs as before, and the early loads cost nothing but their slots.

/// The first of the 32 early candidates around x0: inside [0, S) where S holds 32, else 0.
__host__ __device__ constexpr long long early_first(long long x0, long long num_segments) {
  const long long first = x0 - 16;
  return num_segments <= 32 || first < 0 ? 0 : first > num_segments - 32 ? num_segments - 32 : first;
}

/// The answer, when the `count` consecutive candidates from `first`, of which the first `trues` held, decide it
/// inside the window [lo, hi]: a candidate that held below it (or none below lo to hold), and one that did not above
/// it (or none up to hi to fail).
__host__ __device__ constexpr bool answer_from_candidates(long long lo, long long hi, long long first, int count,
                                                          int trues, long long& answer) {
  const bool floor_known = trues > 0 || first <= lo;
  const bool ceiling_known = trues < count || first + count >= hi;
  if (count <= 0 || !floor_known || !ceiling_known) return false;
  const long long a = first + trues;
  answer = a < lo ? lo : a > hi ? hi : a;
  return true;
}

// ---------------------------------------------------------------------------------------------------------
// Combining partials of segments in order
// ---------------------------------------------------------------------------------------------------------

/// A stretch of the path: `closed` says it passed at least one segment end, and `value` is what it holds of the
/// segment in progress at its end (everything after its last end, or all of it when it passed none).
template <class T>
struct flagged {
  T value;
  bool closed;
};

/// The stretch `a` followed by the stretch `b`. Associative, and it joins values only as a's then b's, so it serves
/// non-commutative functors: the classic "segmented scan" operator.
template <class T, class OpT>
__host__ __device__ __forceinline__ flagged<T> then(const flagged<T>& a, const flagged<T>& b, OpT op) {
  return {b.closed ? b.value : op(a.value, b.value), a.closed || b.closed};
}

// ---------------------------------------------------------------------------------------------------------
// How the blocks' carries are joined (grid/segment_carries.cuh does it on the device)
// ---------------------------------------------------------------------------------------------------------

// Block b walks [from, to) and carries out what it holds of segment to.segment (the segment in progress at its end).
// A segment that crosses block boundaries starts in one block, passes through zero or more blocks that hold nothing
// else, and ends in a later block, which has reduced only its own elements of it: that block puts the carries of the
// blocks before it in front, back to the block where the segment starts. Which of these a block is depends on its
// stretch and on where its first segment starts (first_start: start(from.segment), relative to the first segment's
// start like the elements).

/// Whether the block's first segment began in an earlier block.
__host__ __device__ constexpr bool begins_inside_segment(path_coord from, long long first_start) {
  return first_start < from.element;
}

/// Whether the block lies wholly inside one segment that began earlier: its carry is only part of that segment's
/// prefix, and the blocks after it look past it.
__host__ __device__ constexpr bool passes_through(path_coord from, path_coord to, long long first_start) {
  return from.segment == to.segment && begins_inside_segment(from, first_start);
}

/// Whether the block ends a segment that began in an earlier block: its output for from.segment needs the earlier
/// blocks' carries in front.
__host__ __device__ constexpr bool finishes_earlier_segment(path_coord from, path_coord to, long long first_start) {
  return from.segment < to.segment && begins_inside_segment(from, first_start);
}

}  // namespace reducelab::segmented
