// bit_and: a & b over the integer types. Wraps cuda::std::bit_and. Identity all ones. Exact.
#pragma once

#include "lab/functor.hpp"

namespace reducelab::functors {

struct bit_and {
  static constexpr const char* summary = "bitwise a & b, identity all ones";
  static constexpr bool commutative = true;
  static constexpr builtin_op builtin = builtin_op::bit_and;
  using value_types = type_list<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T(~T(0));
  }

  // Hard cases: the integer extremes (all ones, the sign bit alone, ...).
  template <class T, class RngT>
  static T adversarial_input(unsigned, RngT& rng, std::size_t, std::size_t) {
    return integer_extreme<T>(rng);
  }

  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return static_cast<T>(cuda::std::bit_and<>{}(a, b));
  }
};

}  // namespace reducelab::functors
