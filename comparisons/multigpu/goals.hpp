// What one case of `reducelab-multigpu compare` found (case_outcome), and issue 14's goals judged from them:
// PASS or MISS with the measured figure, or NO DATA saying why a goal could not be judged. Pure host code,
// unit-tested without a GPU (tests/test_multigpu_tool.cpp).
#pragma once

#include "comparisons/multigpu/options.hpp"

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace reducelab::multigpu::tool {

/// One validation of a case: what was checked, whether it held, and what was found.
struct check_result {
  std::string name;
  bool ok = false;
  std::string detail;
};

/// One timed item's samples (µs, in round order) and how they were clocked.
struct timed_result {
  std::string name;
  std::string clock;
  std::vector<double> us;
  double median_us = NAN, p10_us = NAN, p90_us = NAN;
};

enum class case_status { pass, fail, skipped };
const char* to_string(case_status s);

struct case_outcome {
  case_name which;
  std::size_t n = 0;      // elements: scalar, the total; all-reduce, each rank's vector
  std::size_t bytes = 0;  // n x the element size
  int gpus = 0;
  case_status status = case_status::skipped;
  std::string reason;                // skipped: why; fail: the first failed check or the error
  std::vector<check_result> checks;  // in the order they ran
  std::vector<std::string> notes;    // facts that are not checks (a float sum's split rounding differently)
  bool run_to_run_identical = false; // the repeated runs (and the timed ones) gave bitwise the same output
  timed_result ours, baseline;       // empty when not timed
  /// baseline time / our time, medians, with its 95 % paired bootstrap interval: the scalar part's speedup
  /// over one GPU; the all-reduce's ratio of bus bandwidths (same bytes, same N).
  double ratio = NAN, ratio_lo = NAN, ratio_hi = NAN;
  double ours_busbw = NAN, baseline_busbw = NAN;  // all-reduce: GB/s, nccl-tests' convention
  double ours_algbw = NAN, baseline_algbw = NAN;

  /// Derive status and reason from the checks: fail if any failed (or none ran), else pass; an outcome marked
  /// skipped with a reason and no checks stays skipped.
  void settle();
  /// After validation: when a check failed, settle as failed, say it was not timed, and return true (the case
  /// stops there: a wrong result's speed is not reported).
  bool stop_untimed_if_failed();
};

enum class goal_status { pass, miss, no_data };
const char* to_string(goal_status s);

/// One of issue 14's goals: a case, the size it is stated for, and the least ratio that meets it.
struct goal_spec {
  part which = part::scalar;
  std::string functor, type;
  std::size_t size = 0;  // scalar: total elements; all-reduce: bytes
  double threshold = 0;
  std::string text;
};

/// The goals as issue 14 states them: for two H200s, the scalar reduce of 2^31 elements split over both GPUs at
/// least 1.9x one GPU (plus int32/float, argmax, mean_variance, affine_compose); the all-reduce of 256 MiB at
/// least 0.9x ncclAllReduce's bus bandwidth for plus int32/float, and argmax pairs within 10 % of
/// ncclAllReduce(plus, float) on the same bytes. The run-to-run goal is judged separately (judge_goals).
const std::vector<goal_spec>& issue_goals();

/// The GPU count the goals are stated for.
inline constexpr int goal_gpus = 2;

struct goal_result {
  std::string text;
  goal_status status = goal_status::no_data;
  double measured = NAN, lo = NAN, hi = NAN;  // the ratio and its interval, when there is one
  std::string detail;                         // the figure in words, or why there is no data
  std::string line() const;                   // "PASS  <text>: <detail>"
};

/// Judge every goal of issue_goals() and then "results identical run to run" from what ran. A goal is NO DATA
/// when the run did not use goal_gpus GPUs, or its case was not run (not selected, size not asked for) or was
/// skipped; MISS when its case failed validation (the figure cannot be trusted) or the median ratio is below
/// the threshold. `device_name` (GPU 0's) is named in the detail when it is not an H200, the goals' machine.
std::vector<goal_result> judge_goals(const std::vector<case_outcome>& outcomes, int gpus,
                                     const std::string& device_name);

}  // namespace reducelab::multigpu::tool
