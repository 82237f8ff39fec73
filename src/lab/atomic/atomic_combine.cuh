// atomic_combine(address, value, op): *address = op(*address, value) as one atomic step, in shared or global
// memory, for any functor and any trivially copyable T of at most 8 bytes.
//
// The hardware has atomics for a few (operator, type) pairs only: add on 32/64-bit integers, float and double;
// max/min on 32/64-bit integers (not on floats: their bit patterns do not order like integers once signs
// differ); and/or/xor on 32/64-bit integers. Every other pair (floating-point max, multiplies, user functors,
// structs such as (value, index), bool and uint8) goes through a compare-and-swap loop on the aligned 32- or
// 64-bit word that holds the value: read the word, combine the bytes of T inside it, and retry until no other
// thread changed the word in between. There is no CAS narrower than 32 bits, so a 1- or 2-byte T is spliced
// into its containing word and the neighbouring bytes are written back unchanged.
//
// Requirement: the bytes of *address lie inside one naturally aligned 8-byte word. Every T whose alignment
// equals its size (the built-in types, float_idx32, affine32) meets it wherever it lives; a buffer for any other
// T of at most 8 bytes meets it when aligned to 8 (see atomic_slot below).
//
// The order in which racing threads land is arbitrary, so op must be commutative and the result of a
// floating-point reduction may differ from run to run.
#pragma once

#include "reducelab/core/traits.hpp"

#include <cuda/std/type_traits>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace reducelab {

/// Whether atomic_combine can serve T: the widest compare-and-swap is 64 bits.
template <class T>
inline constexpr bool atomic_combinable_v = cuda::std::is_trivially_copyable_v<T> && sizeof(T) <= 8;

/// Storage for a value that threads combine into with atomic_combine: aligned to 8 bytes so that a T of any
/// size up to 8 sits inside one aligned 64-bit word. A struct without constructors, so it can be __shared__.
template <class T>
struct alignas(alignof(T) > 8 ? alignof(T) : 8) atomic_slot {
  T value;
};

namespace detail {

/// Whether the hardware has an atomic instruction for (OpT, T).
template <class OpT, class T>
constexpr bool has_native_atomic() {
  constexpr builtin_op kind = builtin_kind_v<OpT>;
  constexpr bool int_word =
      cuda::std::is_integral_v<T> && !cuda::std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8);
  constexpr bool fp = cuda::std::is_same_v<T, float> || cuda::std::is_same_v<T, double>;
  switch (kind) {
    case builtin_op::plus:
      return int_word || fp;
    case builtin_op::maximum:
    case builtin_op::minimum:
    case builtin_op::bit_and:
    case builtin_op::bit_or:
    case builtin_op::bit_xor:
      return int_word;
    default:
      return false;
  }
}

// The intrinsics' integer parameter types: int / unsigned / long long / unsigned long long. std::int64_t is
// `long` on Linux, so T is mapped onto the intrinsic's type of the same size and signedness.
template <class T>
using signed_word_t = cuda::std::conditional_t<sizeof(T) == 4, int, long long>;
template <class T>
using unsigned_word_t = cuda::std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;

template <class OpT, class T>
__device__ __forceinline__ void native_atomic(T* address, T value) {
  constexpr builtin_op kind = builtin_kind_v<OpT>;
  using U = unsigned_word_t<T>;
  if constexpr (cuda::std::is_floating_point_v<T>) {
    atomicAdd(address, value);  // only plus reaches here for floating point
  } else if constexpr (kind == builtin_op::plus) {
    // Two's complement: a signed sum wraps to the same bits as the unsigned one (and apply_wrapping agrees).
    atomicAdd(reinterpret_cast<U*>(address), static_cast<U>(value));
  } else if constexpr (kind == builtin_op::maximum || kind == builtin_op::minimum) {
    // Order depends on signedness, so keep it.
    using W = cuda::std::conditional_t<cuda::std::is_signed_v<T>, signed_word_t<T>, U>;
    if constexpr (kind == builtin_op::maximum) {
      atomicMax(reinterpret_cast<W*>(address), static_cast<W>(value));
    } else {
      atomicMin(reinterpret_cast<W*>(address), static_cast<W>(value));
    }
  } else if constexpr (kind == builtin_op::bit_and) {
    atomicAnd(reinterpret_cast<U*>(address), static_cast<U>(value));
  } else if constexpr (kind == builtin_op::bit_or) {
    atomicOr(reinterpret_cast<U*>(address), static_cast<U>(value));
  } else {
    static_assert(kind == builtin_op::bit_xor, "reducelab: native_atomic called without a native atomic");
    atomicXor(reinterpret_cast<U*>(address), static_cast<U>(value));
  }
}

/// A WordT with its low Bytes bytes set.
template <class WordT, std::size_t Bytes>
constexpr __host__ __device__ WordT low_bytes_mask() {
  if constexpr (Bytes >= sizeof(WordT)) {
    return ~WordT{0};
  } else {
    return (WordT{1} << (8 * Bytes)) - 1;
  }
}

/// Compare-and-swap loop on the aligned WordT (unsigned or unsigned long long) that contains *address.
/// The GPU is little-endian: the byte at offset k of the word is bits [8k, 8k + 8) of its value.
template <class WordT, class OpT, class T>
__device__ __forceinline__ void cas_combine(T* address, T value, OpT op) {
  static_assert(sizeof(T) <= sizeof(WordT), "reducelab: value wider than its CAS word");
  const auto where = reinterpret_cast<std::uintptr_t>(address);
  const unsigned shift = 8u * static_cast<unsigned>(where % sizeof(WordT));
  WordT* word = reinterpret_cast<WordT*>(where - where % sizeof(WordT));
  constexpr WordT field = low_bytes_mask<WordT, sizeof(T)>();

  WordT seen = *reinterpret_cast<volatile WordT*>(word);
  while (true) {
    const WordT bits = (seen >> shift) & field;
    T current;
    memcpy(&current, &bits, sizeof(T));  // little-endian: the low bytes of `bits` are the value
    const T next = op(current, value);
    WordT next_bits = 0;
    memcpy(&next_bits, &next, sizeof(T));
    const WordT desired = (seen & ~(field << shift)) | (next_bits << shift);
    if (desired == seen) return;  // nothing changes (max against a smaller value, or with false): no write
    // Compare words, not values: a NaN never equals itself, and -0.0 == +0.0 would lose a sign.
    const WordT before = atomicCAS(word, seen, desired);
    if (before == seen) return;
    seen = before;
  }
}

}  // namespace detail

/// *address = op(*address, value), atomically, in shared or global memory. See the file comment for the
/// alignment requirement; op must be commutative (racing threads land in any order).
template <class OpT, class T>
__device__ __forceinline__ void atomic_combine(T* address, T value, OpT op) {
  static_assert(atomic_combinable_v<T>,
                "reducelab: atomic_combine needs a trivially copyable value type of at most 8 bytes");
  if constexpr (detail::has_native_atomic<OpT, T>()) {
    detail::native_atomic<OpT>(address, value);
  } else if constexpr (sizeof(T) > 4) {
    detail::cas_combine<unsigned long long>(address, value, op);
  } else if constexpr (alignof(T) >= sizeof(T)) {
    detail::cas_combine<unsigned>(address, value, op);  // naturally aligned: never crosses a 32-bit word
  } else {
    // A packed struct of 2 to 4 bytes may straddle 32-bit words; it stays inside its 64-bit word.
    const auto offset = reinterpret_cast<std::uintptr_t>(address) % 4;
    if (offset + sizeof(T) <= 4) {
      detail::cas_combine<unsigned>(address, value, op);
    } else {
      detail::cas_combine<unsigned long long>(address, value, op);
    }
  }
}

}  // namespace reducelab
