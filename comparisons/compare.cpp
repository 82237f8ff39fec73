// `reducelab compare`: the main job. For each selected (functor, type, size): one device_vector of random
// data; every backend validated on it against the host reference (failed rows are reported, never timed),
// then timed with Google Benchmark as the loop and statistics engine (manual time from CUDA events around the
// reduction only). Cold samples flush L2 first (a memset over twice the L2 size); hot samples run back to
// back on L2-resident data. Writes results.json (schema "reducelab-compare-1", see README), results.csv and
// the Markdown report with plots.
#include "comparisons/commands_report.hpp"
#include "comparisons/report.hpp"
#include "reducelab/build_info.hpp"
#include "reducelab/cli/commands.hpp"
#include "reducelab/core/device_buffer.hpp"
#include "reducelab/core/device_info.hpp"
#include "reducelab/core/error.hpp"

#include <benchmark/benchmark.h>
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

/// The timing policy: where each number comes from.
struct timing_policy {
  static constexpr int warmup_runs = 3;     // module load, Thrust's first allocation, clocks ramping up
  static constexpr int cold_samples = 25;   // enough for a stable median and p10/p90 at every size seen
  static constexpr int hot_samples = 25;
  static constexpr int l2_flush_factor = 2; // flush with a memset over twice the L2 size
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}
double stat_p10(const std::vector<double>& v) { return percentile(v, 0.10); }
double stat_p90(const std::vector<double>& v) { return percentile(v, 0.90); }
double stat_min(const std::vector<double>& v) { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); }

/// Collects Google Benchmark's aggregates (median, p10, p90, min, mean, stddev) per benchmark name, silently.
class collecting_reporter : public benchmark::BenchmarkReporter {
 public:
  struct stats {
    std::map<std::string, double> us;  // aggregate name -> microseconds
    int samples = 0;
    std::string error;
  };
  std::map<std::string, stats> results;

  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      stats& s = results[r.run_name.function_name];
      if (r.error_occurred) s.error = r.error_message;
      if (r.run_type == Run::RT_Aggregate) {
        s.us[r.aggregate_name] = r.GetAdjustedRealTime();
        s.samples = static_cast<int>(r.repetitions);
      }
    }
  }
};

std::string size_label(std::size_t n) {
  if (n > 0 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((std::size_t{1} << k) < n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

/// The default sweep: plus, maximum, minimum, multiplies, logical_or, bit_xor and the example functors, over
/// int32, float, double (logical_or over uint8) and each example functor's own types (one pair type: argmax's
/// float_idx32).
bool in_default_sweep(const functor_entry& f, const value_case& c) {
  static const std::vector<std::string> builtins = {"plus", "maximum", "minimum", "multiplies", "logical_or", "bit_xor"};
  static const std::vector<std::string> builtin_names = {"plus", "multiplies", "maximum", "minimum", "logical_and",
                                                         "logical_or", "bit_and", "bit_or", "bit_xor"};
  const std::string t = c.type_name();
  const bool is_builtin = std::find(builtin_names.begin(), builtin_names.end(), f.name) != builtin_names.end();
  if (is_builtin) {
    if (std::find(builtins.begin(), builtins.end(), f.name) == builtins.end()) return false;
    if (f.name == "logical_or") return t == "uint8";
    return t == "int32" || t == "float" || t == "double";
  }
  if (f.name == "argmax") return t == "float_idx32";
  if (f.name == "min_max") return t == "float_range";
  if (f.name == "affine_compose") return t == "affine32";
  return t == "int32" || t == "float" || t == "double" || f.cases.size() == 1;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string commit_id() {
  if (const char* env = std::getenv("REDUCELAB_COMMIT"); env && *env) return env;
  return build_info::git_commit;
}

json describe_run(const device_info& dev, const std::string& command_line) {
  int driver = 0, runtime = 0;
  CUDA_TRY(cudaDriverGetVersion(&driver));
  CUDA_TRY(cudaRuntimeGetVersion(&runtime));
  json j;
  j["schema"] = "reducelab-compare-1";
  j["created_utc"] = utc_now();
  j["command_line"] = command_line;
  j["commit"] = commit_id();
  j["build"] = {{"type", build_info::build_type},
                {"cuda_architectures", build_info::cuda_architectures},
                {"cuda_flags", build_info::cuda_flags},
                {"nvcc", build_info::nvcc_version}};
  j["driver_version"] = driver;
  j["runtime_version"] = runtime;
  j["cccl_version"] = std::to_string(CUB_VERSION / 100000) + "." + std::to_string(CUB_VERSION / 100 % 1000) + "." +
                      std::to_string(CUB_VERSION % 100);
  j["device"] = {{"name", dev.name},
                 {"ordinal", dev.ordinal},
                 {"compute_capability", std::to_string(dev.compute_major) + "." + std::to_string(dev.compute_minor)},
                 {"sm_count", dev.sm_count},
                 {"l2_bytes", dev.l2_bytes},
                 {"memory_clock_khz", dev.memory_clock_khz},
                 {"memory_bus_bits", dev.memory_bus_bits},
                 {"peak_gb_per_s", dev.peak_gb_per_s()}};
  j["timing"] = {{"engine", "Google Benchmark " + std::string(build_info::benchmark_version) +
                                ", manual time from CUDA events around the reduction only"},
                 {"warmup_runs", timing_policy::warmup_runs},
                 {"samples", timing_policy::cold_samples},
                 {"l2_flush_bytes", dev.l2_bytes * timing_policy::l2_flush_factor},
                 {"statistic", "median"},
                 {"spread", "p10/p90"}};
  j["rows"] = json::array();
  return j;
}

/// Speedups against the CUB and Thrust rows of the same (functor, type, n, mode): reduce for commutative
/// functors, the inclusive-scan workaround for the others.
void add_speedups(json& rows) {
  std::map<std::string, double> median_of;
  auto key = [](const json& r, const std::string& variant) {
    return variant + "|" + r["functor"].get<std::string>() + "|" + r["type"].get<std::string>() + "|" +
           std::to_string(r["n"].get<std::size_t>()) + "|" + r["mode"].get<std::string>();
  };
  for (const auto& r : rows)
    if (r["timed"].get<bool>()) median_of[key(r, r["variant"])] = r["median_us"].get<double>();
  auto reference = [&](const json& r, const char* reduce_name, const char* scan_name) -> json {
    for (const char* name : {reduce_name, scan_name}) {
      auto it = median_of.find(key(r, name));
      if (it != median_of.end()) return it->second;
    }
    return nullptr;
  };
  for (auto& r : rows) {
    if (!r["timed"].get<bool>()) continue;
    const double mine = r["median_us"].get<double>();
    const json cub = reference(r, "cub::DeviceReduce::Reduce", "cub::DeviceScan::InclusiveScan(last)");
    const json thrust = reference(r, "thrust::reduce", "thrust::inclusive_scan(last)");
    r["speedup_vs_cub"] = cub.is_null() ? json(nullptr) : json(cub.get<double>() / mine);
    r["speedup_vs_thrust"] = thrust.is_null() ? json(nullptr) : json(thrust.get<double>() / mine);
  }
}

void write_csv(const json& results, const std::string& path) {
  std::ofstream f(path);
  if (!f) throw usage_error("cannot write " + path);
  f << "variant,family,ladder_step,functor,type,value_bytes,n,mode,validation,abs_error,error_bound,samples,median_us,"
       "p10_us,p90_us,min_us,mean_us,stddev_us,gb_per_s,pct_of_peak,speedup_vs_cub,speedup_vs_thrust\n";
  auto num = [](const json& v) { return v.is_null() ? std::string() : v.dump(); };
  for (const auto& r : results["rows"]) {
    f << '"' << r["variant"].get<std::string>() << "\"," << r["family"].get<std::string>() << ','
      << r["ladder_step"] << ',' << r["functor"].get<std::string>() << ',' << r["type"].get<std::string>() << ','
      << r["value_bytes"] << ',' << r["n"] << ',' << r["mode"].get<std::string>() << ','
      << r["validation"]["status"].get<std::string>() << ',' << num(r["validation"]["error"]) << ','
      << num(r["validation"]["bound"]);
    for (const char* k : {"samples", "median_us", "p10_us", "p90_us", "min_us", "mean_us", "stddev_us", "gb_per_s",
                          "pct_of_peak", "speedup_vs_cub", "speedup_vs_thrust"})
      f << ',' << (r.contains(k) ? num(r[k]) : std::string());
    f << '\n';
  }
}

/// The concise table printed at the end: per (functor, type) at its largest size, the best custom variant
/// beside CUB and Thrust (cold when measured, else hot).
std::string summary_table(const json& results) {
  struct best {
    const json* custom = nullptr;
    const json* cub = nullptr;
    const json* thrust = nullptr;
    std::size_t n = 0;
    std::string mode;
  };
  std::map<std::string, best> by_case;
  std::vector<std::string> order;
  for (const auto& r : results["rows"]) {
    const std::string k = r["functor"].get<std::string>() + "/" + r["type"].get<std::string>();
    if (!by_case.count(k)) order.push_back(k);
    best& b = by_case[k];
    const std::size_t n = r["n"].get<std::size_t>();
    const std::string mode = r["mode"].get<std::string>();
    if (n > b.n || (n == b.n && mode == "cold" && b.mode != "cold")) b = best{nullptr, nullptr, nullptr, n, mode};
    if (n != b.n || mode != b.mode || !r["timed"].get<bool>()) continue;
    const std::string v = r["variant"].get<std::string>();
    if (r["family"] == "custom") {
      if (!b.custom || r["median_us"].get<double>() < (*b.custom)["median_us"].get<double>()) b.custom = &r;
    } else if (v == "cub::DeviceReduce::Reduce" || v == "cub::DeviceScan::InclusiveScan(last)") {
      b.cub = &r;
    } else if (v == "thrust::reduce" || v == "thrust::inclusive_scan(last)") {
      b.thrust = &r;
    }
  }
  std::ostringstream s;
  s << std::left << std::setw(26) << "functor/type" << std::setw(7) << "n" << std::setw(5) << "mode" << std::setw(26)
    << "best custom variant" << std::right << std::setw(10) << "us" << std::setw(9) << "GB/s" << std::setw(10)
    << "CUB us" << std::setw(10) << "Thrust us" << std::setw(9) << "vs CUB" << "\n";
  s << std::fixed;
  for (const auto& k : order) {
    const best& b = by_case[k];
    s << std::left << std::setw(26) << k << std::setw(7) << size_label(b.n) << std::setw(5) << b.mode;
    if (!b.custom) {
      s << "(no custom variant timed)\n";
      continue;
    }
    const double t = (*b.custom)["median_us"].get<double>();
    s << std::setw(26) << (*b.custom)["variant"].get<std::string>() << std::right << std::setprecision(1)
      << std::setw(10) << t << std::setprecision(0) << std::setw(9) << (*b.custom)["gb_per_s"].get<double>()
      << std::setprecision(1) << std::setw(10) << (b.cub ? (*b.cub)["median_us"].get<double>() : NAN)
      << std::setw(10) << (b.thrust ? (*b.thrust)["median_us"].get<double>() : NAN) << std::setprecision(2)
      << std::setw(8) << (b.cub ? (*b.cub)["median_us"].get<double>() / t : NAN) << "x\n";
  }
  return s.str();
}

}  // namespace

int run_compare(const registry& reg, const options& o, std::ostream& out, const std::string& command_line) {
  auto cases = select_cases(reg, o);
  validate_backends(reg, o);
  require_gpu("compare");
  if (o.ops.empty() && o.types.empty()) {
    cases.erase(std::remove_if(cases.begin(), cases.end(),
                               [](const selected_case& c) { return !in_default_sweep(*c.functor, *c.value); }),
                cases.end());
  }
  std::vector<std::size_t> sizes = o.sizes;
  if (sizes.empty())
    for (int k = 10; k <= 28; k += 2) sizes.push_back(std::size_t{1} << k);
  for (std::size_t n : sizes)
    if (n == 0) throw usage_error("--sizes: compare times non-empty inputs; size 0 is covered by `check`");
  std::vector<std::string> modes;
  if (o.mode == "cold" || o.mode == "both") modes.push_back("cold");
  if (o.mode == "hot" || o.mode == "both") modes.push_back("hot");
  const std::string out_dir = o.out_dir.empty() ? "results/latest" : o.out_dir;
  std::filesystem::create_directories(out_dir);

  const device_info& dev = current_device();
  json results = describe_run(dev, command_line);
  out << "reducelab compare on " << dev.name << " (" << dev.sm_count << " SMs, L2 " << dev.l2_bytes / (1 << 20)
      << " MiB, peak " << std::fixed << std::setprecision(0) << dev.peak_gb_per_s() << " GB/s), commit "
      << results["commit"].get<std::string>() << "\n";
  out << cases.size() << " (functor, type) pairs x " << sizes.size() << " sizes x " << modes.size()
      << " mode(s); results to " << out_dir << "\n" << std::flush;

  stream_owner stream;
  device_buffer flush(static_cast<std::size_t>(dev.l2_bytes) * timing_policy::l2_flush_factor);
  cudaEvent_t start{}, stop{};
  CUDA_TRY(cudaEventCreate(&start));
  CUDA_TRY(cudaEventCreate(&stop));
  int flush_byte = 0;

  const std::size_t groups = cases.size() * sizes.size();
  std::size_t group = 0, failed_rows = 0;
  for (const auto& c : cases) {
    for (std::size_t n : sizes) {
      ++group;
      const std::string what = c.functor->name + "/" + c.value->type_name() + " n=" + size_label(n);
      out << "[" << group << "/" << groups << "] " << what << ": validating" << std::flush;
      const auto prepared = c.value->prepare_for_timing(n, o.seed + n, o.variants, stream.get());
      std::size_t timed = 0, refused = 0;
      for (const std::string& mode : modes) {
        const bool cold = mode == "cold";
        collecting_reporter reporter;
        std::vector<const timing_target*> runnable;
        for (const auto& t : prepared->targets) {
          if (!t.enqueue) continue;
          runnable.push_back(&t);
          for (int w = 0; w < timing_policy::warmup_runs; ++w) t.enqueue(stream.get());
          CUDA_TRY(cudaStreamSynchronize(stream.get()));
          benchmark::RegisterBenchmark(t.backend.name.c_str(),
                                       [&, target = &t](benchmark::State& state) {
                                         for (auto _ : state) {
                                           if (cold) {
                                             CUDA_TRY(cudaMemsetAsync(flush.data(), ++flush_byte & 0xff,
                                                                      flush.size(), stream.get()));
                                           }
                                           CUDA_TRY(cudaEventRecord(start, stream.get()));
                                           target->enqueue(stream.get());
                                           CUDA_TRY(cudaEventRecord(stop, stream.get()));
                                           CUDA_TRY(cudaEventSynchronize(stop));
                                           float ms = 0;
                                           CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
                                           state.SetIterationTime(ms * 1e-3);
                                         }
                                       })
              ->UseManualTime()
              ->Unit(benchmark::kMicrosecond)
              ->Iterations(1)
              ->Repetitions(cold ? timing_policy::cold_samples : timing_policy::hot_samples)
              ->ReportAggregatesOnly(true)
              ->ComputeStatistics("p10", stat_p10)
              ->ComputeStatistics("p90", stat_p90)
              ->ComputeStatistics("min", stat_min);
        }
        benchmark::RunSpecifiedBenchmarks(&reporter);
        benchmark::ClearRegisteredBenchmarks();
        for (const auto& t : prepared->targets) {
          json row = {{"variant", t.backend.name},
                      {"family", to_string(t.backend.family)},
                      {"ladder_step", t.backend.ladder_step},
                      {"functor", c.functor->name},
                      {"type", c.value->type_name()},
                      {"value_bytes", c.value->value_bytes()},
                      {"n", n},
                      {"bytes_read", prepared->bytes_read},
                      {"mode", mode}};
          row["validation"] = {{"status", to_string(t.validation.status)},
                               {"bounded", t.validation.result.bounded},
                               {"error", t.validation.result.error},
                               {"bound", t.validation.result.bound},
                               {"bound_note", t.validation.result.note},
                               {"message", t.validation.message}};
          row["timed"] = false;
          if (t.validation.status == check_status::refused) {
            ++refused;
          } else if (t.validation.status != check_status::pass) {
            ++failed_rows;
          } else {
            const auto& s = reporter.results[t.backend.name];
            if (!s.error.empty() || !s.us.count("median")) {
              row["validation"]["status"] = "ERROR";
              row["validation"]["message"] = "timing failed: " + s.error;
              ++failed_rows;
            } else {
              const double median = s.us.at("median");
              row["timed"] = true;
              row["samples"] = s.samples;
              row["median_us"] = median;
              row["p10_us"] = s.us.at("p10");
              row["p90_us"] = s.us.at("p90");
              row["min_us"] = s.us.at("min");
              row["mean_us"] = s.us.at("mean");
              row["stddev_us"] = s.us.at("stddev");
              row["gb_per_s"] = static_cast<double>(prepared->bytes_read) / (median * 1e-6) / 1e9;
              row["pct_of_peak"] = row["gb_per_s"].get<double>() / dev.peak_gb_per_s() * 100.0;
              ++timed;
            }
          }
          results["rows"].push_back(row);
        }
        (void)runnable;
      }
      out << ", timed " << timed << " rows, " << refused << " refused\n" << std::flush;
    }
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  add_speedups(results["rows"]);

  const std::string json_path = out_dir + "/results.json";
  std::ofstream(json_path) << results.dump(1) << "\n";
  write_csv(results, out_dir + "/results.csv");
  report::write_report(results, out_dir);
  out << "\n" << summary_table(results);
  out << "wrote " << json_path << ", " << out_dir << "/results.csv, " << out_dir << "/report.md and "
      << out_dir << "/plots/\n";
  if (failed_rows) out << failed_rows << " rows FAILED validation or timing (listed in the report)\n";
  return failed_rows == 0 ? 0 : 1;
}

}  // namespace reducelab::cli
