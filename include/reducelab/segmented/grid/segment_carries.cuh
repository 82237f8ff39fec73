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
// A block that ends a segment begun in an earlier block looks back with one warp, 32 blocks per round: it waits until
// every block nearer than the nearest published prefix has published its aggregate, then joins that prefix and those
// aggregates in block order, in a tree fixed by the block indices alone.
//
// Why blocks that pass through do not look back and publish prefixes of their own (CUB's scans do, to shorten the
// chains): which of those prefixes a later look-back found first would depend on timing, and so would the bracketing
// of the combines: double sums would differ from run to run in the last bits. The price is a longer walk for a segment
// spanning many blocks (32 blocks per round; the one-giant workload on the H100, 2^23 elements in one segment,
// spans about 330 blocks).
//
// Only blocks scheduled before the waiting one are waited on (the grid never exceeds what is resident at once, and
// lower blocks are dispatched first), so the waits end. Under a captured graph the epoch is frozen into the launch,
// so the caller clears the slots before it (detail/dispatch.cuh), as reducelab::reduce does.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/grid/tagged_partials.cuh"
#include "reducelab/segmented/warp/group_reduce.cuh"
#include "reducelab/warp/shuffle.cuh"

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

/// What the blocks before `block` hold of the segment in progress at its start, joined in block order. The whole
/// warp calls it together; every lane gets the result.
template <class T, class OpT>
__device__ T look_back(const carry_slots<T>& slots, long long block, OpT op) {
  constexpr unsigned full = ::reducelab::warp::full_mask;
  const int lane = static_cast<int>(threadIdx.x % 32);
  T after = identity_of<OpT, T>();  // the rounds already looked at (nearer blocks)
  for (long long window_end = block;; window_end -= 32) {
    const long long j = window_end - 32 + lane;  // lane order is block order
    // 0: nothing published yet; 1: an aggregate; 2: a prefix (before block 0: the identity, the start of it all).
    // Each block publishes one of the two, so what a lane settles on does not depend on when it looked.
    int state = j < 0 ? 2 : 0;
    T value = identity_of<OpT, T>();
    int nearest_prefix = -1;
    for (;;) {
      if (state != 2) {
        T v;
        if (::reducelab::grid::try_read(slots.prefixes + j, slots.epoch, v)) {
          value = v;
          state = 2;
        } else if (::reducelab::grid::try_read(slots.aggregates + j, slots.epoch, v)) {
          value = v;
          state = 1;
        }
      }
      const unsigned prefixes = __ballot_sync(full, state == 2);
      const unsigned missing = __ballot_sync(full, state == 0);
      nearest_prefix = prefixes != 0 ? 31 - __clz(prefixes) : -1;
      // Lanes nearer than the nearest prefix must have their aggregates; lanes before it are not needed.
      const unsigned needed = nearest_prefix < 0 ? full : nearest_prefix == 31 ? 0u : full << (nearest_prefix + 1);
      if ((missing & needed) == 0) break;
    }
    const T mine = lane < nearest_prefix ? identity_of<OpT, T>() : value;
    const T window = ::reducelab::warp::shfl_idx(reduce_in_group_order_converged<32>(mine, op), 0);
    after = op(window, after);
    if (nearest_prefix >= 0) return after;
  }
}

}  // namespace reducelab::segmented::grid
