// Ladder step 3: interleaved_strided (Harris's kernel 2). The tree of step 2 with thread tid working on index
// 2 * s * tid.
//
// Fixes over step 2: the active threads are contiguous, so whole warps are either busy or idle - no divergent
// branch inside a warp - and the % is gone. The pairs are the same as step 2's (k with k + s, k a multiple of
// 2s), so the result is still in input order. Cannot serve: nothing is refused; the strided addresses of the
// active threads fall into the same shared-memory banks and serialize (step 4 fixes that).
// Partials are reduced by further passes of the same kernel (variants/ladder_passes.hpp).
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/kernels/interleaved_strided.cuh"
#include "reducelab/variants/ladder_passes.hpp"
#include "reducelab/variants/variant.hpp"

namespace reducelab::variants {

struct interleaved_strided {
  static constexpr const char* name = "interleaved_strided";
  static constexpr const char* summary =
      "step 3 (Harris 2): interleaved tree with strided index 2*s*tid: no divergence, bank conflicts";
  static constexpr variant_traits traits = {/*ladder_step*/ 3, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
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
                         kernels::interleaved_strided<threads>
                             <<<grid, threads, 0, stream>>>(src, count, shape.tiles_per_block, dst, op);
                         CUDA_TRY_LAUNCH();
                       });
  }
};

}  // namespace reducelab::variants
