// The short-segment pass of reducelab::segmented_reduce's one-array path: launched before the merge-path pass
// (kernels/merge_path_segments.cuh) on every call, it does the work when the segments are short or moderate on average
// and evenly spread, a thread per segment or a group of lanes per segment.
//
// Why a second kernel: the merge-path pass keeps a resident grid (4 blocks of 256 threads per SM, 64 registers a
// thread), and each block walks one contiguous stretch of the segments. With segments of a few elements that grid
// reads 528 streams of offsets, 528 of values and writes 528 of outputs at once, far apart, and it stays at 63-74 %
// of peak for plus/int32 from length 1 to 8 at 2^26 on the H100. A grid of many small blocks, each taking the next
// 1024 segments in launch order, reads one window of the input at a time: 87-92 % at lengths 1 to 4 and 84-85 % at 8
// to 12 (same run, scripts/harness/segmented_carries.cu rows tps_*; results/NVIDIA_H100_80GB_HBM3-segmented/
// short-segment-schedules.txt). The window is what matters, not the thread count or the instructions: the same lean
// loop in the resident grid, over contiguous stretches, was no faster than the merge-path walk (51-61 % at length 1),
// and in a resident grid that takes its chunks from an atomic counter it came back to 86-88 %. From 15 to 1024 elements
// per segment (8-byte values: 16 to 512) the same holds for groups of 8 lanes (4 lanes below an average of 32), each
// group reading its segment in steps of 4 consecutive elements per lane (tuning.hpp, group_pass_*, says by how much
// and why not further).
//
// The host knows the segment count but not the element count, so both kernels decide on the device, with
// decide_short_pass below (offsets[0], offsets[num_segments], and for the group mode with a functor that is not
// commutative 33 offsets that tell whether the elements are evenly spread): the same reads and arithmetic in both,
// so they always agree. When the pass takes the launch, it writes every segment of at most the plan's max_length
// elements, and hands a longer one back: it marks the launch in `flag`, and the group mode lists the segment after
// it (the first hand_back_capacity of them). The merge-path pass then waits for it (a programmatic dependent launch on
// sm_90: it is launched while this pass runs, and waits only in this case) and runs only if the flag holds this
// launch's epoch. If the list holds every segment handed back, the whole grid shares their elements alone
// (agent/listed_segments.cuh); otherwise it walks the path as always but neither reads nor writes the segments this
// pass wrote (segment_source::short_pass_owns), so a long segment among short ones costs a second read of the
// offsets, not of the values. Otherwise this pass's blocks read a few offsets and leave, and the merge-path pass
// does not wait. Every segment is folded in input order (by one thread, or by a group in lane order), so any
// functor, and every segment is written by one of the two passes, chosen by the launch's plan and its own length:
// the same bits on every run.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/grid/dependent_launch.cuh"
#include "reducelab/grid/tagged_partials.cuh"
#include "reducelab/segmented/tuning.hpp"
#include "reducelab/segmented/warp/group_reduce.cuh"

namespace reducelab::segmented::kernels {

/// The short pass's launch: blocks of short_pass_threads threads, each taking short_pass_segments_per_block
/// consecutive segments.
inline constexpr int short_pass_threads = 256;
inline constexpr long long short_pass_segments_per_block = static_cast<long long>(short_pass_threads) * 4;

/// Whether the host launches the short pass at all for `segments` segments: only where the group mode's fill holds
/// (segments x group_pass_lanes x group_pass_min_fill >= device_threads, about 8 400 segments on a 132-SM GPU). Below
/// it the group mode never takes a launch, and the thread mode's launches hold at most 14 elements per segment, about
/// 118 000 in all: the merge-path pass alone takes them, and the long layouts (uniform lengths from 4096 up at 2^24,
/// from 2^16 up at 2^26, Zipf) no longer pay for a pass that only decides and leaves.
__host__ __device__ constexpr bool short_pass_launches(long long segments, long long device_threads) {
  return device_threads > 0 && segments * tuning::group_pass_lanes * tuning::group_pass_min_fill >= device_threads;
}

/// What the short pass does with a launch of `segments` segments over `elements` values of ValueBytes bytes. Both
/// passes compute it from offsets[0] and offsets[segments], with the same arithmetic, so they always agree.
///   thread mode (an average of at most short_pass_max_average): a thread per segment, per_thread segments of each
///     thread at once (1, 2 or 4). A thread keeps about 8 to 16 bytes of each of its segments in flight: more
///     segments per thread at once overflowed L1 (plus/double at length 8: 37 % of peak with 2 per thread, 88 % with
///     1), and 4 segments of 8-byte values spilled.
///   group mode (an average from group_pass_min_average to group_pass_max_average, enough segments to fill the device,
///     and the elements evenly spread): `group` lanes per segment, per_group segments of each group at once.
///   neither: max_length 0, the merge-path pass does everything.
/// No member initializers: the short pass hands it to its block through __shared__ memory, which takes no constructor;
/// short_pass_plan{} is the plan of neither.
struct short_pass_plan {
  int per_thread;
  int group;
  int per_group;  // group mode: segments per group at once (1 or 2)
  long long max_length;  // the longest segment the pass writes; a longer one is handed back
};

/// The plan from the element and segment counts and the threads the device holds at once (`device_threads`, 0: no
/// group mode). A group-mode plan still needs evenly_spread below to hold (the kernels check it on the device).
template <std::size_t ValueBytes>
__host__ __device__ __forceinline__ short_pass_plan plan_short_pass(long long elements, long long segments,
                                                                    long long device_threads) {
  short_pass_plan plan{};
  if (segments <= 0) return plan;
  const long long average = elements / segments;
  constexpr long long thread_max = tuning::short_pass_max_average(ValueBytes);
  if (thread_max > 0 && average <= thread_max) {
    const long long average_bytes = (elements + segments - 1) / segments * static_cast<long long>(ValueBytes);
    plan.per_thread = average_bytes <= 8 && ValueBytes <= 4 ? 4 : average_bytes <= 16 ? 2 : 1;
    plan.max_length = tuning::short_pass_max_length;
    return plan;
  }
  constexpr long long group_max = tuning::group_pass_max_average(ValueBytes);
  if (group_max <= 0 || average < tuning::group_pass_min_average(ValueBytes) || average > group_max) return plan;
  const int group = tuning::group_pass_lanes_for(ValueBytes, average);  // 8, or 4 below an average of 32
  // Too few segments to fill the device group by group: the merge-path pass spreads them over its grid.
  if (!short_pass_launches(segments, device_threads)) return plan;
  plan.group = group;
  plan.per_group = tuning::group_pass_segments(ValueBytes, average);
  // A segment of up to group_pass_max_steps steps, or twice the average: a uniform layout is never handed back, and a
  // group that meets a longer one hands it back rather than hold its warp for many times the others' time.
  const long long steps_length =
      static_cast<long long>(group) * tuning::group_pass_loads * tuning::group_pass_max_steps;
  plan.max_length = steps_length > 2 * average ? steps_length : 2 * average;
  return plan;
}

/// The spread check's reads (evenly_spread below): lane j's stretch of segments, [S j / 32, S (j + 1) / 32), as its
/// first and past-the-end offsets. Each warp that checks reads the same 33 offsets.
struct spread_probe {
  long long first = 0;
  long long last = 0;
};
template <class OffsetT>
__device__ __forceinline__ spread_probe load_spread_probe(const OffsetT* offsets, long long num_segments) {
  const long long lane = threadIdx.x % 32;
  return {static_cast<long long>(offsets[num_segments * lane / 32]),
          static_cast<long long>(offsets[num_segments * (lane + 1) / 32])};
}

/// Whether the elements are spread evenly enough over the segments for the group mode: no one of 32 equal stretches of
/// segments holds more than group_pass_max_skew times its even share. Asked only for a functor that is not commutative
/// (group_pass_checks_spread): a giant among tiny ones is then refused here, so that the merge-path pass spreads the
/// whole launch over its grid; handed back by this pass, the giant would be walked, in order, by the part of the grid
/// whose stretches it covers. Every lane of the warp calls it, converged, with its load_spread_probe.
__device__ __forceinline__ bool evenly_spread(spread_probe probe, long long elements) {
  const bool even = (probe.last - probe.first) * 32 <= tuning::group_pass_max_skew * elements;
  return __all_sync(::reducelab::warp::full_mask, even);
}

/// The blocks among which the group mode deals its chunks: one per chunk of a segment per group of group_pass_lanes
/// lanes, at most group_pass_blocks_per_sm per SM (one wave of the pass's kernel). The 4-lane groups' chunks hold twice
/// as many segments, so below one wave half of these blocks find no chunk and leave.
inline long long short_pass_group_grid(long long num_segments, int sm_count) {
  const long long smallest_chunk = short_pass_threads / tuning::group_pass_lanes;  // one segment per group
  const long long chunks = (num_segments + smallest_chunk - 1) / smallest_chunk;
  const long long resident = static_cast<long long>(sm_count) * tuning::group_pass_blocks_per_sm;
  return chunks < resident ? chunks : resident;
}

/// Blocks the host launches for the short pass: enough for the thread mode (a block per short_pass_segments_per_block
/// segments) and for the group mode's grid. Blocks past the work leave; so do the blocks past the group mode's grid in
/// that mode (the thread mode's grid is the larger one past 792 x 1024 segments on a 132-SM GPU).
inline long long short_pass_grid(long long num_segments, int sm_count) {
  const long long thread_blocks = (num_segments + short_pass_segments_per_block - 1) / short_pass_segments_per_block;
  const long long group_blocks = short_pass_group_grid(num_segments, sm_count);
  return thread_blocks > group_blocks ? thread_blocks : group_blocks;
}

/// The epoch-tagged word through which the short pass tells the merge-path pass that it met a segment too long for
/// it (in the flat path's workspace, after the carry slots), the threads the device holds at once (SMs x 2048), which
/// both passes' plans read (0: no group mode), and the group mode's grid (short_pass_group_grid; 0: the whole grid).
struct short_pass_flag {
  unsigned long long* word;
  unsigned long long epoch;
  long long device_threads = 0;
  long long group_grid = 0;
};

/// The segments the pass hands back, listed for the merge-path pass after the flag word (the workspace keeps
/// detail/dispatch.cuh's short_pass_flag_bytes there): word 1 counts them, with the launch's epoch in its top 56 bits
/// (an earlier launch's count reads as none), and words 2 .. 2 + hand_back_capacity hold the first ones, in no order.
/// The count stops at hand_back_capacity + 1: past the capacity the merge-path pass walks the whole path as before.
inline constexpr int hand_back_capacity = 30;

/// Hand segment `segment` back (it is longer than the plan's max_length): raise the flag and list it.
__device__ __forceinline__ void hand_back(const short_pass_flag& flag, long long segment) {
  *flag.word = flag.epoch;
  unsigned long long* const counter = flag.word + 1;
  const unsigned long long tag = flag.epoch << 8;
  unsigned long long seen = *static_cast<volatile unsigned long long*>(counter);
  for (;;) {
    const unsigned long long count = (seen >> 8) == (flag.epoch & (~0ULL >> 8)) ? (seen & 0xff) : 0;
    if (count > static_cast<unsigned long long>(hand_back_capacity)) return;  // overflowed: nothing to list
    const unsigned long long before = atomicCAS(counter, seen, tag | (count + 1));
    if (before == seen) {
      if (count < static_cast<unsigned long long>(hand_back_capacity))
        flag.word[2 + count] = static_cast<unsigned long long>(segment);
      return;
    }
    seen = before;
  }
}

/// Where a round's mask of its K segments keeps the bits of those it hands back (K is at most this).
inline constexpr int longer_bits = 16;

/// Hand back segment first_segment + j * stride for each bit j of `longer` and list it: the group mode's rounds call
/// it last, once their segments are written, with the bits they kept in the top half of `mine`. Not inlined: inlined,
/// its loop and atomic changed the scheduling of the rounds that hand nothing back. H200, 2^26: called inside the loop
/// over the K segments' bounds, it kept the compiler from issuing those offset loads together (uniform:32 over int32
/// 0.90x); between that loop and the value loop, or last, argmax over uniform:32 ran 0.91-0.93x and, in the thread
/// mode, argmax over uniform:8 0.96x. One copy per lane count G: one function shared with the 8-byte values' 4-lane
/// groups changed the machine code of kernels that never run them (maximum over int32 saved registers around its
/// calls, 24 bytes of stack); with a copy per G the 4-byte kernels stayed stop 52's instruction for instruction (until
/// stop 54 gave them 4-lane groups too).
template <int G>
__device__ __noinline__ void hand_back_listed(short_pass_flag flag, unsigned longer, long long first_segment,
                                              long long stride) {
  while (longer != 0) {
    const int j = __ffs(static_cast<int>(longer)) - 1;
    longer &= longer - 1;
    hand_back(flag, first_segment + static_cast<long long>(j) * stride);
  }
}

/// What the merge-path pass reads of the short pass's words once that pass has finished: whether it raised the flag
/// and how many segments it listed (hand_back_capacity + 1: more than it could; 0 where the flag is not raised), in
/// one 16-byte load, where reading the count only once the flag had been seen raised took two round trips. One load a
/// warp, as the flag alone had been: every warp of every block reads the same line, and three loads a warp (flag,
/// count and list apart) made launches that hand nothing back 2-15 % slower on the H200
/// (results/NVIDIA_H200-segmented/listed-prologue.txt, call 3).
struct hand_back_words {
  bool raised;
  int count;
};
__device__ __forceinline__ hand_back_words read_hand_back(const short_pass_flag& flag) {
  // (A relaxed load at GPU scope, the look-backs' word load: the short pass wrote them in the launch this one may
  // have overlapped; read after waiting for it. The flag word is 256-byte aligned: detail/dispatch.cuh puts it after
  // the carry slots, whose bytes it rounds up.)
  unsigned long long raised, counted;
  ::reducelab::grid::detail::load_word(flag.word, raised, counted);
  hand_back_words got;
  got.raised = raised == flag.epoch;
  got.count = got.raised && (counted >> 8) == (flag.epoch & (~0ULL >> 8)) ? static_cast<int>(counted & 0xff) : 0;
  return got;
}

/// The i-th listed segment's index in thread i < hand_back_capacity (the block's first warp; meaningful below the
/// count only), read once read_hand_back has found the list whole.
__device__ __forceinline__ unsigned long long read_listed_word(const short_pass_flag& flag) {
  const volatile unsigned long long* list = flag.word + 2;
  return threadIdx.x < hand_back_capacity ? list[threadIdx.x] : 0;
}

/// How decide_short_pass reads the spread check's 33 offsets:
///   after_plan  once offsets[0] and offsets[S] say the group mode may take the launch: two round trips (the
///               merge-path pass);
///   with_plan   issued with those two, before the plan says whether they are needed: one round trip (the short pass's
///               blocks in the group mode's grid);
///   none        not at all, and no plan where the group mode would take the launch: a block past the group mode's
///               grid has nothing to do in that mode, nor where the check refuses it.
enum class spread_reads { after_plan, with_plan, none };

/// Whether the group mode asks evenly_spread before it takes a launch: only for a functor that is not commutative.
/// A commutative one takes a giant among tiny ones in two passes, the tiny ones here and the giant handed back, which
/// the merge-path pass's blocks that cover it stream (or walk piece by piece, argmax's pairs) and join in any order.
/// Same run on the H100 (`reducelab segmented compare`, the giant layout: a million segments of 32 around one of n / 2;
/// results/NVIDIA_H100_80GB_HBM3-segmented/giant-hand-back.txt), c56713d (every functor checked) against the check
/// off, two rounds: at 2^26 plus and maximum over int32 and float 1.06-1.08x faster, over double 1.05x, argmax 1.07-
/// 1.08x, but affine_compose 0.98x; zipf:1.2, uniform:32 and uniform:256 within 2 % either way (their stretches are
/// even); at 2^24 the giant's tiny segments average 8, the thread mode's, and nothing changed. With the check kept for
/// affine_compose (same file, and results/NVIDIA_H200-segmented/giant-hand-back.txt): on the H100 the same, affine
/// 1.00x; on the H200 int32 and float values 1.01-1.05x, argmax 1.04x, but doubles 0.96-0.98x (not measured why; the
/// giant is then streamed by the part of the merge-path grid that covers it, about half).
template <class OpT>
inline constexpr bool group_pass_checks_spread = !is_commutative_v<OpT>;

/// The plan both passes follow for a launch of num_segments segments (every lane of the warp calls it, converged).
template <class T, class OpT, class OffsetT>
__device__ __forceinline__ short_pass_plan decide_short_pass(const OffsetT* offsets, long long num_segments,
                                                             short_pass_flag flag,
                                                             spread_reads reads = spread_reads::after_plan) {
  constexpr bool check = group_pass_checks_spread<OpT>;
  const spread_probe early =
      check && reads == spread_reads::with_plan ? load_spread_probe(offsets, num_segments) : spread_probe{};
  const long long origin = static_cast<long long>(offsets[0]);
  const long long last = static_cast<long long>(offsets[num_segments]);
  const long long elements = last > origin ? last - origin : 0;  // decreasing offsets are outside the contract
  short_pass_plan plan = plan_short_pass<sizeof(T)>(elements, num_segments, flag.device_threads);
  if (plan.group > 0) {
    if (reads == spread_reads::none) {
      plan = short_pass_plan{};
    } else if constexpr (check) {
      if (!evenly_spread(reads == spread_reads::with_plan ? early : load_spread_probe(offsets, num_segments), elements))
        plan = short_pass_plan{};
    }
  }
  return plan;
}

using ::reducelab::grid::release_dependent_launch;
using ::reducelab::grid::wait_for_prerequisite_grid;

/// Segment s's first element and length, both 0 where s is out of range (`valid` false); decreasing offsets are
/// outside the contract, and give length 0 so that nothing is read. The thread and group modes' rounds load their
/// segments' bounds this way.
struct segment_bounds {
  long long first;
  long long length;
};
template <class OffsetT>
__device__ __forceinline__ segment_bounds load_segment_bounds(const OffsetT* __restrict__ offsets, long long s,
                                                              bool valid) {
  const long long b = valid ? static_cast<long long>(offsets[s]) : 0;
  const long long e = valid ? static_cast<long long>(offsets[s + 1]) : 0;
  return {b, e > b ? e - b : 0};
}

/// K segments per thread (2 or 4) in each round of the block's segments: bounds of all K loaded, then element i of
/// every one at once, folded in order. Every load is predicated rather than branched around, and the folds select
/// rather than branch: written with branches, the same loop ran 1.2-1.3x slower than the harness's
/// (results/NVIDIA_H100_80GB_HBM3-segmented/short-segment-schedules.txt, calls 4-7).
template <int K, class OpT, class T, class OffsetT>
__device__ __forceinline__ void reduce_short_round(const T* __restrict__ in, const OffsetT* __restrict__ offsets,
                                                   long long first_segment, long long end_segment, T* __restrict__ out,
                                                   short_pass_flag flag, OpT op) {
  constexpr long long max_length = tuning::short_pass_max_length;
  long long first[K];
  int length[K];
  unsigned mine = 0;  // bit j: segment j is in range and this pass's
  int longest = 0;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const long long s = first_segment + static_cast<long long>(j) * short_pass_threads;
    const bool valid = s < end_segment;
    const segment_bounds bounds = load_segment_bounds(offsets, s, valid);
    const bool short_enough = bounds.length <= max_length;
    first[j] = bounds.first;
    length[j] = short_enough ? static_cast<int>(bounds.length) : 0;
    mine |= valid && short_enough ? 1u << j : 0u;
    longest = length[j] > longest ? length[j] : longest;
    // The merge-path pass's: any thread that meets one, the same value. Not listed (hand_back_listed): listing it
    // changed nothing at 2^24, where the giant's tiny segments (8 on average) are this mode's (H200, 0.98-1.01x).
    if (!short_enough) *flag.word = flag.epoch;
  }
  T acc[K];
#pragma unroll
  for (int j = 0; j < K; ++j) acc[j] = identity_of<OpT, T>();
  for (int i = 0; i < longest; ++i) {
    T v[K];
#pragma unroll
    for (int j = 0; j < K; ++j) v[j] = i < length[j] ? in[first[j] + i] : identity_of<OpT, T>();
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const T folded = op(acc[j], v[j]);
      acc[j] = i < length[j] ? folded : acc[j];
    }
  }
#pragma unroll
  for (int j = 0; j < K; ++j)
    if (mine & (1u << j)) out[first_segment + static_cast<long long>(j) * short_pass_threads] = acc[j];
}

/// The thread mode: one segment per thread in each of Rounds rounds (segments first_segment + r * short_pass_threads),
/// Unroll elements a step. The next round's bounds are loaded before this round's elements, so that a round after the
/// first costs one round trip to memory, not two (its bounds, then its elements): stop 55, H200, 2^26, up to 1.07x for
/// 4-byte values at averages 5 to 13 and for 8-byte ones at 4 to 12, the worst row 0.96x (affine maps at 2^24;
/// tuning.hpp, short_pass_unroll, has the figures).
template <int Rounds, int Unroll, class OpT, class T, class OffsetT>
__device__ __forceinline__ void reduce_one_segment_rounds(const T* __restrict__ in,
                                                          const OffsetT* __restrict__ offsets, long long first_segment,
                                                          long long end_segment, T* __restrict__ out,
                                                          short_pass_flag flag, OpT op) {
  constexpr long long max_length = tuning::short_pass_max_length;
  long long s = first_segment;
  bool valid = s < end_segment;
  long long b = valid ? static_cast<long long>(offsets[s]) : 0;
  long long e = valid ? static_cast<long long>(offsets[s + 1]) : 0;
#pragma unroll
  for (int r = 0; r < Rounds; ++r) {
    const long long s_next = s + short_pass_threads;
    const bool valid_next = r + 1 < Rounds && s_next < end_segment;
    const long long b_next = valid_next ? static_cast<long long>(offsets[s_next]) : 0;
    const long long e_next = valid_next ? static_cast<long long>(offsets[s_next + 1]) : 0;
    const long long n = e > b ? e - b : 0;  // decreasing offsets are outside the contract; read nothing
    const bool short_enough = n <= max_length;
    const int length = short_enough ? static_cast<int>(n) : 0;
    if (!short_enough) *flag.word = flag.epoch;  // the merge-path pass's (reduce_short_round says why not listed)
    // A pointer stepped through the segment and a count of what is left. Indexed as in[b + i + u] instead, with the
    // next round's bounds live too, ptxas rebuilt every load's 64-bit address under its predicate for maximum (five
    // instructions a load, cuobjdump; 0.84x at empty90), where a stepped pointer takes immediate offsets.
    const T* __restrict__ at = in + b;
    T acc = identity_of<OpT, T>();
    for (int left = length; left > 0; left -= Unroll, at += Unroll) {
      T v[Unroll];
#pragma unroll
      for (int u = 0; u < Unroll; ++u) v[u] = u < left ? at[u] : identity_of<OpT, T>();
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        const T folded = op(acc, v[u]);
        acc = u < left ? folded : acc;
      }
    }
    if (valid && short_enough) out[s] = acc;
    s = s_next;
    valid = valid_next;
    b = b_next;
    e = e_next;
  }
}

/// Group mode: K segments to this lane's group of G lanes at once, segments first_segment + j * stride (past
/// the end: none). Every lane of the warp calls it together. In each step lane r of the group loads Loads consecutive
/// elements of each segment, [step * group * Loads + r * Loads, ...), and folds them in order; the group then combines
/// its lanes in lane order and its first lane folds that into the segment's value, so each segment is reduced in input
/// order (any functor). The warp takes as many steps as its longest segment needs.
/// Tried at stop 56 and slower (results/NVIDIA_H200-segmented/group-next-bounds.txt): the next chunk's offsets loaded
/// before these elements and handed over through shared memory (down to 0.85x at averages of 32 to 64), and whole steps
/// read as 16-byte vectors while the whole warp can (0.83-0.91x for 4-byte values from 128 up).
template <int G, int K, int Loads, class OpT, class T, class OffsetT>
__device__ __forceinline__ void reduce_group_segments(const T* __restrict__ in, const OffsetT* __restrict__ offsets,
                                                      long long first_segment, long long stride, long long num_segments,
                                                      long long max_length, T* __restrict__ out, short_pass_flag flag,
                                                      OpT op) {
  const int rank = static_cast<int>(threadIdx.x % G);
  long long first[K];
  int length[K];
  static_assert(K <= longer_bits, "a round's segments need a bit each in both halves of `mine`");
  unsigned mine = 0;  // bit j: segment j is in range and this pass's; bit longer_bits + j: it is handed back
  int longest = 0;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const long long s = first_segment + j * stride;
    const bool valid = s < num_segments;
    const segment_bounds bounds = load_segment_bounds(offsets, s, valid);
    const bool short_enough = bounds.length <= max_length;
    first[j] = bounds.first;
    length[j] = short_enough ? static_cast<int>(bounds.length) : 0;
    mine |= valid && short_enough ? 1u << j : 0u;
    mine |= short_enough ? 0u : 1u << (longer_bits + j);
    longest = length[j] > longest ? length[j] : longest;
  }
  constexpr int span = G * Loads;
  const int steps = warp_max((longest + span - 1) / span);
  T acc[K];
#pragma unroll
  for (int j = 0; j < K; ++j) acc[j] = identity_of<OpT, T>();
  for (int step = 0; step < steps; ++step) {
    const int at = step * span + rank * Loads;
    T v[K][Loads];
#pragma unroll
    for (int j = 0; j < K; ++j)
#pragma unroll
      for (int u = 0; u < Loads; ++u) v[j][u] = at + u < length[j] ? in[first[j] + at + u] : identity_of<OpT, T>();
#pragma unroll
    for (int j = 0; j < K; ++j) {
      T x = v[j][0];
#pragma unroll
      for (int u = 1; u < Loads; ++u) x = op(x, v[j][u]);
      acc[j] = op(acc[j], reduce_in_group_order_converged<G>(x, op));
    }
  }
#pragma unroll
  for (int j = 0; j < K; ++j)
    if (rank == 0 && (mine & (1u << j))) out[first_segment + j * stride] = acc[j];
  if (rank == 0 && (mine >> longer_bits) != 0) hand_back_listed<G>(flag, mine >> longer_bits, first_segment, stride);
}

/// Group mode, the block's share: chunks of K segments per group of G lanes, dealt round robin over the first
/// `dealers` blocks of the grid; the block's groups take consecutive segments, so a warp's loads are contiguous.
template <int G, int K, class OpT, class T, class OffsetT>
__device__ __forceinline__ void reduce_group_chunks(const T* __restrict__ in, const OffsetT* __restrict__ offsets,
                                                    long long num_segments, long long max_length, long long dealers,
                                                    T* __restrict__ out, short_pass_flag flag, OpT op) {
  constexpr int groups = short_pass_threads / G;
  constexpr long long chunk = static_cast<long long>(groups) * K;
  const int mine = static_cast<int>(threadIdx.x) / G;
  for (long long c = blockIdx.x; c * chunk < num_segments; c += dealers)
    reduce_group_segments<G, K, tuning::group_pass_loads>(in, offsets, c * chunk + mine, groups, num_segments,
                                                          max_length, out, flag, op);
}

/// Block b takes segments [b * short_pass_segments_per_block, ...): in rounds of K segments per thread, thread t's
/// K segments short_pass_threads apart, so that bounds, values and outputs move coalesced.
template <class OpT, class T, class OffsetT>
__global__ void __launch_bounds__(short_pass_threads, tuning::short_pass_min_blocks)
    short_segments(const T* __restrict__ in, const OffsetT* __restrict__ offsets, long long num_segments,
                   T* __restrict__ out, short_pass_flag flag, OpT op) {
  release_dependent_launch();  // the merge-path pass may launch now: it waits only when this pass has work
  // The group mode deals its chunks round robin to its own grid, one wave, alone: the thread mode's larger grid (past
  // 792 x 1024 segments on a 132-SM GPU) would deal them to more blocks than are resident, and the blocks past the
  // first wave would start their equal shares only as the first ones finished. Dealt over 1.29 waves (int32 at length
  // 64, 2^26, on the H200: 1024 blocks where 792 are resident), the library took 90.5 µs against 79.2 over one wave,
  // same run (results/NVIDIA_H200-segmented/short-pass-grid.txt, call 2; tuning.hpp, group_pass_blocks_per_sm).
  const long long dealers = flag.group_grid > 0 && flag.group_grid < gridDim.x ? flag.group_grid : gridDim.x;
  // Warp 0 decides for the block: in one round trip where the block deals group chunks (its 33 spread reads issued
  // with the two offsets), and from the two offsets alone in the thread mode's blocks past the group grid, which start
  // only as the group grid's blocks finish and leave a group launch without the spread check. The block waits for it
  // at one barrier. Where every warp of every block had taken the two round trips, the giant layout's launch (1024
  // blocks) paid 12.2-13.1 µs over the merge-path pass alone, and now 3.2-3.8 (int32, 2^26, H200, same run, two
  // rounds); the group mode's rows -3.8 to +1.1 µs (48 of 52 faster), the thread mode's -0.9 to +2.8
  // (results/NVIDIA_H200-segmented/short-pass-grid.txt, call 10).
  __shared__ short_pass_plan block_plan;
  if (threadIdx.x < 32) {
    const bool dealer = blockIdx.x < dealers;
    const short_pass_plan mine =
        decide_short_pass<T, OpT>(offsets, num_segments, flag, dealer ? spread_reads::with_plan : spread_reads::none);
    if (threadIdx.x == 0) block_plan = mine;
  }
  __syncthreads();
  const short_pass_plan plan = block_plan;
  if (plan.group > 0) {
    // The lane count as a template argument: given at run time it made the loop 1.2-1.3x slower for int32 (H200,
    // results/NVIDIA_H200-segmented/short-segment-groups.txt, call 4). Two segments per group only for 4-byte values
    // (tuning::group_pass_segments).
    constexpr int lanes = tuning::group_pass_lanes;
    const long long m = plan.max_length;
    if constexpr (sizeof(T) <= 8) {
      if (plan.group == tuning::group_pass_narrow_lanes) {
        // The narrow groups serve averages below group_pass_narrow_below only: the table's count for any of them.
        constexpr int per_group = tuning::group_pass_segments(sizeof(T), tuning::group_pass_narrow_below - 1);
        reduce_group_chunks<tuning::group_pass_narrow_lanes, per_group>(in, offsets, num_segments, m, dealers, out,
                                                                         flag, op);
        return;
      }
    }
    if constexpr (sizeof(T) <= 4) {
      if (plan.per_group == 2) {
        reduce_group_chunks<lanes, 2>(in, offsets, num_segments, m, dealers, out, flag, op);
        return;
      }
    }
    reduce_group_chunks<lanes, 1>(in, offsets, num_segments, m, dealers, out, flag, op);
    return;
  }
  const int k = plan.per_thread;
  const long long block_first = static_cast<long long>(blockIdx.x) * short_pass_segments_per_block;
  if (k == 0 || block_first >= num_segments) return;  // the grid is sized for the group mode too
  const long long block_end = num_segments - block_first < short_pass_segments_per_block
                                  ? num_segments
                                  : block_first + short_pass_segments_per_block;
  const long long first = block_first + threadIdx.x;
  constexpr int rounds = static_cast<int>(short_pass_segments_per_block / short_pass_threads);
  if constexpr (sizeof(T) <= 4) {
    if (k == 4) {
      reduce_short_round<4>(in, offsets, first, block_end, out, flag, op);
      return;
    }
  }
  if (k == 2) {
#pragma unroll
    for (int r = 0; r < rounds; r += 2)
      reduce_short_round<2>(in, offsets, first + r * short_pass_threads, block_end, out, flag, op);
  } else {
    // One segment per thread: its elements tuning::short_pass_unroll at a time, so that a segment of tens of
    // elements keeps loads in flight.
    reduce_one_segment_rounds<rounds, tuning::short_pass_unroll(sizeof(T))>(in, offsets, first, block_end, out, flag,
                                                                           op);
  }
}

}  // namespace reducelab::segmented::kernels
