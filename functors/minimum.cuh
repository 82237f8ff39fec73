// minimum: the smaller of a and b. Wraps cuda::minimum. Identity +inf for floating point, max() for integers.
// Exact; NaN inputs are outside its domain (see maximum.cuh; amin and nanmin define them).
#pragma once

#include "lab/functor.hpp"

namespace reducelab::functors {

struct minimum {
  static constexpr const char* summary = "min(a, b) (exact; NaN inputs undefined)";
  static constexpr bool commutative = true;
  static constexpr bool rounding_free = true;
  // NaN inputs give an order-dependent result: `check --inputs nan` shows what each backend returned instead of
  // judging it. amax/amin (NaN propagating) and nanmax/nanmin (NaN ignored) define it.
  static constexpr bool nan_undefined = true;
  static constexpr builtin_op builtin = builtin_op::minimum;
  using value_types = type_list<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;

  template <class T>
  static constexpr __host__ __device__ T identity() {
    if constexpr (std::is_floating_point_v<T>) {
      return cuda::std::numeric_limits<T>::infinity();
    } else {
      return cuda::std::numeric_limits<T>::max();
    }
  }

  // Hard cases: infinities, the finite extremes, denormals and both zeros (scenario 0); only -inf and +inf
  // (scenario 1: the answer is an infinity, which a lowest()/max() identity would get wrong). Integers: extremes.
  template <class T>
  static constexpr unsigned adversarial_scenarios() {
    return std::is_floating_point_v<T> ? 2 : 1;
  }
  template <class T, class RngT>
  static T adversarial_input(unsigned scenario, RngT& rng, std::size_t, std::size_t) {
    if constexpr (std::is_floating_point_v<T>) {
      using L = std::numeric_limits<T>;
      const T hard[] = {-L::infinity(), L::infinity(), L::lowest(), L::max(), -L::denorm_min(), L::denorm_min(),
                        -T(0), T(0)};
      const T infinities[] = {-L::infinity(), L::infinity()};
      return scenario == 0 ? pick(rng, hard) : pick(rng, infinities);
    } else {
      return integer_extreme<T>(rng);
    }
  }

  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return cuda::minimum<>{}(a, b);
  }
};

}  // namespace reducelab::functors
