// report.md and its SVG charts from a results file. The report is meant to be read next to the numbers it was
// made from: every figure in it is a row of the JSON (or a ratio of two rows), rows that failed validation are
// listed as failures and never timed, and the historical G80 figures are quoted, not re-measured.
#include "comparisons/report.hpp"

#include "comparisons/commands_report.hpp"
#include "comparisons/report_goals.hpp"
#include "comparisons/report_methods.hpp"
#include "comparisons/report_nan.hpp"
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

namespace reducelab::report {

namespace {

using json = nlohmann::json;
using namespace detail;

// --- What the report looks at ------------------------------------------------------------------------------

// The ladder is shown where Harris measured (2^22 ints) and at the top of the sweep.
constexpr std::uint64_t harris_n = std::uint64_t{1} << 22;
constexpr std::uint64_t ladder_sizes[] = {harris_n, std::uint64_t{1} << 28};
constexpr const char* ladder_functor = "plus";
constexpr const char* ladder_type = "int32";
constexpr const char* report_file_name = "report.md";
constexpr const char* plots_subdir_name = "plots";

constexpr double bytes_per_us_to_gb_per_s = 1e-3;  // bytes / us = 1e6 bytes/s = 1e-3 GB/s
constexpr double percent = 100.0;
constexpr double kib = 1024.0;
constexpr double mib = kib * kib;
constexpr int cuda_version_major_divisor = 1000;  // 13000 -> 13.0
constexpr int cuda_version_minor_divisor = 10;

// Mark Harris, "Optimizing Parallel Reduction in CUDA", NVIDIA, 2007: 2^22 ints on a GeForce 8800 GTX (G80).
// His kernels 1..7 are our ladder steps 2..8; our step 1 (an atomics baseline) has no counterpart.
struct harris_kernel {
  int kernel;
  const char* what;
  double ms;
  double gb_per_s;
  double step_speedup;  // 0: none (the first kernel)
  double cumulative_speedup;
};
constexpr harris_kernel harris_g80[] = {
    {1, "interleaved addressing, divergent branching", 8.054, 2.083, 0.0, 0.0},
    {2, "interleaved addressing, bank conflicts", 3.456, 4.854, 2.33, 2.33},
    {3, "sequential addressing", 1.722, 9.741, 2.01, 4.68},
    {4, "first add during global load", 0.965, 17.377, 1.78, 8.34},
    {5, "unroll last warp", 0.536, 31.289, 1.8, 15.01},
    {6, "completely unrolled", 0.381, 43.996, 1.41, 21.16},
    {7, "multiple elements per thread", 0.268, 62.671, 1.42, 30.04},
};
constexpr int harris_step_offset = 1;  // our step = his kernel + 1
constexpr int harris_first_step = harris_g80[0].kernel + harris_step_offset;
constexpr int harris_last_step = harris_g80[std::size(harris_g80) - 1].kernel + harris_step_offset;

const harris_kernel* harris_for_step(int step) {
  for (const auto& k : harris_g80)
    if (k.kernel + harris_step_offset == step) return &k;
  return nullptr;
}

/// Custom variants in ladder order, then reducelab::reduce (the library itself), then the references and the CPU
/// by name: the order of tables and legends.
int family_rank(const json& row) { return is_custom(row) ? 0 : is_library(row) ? 1 : 2; }
bool backend_order(const json* a, const json* b) {
  if (family_rank(*a) != family_rank(*b)) return family_rank(*a) < family_rank(*b);
  if (ladder_step_of(*a) != ladder_step_of(*b)) return ladder_step_of(*a) < ladder_step_of(*b);
  return variant_of(*a) < variant_of(*b);
}

// --- Markdown helpers ---------------------------------------------------------------------------------------

const std::string dash = "—";

std::string opt(std::optional<double> v, std::string (*fmt)(double)) { return v ? fmt(*v) : dash; }
std::string fmt_speedup(double x) { return format("%.2f×", x); }
std::string fmt_pct(double x) { return format("%.1f %%", x); }
std::string fmt_ms(double x) { return format("%.3f", x); }
std::string fmt_exp(double x) { return format("%.3g", x); }

std::string fmt_bytes(double bytes) {
  return bytes >= mib ? format("%.0f MiB", bytes / mib) : format("%.0f KiB", bytes / kib);
}

std::string fmt_cuda_version(double v) {
  const int i = static_cast<int>(v);
  return format("%d.%d", i / cuda_version_major_divisor, (i % cuda_version_major_divisor) / cuda_version_minor_divisor);
}


// --- Report sections ----------------------------------------------------------------------------------------

std::string render_header(const results_index& idx) {
  const json& r = idx.results();
  const json device = r.value("device", json::object());
  const json timing = r.value("timing", json::object());
  const json build = r.value("build", json::object());
  std::ostringstream s;
  const std::string device_name = string_at(device, "name", "unknown device");
  s << "# ReduceLab comparison on " << device_name << "\n\n";
  if (const std::string note = string_at(r, "note"); !note.empty()) s << "> **Note:** " << note << "\n\n";

  std::string dev = device_name;
  std::vector<std::string> facts;
  if (const auto cc = string_at(device, "compute_capability"); !cc.empty()) facts.push_back("compute capability " + cc);
  if (const auto sms = number_at(device, "sm_count")) facts.push_back(format("%.0f SMs", *sms));
  if (const auto l2 = number_at(device, "l2_bytes")) facts.push_back(fmt_bytes(*l2) + " L2");
  if (const auto peak = number_at(device, "peak_gb_per_s"))
    facts.push_back(format("peak %.1f GB/s", *peak) + " = 2 × memory clock × bus width");
  for (std::size_t i = 0; i < facts.size(); ++i) dev += (i ? ", " : " (") + facts[i] + (i + 1 == facts.size() ? ")" : "");

  std::string build_text = string_at(r, "commit", "unknown");
  if (build.is_object() && !build.empty()) {
    build_text += " (" + string_at(build, "type", "?") + " build, CUDA architectures " +
                  string_at(build, "cuda_architectures", "?") + ", nvcc " + string_at(build, "nvcc", "?");
    if (const auto flags = string_at(build, "cuda_flags"); !flags.empty()) build_text += ", flags `" + flags + "`";
    build_text += ")";
  }

  std::vector<std::string> versions;
  if (const auto cccl = string_at(r, "cccl_version"); !cccl.empty()) versions.push_back("CCCL " + cccl);
  if (const auto d = number_at(r, "driver_version")) versions.push_back("driver (CUDA) " + fmt_cuda_version(*d));
  if (const auto rt = number_at(r, "runtime_version")) versions.push_back("runtime " + fmt_cuda_version(*rt));
  std::string versions_text;
  for (std::size_t i = 0; i < versions.size(); ++i) versions_text += (i ? ", " : "") + versions[i];

  std::string timing_text = string_at(timing, "engine", "unknown timing engine");
  const bool new_method = number_at(timing, "method_version").value_or(1) >= 2;
  if (const auto w = number_at(timing, "warmup_runs")) timing_text += format("; %.0f warm-up runs", *w);
  if (const auto n = number_at(timing, "samples")) timing_text += format(", %.0f samples per row", *n);
  if (new_method) {
    timing_text += ", interleaved: round *i* takes sample *i* of every backend, in a new random order each round";
    timing_text += "; **cold**: L2 flushed before each sample, flush `" + string_at(timing, "flush", "?") + "`";
    if (const auto f = number_at(timing, "l2_flush_bytes")) timing_text += " over " + fmt_bytes(*f);
    timing_text += "; **hot**: one untimed run first, data resident in L2";
    if (const auto h = number_at(timing, "hot_max_bytes")) timing_text += ", measured only up to " + fmt_bytes(*h);
    timing_text += "; stream-ordered backends: " + string_at(timing, "stream_ordered_clock", "?") +
                   "; synchronous ones (`thrust::reduce`, `reducelab::reduce(host)`, `cpu_finish`, the CPU "
                   "baseline): " +
                   string_at(timing, "synchronous_clock", "?");
    timing_text += "; intervals: " + string_at(timing, "interval", "?");
  } else {
    timing_text += "; **cold**: L2 flushed before each sample";
    if (const auto f = number_at(timing, "l2_flush_bytes")) timing_text += " (" + fmt_bytes(*f) + " written)";
    timing_text += "; **hot**: back-to-back with the data resident in L2";
  }
  timing_text += "; statistic: " + string_at(timing, "statistic", "?") + ", spread " + string_at(timing, "spread", "?");
  if (const auto g = r.find("clock_guard"); g != r.end() && g->is_string()) timing_text += "; clock guard: " + g->get<std::string>();

  s << md_table({"", ""}, "ll",
                {{"Device", cell(dev)},
                 {"Commit", cell(build_text)},
                 {"Command", code(string_at(r, "command_line", "?"))},
                 {"Created (UTC)", cell(string_at(r, "created_utc", "?"))},
                 {"Versions", cell(versions_text.empty() ? dash : versions_text)},
                 {"Timing", cell(timing_text)}});
  s << "\nGB/s is bytes read / median time; % of peak is against the device peak above.\n\n";
  if (new_method)
    s << "**Method.** Each stream-ordered sample is bracketed by CUDA events on a stream that a spinning kernel "
         "holds until the events and the reduction are enqueued, so the host's launch latency is not measured; a "
         "sample whose hold timed out is discarded and retaken (`discarded_samples`). A cold sample starts after "
         "a memset over twice the L2 followed by a read pass, so L2 holds no dirty lines the reduction would have "
         "to write back (`--flush memset` keeps NVBench's memset-only convention). Samples are interleaved across "
         "backends, so the rounds pair them; each ratio's 95 % interval is a bootstrap over those pairs, and a "
         "ratio counts as a win or a loss only when its interval excludes 1. The best custom variant of each row "
         "is measured again in a confirmation round paired with CUB, and the summary shows that round.\n\n";
  s << "> **`thrust::reduce` cannot be held**: it allocates temporary storage, synchronizes and copies the result "
       "back to the host inside the call, so its rows are timed with the host clock around the call, and that "
       "time includes the launch and the copy (the Thrust scan workaround, `par_nosync`, is stream-ordered and "
       "timed with events). CUB, the custom variants and `reducelab::reduce` leave the result in device memory, "
       "so at small sizes the Thrust column measures that overhead as much as the reduction; "
       "`reducelab::reduce(host)`, which returns the value to the host as Thrust does, is timed like Thrust and "
       "compared with it. The CPU baseline "
       "(`cpu::parallel_reduce`, OpenMP over all host threads but two, data already in host memory) is timed the "
       "same way; "
       "the GPU's L2 flush does nothing to the CPU's caches.\n\n";
  if (const auto hot = r.find("hot_not_measured"); hot != r.end() && hot->is_array() && !hot->empty())
    s << "Hot mode was not measured for " << hot->size() << " (functor, type, n) group(s) whose input does not fit "
      << "in the L2 limit above: at those sizes every sample is a DRAM read, so a hot figure would be a cold one.\n\n";
  return s.str();
}

/// The confirmation round of (functor, type, n, mode), when the run made one.
const json* confirmation_of(const json& results, const case_id& c, std::uint64_t n, const std::string& mode) {
  const auto it = results.find("confirmations");
  if (it == results.end() || !it->is_array()) return nullptr;
  for (const auto& k : *it)
    if (string_at(k, "functor") == c.first && string_at(k, "type") == c.second && size_of(k) == n &&
        string_at(k, "mode") == mode)
      return &k;
  return nullptr;
}

/// "1.23× [1.20, 1.26] win" from a ratio, its interval and verdict; the ratio alone for older results files.
std::string ratio_with_interval(const json& holder, const char* ratio_key, const char* ci_key, const char* verdict_key) {
  const auto ratio = number_at(holder, ratio_key);
  if (!ratio) return dash;
  std::string text = fmt_speedup(*ratio);
  const auto ci = holder.find(ci_key);
  if (ci != holder.end() && ci->is_array() && ci->size() == 2)
    text += format(" [%.2f, %.2f]", (*ci)[0].get<double>(), (*ci)[1].get<double>());
  if (const auto v = string_at(holder, verdict_key); !v.empty()) text += " " + (v == "tie" ? v : "**" + v + "**");
  return text;
}

/// "`block_threads` 256, `vectors_per_thread` 4, …": the tuning policy a library row reports, its known fields
/// first in the order of tuning/policy.hpp, then any others compare may add.
std::string policy_text(const json& policy) {
  static const char* const known[] = {"table",         "block_threads",        "vectors_per_thread",
                                      "blocks_per_sm", "single_block_threads", "single_block_max_bytes",
                                      "single_block_vectors", "pass_blocks_min_bytes", "pass_blocks_vectors",
                                      "direct_fold_blocks_per_sm", "in_order_pass_blocks_min_bytes"};
  std::string text;
  auto add = [&](const std::string& key, const json& value) {
    const std::string shown = value.is_string() ? value.get<std::string>() : value.dump();
    text += (text.empty() ? "" : ", ") + code(key) + " " + cell(shown);
  };
  for (const char* key : known)
    if (policy.contains(key)) add(key, policy.at(key));
  for (const auto& [key, value] : policy.items())
    if (std::find_if(std::begin(known), std::end(known), [&](const char* k) { return key == k; }) == std::end(known))
      add(key, value);
  return text;
}

/// × CUB or × Thrust of `row` with its interval and verdict as compare wrote them; the plain ratio of medians
/// when the row has none (older files); a dash without a reference.
std::string ratio_cell(const json* row, const json* reference, const std::string& against) {
  if (!row) return dash;
  const std::string key = "speedup_vs_" + against;
  if (number_at(*row, key.c_str()))
    return ratio_with_interval(*row, key.c_str(), (key + "_ci").c_str(), ("verdict_vs_" + against).c_str());
  return opt(ratio(reference, row), fmt_speedup);
}

/// The summary's lead: reducelab::reduce itself, cold, against CUB, and its host-returning call against Thrust.
std::string render_library_summary(const results_index& idx) {
  std::ostringstream s;
  s << "### " << code(library_reduce) << ", cold\n\n";
  if (!idx.has_variant(library_reduce) && !idx.has_variant(library_reduce_host)) {
    s << "This run has no " << code(library_reduce) << " rows (a results file from before the library's entry "
      << "point was measured, or a `--variants` subset without it).\n\n";
    return s.str();
  }
  const auto peak = idx.peak_gb_per_s();
  std::vector<std::vector<std::string>> body;
  std::size_t wins = 0, losses = 0, ties = 0;
  bool any_low_clock = false;
  std::vector<std::pair<std::string, std::vector<std::string>>> policies;  // policy text -> "functor/type"
  for (const auto& c : idx.cases()) {
    std::set<std::uint64_t> sizes;
    for (const json* row : idx.rows_of(c)) {
      const std::string v = variant_of(*row);
      if ((v == library_reduce || v == library_reduce_host) && row->at("mode") == cold_mode) {
        sizes.insert(size_of(*row));
        const auto policy = row->find("policy");
        if (policy == row->end() || !policy->is_object() || policy->empty()) continue;
        const std::string text = policy_text(*policy), what = code(c.first) + "/" + code(c.second);
        auto it = std::find_if(policies.begin(), policies.end(), [&](const auto& p) { return p.first == text; });
        if (it == policies.end()) it = policies.insert(policies.end(), {text, {}});
        if (std::find(it->second.begin(), it->second.end(), what) == it->second.end()) it->second.push_back(what);
      }
    }
    for (const auto n : sizes) {
      const json* lib_row = idx.find(library_reduce, c, n, cold_mode);
      const json* lib = idx.timed(library_reduce, c, n, cold_mode);
      const json* host_row = idx.find(library_reduce_host, c, n, cold_mode);
      const json* host = idx.timed(library_reduce_host, c, n, cold_mode);
      const json* cub = idx.timed(idx.cub_reference(c), c, n, cold_mode);
      const json* thrust = idx.timed(idx.host_thrust_reference(c), c, n, cold_mode);
      // A row that ran and failed shows its status where its time would be: the product must not fail quietly.
      auto us = [](const json* timed_row, const json* any_row) {
        if (timed_row) return format_us(median_of(*timed_row));
        return any_row ? "**" + status_of(*any_row) + "**" : dash;
      };
      std::string lib_us = us(lib, lib_row);
      if (lib && lib->value("clock_low", false)) {
        lib_us += " ⚠";
        any_low_clock = true;
      }
      body.push_back({code(c.first), code(c.second), size_label(n), lib_us,
                      lib ? opt(gb_per_s_of(*lib), format_gbps) : dash,
                      lib ? opt(pct_of_peak_of(*lib, peak), fmt_pct) : dash, us(cub, nullptr),
                      lib ? ratio_cell(lib, cub, "cub") : dash, us(host, host_row), us(thrust, nullptr),
                      host ? ratio_cell(host, thrust, "thrust") : dash});
      if (lib) {
        const std::string v = string_at(*lib, "verdict_vs_cub");
        wins += v == "win";
        losses += v == "loss";
        ties += v == "tie";
      }
    }
  }
  s << code(library_reduce)
    << " is the library's entry point (device result, stream-ordered), timed like the custom variants. × CUB = "
       "CUB median / its median (above 1: the library is faster) against `"
    << cub_reduce << "`, or for non-commutative functors, which CUB's reduce refuses, `" << cub_scan
    << "`; **win** or **loss** only where the 95 % interval excludes 1, else tie. host: `" << library_reduce_host
    << "`, the call that returns the value to the host, timed with the host clock like `" << thrust_reduce
    << "`, to which it is compared (× Thrust = Thrust median / host median; for non-commutative functors `"
    << thrust_scan_host << "`, the scan with the last element copied to the host, also host-clock timed).";
  if (wins + losses + ties > 0)
    s << " Against CUB: " << wins << " win(s), " << losses << " loss(es), " << ties << " tie(s).";
  if (any_low_clock) s << " ⚠ marks a row measured while the GPU's clocks were below the run's norm.";
  s << "\n\n"
    << md_table({"Functor", "Type", "n", "µs", "GB/s", "% peak", "CUB µs", "× CUB [95 % CI]", "host µs",
                 "Thrust µs", "host × Thrust [95 % CI]"},
                "lllrrrrrrrr", body)
    << "\n";
  if (!policies.empty()) {
    s << "Tuning policy of " << code(library_reduce) << " (the rows' `policy`):\n\n";
    for (const auto& [text, cases] : policies) {
      s << "- " << text << ": ";
      for (std::size_t i = 0; i < cases.size(); ++i) s << (i ? ", " : "") << cases[i];
      s << "\n";
    }
    s << "\n";
  }
  return s.str();
}

std::string render_best_custom_summary(const results_index& idx) {
  const auto peak = idx.peak_gb_per_s();
  bool any_bounded = false, any_cpu = false, any_low_clock = false;
  for (const auto& c : idx.cases()) any_bounded = any_bounded || idx.bounded(c);
  for (const auto& row : idx.results().at("rows")) {
    any_cpu = any_cpu || (string_at(row, "family") == family_cpu && is_timed(row));
    any_low_clock = any_low_clock || row.value("clock_low", false);
  }

  std::vector<std::string> head = {"Functor", "Type", "n", "Mode", "Best custom", "µs", "GB/s", "% peak",
                                   "CUB µs", "× CUB [95 % CI]", "Thrust µs", "× Thrust [95 % CI]"};
  std::string align = "llllllrrrrrr";
  if (any_cpu) {
    head.push_back("CPU µs");
    align += "r";
  }
  if (any_bounded) {
    head.push_back("max \\|error\\| / bound");
    align += "r";
  }
  std::vector<std::vector<std::string>> body;
  std::size_t wins = 0, losses = 0, ties = 0;
  for (const auto& c : idx.cases()) {
    for (const auto n : idx.timed_sizes(c)) {
      for (const auto& mode : idx.modes()) {
        const auto rows = idx.timed_rows(c, n, mode);
        if (rows.empty()) continue;
        // A group with no custom variant at all (a --variants run of the libraries) belongs to the table above;
        // one whose variants all failed stays, as "(none timed)".
        const bool any_custom = std::any_of(idx.rows_of(c).begin(), idx.rows_of(c).end(), [&](const json* r) {
          return is_custom(*r) && size_of(*r) == n && r->at("mode") == mode;
        });
        if (!any_custom && !confirmation_of(idx.results(), c, n, mode)) continue;
        const json* best = nullptr;
        for (const json* row : rows)
          if (is_custom(*row) && (!best || median_of(*row) < median_of(*best))) best = row;
        const json* conf = confirmation_of(idx.results(), c, n, mode);
        if (conf) best = idx.timed(string_at(*conf, "variant"), c, n, mode);
        const json* cub = idx.timed(idx.cub_reference(c), c, n, mode);
        const json* thrust = idx.timed(idx.thrust_reference(c), c, n, mode);
        const json* cpu = nullptr;
        for (const json* row : rows)
          if (string_at(*row, "family") == family_cpu) cpu = row;
        auto us = [](const json* row) { return row ? format_us(median_of(*row)) : dash; };
        // With a confirmation round, the custom and CUB figures (and the ratio) are that round's.
        const double best_us = conf ? *number_at(*conf, "custom_median_us") : best ? median_of(*best) : 0.0;
        std::string name = best ? code(variant_of(*best)) : "(none timed)";
        if (best && best->value("clock_low", false)) name += " ⚠ low clocks";
        std::vector<std::string> line = {
            code(c.first), code(c.second), size_label(n), mode, name, best ? format_us(best_us) : dash,
            best ? format_gbps(static_cast<double>(best->value("bytes_read", 0.0)) / best_us * bytes_per_us_to_gb_per_s)
                 : dash,
            best && peak ? fmt_pct(static_cast<double>(best->value("bytes_read", 0.0)) / best_us *
                                   bytes_per_us_to_gb_per_s / *peak * percent)
                         : dash,
            conf ? format_us(*number_at(*conf, "reference_median_us")) : us(cub),
            conf ? ratio_with_interval(*conf, "ratio", "ratio_ci", "verdict")
                 : best ? ratio_with_interval(*best, "speedup_vs_cub", "speedup_vs_cub_ci", "verdict_vs_cub") : dash,
            us(thrust), best ? ratio_with_interval(*best, "speedup_vs_thrust", "speedup_vs_thrust_ci", "verdict_vs_thrust")
                             : dash};
        if (any_cpu) line.push_back(cpu ? us(cpu) + format(" (%d threads)", cpu->value("threads", 0)) : dash);
        if (any_bounded) {
          std::string err = idx.bounded(c) ? dash : "exact";
          if (best && idx.bounded(c)) {
            const json& v = best->at("validation");
            const auto e = number_at(v, "error"), b = number_at(v, "bound");
            if (e && b) err = fmt_exp(*e) + " / " + fmt_exp(*b);
          }
          line.push_back(err);
        }
        if (conf) {
          const std::string v = string_at(*conf, "verdict");
          wins += v == "win";
          losses += v == "loss";
          ties += v == "tie";
        }
        body.push_back(line);
      }
    }
  }
  std::ostringstream s;
  s << "### Best custom variant against CUB and Thrust\n\n"
    << "Best custom: the fastest custom variant that passed validation, re-measured in a confirmation round "
       "paired with CUB (its µs, GB/s, CUB µs and × CUB are that round's). CUB: `"
    << cub_reduce << "`, Thrust: `" << thrust_reduce << "` (for non-commutative functors `" << cub_scan << "` and `"
    << thrust_scan
    << "`, the last element of an inclusive scan). × CUB = CUB time / best-custom time, so above 1 the custom "
       "variant is faster; **win** or **loss** only where the 95 % interval excludes 1, else tie.";
  if (wins + losses + ties > 0)
    s << " Confirmed against CUB: " << wins << " win(s), " << losses << " loss(es), " << ties << " tie(s).";
  if (any_low_clock) s << " ⚠ marks a row measured while the GPU's clocks were below the run's norm.";
  s << "\n\n";
  if (body.empty()) s << "No timed rows.\n\n";
  else s << md_table(head, align, body) << "\n";
  return s.str();
}

/// The library first (it is the product), then the best of the ladder.
std::string render_summary(const results_index& idx) {
  return "## Summary\n\n" + render_library_summary(idx) + render_best_custom_summary(idx);
}

std::string render_ladder_table(const results_index& idx, std::uint64_t n) {
  const case_id c{ladder_functor, ladder_type};
  const auto peak = idx.peak_gb_per_s();
  std::ostringstream s;
  s << "### n = " << size_label(n) << " (" << cold_mode << ")\n\n";
  auto rows = idx.timed_rows(c, n, cold_mode);
  std::vector<const json*> ladder, libraries, own;
  for (const json* row : rows) (is_custom(*row) ? ladder : is_library(*row) ? own : libraries).push_back(row);
  std::sort(ladder.begin(), ladder.end(), backend_order);
  std::sort(libraries.begin(), libraries.end(), backend_order);
  // The table ends with the library itself, its device-result call last: where the ladder led.
  std::sort(own.begin(), own.end(), [](const json* a, const json* b) {
    return (variant_of(*a) == library_reduce) != (variant_of(*b) == library_reduce) ? variant_of(*b) == library_reduce
                                                                                    : variant_of(*a) < variant_of(*b);
  });
  if (ladder.empty()) {
    s << "No timed " << ladder_functor << "/" << ladder_type << " custom variants at n = " << size_label(n)
      << " in " << cold_mode << " mode; the ladder table is omitted.\n\n";
    return s.str();
  }
  const double first = median_of(*ladder.front());
  std::vector<std::vector<std::string>> body;
  std::set<int> harris_shown;
  for (std::size_t i = 0; i < ladder.size(); ++i) {
    const json& row = *ladder[i];
    const double t = median_of(row);
    const int step = ladder_step_of(row);
    std::vector<std::string> line = {std::to_string(step), code(variant_of(row)), format_us(t),
                                     opt(gb_per_s_of(row), format_gbps),
                                     i == 0 ? dash : fmt_speedup(median_of(*ladder[i - 1]) / t),
                                     fmt_speedup(first / t), opt(pct_of_peak_of(row, peak), fmt_pct)};
    const harris_kernel* h = harris_for_step(step);
    if (h && harris_shown.insert(step).second) {
      line.insert(line.end(), {format("%d: %s", h->kernel, h->what), fmt_ms(h->ms), format("%.3f", h->gb_per_s),
                               h->step_speedup > 0 ? format("%.2f×", h->step_speedup) : dash,
                               h->cumulative_speedup > 0 ? format("%.2f×", h->cumulative_speedup) : dash});
    } else {
      line.insert(line.end(), {dash, dash, dash, dash, dash});
    }
    body.push_back(line);
  }
  auto add_other = [&](const json* row, const char* label) {
    const double t = median_of(*row);
    body.push_back({label, code(variant_of(*row)), format_us(t), opt(gb_per_s_of(*row), format_gbps), dash,
                    fmt_speedup(first / t), opt(pct_of_peak_of(*row, peak), fmt_pct), dash, dash, dash, dash, dash});
  };
  for (const json* row : libraries) add_other(row, "ref");
  for (const json* row : own) add_other(row, "lib");
  s << md_table({"Step", "Variant", "µs", "GB/s", "Step speedup", "Cumulative", "% peak", "Harris G80 kernel",
                 "G80 ms", "G80 GB/s", "G80 step", "G80 cumulative"},
                "llrrrrrlrrrr", body);

  // Harris's cumulative column starts at his kernel 1 (our step 2); say what ours is on that footing.
  const json* from = nullptr;
  const json* to = nullptr;
  for (const json* row : ladder) {
    if (!from && ladder_step_of(*row) == harris_first_step) from = row;
    if (!to && ladder_step_of(*row) == harris_last_step) to = row;
  }
  s << "\nStep speedup is against the row above, cumulative against the first row (step "
    << ladder_step_of(*ladder.front()) << "); CUB and Thrust rows (ref) are for comparison; the rows marked lib are "
    << "the library itself, `" << library_reduce << "` last: what the ladder led to"
    << (std::any_of(own.begin(), own.end(), [](const json* r) { return variant_of(*r) == library_reduce_host; })
            ? " (above it, its host-returning call, timed with the host clock like `thrust::reduce`)"
            : "")
    << ".";
  if (from && to)
    s << " From step " << harris_first_step << " to step " << harris_last_step << " (Harris's kernels 1 to "
      << harris_g80[std::size(harris_g80) - 1].kernel << ") this run gains "
      << fmt_speedup(median_of(*from) / median_of(*to)) << "; Harris's G80 gained "
      << format("%.2f×", harris_g80[std::size(harris_g80) - 1].cumulative_speedup) << ".";
  s << "\n\n";
  return s.str();
}

std::string render_ladder(const results_index& idx) {
  std::ostringstream s;
  s << "## Optimization ladder: " << ladder_functor << " / " << ladder_type << "\n\n"
    << "Every custom variant in ladder order. Beside it, Mark Harris's published figures for 2^22 ints on a "
       "GeForce 8800 GTX (G80) from \"Optimizing Parallel Reduction in CUDA\" (NVIDIA, 2007): his kernels 1–7 "
       "are our steps "
    << harris_first_step << "–" << harris_last_step
    << "; our step 1, an atomics baseline, has no counterpart. His figures are quoted, not measured here, and "
       "are for 2^22 elements at both sizes.\n\n";
  for (const auto n : ladder_sizes) s << render_ladder_table(idx, n);
  return s.str();
}

std::string render_failures(const results_index& idx) {
  std::vector<std::vector<std::string>> failed;
  // (functor, type) -> [(reason, variants refused for it)], in first-seen order, so that each reason is printed
  // beside the variants it applies to (one case is often refused by different variants for different reasons).
  using refusal_group = std::pair<std::string, std::vector<std::string>>;
  std::map<case_id, std::vector<refusal_group>> refused;
  std::size_t refused_count = 0;
  for (const auto& c : idx.cases()) {
    for (const json* row : idx.rows_of(c)) {
      const std::string status = status_of(*row);
      if (status == status_pass) continue;
      if (status == status_refused) {
        auto& groups = refused[c];
        const std::string variant = variant_of(*row);
        const bool seen = std::any_of(groups.begin(), groups.end(), [&](const refusal_group& g) {
          return std::find(g.second.begin(), g.second.end(), variant) != g.second.end();
        });
        if (seen) continue;  // the same refusal recorded at another size or mode
        ++refused_count;
        const std::string why = message_of(*row);
        auto group = std::find_if(groups.begin(), groups.end(), [&](const refusal_group& g) { return g.first == why; });
        if (group == groups.end()) group = groups.insert(groups.end(), refusal_group{why, {}});
        group->second.push_back(variant);
        continue;
      }
      failed.push_back({code(variant_of(*row)), code(c.first), code(c.second), size_label(size_of(*row)),
                        row->at("mode").get<std::string>(), "**" + status + "**", cell(message_of(*row))});
    }
  }
  std::ostringstream s;
  s << "## Failed and refused rows\n\n";
  if (failed.empty()) {
    s << "No failures: every row that ran passed validation.\n\n";
  } else {
    s << failed.size() << " row(s) failed validation or errored; they are not timed and appear in no table "
      << "above.\n\n"
      << md_table({"Variant", "Functor", "Type", "n", "Mode", "Status", "Message"}, "lllllll", failed) << "\n";
  }
  s << refused_count << " (variant, functor, type) combination(s) refused as not applicable";
  if (refused.empty()) {
    s << ".\n\n";
    return s.str();
  }
  s << ":\n\n";
  for (const auto& c : idx.cases()) {
    const auto it = refused.find(c);
    if (it == refused.end()) continue;
    s << "- " << code(c.first) << " / " << code(c.second) << ": ";
    for (std::size_t g = 0; g < it->second.size(); ++g) {
      const auto& [why, variants] = it->second[g];
      s << (g ? "; " : "");
      for (std::size_t i = 0; i < variants.size(); ++i) s << (i ? ", " : "") << code(variants[i]);
      if (!why.empty()) s << " (" << why << ")";
    }
    s << "\n";
  }
  s << "\n";
  return s.str();
}

std::string render_plot_links(const results_index& idx, const std::vector<plot_spec>& plots,
                              const std::string& plots_subdir) {
  const std::string prefix = plots_subdir.empty() ? "" : plots_subdir + "/";
  auto find_plot = [&](const std::string& kind, const case_id& c, const std::string& mode) -> const plot_spec* {
    for (const auto& p : plots)
      if (p.kind == kind && p.functor == c.first && p.type == c.second && p.mode == mode) return &p;
    return nullptr;
  };
  std::vector<std::string> head = {"Functor", "Type"};
  for (const auto& m : idx.modes()) head.push_back("GB/s, " + m);
  for (const auto& m : idx.modes()) head.push_back("Speedup vs CUB, " + m);
  std::vector<std::vector<std::string>> body;
  for (const auto& c : idx.cases()) {
    std::vector<std::string> line = {code(c.first), code(c.second)};
    for (const char* kind : {"gbps", "speedup"})
      for (const auto& m : idx.modes()) {
        const plot_spec* p = find_plot(kind, c, m);
        line.push_back(p ? "[" + p->file_name + "](" + prefix + p->file_name + ")" : dash);
      }
    body.push_back(line);
  }
  std::ostringstream s;
  s << "## Plots\n\n";
  if (plots.empty()) {
    s << "No timed rows, so no plots.\n";
    return s.str();
  }
  // The ladder case's cold charts inline, the rest as links: a sweep over every functor makes dozens of charts.
  for (const char* kind : {"gbps", "speedup"})
    if (const plot_spec* p = find_plot(kind, {ladder_functor, ladder_type}, cold_mode))
      s << "![" << p->file_name << "](" << prefix << p->file_name << ")\n\n";
  s << md_table(head, std::string(head.size(), 'l'), body);
  return s.str();
}

std::string sanitize(const std::string& text) {
  std::string s = text;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  return s;
}

/// A custom variant's colour follows its place among all custom variants of the run, so it is the same in
/// every chart; past the palette, colours repeat with a dash-dot pattern.
svg::line_style style_of(const results_index& idx, const json& row) {
  const std::string v = variant_of(row);
  if (is_library(row))  // the product: thick like a library, solid like a variant, in a colour of its own
    return svg::reducelab_style(v == library_reduce ? "" : svg::reducelab_host_dash);
  if (!is_custom(row))
    return svg::baseline_style(v.rfind("thrust", 0) == 0             ? svg::thrust_colour
                               : v == cub_reduce || v == cub_scan ? svg::cub_reference_colour
                                                                  : svg::cub_own_op_colour);
  const auto& order = idx.custom_variants();
  return svg::custom_style(static_cast<std::size_t>(std::find(order.begin(), order.end(), v) - order.begin()));
}

std::string legend_label(const json& row) {
  return is_custom(row) ? std::to_string(ladder_step_of(row)) + " " + variant_of(row) : variant_of(row);
}

/// One series per backend with a timed row in (case, mode), in backend order; y from `value`.
template <class ValueT>
std::vector<svg::series> collect_series(const results_index& idx, const case_id& c, const std::string& mode,
                                        ValueT value) {
  std::vector<const json*> rows;
  for (const json* row : idx.rows_of(c))
    if (is_timed(*row) && row->at("mode") == mode && size_of(*row) > 0) rows.push_back(row);
  std::stable_sort(rows.begin(), rows.end(), [](const json* a, const json* b) {
    if (backend_order(a, b) || backend_order(b, a)) return backend_order(a, b);
    return size_of(*a) < size_of(*b);
  });
  std::vector<svg::series> out;
  for (const json* row : rows) {
    const auto y = value(*row);
    if (!y || *y <= 0.0) continue;
    if (out.empty() || out.back().label != legend_label(*row))
      out.push_back({legend_label(*row), style_of(idx, *row), {}});
    out.back().points.emplace_back(std::log2(static_cast<double>(size_of(*row))), *y);
  }
  return out;
}

std::string mode_note(const json& results, const std::string& mode) {
  const json timing = results.value("timing", json::object());
  std::string s = string_at(timing, "statistic", "median");
  if (const auto n = number_at(timing, "samples")) s += format(" of %.0f samples", *n);
  if (mode == cold_mode) s += "; L2 flushed before each sample";
  else if (mode == hot_mode) s += "; data resident in L2, back-to-back";
  return s;
}

std::string render_plot(const results_index& idx, const plot_spec& p) {
  const case_id c{p.functor, p.type};
  const std::string device = string_at(idx.results().value("device", json::object()), "name", "unknown device");
  svg::chart ch;
  if (p.kind == "gbps") {
    ch.title = p.functor + " / " + p.type + ": GB/s by size, " + p.mode + " (" + device + ")";
    ch.y_label = "GB/s (bytes read / median time)";
    ch.lines = collect_series(idx, c, p.mode, [](const json& row) { return gb_per_s_of(row); });
    if (const auto peak = idx.peak_gb_per_s()) {
      ch.reference_y = *peak;
      ch.reference_label = format("device peak %.0f GB/s", *peak);
    }
  } else {
    const std::string reference = idx.cub_reference(c);
    ch.title = p.functor + " / " + p.type + ": speedup vs CUB, " + p.mode + " (" + device + ")";
    ch.y_label = "speedup vs CUB (CUB time / time, log scale)";
    ch.log2_y = true;
    ch.reference_y = 1.0;
    ch.reference_label = "1× = " + reference;
    ch.lines = collect_series(idx, c, p.mode, [&](const json& row) -> std::optional<double> {
      if (variant_of(row) == reference) return std::nullopt;
      return ratio(idx.timed(reference, c, size_of(row), p.mode), &row);
    });
  }
  ch.subtitle = mode_note(idx.results(), p.mode) + "; libraries drawn thick and dashed";
  if (idx.has_variant(library_reduce) || idx.has_variant(library_reduce_host))
    ch.subtitle += ", " + std::string(library_reduce) + " thick and solid";
  return svg::render(ch);
}

}  // namespace

// --- Public API ---------------------------------------------------------------------------------------------

json load_results(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw usage_error("results file '" + path + "' cannot be opened (missing or unreadable)");
  json results;
  try {
    results = json::parse(f);
  } catch (const json::parse_error& e) {
    throw usage_error("results file '" + path + "' is not valid JSON: " + e.what());
  }
  if (!results.is_object()) throw usage_error("results file '" + path + "' is not a JSON object");
  const auto schema = results.find("schema");
  if (schema == results.end() || !schema->is_string())
    throw usage_error("results file '" + path + "' has no \"schema\" string (expected \"" + schema_name + "\")");
  if (*schema != schema_name)
    throw usage_error("results file '" + path + "' has schema \"" + schema->get<std::string>() + "\", expected \"" +
                      schema_name + "\"");
  const auto rows = results.find("rows");
  if (rows == results.end() || !rows->is_array())
    throw usage_error("results file '" + path + "' has no \"rows\" array");
  for (std::size_t i = 0; i < rows->size(); ++i) {
    const json& row = (*rows)[i];
    const bool ok = row.is_object() && row.contains("variant") && row["variant"].is_string() &&
                    row.contains("functor") && row["functor"].is_string() && row.contains("type") &&
                    row["type"].is_string() && row.contains("mode") && row["mode"].is_string() &&
                    row.contains("n") && row["n"].is_number_unsigned();
    if (!ok)
      throw usage_error("results file '" + path + "': row " + std::to_string(i) +
                        " lacks one of variant, functor, type, mode (strings) or n (a non-negative integer)");
  }
  return results;
}

std::vector<plot_spec> plan_plots(const json& results) {
  const results_index idx(results);
  std::vector<plot_spec> plots;
  for (const auto& c : idx.cases()) {
    for (const auto& mode : idx.modes()) {
      bool any = false, reference = false, other = false;
      for (const json* row : idx.rows_of(c)) {
        if (!is_timed(*row) || row->at("mode") != mode) continue;
        any = true;
        (variant_of(*row) == idx.cub_reference(c) ? reference : other) = true;
      }
      const std::string stem = sanitize(c.first) + "_" + sanitize(c.second) + "_" + sanitize(mode) + ".svg";
      if (any) plots.push_back({"gbps", c.first, c.second, mode, "gbps_" + stem});
      if (reference && other) plots.push_back({"speedup", c.first, c.second, mode, "speedup_" + stem});
    }
  }
  return plots;
}

std::string render_markdown(const json& results, const std::string& plots_subdir) {
  const results_index idx(results);
  return render_header(idx) + render_methods_section(results) + render_summary(idx) +
         render_goals_section(results) + render_ladder(idx) +
         render_failures(idx) + render_nan_section(results) +
         render_plot_links(idx, plan_plots(results), plots_subdir);
}

void write_plots(const json& results, const std::string& dir) {
  const results_index idx(results);
  for (const auto& p : plan_plots(results)) write_text_file(std::filesystem::path(dir) / p.file_name, render_plot(idx, p));
}

void write_report(const json& results, const std::string& out_dir) {
  const std::filesystem::path out(out_dir);
  std::error_code ec;
  std::filesystem::create_directories(out / plots_subdir_name, ec);
  if (ec) throw std::runtime_error("cannot create '" + (out / plots_subdir_name).string() + "': " + ec.message());
  write_text_file(out / report_file_name, render_markdown(results, plots_subdir_name));
  write_plots(results, (out / plots_subdir_name).string());
}

}  // namespace reducelab::report

namespace reducelab::cli {

int run_report(const options& o, std::ostream& out) {
  if (o.positional.empty())
    throw usage_error("report needs a results file: reducelab report RESULTS.json [MORE.json ...] [--out DIR]");
  std::vector<nlohmann::json> parts;
  for (const auto& path : o.positional) parts.push_back(report::load_results(path));
  const bool merging = parts.size() > 1;
  if (merging && o.out_dir.empty())
    throw usage_error("report: merging " + std::to_string(parts.size()) + " results files needs --out DIR");
  const auto results = merging ? report::merge_results(parts, o.positional) : parts.front();
  std::string out_dir = o.out_dir;
  if (out_dir.empty()) {
    out_dir = std::filesystem::path(o.positional.front()).parent_path().string();
    if (out_dir.empty()) out_dir = ".";
  }
  const std::filesystem::path dir(out_dir);
  if (merging) {
    std::filesystem::create_directories(dir);
    std::ofstream((dir / "results.json").string()) << results.dump(1) << "\n";
    report::write_csv(results, (dir / "results.csv").string());
    out << "merged " << parts.size() << " results files (" << results.at("rows").size() << " rows) into "
        << (dir / "results.json").string() << " and results.csv\n";
  }
  report::write_report(results, out_dir);
  const auto plots = report::plan_plots(results);
  out << "wrote " << (dir / report::report_file_name).string() << " and " << plots.size() << " plot(s) in "
      << (dir / report::plots_subdir_name).string() << "\n";
  return 0;
}

}  // namespace reducelab::cli
