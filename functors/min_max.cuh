// min_max: the smallest and the largest element in one pass, as a (lo, hi) pair. Each input x enters as
// (x, x); the op is component-wise (min, max), commutative and exact. Identity (+inf, -inf) for floating
// point, (max, lowest) for integers. Both pairs are 8 bytes.
#pragma once

#include "lab/functor.hpp"

#include <string>

namespace reducelab::functors {

template <class T>
struct alignas(2 * sizeof(T)) range_of {
  T lo;
  T hi;
  static constexpr const char* type_name = std::is_floating_point_v<T> ? "float_range" : "int32_range";
  __host__ __device__ bool operator==(const range_of& o) const { return lo == o.lo && hi == o.hi; }
  std::string to_string() const { return "[" + value_to_string(lo) + ", " + value_to_string(hi) + "]"; }
};

using float_range = range_of<float>;
using int32_range = range_of<std::int32_t>;

struct min_max {
  static constexpr const char* summary = "(min, max) in one pass (example)";
  static constexpr bool commutative = true;
  static constexpr bool rounding_free = true;
  using value_types = type_list<float_range, int32_range>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    using E = decltype(T::lo);
    if constexpr (std::is_floating_point_v<E>) {
      return T{cuda::std::numeric_limits<E>::infinity(), -cuda::std::numeric_limits<E>::infinity()};
    } else {
      return T{cuda::std::numeric_limits<E>::max(), cuda::std::numeric_limits<E>::lowest()};
    }
  }

  // Hard cases: infinities and the finite extremes.
  template <class T, class RngT>
  static T adversarial_input(unsigned, RngT& rng, std::size_t, std::size_t) {
    using E = decltype(T::lo);
    using L = std::numeric_limits<E>;
    E x;
    if constexpr (std::is_floating_point_v<E>) {
      const E hard[] = {-L::infinity(), L::infinity(), L::lowest(), L::max(), -E(0), E(0)};
      x = pick(rng, hard);
    } else {
      x = integer_extreme<E>(rng);
    }
    return T{x, x};
  }

  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return T{cuda::minimum<>{}(a.lo, b.lo), cuda::maximum<>{}(a.hi, b.hi)};
  }

  template <class T, class RngT>
  static T random_input(RngT& rng, std::size_t) {
    using E = decltype(T::lo);
    const E x = default_random_input<E>(rng);
    return T{x, x};
  }

  template <class T>
  static T constant_input() {
    return T{1, 1};
  }
};

}  // namespace reducelab::functors
