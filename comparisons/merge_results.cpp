// One results file from several: a sweep too long for one command (the GPU machine allows 10 minutes a command)
// is run in parts, each with the same binaries and timing settings, then merged here. Parts that disagree on
// the device, the commit or the timing settings are refused: their rows would not be comparable.
#include "comparisons/report.hpp"
#include "comparisons/results_view.hpp"
#include "reducelab/core/error.hpp"

#include <fstream>
#include <set>

namespace reducelab::report {

namespace {
using json = nlohmann::json;
using namespace detail;

/// A library row's tuning policy as the text of one quoted CSV field, "block_threads=256 vectors_per_thread=4 ..."
/// (keys in alphabetical order, as nlohmann::json keeps them); empty for rows without one.
std::string policy_field(const json& row) {
  const auto it = row.find("policy");
  if (it == row.end() || !it->is_object()) return "";
  std::string text;
  for (const auto& [key, value] : it->items())
    text += (text.empty() ? "" : " ") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  std::string quoted;  // a quote inside a quoted CSV field is doubled
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted;
}

void append_all(json& into, const json& part, const char* key) {
  const auto it = part.find(key);
  if (it == part.end() || !it->is_array()) return;
  if (!into.contains(key) || !into[key].is_array()) into[key] = json::array();
  for (const auto& x : *it) into[key].push_back(x);
}
}  // namespace

json merge_results(const std::vector<json>& parts, const std::vector<std::string>& names) {
  if (parts.empty()) throw usage_error("merge: no results files given");
  json merged = parts.front();
  merged["rows"] = json::array();
  merged.erase("confirmations");
  merged.erase("hot_not_measured");
  std::string command_lines;
  std::set<row_key> seen;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const json& p = parts[i];
    const std::string name = i < names.size() ? names[i] : "part " + std::to_string(i + 1);
    for (const char* key : {"commit", "schema"})
      if (string_at(p, key) != string_at(parts.front(), key))
        throw usage_error("merge: " + name + " has " + key + " '" + string_at(p, key) + "', the first file '" +
                          string_at(parts.front(), key) + "'");
    if (p.value("device", json::object()).value("name", "") != merged["device"].value("name", ""))
      throw usage_error("merge: " + name + " was measured on another device");
    if (p.value("timing", json::object()) != merged.value("timing", json::object()))
      throw usage_error("merge: " + name + " used other timing settings");
    for (const auto& row : p.at("rows")) {
      if (!seen.insert(key_of(row)).second)
        throw usage_error("merge: " + name + " repeats a row (" + row.at("variant").get<std::string>() + ", " +
                          row.at("functor").get<std::string>() + "/" + row.at("type").get<std::string>() + ", n = " +
                          std::to_string(size_of(row)) + ", " + row.at("mode").get<std::string>() + ")");
      merged["rows"].push_back(row);
    }
    append_all(merged, p, "confirmations");
    append_all(merged, p, "hot_not_measured");
    for (const char* once : {"nan_semantics", "method_check"})  // measured by each part alike: the first one's
      if (!merged.contains(once) && p.contains(once)) merged[once] = p[once];
    // Explanations of missed goals (report_goals.hpp): every part's, the first part's text where two share a key.
    if (const auto e = p.find("goal_explanations"); e != p.end() && e->is_object()) {
      if (!merged.contains("goal_explanations") || !merged["goal_explanations"].is_object())
        merged["goal_explanations"] = json::object();
      for (const auto& [key, text] : e->items())
        if (!merged["goal_explanations"].contains(key)) merged["goal_explanations"][key] = text;
    }
    command_lines += (i ? " + " : "") + string_at(p, "command_line");
  }
  merged["command_line"] = command_lines;
  merged["merged_from"] = parts.size();
  return merged;
}

void write_csv(const nlohmann::json& results, const std::string& path) {
  std::ofstream f(path);
  if (!f) throw usage_error("cannot write " + path);
  f << "variant,family,ladder_step,functor,type,value_bytes,n,mode,validation,abs_error,error_bound,samples,median_us,"
       "p10_us,p90_us,min_us,mean_us,stddev_us,gb_per_s,pct_of_peak,speedup_vs_cub,speedup_vs_cub_lo,"
       "speedup_vs_cub_hi,speedup_vs_thrust,speedup_vs_thrust_lo,speedup_vs_thrust_hi,clock,clock_low,policy\n";
  auto num = [](const json& v) { return v.is_null() ? std::string() : v.dump(); };
  auto field = [&](const json& r, const char* k) { return r.contains(k) ? num(r[k]) : std::string(); };
  auto bound = [&](const json& r, const char* k, int i) {
    return r.contains(k) && r[k].is_array() ? num(r[k][i]) : std::string();
  };
  for (const auto& r : results["rows"]) {
    f << '"' << r["variant"].get<std::string>() << "\"," << r["family"].get<std::string>() << ','
      << r["ladder_step"] << ',' << r["functor"].get<std::string>() << ',' << r["type"].get<std::string>() << ','
      << r["value_bytes"] << ',' << r["n"] << ',' << r["mode"].get<std::string>() << ','
      << r["validation"]["status"].get<std::string>() << ',' << num(r["validation"]["error"]) << ','
      << num(r["validation"]["bound"]);
    for (const char* k : {"samples", "median_us", "p10_us", "p90_us", "min_us", "mean_us", "stddev_us", "gb_per_s",
                          "pct_of_peak"})
      f << ',' << field(r, k);
    f << ',' << field(r, "speedup_vs_cub") << ',' << bound(r, "speedup_vs_cub_ci", 0) << ','
      << bound(r, "speedup_vs_cub_ci", 1) << ',' << field(r, "speedup_vs_thrust") << ','
      << bound(r, "speedup_vs_thrust_ci", 0) << ',' << bound(r, "speedup_vs_thrust_ci", 1) << ",\""
      << (r.contains("clock") ? r["clock"].get<std::string>() : "") << "\"," << field(r, "clock_low") << ','
      << '"' << policy_field(r) << "\"\n";
  }
}

}  // namespace reducelab::report
