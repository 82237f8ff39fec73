// Ladder step 4: sequential_addressing (Harris's kernel 3). At level s = 128, 64, ..., 1 thread tid < s
// combines sdata[tid] with sdata[tid + s].
//
// Fixes over step 3: consecutive threads touch consecutive shared-memory words, so there are no bank
// conflicts. Cannot serve: non-commutative functors. Pairing tid with tid + s (rather than with a neighbour)
// reorders the operands - value 0 meets value 128 first - so affine_compose and other order-dependent functors
// are refused. Still deterministic: the tree's shape is fixed. Half of the threads are idle from the first
// level on (step 5). Partials are reduced by further passes of the same kernel (variants/ladder_passes.cuh).
#pragma once

#include "lab/kernels/sequential_addressing.cuh"
#include "lab/variants/ladder_passes.cuh"
#include "lab/variants/variant.hpp"

namespace reducelab::variants {

struct sequential_addressing : ladder::tile_per_block_step<sequential_addressing> {
  static constexpr const char* name = "sequential_addressing";
  static constexpr const char* summary =
      "step 4 (Harris 3): sequential addressing, tid with tid + s: no bank conflicts, commutative only";
  static constexpr variant_traits traits = {/*ladder_step*/ 4, /*needs_commutative*/ true, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ true,
                                            /*preserves_order*/ false, /*deterministic*/ true};
  struct policy {
    // Harris's block size, the same for every ladder step so that the steps compare like for like.
    static constexpr int block_threads = 256;
    static constexpr std::size_t tile_items = block_threads;  // one value per thread (the kernel's design)
    static constexpr std::size_t max_blocks = ladder::max_grid_x;
    static_assert((block_threads & (block_threads - 1)) == 0, "the tree halves the block: a power of two");
  };

  template <class OpT, class T>
  static constexpr auto kernel() {
    return &kernels::sequential_addressing<policy::block_threads, OpT, T>;
  }
};

}  // namespace reducelab::variants
