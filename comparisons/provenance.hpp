// What every results file of the tool records about where its numbers came from: when, which commit, which
// build, which device. One definition, used by `compare` and `tune` alike.
#pragma once

#include "comparisons/timing/clock_guard.hpp"
#include "lab/core/device_info.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace reducelab::provenance {

/// Now, as 2026-11-23T09:27:49Z.
std::string utc_now();

/// The commit the binary was built from: REDUCELAB_COMMIT when the device script sets it (the configure-time
/// one can be older than the tree that was built), else the configure-time one.
std::string commit_id();

/// Build type, CUDA architectures, flags and nvcc version.
nlohmann::json build_json();

/// Name, compute capability, SMs, L2, memory clock and bus, peak bandwidth, and the clocks' maxima when NVML
/// reads them.
nlohmann::json device_json(const device_info& dev, const timing::clock_guard& clocks);

}  // namespace reducelab::provenance
