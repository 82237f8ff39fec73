// Variant, ladder step 10: shuffle reduction finished with one atomic per block.
// Fixes over shuffle_atomic_per_warp: one atomic per block instead of one per warp (8x fewer with 256
// threads) for the price of one shared-memory step and a barrier in the block; still one launch (after a
// one-thread launch that stores the identity) and no workspace.
// Cannot serve: non-commutative functors (grid-stride loop, atomics landing in any order); values wider than
// 8 bytes (the widest compare-and-swap is 64 bits). Not deterministic: floating-point sums depend on the order
// in which the atomics land.
#pragma once

#include "lab/kernels/shuffle_atomic.cuh"
#include "lab/variants/shuffle_atomic_per_warp.cuh"  // the host side both step-10 variants share
#include "lab/variants/variant.hpp"

namespace reducelab::variants {

struct shuffle_atomic_per_block : detail::shuffle_atomic_step<shuffle_atomic_per_block> {
  static constexpr const char* name = "shuffle_atomic_per_block";
  static constexpr const char* summary =
      "grid-stride loop, shuffle tree per block, one atomic combine into the output per block";
  static constexpr variant_traits traits = {/*ladder_step*/ 10, /*needs_commutative*/ true, /*max_value_bytes*/ 8,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ false, /*deterministic*/ false};
  struct policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;  // 8 x 256 = 2048 threads: a full Hopper SM, loads in flight
  };

  template <class OpT, class T>
  static constexpr auto kernel() {
    return &kernels::shuffle_atomic_per_block<policy::block_threads, OpT, T>;
  }
};

}  // namespace reducelab::variants
