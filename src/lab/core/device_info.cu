#include "lab/core/device_info.hpp"

#include <map>
#include <mutex>

namespace reducelab {

int device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls are not confused by it
    return 0;
  }
  return n;
}

std::string why_no_device() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
    cudaGetLastError();
    return std::string("no CUDA device found on this machine (CUDA runtime: ") + cudaGetErrorString(e) + ")";
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")";
  }
  if (n == 0) return "no CUDA device found";
  return "";
}

const device_info& current_device() {
  static std::mutex mutex;
  static std::map<int, device_info> cache;
  int ordinal = 0;
  CUDA_TRY(cudaGetDevice(&ordinal));
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(ordinal);
  if (it != cache.end()) return it->second;
  device_info d;
  d.ordinal = ordinal;
  cudaDeviceProp prop{};
  CUDA_TRY(cudaGetDeviceProperties(&prop, ordinal));
  d.name = prop.name;
  auto attr = [&](cudaDeviceAttr a) {
    int v = 0;
    CUDA_TRY(cudaDeviceGetAttribute(&v, a, ordinal));
    return v;
  };
  d.sm_count = attr(cudaDevAttrMultiProcessorCount);
  d.compute_major = attr(cudaDevAttrComputeCapabilityMajor);
  d.compute_minor = attr(cudaDevAttrComputeCapabilityMinor);
  d.max_threads_per_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor);
  d.l2_bytes = attr(cudaDevAttrL2CacheSize);
  d.memory_clock_khz = attr(cudaDevAttrMemoryClockRate);
  d.memory_bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
  d.cooperative_launch = attr(cudaDevAttrCooperativeLaunch) != 0;
  d.global_memory_bytes = static_cast<long long>(prop.totalGlobalMem);
  return cache.emplace(ordinal, d).first->second;
}

}  // namespace reducelab
