// One block's stretch of very short segments in one offsets array, in segment tiles staged in shared memory: the walk
// the kernel takes where a stretch averages fewer than short_tile_average elements per segment (segmented/tuning.hpp)
// and the layout is contiguous.
//
// Why: the short-segment walk of segment_pieces.cuh (reduce_short_pieces) gives each lane a few pieces and reads
// their bounds and values element by element from global memory, computing each piece's place with 64-bit
// arithmetic. Nsight Compute on the H100 (2^26 int32 in segments of one, a1768fb) counted 98 warp instructions per 32
// values there, and the walk reached 63.8 % of peak where a plain read of the same bytes reaches 94 %. In one
// offsets array the values of consecutive segments are one contiguous run, so a tile of up to short_tile_segments
// pieces needs two coalesced passes: its bounds (short_tile_segments + 1 offsets, clipped to the stretch, as 32-bit
// numbers relative to its start) and the values they span. Both are staged in shared memory, with every load of a pass
// issued before any is stored; then thread t folds pieces t, t + threads, ... of the tile from shared memory, each in
// order (so any associative functor), and consecutive threads write consecutive outputs. The next tile's bounds are
// loaded while this tile's values are on their way.
//
// Where a tile's values would not fit, the tile is cut at the last piece that fits; a single piece longer than the
// whole buffer is reduced by the block from global memory (the pieces walk's block fold). A piece longer than
// short_tile_piece_items inside a tile is listed for a warp (from global memory, L2-hot since the tile just read it),
// so one long segment among short ones does not hold one thread for long. As in segment_pieces.cuh, the first piece
// may have begun in an earlier block (the kernel's look-back puts the earlier carries in front), and the piece of the
// segment in progress at `to` is the block's carry-out.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/segmented/agent/merge_path_block.cuh"
#include "reducelab/segmented/agent/segment_pieces.cuh"
#include "reducelab/segmented/merge_path.cuh"

#include <climits>
#include <cstddef>

namespace reducelab::segmented::agent {

/// The shared memory of one segment tile, laid over the block's raw buffer (block_storage::raw): the tile's bounds and
/// as many values as the rest of the buffer holds.
template <class PolicyT, class T, class OpT, element_map Map>
struct short_tile_storage {
  static constexpr int segments = PolicyT::short_tile_segments;
  static constexpr std::size_t bounds_bytes = (sizeof(int) * (segments + 1) + 15) / 16 * 16;
  static constexpr std::size_t raw_bytes = block_storage<PolicyT, T, OpT, Map>::bytes;
  static constexpr int capacity =
      raw_bytes > bounds_bytes ? static_cast<int>((raw_bytes - bounds_bytes) / 16 * 16 / sizeof(T)) : 0;
  static_assert(segments % PolicyT::block_threads == 0, "short_tile_segments: a whole number of pieces per thread");
  static_assert(capacity >= segments, "short_tile_segments: the block's buffer must hold at least one value per piece");
  int bounds[segments + 1];  // piece i of the tile is elements [bounds[i], bounds[i + 1]) of the stretch
  alignas(alignof(T) > 16 ? alignof(T) : 16) unsigned char values_raw[sizeof(T) * capacity];

  __device__ T* values() { return reinterpret_cast<T*>(values_raw); }
};

/// Loads bound i = 0 .. segments of the tile of pieces that starts at piece k0 into registers, thread t taking i = t,
/// t + threads, ...: the start of piece k0 + i clipped to the stretch, relative to its first element (the last one
/// the end of the tile's last piece). Bounds past the stretch's pieces are not loaded.
template <int Threads, int Segments, class OffsetT, class BeginT>
struct tile_bounds {
  static constexpr int per_thread = Segments / Threads + 1;
  int value[per_thread];

  __device__ __forceinline__ void load(const segment_source<OffsetT, BeginT>& src, path_coord from, path_coord to,
                                       long long pieces, long long k0) {
    const long long last = pieces - k0 < Segments ? pieces - k0 : Segments;  // the tile's bounds are 0 .. last
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const int i = static_cast<int>(threadIdx.x) + j * Threads;
      long long at = from.element;
      if (i <= last) at = static_cast<long long>(src.offsets[from.segment + k0 + i]) - src.origin;
      at = at < from.element ? from.element : at > to.element ? to.element : at;
      value[j] = static_cast<int>(at - from.element);
    }
  }
  __device__ __forceinline__ void store(int* bounds, long long pieces, long long k0) const {
    const long long last = pieces - k0 < Segments ? pieces - k0 : Segments;
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      const int i = static_cast<int>(threadIdx.x) + j * Threads;
      if (i <= last) bounds[i] = value[j];
    }
  }
};

/// Walk the block's stretch [from, to) of short segments in segment tiles; see the file comment. Every thread must
/// call it; the carry-out is valid in thread 0. The stretch must hold fewer than INT_MAX elements.
template <class PolicyT, class T, class OffsetT, class BeginT, class OpT>
__device__ __forceinline__ T reduce_short_tiles(const T* __restrict__ in, const segment_source<OffsetT, BeginT>& src,
                                                path_coord from, path_coord to, T* out, OpT op,
                                                block_storage<PolicyT, T, OpT, element_map::contiguous>& storage) {
  constexpr element_map Map = element_map::contiguous;
  using tile_t = short_tile_storage<PolicyT, T, OpT, Map>;
  using storage_t = block_storage<PolicyT, T, OpT, Map>;
  static_assert(sizeof(tile_t) <= storage_t::bytes, "a segment tile must fit the block's raw buffer");
  constexpr int threads = PolicyT::block_threads;
  constexpr int segments = tile_t::segments;
  constexpr int capacity = tile_t::capacity;
  // Values loaded in flight per thread: a tile of one-element pieces in one round, at most 8 (registers); a longer
  // tile takes more rounds.
  constexpr int values_per_thread = capacity / threads < 8 ? capacity / threads : 8;
  constexpr int pieces_per_thread = segments / threads;
  const int tid = threadIdx.x;
  const long long pieces = begin_pieces<PolicyT, Map, T>(src, from, to, storage);
  const T* stretch_in = in + (src.origin + from.element);  // element e of the stretch
  tile_t& tile = *reinterpret_cast<tile_t*>(storage.raw);

  tile_bounds<threads, segments, OffsetT, BeginT> next;
  next.load(src, from, to, pieces, 0);
  int listed = 0;  // pieces of the previous tile listed for a warp
  for (long long k0 = 0; k0 < pieces;) {
    next.store(tile.bounds, pieces, k0);
    // The previous tile's listed pieces, a warp each, from global memory (no shared memory: they overlap this tile).
    for (int w = tid / 32; w < listed; w += threads / 32) {
      const piece_bounds p = piece_at<Map>(src, from, to, storage.mid_pieces[w]);
      const T value = group_reduce_range<32, loads_in_flight<PolicyT, 32>>(in, p.base + p.first, p.base + p.last, op);
      if (tid % 32 == 0) finish_piece(out, to, p.segment, value, storage);
    }
    __syncthreads();  // bounds stored; the list is taken
    if (tid == 0) storage.mid_count = 0;
    long long m = pieces - k0 < segments ? pieces - k0 : segments;
    const int first = tile.bounds[0];
    if (tile.bounds[m] - first > capacity) {  // cut the tile at the last piece whose end fits: the first bound past it
      int lo = 0, hi = static_cast<int>(m);  // bounds[lo] - first <= capacity < bounds[hi] - first
      while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (tile.bounds[mid] - first <= capacity) lo = mid; else hi = mid;
      }
      m = lo;
    }
    if (m == 0) {  // piece k0 alone is longer than the buffer: the whole block reduces it from global memory
      const int last = tile.bounds[1];
      __syncthreads();  // every thread has read the bounds: the raw buffer is the block fold's storage now
      const T value = block_reduce_piece<threads, loads_in_flight<PolicyT, threads>>(stretch_in, first, last, op,
                                                                                     storage.range());
      if (tid == 0) finish_piece(out, to, from.segment + k0, value, storage);
      k0 += 1;
      next.load(src, from, to, pieces, k0);
      listed = 0;
      __syncthreads();  // the range storage is free again
      continue;
    }
    const int length = tile.bounds[m] - first;
    // The tile's values: every load of the round issued before any is stored.
    T* values = tile.values();
    for (int base = 0; base < length; base += values_per_thread * threads) {
      T v[values_per_thread];
#pragma unroll
      for (int j = 0; j < values_per_thread; ++j) {
        const int e = base + tid + j * threads;
        if (e < length) v[j] = stretch_in[first + e];
      }
if constexpr (PolicyT::short_tile_prefetch == 1)
      if (base == 0) next.load(src, from, to, pieces, k0 + m);  // the next tile's bounds, while the values travel
#pragma unroll
      for (int j = 0; j < values_per_thread; ++j) {
        const int e = base + tid + j * threads;
        if (e < length) values[e] = v[j];
      }
    }
if constexpr (PolicyT::short_tile_prefetch == 2)
    next.load(src, from, to, pieces, k0 + m);
    __syncthreads();  // the values are staged
#pragma unroll
    for (int j = 0; j < pieces_per_thread; ++j) {
      const int i = tid + j * threads;
      if (i < m) {
        const int a = tile.bounds[i] - first, b = tile.bounds[i + 1] - first;
        const long long k = k0 + i;
        if (b - a > PolicyT::short_tile_piece_items &&
            list_long_piece<PolicyT, Map, T, OpT>(k, b - a, 0, true, storage)) {
          continue;  // listed for a warp (or, past long_run_items, for the block: see below)
        }
        T acc = identity_of<OpT, T>();
        for (int e = a; e < b; ++e) acc = op(acc, values[e]);
        finish_piece(out, to, from.segment + k, acc, storage);
      }
    }
    __syncthreads();  // the tile is folded: its buffer is free; the lists are complete
    listed = storage.mid_count < storage_t::max_mid_pieces ? storage.mid_count : storage_t::max_mid_pieces;
    // list_long_piece puts pieces of long_run_items or more on the block's list; none fits a tile's buffer unless the
    // policy's buffer is larger than long_run_items values, and then the block takes them here.
    if (storage.long_count > 0) {
      const int longs = storage.long_count < storage_t::max_long_pieces ? storage.long_count : storage_t::max_long_pieces;
      for (int i = 0; i < longs; ++i) {
        const piece_bounds p = piece_at<Map>(src, from, to, storage.long_pieces[i]);
        const T value = block_reduce_piece<threads, loads_in_flight<PolicyT, threads>>(in, p.base + p.first,
                                                                                       p.base + p.last, op,
                                                                                       storage.range());
        if (tid == 0) finish_piece(out, to, p.segment, value, storage);
        __syncthreads();  // the range storage is free again
      }
      if (tid == 0) storage.long_count = 0;
    }
if constexpr (PolicyT::short_tile_prefetch == 0)
    next.load(src, from, to, pieces, k0 + m);
    k0 += m;
  }
  for (int w = tid / 32; w < listed; w += threads / 32) {  // the last tile's listed pieces
    const piece_bounds p = piece_at<Map>(src, from, to, storage.mid_pieces[w]);
    const T value = group_reduce_range<32, loads_in_flight<PolicyT, 32>>(in, p.base + p.first, p.base + p.last, op);
    if (tid % 32 == 0) finish_piece(out, to, p.segment, value, storage);
  }
  __syncthreads();  // the carry is written
  return storage.carry();
}

/// The walk for a stretch whose segments average `average` elements, when the kernel walks it piece by piece: segment
/// tiles where the policy, the layout and the stretch allow, else the pieces walk by average (segment_pieces.cuh).
template <class PolicyT, element_map Map, class T, class OffsetT, class BeginT, class OpT>
__device__ __forceinline__ T reduce_short_tiles_or_pieces(const T* __restrict__ in,
                                                          const segment_source<OffsetT, BeginT>& src, path_coord from,
                                                          path_coord to, T* out, OpT op, long long average,
                                                          block_storage<PolicyT, T, OpT, Map>& storage) {
  if constexpr (Map == element_map::contiguous && PolicyT::short_tile_average > 0) {
    if (average < PolicyT::short_tile_average && to.element - from.element < INT_MAX)
      return reduce_short_tiles<PolicyT>(in, src, from, to, out, op, storage);
  }
  return reduce_pieces_by_average<PolicyT, Map>(in, src, from, to, out, op, average, storage);
}

}  // namespace reducelab::segmented::agent
