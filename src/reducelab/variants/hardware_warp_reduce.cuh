// Variant, ladder step 19: the warp tree in one hardware instruction where one exists.
// Fixes over step 9: for 32-bit integer plus/min/max/and/or/xor, sm_80's REDUX instruction
// (__reduce_*_sync) reduces a warp in one instruction instead of five shuffle + combine rounds, and
// logical and/or over bool/uint8 are a single vote (__all_sync/__any_sync). Every other (functor, type) pair
// keeps the shuffle tree, so nothing is lost; warp_path<OpT, T>() says which path a pair takes.
// Cannot serve: non-commutative functors (grid-stride loop). For memory-bound inputs the gain is small: the
// warp tree runs once per thread's many loads; it shows where the instruction-level cost of the tree went.
#pragma once

#include "reducelab/core/device_info.hpp"
#include "reducelab/core/error.hpp"
#include "reducelab/kernels/hardware_warp_reduce.cuh"
#include "reducelab/variants/variant.hpp"

#include <algorithm>

namespace reducelab::variants {

struct hardware_warp_reduce {
  static constexpr const char* name = "hardware_warp_reduce";
  static constexpr const char* summary =
      "grid-stride loop, warp tree by __reduce_*_sync (32-bit integer builtins) or vote (logical), else shuffles";
  static constexpr variant_traits traits = {/*ladder_step*/ 19, /*needs_commutative*/ true, /*max_value_bytes*/ 0,
                                            /*needs_cooperative_launch*/ false, /*power_of_two_block*/ false,
                                            /*preserves_order*/ false, /*deterministic*/ true};
  struct policy {
    static constexpr int block_threads = 256;
    static constexpr int blocks_per_sm = 8;  // 8 x 256 = 2048 threads: a full Hopper SM, loads in flight
  };

  /// Which warp reduction (OpT, T) takes, for `reducelab list`. The __reduce_*_sync paths need sm_80+ and
  /// fall back to shuffles when compiled for an older architecture.
  template <class OpT, class T>
  static constexpr const char* warp_path() {
    switch (kernels::warp_reduce_path_for<OpT, T>()) {
      case kernels::warp_reduce_path::redux_add: return "__reduce_add_sync";
      case kernels::warp_reduce_path::redux_min: return "__reduce_min_sync";
      case kernels::warp_reduce_path::redux_max: return "__reduce_max_sync";
      case kernels::warp_reduce_path::redux_and: return "__reduce_and_sync";
      case kernels::warp_reduce_path::redux_or: return "__reduce_or_sync";
      case kernels::warp_reduce_path::redux_xor: return "__reduce_xor_sync";
      case kernels::warp_reduce_path::vote_all: return "__all_sync";
      case kernels::warp_reduce_path::vote_any: return "__any_sync";
      default: return "shuffle";
    }
  }

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

  // Per pass: the per-thread chain, 5 levels in the warp, 5 over the warps (the hardware paths are exact).
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
      kernels::hardware_warp_reduce<threads><<<1, threads, 0, stream>>>(in, n, out, op);
      CUDA_TRY_LAUNCH();
      return;
    }
    T* partials = static_cast<T*>(workspace);
    kernels::hardware_warp_reduce<threads><<<static_cast<unsigned>(grid), threads, 0, stream>>>(in, n, partials, op);
    CUDA_TRY_LAUNCH();
    kernels::hardware_warp_reduce<threads><<<1, threads, 0, stream>>>(partials, grid, out, op);
    CUDA_TRY_LAUNCH();
  }
};

}  // namespace reducelab::variants
