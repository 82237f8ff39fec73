#include "comparisons/report_methods.hpp"

#include "comparisons/results_view.hpp"

#include <sstream>

namespace reducelab::report {

namespace {
using json = nlohmann::json;
}  // namespace

std::string render_methods_table(const json& methods) {
  const auto regimes = methods.find("regimes");
  if (regimes == methods.end() || !regimes->is_array() || regimes->empty()) return "";
  std::ostringstream s;
  s << "| work |";
  for (const auto& r : *regimes) s << " " << detail::string_at(r, "regime") << " |";
  s << "\n|---|";
  for (std::size_t i = 0; i < regimes->size(); ++i) s << "---:|";
  s << "\n";
  const auto& first_rows = regimes->front().at("rows");
  for (std::size_t w = 0; w < first_rows.size(); ++w) {
    s << "| " << detail::string_at(first_rows[w], "work") << " |";
    for (const auto& r : *regimes) {
      const json& row = r.at("rows").at(w);
      const auto median = detail::number_at(row, "median_us");
      if (!median) {
        s << " not measured (input > L2/2) |";
        continue;
      }
      s << " " << detail::format("%.2f [%.2f, %.2f]", *median, detail::number_at(row, "p10_us").value_or(0),
                                 detail::number_at(row, "p90_us").value_or(0))
        << " |";
    }
    s << "\n";
  }
  return s.str();
}

std::string render_methods_section(const json& results) {
  const auto m = results.find("method_check");
  if (m == results.end() || !m->is_object()) return "";
  const std::string table = render_methods_table(*m);
  if (table.empty()) return "";
  std::ostringstream s;
  s << "## Timing method: old against new\n\n"
    << "Measured on this device at the start of this run (`reducelab methods`): median µs [p10, p90] of "
    << detail::number_at(*m, "samples").value_or(0)
    << " interleaved samples per regime. *Old hot* recorded the start event on an idle stream, so the host's "
       "launch latency fell inside the interval and hot read slower than cold; *old cold* flushed L2 with a "
       "memset, whose dirty lines the timed kernel had to write back. The new regimes hold the stream until "
       "everything is enqueued and flush clean.\n\n"
    << table << "\n";
  return s.str();
}

}  // namespace reducelab::report
