// What every results file of the tool records about where its numbers came from: when, which commit, which
// build, which device. One definition, used by `compare` and `tune` alike.
#pragma once

#include "comparisons/timing/clock_guard.hpp"
#include "lab/core/device_info.hpp"
#include "reducelab/tuning/policy.hpp"

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

/// A tuning policy's fields in tuning/policy.hpp's order; the optional ones (pass blocks, the direct fold's grid cap,
/// the warp tiles' own pass-block size) only where the policy sets them. A compare row's `policy` and tune's chosen policy alike.
nlohmann::ordered_json policy_json(const tuning::policy_values& p);

}  // namespace reducelab::provenance
