// The kernels of reducelab::segmented_reduce and reduce_by_key.
//
//   merge_path_segments  the main pass: a fixed grid of blocks splits the path of E elements and S segment ends
//                        (segmented/merge_path.cuh) into equal stretches; each block finds its two ends with a warp
//                        search over the offsets, walks its stretch (in tiles, agent/merge_path_block.cuh, or segment
//                        by segment when they are long, agent/segment_pieces.cuh), writes the segments
//                        that end inside it, and stores its carry-out: the segment in progress at its end and that
//                        segment's elements within the block.
//   fix_up_carries       one block: a segment that crosses block boundaries was written by the block that ends it from
//                        that block's elements only; the carries of the blocks before, joined in block order, go in front.
//                        The carries are scanned by segment (in order) with one block: the main grid is capped at the
//                        resident-block count (a few thousand at most), so one block of fix_up_threads threads, each
//                        folding a contiguous run of carries, always suffices however many blocks a giant segment spans.
//   gather_run_keys      reduce_by_key: the key of each run and the run count, from the run heads DeviceSelect found.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/segmented/agent/merge_path_block.cuh"
#include "reducelab/segmented/agent/segment_pieces.cuh"
#include "reducelab/segmented/block/block_segmented_scan.cuh"
#include "reducelab/segmented/merge_path.cuh"
#include "reducelab/segmented/warp/warp_merge_path.cuh"

namespace reducelab::segmented::kernels {

/// The number of segments of a launch: known on the host, or (reduce_by_key) counted on the device, where the count is
/// that of the offsets DeviceSelect wrote (the runs' heads and the end of the input: S + 1).
struct segment_count {
  long long host = 0;
  const long long* offsets_on_device = nullptr;
  __device__ __forceinline__ long long resolve() const { return offsets_on_device != nullptr ? *offsets_on_device - 1 : host; }
};

template <class PolicyT, agent::element_map Map, class OpT, class T, class OffsetT, class BeginT>
__global__ void __launch_bounds__(PolicyT::block_threads, PolicyT::min_blocks_per_sm)
    merge_path_segments(const T* __restrict__ in, const OffsetT* offsets, const BeginT* begins, segment_count count,
                        T* out, long long* carry_segment, T* carry_value, OpT op) {
  using storage_t = agent::block_storage<PolicyT, T, OpT, Map>;
  __shared__ storage_t storage;
  __shared__ path_coord stretch[2];

  agent::segment_source<OffsetT, BeginT> src;
  src.offsets = offsets;
  src.begins = begins;
  src.num_segments = count.resolve();
  src.origin = src.num_segments > 0 ? static_cast<long long>(offsets[0]) : 0;
  const long long last = src.num_segments > 0 ? static_cast<long long>(offsets[src.num_segments]) : 0;
  src.num_elements = last > src.origin ? last - src.origin : 0;  // decreasing offsets are outside the contract

  const long long total = src.num_segments + src.num_elements;
  const diagonal_range range = block_diagonals(blockIdx.x, gridDim.x, total, PolicyT::tile_steps);
  if (range.first == range.last) {  // past the end of the path: carries nothing
    if (threadIdx.x == 0) {
      carry_segment[blockIdx.x] = src.num_segments;
      carry_value[blockIdx.x] = identity_of<OpT, T>();
    }
    return;
  }
  const int warp_id = threadIdx.x / 32;
  if (warp_id < 2) {  // two warps find the stretch's two ends at once
    const path_coord c = warp::merge_path_search(
        warp_id == 0 ? range.first : range.last, [src](long long x) { return src.end(x); }, src.num_segments,
        src.num_elements);
    if (threadIdx.x % 32 == 0) stretch[warp_id] = c;
  }
  __syncthreads();
  const path_coord from = stretch[0], to = stretch[1];
  // Long segments on average: segment by segment; short ones: merge-path tiles (agent/segment_pieces.cuh says why).
  const long long average = (to.element - from.element) / (to.segment - from.segment + 1);
  const T carry = average >= PolicyT::pieces_min_average
                      ? agent::reduce_pieces_by_average<PolicyT, Map>(in, src, from, to, out, op, average, storage)
                      : agent::walk_stretch<PolicyT, Map>(in, src, from, to, out, op, storage);
  if (threadIdx.x == 0) {
    carry_segment[blockIdx.x] = to.segment;
    carry_value[blockIdx.x] = carry;
  }
}

template <int Threads, class OpT, class T>
__global__ void __launch_bounds__(Threads)
    fix_up_carries(const long long* carry_segment, const T* carry_value, long long count, T* out, OpT op) {
  // Raw bytes: a __shared__ object of a value type with default member initializers would not compile.
  using storage_t = segmented::block::scan_storage<T, Threads>;
  __shared__ alignas(16) unsigned char raw[sizeof(storage_t)];
  storage_t& storage = *reinterpret_cast<storage_t*>(raw);
  const long long per_thread = (count + Threads - 1) / Threads;
  const long long first = threadIdx.x * per_thread < count ? threadIdx.x * per_thread : count;
  const long long last = count - first > per_thread ? first + per_thread : count;

  // This thread's run of carries as one stretch: did it open a new segment's run, and what it holds of the last.
  flagged<T> mine{identity_of<OpT, T>(), false};
  for (long long c = first; c < last; ++c) mine = then(mine, flagged<T>{carry_value[c], opens_run(carry_segment, c)}, op);
  flagged<T> before, total;
  segmented::block::exclusive_scan<Threads>(mine, identity_of<OpT, T>(), op, storage, before, total);

  T running = before.value;  // the carries before this thread's first, of the segment in progress there
  for (long long c = first; c < last; ++c) {
    running = opens_run(carry_segment, c) ? carry_value[c] : op(running, carry_value[c]);
    if (needs_prefix(carry_segment, c, count)) {
      const long long s = carry_segment[c];
      out[s] = op(running, out[s]);
    }
  }
}

template <class KeyT, class OffsetT, class NumRunsT>
__global__ void gather_run_keys(const KeyT* __restrict__ keys, const OffsetT* run_offsets, const long long* num_offsets,
                                KeyT* unique_keys, NumRunsT* num_runs) {
  const long long runs = *num_offsets - 1;
  if (blockIdx.x == 0 && threadIdx.x == 0) *num_runs = static_cast<NumRunsT>(runs);
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; r < runs; r += stride)
    unique_keys[r] = keys[run_offsets[r]];
}

template <class NumRunsT>
__global__ void write_count(NumRunsT* at, long long value) {
  *at = static_cast<NumRunsT>(value);
}

}  // namespace reducelab::segmented::kernels
