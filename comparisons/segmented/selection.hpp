// What one `reducelab segmented check|compare` line asks for, resolved and checked before any GPU work: the
// cases (--ops/--types over the instantiated goal set), the backends (--variants), the element counts and the
// layouts of each operation. Shared by check.cpp and compare.cpp.
#pragma once

#include "comparisons/segmented/cases.hpp"
#include "lab/cli/options.hpp"

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace reducelab::segmented::tool {

struct selection {
  std::vector<case_entry> cases;
  std::vector<std::string> variants;  // empty: every backend
  std::vector<std::size_t> sizes;
  std::vector<std::string> segment_layouts;  // for segmented_reduce
  std::vector<std::string> key_layouts;      // for reduce_by_key
  std::uint64_t seed = 0;

  bool wants(const std::string& backend) const;
  const std::vector<std::string>& layouts(operation op) const {
    return op == operation::segmented_reduce ? segment_layouts : key_layouts;
  }
};

/// Default layouts: the sweep for segmented_reduce; for reduce_by_key runs of 1, 8 and 256 keys.
std::vector<std::string> default_segment_layouts();
std::vector<std::string> default_key_layouts();

/// Resolve the options; unknown functor, type or backend names are a usage_error naming them.
selection select(const cli::options& o, std::size_t default_size);

/// The layout `spec` over n elements, refused (usage_error naming the first bad segment) when offsets_problem
/// finds one.
segment_layout checked_layout(const std::string& spec, std::size_t n, std::uint64_t seed);

/// "plus/int32 segmented_reduce uniform:8 n=1048579": a case's label in every line and row.
std::string case_label(const case_entry& c, operation op, const std::string& layout, std::size_t n);

int run_check(const selection& s, std::ostream& out);
int run_compare(const selection& s, const cli::options& o, std::ostream& out, const std::string& command_line);

}  // namespace reducelab::segmented::tool
