// Segmented step 3 - block_per_segment: one block per segment, CUB's shape (kernels/block_per_segment.cuh).
// Fixes over step 2: a long segment gets a whole block's loads in flight (8 warps) instead of one warp's.
// Commutative functors take block::reduce_range's striped algorithm, others its in-order warp tiles. Cannot
// serve well: short segments (a block of 256 threads per segment of a few items, mostly idle). Nothing is refused.
#pragma once

#include "lab/segmented/kernels/block_per_segment.cuh"
#include "lab/variants/variant.hpp"
#include "reducelab/core/error.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace reducelab::segmented::variants {

struct block_per_segment {
  static constexpr const char* name = "block_per_segment";
  static constexpr const char* summary =
      "one block per segment (CUB's shape): a long segment gets 8 warps' loads in flight instead of one warp's";
  static constexpr variant_traits traits = {/*ladder_step*/ 3, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ true, /*deterministic*/ true};
  struct policy {
    static constexpr int block_threads = 256;  // as CUB on sm_90 (its Policy600 SegmentedReducePolicy)
    template <class OpT>
    static constexpr block::range_algorithm algorithm = block::default_range_algorithm<OpT>;
  };

  template <class OpT, class T, class OffsetT>
  static void run(const T* in, const OffsetT* begin, const OffsetT* end, std::size_t num_segments, T* out, OpT op,
                  cudaStream_t stream) {
    if (num_segments == 0) return;
    constexpr int threads = policy::block_threads;
    kernels::block_per_segment<threads, policy::algorithm<OpT>>
        <<<grid_for(num_segments, 1), threads, 0, stream>>>(in, begin, end, num_segments, out, op);
    CUDA_TRY_LAUNCH();
  }
};

}  // namespace reducelab::segmented::variants
