// Host references. reduce_in_order is the std::accumulate order: ((e op x0) op x1) op ... - the one result
// every order-preserving variant must reproduce exactly for an exact functor, commutative or not.
// judge() decides whether a GPU result is right: == against that reference for exact (functor, type) pairs,
// the functor's own stated error bound otherwise.
#pragma once

#include "reducelab/core/traits.hpp"
#include "lab/host/accuracy.hpp"

#include <cstddef>
#include <limits>

namespace reducelab {

template <class OpT, class T>
T reduce_in_order(const T* x, std::size_t n, OpT op = {}) {
  T acc = identity_of<OpT, T>();
  for (std::size_t i = 0; i < n; ++i) acc = op(acc, x[i]);
  return acc;
}

namespace detail {
template <class OpT, class T, class = void>
struct has_check_accuracy : std::false_type {};
template <class OpT, class T>
struct has_check_accuracy<OpT, T,
                          std::void_t<decltype(OpT::template check_accuracy<T>(
                              std::declval<const T*>(), std::size_t{}, std::declval<const T&>(), std::size_t{}))>>
    : std::true_type {};
}  // namespace detail

/// Judge `got`, a reduction of x[0..n) whose combine tree had at most `depth` levels (n-1 if unknown).
template <class OpT, class T>
verdict judge(const T* x, std::size_t n, const T& got, std::size_t depth = std::numeric_limits<std::size_t>::max()) {
  if (depth > n) depth = n == 0 ? 0 : n - 1;
  if constexpr (is_exact_v<OpT, T>) {
    const T want = reduce_in_order<OpT, T>(x, n);
    verdict v;
    v.got = value_to_string(got);
    v.want = value_to_string(want);
    v.ok = values_equal(got, want);
    return v;
  } else {
    static_assert(detail::has_check_accuracy<OpT, T>::value,
                  "reducelab: this functor rounds over this type (is_exact is false), so it must state its error "
                  "bound: add `template <class T> static reducelab::verdict check_accuracy(const T* x, size_t n, "
                  "const T& got, size_t depth)`.");
    return OpT::template check_accuracy<T>(x, n, got, depth);
  }
}

}  // namespace reducelab
