// One block's stretch of the merge path (segmented/merge_path.cuh): from coordinate `from` to `to`, fold the elements
// left to right, write every segment whose end step lies in the stretch, and return the partial of the segment in
// progress at `to` (the block's carry-out).
//
// The stretch is walked in tiles of tile_steps = block_threads * items_per_thread steps. A tile stages the segment ends
// it may pass and (contiguous layout) the values it may consume in shared memory, with one coalesced load each and both
// in flight together; thread t then finds its own start with a binary search in shared memory (diagonal
// t * items_per_thread of the tile), walks items_per_thread steps folding values left to right, writes the segments it
// closes after its first, and keeps the part before its first end (`head`) and the part after its last. A block scan
// of (closed any?, value after the last end) pairs in thread order, behind the carry from the previous tile, gives every
// thread the partial of the segment it started inside; the thread that closes that segment writes partial then head.
// Every join is earlier-first, so the result is the in-order one for any associative functor.
//
// A run of at least long_run_items elements of one segment (a long segment, or the middle of a giant one) skips the
// tiles: it is reduced straight from global memory by the block range reduction (block/block_reduce_range.cuh) and
// appended to the carry. So a block inside a giant segment streams it like reducelab::reduce, and a block of tiny
// segments pays one block scan per tile, whatever the mix.
//
// Why tiles read a little more than they use: a tile cannot know, before it has its ends, how many of its steps are
// elements, so it loads up to tile_steps values and ends (never past the block's own stretch) and the next tile reads
// the unused ones again, from L2. DRAM traffic stays one read of each value and offset.
//
// Layouts (element_map): `contiguous` is the one-offsets-array case: segment s is values [offsets[s], offsets[s+1]).
// `remapped` is any begin/end arrays: the path runs over a virtual layout whose offsets are the exclusive scan of the
// segment lengths, and element j of segment s is read at in[begins[s] + j - start(s)]; its tiles read values straight
// from global memory (a tile's values are not contiguous there).
#pragma once

#include "reducelab/block/block_reduce_range.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/segmented/agent/in_order_tiles.cuh"
#include "reducelab/segmented/block/block_segmented_scan.cuh"
#include "reducelab/segmented/merge_path.cuh"
#include "reducelab/segmented/tuning.hpp"

namespace reducelab::segmented::agent {

enum class element_map { contiguous, remapped };

/// Where a launch's segments are: S + 1 path offsets (offsets[s] is where segment s starts on the path, offsets[S]
/// the end of the last) and, for the remapped layout, where each segment starts in memory.
template <class OffsetT, class BeginT = OffsetT>
struct segment_source {
  const OffsetT* offsets;
  const BeginT* begins;  // remapped only
  long long origin;       // offsets[0]: path element j is in[origin + j] in the contiguous layout
  long long num_segments;
  long long num_elements;
  /// 0, or in a launch the short-segment pass handed back (kernels/short_segments.cuh): the length up to which a
  /// segment is that pass's, already written; the walks then neither read nor write it (one-array layout only).
  long long short_pass_length = 0;

  /// End of segment s on the path (relative to the origin).
  __device__ __forceinline__ long long end(long long s) const { return static_cast<long long>(offsets[s + 1]) - origin; }
  /// Whether segment s is the short-segment pass's (see short_pass_length).
  __device__ __forceinline__ bool short_pass_owns(long long s) const {
    if (short_pass_length == 0) return false;
    const long long b = static_cast<long long>(offsets[s]), e = static_cast<long long>(offsets[s + 1]);
    return (e > b ? e - b : 0) <= short_pass_length;
  }
  /// Path element j of segment s is in[base(s) + j].
  template <element_map Map>
  __device__ __forceinline__ long long base(long long s) const {
    if constexpr (Map == element_map::contiguous) {
      return origin;
    } else {
      return static_cast<long long>(begins[s]) - (static_cast<long long>(offsets[s]) - origin);
    }
  }
};

/// Padding of one slot after every 32 values: threads reading runs of consecutive values at a stride of
/// items_per_thread hit distinct banks for the common strides.
__device__ __forceinline__ int padded(int i) { return i + i / 32; }

template <class PolicyT, class T, element_map Map>
struct tile_storage {
  static constexpr int steps = PolicyT::tile_steps;
  static constexpr int value_slots = Map == element_map::contiguous ? steps + steps / 32 : 1;
  static constexpr int base_slots = Map == element_map::remapped ? steps + 1 : 1;
  long long ends[steps + 1];  // ends of the segments the tile may pass, and of the one in progress after it
  long long bases[base_slots];
  T values[value_slots];
  segmented::block::scan_storage<T, PolicyT::block_threads> scan;
};

template <class PolicyT, class T, class OpT, element_map Map>
struct block_storage {
  using tile_t = tile_storage<PolicyT, T, Map>;
  using range_t = ::reducelab::block::range_storage<T, PolicyT::block_threads, ::reducelab::block::default_range_algorithm<OpT>>;
  // The pieces walk's warp tiles (agent/in_order_tiles.cuh), where (OpT, T) reads its pieces in them.
  using in_order_t = ::cuda::std::conditional_t<in_order_tiles<T, OpT>,
                                                in_order_tile_storage<T, PolicyT::block_threads,
                                                                      PolicyT::pieces_in_order_vectors>,
                                                range_t>;
  static constexpr std::size_t tile_or_range = sizeof(tile_t) > sizeof(range_t) ? sizeof(tile_t) : sizeof(range_t);
  static constexpr std::size_t bytes = tile_or_range > sizeof(in_order_t) ? tile_or_range : sizeof(in_order_t);
  static_assert(bytes <= 40 * 1024,
                "reducelab::segmented_reduce: this value type is too large for the segmented kernels' shared-memory "
                "tiles (lower items_per_thread in segmented/tuning.hpp)");
  // A tile and a long run are never in flight together: one raw buffer serves both.
  alignas(16) unsigned char raw[bytes];
  // Where the block stands between tiles, written by one thread and read by all after a barrier.
  long long segment, element, next_end, next_base;
  // The pieces walk (agent/segment_pieces.cuh): the pieces left to warps and to the whole block (their indices in the
  // stretch; sizes in segmented/tuning.hpp, pieces_lists), and the carry-out. Outside `raw`, which the block range
  // reduction of those pieces uses.
  static constexpr bool wide_lists = in_order_tiles<T, OpT>;
  static constexpr int max_long_pieces = tuning::pieces_lists(wide_lists).block_pieces;
  static constexpr int max_mid_pieces = tuning::pieces_lists(wide_lists).warp_pieces;
  using piece_index_t = ::cuda::std::conditional_t<wide_lists, int, long long>;
  int long_count, mid_count;
  piece_index_t long_pieces[max_long_pieces];
  piece_index_t mid_pieces[max_mid_pieces];
  alignas(alignof(T) > 16 ? alignof(T) : 16) unsigned char carry_raw[sizeof(T)];

  __device__ tile_t& tile() { return *reinterpret_cast<tile_t*>(raw); }
  __device__ range_t& range() { return *reinterpret_cast<range_t*>(raw); }
  __device__ in_order_t& in_order() { return *reinterpret_cast<in_order_t*>(raw); }
  __device__ T& carry() { return *reinterpret_cast<T*>(carry_raw); }
};

/// Walk the block's stretch [from, to) of the path; see the file comment. Every thread must call it; the carry-out is
/// valid in thread 0. `to.segment` is the segment in progress at the end of the stretch (num_segments past the last).
template <class PolicyT, element_map Map, class T, class OffsetT, class BeginT, class OpT>
__device__ __forceinline__ T walk_stretch(const T* __restrict__ in, const segment_source<OffsetT, BeginT>& src, path_coord from,
                                          path_coord to, T* out, OpT op, block_storage<PolicyT, T, OpT, Map>& storage) {
  constexpr int threads = PolicyT::block_threads;
  constexpr int items = PolicyT::items_per_thread;
  constexpr long long tile_steps = PolicyT::tile_steps;
  const int tid = threadIdx.x;
  const long long s_end = to.segment, y_end = to.element;

  // Block-uniform position: segment s in progress, y elements consumed; the end of segment s clipped to the stretch,
  // and where its elements are in memory.
  long long s = from.segment, y = from.element;
  if (tid == 0) {
    storage.next_end = s < s_end ? src.end(s) : y_end;
    storage.next_base = s < src.num_segments ? src.template base<Map>(s) : 0;
  }
  __syncthreads();
  long long next_end = storage.next_end, next_base = storage.next_base;

  T carry = identity_of<OpT, T>();  // thread 0's is the one that counts
  while (s < s_end || y < y_end) {
    const long long run = next_end - y;
    if (run >= PolicyT::long_run_items) {
      const T v = ::reducelab::block::reduce_range<threads>(in + (next_base + y), 0, static_cast<std::size_t>(run), op,
                                                            storage.range());
      if (tid == 0) carry = op(carry, v);
      y += run;
      __syncthreads();  // the range storage is the tiles' storage too
      continue;
    }

    auto& tile = storage.tile();
    const long long remaining = (s_end - s) + (y_end - y);
    const int steps = static_cast<int>(remaining < tile_steps ? remaining : tile_steps);
    const int a_len = static_cast<int>(s_end - s < steps ? s_end - s : steps);  // ends the tile can pass
    const int b_len = static_cast<int>(y_end - y < steps ? y_end - y : steps);  // elements it can consume
    // Also the end of the segment in progress after the tile, when it has one inside the stretch.
    const int ends_to_load = a_len + (s + a_len < s_end ? 1 : 0);
    for (int k = tid; k < ends_to_load; k += threads) tile.ends[k] = src.end(s + k);
    if constexpr (Map == element_map::remapped) {
      for (int k = tid; k <= a_len && s + k < src.num_segments; k += threads) tile.bases[k] = src.template base<Map>(s + k);
    } else {
      for (int j = tid; j < b_len; j += threads) tile.values[padded(j)] = in[src.origin + y + j];
    }
    __syncthreads();

    const int d0 = tid * items < steps ? tid * items : steps;
    const int d1 = d0 + items < steps ? d0 + items : steps;
    const long long* ends = tile.ends;
    const long long y0 = y;
    const path_coord c = merge_path_search(
        d0, [ends, y0](long long x) { return ends[x] - y0; }, a_len, b_len);
    int x = static_cast<int>(c.segment);
    int e = static_cast<int>(c.element);
    T partial = identity_of<OpT, T>();
    T head = partial;
    bool closed = false;
    long long first_closed = 0;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (d0 + i < d1) {
        if (x < a_len && tile.ends[x] <= y + e) {  // the end of segment s + x
          if (!closed) {
            head = partial;
            first_closed = s + x;
            closed = true;
          } else {
            out[s + x] = partial;
          }
          partial = identity_of<OpT, T>();
          ++x;
        } else {
          T v;
          if constexpr (Map == element_map::remapped) {
            v = in[tile.bases[x] + y + e];
          } else {
            v = tile.values[padded(e)];
          }
          partial = op(partial, v);
          ++e;
        }
      }
    }

    segmented::flagged<T> before, total;
    segmented::block::exclusive_scan<threads>(segmented::flagged<T>{partial, closed}, carry, op, tile.scan, before, total);
    // The segment this thread started inside: what came before it (earlier threads, earlier tiles), then its head.
    if (closed) out[first_closed] = op(before.value, head);
    carry = total.value;
    if (tid == threads - 1) {  // the last thread's walk ends where the tile ends
      storage.segment = s + x;
      storage.element = y + e;
      storage.next_end = s + x < s_end ? tile.ends[x] : y_end;
      if constexpr (Map == element_map::remapped) storage.next_base = s + x < src.num_segments ? tile.bases[x] : 0;
    }
    __syncthreads();  // the position is published; the tile's storage is free for the next one
    s = storage.segment;
    y = storage.element;
    next_end = storage.next_end;
    next_base = storage.next_base;
  }
  return carry;
}

}  // namespace reducelab::segmented::agent
