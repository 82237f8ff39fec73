// Read-only helpers over a "reducelab-compare-1" results document, shared by the report, its goals section and
// the diff so that all agree on what counts as a timed row, which row is the CUB/Thrust reference, which rows
// are the library's own (family "library") and how numbers are printed.
// Fields that a failed or refused row leaves out (or sets to null) read as std::nullopt, never as 0.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace reducelab::report::detail {

using json = nlohmann::json;

inline constexpr const char* schema_name = "reducelab-compare-1";

// Library reference rows: CUB and Thrust reductions for commutative functors; for non-commutative ones the
// libraries' reductions are refused and the last element of an inclusive scan stands in for them.
inline constexpr const char* cub_reduce = "cub::DeviceReduce::Reduce";
inline constexpr const char* cub_scan = "cub::DeviceScan::InclusiveScan(last)";
inline constexpr const char* thrust_reduce = "thrust::reduce";
inline constexpr const char* thrust_scan = "thrust::inclusive_scan(last)";
// The host-result form of Thrust's workaround (scan, then the last element copied to the host), host-clock
// timed: what reducelab::reduce(host) is compared with for non-commutative functors.
inline constexpr const char* thrust_scan_host = "thrust::inclusive_scan(host)";

// The library's own entry point, family "library": the device-result call (compared with CUB) and the
// host-returning call (host-clock timed, compared with Thrust, whose reduce also returns to the host).
inline constexpr const char* library_reduce = "reducelab::reduce";
inline constexpr const char* library_reduce_host = "reducelab::reduce(host)";

// Row families (`family`): the ladder's hand-written variants, the library itself, the references, the CPU.
inline constexpr const char* family_custom = "custom";
inline constexpr const char* family_library = "library";
inline constexpr const char* family_cpu = "cpu";

inline constexpr const char* cold_mode = "cold";
inline constexpr const char* hot_mode = "hot";

inline constexpr const char* status_pass = "PASS";
inline constexpr const char* status_refused = "REFUSED";

/// A number, or nothing when the key is absent, null or not numeric.
inline std::optional<double> number_at(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

/// A string, or `fallback` when the key is absent or not a string.
inline std::string string_at(const json& j, const char* key, const std::string& fallback = "") {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

inline std::string status_of(const json& row) {
  const auto it = row.find("validation");
  return it == row.end() || !it->is_object() ? std::string("ERROR") : string_at(*it, "status", "ERROR");
}

inline std::string message_of(const json& row) {
  const auto it = row.find("validation");
  return it == row.end() || !it->is_object() ? std::string() : string_at(*it, "message");
}

/// A row whose timings may be shown: validated, timed, with a positive median.
inline bool is_timed(const json& row) {
  const auto timed = row.find("timed");
  const auto median = number_at(row, "median_us");
  return status_of(row) == status_pass && timed != row.end() && timed->is_boolean() && timed->get<bool>() &&
         median && *median > 0.0;
}

inline std::uint64_t size_of(const json& row) { return row.at("n").get<std::uint64_t>(); }

/// (variant, functor, type, n, mode): what identifies one measurement across runs.
using row_key = std::tuple<std::string, std::string, std::string, std::uint64_t, std::string>;

inline row_key key_of(const json& row) {
  return {row.at("variant").get<std::string>(), row.at("functor").get<std::string>(),
          row.at("type").get<std::string>(), size_of(row), row.at("mode").get<std::string>()};
}

/// The raw samples of a row (`"samples_us"`, written by compare since it interleaves backends), in the order they
/// were taken. Empty when the key is absent (files from older versions), not an array, or holds a non-number: a
/// partial list would bias any test run on it.
inline std::vector<double> samples_of(const json& row) {
  const auto it = row.find("samples_us");
  if (it == row.end() || !it->is_array()) return {};
  std::vector<double> samples;
  samples.reserve(it->size());
  for (const auto& x : *it) {
    if (!x.is_number()) return {};
    samples.push_back(x.get<double>());
  }
  return samples;
}

/// (p90 - p10) / median, when all three are there.
inline std::optional<double> relative_spread(const json& row) {
  const auto p10 = number_at(row, "p10_us"), p90 = number_at(row, "p90_us"), median = number_at(row, "median_us");
  if (!p10 || !p90 || !median || *median <= 0.0) return std::nullopt;
  return (*p90 - *p10) / *median;
}

/// printf into a std::string (the values here are short numbers).
template <class... ArgsT>
std::string format(const char* pattern, ArgsT... args) {
  char buffer[128];
  std::snprintf(buffer, sizeof(buffer), pattern, args...);
  return buffer;
}

/// Text for a Markdown table cell: a '|' would end the cell (backend names have them), a newline the row.
inline std::string cell(const std::string& text) {
  std::string s;
  for (char c : text) {
    if (c == '|') s += "\\|";
    else if (c == '\n') s += ' ';
    else s += c;
  }
  return s;
}

/// A cell's text as inline code.
inline std::string code(const std::string& text) { return "`" + cell(text) + "`"; }

/// A Markdown table; `align` has one letter per column: l or r.
inline std::string md_table(const std::vector<std::string>& head, const std::string& align,
                            const std::vector<std::vector<std::string>>& body) {
  std::ostringstream s;
  s << "|";
  for (const auto& h : head) s << " " << h << " |";
  s << "\n|";
  for (std::size_t i = 0; i < head.size(); ++i) s << (i < align.size() && align[i] == 'r' ? "---:|" : "---|");
  s << "\n";
  for (const auto& row : body) {
    s << "|";
    for (const auto& c : row) s << " " << c << " |";
    s << "\n";
  }
  return s.str();
}

/// 1024 -> "2^10"; sizes that are not powers of two print as they are.
inline std::string size_label(std::uint64_t n) {
  if (n != 0 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((std::uint64_t{1} << k) != n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

/// Microseconds with about three significant digits, never in exponent form.
inline std::string format_us(double us) {
  if (us < 10.0) return format("%.2f", us);
  if (us < 1000.0) return format("%.1f", us);
  return format("%.0f", us);
}

inline std::string format_gbps(double gbps) { return gbps < 10.0 ? format("%.2f", gbps) : format("%.1f", gbps); }

/// "NVIDIA H200, commit abc1234, 2026-11-22T03:10:00Z": one line identifying a run.
inline std::string describe_run(const json& results) {
  const json device = results.value("device", json::object());
  return string_at(device, "name", "unknown device") + ", commit " + string_at(results, "commit", "unknown") + ", " +
         string_at(results, "created_utc", "unknown time");
}

// --- Row accessors and an index over the rows, shared by the report and its goals section ---------------------

inline std::string variant_of(const json& row) { return row.at("variant").get<std::string>(); }
inline bool is_custom(const json& row) { return string_at(row, "family") == family_custom; }
inline bool is_library(const json& row) { return string_at(row, "family") == family_library; }
inline int ladder_step_of(const json& row) { return row.value("ladder_step", 0); }
/// The median of a row that is_timed.
inline double median_of(const json& row) { return *number_at(row, "median_us"); }

inline std::optional<double> gb_per_s_of(const json& row) {
  if (const auto g = number_at(row, "gb_per_s")) return g;
  const auto bytes = number_at(row, "bytes_read");
  const auto median = number_at(row, "median_us");
  if (!bytes || !median || *median <= 0.0) return std::nullopt;
  return *bytes / *median * 1e-3;  // bytes / us = 1e6 bytes/s = 1e-3 GB/s
}

inline std::optional<double> pct_of_peak_of(const json& row, std::optional<double> peak) {
  if (const auto p = number_at(row, "pct_of_peak")) return p;
  const auto g = gb_per_s_of(row);
  if (!g || !peak || *peak <= 0.0) return std::nullopt;
  return *g / *peak * 100.0;
}

/// reference median / candidate median (above 1: the candidate is faster); nothing unless both are given.
inline std::optional<double> ratio(const json* reference_row, const json* candidate_row) {
  if (!reference_row || !candidate_row) return std::nullopt;
  return median_of(*reference_row) / median_of(*candidate_row);
}

using case_id = std::pair<std::string, std::string>;  // (functor, type)

/// The rows of a results document by (functor, type) and by row_key, with the run's cases and modes in
/// first-seen order (cold first). Holds pointers into `results`, which must outlive it.
class results_index {
 public:
  explicit results_index(const json& results) : results_(results) {
    for (const auto& row : results.at("rows")) {
      const case_id c{row.at("functor").get<std::string>(), row.at("type").get<std::string>()};
      if (std::find(cases_.begin(), cases_.end(), c) == cases_.end()) cases_.push_back(c);
      const std::string mode = row.at("mode").get<std::string>();
      if (std::find(modes_.begin(), modes_.end(), mode) == modes_.end()) modes_.push_back(mode);
      by_case_[c].push_back(&row);
      by_key_.emplace(key_of(row), &row);
    }
    std::vector<const json*> customs;
    for (const auto& row : results.at("rows"))
      if (is_custom(row)) customs.push_back(&row);
    std::sort(customs.begin(), customs.end(), [](const json* a, const json* b) {
      const int sa = ladder_step_of(*a), sb = ladder_step_of(*b);
      return sa != sb ? sa < sb : a->at("variant") < b->at("variant");
    });
    for (const json* row : customs) {
      const std::string v = variant_of(*row);
      if (custom_variants_.empty() || custom_variants_.back() != v) custom_variants_.push_back(v);
    }
    // cold first: it is the mode the report prefers
    std::stable_sort(modes_.begin(), modes_.end(), [](const std::string& a, const std::string& b) {
      return (a == cold_mode) > (b == cold_mode);
    });
  }

  const json& results() const { return results_; }
  const std::vector<case_id>& cases() const { return cases_; }
  const std::vector<std::string>& modes() const { return modes_; }
  /// Every custom variant of the run in ladder order (step, then name).
  const std::vector<std::string>& custom_variants() const { return custom_variants_; }

  const std::vector<const json*>& rows_of(const case_id& c) const {
    static const std::vector<const json*> none;
    const auto it = by_case_.find(c);
    return it == by_case_.end() ? none : it->second;
  }

  /// The timed rows of one (functor, type, n, mode).
  std::vector<const json*> timed_rows(const case_id& c, std::uint64_t n, const std::string& mode) const {
    std::vector<const json*> picked;
    for (const json* row : rows_of(c))
      if (is_timed(*row) && size_of(*row) == n && row->at("mode") == mode) picked.push_back(row);
    return picked;
  }

  /// The row of `variant` whatever its status, else nullptr.
  const json* find(const std::string& variant, const case_id& c, std::uint64_t n, const std::string& mode) const {
    const auto it = by_key_.find(row_key{variant, c.first, c.second, n, mode});
    return it == by_key_.end() ? nullptr : it->second;
  }

  /// The row of `variant` if it was timed, else nullptr.
  const json* timed(const std::string& variant, const case_id& c, std::uint64_t n, const std::string& mode) const {
    const json* row = find(variant, c, n, mode);
    return row && is_timed(*row) ? row : nullptr;
  }

  /// Non-commutative functors are compared with the libraries' scans; scan rows that ran (not refused, as they
  /// are for commutative functors) say which.
  bool uses_scan_reference(const case_id& c) const {
    for (const json* row : rows_of(c)) {
      const std::string v = variant_of(*row);
      if ((v == cub_scan || v == thrust_scan || v == thrust_scan_host) && status_of(*row) != status_refused)
        return true;
    }
    return false;
  }
  std::string cub_reference(const case_id& c) const { return uses_scan_reference(c) ? cub_scan : cub_reduce; }
  std::string thrust_reference(const case_id& c) const {
    return uses_scan_reference(c) ? thrust_scan : thrust_reduce;
  }
  /// What the host-result call is compared with: thrust::reduce, or for non-commutative functors the host-result
  /// scan workaround (results from before it existed: the stream-ordered scan).
  std::string host_thrust_reference(const case_id& c) const {
    if (!uses_scan_reference(c)) return thrust_reduce;
    for (const json* row : rows_of(c))
      if (variant_of(*row) == thrust_scan_host && status_of(*row) != status_refused) return thrust_scan_host;
    return thrust_scan;
  }

  /// Whether any row of the case carries a floating-point error bound.
  bool bounded(const case_id& c) const {
    for (const json* row : rows_of(c)) {
      const auto v = row->find("validation");
      if (v != row->end() && v->is_object() && v->value("bounded", false)) return true;
    }
    return false;
  }

  /// Sizes with at least one timed row, ascending.
  std::vector<std::uint64_t> timed_sizes(const case_id& c) const {
    std::set<std::uint64_t> sizes;
    for (const json* row : rows_of(c))
      if (is_timed(*row)) sizes.insert(size_of(*row));
    return {sizes.begin(), sizes.end()};
  }

  /// Whether the run has a row of `variant` at all (any case, size, mode or status).
  bool has_variant(const std::string& variant) const {
    for (const auto& [key, row] : by_key_)
      if (std::get<0>(key) == variant) return true;
    return false;
  }

  std::optional<double> peak_gb_per_s() const {
    const auto it = results_.find("device");
    return it == results_.end() || !it->is_object() ? std::nullopt : number_at(*it, "peak_gb_per_s");
  }

 private:
  const json& results_;
  std::vector<case_id> cases_;
  std::vector<std::string> modes_;
  std::vector<std::string> custom_variants_;
  std::map<case_id, std::vector<const json*>> by_case_;
  std::map<row_key, const json*> by_key_;
};

}  // namespace reducelab::report::detail
