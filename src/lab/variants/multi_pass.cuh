// Variant, ladder step 13: multi-pass, the kernel relaunched on its own partials until one value is left.
// Fixes over steps 8-12: no grid sized to the device and no assumption that one block can finish the job:
// each launch gives every block one contiguous tile of B * (64 bytes per thread) items and writes one partial
// per block into a ping-pong buffer; the next launch reduces those partials the same way, so any n works with
// a fixed, small amount of work per block (Harris's original host loop), and passes = log_tile(n).
// Because each block's tile is contiguous and partials stay in block order, the result keeps the input order:
// non-commutative functors get the in-order block algorithm (warp tiles staged through shared memory, see
// block/block_reduce_range.cuh); commutative ones the plain striped loop.
// Cannot serve: nothing the other steps serve; it pays a launch (and a round trip through memory) per pass.
#pragma once

#include "reducelab/core/error.hpp"
#include "lab/kernels/block_ranges.cuh"
#include "lab/variants/variant.hpp"

#include <climits>
#include <string>

namespace reducelab::variants {

struct multi_pass {
  static constexpr const char* name = "multi_pass";
  static constexpr const char* summary =
      "one contiguous tile per block, relaunched on its own partials (ping-pong buffers) until one value is left";
  static constexpr variant_traits traits = {/*ladder_step*/ 13, /*needs_commutative*/ false, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ true, /*deterministic*/ true};
  struct policy {
    static constexpr int block_threads = 256;
    // Bytes a thread folds per pass: 16 floats, 8 doubles; enough to hide the block tree and the partial
    // store, small enough that a 2^28-item input still has 16k+ blocks in its first pass.
    static constexpr std::size_t bytes_per_thread = 64;
  };

  template <class OpT>
  static constexpr block::range_algorithm algorithm = block::default_range_algorithm<OpT>;

  /// Items per block per pass: a whole number of the block algorithm's granule.
  template <class OpT, class T>
  static constexpr std::size_t tile_items() {
    constexpr std::size_t granule = kernels::range_granule<policy::block_threads, algorithm<OpT>, T>();
    constexpr std::size_t wanted = policy::block_threads * policy::bytes_per_thread / sizeof(T);
    return wanted > granule ? wanted / granule * granule : granule;
  }

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    constexpr std::size_t tile = tile_items<OpT, T>();
    const std::size_t first = ceil_div(n, tile);
    if (first <= 1) return 0;
    const std::size_t second = ceil_div(first, tile);
    return buffer_b_offset<T>(first) + (second > 1 ? second * sizeof(T) : 0);
  }

  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    constexpr std::size_t tile = tile_items<OpT, T>();
    std::size_t depth = 0;
    for (std::size_t left = n;;) {
      depth += block::range_depth<policy::block_threads, algorithm<OpT>, T>(left < tile ? left : tile);
      if (left <= tile) return depth;
      left = ceil_div(left, tile);
    }
  }

  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, OpT op, cudaStream_t stream) {
    constexpr int threads = policy::block_threads;
    constexpr std::size_t tile = tile_items<OpT, T>();
    const std::size_t first = ceil_div(n, tile);
    REDUCELAB_EXPECTS(first <= static_cast<std::size_t>(INT_MAX),
                      std::string(name) + ": n = " + std::to_string(n) + " needs more blocks than a grid holds");
    T* buffers[2] = {static_cast<T*>(workspace),
                     reinterpret_cast<T*>(static_cast<char*>(workspace) + buffer_b_offset<T>(first))};
    const T* source = in;
    std::size_t left = n;
    for (int pass = 0;; ++pass) {
      const std::size_t grid = ceil_div(left, tile);
      T* target = grid == 1 ? out : buffers[pass % 2];
      kernels::reduce_block_ranges<threads, algorithm<OpT>>
          <<<static_cast<unsigned>(grid), threads, 0, stream>>>(source, left, tile, target, op);
      CUDA_TRY_LAUNCH();
      if (grid == 1) return;
      source = target;
      left = grid;
    }
  }

 private:
  /// Buffer A holds the first pass's partials, buffer B (after it, 256-byte aligned) the second's; later
  /// passes alternate and only shrink.
  template <class T>
  static std::size_t buffer_b_offset(std::size_t first_partials) {
    return ceil_div<std::size_t>(first_partials * sizeof(T), 256) * 256;
  }
};

}  // namespace reducelab::variants
