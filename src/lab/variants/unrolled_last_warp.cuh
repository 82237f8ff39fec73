// Ladder step 6: unrolled_last_warp (Harris's kernel 5). Step 5 with the last six levels (s = 32 ... 1) run by
// warp 0 alone, unrolled, without __syncthreads.
//
// Fixes over step 5: five fewer block-wide barriers and no loop overhead where only one warp works. Harris's
// `volatile` last warp assumed lockstep warps, which Volta's independent thread scheduling removed; here every
// level reads, __syncwarp()s, writes and __syncwarp()s (see kernels/unrolled_last_warp.cuh). Cannot serve:
// non-commutative functors (the same tid / tid + s pairs as step 4). Partials are reduced by further passes
// of the same kernel (variants/ladder_passes.cuh).
#pragma once

#include "lab/kernels/unrolled_last_warp.cuh"
#include "lab/variants/ladder_passes.cuh"
#include "lab/variants/variant.hpp"

namespace reducelab::variants {

struct unrolled_last_warp : ladder::tile_per_block_step<unrolled_last_warp> {
  static constexpr const char* name = "unrolled_last_warp";
  static constexpr const char* summary =
      "step 6 (Harris 5): last six tree levels unrolled in warp 0, explicit __syncwarp (no volatile)";
  static constexpr variant_traits traits = {/*ladder_step*/ 6, /*needs_commutative*/ true, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ true,
                                            /*preserves_order*/ false, /*deterministic*/ true};
  struct policy {
    // Harris's block size, the same for every ladder step so that the steps compare like for like.
    static constexpr int block_threads = 256;
    static constexpr std::size_t tile_items = 2 * block_threads;  // two values per thread (the kernel's design)
    static constexpr std::size_t max_blocks = ladder::max_grid_x;
    static_assert((block_threads & (block_threads - 1)) == 0, "the tree halves the block: a power of two");
    static_assert(block_threads >= 64, "the unrolled last warp reads sdata[lane + 32]");
  };

  template <class OpT, class T>
  static constexpr auto kernel() {
    return &kernels::unrolled_last_warp<policy::block_threads, OpT, T>;
  }
};

}  // namespace reducelab::variants
