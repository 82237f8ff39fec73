// argmax: the (value, index) pair with the largest value; equal values go to the lower index, so the answer
// is the first position of the maximum whatever order the pairs were combined in (commutative, exact).
// Identity: (-inf, largest index) - it loses to every pair, ties included. The inputs are (x_i, i) pairs with
// values drawn from 0..999 so that ties really happen. Over float the pair is 8 bytes (fits one 64-bit word).
#pragma once

#include "lab/functor.hpp"

#include <string>

namespace reducelab::functors {

template <class ValueT, class IndexT>
struct alignas(sizeof(ValueT) + sizeof(IndexT) <= 16 ? sizeof(ValueT) + sizeof(IndexT) : 16) value_index {
  ValueT value;
  IndexT index;
  static constexpr const char* type_name = sizeof(ValueT) == 4 ? "float_idx32" : "double_idx64";
  __host__ __device__ bool operator==(const value_index& o) const { return value == o.value && index == o.index; }
  std::string to_string() const { return "(" + value_to_string(value) + ", " + std::to_string(index) + ")"; }
};

using float_idx32 = value_index<float, std::uint32_t>;
using double_idx64 = value_index<double, std::uint64_t>;

struct argmax {
  static constexpr const char* summary = "(value, index) of the maximum, first index on ties (example)";
  static constexpr bool commutative = true;
  static constexpr bool rounding_free = true;
  using value_types = type_list<float_idx32, double_idx64>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    using V = decltype(T::value);
    using I = decltype(T::index);
    return T{-cuda::std::numeric_limits<V>::infinity(), cuda::std::numeric_limits<I>::max()};
  }

  // Hard cases: 0 every value equal (the answer is index 0, decided by ties alone); 1 every value -inf
  // (ties with the identity's value too).
  template <class T>
  static constexpr unsigned adversarial_scenarios() {
    return 2;
  }
  template <class T, class RngT>
  static T adversarial_input(unsigned scenario, RngT&, std::size_t index, std::size_t) {
    using V = decltype(T::value);
    using I = decltype(T::index);
    return T{scenario == 0 ? V(7) : -cuda::std::numeric_limits<V>::infinity(), static_cast<I>(index)};
  }

  // b wins if its value is larger, or equal with a lower index; a NaN never wins from b's side and always keeps a's
  // place on a's (as `a.value < b.value ? b : a` did). Written as one predicate and two selects, not as branches:
  // nvcc kept the branches of the if/else form (three per combine), which serialised a fold's independent combines
  // and the loads between them.
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    const bool b_wins = (a.value < b.value) | ((a.value == b.value) & (b.index < a.index));
    T r;
    r.value = b_wins ? b.value : a.value;
    r.index = b_wins ? b.index : a.index;
    return r;
  }

  template <class T, class RngT>
  static T random_input(RngT& rng, std::size_t index) {
    using V = decltype(T::value);
    using I = decltype(T::index);
    return T{static_cast<V>(rng() % 1000), static_cast<I>(index)};
  }

  template <class T>
  static T constant_input() {
    return T{1, 0};
  }
};

}  // namespace reducelab::functors
