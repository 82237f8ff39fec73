// Variant, ladder step 8: Harris's kernel 7, many inputs per thread.
// Fixes over step 7: a block no longer reduces just its own 2*B inputs, with a grid that grows with n; a grid
// sized to the device (sm_count * blocks_per_sm) loops over the input, so the per-block tree, its barriers and
// the partial written per block are paid once per many inputs instead of once per 2*B, and the second pass
// is one block over a few hundred partials. The tree is unrolled completely (block size a template argument).
// Cannot serve: non-commutative functors (thread i folds i, i + G, i + 2G, ...: operands leave input order).
#pragma once

#include "lab/kernels/many_per_thread.cuh"
#include "lab/variants/grid_stride_launch.cuh"
#include "lab/variants/variant.hpp"

#include <algorithm>

namespace reducelab::variants {

struct many_per_thread : grid_stride_two_launch_step<many_per_thread> {
  static constexpr const char* name = "many_per_thread";
  static constexpr const char* summary =
      "step 8 (Harris 7): device-sized grid, grid-stride loop folds many inputs per thread, unrolled shared tree";
  static constexpr variant_traits traits = {/*ladder_step*/ 8, /*needs_commutative*/ true, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ true,
                                            /*preserves_order*/ false, /*deterministic*/ true};
  struct policy {
    static constexpr int block_threads = 256;  // Harris's choice; a power of two (the tree halves the block)
    static constexpr int blocks_per_sm = 8;    // 8 x 256 = 2048 threads: a full Hopper SM
  };

  // Each thread combines two values before its loop, so a block covers 2 * block_threads of a small input.
  template <class OpT, class T>
  static std::size_t grid_size(std::size_t n) {
    return device_sized_grid<policy>(ceil_div<std::size_t>(n, 2));
  }

  // Per thread: one pair combine, then one combine per loop trip; then log2(B) tree levels; the same again
  // in the second pass over `grid` partials.
  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    constexpr std::size_t threads = policy::block_threads;
    const std::size_t grid = grid_size<OpT, T>(n);
    const std::size_t first = ceil_div<std::size_t>(n, 2 * threads * grid) + 1 + tree_depth(threads);
    const std::size_t second = grid > 1 ? ceil_div<std::size_t>(grid, 2 * threads) + 1 + tree_depth(threads) : 0;
    return first + second;
  }

  template <class OpT, class T>
  static constexpr auto kernel() {
    return &kernels::many_per_thread<policy::block_threads, OpT, T>;
  }
};

}  // namespace reducelab::variants
