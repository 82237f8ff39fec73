// The before/after table of the timing method: what `reducelab methods` prints and what compare stores under
// results["method_check"] (measured at the start of every run), so that each report shows, from its own device,
// what the old method would have read. Pure host code on the JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace reducelab::report {

/// A Markdown table: one row per work item (an empty kernel, CUB Sum at a few sizes), one column per regime,
/// each cell "median [p10, p90]" in µs. `methods` is {device, samples, regimes: [{regime, rows: [{work,
/// median_us (null: not measured), p10_us, p90_us}]}]}.
std::string render_methods_table(const nlohmann::json& methods);

/// "## Timing method: old against new" with that table and what it shows; empty when the results have no
/// "method_check".
std::string render_methods_section(const nlohmann::json& results);

}  // namespace reducelab::report
