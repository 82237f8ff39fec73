// `reducelab report` and `reducelab diff`: the two commands that only read results files. Kept apart from
// commands.hpp because they need neither the registry nor a GPU.
#pragma once

#include "lab/cli/options.hpp"

#include <ostream>

namespace reducelab::cli {

/// reducelab report RESULTS.json [--out DIR]: write DIR/report.md and DIR/plots/*.svg (DIR defaults to the
/// folder holding RESULTS.json) and print where they went. Throws usage_error for a missing or bad file.
int run_report(const options& o, std::ostream& out);

/// reducelab diff A.json B.json: print every row matched between the runs labelled SAME, FASTER or SLOWER
/// against the noise. Exactly two paths, else usage_error.
int run_diff(const options& o, std::ostream& out);

}  // namespace reducelab::cli
