// The memory reducelab::reduce keeps for its callers, per device:
//   - a stream-ordered pool (cudaMallocFromPoolAsync) for the workspace of the device-result calls; its release
//     threshold is unlimited, so the few kilobytes a launch borrows stay mapped between calls;
//   - per host thread, the host-result call's workspace (grown, never shrunk) and a pinned, device-mapped
//     result slot the kernel writes into, so the host call is one launch and one synchronization;
//   - a free list of pinned result slots with an event each, for reduce_async's handles.
// Nothing here is freed before exit except on growth: destructors at exit ignore errors (the context may be
// gone by then).
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/detail/device_properties.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace reducelab::detail {

/// The stream-ordered pool of `device`, created on first use.
inline cudaMemPool_t workspace_pool(int device) {
  static std::array<cudaMemPool_t, max_devices> pools{};
  static std::array<std::once_flag, max_devices> created;
  std::call_once(created[device], [device] {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    CUDA_TRY(cudaMemPoolCreate(&pools[device], &props));
    std::uint64_t keep = UINT64_MAX;
    CUDA_TRY(cudaMemPoolSetAttribute(pools[device], cudaMemPoolAttrReleaseThreshold, &keep));
  });
  return pools[device];
}

/// Pinned host memory the device writes into directly (mapped; the same address on both sides under UVA).
struct pinned_slot {
  void* host = nullptr;
  std::size_t bytes = 0;
  cudaEvent_t done = nullptr;  // recorded after the kernel that writes the slot (async handles only)

  void reserve(std::size_t need) {
    if (need <= bytes) return;
    if (host != nullptr) CUDA_TRY(cudaFreeHost(host));
    host = nullptr;
    const std::size_t size = need < 256 ? 256 : need;
    CUDA_TRY(cudaHostAlloc(&host, size, cudaHostAllocMapped | cudaHostAllocPortable));
    bytes = size;
  }
  void release() noexcept {
    if (host != nullptr) cudaFreeHost(host);
    if (done != nullptr) cudaEventDestroy(done);
    host = nullptr;
    done = nullptr;
    bytes = 0;
  }
};

/// What the host-result call of one host thread keeps on one device.
struct host_call_cache {
  pinned_slot result;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;

  void* reserve_workspace(std::size_t need) {
    if (need > workspace_bytes) {
      if (workspace != nullptr) CUDA_TRY(cudaFree(workspace));
      workspace = nullptr;
      workspace_bytes = 0;
      CUDA_TRY(cudaMalloc(&workspace, need));
      // Once per growth, not per call: tagged partials that start defined keep memory checkers (initcheck)
      // quiet; the kernel itself never needs them cleared (grid/tagged_partials.cuh).
      CUDA_TRY(cudaMemset(workspace, 0, need));
      workspace_bytes = need;
    }
    return workspace;
  }
  ~host_call_cache() {
    result.release();
    if (workspace != nullptr) cudaFree(workspace);
  }
};

inline host_call_cache& host_cache(int device) {
  thread_local std::array<host_call_cache, max_devices> caches;
  return caches[device];
}

/// Result slots for reduce_async, recycled across handles (allocating pinned memory costs far more than a
/// reduction of a small input).
class slot_pool {
 public:
  static slot_pool& of(int device) {
    static std::array<slot_pool, max_devices> pools;
    return pools[device];
  }
  pinned_slot take(std::size_t bytes) {
    pinned_slot s;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        s = free_.back();
        free_.pop_back();
      }
    }
    s.reserve(bytes);
    if (s.done == nullptr) CUDA_TRY(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
    return s;
  }
  void give_back(pinned_slot s) noexcept {
    const std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(s);
  }
  ~slot_pool() {
    for (pinned_slot& s : free_) s.release();
  }

 private:
  std::mutex mutex_;
  std::vector<pinned_slot> free_;
};

}  // namespace reducelab::detail
