// CPU: the host reference, the error bounds and the judging of results.
#include "functors/affine_compose.cuh"
#include "functors/multiplies.cuh"
#include "functors/plus.cuh"
#include "lab/host/inputs.hpp"
#include "lab/host/reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <numeric>
#include <vector>

namespace fn = reducelab::functors;
using reducelab::judge;
using reducelab::reduce_in_order;

TEST(Reference, InOrderMatchesStdAccumulate) {
  const auto x = reducelab::make_inputs<fn::plus, std::int64_t>(reducelab::input_kind::random, 1000, 7);
  EXPECT_EQ(reduce_in_order<fn::plus>(x.data(), x.size()),
            std::accumulate(x.begin(), x.end(), std::int64_t{0},
                            [](std::int64_t a, std::int64_t b) { return fn::plus{}(a, b); }));
}

TEST(Reference, EmptyRangeIsTheIdentity) {
  EXPECT_TRUE(std::signbit(reduce_in_order<fn::plus, float>(nullptr, 0)));
  EXPECT_EQ((reduce_in_order<fn::multiplies, std::int32_t>(nullptr, 0)), 1);
}

TEST(Reference, NonCommutativeOrderIsKept) {
  const auto x = reducelab::make_inputs<fn::affine_compose, fn::affine32>(reducelab::input_kind::random, 100, 3);
  const auto want = reduce_in_order<fn::affine_compose>(x.data(), x.size());
  // Applying the maps one by one to a point gives what the composed map gives.
  std::uint32_t y = 12345, z = 12345;
  for (const auto& m : x) y = m.a * y + m.b;
  z = want.a * z + want.b;
  EXPECT_EQ(y, z);
  std::vector<fn::affine32> reversed(x.begin(), x.end());
  std::reverse(reversed.begin(), reversed.end());
  EXPECT_FALSE(reduce_in_order<fn::affine_compose>(reversed.data(), reversed.size()) == want);
  EXPECT_FALSE(judge<fn::affine_compose>(x.data(), x.size(), reduce_in_order<fn::affine_compose>(reversed.data(), reversed.size())).ok);
  EXPECT_TRUE(judge<fn::affine_compose>(x.data(), x.size(), want).ok);
}

TEST(ErrorBound, GammaIsTheStandardOne) {
  const long double u = reducelab::unit_roundoff<float>();
  EXPECT_EQ(u, std::ldexp(1.0L, -24));
  EXPECT_NEAR(static_cast<double>(reducelab::gamma_bound(10, u)), static_cast<double>(10 * u / (1 - 10 * u)), 1e-18);
  EXPECT_TRUE(std::isinf(reducelab::gamma_bound(std::size_t{1} << 25, u)));
}

TEST(ErrorBound, FloatSumOfAnyOrderIsWithinTheBound) {
  const auto x = reducelab::make_inputs<fn::plus, float>(reducelab::input_kind::random, 1 << 16, 11);
  // In order (depth n-1), pairwise (depth log2 n) and reversed: all within their bounds.
  const float in_order = reduce_in_order<fn::plus>(x.data(), x.size());
  EXPECT_TRUE(judge<fn::plus>(x.data(), x.size(), in_order).ok);
  std::vector<float> level(x.begin(), x.end());
  while (level.size() > 1) {
    std::vector<float> next;
    for (std::size_t i = 0; i < level.size(); i += 2) next.push_back(level[i] + (i + 1 < level.size() ? level[i + 1] : -0.0f));
    level = next;
  }
  const auto v = judge<fn::plus>(x.data(), x.size(), level[0], 16);
  EXPECT_TRUE(v.ok) << v.error << " > " << v.bound;
  // The stated bound: ((1+u)^16 - 1) * sum|x| for float, plus the long double reference's own gamma(n) * sum|x|.
  long double abs_sum = 0;
  for (float f : x) abs_sum += std::fabs(f);
  const long double expected = (reducelab::rounding_growth(16, reducelab::unit_roundoff<float>()) +
                                reducelab::gamma_bound(x.size(), reducelab::unit_roundoff<long double>())) * abs_sum;
  EXPECT_NEAR(v.bound, static_cast<double>(expected), 1e-9 * static_cast<double>(expected));
  EXPECT_LT(v.error, v.bound);
}

TEST(ErrorBound, UnknownOrderOverManyFloatsStillGetsAFiniteBound) {
  // 2^25 floats judged with depth n-1 (Thrust and CUB: order unknown). gamma(n-1) is infinite there (a check
  // that could not fail); (1+u)^(n-1) - 1 = e^2 - 1 is finite: loose, said so in the note, met by a real float
  // sum in the worst order (in order), and failed by a result off by more than the bound.
  const std::size_t n = std::size_t{1} << 25;
  const auto x = reducelab::make_inputs<fn::plus, float>(reducelab::input_kind::random, n, 3);
  const float in_order = reduce_in_order<fn::plus>(x.data(), x.size());
  const auto v = judge<fn::plus>(x.data(), x.size(), in_order);
  EXPECT_TRUE(v.ok) << v.error << " > " << v.bound;
  ASSERT_TRUE(std::isfinite(v.bound));
  EXPECT_NE(v.note.find("loose"), std::string::npos) << v.note;
  long double abs_sum = 0;
  for (float f : x) abs_sum += std::fabs(f);
  const long double u = reducelab::unit_roundoff<float>();
  EXPECT_TRUE(std::isinf(reducelab::gamma_bound(n - 1, u)));
  EXPECT_NEAR(static_cast<double>(reducelab::rounding_growth(n - 1, u)), std::expm1(2.0), 1e-6);
  EXPECT_NEAR(v.bound,
              static_cast<double>((reducelab::rounding_growth(n - 1, u) +
                                   reducelab::gamma_bound(n, reducelab::unit_roundoff<long double>())) * abs_sum),
              1e-6 * v.bound);
  const float off = static_cast<float>(static_cast<double>(in_order) + 2 * v.bound);
  EXPECT_FALSE(judge<fn::plus>(x.data(), x.size(), off).ok);
  // Where k*u < 1 nothing is said, and (1+u)^k - 1 sits just under gamma(k).
  const auto small = judge<fn::plus>(x.data(), 1000, reduce_in_order<fn::plus>(x.data(), 1000));
  EXPECT_TRUE(small.ok);
  EXPECT_TRUE(small.note.empty()) << small.note;
  EXPECT_LT(reducelab::rounding_growth(999, u), reducelab::gamma_bound(999, u));
  EXPECT_GT(reducelab::rounding_growth(999, u), 0.999L * reducelab::gamma_bound(999, u));
}

TEST(ErrorBound, AWrongFloatSumIsRejected) {
  std::vector<float> x(1000, 1.0f);
  const auto v = judge<fn::plus>(x.data(), x.size(), 999.0f, 10);  // one element dropped
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.want, "1000");
  const auto nan_result = judge<fn::plus>(x.data(), x.size(), std::nanf(""), 10);
  EXPECT_FALSE(nan_result.ok);
}

TEST(ErrorBound, SignOfZeroSums) {
  std::vector<double> negative_zeros(33, -0.0);
  EXPECT_TRUE(judge<fn::plus>(negative_zeros.data(), negative_zeros.size(), -0.0).ok);
  EXPECT_FALSE(judge<fn::plus>(negative_zeros.data(), negative_zeros.size(), 0.0).ok);
  negative_zeros[5] = 0.0;
  EXPECT_TRUE(judge<fn::plus>(negative_zeros.data(), negative_zeros.size(), 0.0).ok);
}

TEST(ErrorBound, NonFiniteInputsFollowIeee) {
  std::vector<float> x = {1.0f, std::numeric_limits<float>::infinity(), 2.0f};
  EXPECT_TRUE(judge<fn::plus>(x.data(), x.size(), std::numeric_limits<float>::infinity()).ok);
  x.push_back(-std::numeric_limits<float>::infinity());
  EXPECT_TRUE(judge<fn::plus>(x.data(), x.size(), std::nanf("")).ok);
  EXPECT_FALSE(judge<fn::plus>(x.data(), x.size(), 3.0f).ok);
}

TEST(ErrorBound, FloatProductStaysInRangeAndWithinTheBound) {
  const auto x = reducelab::make_inputs<fn::multiplies, double>(reducelab::input_kind::random, 1 << 20, 5);
  const double p = reduce_in_order<fn::multiplies>(x.data(), x.size());
  EXPECT_TRUE(std::isnormal(p));
  EXPECT_TRUE(judge<fn::multiplies>(x.data(), x.size(), p).ok);
  // The bound is ((1+u)^(n-1) - 1)|p| ~ 2^20 * 2^-53 |p| ~ 1.2e-10 |p|: a result off by 1e-9 relative is rejected.
  EXPECT_FALSE(judge<fn::multiplies>(x.data(), x.size(), p * (1 + 1e-9), 20).ok);
  EXPECT_TRUE(judge<fn::multiplies>(x.data(), x.size(), p * (1 + 1e-11), 20).ok);
}

TEST(ErrorBound, ALooseProductBoundStillChecksSignAndSize) {
  // 2^25 floats: (1+u)^(n-1) - 1 = e^2 - 1, so |got - p| <= 6.4|p| alone would pass -p and 0. The sign is
  // exact and |got| >= (1-u)^(n-1)|p| = e^-2 |p|, so those fail while the in-order float product passes.
  const std::size_t n = std::size_t{1} << 25;
  const auto x = reducelab::make_inputs<fn::multiplies, float>(reducelab::input_kind::random, n, 9);
  const float in_order = reduce_in_order<fn::multiplies>(x.data(), x.size());
  const auto v = judge<fn::multiplies>(x.data(), x.size(), in_order);
  EXPECT_TRUE(v.ok) << v.got << " vs " << v.want;
  EXPECT_NE(v.note.find("loose"), std::string::npos) << v.note;
  EXPECT_FALSE(judge<fn::multiplies>(x.data(), x.size(), -in_order).ok);
  EXPECT_FALSE(judge<fn::multiplies>(x.data(), x.size(), in_order * 0.1f).ok);
  EXPECT_FALSE(judge<fn::multiplies>(x.data(), x.size(), 0.0f).ok);
}

TEST(Inputs, NeverAllZerosAndReproducible) {
  const auto a = reducelab::make_inputs<fn::plus, std::int32_t>(reducelab::input_kind::random, 4096, 1);
  const auto b = reducelab::make_inputs<fn::plus, std::int32_t>(reducelab::input_kind::random, 4096, 1);
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin()));
  EXPECT_TRUE(std::any_of(a.begin(), a.end(), [](auto v) { return v != 0; }));
  const auto c = reducelab::make_inputs<fn::plus, float>(reducelab::input_kind::constant, 10, 1);
  EXPECT_EQ(c[9], 1.0f);
}

TEST(ReferenceScope, OneExactReferencePerInputWhileTheScopeLives) {
  std::vector<float> x = {1, 2, 3};
  std::vector<float> y = {1, 2, 3};
  {
    const reducelab::reference_scope scope;
    EXPECT_TRUE(judge<fn::plus>(x.data(), x.size(), 6.0f).ok);
    EXPECT_TRUE(judge<fn::multiplies>(x.data(), x.size(), 6.0f).ok);
    // Breaks the scope's contract on purpose, to see that the first reference was kept, not recomputed.
    x[0] = 100;
    EXPECT_TRUE(judge<fn::plus>(x.data(), x.size(), 6.0f).ok);
    EXPECT_TRUE(judge<fn::multiplies>(x.data(), x.size(), 6.0f).ok);
    // Another input (address) gets its own reference.
    y[0] = 10;
    EXPECT_TRUE(judge<fn::plus>(y.data(), y.size(), 15.0f).ok);
  }
  // Without a scope every judgement computes afresh.
  EXPECT_FALSE(judge<fn::plus>(x.data(), x.size(), 6.0f).ok);
  EXPECT_TRUE(judge<fn::plus>(x.data(), x.size(), 105.0f).ok);
  EXPECT_TRUE(judge<fn::multiplies>(x.data(), x.size(), 600.0f).ok);
}
