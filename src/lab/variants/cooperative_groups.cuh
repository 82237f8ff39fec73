// Variant, ladder step 11: step 9's two-launch structure written with cooperative groups.
// Fixes over step 10: no atomics, so any value size and a deterministic result again, and the warp and block
// steps are named objects (cg::thread_block, cg::tiled_partition<32>) with cg::reduce doing the warp tree:
// no hand-written shuffles, masks or lane arithmetic. cg::reduce picks the hardware redux instruction for
// plus/min/max/and/or/xor over 32-bit integers on sm_80+ and a shuffle butterfly otherwise (see the kernel).
// Cannot serve: non-commutative functors (grid-stride loop, and cg::reduce's butterfly reorders lanes).
#pragma once

#include "lab/kernels/cooperative_groups.cuh"
#include "lab/variants/grid_stride_launch.cuh"
#include "lab/variants/variant.hpp"

#include <algorithm>

namespace reducelab::variants {

struct cooperative_groups : grid_stride_two_launch_step<cooperative_groups> {
  static constexpr const char* name = "cooperative_groups";
  static constexpr const char* summary =
      "grid-stride loop, cg::reduce over tiled_partition<32> (redux for 32-bit integer builtins), two launches";
  static constexpr variant_traits traits = {/*ladder_step*/ 11, /*needs_commutative*/ true, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ false, /*deterministic*/ true};
  struct policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;  // 8 x 256 = 2048 threads: a full Hopper SM, loads in flight
  };

  // Per pass: the per-thread chain, a 5-level tile tree, a 5-level tree over the warps (padded to 32 lanes).
  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    constexpr std::size_t threads = policy::block_threads;
    const std::size_t grid = grid_size<OpT, T>(n);
    const std::size_t first = ceil_div<std::size_t>(n, grid * threads) + 10;
    const std::size_t second = grid > 1 ? ceil_div<std::size_t>(grid, threads) + 10 : 0;
    return first + second;
  }

  template <class OpT, class T>
  static constexpr auto kernel() {
    return &kernels::cooperative_groups_reduce<policy::block_threads, OpT, T>;
  }
};

}  // namespace reducelab::variants
