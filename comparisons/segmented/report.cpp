// See report.hpp. Every figure is one row of segmented.json (median_us, gb_per_s, pct_of_peak, speedup_vs_cub
// and its interval, as compare wrote them), so a line of the report can be checked against the JSON by hand. The
// targets are issue 13's; changing one is changing the goal, not the measurement.
#include "comparisons/segmented/report.hpp"

#include "comparisons/results_view.hpp"
#include "comparisons/svg_chart.hpp"
#include "comparisons/text_file.hpp"
#include "reducelab/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace reducelab::segmented::report {

namespace {

using json = nlohmann::json;
using reducelab::report::detail::cell;
using reducelab::report::detail::code;
using reducelab::report::detail::format;
using reducelab::report::detail::format_gbps;
using reducelab::report::detail::format_us;
using reducelab::report::detail::md_table;
using reducelab::report::detail::number_at;
using reducelab::report::detail::size_label;
using reducelab::report::detail::string_at;
namespace svg = reducelab::report::svg;

constexpr const char* op_segmented = "segmented_reduce";
constexpr const char* op_by_key = "reduce_by_key";
constexpr const char* library_segmented = "reducelab::segmented_reduce";
constexpr const char* library_by_key = "reducelab::reduce_by_key";
constexpr const char* cub_segmented = "cub::DeviceSegmentedReduce::Reduce";  // the reference compare measures against
constexpr const char* cub_by_key = "cub::DeviceReduce::ReduceByKey";
constexpr const char* status_pass = "pass";
constexpr const char* dash = "—";

// --- The goals of issue 13 -----------------------------------------------------------------------------------

// The goal set: 4- and 8-byte values of plus, maximum, argmax and affine_compose (comparisons/segmented/cases.hpp).
// A case missing from the run is a NO DATA line, not a silent gap.
const std::vector<std::pair<std::string, std::string>> goal_cases = {
    {"plus", "int32"},    {"plus", "float"},          {"plus", "double"},
    {"maximum", "int32"}, {"maximum", "float"},       {"maximum", "double"},
    {"argmax", "float_idx32"}, {"affine_compose", "affine32"}};
// Known not to commute, for files whose CUB row is missing rather than skipped with its reason.
constexpr const char* non_commutative_functors[] = {"affine_compose"};

constexpr double segmented_peak_pct = 80.0;  // goal 1: every uniform length 1..2^20, zipf and giant
constexpr std::uint64_t goal_lengths[] = {1, 8, 32, 256, 4096, std::uint64_t{1} << 16, std::uint64_t{1} << 20};

/// Goal 2: × cub::DeviceSegmentedReduce by uniform segment length (the listed lengths only); giant apart.
double segmented_ratio_target(std::uint64_t length) {
  return length <= 8 ? 50.0 : length <= 32 ? 5.0 : length <= 256 ? 2.5 : 1.0;
}
constexpr double giant_ratio_target = 10.0;

constexpr double by_key_peak_pct = 85.0;     // goal 3: runs of 8 and longer
constexpr double by_key_ratio_long = 1.25;   // × cub::DeviceReduce::ReduceByKey, runs of 8 and longer
constexpr double by_key_ratio_single = 1.15; // runs of length 1
constexpr std::uint64_t by_key_goal_lengths[] = {1, 8, 256};  // the default key layouts

constexpr double tolerance = 1e-9;  // a ratio of medians may land a hair below its target in binary

const std::vector<std::string> layout_order = {"keys1",        "uniform:1",    "uniform:8",  "uniform:32",
                                               "uniform:256",  "uniform:4096", "uniform:2^16", "uniform:2^20",
                                               "zipf",         "empty90",      "giant"};

// --- Reading the rows ----------------------------------------------------------------------------------------

/// The uniform length a layout spec names ("uniform:8", "uniform:2^16", "keys1" = 1), or nothing.
std::optional<std::uint64_t> uniform_length(const std::string& spec) {
  if (spec == "keys1") return 1;
  if (spec.rfind("uniform:", 0) != 0) return std::nullopt;
  std::string text = spec.substr(8);
  const bool power = text.rfind("2^", 0) == 0;
  if (power) text = text.substr(2);
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const unsigned long long v = std::stoull(text);
  if (power) return v <= 62 ? std::optional<std::uint64_t>(std::uint64_t{1} << v) : std::nullopt;
  return v;
}

/// How the default sweep names a uniform length (command.cpp): "uniform:256", "uniform:2^16".
std::string uniform_label(std::uint64_t length) {
  return "uniform:" + (length <= 4096 ? std::to_string(length) : size_label(length));
}

bool is_zipf(const std::string& spec) { return spec.rfind("zipf", 0) == 0; }

int layout_rank(const std::string& spec) {
  const std::string key = is_zipf(spec) ? "zipf" : spec;
  const auto it = std::find(layout_order.begin(), layout_order.end(), key);
  if (it != layout_order.end()) return static_cast<int>(it - layout_order.begin());
  if (const auto l = uniform_length(spec)) return 100 + static_cast<int>(std::log2(static_cast<double>(*l)));
  return 1000;
}

bool is_timed(const json& row) {
  const auto m = number_at(row, "median_us");
  return string_at(row, "status") == status_pass && m && *m > 0.0;
}
double median_of(const json& row) { return *number_at(row, "median_us"); }
std::uint64_t n_of(const json& row) { return row.at("n").get<std::uint64_t>(); }

const char* library_of(const std::string& op) { return op == op_segmented ? library_segmented : library_by_key; }
const char* cub_of(const std::string& op) { return op == op_segmented ? cub_segmented : cub_by_key; }

using case_key = std::tuple<std::string, std::string, std::string>;  // operation, functor, type

/// The rows by (operation, functor, type) and by (case, layout, n, backend), in first-seen order.
class segmented_index {
 public:
  explicit segmented_index(const json& results) : results_(results) {
    for (const auto& row : results.at("rows")) {
      const case_key c{string_at(row, "operation"), string_at(row, "functor"), string_at(row, "type")};
      if (std::find(cases_.begin(), cases_.end(), c) == cases_.end()) cases_.push_back(c);
      rows_[c].push_back(&row);
      by_key_[{c, string_at(row, "layout"), n_of(row), string_at(row, "backend")}] = &row;
      sizes_[std::get<0>(c)].insert(n_of(row));
    }
  }

  const json& results() const { return results_; }
  const std::vector<case_key>& cases() const { return cases_; }
  bool has_case(const case_key& c) const { return rows_.count(c) != 0; }
  const std::vector<const json*>& rows_of(const case_key& c) const {
    static const std::vector<const json*> none;
    const auto it = rows_.find(c);
    return it == rows_.end() ? none : it->second;
  }
  /// Every n the run measured for an operation, ascending.
  std::vector<std::uint64_t> sizes(const std::string& op) const {
    const auto it = sizes_.find(op);
    return it == sizes_.end() ? std::vector<std::uint64_t>{} : std::vector<std::uint64_t>(it->second.begin(), it->second.end());
  }
  const json* find(const case_key& c, const std::string& layout, std::uint64_t n, const std::string& backend) const {
    const auto it = by_key_.find({c, layout, n, backend});
    return it == by_key_.end() ? nullptr : it->second;
  }
  /// The layouts of a case at n in report order (keys1, uniform by length, zipf, empty90, giant, others).
  std::vector<std::string> layouts(const case_key& c, std::uint64_t n) const {
    std::vector<std::string> out;
    for (const json* row : rows_of(c)) {
      const std::string l = string_at(*row, "layout");
      if (n_of(*row) == n && std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const std::string& a, const std::string& b) { return layout_rank(a) < layout_rank(b); });
    return out;
  }
  /// The layout spec of a case at n whose uniform length is `length` (keys1 and uniform:1 alike), or "".
  std::string layout_of_length(const case_key& c, std::uint64_t n, std::uint64_t length) const {
    for (const auto& l : layouts(c, n))
      if (uniform_length(l) == length) return l;
    return "";
  }
  std::string layout_matching(const case_key& c, std::uint64_t n, bool (*match)(const std::string&)) const {
    for (const auto& l : layouts(c, n))
      if (match(l)) return l;
    return "";
  }
  std::optional<double> peak() const {
    const auto it = results_.find("device");
    return it == results_.end() || !it->is_object() ? std::nullopt : number_at(*it, "peak_gb_per_s");
  }

 private:
  using row_key = std::tuple<case_key, std::string, std::uint64_t, std::string>;
  const json& results_;
  std::vector<case_key> cases_;
  std::map<case_key, std::vector<const json*>> rows_;
  std::map<row_key, const json*> by_key_;
  std::map<std::string, std::set<std::uint64_t>> sizes_;
};

std::optional<double> pct_of(const json& row, std::optional<double> peak) {
  if (const auto p = number_at(row, "pct_of_peak")) return p;
  const auto g = number_at(row, "gb_per_s");
  if (!g || !peak || *peak <= 0.0) return std::nullopt;
  return *g / *peak * 100.0;
}

std::optional<std::pair<double, double>> interval_of(const json& row) {
  const auto it = row.find("speedup_interval");
  if (it == row.end() || !it->is_array() || it->size() != 2 || !(*it)[0].is_number() || !(*it)[1].is_number())
    return std::nullopt;
  return std::pair<double, double>{(*it)[0].get<double>(), (*it)[1].get<double>()};
}

/// The % of peak of the plain read timed in the row's rounds (compare.cpp), if the file has one.
std::optional<double> plain_read_of(const json& row) {
  const auto it = row.find("plain_read");
  if (it == row.end() || !it->is_object()) return std::nullopt;
  return number_at(*it, "pct_of_peak");
}

/// × CUB of a row: compare's figure, else the ratio of the medians.
std::optional<double> speedup_of(const json& row, const json* cub) {
  if (const auto s = number_at(row, "speedup_vs_cub")) return s;
  if (cub && is_timed(*cub) && is_timed(row)) return median_of(*cub) / median_of(row);
  return std::nullopt;
}

/// "reducelab::segmented_reduce fail: <message>" or "… not in this run": why a figure is missing.
std::string missing(const json* row, const std::string& backend) {
  if (!row) return backend + " not in this run";
  std::string why = backend + " " + string_at(*row, "status", "?");
  const std::string detail = string_at(*row, "reason", string_at(*row, "message"));
  return detail.empty() ? why : why + ": " + detail;
}

/// The reason this case has no CUB segmented baseline, or "" when it has one.
std::string no_baseline_reason(const segmented_index& idx, const case_key& c, std::uint64_t n,
                               const std::string& layout) {
  const json* cub = idx.find(c, layout, n, cub_segmented);
  if (cub && string_at(*cub, "status") == "skipped")
    return "no CUB segmented baseline: " + string_at(*cub, "reason", "skipped");
  const std::string& functor = std::get<1>(c);
  for (const char* f : non_commutative_functors)
    if (functor == f && !(cub && is_timed(*cub)))
      return "no CUB segmented baseline: cub::DeviceSegmentedReduce does not support non-commutative operators";
  return "";
}

goal_check make_check(int goal, const char* metric, const case_key& c, const std::string& layout, std::uint64_t n,
                      double target) {
  goal_check k;
  k.goal = goal;
  k.metric = metric;
  k.operation = std::get<0>(c);
  k.functor = std::get<1>(c);
  k.type = std::get<2>(c);
  k.layout = layout;
  k.n = n;
  k.target = target;
  return k;
}

void judge(goal_check& k, double measured) {
  k.measured = measured;
  const bool pass = measured >= k.target - tolerance;
  k.verdict = pass ? goal_verdict::pass : goal_verdict::miss;
  k.shortfall = pass ? 0.0 : k.target - measured;
}

void judge_peak(goal_check& k, const segmented_index& idx, const case_key& c) {
  const char* lib = library_of(k.operation);
  if (k.layout.empty()) {
    k.note = "layout not in this run";
    return;
  }
  const json* row = idx.find(c, k.layout, k.n, lib);
  const auto pct = row && is_timed(*row) ? pct_of(*row, idx.peak()) : std::nullopt;
  if (row) k.plain_read_pct = plain_read_of(*row);
  if (pct) judge(k, *pct);
  else k.note = row && is_timed(*row) ? "no device peak in the file" : missing(row, lib);
}

void judge_ratio(goal_check& k, const segmented_index& idx, const case_key& c) {
  const char* lib = library_of(k.operation);
  const char* cub = cub_of(k.operation);
  if (k.layout.empty()) {
    k.note = "layout not in this run";
    return;
  }
  if (k.operation == op_segmented) {
    if (std::string why = no_baseline_reason(idx, c, k.n, k.layout); !why.empty()) {
      k.verdict = goal_verdict::no_baseline;
      k.note = why;
      return;
    }
  }
  const json* mine = idx.find(c, k.layout, k.n, lib);
  const json* ref = idx.find(c, k.layout, k.n, cub);
  if (!mine || !is_timed(*mine)) {
    k.note = missing(mine, lib);
    return;
  }
  if (!ref || !is_timed(*ref)) {
    k.note = missing(ref, cub);
    return;
  }
  k.interval = interval_of(*mine);
  k.plain_read_pct = plain_read_of(*mine);
  judge(k, *speedup_of(*mine, ref));
  const auto bytes = number_at(*ref, "bytes_moved");
  const auto peak = idx.peak();
  if (bytes && *bytes > 0.0 && peak && *peak > 0.0)
    k.target_needs_pct = k.target * *bytes / (*peak * 1e3 * median_of(*ref)) * 100.0;  // GB/s x 1e3 = bytes per µs
}

bool beyond_peak(const goal_check& k) { return k.target_needs_pct && *k.target_needs_pct > 100.0 + tolerance; }

/// The share of peak the line asks for: the target itself (% peak lines) or Target needs (× CUB lines).
std::optional<double> asked_pct(const goal_check& k) {
  if (k.metric == "% peak") return k.target;
  return k.target_needs_pct;
}

/// Whether the line asks for more than the plain read of the same bytes reached in the same rounds.
bool beyond_plain_read(const goal_check& k) {
  const auto asked = asked_pct(k);
  return asked && k.plain_read_pct && *asked > *k.plain_read_pct + tolerance;
}

/// One NO DATA line for a goal-set case the run does not have at all.
goal_check absent(int goal, const char* metric, const case_key& c, double target) {
  goal_check k = make_check(goal, metric, c, "", 0, target);
  k.note = std::get<1>(c) + "/" + std::get<2>(c) + " " + std::get<0>(c) + " not in this run";
  return k;
}

/// The goal-set cases of an operation, then any other case of the file with that operation.
std::vector<case_key> cases_for(const segmented_index& idx, const std::string& op) {
  std::vector<case_key> out;
  for (const auto& [f, t] : goal_cases) out.push_back({op, f, t});
  for (const auto& c : idx.cases())
    if (std::get<0>(c) == op && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  return out;
}

void check_segmented_peak(const segmented_index& idx, std::vector<goal_check>& out) {
  for (const auto& c : cases_for(idx, op_segmented)) {
    if (!idx.has_case(c)) {
      out.push_back(absent(1, "% peak", c, segmented_peak_pct));
      continue;
    }
    for (const auto n : idx.sizes(op_segmented)) {
      std::vector<std::pair<std::string, std::string>> wanted;  // (layout in the file or "", label)
      for (const auto len : goal_lengths) wanted.push_back({idx.layout_of_length(c, n, len), uniform_label(len)});
      wanted.push_back({idx.layout_matching(c, n, is_zipf), "zipf"});
      wanted.push_back({idx.layout_matching(c, n, [](const std::string& l) { return l == "giant"; }), "giant"});
      for (const auto& [layout, label] : wanted) {
        goal_check k = make_check(1, "% peak", c, layout.empty() ? label : layout, n, segmented_peak_pct);
        if (layout.empty()) k.note = label + " not in this run";
        else judge_peak(k, idx, c);
        out.push_back(k);
      }
    }
  }
}

void check_segmented_ratio(const segmented_index& idx, std::vector<goal_check>& out) {
  for (const auto& c : cases_for(idx, op_segmented)) {
    if (!idx.has_case(c)) {
      out.push_back(absent(2, "× CUB", c, 0));
      continue;
    }
    for (const auto n : idx.sizes(op_segmented)) {
      std::vector<std::tuple<std::string, std::string, double>> wanted;
      for (const auto len : goal_lengths)
        wanted.emplace_back(idx.layout_of_length(c, n, len), uniform_label(len), segmented_ratio_target(len));
      wanted.emplace_back(idx.layout_matching(c, n, [](const std::string& l) { return l == "giant"; }), "giant",
                          giant_ratio_target);
      for (const auto& [layout, label, target] : wanted) {
        goal_check k = make_check(2, "× CUB", c, layout.empty() ? label : layout, n, target);
        if (layout.empty()) {
          k.note = label + " not in this run";
          // Without a baseline the line says so whatever else is missing.
          if (std::string why = no_baseline_reason(idx, c, n, ""); !why.empty()) {
            k.verdict = goal_verdict::no_baseline;
            k.note = why;
          }
        } else {
          judge_ratio(k, idx, c);
        }
        out.push_back(k);
      }
    }
  }
}

void check_by_key(const segmented_index& idx, std::vector<goal_check>& out) {
  for (const auto& c : cases_for(idx, op_by_key)) {
    if (!idx.has_case(c)) {
      out.push_back(absent(3, "× CUB", c, 0));
      continue;
    }
    for (const auto n : idx.sizes(op_by_key)) {
      // The default run lengths, then any other uniform length of 8 or more the run measured.
      std::vector<std::uint64_t> lengths(std::begin(by_key_goal_lengths), std::end(by_key_goal_lengths));
      for (const auto& l : idx.layouts(c, n))
        if (const auto len = uniform_length(l); len && *len >= 8 &&
                                                std::find(lengths.begin(), lengths.end(), *len) == lengths.end())
          lengths.push_back(*len);
      for (const auto len : lengths) {
        const std::string layout = idx.layout_of_length(c, n, len);
        const std::string label = layout.empty() ? (len == 1 ? "keys1" : uniform_label(len)) : layout;
        if (len >= 8) {
          goal_check p = make_check(3, "% peak", c, label, n, by_key_peak_pct);
          if (layout.empty()) p.note = label + " not in this run";
          else judge_peak(p, idx, c);
          out.push_back(p);
        }
        goal_check r = make_check(3, "× CUB", c, label, n, len >= 8 ? by_key_ratio_long : by_key_ratio_single);
        if (layout.empty()) r.note = label + " not in this run";
        else judge_ratio(r, idx, c);
        out.push_back(r);
      }
    }
  }
}

// --- Markdown --------------------------------------------------------------------------------------------------

std::string verdict_text(const goal_check& k) {
  switch (k.verdict) {
    case goal_verdict::pass: return "PASS";
    case goal_verdict::miss:
      return k.metric == "% peak" ? "**MISS** by " + format("%.1f", k.shortfall) + " points"
                                  : "**MISS** by " + format(k.shortfall >= 0.005 ? "%.2f" : "%.3f", k.shortfall) + "×";
    case goal_verdict::no_data: return "NO DATA: " + k.note;
    case goal_verdict::no_baseline: return "NO BASELINE: " + k.note.substr(k.note.find(": ") + 2);
  }
  return "?";
}

std::string target_text(const goal_check& k) {
  if (k.metric == "% peak") return format("≥ %.0f %%", k.target);
  if (k.target <= 0) return "see above";
  return format(k.target < 10 ? "≥ %.2f×" : "≥ %.0f×", k.target);
}

std::string measured_text(const goal_check& k) {
  if (!k.measured) return dash;
  if (k.metric == "% peak") return format("%.1f %%", *k.measured);
  std::string s = format("%.2f×", *k.measured);
  if (k.interval) s += format(" [%.2f, %.2f]", k.interval->first, k.interval->second);
  return s;
}

std::string plain_read_text(const goal_check& k) {
  if (!k.plain_read_pct) return dash;
  return format("%.1f %%", *k.plain_read_pct) + (beyond_plain_read(k) ? ": asked above it" : "");
}

std::string needs_text(const goal_check& k) {
  if (!k.target_needs_pct) return dash;
  return format("%.1f %%", *k.target_needs_pct) + (beyond_peak(k) ? ": beyond the peak" : "");
}

std::string counts_text(const std::vector<goal_check>& checks) {
  std::size_t pass = 0, miss = 0, none = 0, no_base = 0;
  for (const auto& k : checks) {
    pass += k.verdict == goal_verdict::pass;
    miss += k.verdict == goal_verdict::miss;
    none += k.verdict == goal_verdict::no_data;
    no_base += k.verdict == goal_verdict::no_baseline;
  }
  return std::to_string(pass) + " PASS, " + std::to_string(miss) + " MISS, " + std::to_string(none) + " NO DATA, " +
         std::to_string(no_base) + " without a CUB baseline";
}

std::string render_header(const json& r) {
  const json device = r.value("device", json::object());
  const json timing = r.value("timing", json::object());
  const json build = r.value("build", json::object());
  std::string dev = string_at(device, "name", "unknown device");
  if (const auto peak = number_at(device, "peak_gb_per_s"))
    dev += format(" (peak %.1f GB/s = 2 × memory clock × bus width)", *peak);
  std::string commit = string_at(r, "commit", "unknown");
  if (build.is_object() && !build.empty())
    commit += " (" + string_at(build, "type", "?") + " build, CUDA architectures " +
              string_at(build, "cuda_architectures", "?") + ", nvcc " + string_at(build, "nvcc", "?") + ")";
  std::string timing_text = string_at(timing, "engine", "unknown timing engine");
  if (const auto n = number_at(timing, "samples")) timing_text += format("; %.0f samples per row", *n);
  timing_text += "; **" + string_at(timing, "cache", "?") + "**, flush `" + string_at(timing, "flush", "?") + "`";
  if (timing.value("held_stream", false)) timing_text += ", held stream (CUDA events; launch latency not measured)";
  timing_text += "; `thrust::reduce_by_key` synchronizes and is timed with the host clock";
  if (const auto c = number_at(timing, "confidence"))
    timing_text += format("; × CUB intervals: %.0f %% paired bootstrap of the ratio of medians", *c * 100.0);
  std::ostringstream s;
  s << "# ReduceLab segmented comparison on " << string_at(device, "name", "unknown device") << "\n\n"
    << md_table({"", ""}, "ll",
                {{"Device", cell(dev)},
                 {"Commit", cell(commit)},
                 {"Command", code(string_at(r, "command_line", "?"))},
                 {"Created (UTC)", cell(string_at(r, "created_utc", "?"))},
                 {"Timing", cell(timing_text)},
                 {"Bytes moved", cell(string_at(timing, "bytes_moved", "?"))}})
    << "\nGB/s is bytes moved / median time; % of peak is against the device peak above. × CUB = CUB median / "
       "the library's median (above 1: the library is faster), against `"
    << cub_segmented << "` (segmented_reduce) or `" << cub_by_key
    << "` (reduce_by_key); **win** or **loss** only where the 95 % interval excludes 1, else tie.\n\n";
  return s.str();
}

std::string render_case_table(const segmented_index& idx, const case_key& c) {
  const auto peak = idx.peak();
  const std::string& op = std::get<0>(c);
  const char* lib = library_of(op);
  const char* cub = cub_of(op);
  const auto sizes = idx.sizes(op);
  const bool many_sizes = sizes.size() > 1;
  std::vector<std::vector<std::string>> body;
  for (const auto n : sizes)
    for (const auto& layout : idx.layouts(c, n)) {
      const json* best = nullptr;
      std::optional<std::uint64_t> segments;
      for (const json* row : idx.rows_of(c)) {
        if (n_of(*row) != n || string_at(*row, "layout") != layout) continue;
        if (const auto s = number_at(*row, "segments")) segments = static_cast<std::uint64_t>(*s);
        if (is_timed(*row) && (!best || median_of(*row) < median_of(*best))) best = row;
      }
      const json* mine = idx.find(c, layout, n, lib);
      const json* ref = idx.find(c, layout, n, cub);
      const bool mine_timed = mine && is_timed(*mine);
      const auto gbps = [](const json* row) {
        const auto g = row ? number_at(*row, "gb_per_s") : std::nullopt;
        return g ? format_gbps(*g) : std::string(dash);
      };
      const auto pct = [&](const json* row) {
        const auto p = row ? pct_of(*row, peak) : std::nullopt;
        return p ? format("%.1f %%", *p) : std::string(dash);
      };
      std::string lib_us = mine_timed ? format_us(median_of(*mine)) : mine ? "**" + string_at(*mine, "status") + "**"
                                                                           : std::string(dash);
      std::string vs_cub = dash;
      if (mine_timed) {
        if (const auto x = speedup_of(*mine, ref)) {
          vs_cub = format("%.2f×", *x);
          if (const auto ci = interval_of(*mine)) vs_cub += format(" [%.2f, %.2f]", ci->first, ci->second);
          if (const auto v = string_at(*mine, "verdict_vs_cub"); !v.empty()) vs_cub += " " + (v == "tie" ? v : "**" + v + "**");
        }
      }
      std::string cub_us = ref && is_timed(*ref) ? format_us(median_of(*ref)) : std::string(dash);
      if (ref && string_at(*ref, "status") == "skipped") cub_us = vs_cub = "n/a (no CUB baseline)";
      else if (ref && !is_timed(*ref)) cub_us = "**" + string_at(*ref, "status") + "**";
      std::vector<std::string> line = {code(layout)};
      if (many_sizes) line.push_back(size_label(n));
      line.insert(line.end(),
                  {segments ? std::to_string(*segments) : std::string(dash), best ? code(string_at(*best, "backend")) : "(none timed)",
                   best ? format_us(median_of(*best)) : dash, gbps(best), pct(best), lib_us,
                   mine_timed ? gbps(mine) : dash, mine_timed ? pct(mine) : dash, vs_cub, cub_us});
      body.push_back(line);
    }
  std::vector<std::string> head = {"Layout"};
  if (many_sizes) head.push_back("n");
  head.insert(head.end(), {op == op_segmented ? "Segments" : "Runs", "Best backend", "µs", "GB/s", "% peak",
                           "library µs", "library GB/s", "library % peak", "× CUB [95 % CI]", "CUB µs"});
  std::ostringstream s;
  s << "### " << code(std::get<1>(c)) << "/" << code(std::get<2>(c)) << ", " << op;
  if (!many_sizes && !sizes.empty()) s << ", n = " << size_label(sizes.front());
  s << "\n\nlibrary: " << code(lib) << "; CUB: " << code(cub) << ".\n\n"
    << md_table(head, std::string(many_sizes ? "ll" : "l") + "rlrrrrrrrr", body) << "\n";
  return s.str();
}

std::string render_plot_links(const json& results, const std::string& plots_subdir) {
  const auto plots = plan_plots(results);
  std::ostringstream s;
  s << "## Plots\n\n";
  if (plots.empty()) return s.str() + "No timed rows on a uniform layout, so no plots.\n";
  const std::string prefix = plots_subdir.empty() ? "" : plots_subdir + "/";
  for (const auto& p : plots)
    s << "- " << p.operation << " " << code(p.functor + "/" + p.type) << " n = " << size_label(p.n) << ", "
      << (p.kind == "gbps" ? "GB/s" : "× CUB") << " against segment length: [" << p.file_name << "](" << prefix
      << p.file_name << ")\n";
  return s.str() + "\n";
}

std::string sanitize(const std::string& text) {
  std::string s = text;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-') ch = '_';
  return s;
}

/// One series per backend timed on uniform layouts of (case, n), in first-seen backend order, y from `value`; styled
/// as the scalar report styles them (svg_chart.hpp): the library teal, CUB's reference black, CUB's own operators
/// blue, Thrust red, all thick, the baselines dashed; the ladder's variants from the palette.
template <class ValueT>
std::vector<svg::series> collect_series(const segmented_index& idx, const case_key& c, std::uint64_t n, ValueT value) {
  std::vector<svg::series> out;
  std::size_t others = 0;
  for (const json* row : idx.rows_of(c)) {
    const auto len = uniform_length(string_at(*row, "layout"));
    if (n_of(*row) != n || !len || !is_timed(*row)) continue;
    const auto y = value(*row);
    if (!y || *y <= 0.0) continue;
    const std::string backend = string_at(*row, "backend");
    auto it = std::find_if(out.begin(), out.end(), [&](const svg::series& l) { return l.label == backend; });
    if (it == out.end()) {
      const std::string family = string_at(*row, "family");
      const svg::line_style style =
          family == "library" ? svg::reducelab_style()
          : family == "cub"   ? svg::baseline_style(backend == cub_segmented || backend == cub_by_key
                                                        ? svg::cub_reference_colour
                                                        : svg::cub_own_op_colour)
          : family == "thrust" ? svg::baseline_style(svg::thrust_colour)
                               : svg::custom_style(others++);
      it = out.insert(out.end(), svg::series{backend, style, {}});
    }
    it->points.emplace_back(std::log2(static_cast<double>(*len)), *y);
  }
  for (auto& l : out) std::sort(l.points.begin(), l.points.end());
  return out;
}

}  // namespace

// --- Public API ------------------------------------------------------------------------------------------------

bool is_segmented_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  const json j = json::parse(f, nullptr, false);
  return j.is_object() && j.contains("schema") && j["schema"] == schema_name;
}

json load_results(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw usage_error("segmented results file '" + path + "' cannot be opened (missing or unreadable)");
  json results = json::parse(f, nullptr, false);
  if (results.is_discarded() || !results.is_object())
    throw usage_error("segmented results file '" + path + "' is not a JSON object");
  if (string_at(results, "schema") != schema_name)
    throw usage_error("results file '" + path + "' has schema \"" + string_at(results, "schema", "(none)") +
                      "\", expected \"" + schema_name + "\"");
  const auto rows = results.find("rows");
  if (rows == results.end() || !rows->is_array()) throw usage_error("results file '" + path + "' has no \"rows\" array");
  for (std::size_t i = 0; i < rows->size(); ++i) {
    const json& row = (*rows)[i];
    bool ok = row.is_object() && row.contains("n") && row["n"].is_number_unsigned();
    for (const char* key : {"functor", "type", "operation", "layout", "backend", "status"})
      ok = ok && row.contains(key) && row[key].is_string();
    if (!ok)
      throw usage_error("results file '" + path + "': row " + std::to_string(i) +
                        " lacks one of functor, type, operation, layout, backend, status (strings) or n");
  }
  return results;
}

std::vector<goal_check> evaluate_goals(const json& results) {
  const segmented_index idx(results);
  std::vector<goal_check> checks;
  check_segmented_peak(idx, checks);
  check_segmented_ratio(idx, checks);
  check_by_key(idx, checks);
  return checks;
}

std::string render_goals_section(const json& results) {
  const auto checks = evaluate_goals(results);
  std::ostringstream s;
  s << "## Goals (issue 13)\n\n"
    << md_table({"Goal", "Target"}, "ll",
                {{"1", code(library_segmented) + format(" ≥ %.0f %%", segmented_peak_pct) +
                           " of the device's theoretical peak at every uniform length 1 … 2^20, on zipf and on "
                           "giant (plus, maximum, argmax, affine_compose; 4- and 8-byte values)"},
                 {"2", code(library_segmented) + " against `" + cub_segmented +
                           "`: ≥ 50× at lengths ≤ 8, ≥ 5× at 32, ≥ 2.5× at 256, ≥ 1.00× from 4096 up, ≥ 10× on "
                           "giant. Non-commutative functors have no CUB segmented baseline: their lines say so and "
                           "do not pass"},
                 {"3", code(library_by_key) + format(" ≥ %.0f %%", by_key_peak_pct) +
                           " of peak and ≥ 1.25× `" + cub_by_key + "` for runs of 8 and longer; ≥ 1.15× for runs "
                           "of length 1"}})
    << "\nA row that is missing, failed or untimed is NO DATA, never a pass. A MISS says by how much: points of % "
       "of peak, or × below the target. **Target needs** (× CUB lines): the % of the device's peak at which the "
       "library would have to move the bytes counted above to meet the target, given CUB's median (target × bytes "
       "moved / (peak × CUB µs)). Above 100 % the target asks for more than the device's peak: no implementation "
       "that moves those bytes can meet it here. **Plain read**: the % of peak `reducelab::reduce` reached reading "
       "as many bytes as the line's case moves, timed in the same interleaved rounds: what one plain pass over those "
       "bytes achieves at this size on this device under this timing. \"asked above it\": the line's target (% peak "
       "lines) or Target needs (× CUB lines) is higher.\n\n**"
    << counts_text(checks) << ".**";
  // "N MISS lines ask for more than <what>", for each yardstick a MISS line can be above; nothing when none is.
  const auto say_misses_above = [&](bool (*above)(const goal_check&), const char* what) {
    const auto count = std::count_if(checks.begin(), checks.end(), [above](const goal_check& k) {
      return k.verdict == goal_verdict::miss && above(k);
    });
    if (count > 0)
      s << " " << count << (count == 1 ? " MISS line asks" : " MISS lines ask") << " for more than " << what;
  };
  say_misses_above(beyond_peak, "the device's peak (Target needs above 100 %).");
  say_misses_above(beyond_plain_read, "the plain read of the same bytes reached in the same rounds.");
  s << "\n\n";
  std::vector<std::vector<std::string>> body;
  for (const auto& k : checks)
    body.push_back({std::to_string(k.goal), k.operation, code(k.functor + "/" + k.type),
                    k.layout.empty() ? dash : code(k.layout), k.n ? size_label(k.n) : dash, cell(k.metric),
                    target_text(k), measured_text(k), cell(verdict_text(k)), needs_text(k), plain_read_text(k)});
  s << md_table({"Goal", "Operation", "Functor/type", "Layout", "n", "Metric", "Target", "Measured", "Result",
                 "Target needs", "Plain read"},
                "lllllllrlrr", body)
    << "\n";
  return s.str();
}

std::string render_markdown(const json& results, const std::string& plots_subdir) {
  const segmented_index idx(results);
  std::ostringstream s;
  s << render_header(results) << "## Results by layout\n\n";
  for (const char* op : {op_segmented, op_by_key})
    for (const auto& c : idx.cases())
      if (std::get<0>(c) == op) s << render_case_table(idx, c);
  s << render_goals_section(results) << render_plot_links(results, plots_subdir);
  return s.str();
}

std::vector<plot_spec> plan_plots(const json& results) {
  const segmented_index idx(results);
  std::vector<plot_spec> plots;
  for (const auto& c : idx.cases()) {
    const std::string& op = std::get<0>(c);
    for (const auto n : idx.sizes(op)) {
      bool any = false, reference = false, other = false;
      for (const json* row : idx.rows_of(c)) {
        if (n_of(*row) != n || !uniform_length(string_at(*row, "layout")) || !is_timed(*row)) continue;
        any = true;
        (string_at(*row, "backend") == cub_of(op) ? reference : other) = true;
      }
      const std::string stem = sanitize(op) + "_" + sanitize(std::get<1>(c)) + "_" + sanitize(std::get<2>(c)) + "_" +
                               sanitize(size_label(n)) + ".svg";
      if (any) plots.push_back({"gbps", op, std::get<1>(c), std::get<2>(c), n, "segmented_gbps_" + stem});
      if (reference && other) plots.push_back({"speedup", op, std::get<1>(c), std::get<2>(c), n, "segmented_speedup_" + stem});
    }
  }
  return plots;
}

std::string render_plot(const json& results, const plot_spec& p) {
  const segmented_index idx(results);
  const case_key c{p.operation, p.functor, p.type};
  const std::string what = p.functor + " / " + p.type + " " + p.operation + ", n = " + size_label(p.n) + " (" +
                           string_at(results.value("device", json::object()), "name", "unknown device") + ")";
  svg::chart ch;
  ch.x_label = "uniform segment length (log scale)";
  const json timing = results.value("timing", json::object());
  ch.subtitle = "median";
  if (const auto samples = number_at(timing, "samples")) ch.subtitle += format(" of %.0f interleaved samples", *samples);
  if (string_at(timing, "cache") == "cold") ch.subtitle += ", L2 flushed before each";
  ch.subtitle += "; libraries drawn thick, baselines dashed";
  if (p.kind == "gbps") {
    ch.title = what + ": GB/s";
    ch.y_label = "GB/s (bytes moved / median time)";
    ch.reference_y = idx.peak();
    if (ch.reference_y) ch.reference_label = format("device peak %.0f GB/s", *ch.reference_y);
    ch.lines = collect_series(idx, c, p.n, [](const json& row) { return number_at(row, "gb_per_s"); });
    return svg::render(ch);
  }
  const std::string cub = cub_of(p.operation);
  ch.title = what + ": × CUB";
  ch.y_label = "speedup vs CUB (CUB time / time, log scale)";
  ch.log2_y = true;
  ch.reference_y = 1.0;
  ch.reference_label = "1× = " + cub;
  ch.lines = collect_series(idx, c, p.n, [&](const json& row) -> std::optional<double> {
    if (string_at(row, "backend") == cub) return std::nullopt;
    return speedup_of(row, idx.find(c, string_at(row, "layout"), p.n, cub));
  });
  return svg::render(ch);
}

void write_report(const json& results, const std::string& out_dir) {
  const std::filesystem::path out(out_dir);
  std::error_code ec;
  std::filesystem::create_directories(out / plots_subdir_name, ec);
  if (ec) throw std::runtime_error("cannot create '" + (out / plots_subdir_name).string() + "': " + ec.message());
  write_text_file(out / report_file_name, render_markdown(results, plots_subdir_name));
  for (const auto& p : plan_plots(results)) write_text_file(out / plots_subdir_name / p.file_name, render_plot(results, p));
}

int run_report(const cli::options& o, std::ostream& out) {
  if (o.positional.size() != 1)
    throw usage_error("report: a segmented results file is reported alone: reducelab report segmented.json [--out DIR]");
  const json results = load_results(o.positional.front());
  std::string dir = o.out_dir;
  if (dir.empty()) dir = std::filesystem::path(o.positional.front()).parent_path().string();
  if (dir.empty()) dir = ".";
  write_report(results, dir);
  out << "wrote " << (std::filesystem::path(dir) / report_file_name).string() << " and " << plan_plots(results).size()
      << " plot(s) in " << (std::filesystem::path(dir) / plots_subdir_name).string() << "\n";
  return 0;
}

}  // namespace reducelab::segmented::report
