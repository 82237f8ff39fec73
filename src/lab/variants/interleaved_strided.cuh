// Ladder step 3: interleaved_strided (Harris's kernel 2). The tree of step 2 with thread tid working on index
// 2 * s * tid.
//
// Fixes over step 2: the active threads are contiguous, so whole warps are either busy or idle - no divergent
// branch inside a warp - and the % is gone. The pairs are the same as step 2's (k with k + s, k a multiple of
// 2s), so the result is still in input order. Cannot serve: nothing is refused; the strided addresses of the
// active threads fall into the same shared-memory banks and serialize (step 4 fixes that).
// Partials are reduced by further passes of the same kernel (variants/ladder_passes.cuh).
#pragma once

#include "lab/kernels/interleaved_strided.cuh"
#include "lab/variants/ladder_passes.cuh"
#include "lab/variants/variant.hpp"

namespace reducelab::variants {

struct interleaved_strided : ladder::tile_per_block_step<interleaved_strided> {
  static constexpr const char* name = "interleaved_strided";
  static constexpr const char* summary =
      "step 3 (Harris 2): interleaved tree with strided index 2*s*tid: no divergence, bank conflicts";
  static constexpr variant_traits traits = {/*ladder_step*/ 3, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ true,
                                            /*preserves_order*/ true, /*deterministic*/ true};
  struct policy {
    // Harris's block size, the same for every ladder step so that the steps compare like for like.
    static constexpr int block_threads = 256;
    static constexpr std::size_t tile_items = block_threads;  // one value per thread (the kernel's design)
    static constexpr std::size_t max_blocks = ladder::max_grid_x;
    static_assert((block_threads & (block_threads - 1)) == 0, "the tree halves the block: a power of two");
  };

  template <class OpT, class T>
  static constexpr auto kernel() {
    return &kernels::interleaved_strided<policy::block_threads, OpT, T>;
  }
};

}  // namespace reducelab::variants
