// reduce_by_key in one pass with a warp per tile: a design tried at stop 40 and rejected (the harness rows warp_WxI
// and rows_WxG of reduce_by_key_one_pass.cu; results/NVIDIA_H100_80GB_HBM3-segmented/by-key-warp-tiles.txt). Every
// result they printed was checked against the host, but from runs of 8 up they took 1.18x the block-per-tile kernel's
// time or more on the H100: a warp's tile holds 256-1024 items against the block's 3328, and the time fell with the
// number of tiles (each tile's two look-backs and its published words), while larger tiles need more registers than
// a lane has.
//
// The block-per-tile kernel (kernels/reduce_runs.cuh) is latency bound: a tile's life (load, transpose, two block
// scans, two look-backs, stage, store) runs in a block of 4 warps with a barrier between most steps, and only 4 such
// blocks fit an SM (127 registers, 27.7 KB of shared memory). Here a warp owns a tile of 32 x Items consecutive items,
// each lane Items consecutive ones read with 16-byte loads: heads and tails come from shuffles, the stretches and the
// head counts are scanned with shuffles, the two look-backs are a warp's (32 earlier tiles per round), and the outputs
// are stored from the lanes that hold them. No shared memory and no block barrier: a warp waits only on its own loads
// and on earlier tiles.
//
// The same protocol as reduce_runs.cuh: every tile publishes its head count at once and its inclusive count after its
// look-back; a tile publishes the run in progress at its end as a prefix when that run starts in it, else as an
// aggregate, so the carries join in the same bracketing every run.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/segmented/grid/segment_carries.cuh"
#include "reducelab/segmented/detail/dispatch.cuh"
#include "reducelab/segmented/kernels/reduce_runs.cuh"
#include "reducelab/segmented/merge_path.cuh"
#include "reducelab/segmented/warp/warp_segmented_scan.cuh"
#include "reducelab/warp/shuffle.cuh"
#include "reducelab/warp/warp_reduce.cuh"

#include <cstring>

namespace by_key_warp_tiles {

using namespace reducelab::segmented;
using namespace reducelab::segmented::kernels;
using reducelab::identity_of;

namespace warp_tiles {

/// look_back (grid/segment_carries.cuh) with one warp, 32 earlier tiles per round and warp votes instead of block
/// barriers. The same protocol and the same order; the bracketing follows 32-tile windows, fixed by the tile
/// indices alone. Every lane gets the result.
template <class T, class OpT>
__device__ __forceinline__ T look_back(const grid::carry_slots<T>& slots, long long tile, OpT op) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  T after = identity_of<OpT, T>();
  for (long long window_end = tile;; window_end -= 32) {
    const long long j = window_end - 32 + lane;  // lane order is tile order
    int state = j < 0 ? 2 : 0;                  // 0 nothing yet, 1 an aggregate, 2 a prefix (before tile 0: identity)
    T value = identity_of<OpT, T>();
    int nearest;
    for (;;) {
      if (state == 0) {
        T v;
        if (::reducelab::grid::try_read(slots.prefixes + j, slots.epoch, v)) {
          value = v;
          state = 2;
        } else if (::reducelab::grid::try_read(slots.aggregates + j, slots.epoch, v)) {
          value = v;
          state = 1;
        }
      }
      const unsigned prefixes = __ballot_sync(0xffffffffu, state == 2);
      nearest = prefixes ? 31 - __clz(prefixes) : -1;
      if (!__any_sync(0xffffffffu, state == 0 && lane > nearest)) break;
    }
    const T mine = lane < nearest ? identity_of<OpT, T>() : value;
    after = op(::reducelab::warp::reduce_in_lane_order(mine, op), after);
    if (nearest >= 0) return ::reducelab::warp::shfl_idx(after, 0);
  }
}

/// Items consecutive values from p (16-byte aligned) in 16-byte loads.
template <int Items, class T>
__device__ __forceinline__ void load_vectors(const T* __restrict__ p, T (&out)[Items]) {
  static_assert((Items * sizeof(T)) % 16 == 0, "a lane's items fill whole 16-byte vectors");
  const uint4* q = reinterpret_cast<const uint4*>(p);
#pragma unroll
  for (int i = 0; i < static_cast<int>(Items * sizeof(T) / 16); ++i) {
    const uint4 w = q[i];
    memcpy(reinterpret_cast<unsigned char*>(out) + 16 * i, &w, 16);
  }
}

}  // namespace warp_tiles

/// Warp w of block b takes tile b * Warps + w: items [tile * 32 * Items, ...) of n.
template <int Warps, int Items, class KeyT, class T, class NumRunsT, class OpT, class EqualT>
__global__ void __launch_bounds__(Warps * 32)
    reduce_runs_warp(const KeyT* __restrict__ keys, const T* __restrict__ values, long long n,
                     KeyT* __restrict__ unique_keys, T* __restrict__ values_out, NumRunsT* num_runs, OpT op,
                     EqualT equal, grid::carry_slots<long long> counts, grid::carry_slots<T> carries) {
  static_assert(Items <= 32, "heads and tails are bit masks");
  constexpr long long tile_items = 32LL * Items;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const long long t = static_cast<long long>(blockIdx.x) * Warps + threadIdx.x / 32;
  const long long start = t * tile_items;
  if (start >= n) return;  // the whole warp
  const long long first = start + static_cast<long long>(lane) * Items;
  const bool whole = start + tile_items <= n;

  KeyT k[Items];
  T v[Items];
  const KeyT left_edge = keys[start > 0 ? start - 1 : 0];
  const KeyT right_edge = keys[whole ? (start + tile_items < n ? start + tile_items : n - 1) : n - 1];
  if (whole) {
    warp_tiles::load_vectors<Items>(keys + first, k);
    warp_tiles::load_vectors<Items>(values + first, v);
  } else {
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const bool in = first + j < n;
      k[j] = in ? keys[first + j] : right_edge;  // past n: the last key, so `equal` sees real keys only
      v[j] = in ? values[first + j] : identity_of<OpT, T>();
    }
  }

  // Heads and tails as bit masks (bit j: item j of the lane). equal(key i, key i + 1) makes i a tail and i + 1 a head.
  const KeyT from_left = ::reducelab::warp::shfl_idx(k[Items - 1], lane > 0 ? lane - 1 : 0);
  const KeyT from_right = ::reducelab::warp::shfl_idx(k[0], lane < 31 ? lane + 1 : 31);
  unsigned head = 0, tail = 0;
  {
    const KeyT left = lane > 0 ? from_left : left_edge;
    bool h = lane == 0 && start == 0 ? true : !equal(left, k[0]);
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const bool next_head = j + 1 < Items ? !equal(k[j], k[j + 1])
                                           : (lane < 31 ? !equal(k[j], from_right)
                                                        : (start + tile_items >= n ? true : !equal(k[j], right_edge)));
      if (h) head |= 1u << j;
      if (next_head) tail |= 1u << j;
      h = next_head;
    }
    if (!whole) {  // items at or past n are neither; the last item of the input is a tail
#pragma unroll
      for (int j = 0; j < Items; ++j) {
        if (first + j >= n) {
          head &= ~(1u << j);
          tail &= ~(1u << j);
        } else if (first + j == n - 1) {
          tail |= 1u << j;
        }
      }
    }
  }

  // The lane's stretch and head count, scanned over the warp.
  flagged<T> mine{identity_of<OpT, T>(), false};
#pragma unroll
  for (int j = 0; j < Items; ++j) mine = then(mine, flagged<T>{v[j], ((head >> j) & 1u) != 0}, op);
  const int heads = __popc(head);
  int heads_incl = heads;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const int o = __shfl_up_sync(0xffffffffu, heads_incl, d);
    if (lane >= d) heads_incl += o;
  }
  const int tile_heads = __shfl_sync(0xffffffffu, heads_incl, 31);
  const flagged<T> incl = warp::inclusive_scan(mine, op);
  const flagged<T> total{::reducelab::warp::shfl_idx(incl.value, 31), __shfl_sync(0xffffffffu, incl.closed, 31) != 0};
  flagged<T> exclusive = warp::shfl_up(incl, 1);
  if (lane == 0) exclusive = {identity_of<OpT, T>(), false};
  const bool starts_with_head = (__shfl_sync(0xffffffffu, head, 0) & 1u) != 0;
  const bool ends_with_tail = whole ? ((__shfl_sync(0xffffffffu, tail, 31) >> (Items - 1)) & 1u) != 0 : true;

  // Publish at once what later tiles need from this one (before looking back: the waits then always end).
  if (lane == 0) {
    if (t == 0) {
      ::reducelab::grid::publish(counts.prefixes, static_cast<long long>(tile_heads), counts.epoch);
    } else {
      ::reducelab::grid::publish(counts.aggregates + t, static_cast<long long>(tile_heads), counts.epoch);
    }
    grid::publish_carry(carries, t, total.value, total.closed);
  }
  long long runs_before = 0;
  if (t > 0) {
    runs_before = warp_tiles::look_back(counts, t, count_sum{});
    if (lane == 0) ::reducelab::grid::publish(counts.prefixes + t, runs_before + tile_heads, counts.epoch);
  }
  // The run in progress at the tile's start needs the earlier tiles' part only if it ends here.
  T carry_in = identity_of<OpT, T>();
  if (!starts_with_head && (total.closed || ends_with_tail)) carry_in = warp_tiles::look_back(carries, t, op);

  // Outputs, from the lanes that hold them: a key at each head, a value at each tail. The run of item j is number
  // runs_before + (heads in the tile up to and including j) - 1 (runs_before - 1: the run begun in an earlier tile).
  long long run = runs_before + (heads_incl - heads) - 1;
  flagged<T> running = exclusive;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const bool h = ((head >> j) & 1u) != 0;
    running = then(running, flagged<T>{v[j], h}, op);
    if (h) {
      ++run;
      unique_keys[run] = k[j];
    }
    if ((tail >> j) & 1u) values_out[run] = running.closed ? running.value : op(carry_in, running.value);
  }
  if (first <= n - 1 && n - 1 < first + Items) *num_runs = static_cast<NumRunsT>(runs_before + tile_heads);
}

/// The same tile with coalesced loads: a warp reads its tile in Groups rows of 32 chunks of V consecutive items (V =
/// 16 bytes of the wider of key and value), chunk (row i, lane l) at tile offset (32 i + l) V. A row is 32 x V
/// consecutive items, so the stretches are scanned row by row and joined across rows in order.
template <int Warps, int Groups, class KeyT, class T, class NumRunsT, class OpT, class EqualT>
__global__ void __launch_bounds__(Warps * 32)
    reduce_runs_warp_rows(const KeyT* __restrict__ keys, const T* __restrict__ values, long long n,
                          KeyT* __restrict__ unique_keys, T* __restrict__ values_out, NumRunsT* num_runs, OpT op,
                          EqualT equal, grid::carry_slots<long long> counts, grid::carry_slots<T> carries) {
  constexpr int V = 16 / (sizeof(KeyT) > sizeof(T) ? sizeof(KeyT) : sizeof(T));
  static_assert(V >= 1 && V * 8 <= 32 * 8, "chunk");
  static_assert(Groups <= 8, "the head counts of all rows are scanned packed, 8 bits a row");
  constexpr int row_items = 32 * V;
  constexpr long long tile_items = static_cast<long long>(Groups) * row_items;
  struct alignas(V * sizeof(KeyT)) key_chunk { KeyT x[V]; };
  struct alignas(V * sizeof(T)) value_chunk { T x[V]; };
  const int lane = static_cast<int>(threadIdx.x % 32);
  const long long t = static_cast<long long>(blockIdx.x) * Warps + threadIdx.x / 32;
  const long long start = t * tile_items;
  if (start >= n) return;
  const bool whole = start + tile_items <= n;

  KeyT k[Groups][V];
  T v[Groups][V];
  const KeyT left_edge = keys[start > 0 ? start - 1 : 0];
  const KeyT right_edge = keys[whole ? (start + tile_items < n ? start + tile_items : n - 1) : n - 1];
  if (whole) {
#pragma unroll
    for (int i = 0; i < Groups; ++i) {
      const long long at = start + static_cast<long long>(i * 32 + lane) * V;
      const key_chunk kc = *reinterpret_cast<const key_chunk*>(keys + at);
      const value_chunk vc = *reinterpret_cast<const value_chunk*>(values + at);
#pragma unroll
      for (int e = 0; e < V; ++e) {
        k[i][e] = kc.x[e];
        v[i][e] = vc.x[e];
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < Groups; ++i) {
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const long long at = start + static_cast<long long>(i * 32 + lane) * V + e;
        k[i][e] = at < n ? keys[at] : right_edge;
        v[i][e] = at < n ? values[at] : identity_of<OpT, T>();
      }
    }
  }

  // Heads and tails, bit i * V + e for item e of row i.
  unsigned long long head = 0, tail = 0;
#pragma unroll
  for (int i = 0; i < Groups; ++i) {
    const KeyT up = ::reducelab::warp::shfl_idx(k[i][V - 1], lane > 0 ? lane - 1 : 0);
    const KeyT down = ::reducelab::warp::shfl_idx(k[i][0], lane < 31 ? lane + 1 : 0);
    const KeyT prev_row_last = ::reducelab::warp::shfl_idx(k[i > 0 ? i - 1 : 0][V - 1], 31);
    const KeyT next_row_first = ::reducelab::warp::shfl_idx(k[i + 1 < Groups ? i + 1 : i][0], 0);
    KeyT left = lane > 0 ? up : (i > 0 ? prev_row_last : left_edge);
    const bool first_of_input = i == 0 && lane == 0 && start == 0;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const bool h = e == 0 ? (first_of_input || !equal(left, k[i][0])) : !equal(k[i][e - 1], k[i][e]);
      if (h) head |= 1ull << (i * V + e);
    }
    KeyT right = lane < 31 ? down : (i + 1 < Groups ? next_row_first : right_edge);
    const bool last_of_tile = i + 1 == Groups && lane == 31;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const bool tl = e + 1 < V ? !equal(k[i][e], k[i][e + 1])
                                : ((last_of_tile && start + tile_items >= n) || !equal(k[i][e], right));
      if (tl) tail |= 1ull << (i * V + e);
    }
  }
  if (!whole) {
#pragma unroll
    for (int i = 0; i < Groups; ++i) {
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const long long at = start + static_cast<long long>(i * 32 + lane) * V + e;
        if (at >= n) {
          head &= ~(1ull << (i * V + e));
          tail &= ~(1ull << (i * V + e));
        } else if (at == n - 1) {
          tail |= 1ull << (i * V + e);
        }
      }
    }
  }

  // Head counts of every row, packed 8 bits a row, scanned over the lanes at once.
  unsigned long long packed = 0;
#pragma unroll
  for (int i = 0; i < Groups; ++i)
    packed |= static_cast<unsigned long long>(__popcll((head >> (i * V)) & ((1ull << V) - 1))) << (8 * i);
  unsigned long long packed_incl = packed;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const unsigned long long o = __shfl_up_sync(0xffffffffu, packed_incl, d);
    if (lane >= d) packed_incl += o;
  }
  const unsigned long long row_heads = __shfl_sync(0xffffffffu, packed_incl, 31);
  int tile_heads = 0;
#pragma unroll
  for (int i = 0; i < Groups; ++i) tile_heads += static_cast<int>((row_heads >> (8 * i)) & 0xff);

  // Each row's stretches scanned over the lanes; rows joined in order.
  flagged<T> exclusive[Groups];
  flagged<T> tile_total{identity_of<OpT, T>(), false};
#pragma unroll
  for (int i = 0; i < Groups; ++i) {
    flagged<T> mine{identity_of<OpT, T>(), false};
#pragma unroll
    for (int e = 0; e < V; ++e) mine = then(mine, flagged<T>{v[i][e], ((head >> (i * V + e)) & 1ull) != 0}, op);
    const flagged<T> incl = warp::inclusive_scan(mine, op);
    flagged<T> ex = warp::shfl_up(incl, 1);
    exclusive[i] = lane == 0 ? tile_total : then(tile_total, ex, op);
    const flagged<T> row_total{::reducelab::warp::shfl_idx(incl.value, 31),
                               __shfl_sync(0xffffffffu, incl.closed, 31) != 0};
    tile_total = then(tile_total, row_total, op);
  }
  const bool starts_with_head = (__shfl_sync(0xffffffffu, static_cast<unsigned>(head & 1ull), 0)) != 0;
  const bool ends_with_tail =
      whole ? ((__shfl_sync(0xffffffffu, static_cast<unsigned>(tail >> (Groups * V - 1)), 31) & 1u) != 0) : true;

  if (lane == 0) {
    if (t == 0) {
      ::reducelab::grid::publish(counts.prefixes, static_cast<long long>(tile_heads), counts.epoch);
    } else {
      ::reducelab::grid::publish(counts.aggregates + t, static_cast<long long>(tile_heads), counts.epoch);
    }
    grid::publish_carry(carries, t, tile_total.value, tile_total.closed);
  }
  long long runs_before = 0;
  if (t > 0) {
    runs_before = warp_tiles::look_back(counts, t, count_sum{});
    if (lane == 0) ::reducelab::grid::publish(counts.prefixes + t, runs_before + tile_heads, counts.epoch);
  }
  T carry_in = identity_of<OpT, T>();
  if (!starts_with_head && (tile_total.closed || ends_with_tail)) carry_in = warp_tiles::look_back(carries, t, op);

  int rows_before = 0;
#pragma unroll
  for (int i = 0; i < Groups; ++i) {
    const int lane_heads = static_cast<int>((packed >> (8 * i)) & 0xff);
    const int before_in_row = static_cast<int>((packed_incl >> (8 * i)) & 0xff) - lane_heads;
    long long run = runs_before + rows_before + before_in_row - 1;
    flagged<T> running = exclusive[i];
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const bool h = ((head >> (i * V + e)) & 1ull) != 0;
      running = then(running, flagged<T>{v[i][e], h}, op);
      if (h) {
        ++run;
        unique_keys[run] = k[i][e];
      }
      if ((tail >> (i * V + e)) & 1ull) values_out[run] = running.closed ? running.value : op(carry_in, running.value);
      const long long at = start + static_cast<long long>(i * 32 + lane) * V + e;
      if (at == n - 1) *num_runs = static_cast<NumRunsT>(runs_before + tile_heads);
    }
    rows_before += static_cast<int>((row_heads >> (8 * i)) & 0xff);
  }
}

/// Launch either kernel (Rows: reduce_runs_warp_rows, with Items rows) with its look-back slots from the stream's pool.
template <int Warps, int Items, bool Rows = false, class KeyT, class T, class NumRunsT, class OpT, class EqualT>
void launch(const KeyT* keys, const T* values, long long n, KeyT* unique_keys, T* values_out, NumRunsT* num_runs,
            OpT op, EqualT equal, cudaStream_t stream) {
  using namespace reducelab::segmented::detail;
  constexpr int V = 16 / (sizeof(KeyT) > sizeof(T) ? sizeof(KeyT) : sizeof(T));
  constexpr long long tile = Rows ? 32LL * V * Items : 32LL * Items;
  const long long tiles = (n + tile - 1) / tile;
  const std::size_t count_bytes = align_up(grid::carry_slots<long long>::bytes_for(tiles));
  const std::size_t value_bytes = align_up(grid::carry_slots<T>::bytes_for(tiles));
  stream_allocation workspace(count_bytes + value_bytes, stream);
  const unsigned long long epoch = ::reducelab::detail::next_epoch();
  const auto counts = grid::carry_slots<long long>::carve(workspace.bytes(), tiles, epoch);
  const auto carries = grid::carry_slots<T>::carve(workspace.bytes() + count_bytes, tiles, epoch);
  const unsigned blocks = static_cast<unsigned>((tiles + Warps - 1) / Warps);
  if constexpr (Rows) {
    reduce_runs_warp_rows<Warps, Items><<<blocks, Warps * 32, 0, stream>>>(keys, values, n, unique_keys, values_out,
                                                                           num_runs, op, equal, counts, carries);
  } else {
    reduce_runs_warp<Warps, Items><<<blocks, Warps * 32, 0, stream>>>(keys, values, n, unique_keys, values_out,
                                                                      num_runs, op, equal, counts, carries);
  }
  CUDA_TRY_LAUNCH();
}

}  // namespace by_key_warp_tiles
