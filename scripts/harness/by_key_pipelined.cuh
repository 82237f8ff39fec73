// reduce_by_key's block-per-tile kernel with the next tile's loads in flight: tried at stop 40 and rejected (the best
// shape 1.04-1.09x the library's time for int32 values from runs of 8 up on the H100, 1.32-1.45x for doubles:
// results/NVIDIA_H100_80GB_HBM3-segmented/by-key-pipelined.txt).
//
// kernels/reduce_runs.cuh launches a block per tile, and a block waits on its tile's loads before anything else: in
// about two of three cycles no warp of an SM can issue (results/NVIDIA_H100_80GB_HBM3-segmented/by-key-stalls.txt).
// Here a resident grid walks the tiles round robin (block b: tiles b, b + G, ...), and while it works on one tile the
// next one's keys and values are already on their way into shared memory (cp.async, 16 bytes a request, no registers
// held). The tile's work reads its items from that buffer; the outputs are staged in the same buffer once its items
// are in registers, so a block needs two tile buffers and little else.
//
// The look-backs wait only on lower tiles. Every block of the grid is resident (the grid is the occupancy
// calculator's count) and walks its tiles in increasing order, so the lowest unfinished tile always progresses.
#pragma once

#include "reducelab/segmented/detail/dispatch.cuh"
#include "reducelab/segmented/kernels/reduce_runs.cuh"

namespace by_key_pipelined {

using namespace reducelab::segmented;
using namespace reducelab::segmented::kernels;
using reducelab::identity_of;

__device__ __forceinline__ void copy_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void wait_all_but_last_copies() { asm volatile("cp.async.wait_group 1;" ::: "memory"); }

template <int Threads, int Items, class KeyT, class T>
struct tile_buffer {
  static constexpr int tile = Threads * Items;
  static_assert(tile * sizeof(KeyT) % 16 == 0 && tile * sizeof(T) % 16 == 0, "whole 16-byte copies");
  KeyT keys[tile];
  T values[tile];
};

template <int Threads, int Items, class KeyT, class T>
struct small_storage {
  using count_scan = cub::BlockScan<int, Threads>;
  union {
    typename count_scan::TempStorage count_scan;
    block::scan_storage<T, Threads> value_scan;
    ::reducelab::block::reduce_storage<long long, Threads> count_look_back;
    ::reducelab::block::reduce_storage<T, Threads> value_look_back;
  } work;
  KeyT first_key[Threads];
  KeyT last_key[Threads];
  long long runs_before;
  T carry_in;
  bool starts_with_head;
  bool ends_with_tail;
};

/// Issue the copies of tile t's keys and values into `b` (whole tiles only) and close the group.
template <int Threads, int Items, class KeyT, class T>
__device__ __forceinline__ void prefetch(const KeyT* keys, const T* values, long long n, long long t,
                                         tile_buffer<Threads, Items, KeyT, T>& b) {
  constexpr long long tile = Threads * Items;
  const long long start = t * tile;
  if (start + tile <= n) {
    constexpr int key_chunks = static_cast<int>(tile * sizeof(KeyT) / 16);
    constexpr int value_chunks = static_cast<int>(tile * sizeof(T) / 16);
    const char* kg = reinterpret_cast<const char*>(keys + start);
    const char* vg = reinterpret_cast<const char*>(values + start);
#pragma unroll 4
    for (int i = threadIdx.x; i < key_chunks; i += Threads)
      copy_async16(reinterpret_cast<char*>(b.keys) + 16 * i, kg + 16 * i);
#pragma unroll 4
    for (int i = threadIdx.x; i < value_chunks; i += Threads)
      copy_async16(reinterpret_cast<char*>(b.values) + 16 * i, vg + 16 * i);
  }
  commit_copies();
}

/// reduce_run_tile (kernels/reduce_runs.cuh) with the tile's items in `b`; the outputs are staged in `b` too.
template <bool Guarded, int Threads, int Items, class KeyT, class T, class NumRunsT, class OpT, class EqualT>
__device__ __forceinline__ void run_tile(long long b_index, const KeyT left_edge, const KeyT right_edge, long long n,
                                         KeyT* __restrict__ unique_keys, T* __restrict__ values_out,
                                         NumRunsT* num_runs, OpT op, EqualT equal,
                                         const grid::carry_slots<long long>& counts,
                                         const grid::carry_slots<T>& carries,
                                         tile_buffer<Threads, Items, KeyT, T>& buf,
                                         small_storage<Threads, Items, KeyT, T>& s) {
  constexpr long long tile = Threads * Items;
  const long long b = b_index;
  const long long start = b * tile;
  const int valid = Guarded ? static_cast<int>(n - start < tile ? n - start : tile) : static_cast<int>(tile);
  const int tid = static_cast<int>(threadIdx.x);
  const int first = tid * Items;

  KeyT k[Items];
  T v[Items];
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    k[j] = buf.keys[first + j];
    v[j] = buf.values[first + j];
  }
  s.first_key[tid] = k[0];
  s.last_key[tid] = k[Items - 1];
  __syncthreads();  // also: every thread's items are in registers, so `buf` may stage outputs from here on

  bool head[Items], tail[Items];
  {
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
        const long long i = start + first + j;
        head[j] = i < n && (i == 0 || !equal(prev, k[j]));
        tail[j] = i < n && (i == n - 1 || !equal(k[j], next));
      } else {
        head[j] = !equal(prev, k[j]);
        tail[j] = !equal(k[j], next);
      }
    }
  }
  if (tid == 0) s.starts_with_head = head[0];
  if constexpr (Guarded) {
    if (first <= valid - 1 && valid - 1 < first + Items) {
#pragma unroll
      for (int j = 0; j < Items; ++j) {
        if (first + j == valid - 1) s.ends_with_tail = tail[j];
      }
    }
  } else {
    if (tid == Threads - 1) s.ends_with_tail = tail[Items - 1];
  }

  flagged<T> mine{identity_of<OpT, T>(), false};
  int heads = 0;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    if (!Guarded || first + j < valid) mine = then(mine, flagged<T>{v[j], head[j]}, op);
    heads += head[j] ? 1 : 0;
  }
  int heads_before = 0, tile_heads = 0;
  __syncthreads();
  typename small_storage<Threads, Items, KeyT, T>::count_scan(s.work.count_scan)
      .ExclusiveSum(heads, heads_before, tile_heads);
  __syncthreads();
  flagged<T> exclusive, total;
  block::exclusive_scan<Threads>(mine, identity_of<OpT, T>(), op, s.work.value_scan, exclusive, total);
  const bool starts_with_head = s.starts_with_head;
  const bool ends_with_tail = s.ends_with_tail;
  __syncthreads();

  if (tid == 0) {
    if (b == 0) {
      ::reducelab::grid::publish(counts.prefixes, static_cast<long long>(tile_heads), counts.epoch);
    } else {
      ::reducelab::grid::publish(counts.aggregates + b, static_cast<long long>(tile_heads), counts.epoch);
    }
    grid::publish_carry(carries, b, total.value, total.closed);
  }
  long long runs_before = 0;
  if (b > 0) {
    runs_before = grid::look_back<Threads>(counts, b, count_sum{}, s.work.count_look_back);
    if (tid == 0) {
      s.runs_before = runs_before;
      ::reducelab::grid::publish(counts.prefixes + b, runs_before + tile_heads, counts.epoch);
    }
    __syncthreads();
    runs_before = s.runs_before;
  }
  const bool carried = !starts_with_head && (total.closed || ends_with_tail);
  T carry_in = identity_of<OpT, T>();
  if (carried) {
    carry_in = grid::look_back<Threads>(carries, b, op, s.work.value_look_back);
    if (tid == 0) s.carry_in = carry_in;
    __syncthreads();
    carry_in = s.carry_in;
  }

  const long long tail_base = runs_before - (starts_with_head ? 0 : 1);
  const int tail_slot_offset = starts_with_head ? -1 : 0;
  flagged<T> running = exclusive;
  int heads_so_far = heads_before;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    if constexpr (Guarded) {
      if (first + j >= valid) break;
    }
    running = then(running, flagged<T>{v[j], head[j]}, op);
    if (head[j]) {
      buf.keys[heads_so_far] = k[j];
      ++heads_so_far;
    }
    if (tail[j]) {
      buf.values[heads_so_far + tail_slot_offset] = running.closed ? running.value : op(carry_in, running.value);
    }
  }
  __syncthreads();
  const int tile_tails = tile_heads + (starts_with_head ? 0 : 1) - (ends_with_tail ? 0 : 1);
  for (int i = tid; i < tile_heads; i += Threads) unique_keys[runs_before + i] = buf.keys[i];
  for (int i = tid; i < tile_tails; i += Threads) values_out[tail_base + i] = buf.values[i];
  if (Guarded && tid == 0 && start + valid == n) *num_runs = static_cast<NumRunsT>(runs_before + tile_heads);
}

template <int Threads, int Items, int MinBlocks, class KeyT, class T, class NumRunsT, class OpT, class EqualT>
__global__ void __launch_bounds__(Threads, MinBlocks)
    reduce_runs_pipelined(const KeyT* __restrict__ keys, const T* __restrict__ values, long long n,
                          KeyT* __restrict__ unique_keys, T* __restrict__ values_out, NumRunsT* num_runs, OpT op,
                          EqualT equal, grid::carry_slots<long long> counts, grid::carry_slots<T> carries) {
  using buffer_t = tile_buffer<Threads, Items, KeyT, T>;
  using small_t = small_storage<Threads, Items, KeyT, T>;
  extern __shared__ __align__(16) unsigned char dynamic[];
  buffer_t* bufs = reinterpret_cast<buffer_t*>(dynamic);
  __shared__ cub::Uninitialized<small_t> raw;
  small_t& s = raw.Alias();
  constexpr long long tile = buffer_t::tile;
  const long long tiles = (n + tile - 1) / tile;
  long long t = blockIdx.x;
  if (t >= tiles) return;
  prefetch(keys, values, n, t, bufs[0]);
  for (int cur = 0; t < tiles; t += gridDim.x, cur ^= 1) {
    const long long start = t * tile;
    // The edge keys now, so that their round trip overlaps the wait for the tile.
    const KeyT left_edge = keys[start > 0 ? start - 1 : start];
    const bool whole = start + tile <= n;
    const KeyT right_edge = keys[start + tile < n ? start + tile : n - 1];
    const long long next = t + gridDim.x;
    if (next < tiles) {
      prefetch(keys, values, n, next, bufs[cur ^ 1]);
    } else {
      commit_copies();  // an empty group, so that "all but the last group" still means this tile's
    }
    wait_all_but_last_copies();
    if (!whole) {  // the last tile: copied here, keys past n set to the last one (as reduce_runs.cuh does)
      const int valid = static_cast<int>(n - start);
      for (int i = threadIdx.x; i < static_cast<int>(tile); i += Threads) {
        bufs[cur].keys[i] = i < valid ? keys[start + i] : right_edge;
        if (i < valid) bufs[cur].values[i] = values[start + i];
      }
    }
    __syncthreads();
    if (t > 0 && whole && start + tile < n) {
      run_tile<false>(t, left_edge, right_edge, n, unique_keys, values_out, num_runs, op, equal, counts, carries,
                      bufs[cur], s);
    } else {
      run_tile<true>(t, left_edge, right_edge, n, unique_keys, values_out, num_runs, op, equal, counts, carries,
                     bufs[cur], s);
    }
    __syncthreads();  // bufs[cur] (the staged outputs) is read; the next-but-one tile's copies may land in it
  }
}

/// The launch: a resident grid (the occupancy calculator's count, at most one block per tile).
template <int Threads, int Items, int MinBlocks, class KeyT, class T, class NumRunsT, class OpT, class EqualT>
void launch(const KeyT* keys, const T* values, long long n, KeyT* unique_keys, T* values_out, NumRunsT* num_runs,
            OpT op, EqualT equal, cudaStream_t stream) {
  using namespace reducelab::segmented::detail;
  constexpr long long tile = static_cast<long long>(Threads) * Items;
  const long long tiles = (n + tile - 1) / tile;
  const std::size_t count_bytes = align_up(grid::carry_slots<long long>::bytes_for(tiles));
  const std::size_t value_bytes = align_up(grid::carry_slots<T>::bytes_for(tiles));
  stream_allocation workspace(count_bytes + value_bytes, stream);
  const unsigned long long epoch = ::reducelab::detail::next_epoch();
  const auto counts = grid::carry_slots<long long>::carve(workspace.bytes(), tiles, epoch);
  const auto carries = grid::carry_slots<T>::carve(workspace.bytes() + count_bytes, tiles, epoch);
  auto kernel = reduce_runs_pipelined<Threads, Items, MinBlocks, KeyT, T, NumRunsT, OpT, EqualT>;
  constexpr int smem = 2 * static_cast<int>(sizeof(tile_buffer<Threads, Items, KeyT, T>));
  static int resident = 0;  // per instantiation: blocks per SM x SMs
  if (resident == 0) {
    CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    int per_sm = 0, sms = 0, dev = 0;
    CUDA_TRY(cudaGetDevice(&dev));
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Threads, smem));
    resident = per_sm * sms;
    std::printf("  [pipelined %dx%d: %d blocks per SM, %d B dynamic shared memory]\n", Threads, Items, per_sm, smem);
  }
  const long long grid = tiles < resident ? tiles : resident;
  kernel<<<static_cast<unsigned>(grid), Threads, smem, stream>>>(keys, values, n, unique_keys, values_out, num_runs,
                                                                 op, equal, counts, carries);
  CUDA_TRY_LAUNCH();
}

}  // namespace by_key_pipelined
