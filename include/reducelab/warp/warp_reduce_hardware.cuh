// A warp's reduction in one instruction where the hardware has one and its result cannot differ from the shuffle
// tree's:
//   int32 / uint32 with plus, minimum, maximum, bit_and, bit_or, bit_xor   __reduce_{add,min,max,and,or,xor}_sync
//                                                                          (REDUX, sm_80+; shuffles before that)
//   bool / uint8 with logical_and, logical_or                              __all_sync / __any_sync (vote)
//   everything else                                                        warp::reduce_in_lane_order (shuffles)
// One instruction replaces five shuffle + combine rounds. The pair is recognised by builtin_kind_v<OpT> (the
// functor's declared `builtin`), so a user functor never takes a hardware path. These are exact operations in any
// order (the integer instructions wrap like functors::plus, min/max keep the signedness of T, a vote gives 0 or 1,
// the only values logical_and/or produce), so the result is the same bits as the in-order shuffle tree's.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/warp/shuffle.cuh"
#include "reducelab/warp/warp_reduce.cuh"

#include <cuda/std/cstdint>
#include <cuda/std/type_traits>
#include <nv/target>

namespace reducelab::warp {

enum class hardware_path {
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

/// Which path (OpT, T) takes (shuffle: none of the hardware ones).
template <class OpT, class T>
constexpr __host__ __device__ hardware_path hardware_path_for() {
  constexpr builtin_op kind = builtin_kind_v<OpT>;
  constexpr bool word32 = cuda::std::is_same_v<T, cuda::std::int32_t> || cuda::std::is_same_v<T, cuda::std::uint32_t>;
  constexpr bool flag = cuda::std::is_same_v<T, bool> || cuda::std::is_same_v<T, cuda::std::uint8_t>;
  if constexpr (word32) {
    switch (kind) {
      case builtin_op::plus: return hardware_path::redux_add;
      case builtin_op::minimum: return hardware_path::redux_min;
      case builtin_op::maximum: return hardware_path::redux_max;
      case builtin_op::bit_and: return hardware_path::redux_and;
      case builtin_op::bit_or: return hardware_path::redux_or;
      case builtin_op::bit_xor: return hardware_path::redux_xor;
      default: return hardware_path::shuffle;
    }
  } else if constexpr (flag) {
    if (kind == builtin_op::logical_and) return hardware_path::vote_all;
    if (kind == builtin_op::logical_or) return hardware_path::vote_any;
    return hardware_path::shuffle;
  } else {
    return hardware_path::shuffle;
  }
}

/// Combine the 32 lanes' values: the hardware path where (OpT, T) has one, else reduce_in_lane_order. Valid in
/// lane 0 (in every lane on the hardware paths). All lanes must call it.
template <class T, class OpT>
__device__ __forceinline__ T reduce(T value, OpT op) {
  constexpr hardware_path path = hardware_path_for<OpT, T>();
  if constexpr (path == hardware_path::vote_all) {
    return static_cast<T>(__all_sync(full_mask, value != 0) != 0);
  } else if constexpr (path == hardware_path::vote_any) {
    return static_cast<T>(__any_sync(full_mask, value != 0) != 0);
  } else if constexpr (path == hardware_path::shuffle) {
    return reduce_in_lane_order(value, op);
  } else {
    // int32 is `int`, uint32 `unsigned`: the add/min/max intrinsics have both overloads (min/max must keep the
    // signedness), and/or/xor only the unsigned one, which gives the same bits for int.
    using word = unsigned;
    NV_IF_ELSE_TARGET(
        NV_PROVIDES_SM_80,
        (if constexpr (path == hardware_path::redux_add) {
          return static_cast<T>(__reduce_add_sync(full_mask, value));
        } else if constexpr (path == hardware_path::redux_min) {
          return static_cast<T>(__reduce_min_sync(full_mask, value));
        } else if constexpr (path == hardware_path::redux_max) {
          return static_cast<T>(__reduce_max_sync(full_mask, value));
        } else if constexpr (path == hardware_path::redux_and) {
          return static_cast<T>(__reduce_and_sync(full_mask, static_cast<word>(value)));
        } else if constexpr (path == hardware_path::redux_or) {
          return static_cast<T>(__reduce_or_sync(full_mask, static_cast<word>(value)));
        } else {
          return static_cast<T>(__reduce_xor_sync(full_mask, static_cast<word>(value)));
        }),
        (return reduce_in_lane_order(value, op);))
  }
}

}  // namespace reducelab::warp
