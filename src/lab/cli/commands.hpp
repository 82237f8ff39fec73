// The `reducelab` commands, behind one entry point so the CLI binary is a thin main() and the commands can
// be exercised from tests. Output goes to `out`; errors throw usage_error (exit 2) or cuda_error (exit 3).
#pragma once

#include "lab/cli/options.hpp"
#include "lab/registry/registry.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace reducelab::cli {

/// A (functor, value type) pair picked by --ops/--types.
struct selected_case {
  const functor_entry* functor;
  const value_case* value;
};

/// The pairs selected by the filters, in registry order. Unknown names are a usage_error naming them;
/// a filter that matches nothing is one too.
std::vector<selected_case> select_cases(const registry& reg, const options& o);

/// Check --variants against the registry's backend names (usage_error naming an unknown one).
void validate_backends(const registry& reg, const options& o);

/// Throw a usage-style error if no GPU is usable; `command` is named in the message.
void require_gpu(const std::string& command);

int run_list(const registry& reg, const options& o, std::ostream& out);
int run_check(const registry& reg, const options& o, std::ostream& out);
int run_compare(const registry& reg, const options& o, std::ostream& out, const std::string& command_line);
/// The before/after table of the timing method (comparisons/methods.cu): an empty kernel and CUB Sum under the
/// old and the new regimes.
int run_methods(const options& o, std::ostream& out);
/// The data behind that table, measured on the current device (sizes empty: 2^16, 2^20, 2^24); compare stores it
/// in every results file as "method_check".
nlohmann::ordered_json measure_timing_methods(const std::vector<std::size_t>& sizes, std::uint64_t seed);

/// Choose the policies of reducelab::reduce on this GPU (comparisons/tune/): time every candidate policy per value
/// size class, print the choices, and write the results JSON (--out) and the replacement for
/// include/reducelab/tuning/sm90.hpp (--write-header). Exit 1 when a validation failed or a class kept the fallback.
int run_tune(const options& o, std::ostream& out, const std::string& command_line);

/// reducelab segmented check|compare (comparisons/segmented/): segmented_reduce and reduce_by_key backends per
/// (functor, type, layout), validated against the host reference and, for compare, timed interleaved. Needs no
/// registry: its functors and types are the ones comparisons/segmented/cases_*.cu instantiate.
int run_segmented(const options& o, std::ostream& out, const std::string& command_line);

/// Dispatch on o.command. Returns the process exit code. command_line is recorded in compare's and tune's results.
int run_command(const options& o, std::ostream& out, const std::string& command_line = "");

}  // namespace reducelab::cli
