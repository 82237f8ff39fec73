// `reducelab methods`: the same work timed under the old method and the new one, so the README's before/after
// table comes from a device run rather than from memory. The work: an empty kernel (what a launch costs when
// nothing is measured but the GPU's own start-up) and cub::DeviceReduce::Sum over int32 at a few sizes.
//   old hot    CUDA events recorded on an idle stream, data resident (the host's launch latency is inside)
//   old cold   memset flush over 2 x L2, idle stream
//   memset     memset flush, held stream: isolates the dirty-line cost from the launch cost
//   new cold   clean flush (memset + read pass), held stream
//   new hot    held stream, data resident; only where the input fits in L2
// Each regime is one interleaved measurement over all the work items.
#include "comparisons/report_methods.hpp"
#include "comparisons/results_view.hpp"
#include "comparisons/timing/engine.hpp"
#include "comparisons/timing/statistics.hpp"
#include "lab/cli/commands.hpp"
#include "lab/core/device_buffer.hpp"
#include "lab/core/device_info.hpp"
#include "reducelab/core/error.hpp"

#include <cub/device/device_reduce.cuh>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <random>
#include <vector>

namespace reducelab::cli {

namespace {

__global__ void empty_kernel() {}

struct regime {
  const char* name;
  timing::cache_state cache;
  timing::flush_kind flush;
  bool hold;
};

constexpr regime regimes[] = {
    {"old hot (idle stream)", timing::cache_state::hot, timing::flush_kind::memset, false},
    {"new hot (held)", timing::cache_state::hot, timing::flush_kind::memset, true},
    {"old cold (memset, idle stream)", timing::cache_state::cold, timing::flush_kind::memset, false},
    {"memset flush, held", timing::cache_state::cold, timing::flush_kind::memset, true},
    {"new cold (clean flush, held)", timing::cache_state::cold, timing::flush_kind::clean, true},
};

constexpr int method_samples = 50;

}  // namespace

nlohmann::ordered_json measure_timing_methods(const std::vector<std::size_t>& requested_sizes, std::uint64_t seed) {
  const std::vector<std::size_t> sizes =
      requested_sizes.empty()
          ? std::vector<std::size_t>{std::size_t{1} << 16, std::size_t{1} << 20, std::size_t{1} << 24}
          : requested_sizes;
  const device_info& dev = current_device();
  const std::size_t hot_max = static_cast<std::size_t>(dev.l2_bytes) / 2;
  stream_owner stream;
  timing::engine engine(stream.get(), static_cast<std::size_t>(dev.l2_bytes));

  // Inputs: random non-zero int32, one buffer per size, CUB's temporary storage sized once.
  std::vector<device_buffer> inputs, temps;
  device_buffer result(sizeof(int));
  std::mt19937 rng(static_cast<unsigned>(seed));
  for (std::size_t n : sizes) {
    if (n == 0) throw usage_error("--sizes: methods times non-empty inputs");
    std::vector<int> host(n);
    for (auto& x : host) x = static_cast<int>(rng() % 1000) + 1;
    inputs.emplace_back(n * sizeof(int));
    copy_to_device(inputs.back().data(), host.data(), n * sizeof(int));
    std::size_t bytes = 0;
    CUDA_TRY(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const int*>(nullptr), static_cast<int*>(nullptr),
                                    static_cast<long long>(n)));
    temps.emplace_back(bytes);
  }
  std::vector<timing::timed_work> works;
  std::vector<std::size_t> bytes_of;
  works.push_back({"empty kernel", false, [](cudaStream_t s) {
                     empty_kernel<<<1, 1, 0, s>>>();
                     CUDA_TRY_LAUNCH();
                   }});
  bytes_of.push_back(0);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const int* in = static_cast<const int*>(inputs[i].data());
    void* temp = temps[i].data();
    const std::size_t temp_bytes = temps[i].size();
    int* res = static_cast<int*>(result.data());
    const auto n = static_cast<long long>(sizes[i]);
    works.push_back({"cub::DeviceReduce::Sum int32 " + report::detail::size_label(sizes[i]), false, [=](cudaStream_t s) {
                       std::size_t b = temp_bytes;
                       CUDA_TRY(cub::DeviceReduce::Sum(temp, b, in, res, n, s));
                     }});
    bytes_of.push_back(sizes[i] * sizeof(int));
  }

  nlohmann::ordered_json j;
  j["device"] = dev.name;
  j["samples"] = method_samples;
  j["statistic"] = "median";
  j["regimes"] = nlohmann::ordered_json::array();
  for (const auto& r : regimes) {
    timing::measurement_plan plan;
    plan.cache = r.cache;
    plan.flush = r.flush;
    plan.hold = r.hold;
    plan.rounds = method_samples;
    plan.seed = seed;
    const auto samples = engine.measure(works, plan);
    nlohmann::ordered_json jr = {{"regime", r.name}, {"rows", nlohmann::ordered_json::array()}};
    for (std::size_t i = 0; i < works.size(); ++i) {
      const bool too_big = r.cache == timing::cache_state::hot && r.hold && bytes_of[i] > hot_max;
      const auto sum = timing::summarize(samples[i].us);
      jr["rows"].push_back({{"work", works[i].name},
                            {"median_us", too_big ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(sum.median)},
                            {"p10_us", sum.p10},
                            {"p90_us", sum.p90},
                            {"discarded_samples", samples[i].discarded}});
    }
    j["regimes"].push_back(jr);
  }
  return j;
}

int run_methods(const options& o, std::ostream& out) {
  require_gpu("methods");
  const auto j = measure_timing_methods(o.sizes, o.seed);
  out << "reducelab methods on " << j["device"].get<std::string>() << ": median µs [p10, p90] of " << method_samples
      << " interleaved samples per regime\n\n"
      << report::render_methods_table(j);
  if (!o.out_dir.empty()) {
    std::filesystem::create_directories(o.out_dir);
    std::ofstream(o.out_dir + "/methods.json") << j.dump(1) << "\n";
    out << "\nwrote " << o.out_dir << "/methods.json\n";
  }
  return 0;
}

}  // namespace reducelab::cli
