// multiplies: a * b. Wraps cuda::std::multiplies; signed integers wrap modulo 2^bits.
// Input domain: random odd integers (a product of odd numbers stays odd, so it never collapses to 0 and every
// element matters), and floats e^d with |d| <= 1/1024 and a random sign, so that no partial product of up to
// 2^28 of them under- or overflows (in order, log|partial| stays within about +-20 at 2^28; with |d| <= 1/256
// it reached -75, near float's floor of -87, and an atomic-order variant underflowed to -0). The bound is
// ((1+u)^(n-1) - 1) * |exact|, any order. Worth knowing: a float product *tree* over values this close to +-1 is
// biased - most products of values that close to +-1 drop a low-order term of one sign - so at 2^26 a pairwise
// float tree is off by about 6 % where the in-order fold is off by 0.05 % (a CPU simulation of these inputs;
// with |d| <= 1/256 it was 0.6 %, and the shared-memory tree variants showed the same 0.6 % on an H100).
#pragma once

#include "lab/functor.hpp"

#include <cmath>

namespace reducelab::functors {

struct multiplies {
  static constexpr const char* summary = "a * b (signed integers wrap; float error bound ((1+u)^(n-1) - 1) * |exact|)";
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
      const double d = (static_cast<double>(rng() >> 11) * 0x1.0p-53 * 2.0 - 1.0) / 1024.0;
      return static_cast<T>((rng() & 1 ? -1.0 : 1.0) * std::exp(d));
    }
  }

  template <class T>
  static T constant_input() {
    return std::is_integral_v<T> ? T(3) : T(-1);
  }

  // Hard cases. Floating point: 0 one infinity among in-range values (the product is +-inf, sign from the
  // signs); 1 one NaN; 2 +-1 with one signed zero (the product is a zero). Integers: the extremes (wrap).
  template <class T>
  static constexpr unsigned adversarial_scenarios() {
    return std::is_floating_point_v<T> ? 3 : 1;
  }
  template <class T, class RngT>
  static T adversarial_input(unsigned scenario, RngT& rng, std::size_t i, std::size_t n) {
    if constexpr (std::is_floating_point_v<T>) {
      const T x = random_input<T>(rng, i);
      switch (scenario) {
        case 0: return i == n / 2 ? -std::numeric_limits<T>::infinity() : x;
        case 1: return i == n / 3 ? std::numeric_limits<T>::quiet_NaN() : x;
        default: return i == n / 2 ? T(rng() & 1 ? 0.0 : -0.0) : (rng() & 1 ? T(1) : T(-1));
      }
    } else {
      return integer_extreme<T>(rng);
    }
  }

  template <class T>
  static verdict check_accuracy(const T* x, std::size_t n, const T& got, std::size_t depth) {
    return judge_float_product(x, n, got, depth);
  }
};

}  // namespace reducelab::functors
