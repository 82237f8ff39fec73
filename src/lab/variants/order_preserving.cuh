// Variant, ladder step 17: order-preserving and coalesced, for any associative functor.
// Fixes over the grid-stride steps (8-12): those deal inputs i, i + G, i + 2G, ... to one thread, so they need
// a commutative functor; the foundation kernel (grid_stride_shuffle) keeps order by giving each thread one
// contiguous chunk, but then a warp's 32 loads hit 32 different cache lines. Here each block owns one
// contiguous range of the input, each warp a contiguous run of tiles inside it; a tile of 32*K items (32 bytes
// per lane) is loaded striped, so every load is coalesced, into the warp's slice of shared memory, and lane l
// then folds items [l*K, l*K + K) left to right. Every later combine joins neighbours in input order: lanes
// (warp::reduce_in_lane_order), tiles (a running value in lane 0), warps (block::reduce_in_thread_order), blocks
// (a second launch over the partials, in block order). Unlike steps 13-16 it takes this path for commutative
// functors too, so a floating-point sum is associated the same way whatever the functor declares.
// Cannot serve: nothing is refused; it pays a shared-memory round trip and a warp tree per tile.
#pragma once

#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"
#include "lab/kernels/block_ranges.cuh"
#include "lab/variants/variant.hpp"

namespace reducelab::variants {

struct order_preserving {
  static constexpr const char* name = "order_preserving";
  static constexpr const char* summary =
      "contiguous block ranges, warp tiles staged through shared memory (coalesced), every combine in input order";
  static constexpr variant_traits traits = {/*ladder_step*/ 17, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ true, /*deterministic*/ true};
  struct policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;  // 8 x 256 = 2048 threads: a full Hopper SM
    static constexpr block::range_algorithm algorithm = block::range_algorithm::in_order;
  };

  template <class OpT, class T>
  static kernels::range_split split(std::size_t n) {
    const std::size_t max_grid = static_cast<std::size_t>(current_device().sm_count) * policy::blocks_per_sm;
    return kernels::split_into_ranges(n, max_grid,
                                      kernels::range_granule<policy::block_threads, policy::algorithm, T>());
  }

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    const std::size_t grid = split<OpT, T>(n).grid;
    return grid > 1 ? grid * sizeof(T) : 0;
  }

  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    const kernels::range_split s = split<OpT, T>(n);
    const std::size_t first = block::range_depth<policy::block_threads, policy::algorithm, T>(s.chunk);
    return s.grid > 1 ? first + block::range_depth<policy::block_threads, policy::algorithm, T>(s.grid) : first;
  }

  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, OpT op, cudaStream_t stream) {
    constexpr int threads = policy::block_threads;
    const kernels::range_split s = split<OpT, T>(n);
    if (s.grid == 1) {
      kernels::reduce_block_ranges<threads, policy::algorithm><<<1, threads, 0, stream>>>(in, n, n, out, op);
      CUDA_TRY_LAUNCH();
      return;
    }
    T* partials = static_cast<T*>(workspace);
    kernels::reduce_block_ranges<threads, policy::algorithm>
        <<<static_cast<unsigned>(s.grid), threads, 0, stream>>>(in, n, s.chunk, partials, op);
    CUDA_TRY_LAUNCH();
    kernels::reduce_block_ranges<threads, policy::algorithm>
        <<<1, threads, 0, stream>>>(partials, s.grid, s.grid, out, op);
    CUDA_TRY_LAUNCH();
  }
};

}  // namespace reducelab::variants
