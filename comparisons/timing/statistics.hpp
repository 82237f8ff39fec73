// Statistics over timing samples, shared by `reducelab compare` (summaries, win/loss/tie against the reference)
// and `reducelab diff` (is a change real or noise?). Pure host C++17: no CUDA, no JSON, so it is tested alone.
// Samples of two backends with the same index were taken in the same interleaved round: they are *paired*.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace reducelab::timing {

/// The q-quantile of `v` (q in [0, 1]), interpolating linearly between neighbouring order statistics (numpy's and
/// R type 7's default): q = 0.5 of {1, 2, 3, 4} is 2.5. An empty `v` gives NaN; a q outside [0, 1] throws
/// std::invalid_argument.
double percentile(std::vector<double> v, double q);

/// percentile(v, 0.5); NaN when `v` is empty.
double median(std::vector<double> v);

/// What a timing table shows of one row's samples. An empty input gives count 0 and NaN for the rest.
struct sample_summary {
  std::size_t count = 0;
  double median = 0, p10 = 0, p90 = 0, min = 0, max = 0, mean = 0;
  double stddev = 0;  // sample standard deviation (divides by n - 1); 0 for fewer than two samples
};

sample_summary summarize(const std::vector<double>& samples);

/// A closed interval [lo, hi].
struct interval {
  double lo = 0, hi = 0;
};

/// Confidence interval of median(numerator) / median(denominator) by a paired percentile bootstrap: each of
/// `resamples` resamples draws round indices with replacement and takes the ratio of the medians over those
/// rounds; the interval runs from the (1 - confidence) / 2 to the (1 + confidence) / 2 percentile of the ratios.
/// numerator[i] and denominator[i] must come from the same round i; the times are expected to be positive.
/// Deterministic for a given seed on every platform (std::mt19937_64 is fully specified, and the index draw is
/// ours rather than std::uniform_int_distribution's, whose output the standard leaves to the implementation).
/// Throws std::invalid_argument when the lengths differ or are 0, when confidence is not in (0, 1), or when
/// resamples < 1.
interval ratio_of_medians_interval(const std::vector<double>& numerator, const std::vector<double>& denominator,
                                   double confidence = 0.95, int resamples = 2000, std::uint64_t seed = 1);

enum class ratio_verdict { win, loss, tie };

/// For an interval of (reference time / candidate time), so above 1 means the candidate is faster: win when the
/// whole interval is above 1, loss when it is wholly below 1, tie when it contains 1 (or is NaN).
ratio_verdict classify(const interval& ratio_interval);

/// "win", "loss", "tie".
const char* to_string(ratio_verdict verdict);

/// Result of a two-sided Mann-Whitney U test.
struct mann_whitney {
  double u = 0;        // U of the first sample: pairs (a_i, b_j) with a_i > b_j, ties counting 1/2
  double z = 0;        // standardized U, continuity-corrected; positive when `a` tends to be larger
  double p_value = 1;  // two-sided, from the normal approximation
};

/// Two-sided Mann-Whitney U test of "a and b come from the same distribution" (the test Google Benchmark's
/// compare.py applies to repetitions). Unpaired: it uses ranks only, so a few outliers cannot swing it. Normal
/// approximation with average ranks for ties, the tie-corrected variance and a continuity correction (scipy's
/// mannwhitneyu with method="asymptotic"); meant for at least ~8 samples per side, below which the approximation
/// is rough. When all values are equal, p = 1. Throws std::invalid_argument when either sample is empty.
mann_whitney mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace reducelab::timing
