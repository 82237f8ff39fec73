// Two results files side by side: did a change make a backend faster or slower, or is the difference within
// the run-to-run noise? NVBench's compare script labels rows the same way; the threshold here is the larger of
// a 2 % floor and either run's own p10..p90 spread, so a noisy row has to move further to count.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace reducelab::report {

/// The smallest relative change that counts as a difference, however quiet both runs were.
inline constexpr double min_noise_threshold = 0.02;

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
  double threshold = 0;    // max(2 %, relative spread of A, of B); 0 unless both timed
  diff_label label = diff_label::same;
  std::string note;  // why a row is only on one side when the other run has it untimed ("FAIL in B: ...")
};

/// Rows of A and B matched by (variant, functor, type, n, mode); a row counts on a side only if it was timed
/// there. A's order first, then what only B has, in B's order.
std::vector<diff_row> diff_runs(const nlohmann::json& a, const nlohmann::json& b);

/// A fixed-width text table of `rows`, headed by both runs' device and commit (with a warning when the devices
/// differ) and ending in one line of counts: "N same, N faster, N slower, N only in A, N only in B".
std::string render_diff(const nlohmann::json& a, const nlohmann::json& b, const std::vector<diff_row>& rows);

}  // namespace reducelab::report
