// segmented.md and its SVG charts from a `reducelab segmented compare` results file (schema
// "reducelab-segmented-compare/1"): one table per (operation, functor, type) with a row per layout, the goals of
// issue 13 checked line by line, and GB/s and × CUB against the uniform segment length. Pure host code on the
// JSON alone, like the scalar report (comparisons/report.hpp), so it can be regenerated and unit-tested without
// a GPU.
#pragma once

#include "lab/cli/options.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace reducelab::segmented::report {

inline constexpr const char* schema_name = "reducelab-segmented-compare/1";
inline constexpr const char* report_file_name = "segmented.md";
inline constexpr const char* plots_subdir_name = "plots";

/// Whether the file at `path` parses as JSON with this schema (false on any error: the caller then treats it
/// as a scalar results file, whose loader names the problem).
bool is_segmented_file(const std::string& path);

/// Read a segmented results file: JSON, the schema above, and every row naming its functor, type, operation,
/// layout, backend, status and n. Throws reducelab::usage_error naming the file and the problem.
nlohmann::json load_results(const std::string& path);

enum class goal_verdict {
  pass,
  miss,
  no_data,      // a row the goal needs is missing, failed or untimed: never a pass
  no_baseline,  // the goal compares with a CUB baseline that does not exist for this functor (non-commutative)
};

/// One line of the goals section: one target checked on one (operation, functor, type, layout, n).
struct goal_check {
  int goal = 1;        // 1: peak of segmented_reduce, 2: × cub::DeviceSegmentedReduce, 3: reduce_by_key
  std::string metric;  // "% peak" or "× CUB"
  std::string operation, functor, type, layout;
  std::uint64_t n = 0;  // 0: the case is not in the run at all
  double target = 0;    // % of peak or ×
  std::optional<double> measured;
  std::optional<std::pair<double, double>> interval;  // × CUB: the 95 % interval compare wrote
  goal_verdict verdict = goal_verdict::no_data;
  double shortfall = 0;  // on a MISS: target - measured, in points of % or in ×
  // × CUB: the % of the device's peak at which the library would have to move its bytes (bytes_moved) to meet the
  // target against CUB's median: target × bytes_moved / (peak × CUB median) × 100. Above 100, no implementation
  // that moves those bytes can meet the target on this device. Empty without a timed CUB row, bytes or a peak.
  std::optional<double> target_needs_pct;
  // The % of peak a plain read of as many bytes reached in the same rounds (the library row's "plain_read",
  // compare.cpp): what one pass over those bytes achieves at this size here. Empty in files written before it.
  std::optional<double> plain_read_pct;
  std::string note;      // why there is no data or no baseline
};

/// Every goal check of the file: goal 1, then 2, then 3; within a goal by case, n and layout.
std::vector<goal_check> evaluate_goals(const nlohmann::json& results);

/// The "## Goals" section in Markdown.
std::string render_goals_section(const nlohmann::json& results);

/// The whole of segmented.md; plot links point at `plots_subdir`/<file>.
std::string render_markdown(const nlohmann::json& results, const std::string& plots_subdir);

/// One chart: GB/s or × CUB against the uniform segment (run) length of one (operation, functor, type, n).
struct plot_spec {
  std::string kind;  // "gbps" or "speedup"
  std::string operation, functor, type;
  std::uint64_t n = 0;
  std::string file_name;  // segmented_<kind>_<operation>_<functor>_<type>_<n>.svg, sanitized to [A-Za-z0-9_-]
};

/// A GB/s chart where some backend was timed on a uniform layout; a speedup chart where the CUB baseline was too.
std::vector<plot_spec> plan_plots(const nlohmann::json& results);

/// The SVG text of one planned chart.
std::string render_plot(const nlohmann::json& results, const plot_spec& p);

/// Create out_dir/plots and write out_dir/segmented.md and every planned chart. Throws std::runtime_error if a
/// file cannot be written.
void write_report(const nlohmann::json& results, const std::string& out_dir);

/// `reducelab report DIR/segmented.json [--out DIR]`: load, write, print where it went.
int run_report(const cli::options& o, std::ostream& out);

}  // namespace reducelab::segmented::report
