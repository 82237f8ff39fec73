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

nlohmann::ordered_json policy_json(const tuning::policy_values& p) {
  nlohmann::ordered_json j = {{"block_threads", p.block_threads},
                              {"vectors_per_thread", p.vectors_per_thread},
                              {"blocks_per_sm", p.blocks_per_sm},
                              {"single_block_threads", p.single_block_threads},
                              {"single_block_max_bytes", p.single_block_max_bytes},
                              {"single_block_vectors", p.single_block_vectors}};
  if (p.pass_blocks_min_bytes != 0) {
    j["pass_blocks_min_bytes"] = p.pass_blocks_min_bytes;
    j["pass_blocks_vectors"] = p.pass_blocks_vectors;
  }
  if (p.direct_fold_blocks_per_sm != 0) j["direct_fold_blocks_per_sm"] = p.direct_fold_blocks_per_sm;
  // Written only where warp tiles take pass blocks from a size other than the direct fold's.
  if (p.in_order_pass_blocks_min_bytes != p.pass_blocks_min_bytes)
    j["in_order_pass_blocks_min_bytes"] = p.in_order_pass_blocks_min_bytes;
  return j;
}

}  // namespace reducelab::provenance
