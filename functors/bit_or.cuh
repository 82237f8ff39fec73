// bit_or: a | b over the integer types. Wraps cuda::std::bit_or. Identity 0. Exact.
#pragma once

#include "lab/functor.hpp"

namespace reducelab::functors {

struct bit_or {
  static constexpr const char* summary = "bitwise a | b, identity 0";
  static constexpr bool commutative = true;
  static constexpr builtin_op builtin = builtin_op::bit_or;
  using value_types = type_list<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T(0);
  }

  // Hard cases: the integer extremes (all ones, the sign bit alone, ...).
  template <class T, class RngT>
  static T adversarial_input(unsigned, RngT& rng, std::size_t, std::size_t) {
    return integer_extreme<T>(rng);
  }

  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return static_cast<T>(cuda::std::bit_or<>{}(a, b));
  }
};

}  // namespace reducelab::functors
