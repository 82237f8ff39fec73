#include "comparisons/timing/clock_guard.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>

namespace reducelab::timing {

namespace {

// The NVML ABI used here (stable since NVML 2.x): return codes are ints with 0 for success, devices are opaque
// handles, and clock types are NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2.
using nvml_return = int;
using nvml_device = void*;
constexpr int nvml_clock_sm = 1;
constexpr int nvml_clock_mem = 2;
using init_fn = nvml_return (*)();
using shutdown_fn = nvml_return (*)();
using by_bus_id_fn = nvml_return (*)(const char*, nvml_device*);
using clock_fn = nvml_return (*)(nvml_device, int, unsigned*);

template <class F>
F symbol(void* library, const char* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}

std::optional<clock_reading> query(void* library, void* device, const char* function) {
  if (!device) return std::nullopt;
  const auto get = symbol<clock_fn>(library, function);
  clock_reading r;
  if (!get || get(device, nvml_clock_sm, &r.sm_mhz) != 0 || get(device, nvml_clock_mem, &r.memory_mhz) != 0)
    return std::nullopt;
  return r;
}

double median_of(std::vector<unsigned> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (static_cast<double>(v[m - 1]) + v[m]);
}

}  // namespace

clock_guard::clock_guard(int cuda_ordinal) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    why_ = "libnvidia-ml.so.1 not found (clocks not recorded)";
    return;
  }
  const auto init = symbol<init_fn>(library_, "nvmlInit_v2");
  const auto by_bus_id = symbol<by_bus_id_fn>(library_, "nvmlDeviceGetHandleByPciBusId_v2");
  char bus_id[32] = {};
  if (!init || !by_bus_id) {
    why_ = "libnvidia-ml.so.1 lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2";
  } else if (init() != 0) {
    why_ = "nvmlInit_v2 failed";
  } else if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_ordinal) != cudaSuccess) {
    why_ = "cudaDeviceGetPCIBusId failed";
  } else if (by_bus_id(bus_id, &device_) != 0) {
    device_ = nullptr;
    why_ = std::string("NVML has no device at PCI bus id ") + bus_id;
  }
}

clock_guard::~clock_guard() {
  if (!library_) return;
  if (device_)
    if (const auto shutdown = symbol<shutdown_fn>(library_, "nvmlShutdown")) shutdown();
  dlclose(library_);
}

std::optional<clock_reading> clock_guard::read() const { return query(library_, device_, "nvmlDeviceGetClockInfo"); }

std::optional<clock_reading> clock_guard::max_clocks() const {
  return query(library_, device_, "nvmlDeviceGetMaxClockInfo");
}

std::vector<bool> flag_low_clocks(const std::vector<clock_reading>& lowest, double sm_fraction,
                                  double memory_fraction) {
  std::vector<bool> flags(lowest.size(), false);
  if (lowest.empty()) return flags;
  std::vector<unsigned> sm, mem;
  for (const auto& r : lowest) {
    sm.push_back(r.sm_mhz);
    mem.push_back(r.memory_mhz);
  }
  const double sm_norm = median_of(sm), mem_norm = median_of(mem);
  for (std::size_t i = 0; i < lowest.size(); ++i)
    flags[i] = lowest[i].sm_mhz < sm_fraction * sm_norm || lowest[i].memory_mhz < memory_fraction * mem_norm;
  return flags;
}

}  // namespace reducelab::timing
