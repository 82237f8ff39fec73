// Ladder step 4: sequential_addressing (Harris's kernel 3). At level s = 128, 64, ..., 1 thread tid < s
// combines sdata[tid] with sdata[tid + s].
//
// Fixes over step 3: consecutive threads touch consecutive shared-memory words, so there are no bank
// conflicts. Cannot serve: non-commutative functors. Pairing tid with tid + s (rather than with a neighbour)
// reorders the operands - value 0 meets value 128 first - so affine_compose and other order-dependent functors
// are refused. Still deterministic: the tree's shape is fixed. Half of the threads are idle from the first
// level on (step 5). Partials are reduced by further passes of the same kernel (variants/ladder_passes.hpp).
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/kernels/sequential_addressing.cuh"
#include "reducelab/variants/ladder_passes.hpp"
#include "reducelab/variants/variant.hpp"

namespace reducelab::variants {

struct sequential_addressing {
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
  static std::size_t grid_size(std::size_t n) {
    return ladder::shape_pass(n, policy::tile_items, policy::max_blocks).grid;
  }

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    return ladder::workspace_items(n, policy::tile_items, policy::max_blocks) * sizeof(T);
  }

  /// Per pass: the tile's tree (ceil(log2(tile_items)) levels) plus the chain of a block's tiles.
  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    return ladder::passes_depth(n, policy::tile_items, policy::max_blocks,
                                [](std::size_t, const ladder::pass_shape& shape) {
                                  return ladder::tree_pass_depth(policy::tile_items, shape);
                                });
  }

  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, OpT op, cudaStream_t stream) {
    constexpr int threads = policy::block_threads;
    ladder::run_passes(in, n, out, static_cast<T*>(workspace), policy::tile_items, policy::max_blocks,
                       [&](const T* src, std::size_t count, const ladder::pass_shape& shape, T* dst) {
                         const auto grid = static_cast<unsigned>(shape.grid);
                         kernels::sequential_addressing<threads>
                             <<<grid, threads, 0, stream>>>(src, count, shape.tiles_per_block, dst, op);
                         CUDA_TRY_LAUNCH();
                       });
  }
};

}  // namespace reducelab::variants
