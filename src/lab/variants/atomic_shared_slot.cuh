// Ladder step 1: atomic_shared_slot. Every thread combines its one element into a single shared-memory slot
// per block with an atomic (a native atomicAdd/Max/And... where the hardware has one, a compare-and-swap loop
// otherwise: see atomic/atomic_combine.cuh); thread 0 writes the slot as the block's partial, and the same
// kernel runs again over the partials until one value is left (variants/ladder_passes.cuh).
//
// The baseline the ladder improves on: correct, but the BlockThreads atomics on one address serialize, and a
// CAS loop retries under contention, so a block spends its time queueing rather than loading.
// Cannot serve: non-commutative functors (atomics land in any order), values over 8 bytes (no wider CAS), and
// it gives no bitwise-reproducible floating-point result (the landing order changes from run to run).
#pragma once

#include "lab/kernels/atomic_shared_slot.cuh"
#include "lab/variants/ladder_passes.cuh"
#include "lab/variants/variant.hpp"

#include <algorithm>

namespace reducelab::variants {

struct atomic_shared_slot : ladder::tile_per_block_step<atomic_shared_slot> {
  static constexpr const char* name = "atomic_shared_slot";
  static constexpr const char* summary =
      "step 1: every thread atomically combines its element into one shared slot per block; passes repeat";
  static constexpr variant_traits traits = {/*ladder_step*/ 1, /*needs_commutative*/ true, /*max_value_bytes*/ 8,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ false, /*deterministic*/ false};
  struct policy {
    // Harris's block size, the same for every ladder step so that the steps compare like for like.
    static constexpr int block_threads = 256;
    static constexpr std::size_t tile_items = block_threads;  // one value per thread
    static constexpr std::size_t max_blocks = ladder::max_grid_x;
  };

  template <class OpT, class T>
  static constexpr auto kernel() {
    return &kernels::atomic_shared_slot<policy::block_threads, OpT, T>;
  }

  /// Atomics serialize in any order, so within a block every value can sit at any place of one chain: a
  /// pass adds as many combines as a block takes values.
  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    return ladder::passes_depth(n, policy::tile_items, policy::max_blocks,
                                [](std::size_t count, const ladder::pass_shape& shape) {
                                  return std::min(count, shape.tiles_per_block * policy::block_threads);
                                });
  }
};

}  // namespace reducelab::variants
