// logical_or: a || b over bool, and over uint8 holding 0 or 1 (the result is always 0 or 1). Wraps
// cuda::std::logical_or. Identity false. Inputs are 0/1: over other bytes the identity law fails (e op 5 == 1).
#pragma once

#include "lab/functor.hpp"

namespace reducelab::functors {

struct logical_or {
  static constexpr const char* summary = "logical or over 0/1 values";
  static constexpr bool commutative = true;
  static constexpr builtin_op builtin = builtin_op::logical_or;
  using value_types = type_list<bool, std::uint8_t>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T(false);
  }

  // Hard case: the identity everywhere but one element in the middle, which alone decides the result.
  template <class T, class RngT>
  static T adversarial_input(unsigned, RngT&, std::size_t i, std::size_t n) {
    return static_cast<T>(i == n / 2 ? !false : false);
  }

  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return static_cast<T>(cuda::std::logical_or<>{}(a, b));
  }

  template <class T, class RngT>
  static T random_input(RngT& rng, std::size_t) {
    return static_cast<T>(rng() & 1);
  }
};

}  // namespace reducelab::functors
