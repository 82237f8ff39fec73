// The segmented ladder, in order, and the reduce-by-key variants: reading them top to bottom is the story of
// matching the unit of work (thread, warp, block, lane group) to the segment length. Adding one: a kernel
// header under ../kernels/, a host header here, one line below.
//
// A segmented variant is a struct with
//   static constexpr const char* name, summary;   summary: what it fixes over the step before
//   static constexpr variant_traits traits;       as for the scalar ladder (lab/variants/variant.hpp)
//   struct policy;                                 its tuning numbers
//   template <class OpT, class T, class OffsetT>
//   static void run(const T* in, const OffsetT* begin, const OffsetT* end, std::size_t num_segments, T* out,
//                   OpT op, cudaStream_t stream);
// over CUB's offsets convention: out[s] = in[begin[s]] op ... op in[end[s] - 1] in input order, the identity
// when end[s] <= begin[s] (kernels/segments.cuh). A reduce-by-key variant has instead
//   template <class OpT, class K, class T>
//   static void run(const K* keys, const T* values, std::size_t n, K* unique_keys_out, T* values_out,
//                   std::int64_t* num_runs_out /* device */, OpT op, cudaStream_t stream);
// Both are stream-ordered and need no caller workspace.
#pragma once

#include "lab/segmented/variants/block_per_segment.cuh"
#include "lab/segmented/variants/key_labelled_warp.cuh"
#include "lab/segmented/variants/subwarp_per_segment.cuh"
#include "lab/segmented/variants/thread_per_segment.cuh"
#include "lab/segmented/variants/warp_per_segment.cuh"
#include "reducelab/core/type_list.hpp"

namespace reducelab::segmented {

using all_segmented_variants = type_list<variants::thread_per_segment,       // 1 one thread per segment
                                         variants::warp_per_segment,         // 2 one warp, coalesced tiles
                                         variants::block_per_segment,        // 3 one block (CUB's shape)
                                         variants::subwarp_per_segment<2>,   // 4 2 lanes per segment
                                         variants::subwarp_per_segment<4>,   // 4 4 lanes
                                         variants::subwarp_per_segment<8>,   // 4 8 lanes
                                         variants::subwarp_per_segment<16>>; // 4 16 lanes

using all_reduce_by_key_variants = type_list<variants::key_labelled_warp>;  // 5 __match_any_sync runs

}  // namespace reducelab::segmented
