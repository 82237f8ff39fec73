// `reducelab compare`: the main job. For each selected (functor, type, size): one device_vector of random
// data; every backend validated on it against the host reference (failed rows are reported, never timed),
// then timed by the shared engine (comparisons/timing/engine.hpp: launch-free, clean-cold or L2-resident hot,
// interleaved rounds), each ratio against CUB and Thrust given a paired-bootstrap 95 % interval, and each row's
// best custom variant re-measured in a confirmation round paired with CUB. Writes results.json (schema
// "reducelab-compare-1", comparisons/RESULTS_SCHEMA.md), results.csv and the Markdown report with plots.
#include "comparisons/commands_report.hpp"
#include "comparisons/nan_probe.hpp"
#include "comparisons/provenance.hpp"
#include "comparisons/report.hpp"
#include "comparisons/report_goals.hpp"
#include "comparisons/results_view.hpp"
#include "comparisons/timing/clock_guard.hpp"
#include "comparisons/timing/engine.hpp"
#include "comparisons/timing/statistics.hpp"
#include "lab/cli/commands.hpp"
#include "lab/core/device_buffer.hpp"
#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"

#include <cub/version.cuh>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

namespace reducelab::cli {

namespace {

using json = nlohmann::ordered_json;
using report::detail::size_label;

/// The timing policy: where each number comes from.
struct timing_policy {
  static constexpr int warmup_runs = 3;             // module load, Thrust's first allocation, clocks ramping up
  static constexpr int samples = 25;                // per backend and row: a stable median and p10/p90 at every size
  static constexpr double hot_l2_fraction = 0.5;    // hot only where the input fits in half the L2: the rest of L2
                                                    // holds workspaces, and lines map unevenly to its partitions
  static constexpr double confidence = 0.95;
  static constexpr int bootstrap_resamples = 2000;  // the interval's ends move by well under 1 % beyond this
};

// The reference backends' names, as the report reads them (results_view.hpp).
using report::detail::cub_reduce;
using report::detail::cub_scan;
using report::detail::thrust_reduce;
using report::detail::thrust_scan;
using report::detail::thrust_scan_host;
using report::detail::library_reduce;
using report::detail::library_reduce_host;

bool is_one_of(const std::string& x, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (x == n) return true;
  return false;
}

/// The types a functor is swept over when --types is not given: int32, float and double, logical operators
/// over uint8, and each example functor's own type (one pair type: argmax's float_idx32).
bool is_sweep_type(const functor_entry& f, const value_case& c) {
  const std::string t = c.type_name();
  if (f.name == "logical_or" || f.name == "logical_and") return t == "uint8";
  if (f.name == "argmax") return t == "float_idx32";
  if (f.name == "min_max") return t == "float_range";
  if (f.name == "affine_compose") return t == "affine32";
  return t == "int32" || t == "float" || t == "double" || f.cases.size() == 1;
}

/// The full sweep (`--full`): every functor but the logical/bitwise ones that behave like logical_or and
/// bit_xor, and the NaN-aware max/min (the report's NaN section covers those).
bool in_full_sweep(const functor_entry& f) {
  return !is_one_of(f.name, {"logical_and", "bit_and", "bit_or", "amax", "amin", "nanmax", "nanmin"});
}

/// The quick default: int32/float/double plus and maximum, one pair type and the non-commutative example.
bool in_quick_sweep(const functor_entry& f, const value_case& c) {
  if (f.name == "plus" || f.name == "maximum" || f.name == "argmax" || f.name == "affine_compose")
    return is_sweep_type(f, c);
  return false;
}

std::vector<std::size_t> default_sizes(bool full) {
  std::vector<std::size_t> sizes;
  for (int k = 10; k <= 28; k += full ? 2 : 4) sizes.push_back(std::size_t{1} << k);
  if (sizes.back() != std::size_t{1} << 28) sizes.push_back(std::size_t{1} << 28);
  return sizes;
}

std::string duration_label(double seconds) {
  std::ostringstream s;
  const long total = std::lround(seconds);
  if (total >= 60) s << total / 60 << "m" << std::setw(2) << std::setfill('0') << total % 60 << "s";
  else s << total << "s";
  return s.str();
}

struct run_settings {
  int samples = timing_policy::samples;
  timing::flush_kind flush = timing::flush_kind::clean;
  bool hold = true;
  bool confirm = true;
  std::size_t hot_max_bytes = 0;
};

json describe_run(const device_info& dev, const std::string& command_line, const run_settings& rs,
                  std::size_t flush_bytes, const timing::clock_guard& clocks) {
  int driver = 0, runtime = 0;
  CUDA_TRY(cudaDriverGetVersion(&driver));
  CUDA_TRY(cudaRuntimeGetVersion(&runtime));
  json j;
  j["schema"] = "reducelab-compare-1";
  j["created_utc"] = provenance::utc_now();
  j["command_line"] = command_line;
  j["commit"] = provenance::commit_id();
  j["build"] = provenance::build_json();
  j["driver_version"] = driver;
  j["runtime_version"] = runtime;
  j["cccl_version"] = std::to_string(CUB_VERSION / 100000) + "." + std::to_string(CUB_VERSION / 100 % 1000) + "." +
                      std::to_string(CUB_VERSION % 100);
  j["device"] = provenance::device_json(dev, clocks);
  j["timing"] = {{"engine", "ReduceLab timing engine (comparisons/timing): interleaved rounds, shuffled each round"},
                 {"method_version", 2},
                 {"warmup_runs", timing_policy::warmup_runs},
                 {"samples", rs.samples},
                 {"hold", rs.hold},
                 {"stream_ordered_clock", to_string(rs.hold ? timing::clock_method::events_held
                                                             : timing::clock_method::events_idle_stream)},
                 {"synchronous_clock", to_string(timing::clock_method::host_clock)},
                 {"flush", to_string(rs.flush)},
                 {"l2_flush_bytes", flush_bytes},
                 {"hot_max_bytes", rs.hot_max_bytes},
                 {"statistic", "median"},
                 {"spread", "p10/p90"},
                 {"interval", "95 % paired bootstrap of the ratio of medians over the rounds, " +
                                  std::to_string(timing_policy::bootstrap_resamples) + " resamples"},
                 {"confirmation", rs.confirm}};
  j["clock_guard"] = clocks.available() ? json("NVML, read after each group's last sample")
                                        : json("unavailable: " + clocks.why_unavailable());
  j["rows"] = json::array();
  j["confirmations"] = json::array();
  return j;
}

json interval_json(const timing::interval& i) { return json::array({i.lo, i.hi}); }

/// Ratio reference/candidate with its paired interval; null when either side is missing.
void add_ratio(json& row, const char* prefix, const std::vector<double>* reference, const std::vector<double>& mine,
               std::uint64_t seed) {
  if (!reference) {
    row[std::string("speedup_vs_") + prefix] = nullptr;
    return;
  }
  const double ratio = timing::median(*reference) / timing::median(mine);
  const auto ci = timing::ratio_of_medians_interval(*reference, mine, timing_policy::confidence,
                                                    timing_policy::bootstrap_resamples, seed);
  row[std::string("speedup_vs_") + prefix] = ratio;
  row[std::string("speedup_vs_") + prefix + "_ci"] = interval_json(ci);
  row[std::string("verdict_vs_") + prefix] = to_string(timing::classify(ci));
}

/// The table printed at the end: one line per (functor, type, n, mode), the best custom variant against CUB from
/// the confirmation round where there was one, else from the main rounds.
/// The library's rows first: reducelab::reduce against CUB (device result) and its host call against Thrust.
std::string library_table(const json& results) {
  std::ostringstream s;
  s << std::left << std::setw(26) << "functor/type" << std::setw(6) << "n" << std::setw(5) << "mode" << std::right
    << std::setw(10) << "lib us" << std::setw(10) << "CUB us" << std::setw(22) << "x CUB [95% CI]" << std::setw(6) << ""
    << std::setw(8) << "% peak" << std::setw(10) << "host us" << std::setw(11) << "Thrust us" << std::setw(22)
    << "x Thrust [95% CI]" << "\n";
  auto ratio = [](const json& r, const char* key) -> std::string {
    const std::string ci = std::string(key) + "_ci";
    if (!r.contains(key) || !r[key].is_number() || !r.contains(ci) || !r[ci].is_array()) return "-";
    std::ostringstream t;
    t << std::fixed << std::setprecision(2) << r[key].get<double>() << " [" << r[ci][0].get<double>() << ", "
      << r[ci][1].get<double>() << "]";
    return t.str();
  };
  auto median_of = [&](const json& like, const std::string& variant) -> const json* {
    for (const auto& r : results["rows"])
      if (r["timed"].get<bool>() && r["variant"] == variant && r["functor"] == like["functor"] &&
          r["type"] == like["type"] && r["n"] == like["n"] && r["mode"] == like["mode"])
        return &r;
    return nullptr;
  };
  bool any = false;
  s << std::fixed;
  for (const auto& r : results["rows"]) {
    if (!r["timed"].get<bool>() || r["variant"] != library_reduce) continue;
    any = true;
    const json* cub = median_of(r, cub_reduce);
    if (!cub) cub = median_of(r, cub_scan);
    const json* host = median_of(r, library_reduce_host);
    const json* thrust = median_of(r, thrust_reduce);
    if (!thrust) thrust = median_of(r, thrust_scan_host);
    if (!thrust) thrust = median_of(r, thrust_scan);
    s << std::left << std::setw(26) << (r["functor"].get<std::string>() + "/" + r["type"].get<std::string>())
      << std::setw(6) << size_label(r["n"].get<std::size_t>()) << std::setw(5) << r["mode"].get<std::string>()
      << std::right << std::setprecision(2) << std::setw(10) << r["median_us"].get<double>() << std::setw(10)
      << (cub ? (*cub)["median_us"].get<double>() : NAN) << std::setw(22) << ratio(r, "speedup_vs_cub") << std::setw(6)
      << (r.contains("verdict_vs_cub") && r["verdict_vs_cub"].is_string() ? r["verdict_vs_cub"].get<std::string>() : "")
      << std::setprecision(1)
      << std::setw(8) << r["pct_of_peak"].get<double>() << std::setprecision(2) << std::setw(10)
      << (host ? (*host)["median_us"].get<double>() : NAN) << std::setw(11)
      << (thrust ? (*thrust)["median_us"].get<double>() : NAN) << std::setw(22)
      << (host ? ratio(*host, "speedup_vs_thrust") : std::string("-")) << "\n";
  }
  return any ? s.str() : std::string();
}

std::string summary_table(const json& results) {
  struct group {
    std::string what, mode;
    std::size_t n = 0;
    const json* best = nullptr;
    const json* cub = nullptr;
    const json* thrust = nullptr;
    const json* cpu = nullptr;
    const json* confirmation = nullptr;
  };
  std::vector<group> groups;
  auto find = [&](const json& r) -> group& {
    const std::string what = r["functor"].get<std::string>() + "/" + r["type"].get<std::string>();
    const std::size_t n = r["n"].get<std::size_t>();
    const std::string mode = r["mode"].get<std::string>();
    for (auto& g : groups)
      if (g.what == what && g.n == n && g.mode == mode) return g;
    groups.push_back({what, mode, n});
    return groups.back();
  };
  for (const auto& r : results["rows"]) {
    if (!r["timed"].get<bool>()) continue;
    group& g = find(r);
    const std::string v = r["variant"].get<std::string>();
    if (r["family"] == "custom" && (!g.best || r["median_us"].get<double>() < (*g.best)["median_us"].get<double>()))
      g.best = &r;
    if (v == cub_reduce || v == cub_scan) g.cub = &r;
    if (v == thrust_reduce || v == thrust_scan) g.thrust = &r;
    if (r["family"] == "cpu") g.cpu = &r;
  }
  for (const auto& c : results["confirmations"]) find(c).confirmation = &c;

  std::ostringstream s;
  s << std::left << std::setw(26) << "functor/type" << std::setw(6) << "n" << std::setw(5) << "mode" << std::setw(25)
    << "best custom" << std::right << std::setw(10) << "us" << std::setw(10) << "CUB us" << std::setw(22)
    << "x CUB [95% CI]" << std::setw(6) << "" << std::setw(10) << "Thrust us" << std::setw(10) << "CPU us" << "\n";
  s << std::fixed;
  auto ratio_text = [](double ratio, const json& ci) {
    std::ostringstream t;
    t << std::fixed << std::setprecision(2) << ratio << " [" << ci[0].get<double>() << ", " << ci[1].get<double>()
      << "]";
    return t.str();
  };
  auto median = [](const json* r) { return r ? (*r)["median_us"].get<double>() : NAN; };
  for (const auto& g : groups) {
    if (!g.best) continue;
    s << std::left << std::setw(26) << g.what << std::setw(6) << size_label(g.n) << std::setw(5) << g.mode;
    std::string name, ratio, verdict;
    double mine = 0, cub = NAN;
    if (g.confirmation) {
      const json& c = *g.confirmation;
      name = c["variant"].get<std::string>() + "*";
      mine = c["custom_median_us"].get<double>();
      cub = c["reference_median_us"].get<double>();
      ratio = ratio_text(c["ratio"].get<double>(), c["ratio_ci"]);
      verdict = c["verdict"].get<std::string>();
    } else {
      name = (*g.best)["variant"].get<std::string>();
      mine = median(g.best);
      cub = median(g.cub);
      if (g.best->contains("speedup_vs_cub_ci")) {
        ratio = ratio_text((*g.best)["speedup_vs_cub"].get<double>(), (*g.best)["speedup_vs_cub_ci"]);
        verdict = (*g.best)["verdict_vs_cub"].get<std::string>();
      }
    }
    s << std::setw(25) << name << std::right << std::setprecision(2) << std::setw(10) << mine << std::setw(10) << cub
      << std::setw(22) << ratio << std::setw(6) << verdict << std::setprecision(1) << std::setw(10) << median(g.thrust)
      << std::setw(10) << median(g.cpu) << "\n";
  }
  return s.str();
}

}  // namespace

int run_compare(const registry& reg, const options& o, std::ostream& out, const std::string& command_line) {
  auto cases = select_cases(reg, o);
  validate_backends(reg, o);
  require_gpu("compare");
  if (o.types.empty()) {
    // Named functors run over their sweep types; with no names, the quick sweep or (--full) the full one.
    cases.erase(std::remove_if(cases.begin(), cases.end(),
                               [&](const selected_case& c) {
                                 if (!o.ops.empty()) return !is_sweep_type(*c.functor, *c.value);
                                 if (o.full) return !in_full_sweep(*c.functor) || !is_sweep_type(*c.functor, *c.value);
                                 return !in_quick_sweep(*c.functor, *c.value);
                               }),
                cases.end());
    if (cases.empty()) throw usage_error("compare: no (functor, type) pair left; name the types with --types");
  }
  const std::vector<std::size_t> sizes = o.sizes.empty() ? default_sizes(o.full) : o.sizes;
  for (std::size_t n : sizes)
    if (n == 0) throw usage_error("--sizes: compare times non-empty inputs; size 0 is covered by `check`");
  if (o.samples != 0 && o.samples < min_compare_samples)
    throw usage_error("--samples: at least " + std::to_string(min_compare_samples) + " (got " +
                      std::to_string(o.samples) + ")");
  std::vector<timing::cache_state> modes;
  if (o.mode == "cold" || o.mode == "both") modes.push_back(timing::cache_state::cold);
  if (o.mode == "hot" || o.mode == "both") modes.push_back(timing::cache_state::hot);
  const std::string out_dir = o.out_dir.empty() ? "results/latest" : o.out_dir;
  std::filesystem::create_directories(out_dir);

  const device_info& dev = current_device();
  run_settings rs;
  rs.samples = o.samples ? static_cast<int>(o.samples) : timing_policy::samples;
  rs.flush = timing::parse_flush_kind(o.flush);
  rs.hold = o.hold;
  rs.confirm = o.confirm;
  rs.hot_max_bytes = static_cast<std::size_t>(static_cast<double>(dev.l2_bytes) * timing_policy::hot_l2_fraction);

  stream_owner stream;
  timing::engine engine(stream.get(), static_cast<std::size_t>(dev.l2_bytes));
  const timing::clock_guard clocks(dev.ordinal);
  json results = describe_run(dev, command_line, rs, engine.flush_bytes(), clocks);
  out << "reducelab compare on " << dev.name << " (" << dev.sm_count << " SMs, L2 " << dev.l2_bytes / (1 << 20)
      << " MiB, peak " << std::fixed << std::setprecision(0) << dev.peak_gb_per_s() << " GB/s), commit "
      << results["commit"].get<std::string>() << "\n";
  out << cases.size() << " (functor, type) pairs x " << sizes.size() << " sizes x " << modes.size() << " mode(s), "
      << rs.samples << " interleaved samples, flush " << to_string(rs.flush) << (rs.hold ? "" : ", stream NOT held")
      << "; results to " << out_dir << "\n";
  if (!clocks.available()) out << "clock guard: " << clocks.why_unavailable() << "\n";
  // The before/after table of the method, from this device and this run (about a second), for the report.
  if (o.variants.empty() && rs.hold) results["method_check"] = measure_timing_methods({}, o.seed);
  out << std::flush;

  // Progress: the time left is estimated from the time spent so far per byte of input (plus a fixed cost per
  // group for validation and small launches), since a 2^28 group takes far longer than a 2^10 one.
  constexpr double group_overhead_bytes = 64.0 * 1024 * 1024;
  double total_weight = 0, done_weight = 0;
  for (const auto& c : cases)
    for (std::size_t n : sizes) total_weight += static_cast<double>(n * c.value->value_bytes()) + group_overhead_bytes;
  const auto started = std::chrono::steady_clock::now();

  struct group_clock {
    std::size_t first_row, end_row;
    timing::clock_reading lowest;
  };
  std::vector<group_clock> group_clocks;
  const std::size_t groups = cases.size() * sizes.size();
  std::size_t group = 0, failed_rows = 0;
  for (const auto& c : cases) {
    for (std::size_t n : sizes) {
      ++group;
      const std::string what = c.functor->name + "/" + c.value->type_name() + " n=" + size_label(n);
      out << "[" << group << "/" << groups << "] " << what << ": validating" << std::flush;
      const auto prepared = c.value->prepare_for_timing(n, o.seed + n, o.variants, stream.get());
      std::size_t timed = 0, refused = 0;
      for (const timing::cache_state mode : modes) {
        const std::string mode_name = to_string(mode);
        if (mode == timing::cache_state::hot && prepared->bytes_read > rs.hot_max_bytes) {
          results["hot_not_measured"].push_back({{"functor", c.functor->name},
                                                 {"type", c.value->type_name()},
                                                 {"n", n},
                                                 {"bytes", prepared->bytes_read}});
          out << ", hot skipped (input larger than " << rs.hot_max_bytes / (1 << 20) << " MiB)";
          continue;
        }
        std::vector<timing::timed_work> works;
        std::vector<const timing_target*> measured;
        for (const auto& t : prepared->targets) {
          if (!t.enqueue) continue;
          works.push_back({t.backend.name, t.backend.host_synchronous, t.enqueue});
          measured.push_back(&t);
        }
        timing::measurement_plan plan;
        plan.cache = mode;
        plan.flush = rs.flush;
        plan.hold = rs.hold;
        plan.warmup_runs = timing_policy::warmup_runs;
        plan.rounds = rs.samples;
        plan.seed = o.seed ^ (group * 0x9E3779B97F4A7C15ull) ^ (mode == timing::cache_state::hot ? 1u : 0u);
        const auto samples = engine.measure(works, plan);
        const auto reading = clocks.read();

        std::map<std::string, const std::vector<double>*> samples_of;
        for (std::size_t i = 0; i < measured.size(); ++i) samples_of[measured[i]->backend.name] = &samples[i].us;
        auto reference_samples = [&](const char* reduce_name, const char* scan_name) -> const std::vector<double>* {
          for (const char* name : {reduce_name, scan_name})
            if (const auto it = samples_of.find(name); it != samples_of.end()) return it->second;
          return nullptr;
        };
        const auto* cub = reference_samples(cub_reduce, cub_scan);
        const auto* thrust = reference_samples(thrust_reduce, thrust_scan);
        // Host-clock rows (the host-result call, the CPU) are compared with a host-result Thrust call.
        const auto* thrust_host = reference_samples(thrust_reduce, thrust_scan_host);

        const std::size_t first_row = results["rows"].size();
        const timing_target* best = nullptr;
        double best_median = 0;
        for (const auto& t : prepared->targets) {
          json row = {{"variant", t.backend.name},
                      {"family", to_string(t.backend.family)},
                      {"ladder_step", t.backend.ladder_step},
                      {"functor", c.functor->name},
                      {"type", c.value->type_name()},
                      {"value_bytes", c.value->value_bytes()},
                      {"n", n},
                      {"bytes_read", prepared->bytes_read},
                      {"mode", mode_name}};
          if (t.threads) row["threads"] = t.threads;
          if (t.backend.has_policy) {
            row["policy"] = {{"table", t.backend.policy_table}};
            row["policy"].update(provenance::policy_json(t.backend.policy));
          }
          row["validation"] = {{"status", to_string(t.validation.status)},
                               {"bounded", t.validation.result.bounded},
                               {"error", t.validation.result.error},
                               {"bound", t.validation.result.bound},
                               {"bound_note", t.validation.result.note},
                               {"message", t.validation.message}};
          row["timed"] = false;
          const auto m = std::find(measured.begin(), measured.end(), &t);
          if (t.validation.status == check_status::refused) {
            ++refused;
          } else if (t.validation.status != check_status::pass || m == measured.end()) {
            ++failed_rows;
          } else {
            const auto& s = samples[static_cast<std::size_t>(m - measured.begin())];
            const auto sum = timing::summarize(s.us);
            row["timed"] = true;
            row["clock"] = to_string(s.clock);
            row["samples"] = sum.count;
            row["discarded_samples"] = s.discarded;
            row["median_us"] = sum.median;
            row["p10_us"] = sum.p10;
            row["p90_us"] = sum.p90;
            row["min_us"] = sum.min;
            row["mean_us"] = sum.mean;
            row["stddev_us"] = sum.stddev;
            row["samples_us"] = s.us;
            row["gb_per_s"] = static_cast<double>(prepared->bytes_read) / (sum.median * 1e-6) / 1e9;
            row["pct_of_peak"] = row["gb_per_s"].get<double>() / dev.peak_gb_per_s() * 100.0;
            add_ratio(row, "cub", cub, s.us, plan.seed + 1);
            add_ratio(row, "thrust", t.backend.host_synchronous && thrust_host ? thrust_host : thrust, s.us,
                      plan.seed + 2);
            if (t.backend.family == backend_family::custom && (!best || sum.median < best_median)) {
              best = &t;
              best_median = sum.median;
            }
            ++timed;
          }
          results["rows"].push_back(row);
        }
        if (reading) group_clocks.push_back({first_row, results["rows"].size(), *reading});

        // The best of ~20 noisy medians flatters the custom side: measure the winner again, paired with CUB.
        const timing_target* cub_target = nullptr;
        for (const auto* t : measured)
          if (t->backend.name == cub_reduce || t->backend.name == cub_scan) cub_target = t;
        if (rs.confirm && best && cub_target) {
          plan.seed ^= 0xC0FFEEull;
          const auto again = engine.measure({{best->backend.name, best->backend.host_synchronous, best->enqueue},
                                             {cub_target->backend.name, cub_target->backend.host_synchronous,
                                              cub_target->enqueue}},
                                            plan);
          const auto ci = timing::ratio_of_medians_interval(again[1].us, again[0].us, timing_policy::confidence,
                                                            timing_policy::bootstrap_resamples, plan.seed);
          const double custom_median = timing::median(again[0].us), cub_median = timing::median(again[1].us);
          results["confirmations"].push_back({{"functor", c.functor->name},
                                              {"type", c.value->type_name()},
                                              {"n", n},
                                              {"mode", mode_name},
                                              {"variant", best->backend.name},
                                              {"reference", cub_target->backend.name},
                                              {"samples", again[0].us.size()},
                                              {"custom_median_us", custom_median},
                                              {"reference_median_us", cub_median},
                                              {"ratio", cub_median / custom_median},
                                              {"ratio_ci", interval_json(ci)},
                                              {"verdict", to_string(timing::classify(ci))},
                                              {"custom_samples_us", again[0].us},
                                              {"reference_samples_us", again[1].us}});
        }
      }
      done_weight += static_cast<double>(n * c.value->value_bytes()) + group_overhead_bytes;
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      out << ", timed " << timed << " rows, " << refused << " refused; " << duration_label(elapsed) << " elapsed, ~"
          << duration_label(elapsed * (total_weight - done_weight) / done_weight) << " left\n"
          << std::flush;
    }
  }

  // Clock guard: flag every row of a group whose clocks were below the run's norm.
  std::vector<timing::clock_reading> lowest;
  for (const auto& g : group_clocks) lowest.push_back(g.lowest);
  const auto low = timing::flag_low_clocks(lowest);
  std::size_t flagged_groups = 0;
  for (std::size_t i = 0; i < group_clocks.size(); ++i) {
    flagged_groups += low[i];
    for (std::size_t r = group_clocks[i].first_row; r < group_clocks[i].end_row; ++r) {
      json& row = results["rows"][r];
      row["clocks_mhz"] = {{"sm", group_clocks[i].lowest.sm_mhz}, {"memory", group_clocks[i].lowest.memory_mhz}};
      row["clock_low"] = static_cast<bool>(low[i]);
    }
  }

  // NaN semantics: what each backend returns for max/min over inputs with NaNs (not for a --variants subset,
  // which would leave the table partial, nor under a profiler).
  if (o.variants.empty() && o.hold) results["nan_semantics"] = probe_nan_semantics(reg, o.seed);

  const std::string json_path = out_dir + "/results.json";
  std::ofstream(json_path) << results.dump(1) << "\n";
  report::write_csv(results, out_dir + "/results.csv");
  report::write_report(results, out_dir);
  const std::string library = library_table(results);
  if (!library.empty()) out << "\nreducelab::reduce\n" << library;
  out << "\n" << summary_table(results);
  out << "x CUB = CUB median / custom median (above 1: custom faster), * = from the confirmation round; win/loss "
         "only when the 95 % interval excludes 1, else tie\n";
  if (!group_clocks.empty())
    out << "clock guard: " << flagged_groups << " of " << group_clocks.size() << " groups ran below the run's norm\n";
  out << "wrote " << json_path << ", " << out_dir << "/results.csv, " << out_dir << "/report.md and " << out_dir
      << "/plots/\n";
  if (!library.empty()) out << "\n" << report::goals_text(results);
  if (failed_rows) out << failed_rows << " rows FAILED validation or timing (listed in the report)\n";
  return failed_rows == 0 ? 0 : 1;
}

}  // namespace reducelab::cli
