// amin: the smallest element, NaN propagating - numpy.min / numpy.amin, torch.amin, IEEE 754-2019 `minimum`.
// The mirror of amax (see functors/amax.cuh): any NaN operand gives the canonical quiet NaN, and -0.0 is
// smaller than +0.0, so the result is bitwise the same whatever the combine order. Commutative, associative,
// exact. Identity +inf.
#pragma once

#include "functors/amax.cuh"

namespace reducelab::functors {

struct amin {
  static constexpr const char* summary = "min(a, b), NaN propagating (numpy.min); -0.0 < +0.0; one canonical NaN";
  static constexpr bool commutative = true;
  static constexpr bool rounding_free = true;
  using value_types = type_list<float, double>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    return cuda::std::numeric_limits<T>::infinity();
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
    return nan_aware::smaller(a, b);
  }
};

}  // namespace reducelab::functors
