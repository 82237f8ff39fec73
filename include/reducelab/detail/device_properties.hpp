// What reducelab::reduce reads off a device, once per device: SM count and compute capability; and the checks
// that a pointer or a stream belongs to the current device (done before anything is launched).
#pragma once

#include "reducelab/core/error.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <string>

namespace reducelab::detail {

inline constexpr int max_devices = 64;

struct device_properties {
  int ordinal = 0;
  int sm_count = 0;
  int major = 0, minor = 0;
};

/// The current device's properties, read with cudaDeviceGetAttribute the first time each device is seen.
inline device_properties current_device_properties() {
  static std::array<std::atomic<int>, max_devices> sm_counts{};  // 0: not read yet
  static std::array<std::atomic<int>, max_devices> capabilities{};
  int device = 0;
  CUDA_TRY(cudaGetDevice(&device));
  REDUCELAB_EXPECTS(device >= 0 && device < max_devices,
                    "reducelab::reduce: device ordinal " + std::to_string(device) + " is beyond the 64 it supports");
  device_properties p;
  p.ordinal = device;
  p.sm_count = sm_counts[device].load(std::memory_order_relaxed);
  int capability = capabilities[device].load(std::memory_order_relaxed);
  if (p.sm_count == 0 || capability == 0) {
    int major = 0, minor = 0;
    CUDA_TRY(cudaDeviceGetAttribute(&p.sm_count, cudaDevAttrMultiProcessorCount, device));
    CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    capability = major * 10 + minor;
    sm_counts[device].store(p.sm_count, std::memory_order_relaxed);
    capabilities[device].store(capability, std::memory_order_relaxed);
  }
  p.major = capability / 10;
  p.minor = capability % 10;
  return p;
}

/// Refuse a pointer the current device cannot read: pageable host memory, or another device's memory.
inline void expect_on_device(const void* p, int device, const char* what) {
  cudaPointerAttributes a{};
  CUDA_TRY(cudaPointerGetAttributes(&a, p));
  const std::string where = std::string("reducelab::reduce: ") + what + " ";
  REDUCELAB_EXPECTS(a.type != cudaMemoryTypeUnregistered,
                    where + "is ordinary host memory, which the GPU cannot read (copy it to the device, or pin it)");
  REDUCELAB_EXPECTS(a.type != cudaMemoryTypeDevice || a.device == device,
                    where + "belongs to device " + std::to_string(a.device) + ", but the current device is " +
                        std::to_string(device) + " (cudaSetDevice to the data's device first)");
}

/// Refuse a stream created on another device (the legacy and per-thread default streams belong to every device).
/// Returns whether the stream is being captured into a graph.
inline bool expect_stream_on_device(cudaStream_t stream, int device) {
  if (stream == nullptr || stream == cudaStreamLegacy) return false;  // the legacy stream cannot be captured
  // A stream being captured into a graph refuses to be asked for its device (cudaStreamGetDevice fails with
  // cudaErrorStreamCaptureUnsupported and invalidates the capture): the check is left to the graph's launch.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CUDA_TRY(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone) return true;
  if (stream == cudaStreamPerThread) return false;
  int stream_device = -1;
  CUDA_TRY(cudaStreamGetDevice(stream, &stream_device));
  REDUCELAB_EXPECTS(stream_device == device, "reducelab::reduce: the stream belongs to device " +
                                                 std::to_string(stream_device) + ", but the current device is " +
                                                 std::to_string(device));
  return false;
}

}  // namespace reducelab::detail
