// `reducelab diff A.json B.json`: every measurement both runs timed, labelled by a significance test on the raw
// samples (or, for files without them, against the noise threshold), plus what only one run has. Only timed
// rows are compared: a row that failed in one run is "only in" the other, with the failure named, so a
// regression into failure is not hidden among the SAME rows.
#include "comparisons/diff.hpp"

#include "comparisons/commands_report.hpp"
#include "comparisons/report.hpp"
#include "comparisons/results_view.hpp"
#include "comparisons/timing/statistics.hpp"
#include "reducelab/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace reducelab::report {

namespace {

using json = nlohmann::json;
using namespace detail;

constexpr std::size_t max_note_chars = 60;  // a failure message is named, not quoted in full
constexpr double percent = 100.0;
constexpr unsigned char utf8_continuation_mask = 0xC0;  // 10xxxxxx: a byte that continues a character
constexpr unsigned char utf8_continuation_bits = 0x80;

std::map<row_key, const json*> index_rows(const json& results) {
  std::map<row_key, const json*> index;
  for (const auto& row : results.at("rows")) index.emplace(key_of(row), &row);
  return index;
}

/// Why `row` (present but untimed) is not compared: "FAIL in B: message".
std::string untimed_note(const json* row, const char* side) {
  if (!row) return "";
  std::string note = status_of(*row) + " in " + side;
  std::string message = message_of(*row);
  if (message.size() > max_note_chars) message = message.substr(0, max_note_chars - 3) + "...";
  if (!message.empty()) note += ": " + message;
  return note;
}

/// Labels `d` (timed in both runs, medians filled in) from the raw samples when both rows have enough of them,
/// else by the spread rule with a note saying so.
void label_row(diff_row& d, const json& ra, const json& rb) {
  d.ratio = d.b_median_us / d.a_median_us;
  const bool faster = d.ratio < 1.0;
  const std::vector<double> sa = samples_of(ra), sb = samples_of(rb);
  if (sa.size() >= min_samples_for_test && sb.size() >= min_samples_for_test) {
    // Unpaired on purpose: the two files are two separate runs, so sample i of A and sample i of B share nothing.
    d.threshold = min_practical_difference;
    d.p_value = timing::mann_whitney_u(sa, sb).p_value;
    const bool changed = d.p_value < significance_level && std::abs(d.ratio - 1.0) > min_practical_difference;
    d.label = !changed ? diff_label::same : faster ? diff_label::faster : diff_label::slower;
    return;
  }
  d.note = sa.empty() || sb.empty() ? "no samples: spread rule"
                                    : "fewer than " + std::to_string(min_samples_for_test) + " samples: spread rule";
  d.threshold = std::max({min_noise_threshold, relative_spread(ra).value_or(0.0), relative_spread(rb).value_or(0.0)});
  const bool changed = std::abs(d.ratio - 1.0) > d.threshold;
  d.label = !changed ? diff_label::same : faster ? diff_label::faster : diff_label::slower;
}

/// The p-value as printed: three decimals, or "< 0.001" rather than a row of zeros.
std::string format_p(double p) { return p < 0.001 ? std::string("< 0.001") : format("%.3f", p); }

diff_row make_row(const json& row) {
  diff_row d;
  std::tie(d.variant, d.functor, d.type, d.n, d.mode) = key_of(row);
  return d;
}

std::string timing_settings(const json& results) {
  const auto it = results.find("timing");
  if (it == results.end()) return "";
  if (!it->is_object()) return it->dump();
  json t = *it;
  t.erase("engine");  // the same measurement under a newer library version is still comparable
  return t.dump();
}

/// Characters as printed: UTF-8 continuation bytes (the second byte of "µ") take no column.
std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & utf8_continuation_mask) != utf8_continuation_bits;
      }));
}

std::string pad(const std::string& text, std::size_t width, bool right) {
  const std::size_t w = display_width(text);
  if (w >= width) return text;
  const std::string fill(width - w, ' ');
  return right ? fill + text : text + fill;
}

}  // namespace

const char* to_string(diff_label label) {
  switch (label) {
    case diff_label::same: return "SAME";
    case diff_label::faster: return "FASTER";
    case diff_label::slower: return "SLOWER";
    case diff_label::only_in_a: return "ONLY IN A";
    case diff_label::only_in_b: return "ONLY IN B";
  }
  return "?";
}

std::vector<diff_row> diff_runs(const json& a, const json& b) {
  const auto a_index = index_rows(a);
  const auto b_index = index_rows(b);
  auto lookup = [](const std::map<row_key, const json*>& index, const row_key& k) -> const json* {
    const auto it = index.find(k);
    return it == index.end() ? nullptr : it->second;
  };
  std::vector<diff_row> out;
  std::set<row_key> seen;
  for (const auto& ra : a.at("rows")) {
    const row_key k = key_of(ra);
    if (!is_timed(ra) || !seen.insert(k).second) continue;
    diff_row d = make_row(ra);
    d.a_median_us = *number_at(ra, "median_us");
    const json* rb = lookup(b_index, k);
    if (!rb || !is_timed(*rb)) {
      d.label = diff_label::only_in_a;
      d.note = untimed_note(rb, "B");
      out.push_back(d);
      continue;
    }
    d.b_median_us = *number_at(*rb, "median_us");
    label_row(d, ra, *rb);
    out.push_back(d);
  }
  for (const auto& rb : b.at("rows")) {
    const row_key k = key_of(rb);
    if (!is_timed(rb) || seen.count(k)) continue;
    const json* ra = lookup(a_index, k);
    if (ra && is_timed(*ra)) continue;
    seen.insert(k);
    diff_row d = make_row(rb);
    d.b_median_us = *number_at(rb, "median_us");
    d.label = diff_label::only_in_b;
    d.note = untimed_note(ra, "A");
    out.push_back(d);
  }
  return out;
}

std::string render_diff(const json& a, const json& b, const std::vector<diff_row>& rows) {
  std::ostringstream s;
  s << "A: " << describe_run(a) << "\n"
    << "B: " << describe_run(b) << "\n";
  const std::string a_device = string_at(a.value("device", json::object()), "name", "unknown device");
  const std::string b_device = string_at(b.value("device", json::object()), "name", "unknown device");
  if (a_device != b_device)
    s << "WARNING: the runs are on different devices (" << a_device << " vs " << b_device
      << "): the ratios compare hardware as well as code.\n";
  if (timing_settings(a) != timing_settings(b))
    s << "WARNING: the timing settings differ (warm-up, samples, L2 flush or statistic); read small changes "
         "with care.\n";
  // Describe only the rule(s) the rows were actually labelled by: a file without samples reads as it always did.
  const bool any_test = std::any_of(rows.begin(), rows.end(), [](const diff_row& d) { return used_test(d); });
  const bool any_spread = std::any_of(rows.begin(), rows.end(), [](const diff_row& d) {
    return !used_test(d) && d.label != diff_label::only_in_a && d.label != diff_label::only_in_b;
  });
  s << "ratio = B / A of the median; ";
  if (any_test)
    s << (any_spread ? "rows with samples: " : "") << "FASTER or SLOWER when a two-sided Mann-Whitney U test on "
      << "the samples gives p < " << significance_level << " and the medians differ by more than "
      << min_practical_difference * percent << " %, SAME otherwise" << (any_spread ? ";\n" : ".\n");
  if (any_spread || !any_test)
    s << (any_test ? "rows noted \"spread rule\" (no samples, or too few): " : "")
      << "SAME within the threshold = max(" << min_noise_threshold * percent
      << " %, (p90 - p10) / median of A, of B).\n";
  s << "\n";

  const std::vector<std::string> head = {"variant", "functor", "type", "n",         "mode", "A µs",
                                         "B µs",    "ratio",   "p",    "threshold", "label"};
  const std::vector<bool> right = {false, false, false, false, false, true, true, true, true, true, false};
  std::vector<std::vector<std::string>> body;
  for (const auto& d : rows) {
    const bool both = d.label != diff_label::only_in_a && d.label != diff_label::only_in_b;
    std::string label = to_string(d.label);
    if (!d.note.empty()) label += " (" + d.note + ")";
    body.push_back({d.variant, d.functor, d.type, size_label(d.n), d.mode,
                    d.label == diff_label::only_in_b ? "-" : format_us(d.a_median_us),
                    d.label == diff_label::only_in_a ? "-" : format_us(d.b_median_us),
                    both ? format("%.3f", d.ratio) : "-", used_test(d) ? format_p(d.p_value) : "-",
                    both ? format("%.1f %%", d.threshold * percent) : "-", label});
  }
  std::vector<std::size_t> width(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) {
    width[c] = display_width(head[c]);
    for (const auto& r : body) width[c] = std::max(width[c], display_width(r[c]));
  }
  auto print = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const bool last = c + 1 == cells.size();
      line += (c ? "  " : "") + (last ? cells[c] : pad(cells[c], width[c], right[c]));
    }
    s << line << "\n";
  };
  print(head);
  std::string rule;
  for (std::size_t c = 0; c < head.size(); ++c) rule += (c ? "  " : "") + std::string(width[c], '-');
  s << rule << "\n";
  for (const auto& r : body) print(r);

  std::map<diff_label, std::size_t> counts;
  for (const auto& d : rows) ++counts[d.label];
  s << "\n"
    << counts[diff_label::same] << " same, " << counts[diff_label::faster] << " faster, "
    << counts[diff_label::slower] << " slower, " << counts[diff_label::only_in_a] << " only in A, "
    << counts[diff_label::only_in_b] << " only in B\n";
  return s.str();
}

}  // namespace reducelab::report

namespace reducelab::cli {

int run_diff(const options& o, std::ostream& out) {
  if (o.positional.size() != 2)
    throw usage_error("diff needs exactly two results files: reducelab diff A.json B.json (got " +
                      std::to_string(o.positional.size()) + ")");
  const auto a = report::load_results(o.positional[0]);
  const auto b = report::load_results(o.positional[1]);
  out << "A = " << o.positional[0] << "\nB = " << o.positional[1] << "\n";
  out << report::render_diff(a, b, report::diff_runs(a, b));
  return 0;
}

}  // namespace reducelab::cli
