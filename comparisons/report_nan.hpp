// The report's "NaN inputs" section, from the rows probe_nan_semantics (comparisons/nan_probe.hpp) stores
// under results["nan_semantics"]. Pure host code on the JSON, like the rest of the report.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace reducelab::report {

/// Markdown "## NaN inputs": for each (functor, type) of results["nan_semantics"], the distinct results and
/// which backends returned each, and a sentence saying what that shows (maximum/minimum: backends disagree,
/// the result depends on the combine order; amax/nanmax...: one answer). Empty when the results have no
/// "nan_semantics" rows.
std::string render_nan_section(const nlohmann::json& results);

}  // namespace reducelab::report
