// nanmin: the smallest element, NaNs ignored - what numpy.nanmin returns, IEEE 754-2019 `minimumNumber`. NaN
// operands are skipped; a result is NaN only when every element is NaN, and then it is the canonical quiet
// NaN (numeric_limits<T>::quiet_NaN()), whatever the payloads. -0.0 is smaller than +0.0. So nanmin is the
// minimum of the total order -inf < ... < -0.0 < +0.0 < ... < +inf < NaN: commutative, associative, exact,
// and bitwise the same whatever the combine order (see functors/amax.cuh).
//
// Identity: NaN, the only value e with op(e, x) == x for every x (all NaNs counting as one value). +inf,
// the other candidate, would swallow a NaN operand (op(+inf, NaN) = +inf, not NaN), and would make an
// all-NaN input, which has no element to take the minimum of, indistinguishable from a real +inf. With
// NaN, an all-NaN input returns NaN as numpy.nanmin does (numpy also warns), and so does an empty one
// (numpy raises there; a reduction returns its identity).
#pragma once

#include "functors/amax.cuh"

namespace reducelab::functors {

struct nanmin {
  static constexpr const char* summary = "min(a, b) ignoring NaN (numpy.nanmin); -0.0 < +0.0; identity NaN";
  static constexpr bool commutative = true;
  static constexpr bool rounding_free = true;
  using value_types = type_list<float, double>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    return nan_aware::canonical_nan<T>();
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
    if (cuda::std::isnan(a)) return cuda::std::isnan(b) ? nan_aware::canonical_nan<T>() : b;
    if (cuda::std::isnan(b)) return a;
    return nan_aware::smaller(a, b);
  }
};

}  // namespace reducelab::functors
