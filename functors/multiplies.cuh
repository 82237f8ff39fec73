// multiplies: a * b. Wraps cuda::std::multiplies; signed integers wrap modulo 2^bits.
// Input domain: random odd integers (a product of odd numbers stays odd, so it never collapses to 0 and every
// element matters), and floats e^d with |d| <= 1/256 and a random sign, so a product of 2^28 of them neither
// overflows nor underflows and the bound gamma(depth) * |exact| holds.
#pragma once

#include "reducelab/functor.hpp"

#include <cmath>

namespace reducelab::functors {

struct multiplies {
  static constexpr const char* summary = "a * b (signed integers wrap; float error bound gamma(depth) * |exact|)";
  static constexpr bool commutative = true;
  static constexpr builtin_op builtin = builtin_op::multiplies;
  using value_types = type_list<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T(1);
  }

  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return apply_wrapping(cuda::std::multiplies<>{}, a, b);
  }

  template <class T, class RngT>
  static T random_input(RngT& rng, std::size_t) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(rng() | 1u);
    } else {
      const double d = (static_cast<double>(rng() >> 11) * 0x1.0p-53 * 2.0 - 1.0) / 256.0;
      return static_cast<T>((rng() & 1 ? -1.0 : 1.0) * std::exp(d));
    }
  }

  template <class T>
  static T constant_input() {
    return std::is_integral_v<T> ? T(3) : T(-1);
  }

  template <class T>
  static verdict check_accuracy(const T* x, std::size_t n, const T& got, std::size_t depth) {
    return judge_float_product(x, n, got, depth);
  }
};

}  // namespace reducelab::functors
