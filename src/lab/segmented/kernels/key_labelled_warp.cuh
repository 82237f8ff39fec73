// Reduce-by-key step - a warp labels 32 consecutive (key, value) pairs with __match_any_sync and reduces each
// run of equal keys in lane order. A run is a maximal range of consecutive equal keys; unique_keys_out[r] and
// values_out[r] are the r-th run's key and in-order reduction (cub::DeviceReduce::ReduceByKey's contract).
//
// __match_any_sync(key) gives every lane the lanes holding its key anywhere in the 32, so a key that comes
// back later in the tile (a b a) shares the mask with an earlier, different run. Only the contiguous part
// counts: lane i is a run head when lane i-1 is not among its peers (lane 0: when the previous pair's key
// differs), and its run reaches as far as its peers are contiguous above it. reduce_runs_in_lane_order then
// leaves each run's fragment of the tile, in order, in the run's first lane (lane 0 holds the fragment that
// continues the run open before the tile).
//
// Four launches, because a run's output index is the number of heads before it and a run may cross warps:
//   count_run_heads        one warp per chunk of ChunkItems pairs counts the heads in its chunk
//   scan_run_counts        one block turns the counts into each chunk's first run index (exclusive scan);
//                          the total is *num_runs_out
//   reduce_runs            one warp per chunk walks its tiles in order carrying the open run: runs that close
//                          inside the chunk are written final; the chunk's last run is written provisionally
//                          (its fragment up to the chunk's end), and leads[c] is the fragment before the
//                          chunk's first head (the whole chunk when it has no head)
//   carry_runs             for every chunk with a head, one warp appends leads[c+1], leads[c+2], ..., up to and
//                          including the first later chunk that has a head, 32 chunks per step, in order
// Every combine joins a left neighbour with the right one, so any associative functor gets the in-order result.
// Keys: integral types (matched bit for bit, which for integers is ==). Limits: keys are read twice (counting
// and reducing); a run spanning m chunks costs carry_runs m/32 sequential steps in one warp (all pairs one key:
// n/(32*ChunkItems) steps, about 16k at n = 2^28).
#pragma once

#include "reducelab/segmented/warp/group_reduce.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/warp/shuffle.cuh"
#include "reducelab/warp/warp_reduce.cuh"

#include <cuda/std/type_traits>

#include <cstddef>
#include <cstdint>

namespace reducelab::segmented::kernels {

/// The word __match_any_sync compares: the key itself, widened (injectively) to 32 or 64 bits.
template <class K>
__device__ __forceinline__ auto match_word(K key) {
  static_assert(cuda::std::is_integral_v<K> && sizeof(K) <= 8,
                "key_labelled_warp: keys must be an integral type of at most 8 bytes (matched bit for bit with "
                "__match_any_sync); use cub::DeviceReduce::ReduceByKey for other key types");
  if constexpr (sizeof(K) <= 4) {
    return static_cast<unsigned>(key);
  } else {
    return static_cast<unsigned long long>(key);
  }
}

template <int BlockThreads, int ChunkItems, class K>
__global__ void __launch_bounds__(BlockThreads)
    count_run_heads(const K* __restrict__ keys, std::size_t n, std::int64_t* __restrict__ counts) {
  constexpr int warps = BlockThreads / 32;
  const int lane = threadIdx.x % 32;
  const std::size_t chunk = static_cast<std::size_t>(blockIdx.x) * warps + threadIdx.x / 32;
  const std::size_t first = chunk * ChunkItems;
  if (first >= n) return;  // warp-uniform
  const std::size_t last = n - first < static_cast<std::size_t>(ChunkItems) ? n : first + ChunkItems;
  unsigned heads = 0;
  for (std::size_t i = first + lane; i < last; i += 32) heads += (i == 0 || keys[i] != keys[i - 1]) ? 1u : 0u;
  heads = __reduce_add_sync(warp::full_mask, heads);
  if (lane == 0) counts[chunk] = heads;
}

/// counts[0, chunks) becomes its exclusive scan and counts[chunks] the total, also written to *total. One block.
template <int BlockThreads>
__global__ void __launch_bounds__(BlockThreads)
    scan_run_counts(std::int64_t* __restrict__ counts, std::size_t chunks, std::int64_t* __restrict__ total) {
  static_assert(BlockThreads % 32 == 0 && BlockThreads / 32 <= 32, "one warp scans the warp totals");
  constexpr int warps = BlockThreads / 32;
  __shared__ std::int64_t warp_totals[warps];
  const int lane = threadIdx.x % 32;
  const int warp_id = threadIdx.x / 32;
  const std::size_t per_thread = (chunks + BlockThreads - 1) / BlockThreads;
  const std::size_t lo = threadIdx.x * per_thread < chunks ? threadIdx.x * per_thread : chunks;
  const std::size_t hi = chunks - lo > per_thread ? lo + per_thread : chunks;
  std::int64_t sum = 0;
  for (std::size_t i = lo; i < hi; ++i) sum += counts[i];

  std::int64_t inclusive = sum;  // within the warp
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const std::int64_t other = __shfl_up_sync(warp::full_mask, inclusive, offset);
    if (lane >= offset) inclusive += other;
  }
  if (lane == 31) warp_totals[warp_id] = inclusive;
  __syncthreads();
  if (warp_id == 0) {
    std::int64_t w = lane < warps ? warp_totals[lane] : 0;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      const std::int64_t other = __shfl_up_sync(warp::full_mask, w, offset);
      if (lane >= offset) w += other;
    }
    if (lane < warps) warp_totals[lane] = w;  // inclusive over warps
  }
  __syncthreads();
  std::int64_t running = inclusive - sum + (warp_id > 0 ? warp_totals[warp_id - 1] : 0);
  for (std::size_t i = lo; i < hi; ++i) {
    const std::int64_t c = counts[i];
    counts[i] = running;
    running += c;
  }
  if (threadIdx.x == 0) {
    counts[chunks] = warp_totals[warps - 1];
    *total = warp_totals[warps - 1];
  }
}

template <int BlockThreads, int ChunkItems, class OpT, class K, class T>
__global__ void __launch_bounds__(BlockThreads)
    reduce_runs(const K* __restrict__ keys, const T* __restrict__ values, std::size_t n,
                const std::int64_t* __restrict__ run_offsets, K* __restrict__ unique_keys_out, T* values_out,
                T* __restrict__ leads, OpT op) {
  constexpr int warps = BlockThreads / 32;
  const int lane = threadIdx.x % 32;
  const unsigned lanes_below = (1u << lane) - 1u;
  const std::size_t chunk = static_cast<std::size_t>(blockIdx.x) * warps + threadIdx.x / 32;
  const std::size_t first = chunk * ChunkItems;
  if (first >= n) return;  // warp-uniform
  const std::size_t last = n - first < static_cast<std::size_t>(ChunkItems) ? n : first + ChunkItems;

  // The open run, the same in every lane: its value so far, and where it goes (leads[chunk] until the chunk's
  // first head, then values_out[open_run]).
  T open = identity_of<OpT, T>();
  bool open_is_lead = true;
  std::int64_t open_run = 0;
  std::int64_t next_run = run_offsets[chunk];  // the run index of the next head
  K previous = first > 0 ? keys[first - 1] : K{};

  for (std::size_t t = first; t < last; t += 32) {
    const std::size_t i = t + lane;
    const int count = last - t < 32 ? static_cast<int>(last - t) : 32;
    const bool active = lane < count;
    const unsigned valid = count == 32 ? warp::full_mask : (1u << count) - 1u;
    const K key = active ? keys[i] : previous;  // inactive lanes are masked out of every run below
    T v = active ? values[i] : identity_of<OpT, T>();

    const unsigned peers = __match_any_sync(warp::full_mask, match_word(key)) & valid;
    const bool head = lane == 0 ? (i == 0 || key != previous) : active && ((peers >> (lane - 1)) & 1u) == 0;
    const unsigned heads = __ballot_sync(warp::full_mask, head);
    const unsigned above = peers >> lane;  // bit 0: this lane (clear for inactive lanes)
    const int run_length = above == warp::full_mask ? 32 : __ffs(~above) - 1;
    v = reduce_runs_in_lane_order(v, lane + run_length - 1, op);

    const T continued = warp::shfl_idx(v, 0);  // lane 0's fragment: the open run's continuation unless a head
    previous = warp::shfl_idx(key, 31);        // read only by the next tile, which exists only if this one is full
    if (heads == 0) {
      open = op(open, continued);
      continue;
    }
    const std::int64_t run = next_run + __popc(heads & lanes_below);
    const int last_head = 31 - __clz(heads);
    if (head) {
      unique_keys_out[run] = key;
      if (lane != last_head) values_out[run] = v;  // runs that close inside this tile are final
    }
    const T closed = (heads & 1u) ? open : op(open, continued);
    if (lane == 0) {
      if (open_is_lead) {
        leads[chunk] = closed;
      } else {
        values_out[open_run] = closed;
      }
    }
    open_is_lead = false;
    open = warp::shfl_idx(v, last_head);
    open_run = next_run + __popc(heads) - 1;
    next_run += __popc(heads);
  }
  if (lane == 0) {
    if (open_is_lead) {
      leads[chunk] = open;  // no head in the chunk: all of it continues an earlier chunk's run
    } else {
      values_out[open_run] = open;  // provisional: carry_runs appends the following chunks' leads
    }
  }
}

template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    carry_runs(const std::int64_t* __restrict__ run_offsets, std::size_t chunks, const T* __restrict__ leads,
               T* values_out, OpT op) {
  constexpr int warps = BlockThreads / 32;
  const int lane = threadIdx.x % 32;
  const std::size_t chunk = static_cast<std::size_t>(blockIdx.x) * warps + threadIdx.x / 32;
  if (chunk + 1 >= chunks) return;                                      // the last chunk has nothing after it
  if (run_offsets[chunk + 1] == run_offsets[chunk]) return;             // no head: nothing of its own to carry
  const std::int64_t run = run_offsets[chunk + 1] - 1;                  // the chunk's last run
  T acc = values_out[run];
  for (std::size_t base = chunk + 1; base < chunks; base += 32) {
    const std::size_t k = base + lane;
    const bool in_range = k < chunks;
    const bool has_head = in_range && run_offsets[k + 1] > run_offsets[k];
    const unsigned stops = __ballot_sync(warp::full_mask, has_head);
    const int stop_lane = stops != 0 ? __ffs(stops) - 1 : 31;
    T lead = in_range && lane <= stop_lane ? leads[k] : identity_of<OpT, T>();
    lead = warp::reduce_in_lane_order(lead, op);
    acc = op(acc, lead);  // meaningful in lane 0
    if (stops != 0) break;
  }
  if (lane == 0) values_out[run] = acc;
}

}  // namespace reducelab::segmented::kernels
