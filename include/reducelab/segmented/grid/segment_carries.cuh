// How the blocks of one segmented launch join the carries of segments that cross block boundaries, inside the
// launch: a decoupled look-back over the blocks' published carries (the protocol of CUB's single-pass scan, keyed by
// segment instead of by tile).
//
// Why not a second kernel: the fix-up kernel this replaces (one block folding every block's carry in order) cost
// 6.5-7 µs per call on the H100 at every segment length (2^24 int32, same-run harness: 41.2 µs with it, 33.7 µs
// without), most of it the launch behind the main pass and a chain of dependent loads in one block, about a sixth of a
// call that moves 64 MiB.
//
// Each block publishes its carry (what it holds of the segment in progress at its end, segmented/merge_path.cuh) once,
// as a tagged partial (grid/tagged_partials.cuh: no fences, nothing cleared between launches, the launch's epoch in
// every word), in one of two arrays:
//   prefixes    by a block in which that segment starts: the carry is all of the segment so far;
//   aggregates  by a block that passes through (its whole stretch inside a segment that began earlier): only its part.
// A block that ends a segment begun in an earlier block looks back with all its threads, one earlier block each per
// round: it waits until every block nearer than the nearest published prefix has published its aggregate, then joins
// that prefix and those aggregates in block order, in a tree fixed by the block indices alone.
//
// Why blocks that pass through do not look back and publish prefixes of their own (CUB's scans do, to shorten the
// chains): which of those prefixes a later look-back found first would depend on timing, and so would the bracketing
// of the combines: double sums would differ from run to run in the last bits. The price is a longer walk for a segment
// spanning many blocks (the one-giant workload on the H100, 2^23 elements in one segment, spans about 330): with one
// warp, 32 blocks per round, it took 49.0 µs against 46.7 µs for the fix-up kernel; hence the whole block per round.
//
// Only blocks scheduled before the waiting one are waited on (the grid never exceeds what is resident at once, and
// lower blocks are dispatched first), so the waits end. Under a captured graph the epoch is frozen into the launch,
// so the caller clears the slots before it (detail/dispatch.cuh), as reducelab::reduce does.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/grid/tagged_partials.cuh"
#include "reducelab/block/block_reduce.cuh"

#include <cstddef>

namespace reducelab::segmented::grid {

using ::reducelab::grid::tagged_partial;

/// The slots of one launch of `blocks` blocks: the aggregates, then the prefixes.
template <class T>
struct carry_slots {
  tagged_partial<T>* aggregates;
  tagged_partial<T>* prefixes;
  unsigned long long epoch;

  /// Slots carved from `bytes` (at least bytes_for(blocks)).
  static constexpr std::size_t bytes_for(long long blocks) {
    return 2 * sizeof(tagged_partial<T>) * static_cast<std::size_t>(blocks);
  }
  __host__ __device__ static carry_slots carve(void* bytes, long long blocks, unsigned long long epoch) {
    auto* slots = static_cast<tagged_partial<T>*>(bytes);
    return {slots, slots + blocks, epoch};
  }
};

/// Publish block `block`'s carry (one thread calls it): as a prefix when its segment starts in it, else as an
/// aggregate. Never both: a look-back must tell, from what it sees, where the segment starts.
template <class T>
__device__ __forceinline__ void publish_carry(const carry_slots<T>& slots, long long block, const T& carry,
                                              bool segment_starts_here) {
  ::reducelab::grid::publish((segment_starts_here ? slots.prefixes : slots.aggregates) + block, carry, slots.epoch);
}

namespace detail {

/// One poll of earlier block j's slots: 2 and the value for a prefix, 1 for an aggregate, 0 for nothing yet.
template <class T>
__device__ __forceinline__ int poll(const carry_slots<T>& slots, long long j, T& value) {
  if (::reducelab::grid::try_read(slots.prefixes + j, slots.epoch, value)) return 2;
  if (::reducelab::grid::try_read(slots.aggregates + j, slots.epoch, value)) return 1;
  return 0;
}

/// Two look-backs' values, joined member by member (look_back_both).
template <class A, class B>
struct both {
  A a;
  B b;
};
template <class OpA, class OpB>
struct both_op {
  OpA op_a;
  OpB op_b;
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return {identity_of<OpA, decltype(T::a)>(), identity_of<OpB, decltype(T::b)>()};
  }
  template <class A, class B>
  __host__ __device__ both<A, B> operator()(const both<A, B>& x, const both<A, B>& y) const {
    return {op_a(x.a, y.a), op_b(x.b, y.b)};
  }
};

/// The look-back's rounds for one or two slot arrays at once (Two: `second` too). Each round, thread t looks at
/// earlier block window_end - Threads + t in each array still wanted, until every thread nearer than that array's
/// nearest prefix has its aggregate; the window's values are joined in thread order (one block tree for both), and
/// the walk goes on to the previous window while an array has not met its prefix. The arrays share the round
/// trips to L2 and the barriers, and each array's values are joined in the same bracketing as when it is alone.
template <bool Two, int Threads, class A, class OpA, class B, class OpB, class StorageT>
__device__ both<A, B> look_back_rounds(const carry_slots<A>& first, OpA op_a, bool want_first,
                                       const carry_slots<B>& second, OpB op_b, bool want_second, long long block,
                                       StorageT& storage) {
  __shared__ int nearest_prefix[2];
  const int tid = static_cast<int>(threadIdx.x);
  both<A, B> after{identity_of<OpA, A>(), identity_of<OpB, B>()};  // the windows already looked at (nearer blocks)
  bool wanted[2] = {want_first, Two && want_second};               // the same in every thread
  for (long long window_end = block;; window_end -= Threads) {
    const long long j = window_end - Threads + tid;  // thread order is block order
    // 0: nothing published yet; 1: an aggregate; 2: a prefix (before block 0: the identity, the start of it all);
    // 3: not wanted. Each block publishes one of the two, so what a thread settles on does not depend on when it
    // looked.
    int state[2];
    for (int c = 0; c < 2; ++c) state[c] = !wanted[c] ? 3 : j < 0 ? 2 : 0;
    both<A, B> value{identity_of<OpA, A>(), identity_of<OpB, B>()};
    int nearest[2];
    for (;;) {
      if (state[0] == 0) state[0] = poll(first, j, value.a);
      if constexpr (Two) {
        if (state[1] == 0) state[1] = poll(second, j, value.b);
      }
      if (tid == 0) nearest_prefix[0] = nearest_prefix[1] = -1;
      __syncthreads();
      for (int c = 0; c < 2; ++c) {
        if (state[c] == 2) atomicMax(&nearest_prefix[c], tid);
      }
      __syncthreads();
      nearest[0] = nearest_prefix[0];
      nearest[1] = nearest_prefix[1];
      // Threads nearer than the nearest prefix must have their aggregates; those before it are not needed. (The
      // barrier also keeps the next reset of nearest_prefix behind every thread's read of it.)
      if (!__syncthreads_or((state[0] == 0 && tid > nearest[0]) || (state[1] == 0 && tid > nearest[1]))) break;
    }
    if (tid < nearest[0] || !wanted[0]) value.a = identity_of<OpA, A>();
    if constexpr (Two) {
      if (tid < nearest[1] || !wanted[1]) value.b = identity_of<OpB, B>();
      const both_op<OpA, OpB> op{op_a, op_b};
      const both<A, B> window = ::reducelab::block::reduce_in_thread_order<Threads>(value, op, storage);
      after = op(window, after);
    } else {
      after.a = op_a(::reducelab::block::reduce_in_thread_order<Threads>(value.a, op_a, storage), after.a);
    }
    __syncthreads();  // the storage is free again
    for (int c = 0; c < 2; ++c) wanted[c] = wanted[c] && nearest[c] < 0;
    if (!wanted[0] && !wanted[1]) return after;
  }
}

}  // namespace detail

/// What the blocks before `block` hold of the segment in progress at its start, joined in block order; valid in
/// thread 0. The whole block calls it together (Threads threads, one earlier block each per round); `storage` is free
/// again after a __syncthreads().
template <int Threads, class T, class OpT>
__device__ T look_back(const carry_slots<T>& slots, long long block, OpT op,
                       ::reducelab::block::reduce_storage<T, Threads>& storage) {
  return detail::look_back_rounds<false, Threads>(slots, op, true, slots, op, false, block, storage).a;
}

/// Storage of look_back_both.
template <class A, class B, int Threads>
using look_back_both_storage = ::reducelab::block::reduce_storage<detail::both<A, B>, Threads>;

/// Two look-backs over the same earlier blocks in one walk (reduce_by_key: the run count and the carry of the run in
/// progress): the results of look_back over `first` and over `second`, bitwise, in .a and .b, valid in thread 0. An
/// array not wanted (want_* the same in every thread) is not read, and its result is the identity. Each poll is one
/// round trip to L2 for both, where the two look-backs one after the other took a round trip each, and barriers
/// and a block tree each.
template <int Threads, class A, class OpA, class B, class OpB>
__device__ detail::both<A, B> look_back_both(const carry_slots<A>& first, OpA op_a, bool want_first,
                                             const carry_slots<B>& second, OpB op_b, bool want_second,
                                             long long block, look_back_both_storage<A, B, Threads>& storage) {
  if (!want_first && !want_second) return {identity_of<OpA, A>(), identity_of<OpB, B>()};
  return detail::look_back_rounds<true, Threads>(first, op_a, want_first, second, op_b, want_second, block, storage);
}

}  // namespace reducelab::segmented::grid
