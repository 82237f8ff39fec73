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
#include "reducelab/warp/shuffle.cuh"
#include "reducelab/warp/warp_reduce.cuh"

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

/// Run and segment counts are looked back with this (look_back below asks for a functor with an identity).
struct count_sum {
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{0};
  }
  __host__ __device__ long long operator()(long long a, long long b) const { return a + b; }
};

/// Publish block `block`'s carry (one thread calls it): as a prefix when its segment starts in it, else as an
/// aggregate. Never both: a look-back must tell, from what it sees, where the segment starts.
template <class T>
__device__ __forceinline__ void publish_carry(const carry_slots<T>& slots, long long block, const T& carry,
                                              bool segment_starts_here) {
  ::reducelab::grid::publish((segment_starts_here ? slots.prefixes : slots.aggregates) + block, carry, slots.epoch);
}

/// One poll of block `j`'s slots: 2 and its prefix, 1 and its aggregate, or 0 (nothing published yet; `value` left
/// as it was). Both slots are read at once, one round trip per poll: a block publishes in one of the two, never both.
template <class T>
__device__ __forceinline__ int poll_published(const carry_slots<T>& slots, long long j, T& value) {
  T p, a;
  const bool has_prefix = ::reducelab::grid::try_read(slots.prefixes + j, slots.epoch, p);
  const bool has_aggregate = ::reducelab::grid::try_read(slots.aggregates + j, slots.epoch, a);
  if (has_prefix) {
    value = p;
    return 2;
  }
  if (has_aggregate) {
    value = a;
    return 1;
  }
  return 0;
}

/// What the blocks before `block` hold of the segment in progress at its start, joined in block order; valid in
/// thread 0. The whole block calls it together (Threads threads, one earlier block each per round); `storage` is free
/// again after a __syncthreads().
template <int Threads, class T, class OpT>
__device__ T look_back(const carry_slots<T>& slots, long long block, OpT op,
                       ::reducelab::block::reduce_storage<T, Threads>& storage) {
  __shared__ int nearest_prefix;
  const int tid = static_cast<int>(threadIdx.x);
  T after = identity_of<OpT, T>();  // the rounds already looked at (nearer blocks)
  for (long long window_end = block;; window_end -= Threads) {
    const long long j = window_end - Threads + tid;  // thread order is block order
    // 0: nothing published yet; 1: an aggregate; 2: a prefix (before block 0: the identity, the start of it all).
    // Each block publishes one of the two, so what a thread settles on does not depend on when it looked.
    int state = j < 0 ? 2 : 0;
    T value = identity_of<OpT, T>();
    int nearest;
    for (;;) {
      if (state == 0) state = poll_published(slots, j, value);
      if (tid == 0) nearest_prefix = -1;
      __syncthreads();
      if (state == 2) atomicMax(&nearest_prefix, tid);
      __syncthreads();
      nearest = nearest_prefix;
      // Threads nearer than the nearest prefix must have their aggregates; those before it are not needed. (The
      // barrier also keeps the next reset of nearest_prefix behind every thread's read of it.)
      if (!__syncthreads_or(state == 0 && tid > nearest)) break;
    }
    const T mine = tid < nearest ? identity_of<OpT, T>() : value;
    const T window = ::reducelab::block::reduce_in_thread_order<Threads>(mine, op, storage);
    after = op(window, after);
    __syncthreads();  // the storage is free again
    if (nearest >= 0) return after;
  }
}

/// look_back by one warp (every lane of it calls it together): 32 earlier blocks a round, the nearest prefix found by a
/// ballot, so no block barrier per poll; the result is valid in every lane. Windows of 32 because the by-key stream
/// kernel's walks waited on earlier tiles publishing, not on round trips: polling 4 or 8 earlier tiles a lane at once
/// ran 0.80-0.99x there (stop 74, before that kernel deferred its walks by a tile at stop 75). The bracketing of the
/// combines is fixed by the block indices alone, as look_back's, though not the same as look_back's.
template <class T, class OpT>
__device__ T warp_look_back(const carry_slots<T>& slots, long long block, OpT op) {
  namespace rw = ::reducelab::warp;
  const int lane = static_cast<int>(threadIdx.x) % rw::threads_per_warp;
  T after = identity_of<OpT, T>();  // the rounds already looked at (nearer blocks)
  for (long long window_end = block;; window_end -= rw::threads_per_warp) {
    const long long j = window_end - rw::threads_per_warp + lane;  // lane order is block order
    int state = j < 0 ? 2 : 0;  // as in look_back: 0 nothing yet, 1 an aggregate, 2 a prefix
    T value = identity_of<OpT, T>();
    int nearest;
    for (;;) {
      if (state == 0) state = poll_published(slots, j, value);
      const unsigned prefixes = __ballot_sync(rw::full_mask, state == 2);
      nearest = prefixes != 0 ? 31 - __clz(static_cast<int>(prefixes)) : -1;
      if (__ballot_sync(rw::full_mask, state == 0 && lane > nearest) == 0) break;
    }
    const T mine = lane < nearest ? identity_of<OpT, T>() : value;
    const T window = rw::shfl_idx(rw::reduce_in_lane_order(mine, op), 0);
    after = op(window, after);
    if (nearest >= 0) return after;
  }
}

/// Publishes `runs`, the runs that start in tiles 0 to `tile`, as tile `tile`'s count prefix: a look-back over its
/// counts from a later tile ends there.
__device__ __forceinline__ void publish_tile_prefix(const carry_slots<long long>& counts, long long tile,
                                                    long long runs) {
  ::reducelab::grid::publish(counts.prefixes + tile, runs, counts.epoch);
}

/// Tile `tile`'s run count and the run in progress at its end (`closed`: a run starts in the tile), published at once
/// for the tiles after it (one thread calls it, before the tile looks back, so that every look-back ends): tile 0's
/// count as the prefix it is, the others' as aggregates. The by-key kernels' tiles (kernels/reduce_runs.cuh,
/// kernels/stream_runs.cuh) share this protocol.
template <class T>
__device__ __forceinline__ void publish_tile_runs(const carry_slots<long long>& counts, const carry_slots<T>& carries,
                                                  long long tile, long long heads, const T& carry, bool closed) {
  if (tile == 0) {
    publish_tile_prefix(counts, 0, heads);
  } else {
    ::reducelab::grid::publish(counts.aggregates + tile, heads, counts.epoch);
  }
  publish_carry(carries, tile, carry, closed);
}

/// The runs that start before tile `tile` (> 0), in every thread; thread 0 then publishes the tile's prefix (those
/// runs and its own `tile_heads`, which only thread 0 reads). The whole block calls it; `shared`: a block-shared slot.
template <int Threads, class HeadsT>
__device__ __forceinline__ long long runs_before_tile(const carry_slots<long long>& counts, long long tile,
                                                      const HeadsT& tile_heads,
                                                      ::reducelab::block::reduce_storage<long long, Threads>& storage,
                                                      long long& shared) {
  const long long before = look_back<Threads>(counts, tile, count_sum{}, storage);
  if (threadIdx.x == 0) {
    shared = before;
    publish_tile_prefix(counts, tile, before + tile_heads);
  }
  __syncthreads();
  return shared;
}

/// What the tiles before `tile` hold of the run in progress at its start (look_back), in every thread. The whole block
/// calls it; `shared` is a block-shared slot.
template <int Threads, class T, class OpT>
__device__ __forceinline__ T carry_into_tile(const carry_slots<T>& carries, long long tile, OpT op,
                                             ::reducelab::block::reduce_storage<T, Threads>& storage, T& shared) {
  const T carry = look_back<Threads>(carries, tile, op, storage);
  if (threadIdx.x == 0) shared = carry;
  __syncthreads();
  return shared;
}

}  // namespace reducelab::segmented::grid
