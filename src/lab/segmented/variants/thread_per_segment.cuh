// Segmented step 1 - thread_per_segment: one thread folds one segment (kernels/thread_per_segment.cuh).
// The starting point: the obvious kernel, right for segments of 1-4 items. Cannot serve well: long segments
// (uncoalesced loads, one long segment stalls its warp). Nothing is refused; order kept for any functor.
#pragma once

#include "lab/segmented/kernels/thread_per_segment.cuh"
#include "lab/variants/variant.hpp"
#include "reducelab/core/error.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace reducelab::segmented::variants {

struct thread_per_segment {
  static constexpr const char* name = "thread_per_segment";
  static constexpr const char* summary =
      "one thread folds one segment left to right: the starting point, right for 1-4 items, uncoalesced on long ones";
  static constexpr variant_traits traits = {/*ladder_step*/ 1, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ true, /*deterministic*/ true};
  struct policy {
    static constexpr int block_threads = 256;
  };

  template <class OpT, class T, class OffsetT>
  static void run(const T* in, const OffsetT* begin, const OffsetT* end, std::size_t num_segments, T* out, OpT op,
                  cudaStream_t stream) {
    if (num_segments == 0) return;
    constexpr int threads = policy::block_threads;
    kernels::thread_per_segment<threads>
        <<<grid_for(num_segments, threads), threads, 0, stream>>>(in, begin, end, num_segments, out, op);
    CUDA_TRY_LAUNCH();
  }
};

}  // namespace reducelab::segmented::variants
