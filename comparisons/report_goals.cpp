// See report_goals.hpp. Every figure is one row of the results file or a ratio of two rows' medians, so a goal
// line can be checked against the JSON by hand. The targets below are the goals as set for the library; a
// change to one is a change of goal, not of measurement.
#include "comparisons/report_goals.hpp"

#include "comparisons/results_view.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <set>
#include <sstream>

namespace reducelab::report {

namespace {

using json = nlohmann::json;
using namespace detail;

// --- The goals --------------------------------------------------------------------------------------------

// × CUB by size, cold. A size between the listed ones belongs to the band of the nearest listed size below it:
// 2^11 and 2^13 to 2^10-2^12, 2^15 and 2^17 to 2^14-2^18, 2^19 to 2^14-2^18 (its nearest listed size below is
// 2^18), 2^21 to 2^20, 2^23 to 2^22, 2^25 to 2^24, 2^27 and anything above 2^30 to 2^26-2^30. So a band reaches
// from its first listed size up to (not including) the next band's: the last band whose lo_log2 <= log2(n).
constexpr ratio_band ratio_bands[] = {
    {10, 12, 1.00}, {14, 18, 1.40}, {20, 20, 1.25}, {22, 22, 1.15}, {24, 24, 1.08}, {26, 30, 1.02},
};
constexpr double ratio_floor = 0.98;  // nowhere below, cold or hot

constexpr std::uint64_t peak_n = std::uint64_t{1} << 28;
struct peak_target {
  int value_bytes;
  double min_pct;
};
constexpr peak_target peak_targets[] = {{1, 90.0}, {4, 93.0}, {8, 93.0}, {16, 90.0}};  // no goal for other sizes

constexpr double order_max_gap = 0.03;  // non-commutative median at most 3 % above the commutative one
// Functors known to be non-commutative, for runs without the scan reference rows that otherwise say so.
constexpr const char* non_commutative_functors[] = {"affine_compose"};

constexpr std::uint64_t host_fast_max_n = std::uint64_t{1} << 20;
constexpr double host_fast_ratio = 3.0;    // up to host_fast_max_n
constexpr double host_never_slower = 1.0;  // at every n

// A ratio of 1.4 computed from medians of 14.0 and 10.0 us may land a hair below 1.4 in binary.
constexpr double tolerance = 1e-9;
constexpr double percent = 100.0;

constexpr goal_kind goal_order[] = {goal_kind::ratio, goal_kind::floor, goal_kind::peak, goal_kind::order,
                                    goal_kind::host};

std::string band_label(const ratio_band& b, bool ascii) {
  const std::string lo = "2^" + std::to_string(b.lo_log2), hi = "2^" + std::to_string(b.hi_log2);
  return b.lo_log2 == b.hi_log2 ? lo : lo + (ascii ? "-" : "–") + hi;
}

std::optional<double> peak_target_for(int value_bytes) {
  for (const auto& t : peak_targets)
    if (t.value_bytes == value_bytes) return t.min_pct;
  return std::nullopt;
}

// --- Reading the rows -------------------------------------------------------------------------------------

/// Sizes at which the run has a row of `variant` in `mode`, whatever its status, ascending.
std::vector<std::uint64_t> sizes_of(const results_index& idx, const case_id& c, const char* variant,
                                    const std::string& mode) {
  std::set<std::uint64_t> sizes;
  for (const json* row : idx.rows_of(c))
    if (variant_of(*row) == variant && row->at("mode") == mode) sizes.insert(size_of(*row));
  return {sizes.begin(), sizes.end()};
}

std::optional<int> value_bytes_of(const results_index& idx, const case_id& c) {
  for (const json* row : idx.rows_of(c))
    if (const auto b = number_at(*row, "value_bytes")) return static_cast<int>(*b);
  return std::nullopt;
}

bool is_non_commutative(const results_index& idx, const case_id& c) {
  return idx.uses_scan_reference(c) ||
         std::any_of(std::begin(non_commutative_functors), std::end(non_commutative_functors),
                     [&](const char* f) { return c.first == f; });
}

std::optional<std::pair<double, double>> interval_at(const json& row, const std::string& key) {
  const auto it = row.find(key);
  if (it == row.end() || !it->is_array() || it->size() != 2 || !(*it)[0].is_number() || !(*it)[1].is_number())
    return std::nullopt;
  return std::pair<double, double>{(*it)[0].get<double>(), (*it)[1].get<double>()};
}

/// "reducelab::reduce FAIL" or "thrust::reduce not in this run": why a check has no figure.
std::string missing(const results_index& idx, const std::string& variant, const case_id& c, std::uint64_t n,
                    const std::string& mode) {
  const json* row = idx.find(variant, c, n, mode);
  return variant + (row ? " " + status_of(*row) : std::string(" not in this run"));
}

goal_check make_check(goal_kind g, const case_id& c, std::uint64_t n, const std::string& mode) {
  goal_check k;
  k.goal = g;
  k.functor = c.first;
  k.type = c.second;
  k.n = n;
  k.mode = mode;
  return k;
}

void judge(goal_check& k, double measured) {
  k.measured = measured;
  const bool pass = k.at_most ? measured <= k.target + tolerance : measured >= k.target - tolerance;
  k.verdict = pass ? goal_verdict::pass : goal_verdict::miss;
  k.shortfall = pass ? 0.0 : k.at_most ? measured - k.target : k.target - measured;
}

/// reference median / library median with the row's interval, or no data saying which row is missing.
void judge_ratio(goal_check& k, const results_index& idx, const case_id& c, const char* variant,
                 const std::string& reference, const char* against) {
  k.reference = reference;
  const json* mine = idx.timed(variant, c, k.n, k.mode);
  const json* ref = idx.timed(reference, c, k.n, k.mode);
  if (!mine || !ref) {
    k.note = !mine ? missing(idx, variant, c, k.n, k.mode) : missing(idx, reference, c, k.n, k.mode);
    return;
  }
  k.us = median_of(*mine);
  k.reference_us = median_of(*ref);
  k.interval = interval_at(*mine, std::string("speedup_vs_") + against + "_ci");
  judge(k, *ratio(ref, mine));
}

void check_ratio_bands(const results_index& idx, std::vector<goal_check>& out) {
  for (const auto& c : idx.cases())
    for (const auto n : sizes_of(idx, c, library_reduce, cold_mode)) {
      const auto band = ratio_band_of(n);
      if (!band) continue;
      goal_check k = make_check(goal_kind::ratio, c, n, cold_mode);
      k.target = band->min_ratio;
      judge_ratio(k, idx, c, library_reduce, idx.cub_reference(c), "cub");
      out.push_back(k);
    }
}

void check_floor(const results_index& idx, std::vector<goal_check>& out) {
  for (const auto& c : idx.cases())
    for (const auto& mode : idx.modes()) {
      std::vector<goal_check> sized;
      for (const auto n : sizes_of(idx, c, library_reduce, mode)) {
        goal_check k = make_check(goal_kind::floor, c, n, mode);
        k.target = ratio_floor;
        judge_ratio(k, idx, c, library_reduce, idx.cub_reference(c), "cub");
        if (k.measured) sized.push_back(k);
      }
      if (sized.empty()) continue;  // the ratio lines say why
      goal_check lowest = *std::min_element(sized.begin(), sized.end(), [](const goal_check& a, const goal_check& b) {
        return *a.measured < *b.measured;
      });
      lowest.note = "lowest of " + std::to_string(sized.size()) + " size" + (sized.size() == 1 ? "" : "s");
      std::string below;
      for (const auto& k : sized)
        if (k.verdict == goal_verdict::miss && k.n != lowest.n) below += (below.empty() ? "" : ", ") + size_label(k.n);
      if (!below.empty()) lowest.note += "; also below at " + below;
      out.push_back(lowest);
    }
}

void check_peak(const results_index& idx, std::vector<goal_check>& out) {
  const auto peak = idx.peak_gb_per_s();
  for (const auto& c : idx.cases()) {
    const auto sizes = sizes_of(idx, c, library_reduce, cold_mode);
    const auto bytes = value_bytes_of(idx, c);
    const auto target = bytes ? peak_target_for(*bytes) : std::nullopt;
    if (sizes.empty() || !target) continue;
    const bool at_goal_size = std::find(sizes.begin(), sizes.end(), peak_n) != sizes.end();
    goal_check k = make_check(goal_kind::peak, c, at_goal_size ? peak_n : sizes.back(), cold_mode);
    k.target = *target;
    k.value_bytes = *bytes;
    k.reference = peak ? format("device peak %.0f GB/s", *peak) : std::string("device peak");
    if (!at_goal_size) k.note = size_label(peak_n) + " not measured: largest n";
    const json* mine = idx.timed(library_reduce, c, k.n, cold_mode);
    const auto pct = mine ? pct_of_peak_of(*mine, peak) : std::nullopt;
    if (pct) {
      k.us = median_of(*mine);
      judge(k, *pct);
    } else {
      k.note += (k.note.empty() ? "" : "; ") +
                (mine ? std::string("no device peak in the file") : missing(idx, library_reduce, c, k.n, cold_mode));
    }
    out.push_back(k);
  }
}

void check_order(const results_index& idx, std::vector<goal_check>& out) {
  for (const auto& c : idx.cases()) {
    if (!is_non_commutative(idx, c)) continue;
    const auto bytes = value_bytes_of(idx, c);
    for (const auto n : sizes_of(idx, c, library_reduce, cold_mode)) {
      goal_check k = make_check(goal_kind::order, c, n, cold_mode);
      k.target = order_max_gap;
      k.at_most = true;
      k.value_bytes = bytes.value_or(0);
      const json* mine = idx.timed(library_reduce, c, n, cold_mode);
      // The fastest commutative functor of the same value size at this n: the fairest bar there is.
      const json* best = nullptr;
      case_id best_case;
      for (const auto& other : idx.cases()) {
        if (other == c || is_non_commutative(idx, other) || value_bytes_of(idx, other) != bytes) continue;
        const json* row = idx.timed(library_reduce, other, n, cold_mode);
        if (row && (!best || median_of(*row) < median_of(*best))) {
          best = row;
          best_case = other;
        }
      }
      const std::string size_text = bytes ? std::to_string(*bytes) + "-byte" : "same-size";
      if (!mine) {
        k.note = missing(idx, library_reduce, c, n, cold_mode);
      } else if (!best) {
        k.note = "no commutative " + size_text + " functor timed at this n";
      } else {
        k.reference = best_case.first + "/" + best_case.second;
        k.note = "fastest commutative " + size_text + " functor at " + size_label(n);
        k.us = median_of(*mine);
        k.reference_us = median_of(*best);
        judge(k, *k.us / *k.reference_us - 1.0);
      }
      out.push_back(k);
    }
  }
}

void check_host(const results_index& idx, std::vector<goal_check>& out) {
  for (const auto& c : idx.cases())
    for (const auto n : sizes_of(idx, c, library_reduce_host, cold_mode)) {
      goal_check k = make_check(goal_kind::host, c, n, cold_mode);
      k.target = n <= host_fast_max_n ? host_fast_ratio : host_never_slower;
      judge_ratio(k, idx, c, library_reduce_host, idx.host_thrust_reference(c), "thrust");
      out.push_back(k);
    }
}

/// The explanation for a MISS from results["goal_explanations"]: the most specific key given wins, n written as
/// a power ("2^16") or in full ("65536"): "ratio:plus/int32/2^16", then "plus/int32/2^16", then "ratio".
std::string explanation_for(const json& results, const goal_check& k) {
  const auto it = results.find("goal_explanations");
  if (it == results.end() || !it->is_object()) return "";
  const std::string what = k.functor + "/" + k.type + "/";
  const std::string id = goal_id(k.goal);
  for (const std::string& key : {id + ":" + what + size_label(k.n), id + ":" + what + std::to_string(k.n),
                                 what + size_label(k.n), what + std::to_string(k.n), id}) {
    const auto e = it->find(key);
    if (e != it->end() && e->is_string()) return e->get<std::string>();
  }
  return "";
}

// --- Rendering --------------------------------------------------------------------------------------------

/// The symbols that differ between the Markdown and the terminal table.
struct symbols {
  const char* times;
  const char* at_least;
  const char* at_most;
  const char* micro;
  const char* none;
};
constexpr symbols markdown_symbols{"×", "≥", "≤", "µs", "—"};
constexpr symbols ascii_symbols{"x", ">=", "<=", "us", "-"};

/// Two decimals, or three when two would hide the difference that decides the line (1.3996 is not 1.40).
std::string ratio_number(double x, const goal_check& k) {
  const std::string two = format("%.2f", x);
  return k.verdict == goal_verdict::miss && std::stod(two) == k.target ? format("%.3f", x) : two;
}

std::string shortfall_text(const goal_check& k, const symbols& sym) {
  const double s = k.shortfall;
  const std::string number = s >= 0.005 ? format("%.2f", s) : s >= 0.0005 ? format("%.3f", s) : "< 0.001";
  if (k.goal == goal_kind::peak) return "by " + (s >= 0.05 ? format("%.1f", s) : number) + " points";
  if (k.goal == goal_kind::order) return "by " + format("%.1f", s * percent) + " points";
  return "by " + number + sym.times;
}

struct goal_line {
  std::vector<std::string> cells;  // goal, case, n, mode, target, measured, compared with, result
  std::string explanation;
  goal_verdict verdict;
};

goal_line line_of(const goal_check& k, const symbols& sym, bool markdown) {
  const auto name = [&](const std::string& text) { return markdown ? code(text) : text; };
  std::string target;
  switch (k.goal) {
    case goal_kind::ratio:
      target = sym.at_least + format(" %.2f", k.target) + sym.times + " (" +
               band_label(*ratio_band_of(k.n), !markdown) + ")";
      break;
    case goal_kind::floor:
    case goal_kind::host: target = sym.at_least + format(" %.2f", k.target) + sym.times; break;
    case goal_kind::peak:
      target = sym.at_least + format(" %.0f %% (%d-byte)", k.target, k.value_bytes);
      break;
    case goal_kind::order: target = sym.at_most + format(" +%.0f %%", k.target * percent); break;
  }
  std::string measured = sym.none;
  if (k.measured) {
    const double m = *k.measured;
    if (k.goal == goal_kind::peak) {
      measured = format("%.1f %%", m);
    } else if (k.goal == goal_kind::order) {
      measured = format("%+.1f %%", m * percent) + " (" + format_us(*k.us) + " vs " + format_us(*k.reference_us) +
                 " " + sym.micro + ")";
    } else {
      measured = ratio_number(m, k) + sym.times;
      if (k.interval) measured += format(" [%.2f, %.2f]", k.interval->first, k.interval->second);
    }
  }
  // The note says where the figure comes from; for order it names how the functor compared with was chosen.
  const bool note_by_reference = k.goal == goal_kind::order;
  if (!k.note.empty() && k.verdict != goal_verdict::no_data && !note_by_reference) measured += " (" + k.note + ")";
  std::string result;
  switch (k.verdict) {
    case goal_verdict::pass: result = "PASS"; break;
    case goal_verdict::miss: result = std::string(markdown ? "**MISS** " : "MISS ") + shortfall_text(k, sym); break;
    case goal_verdict::no_data: result = "NO DATA: " + k.note; break;
  }
  std::string reference = k.reference.empty() ? std::string(sym.none) : k.reference;
  if (markdown && k.goal != goal_kind::peak && !k.reference.empty()) reference = code(k.reference);
  if (note_by_reference && !k.note.empty() && k.verdict != goal_verdict::no_data) reference += " (" + k.note + ")";
  std::vector<std::string> cells = {goal_id(k.goal), name(k.functor + "/" + k.type), size_label(k.n), k.mode,
                                    target, measured, reference, result};
  if (markdown)
    for (auto& c : cells)
      if (c.find('`') == std::string::npos) c = cell(c);
  return {cells, markdown ? cell(k.explanation) : k.explanation, k.verdict};
}

/// "31 PASS, 2 MISS, 1 without data (ratio 20/22, floor 8/8, peak 5/5, order 4/4, host 4/5 passed)".
std::string counts_text(const std::vector<goal_check>& checks) {
  std::size_t pass = 0, miss = 0, none = 0;
  for (const auto& k : checks) {
    pass += k.verdict == goal_verdict::pass;
    miss += k.verdict == goal_verdict::miss;
    none += k.verdict == goal_verdict::no_data;
  }
  std::string text = std::to_string(pass) + " PASS, " + std::to_string(miss) + " MISS";
  if (none) text += ", " + std::to_string(none) + " without data";
  std::string per_goal;
  for (const goal_kind g : goal_order) {
    std::size_t of = 0, passed = 0;
    for (const auto& k : checks)
      if (k.goal == g) {
        ++of;
        passed += k.verdict == goal_verdict::pass;
      }
    if (of) per_goal += (per_goal.empty() ? "" : ", ") + std::string(goal_id(g)) + " " + std::to_string(passed) + "/" +
                        std::to_string(of);
  }
  return text + " (" + per_goal + " passed)";
}

const std::vector<std::string> head = {"Goal", "Functor/type", "n", "Mode", "Target", "Measured", "Compared with",
                                       "Result"};

std::string band_rule_text(bool ascii) {
  const char* arrow = ascii ? "->" : "→";
  const char* dash = ascii ? "-" : "–";
  return std::string("a size between the listed ones takes the band of the nearest listed size below it (2^11 and "
                     "2^13 ") +
         arrow + " 2^10" + dash + "2^12, 2^19 " + arrow + " 2^14" + dash + "2^18, 2^21 " + arrow + " 2^20, 2^23 " +
         arrow + " 2^22, 2^25 " + arrow + " 2^24, above 2^30 " + arrow + " 2^26" + dash +
         "2^30); below 2^10 only the floor applies";
}

std::string ratio_targets_text(const symbols& sym, bool ascii) {
  std::string text;
  for (const auto& b : ratio_bands)
    text += (text.empty() ? "" : ", ") + format("%.2f", b.min_ratio) + sym.times + " at " + band_label(b, ascii);
  return text;
}

/// Display width of UTF-8 text: continuation bytes take no column.
std::size_t width_of(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace

const char* goal_id(goal_kind g) {
  switch (g) {
    case goal_kind::ratio: return "ratio";
    case goal_kind::floor: return "floor";
    case goal_kind::peak: return "peak";
    case goal_kind::order: return "order";
    case goal_kind::host: return "host";
  }
  return "?";
}

std::optional<ratio_band> ratio_band_of(std::uint64_t n) {
  if (n < (std::uint64_t{1} << ratio_bands[0].lo_log2)) return std::nullopt;
  int k = 0;
  while (k < 63 && (n >> (k + 1)) != 0) ++k;  // floor(log2 n)
  std::optional<ratio_band> band;
  for (const auto& b : ratio_bands)
    if (b.lo_log2 <= k) band = b;
  return band;
}

std::vector<goal_check> evaluate_goals(const json& results) {
  const results_index idx(results);
  std::vector<goal_check> checks;
  check_ratio_bands(idx, checks);
  check_floor(idx, checks);
  check_peak(idx, checks);
  check_order(idx, checks);
  check_host(idx, checks);
  for (auto& k : checks)
    if (k.verdict == goal_verdict::miss) k.explanation = explanation_for(results, k);
  return checks;
}

std::string render_goals_section(const json& results) {
  const results_index idx(results);
  std::ostringstream s;
  s << "## Goals of " << code(library_reduce) << "\n\n";
  if (!idx.has_variant(library_reduce) && !idx.has_variant(library_reduce_host)) {
    s << "No " << code(library_reduce) << " rows in this run: no goal to check.\n\n";
    return s.str();
  }
  const auto checks = evaluate_goals(results);
  const symbols& sym = markdown_symbols;
  const std::string device = string_at(results.value("device", json::object()), "name", "unknown device");
  s << "Checked on this results file alone (" << cell(device)
    << "). Every figure is a cold median unless the line says hot; a ratio goal is judged on the ratio of medians, "
       "its 95 % interval shown beside it.\n\n"
    << md_table({"Goal", "Target"}, "ll",
                {{"`ratio`", "× CUB (CUB median / " + code(library_reduce) + " median, cold) " + sym.at_least + " " +
                                 ratio_targets_text(sym, false)},
                 {"`floor`", "× CUB " + std::string(sym.at_least) + format(" %.2f×", ratio_floor) +
                                 " at every size, cold and hot (the lowest of each functor, type and mode is shown)"},
                 {"`peak`", "at " + size_label(peak_n) + " (the largest size measured when " + size_label(peak_n) +
                                " is not): " + sym.at_least + " 93 % of the device's theoretical peak for 4- and "
                                "8-byte values, " + sym.at_least + " 90 % for 1- and 16-byte ones"},
                 {"`order`", "a non-commutative functor within 3 % of the fastest commutative functor of the same "
                             "value size at the same n (" + code(library_reduce) + " medians)"},
                 {"`host`", code(library_reduce_host) + " " + sym.at_least + " 3× faster than `" + thrust_reduce +
                                "` up to " + size_label(host_fast_max_n) + ", and never slower (" + sym.at_least +
                                " 1.00×); `" + thrust_scan_host + "` (host-clock timed, like the call) for "
                                "non-commutative functors"}})
    << "\nBand rule: " << band_rule_text(false)
    << ". A MISS may carry an explanation: a `goal_explanations` object in the results file, keyed by "
       "`ratio:plus/int32/2^16`, `plus/int32/2^16` or a goal alone (`ratio`), the most specific key first.\n\n";
  if (checks.empty()) {
    s << "No goal could be checked: no timed " << code(library_reduce) << " rows.\n\n";
    return s.str();
  }
  s << "**" << counts_text(checks) << ".**\n\n";
  const bool any_miss =
      std::any_of(checks.begin(), checks.end(), [](const goal_check& k) { return k.verdict == goal_verdict::miss; });
  std::vector<std::string> columns = head;
  if (any_miss) columns.push_back("Explanation");
  std::vector<std::vector<std::string>> body;
  for (const auto& k : checks) {
    goal_line l = line_of(k, sym, true);
    if (any_miss) l.cells.push_back(l.explanation);
    body.push_back(l.cells);
  }
  s << md_table(columns, std::string("llllrrll") + (any_miss ? "l" : ""), body) << "\n";
  return s.str();
}

std::string goals_text(const json& results) {
  const results_index idx(results);
  std::ostringstream s;
  s << "Goals of " << library_reduce;
  if (!idx.has_variant(library_reduce) && !idx.has_variant(library_reduce_host)) {
    s << ": no " << library_reduce << " rows in this run\n";
    return s.str();
  }
  const auto checks = evaluate_goals(results);
  s << " on " << string_at(results.value("device", json::object()), "name", "unknown device")
    << " (cold medians unless hot; ratio = CUB median / " << library_reduce << " median)\n"
    << "ratio targets: " << ratio_targets_text(ascii_symbols, true) << "; floor 0.98x everywhere\n"
    << "band rule: " << band_rule_text(true) << "\n";
  if (checks.empty()) {
    s << "no goal could be checked: no timed " << library_reduce << " rows\n";
    return s.str();
  }
  std::vector<goal_line> lines;
  bool any_explanation = false;
  for (const auto& k : checks) {
    lines.push_back(line_of(k, ascii_symbols, false));
    any_explanation = any_explanation || !lines.back().explanation.empty();
  }
  std::vector<std::size_t> width(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) {
    width[c] = width_of(head[c]);
    for (const auto& l : lines) width[c] = std::max(width[c], width_of(l.cells[c]));
  }
  auto print = [&](const std::vector<std::string>& cells, const std::string& last) {
    std::string text;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const bool pad = c + 1 < cells.size() || !last.empty();
      text += (c ? "  " : "") + cells[c] + (pad ? std::string(width[c] - width_of(cells[c]), ' ') : "");
    }
    if (!last.empty()) text += "  " + last;
    while (!text.empty() && text.back() == ' ') text.pop_back();
    s << text << "\n";
  };
  print(head, any_explanation ? "Explanation" : "");
  for (const auto& l : lines) print(l.cells, l.explanation);
  s << counts_text(checks) << "\n";
  return s.str();
}

}  // namespace reducelab::report
