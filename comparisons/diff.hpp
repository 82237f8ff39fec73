// Two results files side by side: did a change make a backend faster or slower, or is the difference within
// the run-to-run noise? When both rows carry their raw samples, a two-sided Mann-Whitney U test decides (as in
// Google Benchmark's compare.py), with a small practical floor on the change. Older files without samples fall
// back to a noise threshold, the way NVBench's compare script labels rows: the change must exceed the larger of
// a 2 % floor and either run's own p10..p90 spread, so a noisy row has to move further to count.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace reducelab::report {

/// Spread rule (rows without samples): the smallest relative change that counts as a difference, however quiet
/// both runs were.
inline constexpr double min_noise_threshold = 0.02;

/// Test rule: a row is FASTER or SLOWER only when the Mann-Whitney p-value is below this. Every row is its own
/// test, so on a diff of ~100 rows with no real change about 5 may still reach it; on quiet rows such chance
/// differences are small, and the practical floor below keeps them out.
inline constexpr double significance_level = 0.05;

/// Test rule: the medians must also differ by more than this. With tens of samples per side the test finds
/// shifts of a few tenths of a percent (clocks and temperature differ between two runs) that are real but
/// not worth anyone's time; a change to a kernel is made to win more than 1 %.
inline constexpr double min_practical_difference = 0.01;

/// Test rule: fewer samples than this on either side fall back to the spread rule. Below ~8 per side the normal
/// approximation of U is rough, and with 3 per side no difference, however large, can reach p < 0.05.
inline constexpr std::size_t min_samples_for_test = 8;

enum class diff_label { same, faster, slower, only_in_a, only_in_b };

/// "SAME", "FASTER", "SLOWER", "ONLY IN A", "ONLY IN B".
const char* to_string(diff_label label);

/// One measurement (variant, functor, type, n, mode) compared between run A and run B.
struct diff_row {
  std::string variant;
  std::string functor;
  std::string type;
  std::uint64_t n = 0;
  std::string mode;
  double a_median_us = 0;  // 0 when only in B
  double b_median_us = 0;  // 0 when only in A
  double ratio = 0;        // B / A: below 1 means B is faster; 0 unless both timed
  double threshold = 0;    // test rule: the 1 % practical floor; spread rule: max(2 %, relative spread of A, of B);
                           // 0 unless both timed
  double p_value = std::numeric_limits<double>::quiet_NaN();  // Mann-Whitney p; NaN unless the test rule was used
  diff_label label = diff_label::same;
  // Why a row is only on one side when the other run has it untimed ("FAIL in B: ..."), or why a row in both
  // was labelled by the spread rule ("no samples: spread rule").
  std::string note;
};

/// Whether `row` was labelled by the Mann-Whitney test (both runs had enough samples) rather than the spread rule.
inline bool used_test(const diff_row& row) { return !std::isnan(row.p_value); }

/// Rows of A and B matched by (variant, functor, type, n, mode); a row counts on a side only if it was timed
/// there. A's order first, then what only B has, in B's order.
std::vector<diff_row> diff_runs(const nlohmann::json& a, const nlohmann::json& b);

/// A fixed-width text table of `rows`, headed by both runs' device and commit (with a warning when the devices
/// differ) and the rule or rules the rows were labelled by, and ending in one line of counts:
/// "N same, N faster, N slower, N only in A, N only in B".
std::string render_diff(const nlohmann::json& a, const nlohmann::json& b, const std::vector<diff_row>& rows);

}  // namespace reducelab::report
