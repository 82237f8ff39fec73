// The Markdown report and SVG plots made from a `reducelab compare` results file. Pure host code working on
// the JSON alone, so a report can be regenerated (or unit-tested) on a machine without a GPU, and the plots are
// hand-written SVG so the report needs no plotting tool.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace reducelab::report {

/// Read a results file and check that it is one: it parses as JSON, its "schema" is "reducelab-compare-1" and
/// every row names its variant, functor, type, n and mode. Throws reducelab::usage_error naming the file and
/// the problem.
nlohmann::json load_results(const std::string& path);

/// The text of report.md. Plot links point at `plots_subdir`/<file>, relative to the report.
std::string render_markdown(const nlohmann::json& results, const std::string& plots_subdir);

/// One SVG chart that write_plots makes for these results.
struct plot_spec {
  std::string kind;  // "gbps" or "speedup"
  std::string functor;
  std::string type;
  std::string mode;
  std::string file_name;  // kind_functor_type_mode.svg, sanitized to [A-Za-z0-9_-]
};

/// The charts these results give: a GB/s chart for each (functor, type, mode) with a timed row, and a
/// speedup-vs-CUB chart where that (functor, type, mode) has a timed CUB reference row.
std::vector<plot_spec> plan_plots(const nlohmann::json& results);

/// Write every planned chart into `dir` (which must exist). Throws std::runtime_error if a file cannot be written.
void write_plots(const nlohmann::json& results, const std::string& dir);

/// Create out_dir/plots and write out_dir/report.md and the charts.
void write_report(const nlohmann::json& results, const std::string& out_dir);

/// results.csv: one line per row, the columns a spreadsheet needs (intervals as _lo/_hi columns).
void write_csv(const nlohmann::json& results, const std::string& path);

/// One results document from the parts of a sweep run separately (comparisons/merge_results.cpp). The parts must
/// share the device, commit, schema and timing settings, and no row may appear twice; usage_error otherwise,
/// naming the part (`names[i]`, e.g. its path).
nlohmann::json merge_results(const std::vector<nlohmann::json>& parts, const std::vector<std::string>& names);

}  // namespace reducelab::report
