// plus: a + b. Wraps cuda::std::plus; signed integers wrap modulo 2^bits (see apply_wrapping), which is what
// CUB and Thrust produce on the GPU too. Identity -0.0 for floating point: -0.0 + x == x for every x, including
// x == -0.0, whereas +0.0 + -0.0 == +0.0 would turn a sum of negative zeros positive.
#pragma once

#include "lab/functor.hpp"

#include <cmath>

namespace reducelab::functors {

struct plus {
  static constexpr const char* summary = "a + b (signed integers wrap; float error bound ((1+u)^depth - 1) * sum|x|)";
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

  // Hard cases. Floating point, one scenario per seed: 0 only negative zeros (the sum must be -0.0);
  // 1 large values that cancel in pairs (+-k*2^100 for float, 2^990 for double: every partial sum stays
  // exact and finite); 2 one +inf among random values; 3 one NaN. Integers: the extremes (sums wrap).
  template <class T>
  static constexpr unsigned adversarial_scenarios() {
    return std::is_floating_point_v<T> ? 4 : 1;
  }
  template <class T, class RngT>
  static T adversarial_input(unsigned scenario, RngT& rng, std::size_t i, std::size_t n) {
    if constexpr (std::is_floating_point_v<T>) {
      switch (scenario) {
        case 0: return -T(0);
        case 1: {
          const T big = std::ldexp(T(1), std::is_same_v<T, float> ? 100 : 990) * T(1 + (i / 2) % 7);
          return i % 2 == 0 ? big : -big;
        }
        case 2: return i == n / 2 ? std::numeric_limits<T>::infinity() : default_random_input<T>(rng);
        default: return i == n / 3 ? std::numeric_limits<T>::quiet_NaN() : default_random_input<T>(rng);
      }
    } else {
      return integer_extreme<T>(rng);
    }
  }

  template <class T>
  static verdict check_accuracy(const T* x, std::size_t n, const T& got, std::size_t depth) {
    return judge_float_sum(x, n, got, depth);
  }
};

}  // namespace reducelab::functors
