// Variant, ladder step 12: the grid-stride shuffle kernel with 16-byte vector loads.
// Fixes over step 9 (and 11): for small types the bottleneck left is the number of load instructions, not
// bytes: a 4-byte load per item keeps the LSU queues full long before DRAM is. Loading 16 bytes per
// instruction (4 floats, 16 bools, 2 doubles) cuts instructions by 16 / sizeof(T) for the same bytes. An input
// that does not start on a 16-byte boundary (a pointer offset by one item, say) is handled by a scalar head
// up to the first boundary and a scalar tail after the last whole vector.
// Cannot serve: non-commutative functors (grid-stride loop); value types whose size does not divide 16
// (moments64, 24 bytes): a vector would split an item.
#pragma once

#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"
#include "lab/kernels/vectorized_loads.cuh"
#include "lab/variants/grid_stride_launch.cuh"
#include "lab/variants/variant.hpp"

#include <algorithm>

namespace reducelab::variants {

struct vectorized_loads {
  static constexpr const char* name = "vectorized_loads";
  static constexpr const char* summary =
      "grid-stride loop over 16-byte vectors (scalar head and tail for unaligned input), shuffle tree, two launches";
  static constexpr variant_traits traits = {/*ladder_step*/ 12, /*needs_commutative*/ true, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ false, /*deterministic*/ true};
  struct policy {
    static constexpr std::size_t vector_bytes = kernels::vector_bytes;  // LDG.128, the widest load per thread
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;  // 8 x 256 = 2048 threads: a full Hopper SM
  };

  template <class OpT, class T>
  static constexpr const char* extra_refusal() {
    if (policy::vector_bytes % sizeof(T) == 0) return nullptr;
    return "needs a value type whose size divides 16 (it loads 16-byte vectors)";
  }

  template <class OpT, class T>
  static std::size_t grid_size(std::size_t n) {
    return device_sized_grid<policy>(ceil_div<std::size_t>(n, policy::vector_bytes / sizeof(T)));
  }

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    const std::size_t grid = grid_size<OpT, T>(n);
    return grid > 1 ? grid * sizeof(T) : 0;
  }

  // Per pass: a head item, k items per vector the thread reads, a tail item, then the 10-level block tree.
  template <class OpT, class T>
  static std::size_t combine_depth(std::size_t n) {
    constexpr std::size_t threads = policy::block_threads;
    constexpr std::size_t k = policy::vector_bytes / sizeof(T);
    const std::size_t grid = grid_size<OpT, T>(n);
    const std::size_t first = ceil_div<std::size_t>(ceil_div<std::size_t>(n, k), grid * threads) * k + 2 + 10;
    const std::size_t second =
        grid > 1 ? ceil_div<std::size_t>(ceil_div<std::size_t>(grid, k), threads) * k + 2 + 10 : 0;
    return first + second;
  }

  template <class OpT, class T>
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, OpT op, cudaStream_t stream) {
    constexpr int threads = policy::block_threads;
    const std::size_t grid = grid_size<OpT, T>(n);
    if (grid == 1) {
      kernels::vectorized_loads<threads><<<1, threads, 0, stream>>>(in, n, kernels::vector_head(in, n), out, op);
      CUDA_TRY_LAUNCH();
      return;
    }
    T* partials = static_cast<T*>(workspace);
    kernels::vectorized_loads<threads>
        <<<static_cast<unsigned>(grid), threads, 0, stream>>>(in, n, kernels::vector_head(in, n), partials, op);
    CUDA_TRY_LAUNCH();
    kernels::vectorized_loads<threads>
        <<<1, threads, 0, stream>>>(partials, grid, kernels::vector_head<T>(partials, grid), out, op);
    CUDA_TRY_LAUNCH();
  }
};

}  // namespace reducelab::variants
