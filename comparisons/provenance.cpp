#include "comparisons/provenance.hpp"

#include "lab/build_info.hpp"

#include <cstdlib>
#include <ctime>

namespace reducelab::provenance {

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

nlohmann::json build_json() {
  return {{"type", build_info::build_type},
          {"cuda_architectures", build_info::cuda_architectures},
          {"cuda_flags", build_info::cuda_flags},
          {"nvcc", build_info::nvcc_version}};
}

nlohmann::json device_json(const device_info& dev, const timing::clock_guard& clocks) {
  nlohmann::json j = {{"name", dev.name},
                      {"ordinal", dev.ordinal},
                      {"compute_capability", std::to_string(dev.compute_major) + "." + std::to_string(dev.compute_minor)},
                      {"sm_count", dev.sm_count},
                      {"l2_bytes", dev.l2_bytes},
                      {"memory_clock_khz", dev.memory_clock_khz},
                      {"memory_bus_bits", dev.memory_bus_bits},
                      {"peak_gb_per_s", dev.peak_gb_per_s()}};
  if (const auto max = clocks.max_clocks()) j["max_clocks_mhz"] = {{"sm", max->sm_mhz}, {"memory", max->memory_mhz}};
  return j;
}

}  // namespace reducelab::provenance
