// affine_compose: composition of affine maps x -> a*x + b modulo 2^bits, in sequence order: f op g is
// "apply f, then g" = (g.a*f.a, g.a*f.b + g.b). Exact and associative but NOT commutative, so it is the
// operator that shows which variants really preserve order: CUB's and Thrust's reductions document that they
// may reorder operands and are not run on it. A reduction of maps is how a linear recurrence
// y_i = a_i*y_{i-1} + b_i (a linear congruential generator jump-ahead, say) is evaluated in parallel.
// Identity: (1, 0). The a's are odd so a long composition never collapses to a constant map.
#pragma once

#include "lab/functor.hpp"

#include <string>

namespace reducelab::functors {

template <class U>
struct alignas(2 * sizeof(U)) affine_map {
  U a;
  U b;
  static constexpr const char* type_name = sizeof(U) == 4 ? "affine32" : "affine64";
  __host__ __device__ bool operator==(const affine_map& o) const { return a == o.a && b == o.b; }
  std::string to_string() const { return "x*" + std::to_string(a) + "+" + std::to_string(b); }
};

using affine32 = affine_map<std::uint32_t>;
using affine64 = affine_map<std::uint64_t>;

struct affine_compose {
  static constexpr const char* summary = "composition of x -> a*x+b mod 2^n, in order (example, non-commutative)";
  static constexpr bool commutative = false;
  using value_types = type_list<affine32, affine64>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{1, 0};
  }

  // Hard cases: multipliers and offsets at the extremes of the word (wrap-around in every product).
  template <class T, class RngT>
  static T adversarial_input(unsigned, RngT& rng, std::size_t, std::size_t) {
    using U = decltype(T::a);
    const U big_odd[] = {U(1), static_cast<U>(~U(0)), static_cast<U>((U(1) << (8 * sizeof(U) - 1)) + 1)};
    const U offsets[] = {U(0), static_cast<U>(~U(0)), U(1)};
    return T{pick(rng, big_odd), pick(rng, offsets)};
  }

  template <class T>
  __host__ __device__ T operator()(const T& f, const T& g) const {
    return T{static_cast<decltype(T::a)>(g.a * f.a), static_cast<decltype(T::a)>(g.a * f.b + g.b)};
  }

  template <class T, class RngT>
  static T random_input(RngT& rng, std::size_t) {
    using U = decltype(T::a);
    return T{static_cast<U>(rng() | 1u), static_cast<U>(rng())};
  }

  template <class T>
  static T constant_input() {
    return T{3, 1};
  }
};

}  // namespace reducelab::functors
