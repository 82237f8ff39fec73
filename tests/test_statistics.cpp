// CPU: comparisons/timing/statistics on small vectors whose answers are worked out by hand, and on synthetic
// paired timings with a known ratio. Random data comes from fixed seeds, so every failure reproduces.
#include "comparisons/timing/statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace rt = reducelab::timing;

namespace {

/// `rounds` paired timings: a drift shared by both sides of a round (as in interleaved sampling), times an
/// independent ~0.5 % noise per sample. denominator = numerator / true_ratio before noise.
struct paired_run {
  std::vector<double> numerator, denominator;
};

paired_run make_paired(std::size_t rounds, double true_ratio, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto noise = [&rng] { return 1.0 + 0.01 * (static_cast<double>(rng() >> 11) / 9007199254740992.0 - 0.5); };
  paired_run r;
  for (std::size_t i = 0; i < rounds; ++i) {
    const double drift = 100.0 * (1.0 + 0.1 * std::sin(static_cast<double>(i)));  // +-10 %: larger than the effect
    r.numerator.push_back(drift * noise());
    r.denominator.push_back(drift / true_ratio * noise());
  }
  return r;
}

std::string invalid_argument_of(const std::vector<double>& num, const std::vector<double>& den) {
  try {
    rt::ratio_of_medians_interval(num, den);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// --- percentile, median, summarize ----------------------------------------------------------------------

TEST(Percentile, InterpolatesBetweenOrderStatistics) {
  const std::vector<double> v = {4.0, 1.0, 3.0, 2.0};  // unsorted on purpose; sorted: 1 2 3 4
  EXPECT_DOUBLE_EQ(rt::percentile(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(rt::percentile(v, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(rt::percentile(v, 0.5), 2.5);        // position 1.5
  EXPECT_DOUBLE_EQ(rt::percentile(v, 0.25), 1.75);      // position 0.75
  EXPECT_DOUBLE_EQ(rt::percentile(v, 0.9), 3.7);        // position 2.7
  EXPECT_DOUBLE_EQ(rt::percentile({10.0, 20.0, 30.0, 40.0, 50.0}, 0.1), 14.0);  // position 0.4
  EXPECT_DOUBLE_EQ(rt::percentile({7.0}, 0.3), 7.0);
}

TEST(Percentile, EmptyIsNanAndBadQThrows) {
  EXPECT_TRUE(std::isnan(rt::percentile({}, 0.5)));
  EXPECT_TRUE(std::isnan(rt::median({})));
  EXPECT_THROW(rt::percentile({1.0}, -0.01), std::invalid_argument);
  EXPECT_THROW(rt::percentile({1.0}, 1.01), std::invalid_argument);
  EXPECT_THROW(rt::percentile({1.0}, std::nan("")), std::invalid_argument);
}

TEST(Median, OddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(rt::median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(rt::median({5.0, 1.0, 2.0, 100.0}), 3.5);
  EXPECT_DOUBLE_EQ(rt::median({2.0, 2.0, 2.0, 9.0}), 2.0);
}

TEST(Summarize, KnownVector) {
  // Sorted: 2 4 4 4 5 5 7 9; mean 5, squared deviations sum to 32, so the sample variance is 32 / 7.
  const auto s = rt::summarize({9.0, 4.0, 2.0, 4.0, 5.0, 4.0, 7.0, 5.0});
  EXPECT_EQ(s.count, 8u);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.p10, 3.4);  // position 0.7: 2 + 0.7 * (4 - 2)
  EXPECT_DOUBLE_EQ(s.p90, 7.6);  // position 6.3: 7 + 0.3 * (9 - 7)
  EXPECT_DOUBLE_EQ(s.min, 2.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_NEAR(s.stddev, std::sqrt(32.0 / 7.0), 1e-12);
}

TEST(Summarize, OneSampleAndNone) {
  const auto one = rt::summarize({3.5});
  EXPECT_EQ(one.count, 1u);
  EXPECT_DOUBLE_EQ(one.median, 3.5);
  EXPECT_DOUBLE_EQ(one.p10, 3.5);
  EXPECT_DOUBLE_EQ(one.stddev, 0.0);
  const auto none = rt::summarize({});
  EXPECT_EQ(none.count, 0u);
  EXPECT_TRUE(std::isnan(none.median));
  EXPECT_TRUE(std::isnan(none.mean));
}

TEST(Summarize, QuietSamplesDoNotCancel) {
  // A 1 ns spread on a 1 s mean: a one-pass sum of squares would lose it all to rounding.
  const auto s = rt::summarize({1e6 + 0.001, 1e6 - 0.001, 1e6 + 0.001, 1e6 - 0.001});
  EXPECT_NEAR(s.stddev, 0.001 * std::sqrt(4.0 / 3.0), 1e-9);
}

// --- bootstrap interval and classify ----------------------------------------------------------------------

TEST(RatioInterval, CandidateFasterContainsTheTrueRatioAndWins) {
  // numerator = reference, denominator = candidate 1.25x faster: the ratio is 1.25.
  const auto run = make_paired(30, 1.25, 7);
  const auto ci = rt::ratio_of_medians_interval(run.numerator, run.denominator);
  EXPECT_LE(ci.lo, 1.25);
  EXPECT_GE(ci.hi, 1.25);
  EXPECT_GT(ci.lo, 1.0);
  EXPECT_LT(ci.hi - ci.lo, 0.05);  // pairing cancels the 10 % drift: only the 0.5 % noise is left
  EXPECT_EQ(rt::classify(ci), rt::ratio_verdict::win);
}

TEST(RatioInterval, CandidateSlowerIsALoss) {
  // denominator = numerator * 1.25: the candidate is slower and the ratio is 1 / 1.25 = 0.8.
  const auto run = make_paired(30, 0.8, 11);
  const auto ci = rt::ratio_of_medians_interval(run.numerator, run.denominator);
  EXPECT_LE(ci.lo, 0.8);
  EXPECT_GE(ci.hi, 0.8);
  EXPECT_LT(ci.hi, 1.0);
  EXPECT_EQ(rt::classify(ci), rt::ratio_verdict::loss);
}

TEST(RatioInterval, IdenticalSeriesIsATie) {
  const auto run = make_paired(25, 1.0, 3);
  const auto same = rt::ratio_of_medians_interval(run.numerator, run.numerator);
  EXPECT_DOUBLE_EQ(same.lo, 1.0);
  EXPECT_DOUBLE_EQ(same.hi, 1.0);
  EXPECT_EQ(rt::classify(same), rt::ratio_verdict::tie);
  // Equal in distribution but with independent noise: the interval straddles 1.
  const auto noisy = rt::ratio_of_medians_interval(run.numerator, run.denominator);
  EXPECT_LE(noisy.lo, 1.0);
  EXPECT_GE(noisy.hi, 1.0);
  EXPECT_EQ(rt::classify(noisy), rt::ratio_verdict::tie);
}

TEST(RatioInterval, DeterministicForASeed) {
  // Independent 20 % noise and no drift: with a strong shared drift the ratio of medians is nearly always one
  // round's own ratio, and the interval's ends become the same few values whatever the seed.
  std::mt19937_64 rng(5);
  paired_run run;
  for (int i = 0; i < 20; ++i) {
    run.numerator.push_back(110.0 + static_cast<double>(rng() % 2000) / 100.0);
    run.denominator.push_back(100.0 + static_cast<double>(rng() % 2000) / 100.0);
  }
  const auto first = rt::ratio_of_medians_interval(run.numerator, run.denominator, 0.95, 500, 42);
  const auto again = rt::ratio_of_medians_interval(run.numerator, run.denominator, 0.95, 500, 42);
  EXPECT_EQ(first.lo, again.lo);
  EXPECT_EQ(first.hi, again.hi);
  const auto other = rt::ratio_of_medians_interval(run.numerator, run.denominator, 0.95, 500, 43);
  EXPECT_TRUE(other.lo != first.lo || other.hi != first.hi) << "the seed should matter";
}

TEST(RatioInterval, WiderConfidenceGivesAWiderInterval) {
  const auto run = make_paired(20, 1.1, 9);
  const auto narrow = rt::ratio_of_medians_interval(run.numerator, run.denominator, 0.5);
  const auto wide = rt::ratio_of_medians_interval(run.numerator, run.denominator, 0.99);
  EXPECT_LE(wide.lo, narrow.lo);
  EXPECT_GE(wide.hi, narrow.hi);
}

TEST(RatioInterval, BadArgumentsThrow) {
  const std::string what = invalid_argument_of({1.0, 2.0, 3.0}, {1.0, 2.0});
  EXPECT_NE(what.find("3 numerator"), std::string::npos) << what;
  EXPECT_NE(what.find("2 denominator"), std::string::npos) << what;
  EXPECT_NE(invalid_argument_of({}, {}), "");
  EXPECT_THROW(rt::ratio_of_medians_interval({1.0}, {1.0}, 1.0), std::invalid_argument);
  EXPECT_THROW(rt::ratio_of_medians_interval({1.0}, {1.0}, 0.95, 0), std::invalid_argument);
}

TEST(Classify, WinLossTie) {
  EXPECT_EQ(rt::classify({1.01, 1.30}), rt::ratio_verdict::win);
  EXPECT_EQ(rt::classify({0.70, 0.99}), rt::ratio_verdict::loss);
  EXPECT_EQ(rt::classify({0.95, 1.05}), rt::ratio_verdict::tie);
  EXPECT_EQ(rt::classify({1.00, 1.20}), rt::ratio_verdict::tie);  // touching 1 is not excluding it
  EXPECT_EQ(rt::classify({0.80, 1.00}), rt::ratio_verdict::tie);
  EXPECT_EQ(rt::classify({std::nan(""), std::nan("")}), rt::ratio_verdict::tie);
  EXPECT_STREQ(rt::to_string(rt::ratio_verdict::win), "win");
  EXPECT_STREQ(rt::to_string(rt::ratio_verdict::loss), "loss");
  EXPECT_STREQ(rt::to_string(rt::ratio_verdict::tie), "tie");
}

// --- Mann-Whitney U ---------------------------------------------------------------------------------------

TEST(MannWhitney, ScipyDocumentationExample) {
  // scipy.stats.mannwhitneyu's documented example (males vs females), method="asymptotic": statistic 17.0,
  // pvalue 0.11134688653314041. By hand: pairs (m, f) with m > f: 19 -> 3, 22 -> 4, 16 -> 2, 29 -> 4, 24 -> 4;
  // U = 17. mean 10, variance 5 * 4 * 10 / 12 (no ties), z = (17 - 10 - 0.5) / sqrt(50 / 3) = 1.59217.
  const auto r = rt::mann_whitney_u({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  EXPECT_DOUBLE_EQ(r.u, 17.0);
  EXPECT_NEAR(r.z, 6.5 / std::sqrt(50.0 / 3.0), 1e-12);
  EXPECT_NEAR(r.p_value, 0.11134688653314041, 1e-12);
}

TEST(MannWhitney, TiesUseAverageRanksAndTheTieCorrection) {
  // Combined sorted: 1a 2a 2a 2b 3a 3b 4b 5b; ranks 1, 3, 3, 3, 5.5, 5.5, 7, 8. R_a = 1 + 3 + 3 + 5.5 = 12.5,
  // U = 12.5 - 4 * 5 / 2 = 2.5 (pairs: 0 + 0.5 + 0.5 + 1.5). mean 8; tie groups of 3 and 2 give
  // sum(t^3 - t) = 24 + 6 = 30, variance 16 / 12 * (9 - 30 / 56); z = (2.5 - 8 + 0.5) / sqrt(variance).
  const auto r = rt::mann_whitney_u({1, 2, 2, 3}, {2, 3, 4, 5});
  const double z = -5.0 / std::sqrt(16.0 / 12.0 * (9.0 - 30.0 / 56.0));
  EXPECT_DOUBLE_EQ(r.u, 2.5);
  EXPECT_NEAR(r.z, z, 1e-12);
  EXPECT_NEAR(r.z, -1.48835, 1e-5);
  EXPECT_NEAR(r.p_value, 0.136658, 1e-6);
}

TEST(MannWhitney, ClearlySeparatedSamplesAreSignificant) {
  std::vector<double> fast, slow;
  for (int i = 0; i < 25; ++i) {
    fast.push_back(100.0 + 0.1 * i);
    slow.push_back(110.0 + 0.1 * ((i * 7) % 25));
  }
  const auto r = rt::mann_whitney_u(fast, slow);
  EXPECT_DOUBLE_EQ(r.u, 0.0);  // no fast sample beats a slow one
  EXPECT_LT(r.z, 0.0);
  EXPECT_LT(r.p_value, 1e-6);
}

TEST(MannWhitney, SameDistributionIsNotSignificant) {
  // Two draws from one distribution. std::mt19937_64's output is fixed by the standard, so this exact data (and
  // its p) is the same everywhere: the test cannot turn flaky.
  std::mt19937_64 rng(2024);
  auto draw = [&rng] { return 100.0 + static_cast<double>(rng() % 1000) / 100.0; };
  std::vector<double> a, b;
  for (int i = 0; i < 25; ++i) {
    a.push_back(draw());
    b.push_back(draw());
  }
  EXPECT_GT(rt::mann_whitney_u(a, b).p_value, 0.05);
  // Dealing one sorted list alternately into two halves is as alike as two samples get.
  std::vector<double> sorted = a, even, odd;
  sorted.insert(sorted.end(), b.begin(), b.end());
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) (i % 2 ? odd : even).push_back(sorted[i]);
  EXPECT_GT(rt::mann_whitney_u(even, odd).p_value, 0.5);
}

TEST(MannWhitney, AllEqualGivesPOne) {
  const auto r = rt::mann_whitney_u(std::vector<double>(10, 3.0), std::vector<double>(12, 3.0));
  EXPECT_DOUBLE_EQ(r.u, 60.0);  // every pair a tie: 10 * 12 / 2
  EXPECT_DOUBLE_EQ(r.z, 0.0);
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
}

TEST(MannWhitney, SymmetricInItsArguments) {
  const std::vector<double> a = {5.1, 4.9, 5.3, 5.0, 5.2, 4.8, 5.5, 5.05, 5.0};
  const std::vector<double> b = {5.4, 5.6, 5.0, 5.7, 5.3, 5.9, 5.45, 5.8};
  const auto ab = rt::mann_whitney_u(a, b), ba = rt::mann_whitney_u(b, a);
  EXPECT_DOUBLE_EQ(ab.u + ba.u, static_cast<double>(a.size() * b.size()));
  EXPECT_NEAR(ab.z, -ba.z, 1e-12);
  EXPECT_NEAR(ab.p_value, ba.p_value, 1e-12);
}

TEST(MannWhitney, EmptySideThrows) {
  EXPECT_THROW(rt::mann_whitney_u({}, {1.0}), std::invalid_argument);
  EXPECT_THROW(rt::mann_whitney_u({1.0}, {}), std::invalid_argument);
}
