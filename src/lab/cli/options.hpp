// Command-line parsing for the `reducelab` tool (CLI11 underneath, kept out of this header). Pure host code
// with no registry or GPU dependency, so it is unit-tested on any machine; name checks against the registry
// happen in commands.cpp.
#pragma once

#include "lab/host/input_kind.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace reducelab::cli {

struct options {
  std::string command;  // list, check, compare, report, diff, methods, tune, segmented, help
  std::string action;   // segmented: check or compare
  bool json = false;
  bool verbose = false;
  std::vector<std::string> ops;       // functor names; empty: all
  std::vector<std::string> types;     // value type names; empty: all
  std::vector<std::string> variants;  // backend names; empty: all
  std::vector<std::size_t> sizes;     // empty: the command's default
  std::vector<input_kind> inputs;     // empty: the command's default
  std::vector<std::size_t> offsets;   // empty: {0}
  std::uint64_t seed = 20261122;
  std::string mode = "cold";          // compare: cold, hot or both
  std::string out_dir;                // compare, report, methods: where JSON, CSV and the report go
  bool full = false;                  // compare: the full sweep instead of the quick default
  std::string flush = "clean";        // compare: L2 flush before a cold sample: clean (memset + read pass) or memset
  std::size_t samples = 0;            // compare, tune: samples per backend (candidate) and row; 0: the default
  bool hold = true;                   // compare: hold the stream with the blocking kernel (off only under a profiler)
  bool confirm = true;                // compare: re-measure each row's best custom variant paired with CUB
  bool quick = false;                 // tune: fewer sizes, a smoke run
  std::string out_file;               // tune: the results JSON (--out FILE)
  std::string header_file;            // tune: where to write the replacement for include/reducelab/tuning/sm90.hpp
  std::string help_text;              // command "help": the text to print (the whole tool's or one subcommand's)
  std::vector<std::string> positional;
  std::vector<std::string> segments;  // segmented: --segments entries (parse_layout), checked when parsed; empty: default
};

/// The fewest samples per backend and row `compare --samples` accepts: below it a median and an interval mean little.
inline constexpr std::size_t min_compare_samples = 5;

/// Samples per candidate and point of `reducelab tune` without --samples: enough for a stable median and a paired
/// interval, and the whole sweep stays within a few minutes on an H100.
inline constexpr std::size_t default_tune_samples = 15;

/// Parse argv (argv[0] is the program). Throws usage_error with a one-line message naming the problem.
/// `--help`/`-h` (on the tool or on any command) and `help [COMMAND]` give command "help" with help_text set.
options parse_options(int argc, const char* const* argv);

/// Parse one size expression: 1000, 2^20, 2^20+7, 2^16-1, 1e6.
std::size_t parse_size(const std::string& text);

/// Parse a comma-separated list of sizes and ranges; a range is start:stop[:factor] (factor 2 by default),
/// geometric, stop included: 2^10:2^28:4 is 2^10, 2^12, ..., 2^28.
std::vector<std::size_t> parse_size_list(const std::string& text);

/// Split "a,b,c" (empty items are an error).
std::vector<std::string> split_list(const std::string& text, const std::string& option);

/// The whole tool's help text (what `reducelab --help` prints).
std::string usage();

}  // namespace reducelab::cli
