// plus: a + b. Wraps cuda::std::plus; signed integers wrap modulo 2^bits (see apply_wrapping), which is what
// CUB and Thrust produce on the GPU too. Identity -0.0 for floating point: -0.0 + x == x for every x, including
// x == -0.0, whereas +0.0 + -0.0 == +0.0 would turn a sum of negative zeros positive.
#pragma once

#include "reducelab/functor.hpp"

namespace reducelab::functors {

struct plus {
  static constexpr const char* summary = "a + b (signed integers wrap; float error bound gamma(depth) * sum|x|)";
  static constexpr bool commutative = true;
  static constexpr builtin_op builtin = builtin_op::plus;
  using value_types = type_list<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    if constexpr (std::is_floating_point_v<T>) {
      return -T(0);
    } else {
      return T(0);
    }
  }

  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return apply_wrapping(cuda::std::plus<>{}, a, b);
  }

  template <class T>
  static verdict check_accuracy(const T* x, std::size_t n, const T& got, std::size_t depth) {
    return judge_float_sum(x, n, got, depth);
  }
};

}  // namespace reducelab::functors
