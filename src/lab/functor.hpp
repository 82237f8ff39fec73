// Everything a functor header under functors/ needs. A functor is a struct named like its file
// (functors/abs_max.cuh defines reducelab::functors::abs_max) with
//   using value_types = reducelab::type_list<...>;            the value types it is registered for
//   static constexpr const char* summary = "...";             one line for `reducelab list`
//   template <class T> __host__ __device__ T operator()(const T&, const T&) const;
//   an identity per type: a static member template identity<T>() or a reducelab::identity_element specialization
// and optionally
//   static constexpr bool commutative = true;                 absent means non-commutative (the safe default)
//   static constexpr bool rounding_free = true;               exact over floating-point types too (max, min)
//   template <class T> static verdict check_accuracy(const T* x, size_t n, const T& got, size_t depth);
//                                                             required when the result may round
//   template <class T, class Rng> static T random_input(Rng&, size_t index);   the input domain (default below)
//   template <class T> static T constant_input();             a non-identity constant (default T(1))
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/core/type_list.hpp"
#include "lab/core/value_traits.hpp"
#include "lab/host/accuracy.hpp"
#include "lab/host/inputs.hpp"

#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda/std/limits>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace reducelab {

/// Apply an arithmetic CCCL functor; signed integers go through their unsigned type, so overflow wraps
/// modulo 2^bits (defined behaviour, and what the GPU's integer units do anyway).
template <class FnT, class T>
__host__ __device__ constexpr T apply_wrapping(FnT fn, const T& a, const T& b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(fn(static_cast<U>(a), static_cast<U>(b))));
  } else {
    return static_cast<T>(fn(a, b));
  }
}

/// One of the given values, chosen by rng: adversarial generators draw from lists of hard cases.
template <class T, class RngT, std::size_t N>
T pick(RngT& rng, const T (&choices)[N]) {
  return choices[rng() % N];
}

/// The integer extremes and their neighbours: overflow, sign and all-ones corner cases.
template <class T, class RngT>
T integer_extreme(RngT& rng) {
  using L = std::numeric_limits<T>;
  const T choices[] = {L::lowest(), L::max(), static_cast<T>(L::lowest() + 1), static_cast<T>(L::max() - 1),
                       T(0), T(1), static_cast<T>(~T(0))};
  return pick(rng, choices);
}

}  // namespace reducelab
