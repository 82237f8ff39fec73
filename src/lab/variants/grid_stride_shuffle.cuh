// Ladder step 9 - warp shuffles. Fixes over step 8: the shared-memory tree and its __syncthreads() are
// replaced by register shuffles within each warp; only one value per warp goes through shared memory.
// Two launches (block partials, then one block over them).
// The foundation kernel: any functor, any trivially copyable type, order kept for non-commutative functors.
#pragma once

#include "lab/kernels/grid_stride_shuffle.cuh"
#include "lab/variants/grid_stride_launch.cuh"
#include "lab/variants/variant.hpp"

#include <algorithm>

namespace reducelab::variants {

struct grid_stride_shuffle : grid_stride_two_launch_step<grid_stride_shuffle> {
  static constexpr const char* name = "grid_stride_shuffle";
  static constexpr const char* summary =
      "grid-stride loop, shuffle tree per warp, shared-memory combine of warps, second launch over block results";
  static constexpr variant_traits traits = {/*ladder_step*/ 9, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ true, /*deterministic*/ true};
  struct policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;  // 8 x 256 = 2048 threads: a full Hopper SM, loads in flight
  };

  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    const std::size_t grid = grid_size<OpT, T>(n);
    const std::size_t per_thread = ceil_div<std::size_t>(n, grid * policy::block_threads);
    const std::size_t second = ceil_div<std::size_t>(grid, policy::block_threads);
    return per_thread + tree_depth(policy::block_threads) + second + tree_depth(policy::block_threads);
  }

  template <class OpT, class T>
  static constexpr auto kernel() {
    return &kernels::grid_stride_shuffle<policy::block_threads, OpT, T>;
  }
};

}  // namespace reducelab::variants
