// Variant, ladder step 19: the warp tree in one hardware instruction where one exists.
// Fixes over step 9: for 32-bit integer plus/min/max/and/or/xor, sm_80's REDUX instruction
// (__reduce_*_sync) reduces a warp in one instruction instead of five shuffle + combine rounds, and
// logical and/or over bool/uint8 are a single vote (__all_sync/__any_sync). Every other (functor, type) pair
// keeps the shuffle tree, so nothing is lost; warp_path<OpT, T>() says which path a pair takes.
// Cannot serve: non-commutative functors (grid-stride loop). For memory-bound inputs the gain is small: the
// warp tree runs once per thread's many loads; it shows where the instruction-level cost of the tree went.
#pragma once

#include "lab/kernels/hardware_warp_reduce.cuh"
#include "lab/variants/grid_stride_launch.cuh"
#include "lab/variants/variant.hpp"

#include <algorithm>

namespace reducelab::variants {

struct hardware_warp_reduce : grid_stride_two_launch_step<hardware_warp_reduce> {
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
    switch (warp::hardware_path_for<OpT, T>()) {
      case warp::hardware_path::redux_add: return "__reduce_add_sync";
      case warp::hardware_path::redux_min: return "__reduce_min_sync";
      case warp::hardware_path::redux_max: return "__reduce_max_sync";
      case warp::hardware_path::redux_and: return "__reduce_and_sync";
      case warp::hardware_path::redux_or: return "__reduce_or_sync";
      case warp::hardware_path::redux_xor: return "__reduce_xor_sync";
      case warp::hardware_path::vote_all: return "__all_sync";
      case warp::hardware_path::vote_any: return "__any_sync";
      default: return "shuffle";
    }
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
  static constexpr auto kernel() {
    return &kernels::hardware_warp_reduce<policy::block_threads, OpT, T>;
  }
};

}  // namespace reducelab::variants
