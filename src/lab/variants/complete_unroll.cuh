// Ladder step 7: complete_unroll (Harris's kernel 6). The block size is a template parameter and every tree
// level is written out behind `if constexpr (BlockThreads >= ...)`.
//
// Fixes over step 6: the levels above the last warp lose their loop counter and run-time tests of s against
// blockDim; only the needed __syncthreads remain. Cannot serve: non-commutative functors (tid / tid + s pairs,
// as steps 4-6). Each thread still loads only two values, and the grid is n / 512 blocks, so the tree and the
// extra passes still dominate (many values per thread is the next step). Partials are reduced by further
// passes of the same kernel (variants/ladder_passes.cuh).
#pragma once

#include "lab/kernels/complete_unroll.cuh"
#include "lab/variants/ladder_passes.cuh"
#include "lab/variants/variant.hpp"

namespace reducelab::variants {

struct complete_unroll : ladder::tile_per_block_step<complete_unroll> {
  static constexpr const char* name = "complete_unroll";
  static constexpr const char* summary =
      "step 7 (Harris 6): block size as template parameter, every tree level unrolled at compile time";
  static constexpr variant_traits traits = {/*ladder_step*/ 7, /*needs_commutative*/ true, /*max_value_bytes*/ 0,
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
    return &kernels::complete_unroll<policy::block_threads, OpT, T>;
  }
};

}  // namespace reducelab::variants
