// The grid-stride kernel with the warp tree done by hardware where a warp-wide reduce instruction exists:
//   int32 / uint32 with plus, minimum, maximum, bit_and, bit_or, bit_xor   __reduce_{add,min,max,and,or,xor}_sync
//                                                                          (REDUX, sm_80+; shuffles before that)
//   bool / uint8 with logical_and, logical_or                              __all_sync / __any_sync (vote)
//   everything else                                                        warp::reduce_in_lane_order (shuffles)
// One instruction replaces five shuffle + combine steps. The pair is recognised by builtin_kind_v<OpT>, so a
// user functor never takes a hardware path. The integer instructions wrap like functors::plus, and min/max
// keep the signedness of T; vote returns 0 or 1, the only values logical_and/or are defined on.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/thread/thread_fold.cuh"
#include "reducelab/warp/shuffle.cuh"
#include "reducelab/warp/warp_reduce.cuh"

#include <cuda/std/type_traits>
#include <nv/target>

#include <cstddef>
#include <cstdint>

namespace reducelab::kernels {

enum class warp_reduce_path {
  shuffle,
  redux_add,
  redux_min,
  redux_max,
  redux_and,
  redux_or,
  redux_xor,
  vote_all,
  vote_any
};

template <class OpT, class T>
constexpr warp_reduce_path warp_reduce_path_for() {
  constexpr builtin_op kind = builtin_kind_v<OpT>;
  constexpr bool word32 = cuda::std::is_same_v<T, std::int32_t> || cuda::std::is_same_v<T, std::uint32_t>;
  constexpr bool flag = cuda::std::is_same_v<T, bool> || cuda::std::is_same_v<T, std::uint8_t>;
  if constexpr (word32) {
    switch (kind) {
      case builtin_op::plus: return warp_reduce_path::redux_add;
      case builtin_op::minimum: return warp_reduce_path::redux_min;
      case builtin_op::maximum: return warp_reduce_path::redux_max;
      case builtin_op::bit_and: return warp_reduce_path::redux_and;
      case builtin_op::bit_or: return warp_reduce_path::redux_or;
      case builtin_op::bit_xor: return warp_reduce_path::redux_xor;
      default: return warp_reduce_path::shuffle;
    }
  } else if constexpr (flag) {
    if (kind == builtin_op::logical_and) return warp_reduce_path::vote_all;
    if (kind == builtin_op::logical_or) return warp_reduce_path::vote_any;
    return warp_reduce_path::shuffle;
  } else {
    return warp_reduce_path::shuffle;
  }
}

/// Combine the 32 lanes' values; valid in lane 0 (in every lane on the hardware paths). All lanes must call it.
template <class T, class OpT>
__device__ __forceinline__ T warp_reduce_by_hardware(T value, OpT op) {
  constexpr warp_reduce_path path = warp_reduce_path_for<OpT, T>();
  constexpr unsigned mask = warp::full_mask;
  if constexpr (path == warp_reduce_path::vote_all) {
    return static_cast<T>(__all_sync(mask, value != 0) != 0);
  } else if constexpr (path == warp_reduce_path::vote_any) {
    return static_cast<T>(__any_sync(mask, value != 0) != 0);
  } else if constexpr (path == warp_reduce_path::shuffle) {
    return warp::reduce_in_lane_order(value, op);
  } else {
    // int32 is `int`, uint32 `unsigned`: the add/min/max intrinsics have both overloads (min/max must keep
    // the signedness), and/or/xor only the unsigned one, which gives the same bits for int.
    using word = unsigned;
    NV_IF_ELSE_TARGET(
        NV_PROVIDES_SM_80,
        (if constexpr (path == warp_reduce_path::redux_add) {
          return static_cast<T>(__reduce_add_sync(mask, value));
        } else if constexpr (path == warp_reduce_path::redux_min) {
          return static_cast<T>(__reduce_min_sync(mask, value));
        } else if constexpr (path == warp_reduce_path::redux_max) {
          return static_cast<T>(__reduce_max_sync(mask, value));
        } else if constexpr (path == warp_reduce_path::redux_and) {
          return static_cast<T>(__reduce_and_sync(mask, static_cast<word>(value)));
        } else if constexpr (path == warp_reduce_path::redux_or) {
          return static_cast<T>(__reduce_or_sync(mask, static_cast<word>(value)));
        } else {
          return static_cast<T>(__reduce_xor_sync(mask, static_cast<word>(value)));
        }),
        (return warp::reduce_in_lane_order(value, op);))
  }
}

template <int BlockThreads, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    hardware_warp_reduce(const T* __restrict__ in, std::size_t n, T* __restrict__ block_results, OpT op) {
  constexpr int warps = BlockThreads / warp::threads_per_warp;
  static_assert(BlockThreads % warp::threads_per_warp == 0 && warps <= 32,
                "hardware_warp_reduce: block size a multiple of 32, at most 1024");
  __shared__ T warp_results[warps];
  const int lane = threadIdx.x % warp::threads_per_warp;
  const int warp_id = threadIdx.x / warp::threads_per_warp;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * BlockThreads;
  const std::size_t rank = static_cast<std::size_t>(blockIdx.x) * BlockThreads + threadIdx.x;
  T acc = thread::fold_strided(identity_of<OpT, T>(), in, rank, n, threads, op);
  acc = warp_reduce_by_hardware(acc, op);
  if (lane == 0) warp_results[warp_id] = acc;
  __syncthreads();
  if (warp_id == 0) {
    acc = lane < warps ? warp_results[lane] : identity_of<OpT, T>();
    acc = warp_reduce_by_hardware(acc, op);
    if (lane == 0) block_results[blockIdx.x] = acc;
  }
}

}  // namespace reducelab::kernels
