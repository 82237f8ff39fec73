// mean_variance: merge of (count, mean, M2) summaries, Chan et al.'s parallel form of Welford's update, so
// mean and variance (M2 / count) of a data set come out of one pass. Each input x enters as (1, x, 0); the
// inputs here are 10 + U(-1, 1), so the variance is small next to the mean - the case the naive
// sum-of-squares formula gets wrong. Identity: (0, 0, 0), returned operands unchanged on either side.
// Commutative in exact arithmetic; it rounds, so results are judged against check_accuracy's bound.
#pragma once

#include "lab/functor.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace reducelab::functors {

struct moments64 {
  double count;
  double mean;
  double m2;  // sum of squared deviations from the mean
  static constexpr const char* type_name = "moments64";
  __host__ __device__ bool operator==(const moments64& o) const {
    return count == o.count && mean == o.mean && m2 == o.m2;
  }
  std::string to_string() const {
    return "(n=" + value_to_string(count) + ", mean=" + value_to_string(mean) + ", M2=" + value_to_string(m2) + ")";
  }
};

struct mean_variance {
  static constexpr const char* summary = "merge of (count, mean, M2) summaries, Chan/Welford (example)";
  static constexpr bool commutative = true;
  using value_types = type_list<moments64>;

  template <class T>
  static constexpr bool exact_for() {
    return false;
  }

  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{0, 0, 0};
  }

  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    if (a.count == 0) return b;
    if (b.count == 0) return a;
    const double n = a.count + b.count;
    const double delta = b.mean - a.mean;
    return T{n, a.mean + delta * (b.count / n), a.m2 + b.m2 + delta * delta * (a.count * (b.count / n))};
  }

  template <class T, class RngT>
  static T random_input(RngT& rng, std::size_t) {
    return T{1, 10.0 + default_random_input<double>(rng), 0};
  }

  // Hard case: a mean of 1e8 with a spread of 1e-3 - the cancellation that ruins the sum-of-squares formula.
  template <class T, class RngT>
  static T adversarial_input(unsigned, RngT& rng, std::size_t, std::size_t) {
    return T{1, 1e8 + 1e-3 * default_random_input<double>(rng), 0};
  }

  template <class T>
  static T constant_input() {
    return T{1, 2.5, 0};
  }

  // Bound, first order in u = 2^-53 (u^2 terms dropped), for a merge tree of depth d over n inputs whose
  // means are at most M in magnitude. One merge adds at most 4 roundings to the mean, each relative to a
  // quantity of size <= 3M, and passes its operands' errors on as a convex combination, so
  //   |mean error| <= E = 12 d u M.
  // M2 gains at most 7 roundings per level relative to itself, plus the effect of the mean errors on delta^2:
  //   |M2 error| <= 7 d u M2 + 4 M (2E + 2uM) * n d / 2.
  // Counts are integers below 2^53 and must be exact. The reference is a two-pass long double computation.
  template <class T>
  static verdict check_accuracy(const T* x, std::size_t n, const T& got, std::size_t depth) {
    long double count = 0, weighted = 0, max_mean = 0;
    for (std::size_t i = 0; i < n; ++i) {
      count += x[i].count;
      weighted += static_cast<long double>(x[i].count) * x[i].mean;
      max_mean = std::max(max_mean, std::fabs(static_cast<long double>(x[i].mean)));
    }
    const long double mean = count > 0 ? weighted / count : 0;
    long double m2 = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const long double d = x[i].mean - mean;
      m2 += x[i].m2 + x[i].count * d * d;
    }
    const long double u = unit_roundoff<double>(), d = static_cast<long double>(depth);
    const long double ref_err = gamma_bound(2 * n + 2, unit_roundoff<long double>());
    const long double mean_bound = 12 * d * u * max_mean + ref_err * max_mean;
    const long double m2_bound = 7 * d * u * m2 + 4 * max_mean * (2 * mean_bound + 2 * u * max_mean) * count * d / 2 +
                                 ref_err * (m2 + count * max_mean * max_mean);
    verdict v;
    v.bounded = true;
    v.got = got.to_string();
    v.want = T{static_cast<double>(count), static_cast<double>(mean), static_cast<double>(m2)}.to_string();
    const long double mean_err = std::fabs(got.mean - mean), m2_err = std::fabs(got.m2 - m2);
    v.error = static_cast<double>(std::max(mean_err, m2_err));
    v.bound = static_cast<double>(std::max(mean_bound, m2_bound));
    v.ok = got.count == count && mean_err <= mean_bound && m2_err <= m2_bound;
    v.note = "mean error " + value_to_string(static_cast<double>(mean_err)) + " <= " +
             value_to_string(static_cast<double>(mean_bound)) + ", M2 error " +
             value_to_string(static_cast<double>(m2_err)) + " <= " + value_to_string(static_cast<double>(m2_bound));
    return v;
  }
};

}  // namespace reducelab::functors
