// CPU: NaN semantics. amax/amin propagate NaN (numpy.max/min), nanmax/nanmin skip it (numpy.nanmax/nanmin);
// all four give bitwise the same result whatever the combine order (one canonical NaN, +0.0 > -0.0). The
// `nan` input kind, its refusal for types without NaN, and the report's "NaN inputs" section.
#include "comparisons/report_nan.hpp"
#include "functors/amax.cuh"
#include "functors/amin.cuh"
#include "functors/maximum.cuh"
#include "functors/minimum.cuh"
#include "functors/nanmax.cuh"
#include "functors/nanmin.cuh"
#include "functors/plus.cuh"
#include "lab/host/monoid_laws.hpp"
#include "lab/host/reference.hpp"
#include "lab/registry/registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace fn = reducelab::functors;
using reducelab::input_kind;

namespace {

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::string bits_of(const T& v) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(bits));
  return reducelab::value_to_string(v) + " (" + buf + ")";
}

template <class OpT, class T>
T fold(std::vector<T> x) {
  return reducelab::reduce_in_order<OpT, T>(x.data(), x.size());
}

/// Combine the values in a random tree and a random operand order: pick two of the pool, put back their
/// combination, until one is left (then fold in the identity once, as the reference does).
template <class OpT, class T>
T random_tree(std::vector<T> pool, std::mt19937_64& rng) {
  const OpT op{};
  if (pool.empty()) return reducelab::identity_of<OpT, T>();
  while (pool.size() > 1) {
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    const std::size_t i = pick(rng);
    std::swap(pool[i], pool.back());
    const T a = pool.back();
    pool.pop_back();
    const std::size_t j = std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng);
    pool[j] = (rng() & 1) ? op(a, pool[j]) : op(pool[j], a);
  }
  return (rng() & 1) ? op(reducelab::identity_of<OpT, T>(), pool[0]) : op(pool[0], reducelab::identity_of<OpT, T>());
}

/// The functor, with a NaN-rich input domain for the law checker: NaNs of several payloads and both signs,
/// both zeros, infinities, denormals, and ordinary values (which repeat, so ties are common).
template <class OpT>
struct with_nan_domain : OpT {
  template <class T>
  static constexpr T identity() {
    return OpT::template identity<T>();
  }
  template <class T, class RngT>
  static T random_input(RngT& rng, std::size_t) {
    using L = std::numeric_limits<T>;
    const T choices[] = {L::quiet_NaN(), -L::quiet_NaN(), fn::nan_aware::nan_with_payload<T>(7),
                         fn::nan_aware::nan_with_payload<T>(0x3a5, true), L::signaling_NaN(), -T(0), T(0),
                         -L::infinity(), L::infinity(), L::denorm_min(), -L::denorm_min(), T(1), T(-1), T(0.5)};
    return reducelab::pick(rng, choices);
  }
};

template <class T>
std::vector<T> nan_payloads_and_zeros() {
  using L = std::numeric_limits<T>;
  return {fn::nan_aware::nan_with_payload<T>(1), T(-2), -T(0),          L::quiet_NaN(), T(0),
          T(0.25),                               -L::quiet_NaN(), -T(0), fn::nan_aware::nan_with_payload<T>(99, true),
          T(0),                                  L::signaling_NaN(), T(-7)};
}

}  // namespace

template <class T>
class NanSemantics : public testing::Test {};
using float_types = testing::Types<float, double>;
TYPED_TEST_SUITE(NanSemantics, float_types);

TYPED_TEST(NanSemantics, TraitsAndIdentities) {
  using T = TypeParam;
  static_assert(reducelab::is_commutative_v<fn::amax> && reducelab::is_commutative_v<fn::nanmin>);
  static_assert(reducelab::is_exact_v<fn::amax, T> && reducelab::is_exact_v<fn::amin, T> &&
                reducelab::is_exact_v<fn::nanmax, T> && reducelab::is_exact_v<fn::nanmin, T>);
  static_assert(reducelab::is_nan_undefined_v<fn::maximum> && reducelab::is_nan_undefined_v<fn::minimum>);
  static_assert(!reducelab::is_nan_undefined_v<fn::amax> && !reducelab::is_nan_undefined_v<fn::nanmax> &&
                !reducelab::is_nan_undefined_v<fn::plus>);
  EXPECT_TRUE(same_bits(reducelab::identity_of<fn::amax, T>(), -std::numeric_limits<T>::infinity()));
  EXPECT_TRUE(same_bits(reducelab::identity_of<fn::amin, T>(), std::numeric_limits<T>::infinity()));
  EXPECT_TRUE(same_bits(reducelab::identity_of<fn::nanmax, T>(), std::numeric_limits<T>::quiet_NaN()));
  EXPECT_TRUE(same_bits(reducelab::identity_of<fn::nanmin, T>(), std::numeric_limits<T>::quiet_NaN()));
  EXPECT_TRUE(same_bits(fn::nan_aware::canonical_nan<T>(), std::numeric_limits<T>::quiet_NaN()));
}

// numpy.max([1, nan, 3]) is nan; numpy.nanmax([1, nan, 3]) is 3; numpy.nanmax([nan, nan]) is nan (with a
// RuntimeWarning); numpy.max([]) raises, a reduction returns the identity.
TYPED_TEST(NanSemantics, MatchNumpy) {
  using T = TypeParam;
  using L = std::numeric_limits<T>;
  const T nan = L::quiet_NaN(), inf = L::infinity();
  const T canonical = fn::nan_aware::canonical_nan<T>();
  const auto amax = [](std::vector<T> x) { return fold<fn::amax, T>(std::move(x)); };
  const auto amin = [](std::vector<T> x) { return fold<fn::amin, T>(std::move(x)); };
  const auto nanmax = [](std::vector<T> x) { return fold<fn::nanmax, T>(std::move(x)); };
  const auto nanmin = [](std::vector<T> x) { return fold<fn::nanmin, T>(std::move(x)); };

  EXPECT_TRUE(same_bits(fold<fn::amax, T>({1, nan, 3}), canonical));
  EXPECT_TRUE(same_bits(fold<fn::amax, T>({nan, 1, 3}), canonical));
  EXPECT_TRUE(same_bits(fold<fn::amax, T>({1, 3, fn::nan_aware::nan_with_payload<T>(5, true)}), canonical));
  EXPECT_EQ(amax({1, 3, 2}), T(3));
  EXPECT_EQ(amax({-inf, -inf}), -inf);
  EXPECT_EQ(amax({}), -inf);
  EXPECT_TRUE(same_bits(fold<fn::amin, T>({1, nan, -3}), canonical));
  EXPECT_EQ(amin({2, -3, 5}), T(-3));
  EXPECT_EQ(amin({}), inf);

  EXPECT_EQ(nanmax({1, nan, 3}), T(3));
  EXPECT_EQ(nanmax({nan, -inf}), -inf);  // a real -inf is not lost in a NaN identity
  EXPECT_EQ(nanmax({nan, 2, nan}), T(2));
  EXPECT_TRUE(same_bits(fold<fn::nanmax, T>({nan, -nan, fn::nan_aware::nan_with_payload<T>(3)}), canonical));
  EXPECT_TRUE(same_bits(fold<fn::nanmax, T>({}), canonical));
  EXPECT_EQ(nanmin({nan, 2, -1, nan}), T(-1));
  EXPECT_EQ(nanmin({inf, nan}), inf);
  EXPECT_TRUE(same_bits(fold<fn::nanmin, T>({nan, nan}), canonical));

  // +0.0 > -0.0, whichever comes first.
  for (const auto& zeros : {std::vector<T>{-T(0), T(0)}, std::vector<T>{T(0), -T(0)}}) {
    EXPECT_FALSE(std::signbit(fold<fn::amax, T>(zeros)));
    EXPECT_TRUE(std::signbit(fold<fn::amin, T>(zeros)));
    EXPECT_FALSE(std::signbit(fold<fn::nanmax, T>(zeros)));
    EXPECT_TRUE(std::signbit(fold<fn::nanmin, T>(zeros)));
  }
  EXPECT_FALSE(std::signbit(fold<fn::nanmax, T>({-T(0), nan, T(0), -T(0)})));
  EXPECT_TRUE(std::signbit(fold<fn::amax, T>({-T(0), -T(0)})));
}

template <class OpT, class T>
void expect_order_independent(const std::vector<T>& x, const T& want, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v = x;
  for (int round = 0; round < 300; ++round) {
    std::shuffle(v.begin(), v.end(), rng);
    const T in_order = fold<OpT, T>(v);
    const T tree = random_tree<OpT, T>(v, rng);
    ASSERT_TRUE(same_bits(in_order, want)) << "round " << round << ": " << bits_of(in_order) << ", want " << bits_of(want);
    ASSERT_TRUE(same_bits(tree, want)) << "round " << round << ": " << bits_of(tree) << ", want " << bits_of(want);
  }
}

TYPED_TEST(NanSemantics, BitwiseTheSameInEveryOrder) {
  using T = TypeParam;
  const T canonical = fn::nan_aware::canonical_nan<T>();
  const std::vector<T> x = nan_payloads_and_zeros<T>();
  expect_order_independent<fn::amax, T>(x, canonical, 1);
  expect_order_independent<fn::amin, T>(x, canonical, 2);
  expect_order_independent<fn::nanmax, T>(x, T(0.25), 3);
  expect_order_independent<fn::nanmin, T>(x, T(-7), 4);
  // Where the answer is a zero, its sign is fixed: +0.0 for the max, -0.0 for the min.
  std::vector<T> zeros;
  for (const T& v : x)
    if (std::isnan(v) || v == 0) zeros.push_back(v);
  expect_order_independent<fn::nanmax, T>(zeros, T(0), 5);
  expect_order_independent<fn::nanmin, T>(zeros, -T(0), 6);
  std::vector<T> no_nan;
  for (const T& v : zeros)
    if (!std::isnan(v)) no_nan.push_back(v);
  expect_order_independent<fn::amax, T>(no_nan, T(0), 7);
  expect_order_independent<fn::amin, T>(no_nan, -T(0), 8);
}

TYPED_TEST(NanSemantics, AdversarialInputsAreOrderIndependentToo) {
  using T = TypeParam;
  for (unsigned scenario = 0; scenario < fn::amax::adversarial_scenarios<T>(); ++scenario) {
    reducelab::input_rng rng(scenario);
    std::vector<T> x(257);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = fn::amax::adversarial_input<T>(scenario, rng, i, x.size());
    expect_order_independent<fn::amax, T>(x, fold<fn::amax, T>(x), 10 + scenario);
    expect_order_independent<fn::amin, T>(x, fold<fn::amin, T>(x), 20 + scenario);
    expect_order_independent<fn::nanmax, T>(x, fold<fn::nanmax, T>(x), 30 + scenario);
    expect_order_independent<fn::nanmin, T>(x, fold<fn::nanmin, T>(x), 40 + scenario);
    const auto nans = std::count_if(x.begin(), x.end(), [](const T& v) { return std::isnan(v); });
    if (scenario <= 1) {
      EXPECT_GT(nans, 257 / 5) << "scenario " << scenario << " is meant to be NaN-heavy";
    } else {
      EXPECT_EQ(nans, scenario == 2 ? 0 : 1) << "scenario " << scenario;
    }
  }
}

// The law checker's identity laws are bitwise (all NaNs counting as one value); run it on a domain full of
// NaNs, zeros and infinities, and check associativity and commutativity bitwise here as well.
template <class OpT, class T>
void expect_laws_over_nans() {
  using D = with_nan_domain<OpT>;
  const auto report = reducelab::check_monoid_laws<D, T>(/*seed*/ 11, /*samples*/ 5000);
  for (const auto& f : report.failures) ADD_FAILURE() << f;
  EXPECT_TRUE(report.ok());
  reducelab::input_rng rng(12);
  const OpT op{};
  const T e = reducelab::identity_of<OpT, T>();
  for (int s = 0; s < 5000; ++s) {
    const T a = D::template random_input<T>(rng, 0), b = D::template random_input<T>(rng, 0),
            c = D::template random_input<T>(rng, 0);
    ASSERT_TRUE(same_bits(op(op(a, b), c), op(a, op(b, c)))) << bits_of(a) << " " << bits_of(b) << " " << bits_of(c);
    ASSERT_TRUE(same_bits(op(a, b), op(b, a))) << bits_of(a) << " " << bits_of(b);
    if (!std::isnan(a)) {
      ASSERT_TRUE(same_bits(op(e, a), a) && same_bits(op(a, e), a)) << bits_of(a);
    } else {
      ASSERT_TRUE(same_bits(op(e, a), fn::nan_aware::canonical_nan<T>())) << bits_of(a);
    }
  }
}

TYPED_TEST(NanSemantics, MonoidLawsHoldWithNaNsInTheDomain) {
  expect_laws_over_nans<fn::amax, TypeParam>();
  expect_laws_over_nans<fn::amin, TypeParam>();
  expect_laws_over_nans<fn::nanmax, TypeParam>();
  expect_laws_over_nans<fn::nanmin, TypeParam>();
}

// The reason for the new functors: cuda::maximum's `(a < b) ? b : a` depends on the operand order with NaN.
TEST(MaximumWithNaN, IsOrderDependent) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(fn::maximum{}(nan, 1.0f)));
  EXPECT_EQ(fn::maximum{}(1.0f, nan), 1.0f);
}

TEST(NanInputs, NaNFirstLastAndAboutOneIn64) {
  const std::size_t n = 64 * 1000;
  const auto x = reducelab::make_inputs<fn::amax, float>(input_kind::nan, n, 7);
  ASSERT_EQ(x.size(), n);
  EXPECT_TRUE(std::isnan(x[0]));
  EXPECT_TRUE(std::isnan(x[n - 1]));
  std::size_t inner = 0;
  for (std::size_t i = 1; i + 1 < n; ++i) {
    if (std::isnan(x[i])) {
      ++inner;
      EXPECT_TRUE(same_bits(x[i], std::numeric_limits<float>::quiet_NaN()));
    } else {
      EXPECT_TRUE(x[i] >= -1.0f && x[i] < 1.0f) << x[i];  // the functor's random values otherwise
    }
  }
  EXPECT_GT(inner, 1000u * 3 / 4);  // about n / 64 = 1000
  EXPECT_LT(inner, 1000u * 5 / 4);
  // Reproducible from the seed, and another seed puts the NaNs elsewhere.
  const auto again = reducelab::make_inputs<fn::amax, float>(input_kind::nan, n, 7);
  EXPECT_EQ(std::memcmp(x.data(), again.data(), n * sizeof(float)), 0);
  const auto other = reducelab::make_inputs<fn::amax, float>(input_kind::nan, n, 8);
  std::size_t moved = 0;
  for (std::size_t i = 0; i < n; ++i) moved += std::isnan(x[i]) != std::isnan(other[i]);
  EXPECT_GT(moved, 0u);
  // Tiny sizes: every element is first or last.
  EXPECT_TRUE(std::isnan(reducelab::make_inputs<fn::nanmax, double>(input_kind::nan, 1, 1)[0]));
  const auto two = reducelab::make_inputs<fn::nanmax, double>(input_kind::nan, 2, 1);
  EXPECT_TRUE(std::isnan(two[0]) && std::isnan(two[1]));
  EXPECT_EQ((reducelab::make_inputs<fn::nanmax, double>(input_kind::nan, 0, 1).size()), 0u);
}

TEST(NanInputs, RefusedForTypesWithoutNaN) {
  EXPECT_EQ(reducelab::nan_input_refusal<float>(), "");
  EXPECT_NE(reducelab::nan_input_refusal<std::int32_t>().find("no NaN in int32 values"), std::string::npos);
  try {
    reducelab::make_inputs<fn::plus, std::int32_t>(input_kind::nan, 10, 1);
    ADD_FAILURE() << "make_inputs made a nan input of int32";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no NaN in int32 values"), std::string::npos) << e.what();
  }
  // `check --inputs nan` on an integer pair: every backend refused with that reason, nothing run (no GPU needed).
  const auto* c = reducelab::the_registry().find("plus")->find("int32");
  ASSERT_NE(c, nullptr);
  reducelab::check_request req;
  req.n = 1000;
  req.kind = input_kind::nan;
  const auto rows = c->check_on_gpu(req);
  EXPECT_FALSE(rows.empty());
  for (const auto& row : rows) {
    EXPECT_EQ(row.status, reducelab::check_status::refused) << row.backend;
    EXPECT_NE(row.message.find("no NaN in int32 values"), std::string::npos) << row.message;
  }
  EXPECT_STREQ(reducelab::to_string(reducelab::check_status::undefined), "UNDEFINED");
}

TEST(NanRegistry, TheFourFunctorsAreRegisteredForFloatAndDouble) {
  const auto& reg = reducelab::the_registry();
  for (const char* op : {"amax", "amin", "nanmax", "nanmin"}) {
    const auto* f = reg.find(op);
    ASSERT_NE(f, nullptr) << op;
    EXPECT_TRUE(f->commutative) << op;
    ASSERT_EQ(f->cases.size(), 2u) << op;
    for (const char* t : {"float", "double"}) {
      const auto* c = f->find(t);
      ASSERT_NE(c, nullptr) << op << "/" << t;
      EXPECT_TRUE(c->exact()) << op << "/" << t;
      EXPECT_EQ(c->adversarial_scenarios(), 4u) << op << "/" << t;
    }
  }
  EXPECT_EQ(reg.find("amax")->find("float")->identity(), "-inf");
  EXPECT_EQ(reg.find("amin")->find("double")->identity(), "inf");
  EXPECT_EQ(reg.find("nanmax")->find("float")->identity(), "nan");
  EXPECT_EQ(reg.find("nanmin")->find("double")->identity(), "nan");
}

namespace {
nlohmann::json probe_row(const char* functor, const char* backend, const char* got, const char* status) {
  return {{"functor", functor}, {"type", "float"}, {"n", 1048579}, {"backend", backend}, {"got", got}, {"status", status}};
}
}  // namespace

TEST(NanReport, ShowsWhichBackendsDisagree) {
  nlohmann::json results = {{"schema", "reducelab-compare-1"}};
  EXPECT_EQ(reducelab::report::render_nan_section(results), "");  // no probe, no section
  results["nan_semantics"] = nlohmann::json::array({
      probe_row("maximum", "multi_pass", "nan", "UNDEFINED"),
      probe_row("maximum", "cub::DeviceReduce::Reduce", "0.999998033", "UNDEFINED"),
      probe_row("maximum", "thrust::reduce", "nan", "UNDEFINED"),
      probe_row("maximum", "cub::DeviceReduce::Sum|Max|Min", "0.999876797", "UNDEFINED"),
      probe_row("amax", "multi_pass", "nan", "PASS"),
      probe_row("amax", "cub::DeviceReduce::Reduce", "nan", "PASS"),
      probe_row("nanmax", "multi_pass", "0.999998033", "PASS"),
      probe_row("nanmax", "thrust::reduce", "0.5", "FAIL"),
  });
  results["nan_semantics"][7]["message"] = "got 0.5, want 0.999998033";
  const std::string md = reducelab::report::render_nan_section(results);
  EXPECT_NE(md.find("## NaN inputs"), std::string::npos) << md;
  // maximum: three results, each with the backends that returned it.
  EXPECT_NE(md.find("`maximum` / `float`: **backends disagree**: 3 different results from 4 backends"), std::string::npos) << md;
  EXPECT_NE(md.find("| `maximum` | `float` | 1048579 | `nan` | UNDEFINED | `multi_pass`, `thrust::reduce` (2) |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| `0.999998033` | UNDEFINED | `cub::DeviceReduce::Reduce` (1) |"), std::string::npos) << md;
  EXPECT_NE(md.find("`cub::DeviceReduce::Sum\\|Max\\|Min` (1)"), std::string::npos) << md;  // '|' escaped in a table
  // amax: one answer.
  EXPECT_NE(md.find("`amax` / `float`: one answer, `nan`, from all 2 backends, equal to the in-order host reference"),
            std::string::npos) << md;
  // A failure is not hidden.
  EXPECT_NE(md.find("`thrust::reduce` FAIL: got 0.5, want 0.999998033"), std::string::npos) << md;
}
