// CPU: the traits of the built-in and example functors - identities are the true ones, commutativity and
// exactness are declared as documented.
#include "functors/abs_max.cuh"
#include "functors/affine_compose.cuh"
#include "functors/argmax.cuh"
#include "functors/bit_and.cuh"
#include "functors/bit_or.cuh"
#include "functors/bit_xor.cuh"
#include "functors/logical_and.cuh"
#include "functors/logical_or.cuh"
#include "functors/maximum.cuh"
#include "functors/mean_variance.cuh"
#include "functors/min_max.cuh"
#include "functors/minimum.cuh"
#include "functors/multiplies.cuh"
#include "functors/plus.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace fn = reducelab::functors;
using reducelab::identity_of;

TEST(Identity, FloatingPointSumIsNegativeZero) {
  EXPECT_EQ((identity_of<fn::plus, float>()), 0.0f);
  EXPECT_TRUE(std::signbit(identity_of<fn::plus, float>()));
  EXPECT_TRUE(std::signbit(identity_of<fn::plus, double>()));
  // Why -0.0: +0.0 would turn a sum of negative zeros positive.
  EXPECT_TRUE(std::signbit(fn::plus{}(identity_of<fn::plus, double>(), -0.0)));
  EXPECT_FALSE(std::signbit(fn::plus{}(0.0, -0.0)));
}

TEST(Identity, FloatingPointMaxMinAreInfinities) {
  EXPECT_EQ((identity_of<fn::maximum, float>()), -std::numeric_limits<float>::infinity());
  EXPECT_EQ((identity_of<fn::minimum, double>()), std::numeric_limits<double>::infinity());
  // lowest() would not be an identity for an input of -inf:
  EXPECT_EQ(fn::maximum{}(identity_of<fn::maximum, float>(), -std::numeric_limits<float>::infinity()),
            -std::numeric_limits<float>::infinity());
}

TEST(Identity, IntegersUseTheirExtremes) {
  EXPECT_EQ((identity_of<fn::maximum, std::int32_t>()), std::numeric_limits<std::int32_t>::lowest());
  EXPECT_EQ((identity_of<fn::maximum, std::uint64_t>()), 0u);
  EXPECT_EQ((identity_of<fn::minimum, std::int64_t>()), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ((identity_of<fn::minimum, std::uint32_t>()), std::numeric_limits<std::uint32_t>::max());
}

TEST(Identity, ArithmeticLogicalAndBitwise) {
  EXPECT_EQ((identity_of<fn::plus, std::int64_t>()), 0);
  EXPECT_EQ((identity_of<fn::multiplies, std::uint32_t>()), 1u);
  EXPECT_EQ((identity_of<fn::multiplies, double>()), 1.0);
  EXPECT_EQ((identity_of<fn::logical_and, bool>()), true);
  EXPECT_EQ((identity_of<fn::logical_or, bool>()), false);
  EXPECT_EQ((identity_of<fn::logical_and, std::uint8_t>()), 1);
  EXPECT_EQ((identity_of<fn::bit_and, std::uint32_t>()), 0xffffffffu);
  EXPECT_EQ((identity_of<fn::bit_and, std::int64_t>()), -1);
  EXPECT_EQ((identity_of<fn::bit_or, std::uint64_t>()), 0u);
  EXPECT_EQ((identity_of<fn::bit_xor, std::int32_t>()), 0);
}

TEST(Identity, ExampleFunctors) {
  const auto am = identity_of<fn::argmax, fn::float_idx32>();
  EXPECT_EQ(am.value, -std::numeric_limits<float>::infinity());
  EXPECT_EQ(am.index, std::numeric_limits<std::uint32_t>::max());
  const auto mm = identity_of<fn::min_max, fn::int32_range>();
  EXPECT_EQ(mm.lo, std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(mm.hi, std::numeric_limits<std::int32_t>::lowest());
  const auto af = identity_of<fn::affine_compose, fn::affine64>();
  EXPECT_EQ(af.a, 1u);
  EXPECT_EQ(af.b, 0u);
  EXPECT_EQ((identity_of<fn::mean_variance, fn::moments64>()).count, 0.0);
}

TEST(Traits, Commutativity) {
  static_assert(reducelab::is_commutative_v<fn::plus> && reducelab::is_commutative_v<fn::bit_xor> &&
                reducelab::is_commutative_v<fn::logical_or> && reducelab::is_commutative_v<fn::argmax>);
  static_assert(!reducelab::is_commutative_v<fn::affine_compose>);
  struct undeclared {};
  static_assert(!reducelab::is_commutative_v<undeclared>, "undeclared functors must count as non-commutative");
  // affine_compose really is non-commutative: f then g differs from g then f.
  const fn::affine32 f{3, 1}, g{5, 7};
  EXPECT_FALSE(fn::affine_compose{}(f, g) == fn::affine_compose{}(g, f));
  // and composes in sequence order: (f then g)(x) = g(f(x)).
  const auto fg = fn::affine_compose{}(f, g);
  const std::uint32_t x = 11;
  EXPECT_EQ(fg.a * x + fg.b, g.a * (f.a * x + f.b) + g.b);
}

TEST(Traits, Exactness) {
  static_assert(reducelab::is_exact_v<fn::plus, std::int32_t>);
  static_assert(!reducelab::is_exact_v<fn::plus, float>);
  static_assert(reducelab::is_exact_v<fn::maximum, double>, "max never rounds");
  static_assert(!reducelab::is_exact_v<fn::mean_variance, fn::moments64>);
  static_assert(reducelab::is_exact_v<fn::affine_compose, fn::affine64>);
}

TEST(Traits, IdentityDetection) {
  struct no_identity {};
  static_assert(!reducelab::has_identity_v<no_identity, int>);
  static_assert(reducelab::has_identity_v<fn::plus, float>);
  static_assert(reducelab::builtin_kind_v<fn::maximum> == reducelab::builtin_op::maximum);
  static_assert(reducelab::builtin_kind_v<fn::abs_max> == reducelab::builtin_op::none);
}

TEST(Functors, SignedIntegersWrapInsteadOfOverflowing) {
  EXPECT_EQ(fn::plus{}(std::numeric_limits<std::int32_t>::max(), std::int32_t{1}),
            std::numeric_limits<std::int32_t>::lowest());
  EXPECT_EQ(fn::multiplies{}(std::int64_t{1} << 62, std::int64_t{4}), 0);
}

TEST(Functors, AbsMaxKeepsSignAndBreaksTiesTowardTheLargerValue) {
  EXPECT_EQ(fn::abs_max{}(-5, 3), -5);
  EXPECT_EQ(fn::abs_max{}(-3, 3), 3);
  EXPECT_EQ(fn::abs_max{}(3, -3), 3);
  EXPECT_EQ(fn::abs_max{}(std::numeric_limits<std::int32_t>::lowest(), std::numeric_limits<std::int32_t>::max()),
            std::numeric_limits<std::int32_t>::lowest());
  EXPECT_FALSE(std::signbit(fn::abs_max{}(-0.0f, 0.0f)));
  EXPECT_FALSE(std::signbit(fn::abs_max{}(0.0f, -0.0f)));
}

TEST(Functors, ArgmaxTiesGoToTheLowerIndex) {
  const fn::float_idx32 a{2.0f, 7}, b{2.0f, 3}, c{1.0f, 0};
  EXPECT_EQ(fn::argmax{}(a, b).index, 3u);
  EXPECT_EQ(fn::argmax{}(b, a).index, 3u);
  EXPECT_EQ(fn::argmax{}(c, a).index, 7u);
}

TEST(Functors, MeanVarianceMergesLikeTheTwoPassFormula) {
  const double xs[] = {1.0, 2.0, 4.0, 7.0};
  fn::moments64 acc = identity_of<fn::mean_variance, fn::moments64>();
  for (double x : xs) acc = fn::mean_variance{}(acc, fn::moments64{1, x, 0});
  EXPECT_EQ(acc.count, 4.0);
  EXPECT_DOUBLE_EQ(acc.mean, 3.5);
  EXPECT_DOUBLE_EQ(acc.m2, 21.0);  // (2.5^2 + 1.5^2 + 0.5^2 + 3.5^2)
}
