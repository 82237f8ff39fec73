// How a result computed in some order is judged against the exact one. Exact (functor, type) pairs must equal
// the in-order reference. Floating-point arithmetic functors state a bound; the helpers here give the standard
// ones (Higham, "Accuracy and Stability of Numerical Algorithms", ch. 3-4):
//   a sum whose summation tree has depth d:      |computed - exact| <= gamma(d) * sum |x_i|
//   a product of n values, in any order:         |computed - exact| <= gamma(n-1) * |exact|
//   (every one of the n-1 roundings scales the whole result, so unlike a sum the tree's shape does not help)
// with gamma(d) = d*u / (1 - d*u) and u the unit roundoff of the type (2^-24 for float, 2^-53 for double).
// "depth" is the largest number of roundings any one input goes through: n-1 for the in-order fold, less for
// a tree; a backend that does not state its depth is judged with n-1, which holds for every order.
// The reference itself is computed in long double (x87, u = 2^-64) with Neumaier compensation, and the bound
// adds that reference's own worst-case error, so the check is sound for any order the GPU used.
//
// Where the worst case says nothing - gamma(k) is infinite once k*u >= 1, which is where Thrust and CUB (order
// unknown, so k = n-1) meet 2^24 or more floats - the check would pass anything finite. There, and only
// there, the bound is the probabilistic one of Higham & Mary ("A New Approach to Probabilistic Rounding Error
// Analysis", SIAM J. Sci. Comput. 41(5), 2019, Thm 2.4 and 3.1): if the rounding errors are independent with
// mean zero, gamma(k) may be replaced by
//   gamma_tilde(k) = exp(lambda*sqrt(k)*u + k*u^2/(1-u)) - 1,
// which fails with probability at most 2*exp(-lambda^2*(1-u)^2/2) per product of (1 + delta) factors (n of
// them in a sum). With lambda = 10 that is under 4e-22 each, under 1e-12 for any n below 2^31. The verdict's
// note says when this bound was used.
#pragma once

#include "reducelab/core/value_traits.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

namespace reducelab {

/// The outcome of judging one result.
struct verdict {
  bool ok = false;
  bool bounded = false;  // true: judged against an error bound; false: exact comparison
  double error = 0;      // |got - exact| (bounded checks only)
  double bound = 0;      // the bound it was judged against (bounded checks only)
  std::string got;
  std::string want;
  std::string note;
};

template <class T>
constexpr long double unit_roundoff() {
  return static_cast<long double>(std::numeric_limits<T>::epsilon()) / 2;
}

/// gamma(k) = k*u / (1 - k*u); infinite when k*u >= 1 (no bound).
inline long double gamma_bound(std::size_t k, long double u) {
  const long double ku = static_cast<long double>(k) * u;
  return ku >= 1 ? std::numeric_limits<long double>::infinity() : ku / (1 - ku);
}

/// The lambda of the probabilistic fallback (see the top of this file).
inline constexpr long double probabilistic_lambda = 10;

/// Higham & Mary's gamma_tilde(k) for lambda: a bound on |prod_{i<k}(1 + delta_i) - 1| that holds except with
/// probability at most 2*exp(-lambda^2*(1-u)^2/2) when the delta_i are independent with mean zero.
inline long double gamma_probabilistic(std::size_t k, long double u, long double lambda = probabilistic_lambda) {
  const long double kl = static_cast<long double>(k);
  return std::expm1(lambda * std::sqrt(kl) * u + kl * u * u / (1 - u));
}

/// gamma(k) where it bounds anything; otherwise the probabilistic gamma_tilde(k), with a note saying so.
inline long double gamma_or_probabilistic(std::size_t k, long double u, std::string& note) {
  const long double g = gamma_bound(k, u);
  if (!std::isinf(g)) return g;
  note = "k*u >= 1 (k = " + std::to_string(k) + "): worst-case gamma(k) is infinite, so the bound is Higham & "
         "Mary's probabilistic gamma_tilde(k) with lambda = 10";
  return gamma_probabilistic(k, u);
}

struct accurate_sum {
  long double value = 0;    // Neumaier-compensated sum in long double
  long double abs_sum = 0;  // sum of |x_i|, for the bound
  bool has_nan = false;
  int pos_inf = 0, neg_inf = 0;
};

template <class T>
accurate_sum sum_accurately(const T* x, std::size_t n) {
  accurate_sum s;
  long double c = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const long double v = x[i];
    if (std::isnan(v)) { s.has_nan = true; continue; }
    if (std::isinf(v)) { (v > 0 ? s.pos_inf : s.neg_inf)++; continue; }
    const long double t = s.value + v;
    c += std::fabs(s.value) >= std::fabs(v) ? (s.value - t) + v : (v - t) + s.value;
    s.value = t;
    s.abs_sum += std::fabs(v);
  }
  s.value += c;
  return s;
}

/// Judge a floating-point sum of x[0..n) computed with a summation tree of the given depth.
template <class T>
verdict judge_float_sum(const T* x, std::size_t n, T got, std::size_t depth) {
  verdict v;
  v.bounded = true;
  v.got = value_to_string(got);
  const accurate_sum s = sum_accurately(x, n);
  // Non-finite inputs: IEEE fixes the result whatever the order (NaN if any NaN or both infinities).
  if (s.has_nan || (s.pos_inf && s.neg_inf)) {
    v.want = "nan";
    v.ok = std::isnan(got);
    v.note = "NaN must propagate";
    return v;
  }
  if (s.pos_inf || s.neg_inf) {
    const T inf = s.pos_inf ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
    v.want = value_to_string(inf);
    v.ok = got == inf;
    return v;
  }
  if (n > 0 && s.abs_sum == 0) {
    // All inputs are zeros: the exact sum is -0.0 only if every input is -0.0 (identity -0.0 keeps it so).
    bool all_negative_zero = true;
    for (std::size_t i = 0; i < n; ++i) all_negative_zero = all_negative_zero && std::signbit(x[i]);
    const T want = all_negative_zero ? -T(0) : T(0);
    v.want = value_to_string(want);
    v.ok = got == 0 && std::signbit(got) == std::signbit(want);
    v.note = "sum of zeros: sign must follow IEEE";
    return v;
  }
  const long double bound = gamma_or_probabilistic(depth, unit_roundoff<T>(), v.note) * s.abs_sum +
                            gamma_bound(n, unit_roundoff<long double>()) * s.abs_sum;
  v.want = value_to_string(static_cast<T>(s.value));
  v.error = static_cast<double>(std::fabs(static_cast<long double>(got) - s.value));
  v.bound = static_cast<double>(bound);
  v.ok = std::isfinite(got) && std::fabs(static_cast<long double>(got) - s.value) <= bound;
  return v;
}

/// Judge a floating-point product of x[0..n), computed in any order. Each of the n-1 multiplications
/// multiplies the final result by (1 + delta), |delta| <= u, whatever the tree, so the depth does not enter.
/// Valid while no partial product under- or overflows (the multiplies functor draws its inputs so).
template <class T>
verdict judge_float_product(const T* x, std::size_t n, T got, std::size_t /*depth*/) {
  verdict v;
  v.bounded = true;
  v.got = value_to_string(got);
  long double p = 1;
  bool has_nan = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(x[i])) has_nan = true;
    p *= x[i];
  }
  if (has_nan || std::isnan(p)) {
    v.want = "nan";
    v.ok = std::isnan(got);
    return v;
  }
  if (std::isinf(p) || p == 0) {
    v.want = value_to_string(static_cast<T>(p));
    v.ok = static_cast<long double>(got) == static_cast<long double>(static_cast<T>(p));
    v.note = "product with an infinity or a zero";
    return v;
  }
  const long double gd = gamma_or_probabilistic(n > 0 ? n - 1 : 0, unit_roundoff<T>(), v.note);
  const long double bound = (gd + gamma_bound(n, unit_roundoff<long double>()) * (1 + gd)) * std::fabs(p);
  v.want = value_to_string(static_cast<T>(p));
  v.error = static_cast<double>(std::fabs(static_cast<long double>(got) - p));
  v.bound = static_cast<double>(bound);
  v.ok = std::isfinite(got) && std::fabs(static_cast<long double>(got) - p) <= bound;
  return v;
}

}  // namespace reducelab
