// Variant, ladder step 8: Harris's kernel 7, many inputs per thread.
// Fixes over step 7: a block no longer reduces just its own 2*B inputs, with a grid that grows with n; a grid
// sized to the device (sm_count * blocks_per_sm) loops over the input, so the per-block tree, its barriers and
// the partial written per block are paid once per many inputs instead of once per 2*B, and the second pass
// is one block over a few hundred partials. The tree is unrolled completely (block size a template argument).
// Cannot serve: non-commutative functors (thread i folds i, i + G, i + 2G, ...: operands leave input order).
#pragma once

#include "reducelab/core/device_info.hpp"
#include "reducelab/core/error.hpp"
#include "reducelab/kernels/many_per_thread.cuh"
#include "reducelab/variants/variant.hpp"

#include <algorithm>

namespace reducelab::variants {

struct many_per_thread {
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

  template <class OpT, class T>
  static std::size_t grid_size(std::size_t n) {
    const std::size_t full = static_cast<std::size_t>(current_device().sm_count) * policy::blocks_per_sm;
    return std::max<std::size_t>(1, std::min(full, ceil_div<std::size_t>(n, 2 * policy::block_threads)));
  }

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    const std::size_t grid = grid_size<OpT, T>(n);
    return grid > 1 ? grid * sizeof(T) : 0;
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
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, OpT op, cudaStream_t stream) {
    constexpr int threads = policy::block_threads;
    const std::size_t grid = grid_size<OpT, T>(n);
    if (grid == 1) {
      kernels::many_per_thread<threads><<<1, threads, 0, stream>>>(in, n, out, op);
      CUDA_TRY_LAUNCH();
      return;
    }
    T* partials = static_cast<T*>(workspace);
    kernels::many_per_thread<threads><<<static_cast<unsigned>(grid), threads, 0, stream>>>(in, n, partials, op);
    CUDA_TRY_LAUNCH();
    kernels::many_per_thread<threads><<<1, threads, 0, stream>>>(partials, grid, out, op);
    CUDA_TRY_LAUNCH();
  }
};

}  // namespace reducelab::variants
