// The one-pass kernel of reducelab::reduce_by_key: every block takes one tile of keys and values, finds its runs
// (a run starts where a key differs from the one before it, under the caller's `equal`), reduces them in input order,
// and writes the runs that end in it. Nothing is materialized in between (the three-pass path it replaces selected
// the run heads into an offsets array, gathered the keys, then ran the segmented pass over the offsets: at one
// element per run it moved about 2.5x the bytes CUB does).
//
// Two things cross tiles, each through a look-back over the earlier tiles' published words (grid/tagged_partials.cuh:
// nothing cleared between launches, the launch's epoch in every word):
//   - the run count before the tile, which gives the runs' output positions: an integer sum, so every tile publishes
//     its own count at once and its inclusive count once it knows it (as CUB's scans do), and whichever a later
//     look-back finds, the sum is the same;
//   - the value of the run in progress at the tile's start, for a tile in which that run ends: the carries of
//     segmented/grid/segment_carries.cuh, where a tile publishes a prefix only when the run starts in it, so the
//     look-back always joins the same pieces in the same bracketing and the result is the same bits every run.
//
// There are more tiles than fit on the GPU at once; a tile waits only on lower tiles, which the hardware dispatches
// first, so every wait ends (the assumption CUB's single-pass scans make too).
//
// A tile's outputs go through shared memory (keys at their heads, values at their tails, each in run order) and
// leave in coalesced stores: at one element per run a thread's outputs are items_per_thread apart, and storing them
// from the thread's own items would cost a memory transaction per value.
//
// The kernel is latency bound (Nsight Compute on the H100 at 92a8a49, plus/int32, 2^24: 60-70 % of DRAM peak, and in
// about two of three cycles no warp of an SM's 16 can issue; they wait on loads and look-back polls, or at a barrier
// for the block's slowest warp). Three barriers fewer (the transposes' and the scans' storage side by side) changed
// nothing measurable, and the two look-backs at once, a warp each, gained 0-4 % for 4-byte values and lost 2-3 % for
// affine maps: results/NVIDIA_H100_80GB_HBM3-segmented/by-key-stalls.txt. More resident warps do help: 20 instead of
// 16 for 8-byte pairs and 16 instead of 12 for doubles, once the guarded tile stopped setting the registers (stop 46,
// reduce_run_tile below), were 2-11 % faster on both GPUs (results/NVIDIA_H200-segmented/by-key-guarded-tile.txt).
#pragma once

#include "reducelab/block/block_reduce.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/grid/dependent_launch.cuh"
#include "reducelab/segmented/block/block_segmented_scan.cuh"
#include "reducelab/segmented/block/run_density.cuh"
#include "reducelab/segmented/grid/segment_carries.cuh"
#include "reducelab/segmented/merge_path.cuh"
#include "reducelab/segmented/tuning.hpp"

#include <cub/block/block_exchange.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/util_type.cuh>

#include <cstddef>

namespace reducelab::segmented::kernels {

template <int Threads, int Items, class KeyT, class T>
struct run_tile_storage {
  static constexpr int tile = Threads * Items;
  using key_exchange = cub::BlockExchange<KeyT, Threads, Items>;
  using value_exchange = cub::BlockExchange<T, Threads, Items>;
  using count_scan = cub::BlockScan<int, Threads>;
  union {
    typename key_exchange::TempStorage key_exchange;
    typename value_exchange::TempStorage value_exchange;
    typename count_scan::TempStorage count_scan;
    block::scan_storage<T, Threads> value_scan;
    ::reducelab::block::reduce_storage<long long, Threads> count_look_back;
    ::reducelab::block::reduce_storage<T, Threads> value_look_back;
    struct {
      KeyT keys[tile];  // the keys of the runs that start in the tile, in run order
      T values[tile];   // the values of the runs that end in the tile, in run order
    } out;
  } work;
  KeyT first_key[Threads];  // each thread's first and last keys: its neighbours' edges
  KeyT last_key[Threads];
  long long runs_before;  // runs that start before the tile
  T carry_in;             // what earlier tiles hold of the run in progress at the tile's start
  bool starts_with_head;  // the tile's first item starts a run
  bool ends_with_tail;    // the tile's last item ends one
};

/// Tile b of the kernel below, with (Guarded) or without the first and the last tile's cases: the input's first item
/// always starts a run, its last always ends one, and the last tile may be partial. The guarded copy fills a partial
/// tile to its end (the tile's last key, the identity) and tests its items in 32 bits, in the tile. Why two copies: a
/// block spends most of its life issuing the instructions between its loads and its stores (Nsight Compute on the
/// H100 at 961a87b: issue slots 46 % busy, 0.73 eligible warps per scheduler; results/NVIDIA_H100_80GB_HBM3-segmented/
/// ncu-by-key-c9cd295.txt), and the 64-bit index tests of every item were a third of them: without them in whole
/// tiles, 2^24 int32 keys and values in runs of 256 took 24.5 M warp instructions instead of 36.2 M, and the kernel ran
/// 6-9 % faster from runs of 2 up (results/NVIDIA_H100_80GB_HBM3-segmented/by-key-whole-tiles.txt).
template <bool Guarded, int Threads, int Items, class KeyT, class T, class NumRunsT, class OpT, class EqualT,
          class StorageT>
__device__ __forceinline__ void reduce_run_tile(const KeyT* __restrict__ keys, const T* __restrict__ values,
                                                long long n, KeyT* __restrict__ unique_keys,
                                                T* __restrict__ values_out, NumRunsT* num_runs, OpT op, EqualT equal,
                                                const grid::carry_slots<long long>& counts,
                                                const grid::carry_slots<T>& carries, StorageT& s, long long b) {
  constexpr long long tile = StorageT::tile;
  const long long start = b * tile;
  const int valid = Guarded ? static_cast<int>(n - start < tile ? n - start : tile) : static_cast<int>(tile);
  const int tid = static_cast<int>(threadIdx.x);
  const int first = tid * Items;  // this thread's items are first .. first + Items - 1 of the tile

  KeyT k[Items];
  T v[Items];
  // Every load of the tile is issued before any is used: its keys, its values (each warp reads its part of the tile
  // striped, then transposes it through shared memory, as cub::BLOCK_LOAD_WARP_TRANSPOSE does) and the keys on either
  // side of it. When the first and last threads loaded the edge keys only once the heads needed them, the whole
  // block waited on memory a second time (4-8 % slower for int32 values on the H100: results/NVIDIA_H100_80GB_HBM3-
  // segmented/by-key-edge-keys.txt).
  // Every thread reads the same two edge keys (one request per warp). Past n, every key is the tile's last one, so
  // that the caller's `equal` only ever sees real keys: right_edge is that key in the last tile.
  const KeyT left_edge = keys[start > 0 ? start - 1 : start];
  const KeyT right_edge = keys[start + tile < n ? start + tile : start + valid - 1];
  if (!Guarded || valid == tile) {
    cub::LoadDirectWarpStriped(tid, keys + start, k);
    cub::LoadDirectWarpStriped(tid, values + start, v);
  } else {
    cub::LoadDirectWarpStriped(tid, keys + start, k, valid, right_edge);
    cub::LoadDirectWarpStriped(tid, values + start, v, valid, identity_of<OpT, T>());
  }
  typename StorageT::key_exchange(s.work.key_exchange).WarpStripedToBlocked(k, k);
  __syncthreads();  // the two exchanges share the storage
  typename StorageT::value_exchange(s.work.value_exchange).WarpStripedToBlocked(v, v);
  s.first_key[tid] = k[0];
  s.last_key[tid] = k[Items - 1];
  __syncthreads();

  // Heads (a run starts at the item) and tails (a run ends at it). The same comparison, equal(key i, key i + 1),
  // makes item i a tail and item i + 1 a head.
  bool head[Items], tail[Items];
  [[maybe_unused]] const bool ends_input = start + valid == n;  // the tile holds the input's last item
  {
    // The fill past n starts no run and ends none (tested in 32 bits in the tile, since a caller's `equal` need not
    // hold for a key and itself: NaNs), so the loops below need no test of their own: its identities join the input's
    // last run after that run's tail, in the tile's total, which no later tile reads. Until stop 46 the guarded copy
    // tested every item against n in 64 bits and skipped the fill in its loops: at 126 live registers (an int32 sum;
    // a whole tile's peak is 95) that copy, run by two tiles, set the registers, hence the resident blocks, of every
    // tile (tuning.hpp, by_key_shapes).
    KeyT left = k[0];
    if (tid > 0) left = s.last_key[tid - 1];
    else if (start > 0) left = left_edge;
    KeyT right = k[Items - 1];
    if (tid + 1 < Threads) right = s.first_key[tid + 1];
    else if (start + tile < n) right = right_edge;
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const KeyT& prev = j == 0 ? left : k[j - 1];
      const KeyT& next = j + 1 < Items ? k[j + 1] : right;
      if constexpr (Guarded) {
        const int i = first + j;  // in the tile
        head[j] = i < valid && ((b == 0 && i == 0) || !equal(prev, k[j]));
        tail[j] = i < valid && ((ends_input && i == valid - 1) || !equal(k[j], next));
      } else {
        head[j] = !equal(prev, k[j]);
        tail[j] = !equal(k[j], next);
      }
    }
  }
  if (tid == 0) s.starts_with_head = head[0];
  if (tid == Threads - 1) s.ends_with_tail = (Guarded && ends_input) || tail[Items - 1];

  // This thread's stretch (the run pieces of its items) and its head count, scanned over the block.
  flagged<T> mine{identity_of<OpT, T>(), false};
  int heads = 0;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    mine = then(mine, flagged<T>{v[j], head[j]}, op);
    heads += head[j] ? 1 : 0;
  }
  int heads_before = 0, tile_heads = 0;
  __syncthreads();  // the loads' storage is free; starts_with_head and ends_with_tail are written
  typename StorageT::count_scan(s.work.count_scan).ExclusiveSum(heads, heads_before, tile_heads);
  __syncthreads();
  flagged<T> exclusive, total;
  block::exclusive_scan<Threads>(mine, identity_of<OpT, T>(), op, s.work.value_scan, exclusive, total);
  const bool starts_with_head = s.starts_with_head;
  const bool ends_with_tail = s.ends_with_tail;
  __syncthreads();  // the scan's storage is free

  // Publish at once what later tiles need from this one (before looking back: the waits then always end).
  if (tid == 0) grid::publish_tile_runs(counts, carries, b, tile_heads, total.value, total.closed);
  long long runs_before = 0;
  if (b > 0) {
    runs_before = grid::runs_before_tile<Threads>(counts, b, tile_heads, s.work.count_look_back, s.runs_before);
  }
  // The run in progress at the tile's start needs the earlier tiles' part only if it ends here.
  const bool carried = !starts_with_head && (total.closed || ends_with_tail);
  T carry_in = identity_of<OpT, T>();
  if (carried) carry_in = grid::carry_into_tile<Threads>(carries, b, op, s.work.value_look_back, s.carry_in);

  // Stage the outputs in run order: keys at heads (slot = heads before, in the tile), values at tails (slot = runs
  // touching the tile before it: the tile's heads so far, one more when its first run began in an earlier tile).
  const long long tail_base = runs_before - (starts_with_head ? 0 : 1);  // the run of the tile's first tail
  const int tail_slot_offset = starts_with_head ? -1 : 0;
  flagged<T> running = exclusive;
  int heads_so_far = heads_before;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    running = then(running, flagged<T>{v[j], head[j]}, op);
    if (head[j]) {
      s.work.out.keys[heads_so_far] = k[j];
      ++heads_so_far;
    }
    if (tail[j]) {
      s.work.out.values[heads_so_far + tail_slot_offset] = running.closed ? running.value : op(carry_in, running.value);
    }
  }
  __syncthreads();
  const int tile_tails = tile_heads + (starts_with_head ? 0 : 1) - (ends_with_tail ? 0 : 1);
  for (int i = tid; i < tile_heads; i += Threads) unique_keys[runs_before + i] = s.work.out.keys[i];
  for (int i = tid; i < tile_tails; i += Threads) values_out[tail_base + i] = s.work.out.values[i];
  if (Guarded && tid == 0 && start + valid == n) *num_runs = static_cast<NumRunsT>(runs_before + tile_heads);
}

/// Block b reduces the runs of tile b ([b * tile, (b + 1) * tile) of n), writes the keys of those that start in it
/// and the values of those that end in it, and (the last tile) the run count. The host launches a block per tile; or,
/// beside the stream path (kernels/stream_runs.cuh, `choice.chosen` not null), fewer blocks, which leave at once
/// unless the stream path's block 0 chose this kernel, and then take tile after tile, claimed from a counter so that
/// a tile is only ever claimed after every tile below it (each waits on those only, as with a block per tile).
/// MinBlocks is the __launch_bounds__ minimum (tuning::by_key_min_blocks); it is a parameter so that the kernel's
/// name states it, which scripts/check_kernel_resources.py reads.
template <int Threads, int Items, int MinBlocks, class KeyT, class T, class NumRunsT, class OpT, class EqualT>
__global__ void __launch_bounds__(Threads, MinBlocks)
    reduce_runs(const KeyT* __restrict__ keys, const T* __restrict__ values, long long n,
                KeyT* __restrict__ unique_keys, T* __restrict__ values_out, NumRunsT* num_runs, OpT op,
                EqualT equal, grid::carry_slots<long long> counts, grid::carry_slots<T> carries,
                block::run_choice choice) {
  using storage_t = run_tile_storage<Threads, Items, KeyT, T>;
  // Never constructed: a value type with a default member initializer would make the union's constructor deleted.
  __shared__ cub::Uninitialized<storage_t> raw;
  storage_t& s = raw.Alias();
  __shared__ long long claimed;
  const bool beside_stream_path = choice.chosen != nullptr;
  if (beside_stream_path) {
    if (threadIdx.x == 0) {
      claimed = choice.wait() == block::run_choice::one_pass ? static_cast<long long>(blockIdx.x) : -1LL;
    }
    __syncthreads();
    if (claimed < 0) {
      ::reducelab::grid::wait_for_prerequisite_grid();  // see the end
      return;
    }
  }
  constexpr long long tile = storage_t::tile;
  const long long tiles = (n + tile - 1) / tile;
  for (long long t = blockIdx.x; t < tiles;) {
    const long long start = t * tile;
    if (t > 0 && start + tile < n) {  // a whole tile with input on both sides
      reduce_run_tile<false, Threads, Items>(keys, values, n, unique_keys, values_out, num_runs, op, equal, counts,
                                             carries, s, t);
    } else {
      reduce_run_tile<true, Threads, Items>(keys, values, n, unique_keys, values_out, num_runs, op, equal, counts,
                                            carries, s, t);
    }
    if (!beside_stream_path) break;
    __syncthreads();  // the tile's shared memory is free for the next
    if (threadIdx.x == 0) claimed = static_cast<long long>(atomicAdd(choice.next_tile, 1ULL));
    __syncthreads();
    t = claimed;
  }
  // Beside the stream path this kernel is that kernel's programmatic dependent (detail/dispatch.cuh) and may finish
  // first; its blocks wait for that kernel before they leave, so that this kernel finishing means both have and the
  // caller's next work on the stream never overlaps the stream path. (A no-op in a stream-ordered launch.)
  if (beside_stream_path) ::reducelab::grid::wait_for_prerequisite_grid();
}

}  // namespace reducelab::segmented::kernels
