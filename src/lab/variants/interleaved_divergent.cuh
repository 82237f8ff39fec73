// Ladder step 2: interleaved_divergent (Harris's kernel 1). A shared-memory tree per block of 256 values:
// at level s the threads with tid % 2s == 0 combine sdata[tid] with sdata[tid + s].
//
// Fixes over step 1: no atomics. The block's values meet in a tree of log2(256) = 8 levels instead of a chain
// of 256 serialized atomics, any value type works (a plain shared-memory store, not a 64-bit CAS), and each
// combine takes its left operand from the lower index, so the result is in input order: non-commutative
// functors are served and the result is reproducible. Cannot serve: nothing is refused; it is slow because
// the `tid % 2s` branch leaves most lanes of each warp idle and % costs many instructions (step 3).
// One value per thread, so a pass leaves n / 256 partials; the same kernel runs again over them until one
// value is left (variants/ladder_passes.cuh).
#pragma once

#include "lab/kernels/interleaved_divergent.cuh"
#include "lab/variants/ladder_passes.cuh"
#include "lab/variants/variant.hpp"

namespace reducelab::variants {

struct interleaved_divergent : ladder::tile_per_block_step<interleaved_divergent> {
  static constexpr const char* name = "interleaved_divergent";
  static constexpr const char* summary =
      "step 2 (Harris 1): shared-memory tree, interleaved addressing, divergent tid % 2s test";
  static constexpr variant_traits traits = {/*ladder_step*/ 2, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
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
    return &kernels::interleaved_divergent<policy::block_threads, OpT, T>;
  }
};

}  // namespace reducelab::variants
