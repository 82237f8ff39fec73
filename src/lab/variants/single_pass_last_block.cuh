// Variant, ladder step 15: single pass, the last block to finish combines the partials.
// Fixes over steps 13 and 14: one launch and no host round trip. Blocks store partials, publish them with
// __threadfence(), and take a ticket from an atomic counter; whichever block draws the last ticket combines all
// partials in block order and writes the result. The only atomic is the ticket: no atomics on values, so any
// functor and any value size, and a deterministic result (the partials are combined in block order, whoever
// the last block is). Each block owns a contiguous range (not a grid-stride slice), so order is kept.
// Costs: the counter must be cleared before every launch (a cudaMemsetAsync on the stream), and the final
// combine runs on one block while the rest of the GPU idles.
#pragma once

#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"
#include "lab/kernels/block_ranges.cuh"
#include "lab/kernels/single_pass_last_block.cuh"
#include "lab/variants/variant.hpp"

namespace reducelab::variants {

struct single_pass_last_block {
  static constexpr const char* name = "single_pass_last_block";
  static constexpr const char* summary =
      "one launch: blocks publish partials (threadfence + ticket), the last block combines them in block order";
  static constexpr variant_traits traits = {/*ladder_step*/ 15, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ true, /*deterministic*/ true};
  struct policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;  // 8 x 256 = 2048 threads: a full Hopper SM
  };

  template <class OpT>
  static constexpr block::range_algorithm algorithm = block::default_range_algorithm<OpT>;

  template <class OpT, class T>
  static kernels::range_split split(std::size_t n) {
    const std::size_t max_grid = static_cast<std::size_t>(current_device().sm_count) * policy::blocks_per_sm;
    return kernels::split_into_ranges(n, max_grid,
                                      kernels::range_granule<policy::block_threads, algorithm<OpT>, T>());
  }

  /// Partials first, then the ticket counter at the next 256-byte boundary.
  template <class T>
  static std::size_t counter_offset(std::size_t grid) {
    return ceil_div<std::size_t>(grid * sizeof(T), 256) * 256;
  }

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    return counter_offset<T>(split<OpT, T>(n).grid) + sizeof(unsigned);
  }

  // The block pass over one range, then the last block's pass over the partials.
  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    const kernels::range_split s = split<OpT, T>(n);
    return block::range_depth<policy::block_threads, algorithm<OpT>, T>(s.chunk) +
           block::range_depth<policy::block_threads, algorithm<OpT>, T>(s.grid);
  }

  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, OpT op, cudaStream_t stream) {
    constexpr int threads = policy::block_threads;
    const kernels::range_split s = split<OpT, T>(n);
    T* partials = static_cast<T*>(workspace);
    auto* counter = reinterpret_cast<unsigned*>(static_cast<char*>(workspace) + counter_offset<T>(s.grid));
    CUDA_TRY(cudaMemsetAsync(counter, 0, sizeof(unsigned), stream));
    kernels::single_pass_last_block<threads, algorithm<OpT>>
        <<<static_cast<unsigned>(s.grid), threads, 0, stream>>>(in, n, s.chunk, partials, counter, out, op);
    CUDA_TRY_LAUNCH();
  }
};

}  // namespace reducelab::variants
