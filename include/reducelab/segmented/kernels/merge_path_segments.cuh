// The kernels of reducelab::segmented_reduce and reduce_by_key.
//
//   merge_path_segments  the main pass: a fixed grid of blocks splits the path of E elements and S segment ends
//                        (segmented/merge_path.cuh) into equal stretches; each block finds its two ends with a warp
//                        search over the offsets, walks its stretch (in tiles, agent/merge_path_block.cuh; segment
//                        by segment when they are long, agent/segment_pieces.cuh; or as one stream when they are
//                        longer still, agent/stream_pieces.cuh), writes the segments that end inside it, and
//                        publishes its carry-out (what it holds of the segment in progress at its end); a block
//                        that ends a segment begun in an earlier block looks back over the earlier blocks' carries
//                        (segmented/grid/segment_carries.cuh), so one launch finishes every segment. On the
//                        one-array path it follows the short-segment pass (kernels/short_segments.cuh), which takes
//                        launches whose segments are short on average.
//   write_count          reduce_by_key with n == 0: the run count alone.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/segmented/agent/listed_segments.cuh"
#include "reducelab/segmented/agent/merge_path_block.cuh"
#include "reducelab/segmented/agent/segment_pieces.cuh"
#include "reducelab/segmented/agent/stream_pieces.cuh"
#include "reducelab/segmented/grid/segment_carries.cuh"
#include "reducelab/segmented/kernels/short_segments.cuh"
#include "reducelab/segmented/merge_path.cuh"
#include "reducelab/segmented/warp/warp_merge_path.cuh"

namespace reducelab::segmented::kernels {

/// The number of segments of a launch, known on the host, and S / grid (where the search's early candidates of a
/// block start, segmented/merge_path.cuh; a product on the device, where a 64-bit division had cost the kernel
/// 200-600 bytes of spills).
struct segment_count {
  long long host = 0;
  double per_block = 0;
  __device__ __forceinline__ long long resolve() const { return host; }
};

/// The main pass's body (merge_path_segments below).
template <class PolicyT, agent::element_map Map, class OpT, class T, class OffsetT, class BeginT>
__device__ __forceinline__ void merge_path_pass(const T* __restrict__ in, const OffsetT* offsets, const BeginT* begins,
                                                segment_count count, T* out, const grid::carry_slots<T>& carries,
                                                short_pass_flag short_pass, OpT op) {
  using storage_t = agent::block_storage<PolicyT, T, OpT, Map>;
  __shared__ storage_t storage;
  __shared__ path_coord stretch[2];
  __shared__ long long stretch_first_start;

  agent::segment_source<OffsetT, BeginT> src;
  src.offsets = offsets;
  src.begins = begins;
  src.num_segments = count.resolve();
  // The two search warps' early candidates (segmented/merge_path.cuh): the ends around block * S / grid for the
  // stretch's start (warp 0) and around the next block's for its end (warp 1), in flight with offsets[0] and
  // offsets[S]. Only in the one-array layout and for commutative functors: there, with the look-back and stream-walk
  // changes of the same stop, long segments ran up to 3 % faster at 2^26 and up to 11 % at 2^24 (H100 and H200,
  // results/*-segmented/early-candidates.txt). In the remapped layout's kernels ptxas spilled up to 212 bytes more.
  // affine_compose (not commutative) keeps the machine code it had: with the early reads and warp_id declared above
  // the short-pass branch it ran 0.95x at uniform:1024 on the H100 (0.985-1.028x elsewhere); warp_id's place alone gave
  // the 0.95x (below), and the early reads alone are not measured for it.
  constexpr bool early_reads = Map == agent::element_map::contiguous && is_commutative_v<OpT>;
  long long early_from = -1, early_raw = 0;
  if (early_reads && threadIdx.x < 64 && src.num_segments > 0) {
    const long long x0 = static_cast<long long>(static_cast<double>(blockIdx.x + threadIdx.x / 32) * count.per_block);
    early_from = early_first(x0, src.num_segments);
    const long long x = early_from + threadIdx.x % 32;
    if (x < src.num_segments) early_raw = static_cast<long long>(offsets[x + 1]);
  }
  src.origin = src.num_segments > 0 ? static_cast<long long>(offsets[0]) : 0;
  const long long last = src.num_segments > 0 ? static_cast<long long>(offsets[src.num_segments]) : 0;
  src.num_elements = last > src.origin ? last - src.origin : 0;  // decreasing offsets are outside the contract
  // Where the short-segment pass took the launch (segments short on average), it has written every segment of up to
  // its plan's max_length elements: wait for it to finish, and leave unless it met a longer one; then walk the path as
  // always, but leave its segments alone (neither read nor written: segment_source::short_pass_owns).
  if (short_pass.word != nullptr) {
    const short_pass_plan plan = decide_short_pass<T, OpT>(offsets, src.num_segments, short_pass);
    if (plan.max_length > 0) {
      wait_for_prerequisite_grid();
      const hand_back_words handed = read_hand_back(short_pass);
      if (!handed.raised) return;
      src.short_pass_length = plan.max_length;
      // A few segments handed back: the whole grid shares their elements alone (agent/listed_segments.cuh).
      if constexpr (Map == agent::element_map::contiguous) {
        // In the pieces walk's list of mid pieces, which no walk of this launch uses: a __shared__ of its own made the
        // kernel's shared memory 720-1088 bytes larger, and argmax over uniform:32 (no segment handed back) 0.91x.
        using listed_t = agent::listed_storage<hand_back_capacity>;
        static_assert(sizeof(listed_t) <= sizeof(storage.mid_pieces), "the hand-back list must fit the mid pieces");
        auto& listed = *reinterpret_cast<listed_t*>(storage.mid_pieces);
        if (handed.count >= 1 && handed.count <= hand_back_capacity) {
          agent::reduce_listed_segments<PolicyT>(in, offsets, read_listed_word(short_pass), handed.count, out,
                                                 carries, op, storage.range(), listed);
          return;
        }
      }
    }
  }

  // Ends weigh end_step_weight (segmented/tuning.hpp) only where a long stretch streams (stream_pieces.cuh): a
  // functor or layout that walks long segments piece by piece spends more per element there, and weighting the
  // ends hands those blocks more of them (affine_compose's giant layout took 1.06x as long at 2^24 on the H100).
  static_assert(PolicyT::end_step_weight >= 1, "segmented policy: end_step_weight must be at least 1");
  constexpr long long end_weight = agent::streamable<Map, T, OpT> ? PolicyT::end_step_weight : 1;
  const long long total = path_cost(src.num_segments, src.num_elements, end_weight);
  const diagonal_range range = block_diagonals(blockIdx.x, gridDim.x, total, PolicyT::tile_steps);
  if (range.first == range.last) return;  // past the end of the path: no block after it looks back at it
  // (warp_id declared here, not with the early reads above: declared before the short-pass branch, it changed the
  // machine code of affine_compose's kernel, which then ran 0.95x at uniform:1024 on the H100.)
  const int warp_id = threadIdx.x / 32;
  if (warp_id < 2) {  // two warps find the stretch's two ends at once
    const path_coord c = warp::merge_path_search(
        warp_id == 0 ? range.first : range.last, [src](long long x) { return src.end(x); }, src.num_segments,
        src.num_elements, end_weight, early_from, early_raw - src.origin);
    if (threadIdx.x % 32 == 0) {
      stretch[warp_id] = c;
      // Where the first segment starts, for the look-back after the walk: read now, while the search's candidates
      // around it are still in L1; after the walk it had been a round trip to L2 before the carry was published.
      // (With the early reads only, for the same reasons.)
      if (early_reads && warp_id == 0)
        stretch_first_start = c.segment < src.num_segments
                                  ? static_cast<long long>(src.offsets[c.segment]) - src.origin
                                  : src.num_elements;
    }
  }
  __syncthreads();
  const path_coord from = stretch[0], to = stretch[1];
  const long long average = (to.element - from.element) / (to.segment - from.segment + 1);
  // Long segments on average: as one stream when the functor and type allow, else segment by segment; short ones:
  // merge-path tiles (agent/segment_pieces.cuh and agent/stream_pieces.cuh say why). Functors and types that never
  // stream keep the selection as it was (their machine code is scheduled differently, with the same registers and
  // stack as before the stream walk; argmax's kernel, 0 bytes of stack, is the one that had spilled).
  // The tile walk knows nothing of the short-segment pass's segments: a launch handed back takes the pieces walks.
  const bool pieces = average >= PolicyT::pieces_min_average || src.short_pass_length > 0;
  T carry;
  if constexpr (agent::streamable<Map, T, OpT>) {
    carry = average >= PolicyT::stream_min_average && to.segment - from.segment < agent::max_stream_pieces
                ? agent::stream_pieces<PolicyT, Map>(in, src, from, to, out, op, storage)
            : pieces ? agent::reduce_pieces_by_average<PolicyT, Map>(in, src, from, to, out, op, average, storage)
                     : agent::walk_stretch<PolicyT, Map>(in, src, from, to, out, op, storage);
  } else {
    carry = pieces ? agent::reduce_pieces_by_average<PolicyT, Map>(in, src, from, to, out, op, average, storage)
                   : agent::walk_stretch<PolicyT, Map>(in, src, from, to, out, op, storage);
  }
  __syncthreads();  // this block's outputs are written (the look-back reads one of them back)
  const long long first_start = early_reads ? stretch_first_start
                                : from.segment < src.num_segments
                                    ? static_cast<long long>(src.offsets[from.segment]) - src.origin
                                    : src.num_elements;
  const long long block = blockIdx.x;
  if (threadIdx.x == 0) grid::publish_carry(carries, block, carry, !passes_through(from, to, first_start));
  // (the same in every thread; a segment the short-segment pass owns is written already)
  if (finishes_earlier_segment(from, to, first_start) && !src.short_pass_owns(from.segment)) {
    // This block's own part of its first segment, the output it wrote: read before the look-back, so that the load
    // overlaps it.
    const T own = threadIdx.x == 0 ? out[from.segment] : carry;
    const T before = grid::look_back<PolicyT::block_threads>(carries, block, op, storage.range().reduce);
    if (threadIdx.x == 0) out[from.segment] = op(before, own);
  }
}

/// `short_pass`: the flag of the short-segment pass launched just before this one (kernels/short_segments.cuh), or a
/// null word where none was.
template <class PolicyT, agent::element_map Map, class OpT, class T, class OffsetT, class BeginT>
__global__ void __launch_bounds__(PolicyT::block_threads, PolicyT::min_blocks_per_sm)
    merge_path_segments(const T* __restrict__ in, const OffsetT* offsets, const BeginT* begins, segment_count count,
                        T* out, grid::carry_slots<T> carries, short_pass_flag short_pass, OpT op) {
  merge_path_pass<PolicyT, Map>(in, offsets, begins, count, out, carries, short_pass, op);
  // Launched as the short-segment pass's programmatic dependent, this pass may start while that pass still runs (and,
  // where the segments are long, never waits for it). Its blocks wait for it before they leave, so that this pass
  // finishing means both have, and the work the caller puts on the stream next never overlaps the short pass. By
  // then its blocks have long left (each reads two offsets); a no-op in a stream-ordered launch.
  wait_for_prerequisite_grid();
}

template <class NumRunsT>
__global__ void write_count(NumRunsT* at, long long value) {
  *at = static_cast<NumRunsT>(value);
}

}  // namespace reducelab::segmented::kernels
