// `reducelab tune`: choose the policies of reducelab::reduce on this GPU. The measuring is in candidates.cuh
// (see tune.hpp for the two sweeps); here is the choosing, apart from it:
//   multi-block  the candidate with the smallest geometric mean, over every (workload, n), of its median over the
//                best candidate's median there; a candidate that failed or was excluded anywhere is not eligible
//   one-block    each one-block shape and its crossover (the largest size up to which it is nowhere slower than the
//                chosen multi-block policy: paired 95 % interval, every workload of the class) make a policy; the
//                policy with the smallest geometric mean over the one-block sizes gives single_block_threads,
//                single_block_vectors and single_block_max_bytes
// and what is written: the results JSON, the replacement for include/reducelab/tuning/sm90.hpp, the table.
#include "comparisons/provenance.hpp"
#include "comparisons/tune/tune.hpp"

#include "comparisons/results_view.hpp"
#include "comparisons/timing/clock_guard.hpp"
#include "comparisons/timing/statistics.hpp"
#include "lab/cli/commands.hpp"
#include "lab/core/device_buffer.hpp"
#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"
#include "reducelab/tuning/sm90.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

namespace reducelab::tune {

std::string label_of(const tuning::policy_values& p, bool one_block) {
  if (one_block)
    return "one block " + std::to_string(p.single_block_threads) + "x" + std::to_string(p.single_block_vectors);
  return std::to_string(p.block_threads) + "x" + std::to_string(p.vectors_per_thread) +
         (p.blocks_per_sm == 0 ? " occupancy" : " " + std::to_string(p.blocks_per_sm) + "/SM");
}

const char* to_string(work_status s) {
  switch (s) {
    case work_status::timed:
      return "timed";
    case work_status::failed:
      return "FAILED validation";
    case work_status::excluded:
      return "excluded";
  }
  return "?";
}

std::string policy_text(const tuning::policy_values& p) {
  // The trailing fields are positional: each is written whenever a later one is. The warp tiles' threshold is
  // written only where it differs from the direct fold's (the policy reads 0 as "the same").
  const bool in_order = p.in_order_pass_blocks_min_bytes != p.pass_blocks_min_bytes;
  std::string pass_blocks;
  if (p.pass_blocks_min_bytes != 0 || p.direct_fold_blocks_per_sm != 0 || in_order)
    pass_blocks = ", " + std::to_string(p.pass_blocks_min_bytes) + ", " + std::to_string(p.pass_blocks_vectors);
  if (p.direct_fold_blocks_per_sm != 0 || in_order) pass_blocks += ", " + std::to_string(p.direct_fold_blocks_per_sm);
  if (in_order) pass_blocks += ", " + std::to_string(p.in_order_pass_blocks_min_bytes);
  return "policy<" + std::to_string(p.block_threads) + ", " + std::to_string(p.vectors_per_thread) + ", " +
         std::to_string(p.blocks_per_sm) + ", " + std::to_string(p.single_block_threads) + ", " +
         std::to_string(p.single_block_max_bytes) + ", " + std::to_string(p.single_block_vectors) + pass_blocks + ">";
}

namespace {

using json = nlohmann::ordered_json;
using report::detail::size_label;

/// Where the numbers of the method come from.
struct tune_policy {
  static constexpr int warmup_runs = 3;  // module load, first allocations, clocks ramping up
  static constexpr double confidence = 0.95;
  static constexpr int bootstrap_resamples = 2000;  // as compare: the interval's ends move by well under 1 % beyond
};

std::vector<std::size_t> powers_of_two(int from, int to, int step) {
  std::vector<std::size_t> v;
  for (int k = from; k <= to; k += step) v.push_back(std::size_t{1} << k);
  return v;
}

/// Multi-block sizes, in values: from 2^14 (a few tiles per SM, where launch and the last block dominate) to 2^28
/// (1 GiB of int32, far beyond L2, where only bandwidth counts).
std::vector<std::size_t> multi_block_sizes(bool quick) {
  return quick ? std::vector<std::size_t>{std::size_t{1} << 16, std::size_t{1} << 20, std::size_t{1} << 24}
               : powers_of_two(14, 28, 2);
}

/// One-block sizes, in bytes: 256 B to 64 KiB, around the fallback's 16 KiB.
std::vector<std::size_t> single_block_bytes(bool quick) { return powers_of_two(8, 16, quick ? 2 : 1); }

std::string bytes_label(std::size_t bytes) {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " B";
}

/// The compiled sm90 table's policy for a size class (what a run that writes the header replaces).
tuning::policy_values current_sm90(std::size_t size_class) {
  switch (size_class) {
    case 1: return tuning::values_of<tuning::sm90<1>>();
    case 2: return tuning::values_of<tuning::sm90<2>>();
    case 4: return tuning::values_of<tuning::sm90<4>>();
    case 8: return tuning::values_of<tuning::sm90<8>>();
    case 16: return tuning::values_of<tuning::sm90<16>>();
    default: return tuning::values_of<tuning::sm90<32>>();
  }
}

std::string fixed(double x, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << x;
  return s.str();
}

std::string workload_names(const std::vector<workload_info>& ws) {
  std::string s;
  for (const auto& w : ws) s += (s.empty() ? "" : ", ") + w.functor + "/" + w.type;
  return s;
}

// --- Choosing --------------------------------------------------------------------------------------------------

bool timed(const work_result& w) { return w.status == work_status::timed; }

struct candidate_score {
  bool eligible = false;  // timed at every point of the sweep: never excluded, never failed
  double geomean = NAN;   // over the points where it was timed, of its median / the best candidate's median there
  double worst = NAN;     // the largest of those ratios
  std::optional<std::size_t> worst_at;  // the point (index into the sweep's points) where it was largest
};

std::vector<candidate_score> score_candidates(const sweep_result& s) {
  std::vector<candidate_score> scores(s.candidates.size());
  std::vector<double> log_sum(s.candidates.size(), 0.0);
  std::vector<std::size_t> timed_points(s.candidates.size(), 0);
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const point_result& p = s.points[i];
    double best = std::numeric_limits<double>::infinity();
    for (const work_result& w : p.candidates)
      if (timed(w)) best = std::min(best, timing::median(w.us));
    for (std::size_t c = 0; c < p.candidates.size(); ++c) {
      const work_result& w = p.candidates[c];
      if (!timed(w)) continue;
      const double ratio = timing::median(w.us) / best;
      log_sum[c] += std::log(ratio);
      ++timed_points[c];
      if (!(ratio <= scores[c].worst)) {  // also the first time, while worst is NaN
        scores[c].worst = ratio;
        scores[c].worst_at = i;
      }
    }
  }
  for (std::size_t c = 0; c < scores.size(); ++c) {
    scores[c].eligible = !s.points.empty() && timed_points[c] == s.points.size();
    if (timed_points[c] > 0) scores[c].geomean = std::exp(log_sum[c] / static_cast<double>(timed_points[c]));
  }
  return scores;
}

struct ranking {
  std::optional<std::size_t> best, runner_up;  // eligible candidates with the smallest and next smallest geomean
};

ranking rank_candidates(const std::vector<candidate_score>& scores) {
  std::vector<std::size_t> eligible;
  for (std::size_t c = 0; c < scores.size(); ++c)
    if (scores[c].eligible) eligible.push_back(c);
  std::stable_sort(eligible.begin(), eligible.end(),
                   [&](std::size_t a, std::size_t b) { return scores[a].geomean < scores[b].geomean; });
  ranking r;
  if (!eligible.empty()) r.best = eligible[0];
  if (eligible.size() > 1) r.runner_up = eligible[1];
  return r;
}

/// median(reference) / median(candidate) with its paired interval: above 1, the candidate is the faster.
struct paired_ratio {
  double ratio = NAN;
  timing::interval ci;
  timing::ratio_verdict verdict = timing::ratio_verdict::tie;
};

paired_ratio compare_paired(const std::vector<double>& reference, const std::vector<double>& candidate,
                            std::uint64_t seed) {
  paired_ratio r;
  r.ratio = timing::median(reference) / timing::median(candidate);
  r.ci = timing::ratio_of_medians_interval(reference, candidate, tune_policy::confidence,
                                           tune_policy::bootstrap_resamples, seed);
  r.verdict = timing::classify(r.ci);
  return r;
}

const work_result* baseline_of(const point_result& p) { return p.baseline ? &*p.baseline : nullptr; }

/// The chosen candidate against another work at every point where both were timed (other / chosen: above 1, the
/// chosen one is faster there).
struct head_to_head {
  std::vector<std::pair<std::size_t, paired_ratio>> points;  // (index into the sweep's points, ratio there)
  double geomean = NAN;
  int faster = 0, tied = 0, slower = 0;  // points where the chosen one is faster, within the noise, slower
};

template <class OtherOfPointT>  // const work_result* (const point_result&), null where there is none
head_to_head compare_at_every_point(const sweep_result& s, std::size_t chosen, OtherOfPointT other_of,
                                    std::uint64_t seed) {
  head_to_head h;
  double log_sum = 0;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const point_result& p = s.points[i];
    const work_result* other = other_of(p);
    if (!timed(p.candidates[chosen]) || !other || !timed(*other)) continue;
    const paired_ratio r = compare_paired(other->us, p.candidates[chosen].us, seed + p.n + p.workload);
    h.points.emplace_back(i, r);
    log_sum += std::log(r.ratio);
    (r.verdict == timing::ratio_verdict::win    ? h.faster
     : r.verdict == timing::ratio_verdict::loss ? h.slower
                                                : h.tied)++;
  }
  if (!h.points.empty()) h.geomean = std::exp(log_sum / static_cast<double>(h.points.size()));
  return h;
}

/// Where the one-block path stops being at least as fast as the multi-block policy.
struct crossover {
  std::size_t max_bytes = 0;  // the one-block path's limit: single_block_max_bytes
  bool whole_range = false;   // nowhere slower up to the largest size measured: a floor, not a crossover
  head_to_head steps;         // per point: multi-block median / one-block median
};

/// Per workload, walk the sizes upwards while the one-block path is not slower (its paired interval not wholly
/// on the slow side); the class's limit is the smallest such size over its workloads, since one policy serves all.
crossover find_crossover(const sweep_result& s, std::size_t one_block, std::size_t workloads, std::uint64_t seed) {
  crossover c;
  c.steps = compare_at_every_point(s, one_block, baseline_of, seed);
  c.whole_range = true;
  c.max_bytes = std::numeric_limits<std::size_t>::max();
  for (std::size_t w = 0; w < workloads; ++w) {
    std::size_t limit = 0;
    bool stopped = false;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const point_result& p = s.points[i];
      if (p.workload != w || stopped) continue;
      const auto step =
          std::find_if(c.steps.points.begin(), c.steps.points.end(), [&](const auto& e) { return e.first == i; });
      // Not timed on both sides counts as slower: nothing shows the one-block path holds up there.
      stopped = step == c.steps.points.end() || step->second.verdict == timing::ratio_verdict::loss;
      if (!stopped) limit = p.bytes;
    }
    c.whole_range = c.whole_range && !stopped;
    c.max_bytes = std::min(c.max_bytes, limit);
  }
  if (workloads == 0) c.max_bytes = 0;
  return c;
}

/// The geometric mean, over the points of the one-block sweep, of the time taken by the policy that one-block
/// candidate `one_block` makes with byte limit `max_bytes` (that candidate up to the limit, the multi-block
/// baseline above it), over the best time measured there. NaN where the policy's side was not timed.
double policy_geomean(const sweep_result& s, std::size_t one_block, std::size_t max_bytes) {
  double log_sum = 0;
  for (const point_result& p : s.points) {
    const work_result* multi_block = baseline_of(p);
    double best =
        multi_block && timed(*multi_block) ? timing::median(multi_block->us) : std::numeric_limits<double>::infinity();
    for (const work_result& w : p.candidates)
      if (timed(w)) best = std::min(best, timing::median(w.us));
    const work_result* taken = p.bytes <= max_bytes ? &p.candidates[one_block] : multi_block;
    if (!taken || !timed(*taken)) return NAN;
    log_sum += std::log(timing::median(taken->us) / best);
  }
  return s.points.empty() ? NAN : std::exp(log_sum / static_cast<double>(s.points.size()));
}

struct one_block_choice {
  std::size_t candidate = 0;
  crossover cross;
  double geomean = NAN;  // policy_geomean of the candidate with its crossover
};

/// single_block_threads and single_block_max_bytes together: each eligible one-block shape makes a policy with its
/// own crossover, scored by policy_geomean, and the best policy wins. Scoring the shapes alone would weigh the sizes
/// above the crossover, where the one-block path is never taken. `geomeans` gets every candidate's (NaN: not eligible).
std::optional<one_block_choice> choose_one_block(const sweep_result& s, const std::vector<candidate_score>& scores,
                                                 std::size_t workloads, std::uint64_t seed,
                                                 std::vector<double>& geomeans) {
  std::optional<one_block_choice> best;
  geomeans.assign(s.candidates.size(), NAN);
  for (std::size_t c = 0; c < s.candidates.size(); ++c) {
    if (!scores[c].eligible) continue;
    one_block_choice choice{c, find_crossover(s, c, workloads, seed), NAN};
    choice.geomean = geomeans[c] = policy_geomean(s, c, choice.cross.max_bytes);
    if (!best || choice.geomean < best->geomean) best = choice;
  }
  return best;
}

/// One size class: what was measured and what was chosen.
struct class_outcome {
  std::size_t size_class = 0;
  std::vector<workload_info> workloads;
  sweep_result multi, single;
  std::vector<candidate_score> multi_scores, single_scores;
  ranking multi_rank;
  head_to_head vs_runner_up, vs_cub;
  std::optional<one_block_choice> one_block;
  std::vector<double> one_block_policy_geomeans;  // per one-block candidate, with its own crossover
  std::optional<tuning::policy_values> chosen;    // empty: the class keeps tuning::fallback, for the reason in why_not
  std::string why_not;
  std::size_t failed_validations = 0;
  double seconds = 0;
  std::optional<timing::clock_reading> clocks;  // after the class's last sample
};

std::size_t count_failed(const sweep_result& s) {
  std::size_t n = 0;
  for (const point_result& p : s.points) {
    for (const work_result& w : p.candidates) n += w.status == work_status::failed;
    n += p.baseline && p.baseline->status == work_status::failed;
  }
  return n;
}

std::string score_text(const candidate_info& c, const candidate_score& s) {
  return c.label + " (geomean " + fixed(s.geomean, 3) + ", worst " + fixed(s.worst, 3) + ")";
}

/// Measure one class and choose its policy: on return c.chosen is set, or c.why_not says why not.
void measure_and_choose(const class_tuner& tuner, const sweep_context& ctx, std::ostream& out, class_outcome& c) {
  c.multi = tuner.measure_multi_block(ctx);
  c.multi_scores = score_candidates(c.multi);
  c.multi_rank = rank_candidates(c.multi_scores);
  if (!c.multi_rank.best) {
    c.why_not = "no multi-block candidate was timed at every point";
    return;
  }
  const std::size_t best = *c.multi_rank.best;
  c.vs_cub = compare_at_every_point(c.multi, best, baseline_of, ctx.seed);
  out << "  multi-block: " << score_text(c.multi.candidates[best], c.multi_scores[best]);
  if (c.multi_rank.runner_up) {
    const std::size_t ru = *c.multi_rank.runner_up;
    c.vs_runner_up = compare_at_every_point(
        c.multi, best, [ru](const point_result& p) { return &p.candidates[ru]; }, ctx.seed);
    out << "; runner-up " << score_text(c.multi.candidates[ru], c.multi_scores[ru]);
  }
  out << "\n" << std::flush;

  c.single = tuner.measure_single_block(ctx, best);
  c.single_scores = score_candidates(c.single);
  c.one_block = choose_one_block(c.single, c.single_scores, c.workloads.size(), ctx.seed, c.one_block_policy_geomeans);
  if (!c.one_block) {
    c.why_not = "no one-block candidate was timed at every point";
    return;
  }
  tuning::policy_values p = c.multi.candidates[best].policy;
  // Not swept (tuning/policy.hpp): the pass-block fields stay as the table this run replaces has them.
  const tuning::policy_values current = current_sm90(c.size_class);
  p.pass_blocks_min_bytes = current.pass_blocks_min_bytes;
  p.pass_blocks_vectors = current.pass_blocks_vectors;
  p.direct_fold_blocks_per_sm = current.direct_fold_blocks_per_sm;
  p.in_order_pass_blocks_min_bytes = current.in_order_pass_blocks_min_bytes;
  p.single_block_threads = c.single.candidates[c.one_block->candidate].policy.single_block_threads;
  p.single_block_vectors = c.single.candidates[c.one_block->candidate].policy.single_block_vectors;
  p.single_block_max_bytes = c.one_block->cross.max_bytes;
  c.chosen = p;
  out << "  one block: " << p.single_block_threads << " threads x " << p.single_block_vectors << " loads, up to "
      << bytes_label(p.single_block_max_bytes)
      << (c.one_block->cross.whole_range ? " (not slower anywhere measured: the largest size measured)"
                                         : " (the crossover)")
      << ", geomean " << fixed(c.one_block->geomean, 3) << "\n";
}

class_outcome tune_class(const class_tuner& tuner, const sweep_context& ctx, const timing::clock_guard& clocks,
                         std::ostream& out) {
  const auto started = std::chrono::steady_clock::now();
  class_outcome c;
  c.size_class = tuner.size_class();
  c.workloads = tuner.workloads();
  out << "[" << c.size_class << " B] tuned on " << workload_names(c.workloads) << "\n" << std::flush;
  measure_and_choose(tuner, ctx, out, c);
  if (!c.chosen) out << "  " << c.why_not << ": the class keeps the fallback\n";
  c.failed_validations = count_failed(c.multi) + count_failed(c.single);
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  c.clocks = clocks.read();
  out << "  " << fixed(c.seconds, 1) << " s for this class\n" << std::flush;
  return c;
}

// --- The results file ---------------------------------------------------------------------------------------------

/// What every output records about the run.
struct run_record {
  const device_info* device = nullptr;
  std::string command_line, commit, created_utc;
  int samples = 0;
  bool quick = false;
  std::vector<std::size_t> multi_block_sizes, single_block_bytes;
  std::size_t flush_bytes = 0;
};

/// The fields a sweep varies: a multi-block candidate's one-block fields, and the reverse, are placeholders.
json shape_json(const tuning::policy_values& p, bool one_block) {
  if (one_block)
    return {{"single_block_threads", p.single_block_threads}, {"single_block_vectors", p.single_block_vectors}};
  return {{"block_threads", p.block_threads},
          {"vectors_per_thread", p.vectors_per_thread},
          {"blocks_per_sm", p.blocks_per_sm}};
}

json row_json(const std::string& work, const work_result& w, std::size_t bytes, double best_median) {
  json row = {{"work", work}, {"status", to_string(w.status)}};
  if (!timed(w)) {
    row["note"] = w.note;
    return row;
  }
  const timing::sample_summary sum = timing::summarize(w.us);
  row["median_us"] = sum.median;
  row["p10_us"] = sum.p10;
  row["p90_us"] = sum.p90;
  row["gb_per_s"] = static_cast<double>(bytes) / (sum.median * 1e-6) / 1e9;
  if (std::isfinite(best_median)) row["ratio_to_best"] = sum.median / best_median;
  row["discarded_samples"] = w.discarded;
  row["samples_us"] = w.us;
  return row;
}

json point_key(const point_result& p, const std::vector<workload_info>& ws) {
  return {{"workload", ws[p.workload].functor + "/" + ws[p.workload].type}, {"n", p.n}, {"bytes", p.bytes}};
}

json sweep_json(const sweep_result& s, bool one_block, const std::vector<candidate_score>& scores,
                const std::vector<workload_info>& ws) {
  json j;
  j["baseline"] = s.baseline;
  j["candidates"] = json::array();
  for (std::size_t c = 0; c < s.candidates.size(); ++c) {
    const candidate_info& info = s.candidates[c];
    json jc = {{"label", info.label},
               {"shape", shape_json(info.policy, one_block)},
               {"static_shared_bytes", info.static_shared_bytes}};
    if (!info.excluded.empty()) jc["excluded"] = info.excluded;
    jc["eligible"] = scores[c].eligible;
    jc["geomean"] = std::isfinite(scores[c].geomean) ? json(scores[c].geomean) : json(nullptr);
    jc["worst_ratio"] = std::isfinite(scores[c].worst) ? json(scores[c].worst) : json(nullptr);
    if (scores[c].worst_at) jc["worst_at"] = point_key(s.points[*scores[c].worst_at], ws);
    j["candidates"].push_back(jc);
  }
  j["points"] = json::array();
  for (const point_result& p : s.points) {
    double best = std::numeric_limits<double>::infinity();
    for (const work_result& w : p.candidates)
      if (timed(w)) best = std::min(best, timing::median(w.us));
    json jp = point_key(p, ws);
    jp["rows"] = json::array();
    for (std::size_t c = 0; c < p.candidates.size(); ++c)
      jp["rows"].push_back(row_json(s.candidates[c].label, p.candidates[c], p.bytes, best));
    if (p.baseline) jp["baseline"] = row_json(s.baseline, *p.baseline, p.bytes, best);
    j["points"].push_back(jp);
  }
  return j;
}

/// `ratio` says what the ratios are (other median / this one's: above 1, this one is faster).
json head_to_head_json(const head_to_head& h, const std::string& ratio, const sweep_result& s,
                       const std::vector<workload_info>& ws) {
  json j = {{"ratio", ratio},
            {"geomean_ratio", std::isfinite(h.geomean) ? json(h.geomean) : json(nullptr)},
            {"points_faster", h.faster},
            {"points_tied", h.tied},
            {"points_slower", h.slower},
            {"points", json::array()}};
  for (const auto& [i, r] : h.points) {
    json jp = point_key(s.points[i], ws);
    jp["ratio"] = r.ratio;
    jp["ci"] = json::array({r.ci.lo, r.ci.hi});
    jp["verdict"] = timing::to_string(r.verdict);
    j["points"].push_back(jp);
  }
  return j;
}

json class_json(const class_outcome& c) {
  json j;
  j["size_class"] = c.size_class;
  j["workloads"] = json::array();
  for (const auto& w : c.workloads)
    j["workloads"].push_back(
        {{"functor", w.functor}, {"type", w.type}, {"value_bytes", w.value_bytes}, {"commutative", w.commutative}});
  j["seconds"] = c.seconds;
  if (c.clocks) j["clocks_mhz_after"] = {{"sm", c.clocks->sm_mhz}, {"memory", c.clocks->memory_mhz}};
  j["failed_validations"] = c.failed_validations;
  if (c.chosen) {
    const std::size_t best = *c.multi_rank.best;
    json chosen = {{"policy", provenance::policy_json(*c.chosen)},
                   {"multi_block", c.multi.candidates[best].label},
                   {"geomean", c.multi_scores[best].geomean},
                   {"worst_ratio", c.multi_scores[best].worst}};
    if (c.multi_rank.runner_up) {
      const std::size_t ru = *c.multi_rank.runner_up;
      chosen["runner_up"] = {{"label", c.multi.candidates[ru].label},
                             {"shape", shape_json(c.multi.candidates[ru].policy, false)},
                             {"geomean", c.multi_scores[ru].geomean},
                             {"worst_ratio", c.multi_scores[ru].worst}};
      chosen["margin"] = c.multi_scores[ru].geomean / c.multi_scores[best].geomean;
      chosen["vs_runner_up"] =
          head_to_head_json(c.vs_runner_up, "runner-up median / chosen median", c.multi, c.workloads);
    }
    chosen["vs_cub"] =
        head_to_head_json(c.vs_cub, "CUB median / chosen median (commutative workloads only)", c.multi, c.workloads);
    const one_block_choice& one = *c.one_block;
    chosen["one_block"] = {
        {"label", c.single.candidates[one.candidate].label},
        {"max_bytes", one.cross.max_bytes},
        {"limit", one.cross.whole_range ? "not slower at any size measured: the largest size measured"
                                        : "the crossover: the largest size up to which the one-block path is nowhere "
                                          "slower (paired 95 % interval) than the multi-block policy, every workload"},
        {"policy_geomean", one.geomean},
        {"vs_multi_block",
         head_to_head_json(one.cross.steps, "multi-block median / one-block median", c.single, c.workloads)}};
    j["chosen"] = chosen;
  } else {
    j["not_tuned"] = c.why_not;
  }
  j["multi_block"] = sweep_json(c.multi, false, c.multi_scores, c.workloads);
  j["single_block"] = sweep_json(c.single, true, c.single_scores, c.workloads);
  // A one-block shape is chosen by the policy it makes (itself up to its own crossover, the multi-block policy above).
  for (std::size_t k = 0; k < c.one_block_policy_geomeans.size(); ++k) {
    const double g = c.one_block_policy_geomeans[k];
    j["single_block"]["candidates"][k]["policy_geomean"] = std::isfinite(g) ? json(g) : json(nullptr);
  }
  return j;
}

constexpr const char* untuned_classes_note = "no representative workload: they keep tuning::fallback";

json results_json(const run_record& r, const std::vector<class_outcome>& classes, const timing::clock_guard& clocks) {
  const device_info& dev = *r.device;
  json j;
  j["schema"] = "reducelab-tune-1";
  j["created_utc"] = r.created_utc;
  j["command_line"] = r.command_line;
  j["commit"] = r.commit;
  j["build"] = provenance::build_json();
  j["device"] = provenance::device_json(dev, clocks);
  j["timing"] = {{"engine", "ReduceLab timing engine (comparisons/timing): interleaved rounds, shuffled each round"},
                 {"samples", r.samples},
                 {"warmup_runs", tune_policy::warmup_runs},
                 {"cache", "cold"},
                 {"flush", "clean"},
                 {"l2_flush_bytes", r.flush_bytes},
                 {"hold", true},
                 {"statistic", "median"},
                 {"spread", "p10/p90"},
                 {"interval", "95 % paired bootstrap of the ratio of medians over the rounds, " +
                                  std::to_string(tune_policy::bootstrap_resamples) + " resamples"},
                 {"quick", r.quick}};
  j["multi_block_sizes"] = r.multi_block_sizes;
  j["single_block_bytes"] = r.single_block_bytes;
  j["score"] = "geometric mean over (workload, n) of a candidate's median / the best candidate's median there";
  j["classes"] = json::array();
  for (const auto& c : classes) j["classes"].push_back(class_json(c));
  j["untuned_classes"] = {{"size_classes", {2, 32}}, {"why", untuned_classes_note}};
  return j;
}

// --- The header ---------------------------------------------------------------------------------------------------


/// A complete replacement for include/reducelab/tuning/sm90.hpp: the fallback as the primary template, one
/// explicit specialization per tuned class, and where every number came from.
std::string sm90_header(const run_record& r, const std::vector<class_outcome>& classes) {
  const device_info& dev = *r.device;
  std::ostringstream h;
  h << "// Policies for compute capability 9.x (H100, H200), written by `reducelab tune --write-header`. To retune, "
       "run it\n"
       "// again on a Hopper GPU rather than editing the numbers: it rewrites this file whole.\n"
       "// Provenance:\n"
    << "//   device   " << dev.name << " (" << dev.sm_count << " SMs, compute capability " << dev.compute_major << "."
    << dev.compute_minor << ", peak " << fixed(dev.peak_gb_per_s(), 0) << " GB/s)\n"
    << "//   date     " << r.created_utc << "\n"
    << "//   command  " << r.command_line << "\n"
    << "//   commit   " << r.commit << "\n"
    << "//   samples  " << r.samples << " per point: cold (clean L2 flush), held stream, all candidates of a point\n"
    << "//            interleaved; multi-block over n = " << size_label(r.multi_block_sizes.front()) << ".."
    << size_label(r.multi_block_sizes.back()) << " values, the one-block crossover over "
    << bytes_label(r.single_block_bytes.front()) << ".." << bytes_label(r.single_block_bytes.back()) << "\n";
  if (r.quick) h << "//   NOTE     a --quick smoke run (fewer sizes): not a tuning to commit\n";
  h << "// Score: geometric mean over (workload, n) of median / the best candidate's median there (1 = best "
       "everywhere).\n";
  for (const auto& c : classes) {
    h << "//   " << std::left << std::setw(6) << (std::to_string(c.size_class) + " B") << workload_names(c.workloads)
      << ": ";
    if (!c.chosen) {
      h << "not tuned (" << c.why_not << "): fallback\n";
      continue;
    }
    const std::size_t best = *c.multi_rank.best;
    h << policy_text(*c.chosen) << "\n//         multi-block " << c.multi.candidates[best].label << ": geomean "
      << fixed(c.multi_scores[best].geomean, 3) << ", worst " << fixed(c.multi_scores[best].worst, 3);
    if (c.multi_rank.runner_up) {
      const std::size_t ru = *c.multi_rank.runner_up;
      h << " (runner-up " << c.multi.candidates[ru].label << ": " << fixed(c.multi_scores[ru].geomean, 3) << ")";
    }
    h << "\n//         ";
    if (std::isfinite(c.vs_cub.geomean))
      h << "CUB's median / its median " << fixed(c.vs_cub.geomean, 2) << " (geomean)\n//         ";
    h << "one block of " << c.chosen->single_block_threads << " threads x " << c.chosen->single_block_vectors
      << " loads up to "
      << bytes_label(c.chosen->single_block_max_bytes)
      << (c.one_block->cross.whole_range ? " (nowhere slower: the largest size measured)" : " (the crossover)") << "\n";
    if (c.chosen->pass_blocks_min_bytes != 0)
      h << "//         a block per pass of " << c.chosen->block_threads << " threads x " << c.chosen->pass_blocks_vectors
        << " loads from " << bytes_label(c.chosen->pass_blocks_min_bytes)
        << " (not swept: kept from the table this run replaced; scripts/harness/pass_blocks.cu)\n";
    if (c.chosen->direct_fold_blocks_per_sm != 0)
      h << "//         the direct fold's grid capped at " << c.chosen->direct_fold_blocks_per_sm
        << " blocks per SM (not swept: kept from the table this run replaced; results/NVIDIA_H200-lib/grid-waves.txt)\n";
    if (c.chosen->in_order_pass_blocks_min_bytes != c.chosen->pass_blocks_min_bytes)
      h << "//         warp tiles' pass blocks from " << bytes_label(c.chosen->in_order_pass_blocks_min_bytes)
        << " (not swept: kept from the table this run replaced; results/NVIDIA_H200-lib/in-order-pass-blocks.txt)\n";
  }
  h << "//   2 B, 32 B: not tuned (" << untuned_classes_note << ")\n"
    << "#pragma once\n\n"
       "#include \"reducelab/tuning/policy.hpp\"\n\n"
       "namespace reducelab::tuning {\n\n"
       "template <std::size_t SizeClass>\n"
       "struct sm90 : fallback<SizeClass> {};\n";
  for (const auto& c : classes) {
    if (!c.chosen) continue;
    h << "\n// " << c.size_class << "-byte values (tuned on " << workload_names(c.workloads) << ")\n"
      << "template <>\n"
      << "struct sm90<" << c.size_class << "> : " << policy_text(*c.chosen) << " {};\n";
  }
  h << "\n}  // namespace reducelab::tuning\n";
  return h.str();
}

// --- Output -------------------------------------------------------------------------------------------------------

std::string summary_table(const std::vector<class_outcome>& classes) {
  std::ostringstream s;
  s << std::left << std::setw(7) << "class" << std::setw(18) << "multi-block" << std::right << std::setw(8) << "geomean"
    << std::setw(7) << "worst"
    << "  " << std::left << std::setw(28) << "runner-up (geomean)" << std::setw(20) << "one block" << std::right
    << std::setw(6) << "x CUB"
    << "  tuned on\n";
  for (const auto& c : classes) {
    s << std::left << std::setw(7) << (std::to_string(c.size_class) + " B");
    if (!c.chosen) {
      s << "not tuned (" << c.why_not << ")  " << workload_names(c.workloads) << "\n";
      continue;
    }
    const std::size_t best = *c.multi_rank.best;
    std::string runner = "-";
    if (c.multi_rank.runner_up)
      runner = c.multi.candidates[*c.multi_rank.runner_up].label + " (" +
               fixed(c.multi_scores[*c.multi_rank.runner_up].geomean, 3) + ")";
    s << std::setw(18) << c.multi.candidates[best].label << std::right << std::setw(8)
      << fixed(c.multi_scores[best].geomean, 3) << std::setw(7) << fixed(c.multi_scores[best].worst, 3) << "  "
      << std::left << std::setw(28) << runner << std::setw(20)
      << (std::to_string(c.chosen->single_block_threads) + "x" + std::to_string(c.chosen->single_block_vectors) +
          " <= " + bytes_label(c.chosen->single_block_max_bytes))
      << std::right << std::setw(6) << (std::isfinite(c.vs_cub.geomean) ? fixed(c.vs_cub.geomean, 2) : "-") << "  "
      << workload_names(c.workloads) << "\n";
  }
  s << "geomean, worst: of median / the best candidate's median at each (workload, n); x CUB: geomean of CUB median / "
       "chosen median (above 1: chosen faster)\n"
    << "2 B, 32 B: not tuned (" << untuned_classes_note << ")\n";
  return s.str();
}

/// Refuse, before measuring anything, an output whose folder does not exist.
void expect_folder_exists(const std::string& path, const std::string& option) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (!folder.empty() && !std::filesystem::is_directory(folder))
    throw usage_error(option + ": the folder '" + folder.string() + "' does not exist");
}

/// Write through a temporary file and a rename, so that a failed write never leaves half a header behind.
void write_file(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream f(temporary);
    f << text;
    if (!f) throw std::runtime_error("could not write " + temporary);
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace

}  // namespace reducelab::tune

namespace reducelab::cli {

int run_tune(const options& o, std::ostream& out, const std::string& command_line) {
  using namespace reducelab::tune;
  if (!o.out_file.empty()) expect_folder_exists(o.out_file, "--out");
  if (!o.header_file.empty()) expect_folder_exists(o.header_file, "--write-header");
  require_gpu("tune");
  const device_info& dev = current_device();
  if (!o.header_file.empty() && dev.compute_major != 9)
    throw usage_error("--write-header writes the table of compute capability 9.x (tuning/sm90.hpp), but this " +
                      dev.name + " is " + std::to_string(dev.compute_major) + "." + std::to_string(dev.compute_minor));

  run_record record;
  record.device = &dev;
  record.command_line = command_line;
  record.commit = provenance::commit_id();
  record.created_utc = provenance::utc_now();
  record.samples = static_cast<int>(o.samples ? o.samples : default_tune_samples);
  record.quick = o.quick;
  record.multi_block_sizes = multi_block_sizes(o.quick);
  record.single_block_bytes = single_block_bytes(o.quick);

  stream_owner stream;
  timing::engine engine(stream.get(), static_cast<std::size_t>(dev.l2_bytes));
  record.flush_bytes = engine.flush_bytes();
  const timing::clock_guard clocks(dev.ordinal);
  timing::measurement_plan plan;  // the engine's defaults: cold, clean flush, held stream
  plan.warmup_runs = tune_policy::warmup_runs;
  plan.rounds = record.samples;
  const sweep_context ctx{engine, stream.get(), plan, o.seed, record.multi_block_sizes, record.single_block_bytes, out};

  out << "reducelab tune on " << dev.name << " (" << dev.sm_count << " SMs, compute capability " << dev.compute_major
      << "." << dev.compute_minor << ", peak " << fixed(dev.peak_gb_per_s(), 0) << " GB/s), commit " << record.commit
      << "\n"
      << "multi-block candidates at n = " << size_label(record.multi_block_sizes.front()) << ".."
      << size_label(record.multi_block_sizes.back()) << " (" << record.multi_block_sizes.size()
      << " sizes), the one-block path at " << bytes_label(record.single_block_bytes.front()) << ".."
      << bytes_label(record.single_block_bytes.back()) << "; " << record.samples
      << " interleaved cold samples per point" << (o.quick ? " (--quick: a smoke run, not a tuning)" : "") << "\n";
  if (!clocks.available()) out << "clock guard: " << clocks.why_unavailable() << "\n";
  out << std::flush;

  const auto started = std::chrono::steady_clock::now();
  std::vector<class_outcome> classes;
  for (const auto make : {make_tuner_1, make_tuner_4, make_tuner_8, make_tuner_16})
    classes.push_back(tune_class(*make(), ctx, clocks, out));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  std::vector<std::string> written;
  if (!o.out_file.empty()) {
    write_file(o.out_file, results_json(record, classes, clocks).dump(1) + "\n");
    written.push_back(o.out_file);
  }
  if (!o.header_file.empty()) {
    write_file(o.header_file, sm90_header(record, classes));
    written.push_back(o.header_file);
  }

  std::size_t failed = 0, untuned = 0;
  for (const auto& c : classes) {
    failed += c.failed_validations;
    untuned += !c.chosen;
  }
  out << "\n" << summary_table(classes);
  if (failed) out << failed << " validations FAILED (those candidates were not timed at those sizes; see above)\n";
  out << "tune: " << classes.size() - untuned << " of " << classes.size() << " size classes tuned in "
      << fixed(seconds, 0) << " s";
  for (const auto& c : classes)
    if (c.chosen) out << "; " << c.size_class << " B " << policy_text(*c.chosen);
  out << (written.empty() ? "; nothing written (no --out, no --write-header)" : "; wrote ");
  for (std::size_t i = 0; i < written.size(); ++i) out << (i ? ", " : "") << written[i];
  out << "\n";
  return failed == 0 && untuned == 0 ? 0 : 1;
}

}  // namespace reducelab::cli
