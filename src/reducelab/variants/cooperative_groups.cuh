// Variant, ladder step 11: step 9's two-launch structure written with cooperative groups.
// Fixes over step 10: no atomics, so any value size and a deterministic result again, and the warp and block
// steps are named objects (cg::thread_block, cg::tiled_partition<32>) with cg::reduce doing the warp tree:
// no hand-written shuffles, masks or lane arithmetic. cg::reduce picks the hardware redux instruction for
// plus/min/max/and/or/xor over 32-bit integers on sm_80+ and a shuffle butterfly otherwise (see the kernel).
// Cannot serve: non-commutative functors (grid-stride loop, and cg::reduce's butterfly reorders lanes).
#pragma once

#include "reducelab/core/device_info.hpp"
#include "reducelab/core/error.hpp"
#include "reducelab/kernels/cooperative_groups.cuh"
#include "reducelab/variants/variant.hpp"

#include <algorithm>

namespace reducelab::variants {

struct cooperative_groups {
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

  template <class OpT, class T>
  static std::size_t grid_size(std::size_t n) {
    const std::size_t full = static_cast<std::size_t>(current_device().sm_count) * policy::blocks_per_sm;
    return std::max<std::size_t>(1, std::min(full, ceil_div<std::size_t>(n, policy::block_threads)));
  }

  template <class OpT, class T>
  static std::size_t workspace_bytes(std::size_t n) {
    const std::size_t grid = grid_size<OpT, T>(n);
    return grid > 1 ? grid * sizeof(T) : 0;
  }

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
  static void run(const T* in, std::size_t n, T* out, void* workspace, std::size_t, OpT op, cudaStream_t stream) {
    constexpr int threads = policy::block_threads;
    const std::size_t grid = grid_size<OpT, T>(n);
    if (grid == 1) {
      kernels::cooperative_groups_reduce<threads><<<1, threads, 0, stream>>>(in, n, out, op);
      CUDA_TRY_LAUNCH();
      return;
    }
    T* partials = static_cast<T*>(workspace);
    kernels::cooperative_groups_reduce<threads>
        <<<static_cast<unsigned>(grid), threads, 0, stream>>>(in, n, partials, op);
    CUDA_TRY_LAUNCH();
    kernels::cooperative_groups_reduce<threads><<<1, threads, 0, stream>>>(partials, grid, out, op);
    CUDA_TRY_LAUNCH();
  }
};

}  // namespace reducelab::variants
