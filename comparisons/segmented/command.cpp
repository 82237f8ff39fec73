// `reducelab segmented`: resolve the selection, require a GPU, then hand over to check.cpp or compare.cpp.
#include "comparisons/segmented/selection.hpp"
#include "lab/cli/commands.hpp"
#include "lab/segmented/host/offsets_check.hpp"
#include "reducelab/core/error.hpp"

#include <algorithm>

namespace reducelab::segmented::tool {

namespace {
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
}  // namespace

bool selection::wants(const std::string& backend) const { return variants.empty() || contains(variants, backend); }

std::vector<std::string> default_segment_layouts() {
  return {"uniform:1",    "uniform:8",    "uniform:32", "uniform:256", "uniform:4096",
          "uniform:2^16", "uniform:2^20", "zipf:1.2",   "empty90",     "giant"};
}

std::vector<std::string> default_key_layouts() { return {"keys1", "uniform:8", "uniform:256"}; }

selection select(const cli::options& o, std::size_t default_size) {
  std::vector<case_entry> all = all_cases();
  std::vector<std::string> functors, types;
  for (const auto& c : all) {
    if (!contains(functors, c.functor)) functors.push_back(c.functor);
    if (!contains(types, c.type)) types.push_back(c.type);
  }
  for (const auto& f : o.ops)
    if (!contains(functors, f))
      throw usage_error("segmented: unknown or uninstantiated functor '" + f + "' (segmented serves: " + join(functors) + ")");
  for (const auto& t : o.types)
    if (!contains(types, t))
      throw usage_error("segmented: unknown or uninstantiated type '" + t + "' (segmented serves: " + join(types) + ")");
  std::vector<std::string> backends = backend_names(operation::segmented_reduce);
  for (const auto& b : backend_names(operation::reduce_by_key)) backends.push_back(b);
  for (const auto& v : o.variants)
    if (!contains(backends, v)) throw usage_error("segmented: unknown backend '" + v + "' (known: " + join(backends) + ")");

  selection s;
  for (auto& c : all)
    if ((o.ops.empty() || contains(o.ops, c.functor)) && (o.types.empty() || contains(o.types, c.type)))
      s.cases.push_back(std::move(c));
  if (s.cases.empty()) throw usage_error("segmented: no instantiated (functor, type) pair matches --ops and --types");
  s.variants = o.variants;
  s.sizes = o.sizes.empty() ? std::vector<std::size_t>{default_size} : o.sizes;
  // An explicit --segments list applies to both operations (keys from the same layouts).
  s.segment_layouts = o.segments.empty() ? default_segment_layouts() : o.segments;
  s.key_layouts = o.segments.empty() ? default_key_layouts() : o.segments;
  s.seed = o.seed;
  return s;
}

segment_layout checked_layout(const std::string& spec, std::size_t n, std::uint64_t seed) {
  segment_layout layout = parse_layout(spec, n, seed);
  const std::string problem = offsets_problem(layout, n);
  if (!problem.empty()) throw usage_error("--segments " + spec + " over n = " + std::to_string(n) + ": " + problem);
  return layout;
}

std::string case_label(const case_entry& c, operation op, const std::string& layout, std::size_t n) {
  return c.functor + "/" + c.type + " " + to_string(op) + " " + layout + " n=" + std::to_string(n);
}

}  // namespace reducelab::segmented::tool

namespace reducelab::cli {

int run_segmented(const options& o, std::ostream& out, const std::string& command_line) {
  namespace tool = segmented::tool;
  if (o.action != "check" && o.action != "compare")
    throw usage_error("segmented needs an action: reducelab segmented check|compare [options]");
  const std::size_t default_size = o.action == "check" ? (std::size_t{1} << 20) + 3 : std::size_t{1} << 24;
  const tool::selection s = tool::select(o, default_size);  // names first: a typo is reported with or without a GPU
  require_gpu("segmented " + o.action);
  return o.action == "check" ? tool::run_check(s, out) : tool::run_compare(s, o, out, command_line);
}

}  // namespace reducelab::cli
