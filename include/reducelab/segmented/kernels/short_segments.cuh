// The short-segment pass of reducelab::segmented_reduce's one-array path: a thread per segment, launched before the
// merge-path pass (kernels/merge_path_segments.cuh) on every call, and doing the work only when the segments are
// short on average.
//
// Why a second kernel: the merge-path pass keeps a resident grid (4 blocks of 256 threads per SM, 64 registers a
// thread), and each block walks one contiguous stretch of the segments. With segments of a few elements that grid
// reads 528 streams of offsets, 528 of values and writes 528 of outputs at once, far apart, and it stays at 63-74 %
// of peak for plus/int32 from length 1 to 8 at 2^26 on the H100. A grid of many small blocks, each taking the next
// 1024 segments in launch order, reads one window of the input at a time: 87-92 % at lengths 1 to 4 and 84-85 % at 8
// to 12 (same run, scripts/harness/segmented_carries.cu rows tps_*; results/NVIDIA_H100_80GB_HBM3-segmented/
// short-segment-schedules.txt). The window is what matters, not the thread count or the instructions: the same lean
// loop in the resident grid, over contiguous stretches, was no faster than the merge-path walk (51-61 % at length 1),
// and in a resident grid that takes its chunks from an atomic counter it came back to 86-88 %.
//
// The host knows the segment count but not the element count, so both kernels decide on the device, from offsets[0]
// and offsets[num_segments], with short_pass_segments_per_thread below: the same arithmetic in both, so they always
// agree. When the average is short, this pass writes every segment of at most short_pass_max_length elements, and
// marks the launch in `flag` if it met a longer one; the merge-path pass then waits for it (a programmatic dependent
// launch on sm_90: it is launched while this pass runs, and waits only in this case) and runs only if the flag holds
// this launch's epoch: then it walks the path as always but neither reads nor writes the segments this pass wrote
// (segment_source::short_pass_owns), so one long segment among short ones costs a second read of the offsets, not of
// the values. When the average is long, this pass's blocks read two offsets and leave, and the merge-path pass does
// not wait. Every segment is folded in input order by one thread, so any functor, and every segment is written by
// one of the two passes, chosen by its length alone: the same bits on every run.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/grid/dependent_launch.cuh"
#include "reducelab/segmented/tuning.hpp"

namespace reducelab::segmented::kernels {

/// The short pass's launch: blocks of short_pass_threads threads, each taking short_pass_segments_per_block
/// consecutive segments.
inline constexpr int short_pass_threads = 256;
inline constexpr long long short_pass_segments_per_block = static_cast<long long>(short_pass_threads) * 4;

/// Segments per thread per round (1, 2 or 4) when the short pass takes a launch of `segments` segments over `elements`
/// values of ValueBytes bytes, 0 when it does not. A thread keeps about 8 to 16 bytes of each of its segments in
/// flight: more segments per thread at once overflowed L1 (plus/double at length 8: 37 % of peak with 2 per thread,
/// 88 % with 1).
template <std::size_t ValueBytes>
__host__ __device__ __forceinline__ int short_pass_segments_per_thread(long long elements, long long segments) {
  constexpr long long max_average = tuning::short_pass_max_average(ValueBytes);
  if (max_average <= 0 || segments <= 0 || elements / segments > max_average) return 0;
  const long long average_bytes = (elements + segments - 1) / segments * static_cast<long long>(ValueBytes);
  return average_bytes <= 8 ? 4 : average_bytes <= 16 ? 2 : 1;
}

/// The epoch-tagged word through which the short pass tells the merge-path pass that it met a segment too long for
/// it (in the flat path's workspace, after the carry slots).
struct short_pass_flag {
  unsigned long long* word;
  unsigned long long epoch;
};

using ::reducelab::grid::release_dependent_launch;
using ::reducelab::grid::wait_for_prerequisite_grid;

/// K segments per thread in each round of the block's segments: bounds of all K loaded, then element i of every one
/// at once (Unroll elements each), folded in order. Every load is predicated rather than branched around, and the
/// folds select rather than branch: written with branches, the same loop ran 1.2-1.3x slower than the harness's
/// (results/NVIDIA_H100_80GB_HBM3-segmented/short-segment-schedules.txt, calls 4-7).
template <int K, int Unroll, class OpT, class T, class OffsetT>
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
    const long long b = valid ? static_cast<long long>(offsets[s]) : 0;
    const long long e = valid ? static_cast<long long>(offsets[s + 1]) : 0;
    const long long n = e > b ? e - b : 0;  // decreasing offsets are outside the contract; read nothing
    const bool short_enough = n <= max_length;
    first[j] = b;
    length[j] = short_enough ? static_cast<int>(n) : 0;
    mine |= valid && short_enough ? 1u << j : 0u;
    longest = length[j] > longest ? length[j] : longest;
    if (!short_enough) *flag.word = flag.epoch;  // the merge-path pass's: any thread that meets one, the same value
  }
  T acc[K];
#pragma unroll
  for (int j = 0; j < K; ++j) acc[j] = identity_of<OpT, T>();
  for (int i = 0; i < longest; i += Unroll) {
    T v[K][Unroll];
#pragma unroll
    for (int j = 0; j < K; ++j)
#pragma unroll
      for (int u = 0; u < Unroll; ++u) v[j][u] = i + u < length[j] ? in[first[j] + i + u] : identity_of<OpT, T>();
#pragma unroll
    for (int j = 0; j < K; ++j)
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        const T folded = op(acc[j], v[j][u]);
        acc[j] = i + u < length[j] ? folded : acc[j];
      }
  }
#pragma unroll
  for (int j = 0; j < K; ++j)
    if (mine & (1u << j)) out[first_segment + static_cast<long long>(j) * short_pass_threads] = acc[j];
}

/// Block b takes segments [b * short_pass_segments_per_block, ...): in rounds of K segments per thread, thread t's
/// K segments short_pass_threads apart, so that bounds, values and outputs move coalesced.
template <class OpT, class T, class OffsetT>
__global__ void __launch_bounds__(short_pass_threads, tuning::short_pass_min_blocks)
    short_segments(const T* __restrict__ in, const OffsetT* __restrict__ offsets, long long num_segments,
                   T* __restrict__ out, short_pass_flag flag, OpT op) {
  release_dependent_launch();  // the merge-path pass may launch now: it waits only when this pass has work
  const long long origin = static_cast<long long>(offsets[0]);
  const long long last = static_cast<long long>(offsets[num_segments]);
  const int k = short_pass_segments_per_thread<sizeof(T)>(last > origin ? last - origin : 0, num_segments);
  if (k == 0) return;
  const long long block_first = static_cast<long long>(blockIdx.x) * short_pass_segments_per_block;
  const long long block_end = num_segments - block_first < short_pass_segments_per_block
                                  ? num_segments
                                  : block_first + short_pass_segments_per_block;
  const long long first = block_first + threadIdx.x;
  constexpr int rounds = static_cast<int>(short_pass_segments_per_block / short_pass_threads);
  if (k == 4) {
    reduce_short_round<4, 1>(in, offsets, first, block_end, out, flag, op);
  } else if (k == 2) {
#pragma unroll
    for (int r = 0; r < rounds; r += 2)
      reduce_short_round<2, 1>(in, offsets, first + r * short_pass_threads, block_end, out, flag, op);
  } else {
    // One segment per thread: its elements four at a time, so that a segment of tens of elements keeps loads in
    // flight.
#pragma unroll
    for (int r = 0; r < rounds; ++r)
      reduce_short_round<1, 4>(in, offsets, first + r * short_pass_threads, block_end, out, flag, op);
  }
}

}  // namespace reducelab::segmented::kernels
