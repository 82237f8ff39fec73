// The merge-path pass's walk of a launch whose short-segment pass handed back only a few segments
// (kernels/short_segments.cuh lists the first hand_back_capacity of them beside its flag).
//
// Why: walking the whole path, as a launch with many hand-backs must, gives each block an equal stretch of all the
// elements, and most blocks then find only segments the short pass owns and leave. A giant among a million segments
// of 32 (the compare's giant layout) was then streamed by the blocks whose stretches cover it, about half the grid:
// on the H200 doubles ran 0.96-0.98x as fast as when the merge-path pass took the whole launch itself
// (results/NVIDIA_H200-segmented/giant-hand-back.txt). Here every block of the grid takes an equal share of the
// listed segments' elements alone, end to end in segment order, and folds its pieces straight from memory (16-byte
// vectors for a commutative functor whose values tile a vector and are aligned to their size, else the block range
// reduction). A piece that ends a segment begun in an earlier block joins that segment's earlier pieces by the
// look-back of grid/segment_carries.cuh, as the merge-path walk does, so the bracketing is fixed by the shares alone:
// the same bits on every run.
#pragma once

#include "reducelab/agent/block_vectors.cuh"
#include "reducelab/block/block_reduce.cuh"
#include "reducelab/block/block_reduce_range.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/segmented/grid/segment_carries.cuh"
#include "reducelab/warp/warp_reduce.cuh"

#include <cstddef>
#include <cstdint>

namespace reducelab::segmented::agent {

/// The listed segments as every block sees them, in segment order.
template <int Capacity>
struct listed_storage {
  long long segment[Capacity];    // the segment's index (its output slot)
  long long start[Capacity + 1];  // where it begins on the listed path: the lengths before it; start[count] the total
  long long base[Capacity];       // where it begins in memory (offsets[segment])
};

/// Elements a block's share is rounded up to: whole passes of the vector fold for 4-byte values.
inline constexpr long long listed_share_granule = 4096;

/// The fold of in[first, last) by the whole block, valid in thread 0; `storage` is free again after a __syncthreads().
/// Not the pieces walk's agent::block_reduce_piece (segment_pieces.cuh), whose fold_share loads the head and the tail
/// ahead of the vectors: in this kernel it took more registers (cuobjdump, stop 48, on a branch: the merge-path
/// kernel's stack 8 -> 16 bytes for plus/int32, 0 -> 40 for maximum/double), and this lean fold is the one measured.
template <class PolicyT, class T, class OpT, class RangeStorageT>
__device__ __forceinline__ T reduce_listed_piece(const T* __restrict__ in, long long first, long long last, OpT op,
                                                 RangeStorageT& storage) {
  constexpr int threads = PolicyT::block_threads;
  // Values aligned to their size only: where alignof(T) < sizeof(T) no value need start on a 16-byte boundary, and the
  // head below would leave the vectors misaligned (a user's 8-byte struct of two 4-byte fields, at a 4-byte offset).
  if constexpr (is_commutative_v<OpT> && ::reducelab::agent::vector_holds_whole_values<T> && alignof(T) == sizeof(T)) {
    constexpr int per_vector = ::reducelab::agent::values_per_vector<T>;
    const T* p = in + first;
    const long long n = last - first;
    // The values before the first 16-byte boundary, then whole vectors, then what is left after them (each fewer
    // than a vector's values, so fewer than the block's threads).
    const auto misalignment = reinterpret_cast<std::uintptr_t>(p) % 16;
    long long head = misalignment == 0 ? 0 : static_cast<long long>((16 - misalignment) / sizeof(T));
    head = head < n ? head : n;
    T acc = identity_of<OpT, T>();
    if (threadIdx.x < head) acc = op(acc, p[threadIdx.x]);
    const long long vectors = (n - head) / per_vector;
    acc = ::reducelab::agent::fold_block_vectors<threads, PolicyT::stream_loads_in_flight>(
        reinterpret_cast<const uint4*>(p + head), static_cast<std::size_t>(vectors), acc, op);
    const long long tail = head + vectors * per_vector;
    if (tail + static_cast<long long>(threadIdx.x) < n) acc = op(acc, p[tail + threadIdx.x]);
    return ::reducelab::block::reduce_in_thread_order<threads>(acc, op, storage.reduce);
  } else {
    return ::reducelab::block::reduce_range<threads>(in, static_cast<std::size_t>(first),
                                                     static_cast<std::size_t>(last), op, storage);
  }
}

/// Reduce the `count` listed segments over the whole grid: each block an equal share of their elements end to end,
/// rounded up to listed_share_granule, so that the blocks past the total are the last ones (no block looks back at
/// them). Lane i of the first warp holds the i-th listed index in `listed_word` (the indices in no order; the short
/// pass's list, kernels/short_segments.cuh read_listed_word). Writes out[segment] for every listed segment. Every thread
/// of the block calls it.
template <class PolicyT, int Capacity, class T, class OffsetT, class OpT, class RangeStorageT>
__device__ __forceinline__ void reduce_listed_segments(const T* __restrict__ in, const OffsetT* offsets,
                                                       unsigned long long listed_word, int count, T* out,
                                                       const grid::carry_slots<T>& carries, OpT op,
                                                       RangeStorageT& range, listed_storage<Capacity>& s) {
  static_assert(Capacity <= 32, "the listed segments are sorted and scanned by one warp");
  const int tid = static_cast<int>(threadIdx.x);
  if (tid < 32) {
    const bool mine = tid < count;
    const long long segment = mine ? static_cast<long long>(listed_word) : -1;
    // Both offsets of the lane's segment in one round trip, issued before the rank's shuffles (they had been read one
    // after the other, in segment order, once the ranks were known: two more round trips before the first value).
    long long base = 0, end = 0;
    if (mine) {
      base = static_cast<long long>(offsets[segment]);
      end = static_cast<long long>(offsets[segment + 1]);
    }
    // Its rank among the others is its place in segment order (the indices are distinct: the short pass hands each
    // segment back once).
    int rank = 0;
    for (int j = 0; j < count; ++j) {
      const long long other = __shfl_sync(::reducelab::warp::full_mask, segment, j);
      rank += other < segment ? 1 : 0;
    }
    // Lengths in segment order (start[rank + 1] holds the rank's length until the scan below replaces it).
    if (mine) {
      s.segment[rank] = segment;
      s.base[rank] = base;
      s.start[rank + 1] = end > base ? end - base : 0;
    }
    __syncwarp();
    long long length = tid < count ? s.start[tid + 1] : 0;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const long long before = __shfl_up_sync(::reducelab::warp::full_mask, length, d);
      if (tid >= d) length += before;
    }
    if (tid < count) s.start[tid + 1] = length;
    if (tid == 0) s.start[0] = 0;
  }
  __syncthreads();
  const long long total = s.start[count];
  const long long blocks = gridDim.x;
  long long share = (total + blocks - 1) / blocks;
  share = (share + listed_share_granule - 1) / listed_share_granule * listed_share_granule;
  const long long first = static_cast<long long>(blockIdx.x) * share;
  if (first >= total) return;
  const long long last = first + share < total ? first + share : total;

  int k = 0;  // the listed segment in which the share starts
  while (s.start[k + 1] <= first) ++k;
  const int first_k = k;
  T carry = identity_of<OpT, T>();             // the part of the segment in progress at the share's end
  bool carry_starts_here = true;               // that segment begins in this share (or none is in progress)
  T finishing = identity_of<OpT, T>();         // this share's part of the earlier segment it ends, if it ends one
  bool ends_earlier = false;
  for (; k < count && s.start[k] < last; ++k) {
    const long long from = first > s.start[k] ? first : s.start[k];
    const long long to = last < s.start[k + 1] ? last : s.start[k + 1];
    const T value = reduce_listed_piece<PolicyT>(in, s.base[k] + (from - s.start[k]), s.base[k] + (to - s.start[k]),
                                                 op, range);
    __syncthreads();  // the range storage is free again
    const bool piece_starts = from == s.start[k], piece_ends = to == s.start[k + 1];
    if (piece_starts && piece_ends) {
      if (tid == 0) out[s.segment[k]] = value;
    } else if (piece_ends) {  // the first piece, of a segment begun earlier
      finishing = value;
      ends_earlier = true;
    } else {  // the last piece: the segment goes on in the next block
      carry = value;
      carry_starts_here = piece_starts;
    }
  }
  if (tid == 0) grid::publish_carry(carries, blockIdx.x, carry, carry_starts_here);
  if (ends_earlier) {
    const T before = grid::look_back<PolicyT::block_threads>(carries, blockIdx.x, op, range.reduce);
    if (tid == 0) out[s.segment[first_k]] = op(before, finishing);
  }
}

}  // namespace reducelab::segmented::agent
