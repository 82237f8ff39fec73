// What the framework reads off the current device once: enough to size grids and to state the memory
// bandwidth a result is compared against.
#pragma once

#include "reducelab/core/error.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace reducelab {

struct device_info {
  int ordinal = 0;
  std::string name;
  int sm_count = 0;
  int compute_major = 0, compute_minor = 0;
  int max_threads_per_sm = 0;
  long long l2_bytes = 0;
  long long memory_clock_khz = 0;
  int memory_bus_bits = 0;
  bool cooperative_launch = false;
  long long global_memory_bytes = 0;
  /// Theoretical DRAM bandwidth: 2 transfers per clock (DDR) * clock * bus width.
  double peak_gb_per_s() const { return 2.0 * memory_clock_khz * 1e3 * (memory_bus_bits / 8.0) / 1e9; }
};

/// Number of CUDA devices; 0 (never an exception) when there is no driver or no GPU.
int device_count() noexcept;

/// A one-line reason when no GPU can be used, empty when one can.
std::string why_no_device();

/// Properties of the current device, read once per device and cached.
const device_info& current_device();

}  // namespace reducelab
