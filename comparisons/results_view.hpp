// Read-only helpers over a "reducelab-compare-1" results document, shared by the report and the diff so that
// both agree on what counts as a timed row, which row is the CUB/Thrust reference and how numbers are printed.
// Fields that a failed or refused row leaves out (or sets to null) read as std::nullopt, never as 0.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
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

}  // namespace reducelab::report::detail
