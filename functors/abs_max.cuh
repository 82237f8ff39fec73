// abs_max: the element of largest magnitude, keeping its sign - the "largest entry" of a vector as in a
// max-norm with the culprit's sign. |a| vs |b| on its own would not be commutative when |a| == |b| and the
// signs differ, so ties go to the larger value (and +0.0 beats -0.0), a total order: the op is commutative,
// associative and exact. Identity: 0 (-0.0 for floating point, which loses every tie). Integer magnitudes are
// compared in the unsigned type so |INT_MIN| does not overflow. NaN inputs are outside the domain.
#pragma once

#include "lab/functor.hpp"

#include <cuda/std/cmath>

namespace reducelab::functors {

struct abs_max {
  static constexpr const char* summary = "the element of largest |x|, sign kept; ties to the larger value (example)";
  static constexpr bool commutative = true;
  static constexpr bool rounding_free = true;
  static constexpr bool nan_undefined = true;  // its comparisons order NaN arbitrarily: `check --inputs nan` shows it
  using value_types = type_list<std::int32_t, std::int64_t, float, double>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    if constexpr (std::is_floating_point_v<T>) {
      return -T(0);
    } else {
      return T(0);
    }
  }

  // Hard cases: the extremes of both signs (|lowest()| has no positive counterpart), infinities, zeros.
  template <class T, class RngT>
  static T adversarial_input(unsigned, RngT& rng, std::size_t, std::size_t) {
    if constexpr (std::is_floating_point_v<T>) {
      using L = std::numeric_limits<T>;
      const T hard[] = {-L::infinity(), L::infinity(), L::lowest(), L::max(), -T(0), T(0), L::denorm_min()};
      return pick(rng, hard);
    } else {
      return integer_extreme<T>(rng);
    }
  }

  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    const auto ma = magnitude(a), mb = magnitude(b);
    if (ma != mb) return ma < mb ? b : a;
    if constexpr (std::is_floating_point_v<T>) {
      if (a == b) return cuda::std::signbit(a) ? b : a;  // +0.0 beats -0.0
    }
    return a < b ? b : a;
  }

 private:
  template <class T>
  static __host__ __device__ auto magnitude(const T& v) {
    if constexpr (std::is_floating_point_v<T>) {
      return cuda::std::fabs(v);
    } else {
      using U = std::make_unsigned_t<T>;
      return v < 0 ? static_cast<U>(U(0) - static_cast<U>(v)) : static_cast<U>(v);
    }
  }
};

}  // namespace reducelab::functors
