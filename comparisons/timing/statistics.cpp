// Percentiles, summaries, the paired bootstrap of a ratio of medians and the Mann-Whitney U test. Sample counts
// are small (tens), so plain sorting is fast enough and easier to check than selection algorithms.
#include "comparisons/timing/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace reducelab::timing {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// The q-quantile of an already sorted, non-empty `v` (R type 7: position q * (n - 1)).
double percentile_of_sorted(const std::vector<double>& v, double q) {
  const double position = q * static_cast<double>(v.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, v.size() - 1);
  return v[below] + (position - static_cast<double>(below)) * (v[above] - v[below]);
}

double median_in_place(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  return percentile_of_sorted(v, 0.5);
}

/// A uniform index in [0, n). Rejecting the top 2^64 mod n raw values keeps every index equally likely; unlike
/// std::uniform_int_distribution the result is the same with every standard library.
std::size_t draw_index(std::mt19937_64& rng, std::uint64_t n) {
  constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t limit = top - top % n;  // a multiple of n
  std::uint64_t r = rng();
  while (r >= limit) r = rng();
  return static_cast<std::size_t>(r % n);
}

}  // namespace

double percentile(std::vector<double> v, double q) {
  if (!(q >= 0.0 && q <= 1.0))
    throw std::invalid_argument("percentile: q = " + std::to_string(q) + " is not in [0, 1]");
  if (v.empty()) return nan;
  std::sort(v.begin(), v.end());
  return percentile_of_sorted(v, q);
}

double median(std::vector<double> v) { return percentile(std::move(v), 0.5); }

sample_summary summarize(const std::vector<double>& samples) {
  sample_summary s;
  s.count = samples.size();
  if (samples.empty()) {
    s.median = s.p10 = s.p90 = s.min = s.max = s.mean = s.stddev = nan;
    return s;
  }
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  s.median = percentile_of_sorted(sorted, 0.5);
  s.p10 = percentile_of_sorted(sorted, 0.1);
  s.p90 = percentile_of_sorted(sorted, 0.9);
  s.min = sorted.front();
  s.max = sorted.back();
  const double n = static_cast<double>(samples.size());
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  // Two passes (mean, then squared deviations): the one-pass sum-of-squares formula cancels badly when the
  // spread is tiny next to the mean, which is exactly what quiet timings look like.
  double squares = 0.0;
  for (double x : samples) squares += (x - s.mean) * (x - s.mean);
  s.stddev = samples.size() < 2 ? 0.0 : std::sqrt(squares / (n - 1.0));
  return s;
}

interval ratio_of_medians_interval(const std::vector<double>& numerator, const std::vector<double>& denominator,
                                   double confidence, int resamples, std::uint64_t seed) {
  if (numerator.size() != denominator.size() || numerator.empty())
    throw std::invalid_argument("ratio_of_medians_interval needs paired samples of one non-zero length (got " +
                                std::to_string(numerator.size()) + " numerator and " +
                                std::to_string(denominator.size()) + " denominator samples)");
  if (!(confidence > 0.0 && confidence < 1.0))
    throw std::invalid_argument("ratio_of_medians_interval: confidence " + std::to_string(confidence) +
                                " is not in (0, 1)");
  if (resamples < 1)
    throw std::invalid_argument("ratio_of_medians_interval: resamples = " + std::to_string(resamples) +
                                " (need at least 1)");
  // Rounds are resampled whole, keeping each pair together: both backends of a round saw the same clock state,
  // temperature and background transients, so a drift that slows one round slows both sides and cancels in the
  // ratio. Resampling the two sides independently would count that shared drift as noise twice over and widen
  // the interval for nothing.
  const std::size_t n = numerator.size();
  std::mt19937_64 rng(seed);
  std::vector<double> num(n), den(n), ratios(static_cast<std::size_t>(resamples));
  for (double& ratio : ratios) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = draw_index(rng, n);
      num[k] = numerator[i];
      den[k] = denominator[i];
    }
    ratio = median_in_place(num) / median_in_place(den);
  }
  std::sort(ratios.begin(), ratios.end());
  return {percentile_of_sorted(ratios, (1.0 - confidence) / 2.0),
          percentile_of_sorted(ratios, (1.0 + confidence) / 2.0)};
}

ratio_verdict classify(const interval& ratio_interval) {
  if (ratio_interval.lo > 1.0) return ratio_verdict::win;
  if (ratio_interval.hi < 1.0) return ratio_verdict::loss;
  return ratio_verdict::tie;  // contains 1, or NaN: no evidence either way
}

const char* to_string(ratio_verdict verdict) {
  switch (verdict) {
    case ratio_verdict::win: return "win";
    case ratio_verdict::loss: return "loss";
    case ratio_verdict::tie: return "tie";
  }
  return "?";
}

mann_whitney mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty())
    throw std::invalid_argument("mann_whitney_u needs samples on both sides (got " + std::to_string(a.size()) +
                                " and " + std::to_string(b.size()) + ")");
  struct ranked {
    double value;
    bool from_a;
  };
  std::vector<ranked> all;
  all.reserve(a.size() + b.size());
  for (double x : a) all.push_back({x, true});
  for (double x : b) all.push_back({x, false});
  std::sort(all.begin(), all.end(), [](const ranked& l, const ranked& r) { return l.value < r.value; });

  // Tied values share the average of the ranks they span; each tie group of size t shrinks the variance of U by
  // a term in t^3 - t, because ties remove the orderings that the untied variance counts.
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size()), n = na + nb;
  double rank_sum_a = 0.0, tie_term = 0.0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].value == all[i].value) ++j;
    const double average_rank = static_cast<double>(i + 1 + j) / 2.0;  // ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k)
      if (all[k].from_a) rank_sum_a += average_rank;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  mann_whitney result;
  result.u = rank_sum_a - na * (na + 1.0) / 2.0;
  const double mean = na * nb / 2.0;
  const double variance = na * nb / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
  if (variance <= 0.0) return result;  // every value equal: no evidence of a difference, z = 0, p = 1
  // U moves in steps of 1/2 or 1 while the normal curve is continuous: moving U half a step towards the mean
  // keeps small samples from looking more significant than they are.
  const double distance = result.u - mean;
  const double corrected = std::copysign(std::max(std::abs(distance) - 0.5, 0.0), distance);
  result.z = corrected / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(std::abs(result.z) / std::sqrt(2.0)));
  return result;
}

}  // namespace reducelab::timing
