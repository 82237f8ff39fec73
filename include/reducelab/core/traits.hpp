// The traits that make a binary functor a reduction operator (a monoid):
//   identity_element<OpT, T>  the identity of OpT over T (specialize it, or give OpT a static identity<T>())
//   is_commutative<OpT>       whether a op b == b op a (read from OpT::commutative; absent means "no",
//                             so an undeclared functor is only ever run on order-preserving variants)
//   builtin_kind<OpT>         which well-known operator OpT is, so a variant can use a hardware path for it
//   is_nan_undefined<OpT>     whether NaN inputs are outside OpT's domain (read from OpT::nan_undefined)
#pragma once

#include <cuda/std/type_traits>

#include <type_traits>

namespace reducelab {

// ---------------------------------------------------------------------------------------------------------
// Identity
// ---------------------------------------------------------------------------------------------------------

/// Specialize for (OpT, T) with `static constexpr __host__ __device__ T value()` returning the identity.
/// The primary template has no value(): "no identity", which identity_of<OpT, T>() turns into a readable error.
template <class OpT, class T, class Enable = void>
struct identity_element {};

namespace detail {
template <class OpT, class T, class = void>
struct has_member_identity : std::false_type {};
template <class OpT, class T>
struct has_member_identity<OpT, T, std::void_t<decltype(OpT::template identity<T>())>> : std::true_type {};
}  // namespace detail

/// A functor with a static member template `identity<T>()` gets its identity from there.
template <class OpT, class T>
struct identity_element<OpT, T, std::enable_if_t<detail::has_member_identity<OpT, T>::value>> {
  static constexpr __host__ __device__ T value() { return OpT::template identity<T>(); }
};

template <class OpT, class T, class = void>
struct has_identity : std::false_type {};
template <class OpT, class T>
struct has_identity<OpT, T, std::void_t<decltype(identity_element<OpT, T>::value())>> : std::true_type {};
template <class OpT, class T>
inline constexpr bool has_identity_v = has_identity<OpT, T>::value;

/// The identity of OpT over T. A functor with no identity for T stops the build here, with this message.
template <class OpT, class T>
constexpr __host__ __device__ T identity_of() {
  static_assert(has_identity_v<OpT, T>,
                "reducelab: this reduction functor has no identity element for this value type. Give the "
                "functor a static member template `identity<T>()`, or specialize "
                "reducelab::identity_element<OpT, T> with a static value().");
  if constexpr (has_identity_v<OpT, T>) {
    return identity_element<OpT, T>::value();
  } else {
    return T{};
  }
}

// ---------------------------------------------------------------------------------------------------------
// Commutativity
// ---------------------------------------------------------------------------------------------------------

/// Specialize, or declare `static constexpr bool commutative = true;` in the functor. Undeclared means false.
template <class OpT, class Enable = void>
struct is_commutative : std::false_type {};
template <class OpT>
struct is_commutative<OpT, std::void_t<decltype(OpT::commutative)>> : std::bool_constant<OpT::commutative> {};
template <class OpT>
inline constexpr bool is_commutative_v = is_commutative<OpT>::value;

// ---------------------------------------------------------------------------------------------------------
// Well-known operators
// ---------------------------------------------------------------------------------------------------------

enum class builtin_op { none, plus, multiplies, maximum, minimum, logical_and, logical_or, bit_and, bit_or, bit_xor };

/// Read from `static constexpr builtin_op builtin` in the functor; user functors are `none`.
template <class OpT, class Enable = void>
struct builtin_kind : std::integral_constant<builtin_op, builtin_op::none> {};
template <class OpT>
struct builtin_kind<OpT, std::void_t<decltype(OpT::builtin)>> : std::integral_constant<builtin_op, OpT::builtin> {};
template <class OpT>
inline constexpr builtin_op builtin_kind_v = builtin_kind<OpT>::value;

// ---------------------------------------------------------------------------------------------------------
// Exactness: does combining values of T with OpT ever round?
// ---------------------------------------------------------------------------------------------------------

namespace detail {
template <class OpT, class T, class = void>
struct has_member_exact_for : std::false_type {};
template <class OpT, class T>
struct has_member_exact_for<OpT, T, std::void_t<decltype(OpT::template exact_for<T>())>> : std::true_type {};
template <class OpT, class = void>
struct rounding_free : std::false_type {};
template <class OpT>
struct rounding_free<OpT, std::void_t<decltype(OpT::rounding_free)>> : std::bool_constant<OpT::rounding_free> {};
}  // namespace detail

/// Results of an exact (OpT, T) must equal the in-order reference bit for bit (==); the others are checked
/// against the error bound the functor states in its `check_accuracy`. Default: exact unless T is floating
/// point, or the functor says `static constexpr bool rounding_free = true` (max, min...). A functor over a
/// struct of floats says `template <class T> static constexpr bool exact_for() { return false; }`.
template <class OpT, class T>
constexpr bool is_exact() {
  if constexpr (detail::has_member_exact_for<OpT, T>::value) {
    return OpT::template exact_for<T>();
  } else {
    return detail::rounding_free<OpT>::value || !std::is_floating_point_v<T>;
  }
}
template <class OpT, class T>
inline constexpr bool is_exact_v = is_exact<OpT, T>();

// ---------------------------------------------------------------------------------------------------------
// NaN inputs
// ---------------------------------------------------------------------------------------------------------

/// `static constexpr bool nan_undefined = true;` in a functor says that its result on floating-point inputs
/// holding a NaN is not defined: it may depend on the order the operands are combined in (maximum and minimum,
/// `(a < b) ? b : a`). Such results are shown, not judged (check_status::undefined on `check --inputs nan`).
/// Undeclared means false: a NaN input is judged like any other.
template <class OpT, class Enable = void>
struct is_nan_undefined : std::false_type {};
template <class OpT>
struct is_nan_undefined<OpT, std::void_t<decltype(OpT::nan_undefined)>> : std::bool_constant<OpT::nan_undefined> {};
template <class OpT>
inline constexpr bool is_nan_undefined_v = is_nan_undefined<OpT>::value;

}  // namespace reducelab
