// `reducelab segmented compare`: validate every backend of a case (as check does; a failing one is reported and
// not timed), then time the passing ones interleaved with the shared engine (cold, clean flush, held stream;
// thrust::reduce_by_key synchronizes the host and is timed by the host clock, as the engine does for any
// host-synchronous work). Per (case, backend): median and p10/p90 in µs, GB/s over the bytes that must move
// (bytes_moved.hpp), % of the device's theoretical peak, and the speedup over the case's CUB baseline with its
// 95 % paired bootstrap interval. Each case's rounds also time a plain read of as many bytes (plain_read.hpp),
// which every row of the case records as "plain_read". Writes DIR/segmented.json (with provenance),
// DIR/segmented.csv, and the report made from them (segmented/report.hpp): DIR/segmented.md and DIR/plots/.
#include "comparisons/provenance.hpp"
#include "comparisons/segmented/plain_read.hpp"
#include "comparisons/segmented/report.hpp"
#include "comparisons/segmented/selection.hpp"
#include "comparisons/text_file.hpp"
#include "comparisons/timing/engine.hpp"
#include "comparisons/timing/statistics.hpp"
#include "lab/core/device_buffer.hpp"
#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>
#include <utility>

namespace reducelab::segmented::tool {

namespace {

using json = nlohmann::ordered_json;

struct policy {
  static constexpr int samples = 25;  // as the scalar compare: a stable median and p10/p90
  static constexpr double confidence = 0.95;
  static constexpr int bootstrap_resamples = 2000;
};

std::string fixed(double x, int digits) {
  if (!std::isfinite(x)) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << x;
  return s.str();
}

}  // namespace

int run_compare(const selection& s, const cli::options& o, std::ostream& out, const std::string& command_line) {
  const device_info& dev = current_device();
  const std::string dir = o.out_dir.empty() ? "results/segmented" : o.out_dir;
  timing::clock_guard clocks(dev.ordinal);
  stream_owner stream;
  timing::engine engine(stream.get(), static_cast<std::size_t>(dev.l2_bytes));
  timing::measurement_plan plan;
  plan.cache = timing::cache_state::cold;
  plan.flush = timing::flush_kind::clean;
  plan.hold = true;
  plan.rounds = o.samples ? static_cast<int>(o.samples) : policy::samples;
  plan.seed = s.seed;

  json results;
  results["schema"] = "reducelab-segmented-compare/1";
  results["created_utc"] = provenance::utc_now();
  results["command_line"] = command_line;
  results["commit"] = provenance::commit_id();
  results["build"] = provenance::build_json();
  results["device"] = provenance::device_json(dev, clocks);
  results["timing"] = {{"engine", "ReduceLab timing engine (comparisons/timing): interleaved rounds, shuffled each round"},
                       {"cache", "cold"},
                       {"flush", "clean"},
                       {"held_stream", true},
                       {"samples", plan.rounds},
                       {"confidence", policy::confidence},
                       {"bytes_moved", "values + offsets (segments + 1) * 8 + outputs segments * sizeof(T); by key: "
                                       "keys + values + unique keys + values out + 8"},
                       {"plain_read", std::string(plain_read_name) +
                                          ": 32-bit words, as many bytes as the case moves, timed in the case's "
                                          "rounds; every row of the case records its median and % of peak"}};
  results["rows"] = json::array();
  std::ostringstream csv;
  csv << "functor,type,operation,layout,n,segments,backend,family,status,median_us,p10_us,p90_us,gb_per_s,"
         "pct_of_peak,speedup_vs_cub,speedup_lo,speedup_hi\n";

  out << "reducelab segmented compare on " << dev.name << " (peak " << fixed(dev.peak_gb_per_s(), 0)
      << " GB/s), cold, " << plan.rounds << " interleaved samples\n";
  // A space after the case and before the ratio: a long case label or interval still leaves its neighbour apart.
  out << std::left << std::setw(44) << "case" << ' ' << std::setw(42) << "backend" << std::right << std::setw(10)
      << "median us" << std::setw(18) << "p10-p90 us" << std::setw(9) << "GB/s" << std::setw(8) << "%peak" << ' '
      << std::setw(24) << "vs CUB [95% CI]" << "\n";
  std::size_t failures = 0;
  for (std::size_t n : s.sizes) {
    for (operation op : {operation::segmented_reduce, operation::reduce_by_key}) {
      for (const std::string& spec : s.layouts(op)) {
        const segment_layout layout = checked_layout(spec, n, s.seed);
        for (const case_entry& c : s.cases) {
          const std::string where = case_label(c, op, spec, n);
          const case_session session = c.open(op, layout, s.seed + n);
          std::vector<const backend_run*> timed;
          std::vector<timing::timed_work> works;
          const auto row_of = [&](const backend_run& b, const std::string& status) {
            return json{{"functor", c.functor}, {"type", c.type},     {"operation", to_string(op)},
                        {"layout", spec},       {"n", n},             {"segments", session.segments},
                        {"bytes_moved", session.bytes_moved},         {"backend", b.name},
                        {"family", b.family},   {"status", status}};
          };
          for (const backend_run& b : session.backends) {
            if (!s.wants(b.name)) continue;
            if (!b.refusal.empty()) {
              json row = row_of(b, "skipped");
              row["reason"] = b.refusal;
              results["rows"].push_back(row);
              continue;
            }
            judged j;
            try {
              j = b.validate(stream.get());
            } catch (const std::exception& e) {
              j = {false, std::string("error: ") + e.what()};
            }
            if (!j.ok) {
              ++failures;
              out << "FAIL  " << where << "  " << b.name << ": " << j.message << " (not timed)\n";
              json row = row_of(b, "fail");
              row["message"] = j.message;
              results["rows"].push_back(row);
              csv << c.functor << "," << c.type << "," << to_string(op) << "," << spec << "," << n << ","
                  << session.segments << ",\"" << b.name << "\"," << b.family << ",fail,,,,,,,,\n";
              continue;
            }
            timed.push_back(&b);
            works.push_back({b.name, b.host_synchronous, b.run});
          }
          if (works.empty()) continue;
          std::optional<timing::timed_work> plain_read = plain_read_work(session.bytes_moved);
          if (plain_read) works.push_back(std::move(*plain_read));
          const std::vector<timing::work_samples> samples = engine.measure(works, plan);
          const double plain_us = plain_read ? timing::summarize(samples.back().us).median : NAN;
          const double plain_gbps = static_cast<double>(session.bytes_moved) / (plain_us * 1e3);
          const double plain_pct = plain_gbps / dev.peak_gb_per_s() * 100.0;
          const timing::work_samples* reference = nullptr;
          for (std::size_t i = 0; i < timed.size(); ++i)
            if (timed[i]->reference) reference = &samples[i];
          for (std::size_t i = 0; i < timed.size(); ++i) {
            const backend_run& b = *timed[i];
            const timing::sample_summary sum = timing::summarize(samples[i].us);
            const double gbps = static_cast<double>(session.bytes_moved) / (sum.median * 1e3);
            const double pct = gbps / dev.peak_gb_per_s() * 100.0;
            json row = row_of(b, "pass");
            row["clock"] = timing::to_string(samples[i].clock);
            row["median_us"] = sum.median;
            row["p10_us"] = sum.p10;
            row["p90_us"] = sum.p90;
            row["gb_per_s"] = gbps;
            row["pct_of_peak"] = pct;
            row["samples_us"] = samples[i].us;
            if (plain_read) row["plain_read"] = {{"median_us", plain_us}, {"pct_of_peak", plain_pct}};
            double speedup = NAN;
            timing::interval ci{NAN, NAN};
            if (reference) {
              speedup = timing::median(reference->us) / sum.median;
              ci = timing::ratio_of_medians_interval(reference->us, samples[i].us, policy::confidence,
                                                     policy::bootstrap_resamples, s.seed);
              row["speedup_vs_cub"] = speedup;
              row["speedup_interval"] = {ci.lo, ci.hi};
              row["verdict_vs_cub"] = timing::to_string(timing::classify(ci));
            }
            results["rows"].push_back(row);
            csv << c.functor << "," << c.type << "," << to_string(op) << "," << spec << "," << n << ","
                << session.segments << ",\"" << b.name << "\"," << b.family << ",pass," << sum.median << ","
                << sum.p10 << "," << sum.p90 << "," << gbps << "," << pct << ","
                << (reference ? std::to_string(speedup) + "," + std::to_string(ci.lo) + "," + std::to_string(ci.hi)
                              : std::string(",,"))
                << "\n";
            out << std::left << std::setw(44) << (i == 0 ? where : "") << ' ' << std::setw(42)
                << (b.name + (b.host_synchronous ? " (host clock)" : "")) << std::right << std::setw(10)
                << fixed(sum.median, 2) << std::setw(18) << (fixed(sum.p10, 2) + "-" + fixed(sum.p90, 2))
                << std::setw(9) << fixed(gbps, 0) << std::setw(8) << fixed(pct, 1) << ' ' << std::setw(24)
                << (reference ? fixed(speedup, 2) + "x [" + fixed(ci.lo, 2) + ", " + fixed(ci.hi, 2) + "]"
                              : std::string("n/a (no CUB)"))
                << "\n";
          }
          if (plain_read)
            out << std::left << std::setw(44) << "" << ' ' << std::setw(42) << "(plain read of the same bytes)"
                << std::right << std::setw(10) << fixed(plain_us, 2) << std::setw(18) << "" << std::setw(9)
                << fixed(plain_gbps, 0) << std::setw(8) << fixed(plain_pct, 1) << "\n";
          else
            out << std::left << std::setw(44) << "" << ' ' << "(no plain read: the device cannot hold "
                << session.bytes_moved << " more bytes)\n";
        }
      }
    }
  }
  std::filesystem::create_directories(dir);
  write_text_file(dir + "/segmented.json", results.dump(2) + "\n");
  write_text_file(dir + "/segmented.csv", csv.str());
  // The report reads the file as `reducelab report` would, so the two can never disagree.
  const nlohmann::json written = nlohmann::json::parse(results.dump());
  segmented::report::write_report(written, dir);
  out << "wrote " << dir << "/segmented.json, " << dir << "/segmented.csv, " << dir << "/segmented.md and "
      << segmented::report::plan_plots(written).size() << " plot(s) in " << dir
      << "/plots"
      << (failures ? "; " + std::to_string(failures) + " backend(s) failed validation and were not timed" : "")
      << "\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace reducelab::segmented::tool
