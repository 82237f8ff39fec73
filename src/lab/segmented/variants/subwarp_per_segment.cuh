// Segmented step 4 - subwarp_per_segment<G>: G = 2, 4, 8 or 16 lanes per segment, 32/G segments per warp
// (kernels/subwarp_per_segment.cuh). Fixes over steps 2-3: a warp or block per segment of 1-8 items leaves most
// lanes idle; a group of G lanes keeps the loads coalesced within the group and in order while a warp serves
// 32/G segments at once. Cannot serve well: segments much longer than G (a group reads G items per step).
// Nothing is refused; order kept for any functor.
#pragma once

#include "lab/segmented/kernels/subwarp_per_segment.cuh"
#include "lab/variants/variant.hpp"
#include "reducelab/core/error.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace reducelab::segmented::variants {

namespace detail {
template <int G>
constexpr const char* subwarp_name() {
  static_assert(G == 2 || G == 4 || G == 8 || G == 16, "subwarp_per_segment takes G = 2, 4, 8 or 16 lanes");
  if constexpr (G == 2) {
    return "subwarp_per_segment<2>";
  } else if constexpr (G == 4) {
    return "subwarp_per_segment<4>";
  } else if constexpr (G == 8) {
    return "subwarp_per_segment<8>";
  } else {
    return "subwarp_per_segment<16>";
  }
}
}  // namespace detail

template <int G>
struct subwarp_per_segment {
  static constexpr int lanes_per_segment = G;
  static constexpr const char* name = detail::subwarp_name<G>();
  static constexpr const char* summary =
      "G lanes per segment, 32/G segments per warp: tiny segments no longer leave a warp's other lanes idle";
  static constexpr variant_traits traits = {/*ladder_step*/ 4, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
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
    kernels::subwarp_per_segment<G, threads>
        <<<grid_for(num_segments, threads / G), threads, 0, stream>>>(in, begin, end, num_segments, out, op);
    CUDA_TRY_LAUNCH();
  }
};

}  // namespace reducelab::segmented::variants
