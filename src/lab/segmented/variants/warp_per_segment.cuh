// Segmented step 2 - warp_per_segment: one warp per segment (kernels/warp_per_segment.cuh). Fixes over step 1:
// a warp's loads are coalesced (tiles staged through shared memory, folded in input order) and a long segment
// is read by 32 lanes, not one. Cannot serve well: segments much shorter than 32 items leave most lanes idle;
// segments of many thousands of items get only one warp's loads in flight. Nothing is refused.
#pragma once

#include "lab/segmented/kernels/warp_per_segment.cuh"
#include "lab/variants/variant.hpp"
#include "reducelab/core/error.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace reducelab::segmented::variants {

struct warp_per_segment {
  static constexpr const char* name = "warp_per_segment";
  static constexpr const char* summary =
      "one warp per segment: coalesced tiles staged through shared memory, folded in order (vs one thread per segment)";
  static constexpr variant_traits traits = {/*ladder_step*/ 2, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ true, /*deterministic*/ true};
  struct policy {
    static constexpr int block_threads = 256;  // 8 warps, 8 segments per block
  };

  template <class OpT, class T, class OffsetT>
  static void run(const T* in, const OffsetT* begin, const OffsetT* end, std::size_t num_segments, T* out, OpT op,
                  cudaStream_t stream) {
    if (num_segments == 0) return;
    constexpr int threads = policy::block_threads;
    kernels::warp_per_segment<threads>
        <<<grid_for(num_segments, threads / 32), threads, 0, stream>>>(in, begin, end, num_segments, out, op);
    CUDA_TRY_LAUNCH();
  }
};

}  // namespace reducelab::segmented::variants
