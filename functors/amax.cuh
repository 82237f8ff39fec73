// amax: the largest element, NaN propagating - what numpy.max / numpy.amax and torch.amax return, IEEE
// 754-2019 `maximum`. Unlike `maximum` (cuda::maximum, `(a < b) ? b : a`, whose result on NaN inputs depends
// on the order a backend combines in), every result is bitwise the same whatever the combine order:
//   - a NaN operand wins, and a NaN result is always the canonical quiet NaN (numeric_limits<T>::quiet_NaN()),
//     so NaN payloads and signs in the input cannot make it order dependent: all NaNs are one value here;
//   - +0.0 is larger than -0.0 (with `<` alone, max(-0.0, +0.0) returns whichever operand came first).
// So amax is the maximum of the total order -inf < ... < -0.0 < +0.0 < ... < +inf < NaN: commutative,
// associative and exact. Identity -inf (lowest() would not be one for -inf inputs).
//
// This header also holds what amin, nanmax and nanmin share (namespace nan_aware): the order above, the
// canonical NaN and the adversarial inputs. A helper header of its own under functors/ would be registered
// as a functor by the build's glob.
#pragma once

#include "lab/functor.hpp"

#include <cuda/std/cmath>

#include <cstring>

namespace reducelab::functors {

namespace nan_aware {

/// The one NaN that amax, amin, nanmax and nanmin return (0x7fc00000 for float).
template <class T>
constexpr __host__ __device__ T canonical_nan() {
  return cuda::std::numeric_limits<T>::quiet_NaN();
}

/// The larger of two non-NaN values, with -0.0 < +0.0. Equal values other than the two zeros have the same bits.
template <class T>
__host__ __device__ T larger(const T& a, const T& b) {
  if (a < b) return b;
  if (b < a) return a;
  return cuda::std::signbit(a) ? b : a;
}

/// The smaller of two non-NaN values, with -0.0 < +0.0.
template <class T>
__host__ __device__ T smaller(const T& a, const T& b) {
  if (a < b) return a;
  if (b < a) return b;
  return cuda::std::signbit(a) ? a : b;
}

/// A quiet NaN carrying `payload` in its low mantissa bits, negative if asked: NaNs that differ bitwise from
/// the canonical one, for inputs.
template <class T>
T nan_with_payload(std::uint64_t payload, bool negative = false) {
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  static_assert(sizeof(U) == sizeof(T), "reducelab: float or double only");
  const T quiet = std::numeric_limits<T>::quiet_NaN();
  U bits;
  std::memcpy(&bits, &quiet, sizeof bits);
  bits |= static_cast<U>(payload) & ((U{1} << (std::numeric_limits<T>::digits - 2)) - 1);  // below the quiet bit
  if (negative) bits |= U{1} << (8 * sizeof(U) - 1);
  T v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

/// Adversarial scenarios shared by the four functors:
///   0 NaN-heavy: a third NaNs (canonical, negative, with payloads, signalling), the rest infinities, the
///     finite extremes, denormals and both zeros;
///   1 only NaNs, of those kinds: amax/amin give the canonical NaN, nanmax/nanmin their identity, NaN;
///   2 only zeros of both signs: the sign of a zero result must not depend on the order;
///   3 infinities and zeros with a single NaN in the middle: amax/amin must not lose it, nanmax/nanmin must
///     skip it.
inline constexpr unsigned adversarial_scenarios = 4;

template <class T, class RngT>
T adversarial_input(unsigned scenario, RngT& rng, std::size_t i, std::size_t n) {
  using L = std::numeric_limits<T>;
  const T nans[] = {L::quiet_NaN(), -L::quiet_NaN(), nan_with_payload<T>(1), nan_with_payload<T>(0x12345, true),
                    L::signaling_NaN()};
  const T hard[] = {-L::infinity(), L::infinity(), L::lowest(), L::max(), -L::denorm_min(), L::denorm_min(),
                    -T(0), T(0)};
  const T zeros[] = {-T(0), T(0)};
  const T infinities_and_zeros[] = {-L::infinity(), L::infinity(), -T(0), T(0)};
  switch (scenario) {
    case 0: return rng() % 3 == 0 ? pick(rng, nans) : pick(rng, hard);
    case 1: return pick(rng, nans);
    case 2: return pick(rng, zeros);
    default: return i == n / 2 ? L::quiet_NaN() : pick(rng, infinities_and_zeros);
  }
}

}  // namespace nan_aware

struct amax {
  static constexpr const char* summary = "max(a, b), NaN propagating (numpy.max); +0.0 > -0.0; one canonical NaN";
  static constexpr bool commutative = true;
  static constexpr bool rounding_free = true;
  using value_types = type_list<float, double>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    return -cuda::std::numeric_limits<T>::infinity();
  }

  template <class T>
  static constexpr unsigned adversarial_scenarios() {
    return nan_aware::adversarial_scenarios;
  }
  template <class T, class RngT>
  static T adversarial_input(unsigned scenario, RngT& rng, std::size_t i, std::size_t n) {
    return nan_aware::adversarial_input<T>(scenario, rng, i, n);
  }

  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    if (cuda::std::isnan(a) || cuda::std::isnan(b)) return nan_aware::canonical_nan<T>();
    return nan_aware::larger(a, b);
  }
};

}  // namespace reducelab::functors
