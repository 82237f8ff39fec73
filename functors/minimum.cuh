// minimum: the smaller of a and b. Wraps cuda::minimum. Identity +inf for floating point, max() for integers.
// Exact; NaN inputs are outside its domain (see maximum.cuh).
#pragma once

#include "reducelab/functor.hpp"

namespace reducelab::functors {

struct minimum {
  static constexpr const char* summary = "min(a, b) (exact; NaN inputs undefined)";
  static constexpr bool commutative = true;
  static constexpr bool rounding_free = true;
  static constexpr builtin_op builtin = builtin_op::minimum;
  using value_types = type_list<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    if constexpr (std::is_floating_point_v<T>) {
      return cuda::std::numeric_limits<T>::infinity();
    } else {
      return cuda::std::numeric_limits<T>::max();
    }
  }

  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return cuda::minimum<>{}(a, b);
  }
};

}  // namespace reducelab::functors
