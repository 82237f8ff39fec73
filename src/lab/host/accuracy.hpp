// How a result computed in some order is judged against the exact one. Exact (functor, type) pairs must equal
// the in-order reference. Floating-point arithmetic functors state a bound; the helpers here give the standard
// ones (Higham, "Accuracy and Stability of Numerical Algorithms", ch. 3-4):
//   a sum whose summation tree has depth d:      |computed - exact| <= ((1+u)^d - 1) * sum |x_i|
//   a product of n values, in any order:         |computed - exact| <= ((1+u)^(n-1) - 1) * |exact|,
//                                                 |computed| >= (1-u)^(n-1) * |exact|, and the sign is exact
//   (every one of the n-1 roundings scales the whole result, so unlike a sum the tree's shape does not help)
// with u the unit roundoff of the type (2^-24 for float, 2^-53 for double). (1+u)^k - 1 is the most that k
// roundings by factors (1 + delta), |delta| <= u, can move a value; the textbook gamma(k) = k*u / (1 - k*u)
// bounds it from above and is infinite once k*u >= 1, where this one stays finite - loose, but a bound: an
// unknown order (Thrust, CUB: k = n-1) over 2^24 or more floats still gets one, and the verdict's note says
// that it is loose there. No probabilistic bound is used: its premise, rounding errors independent with mean
// zero, fails on real data here (a float product tree over values near +-1 rounds with a systematic bias).
// "depth" is the largest number of roundings any one input goes through: n-1 for the in-order fold, less for
// a tree; a backend that does not state its depth is judged with n-1, which holds for every order.
// The reference itself is computed in long double (x87, u = 2^-64) with Neumaier compensation, and the bound
// adds that reference's own worst-case error, so the check is sound for any order the GPU used.
#pragma once

#include "lab/core/value_traits.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <vector>

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

/// (1+u)^k - 1: the largest relative change k roundings by factors (1 + delta), |delta| <= u, can make.
/// Finite for every k (gamma(k) above bounds it while k*u < 1).
inline long double rounding_growth(std::size_t k, long double u) {
  return std::expm1(static_cast<long double>(k) * std::log1p(u));
}

/// rounding_growth(k, u), with a note when k*u >= 1: the worst case is then loose (a factor e or more).
inline long double rounding_growth_noted(std::size_t k, long double u, std::string& note) {
  if (static_cast<long double>(k) * u >= 1) {
    note = "k*u >= 1 (k = " + std::to_string(k) + " roundings): the worst-case bound (1+u)^k - 1 is loose here";
  }
  return rounding_growth(k, u);
}

struct accurate_sum {
  long double value = 0;    // Neumaier-compensated sum in long double
  long double abs_sum = 0;  // sum of |x_i|, for the bound
  bool has_nan = false;
  int pos_inf = 0, neg_inf = 0;
};

/// While a reference_scope lives on a thread, the exact references of an input (known by its address, length and
/// value size) are computed once and reused there: judging twenty backends' results on the same 2^28 floats then
/// costs one long-double pass instead of twenty. Whoever opens a scope guarantees that the data it judges does not
/// change while the scope lives (one prepared input, one check request).
class reference_scope {
 public:
  reference_scope() : previous_(active()) { active() = this; }
  ~reference_scope() { active() = previous_; }
  reference_scope(const reference_scope&) = delete;
  reference_scope& operator=(const reference_scope&) = delete;

  /// The value computed by `compute` for this input, computed at most once while the scope lives.
  template <class ValueT, class ComputeT>
  static ValueT memo(const void* x, std::size_t n, std::size_t value_bytes, int kind, ComputeT compute) {
    reference_scope* scope = active();
    if (!scope) return compute();
    for (const auto& e : scope->entries_)
      if (e.x == x && e.n == n && e.value_bytes == value_bytes && e.kind == kind) return *static_cast<const ValueT*>(e.value.get());
    auto value = std::make_shared<ValueT>(compute());
    scope->entries_.push_back({x, n, value_bytes, kind, value});
    return *value;
  }

 private:
  struct entry {
    const void* x;
    std::size_t n, value_bytes;
    int kind;
    std::shared_ptr<const void> value;
  };
  static reference_scope*& active() {
    static thread_local reference_scope* current = nullptr;
    return current;
  }
  reference_scope* previous_;
  std::vector<entry> entries_;
};

template <class T>
accurate_sum sum_accurately_uncached(const T* x, std::size_t n) {
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

/// The compensated sum of x[0..n), reused within a reference_scope.
template <class T>
accurate_sum sum_accurately(const T* x, std::size_t n) {
  return reference_scope::memo<accurate_sum>(x, n, sizeof(T), 0, [&] { return sum_accurately_uncached(x, n); });
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
  const long double bound = rounding_growth_noted(depth, unit_roundoff<T>(), v.note) * s.abs_sum +
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
  struct exact_product {
    long double p = 1;
    bool has_nan = false;
  };
  const auto [p, has_nan] = reference_scope::memo<exact_product>(x, n, sizeof(T), 1, [&] {
    exact_product e;
    for (std::size_t i = 0; i < n; ++i) {
      if (std::isnan(x[i])) e.has_nan = true;
      e.p *= x[i];
    }
    return e;
  });
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
  const std::size_t k = n > 0 ? n - 1 : 0;
  const long double gd = rounding_growth_noted(k, unit_roundoff<T>(), v.note);
  const long double ref = gamma_bound(n, unit_roundoff<long double>());
  const long double bound = (gd + ref * (1 + gd)) * std::fabs(p);
  // The same factors bound the result from below: |got| >= (1-u)^k |p|. With the sign, which no rounding can
  // change (nothing under- or overflows), this keeps the check able to fail where the upper bound is loose:
  // a dropped negative factor, a zero or a result off by more than e^(k*u) is caught at any n.
  const long double shrink = -std::expm1(static_cast<long double>(k) * std::log1p(-unit_roundoff<T>()));
  const long double lower = (1 - shrink) * (1 - ref) * std::fabs(p);
  v.want = value_to_string(static_cast<T>(p));
  v.error = static_cast<double>(std::fabs(static_cast<long double>(got) - p));
  v.bound = static_cast<double>(bound);
  v.ok = std::isfinite(got) && std::signbit(got) == std::signbit(p) &&
         std::fabs(static_cast<long double>(got) - p) <= bound && std::fabs(static_cast<long double>(got)) >= lower;
  return v;
}

}  // namespace reducelab
