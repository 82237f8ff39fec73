// Ladder step 5: first_add_during_load (Harris's kernel 4). Each thread loads in[tid] and in[tid + 256] of a
// 512-value tile and combines them before the store to shared memory; then step 4's tree.
//
// Fixes over step 4: no thread is idle at the first combine, and half as many blocks cover the input (each
// pass shrinks n by 512 rather than 256). Cannot serve: non-commutative functors (tid meets tid + 256, then
// tid + s). What it still wastes: the levels with s <= 32 run on one warp but pay a __syncthreads and the
// loop each (step 6). Partials are reduced by further passes of the same kernel (variants/ladder_passes.cuh).
#pragma once

#include "lab/kernels/first_add_during_load.cuh"
#include "lab/variants/ladder_passes.cuh"
#include "lab/variants/variant.hpp"

namespace reducelab::variants {

struct first_add_during_load : ladder::tile_per_block_step<first_add_during_load> {
  static constexpr const char* name = "first_add_during_load";
  static constexpr const char* summary =
      "step 5 (Harris 4): each thread combines two values while loading, half the blocks";
  static constexpr variant_traits traits = {/*ladder_step*/ 5, /*needs_commutative*/ true, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ true,
                                            /*preserves_order*/ false, /*deterministic*/ true};
  struct policy {
    // Harris's block size, the same for every ladder step so that the steps compare like for like.
    static constexpr int block_threads = 256;
    static constexpr std::size_t tile_items = 2 * block_threads;  // two values per thread (the kernel's design)
    static constexpr std::size_t max_blocks = ladder::max_grid_x;
    static_assert((block_threads & (block_threads - 1)) == 0, "the tree halves the block: a power of two");
  };

  template <class OpT, class T>
  static constexpr auto kernel() {
    return &kernels::first_add_during_load<policy::block_threads, OpT, T>;
  }
};

}  // namespace reducelab::variants
