// The goals reducelab::reduce is held to, checked on one results file (one GPU): its speed against CUB by size
// band and nowhere below a floor, its share of the memory bandwidth at the top of the sweep, a non-commutative
// functor as fast as a commutative one of the same size, and its host-returning call against thrust::reduce.
// The report's "Goals" section and the table `compare` prints at the end of a run. Pure host code on the JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace reducelab::report {

enum class goal_kind {
  ratio,  // × CUB (CUB median / reducelab::reduce median, cold) at least the size band's target
  floor,  // × CUB at least 0.98× at every size, in every mode measured
  peak,   // % of the device's theoretical peak at 2^28 (or the largest size measured)
  order,  // a non-commutative functor within 3 % of the fastest commutative one of the same value size
  host,   // reducelab::reduce(host) against thrust::reduce: 3× up to 2^20, never slower
};

/// "ratio", "floor", "peak", "order", "host": how a goal is named in the report and in explanation keys.
const char* goal_id(goal_kind g);

enum class goal_verdict { pass, miss, no_data };

/// One band of the ratio goal: listed sizes 2^lo_log2 .. 2^hi_log2 and the least × CUB expected there.
struct ratio_band {
  int lo_log2;
  int hi_log2;
  double min_ratio;
};

/// The band n is judged in: that of the nearest listed size at or below n (2^13 -> 2^10-2^12, 2^19 ->
/// 2^14-2^18, above 2^30 -> 2^26-2^30). Nothing below 2^10, where only the floor applies.
std::optional<ratio_band> ratio_band_of(std::uint64_t n);

/// One line of the goals table: one goal checked on one (functor, type, n, mode).
struct goal_check {
  goal_kind goal = goal_kind::ratio;
  std::string functor, type;  // order: the non-commutative case
  std::uint64_t n = 0;        // floor: the size with the lowest ratio; peak: the size judged
  std::string mode;
  int value_bytes = 0;   // peak, order: the value size the target or the comparison depends on
  double target = 0;     // ×, % of peak (peak) or relative gap (order: 0.03)
  bool at_most = false;  // order: measured must not exceed target; the others: must reach it
  std::optional<double> measured;
  std::optional<std::pair<double, double>> interval;  // 95 % interval of a ratio, as compare wrote it
  std::optional<double> us, reference_us;             // the medians behind a ratio or gap
  goal_verdict verdict = goal_verdict::no_data;
  double shortfall = 0;    // on a MISS: how far from the target, in the goal's unit (×, points of %)
  std::string reference;   // what was compared against: a backend, "functor/type" (order), or the peak
  std::string note;        // band, "lowest of 5 sizes", "2^28 not measured: largest n", why there is no data
  std::string explanation; // from results["goal_explanations"], for a MISS
};

/// Every goal check of a results file, in order ratio, floor, peak, order, host, then by case and size.
/// Empty when the file has no reducelab::reduce rows.
std::vector<goal_check> evaluate_goals(const nlohmann::json& results);

/// Markdown "## Goals of `reducelab::reduce`": the targets, the band rule, the counts and one line per check.
std::string render_goals_section(const nlohmann::json& results);

/// The same table as plain ASCII text for a terminal (what `compare` prints at the end of a run).
std::string goals_text(const nlohmann::json& results);

}  // namespace reducelab::report
