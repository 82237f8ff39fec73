// The memory reducelab::reduce keeps for its callers, per device:
//   - for the device-result calls, one workspace per stream (stream_workspaces below); a call made while its
//     stream is being captured into a CUDA graph allocates in the graph instead (reduce.cuh);
//   - per host thread, the host-result call's workspace (grown, never shrunk) and a pinned, device-mapped
//     result slot the kernel writes into, with a flag it raises after the result, so the host call is one
//     launch and a wait on that flag;
//   - a free list of pinned result slots with an event each, for reduce_async's handles.
// Nothing here is freed before exit except on growth or eviction: destructors at exit ignore errors (the context may be
// gone by then).
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/detail/device_properties.hpp"
#include "reducelab/detail/dispatch.cuh"

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace reducelab::detail {

/// Zero a new workspace before the first launch that uses it, on that launch's stream (called under the lock that
/// hands the workspace out, so no launch can be enqueued ahead of it). The kernels never need it cleared (the tags
/// of grid/tagged_partials.cuh); defined contents keep memory checkers (initcheck) quiet.
///
/// Why on the launch's stream and not with cudaMemset: cudaMemset goes to the legacy default stream, which a stream
/// created cudaStreamNonBlocking does not wait for, so the clear could land while the kernel ran: after some blocks
/// had published their partials, wiping their tags, and the last block polled for them forever. It landed late when
/// the legacy stream was busy, or when other processes shared the GPU: the hang found at stop 30 (four processes, each
/// reducing on a new stream per call, all hung within their first 8 calls; scripts/harness/concurrent_hang.cu,
/// results/NVIDIA_H100_80GB_HBM3-lib/concurrent-processes-hang.txt). tests/test_gpu_workspace_clear.cu has both.
inline void clear_before_first_launch(void* memory, std::size_t bytes, cudaStream_t stream) {
  CUDA_TRY(cudaMemsetAsync(memory, 0, bytes, stream));
}

/// The device-result call's workspace, one per stream, grown and never shrunk.
///
/// Why not borrow from the pool on every call: cudaMallocFromPoolAsync + cudaFreeAsync put work of their own on
/// the stream, and on the H100 that added 1.3-1.7 µs to every reduction of 2^14..2^22 values (5.8 µs became 7.5
/// µs at 2^14; scratch measurement at 1faf2f7, see the closing note of the entry-point issue). A workspace that
/// stays with its stream is safe without any of that: two launches on one stream never overlap. Streams are told
/// apart by cudaStreamGetId, which is unique for the life of the process (a destroyed stream's handle may come
/// back for a new stream; its id does not) and distinct for each thread's per-thread default stream.
/// Memory: one workspace per stream that ever reduced (a few hundred KiB for the scalar reduction and the one-array
/// segmented path; reduce_by_key's look-back slots grow with n, about 1.3 MB at 2^26 int32 keys); beyond max_streams
/// the least recently used one is freed, with cudaFree, which waits for the device to finish the work that may use it
/// (an eviction costs one device-wide wait; a program cycling through more than max_streams streams pays it).
class stream_workspaces {
 public:
  static constexpr std::size_t max_streams = 64;

  static stream_workspaces& of(int device) {
    static std::array<stream_workspaces, max_devices> all;
    return all[device];
  }

  /// At least `need` bytes that only launches on `stream` use.
  void* reserve(cudaStream_t stream, std::size_t need) {
    unsigned long long id = 0;
    CUDA_TRY(cudaStreamGetId(stream, &id));
    const std::lock_guard<std::mutex> lock(mutex_);
    ++clock_;
    entry* e = nullptr;
    for (auto& x : entries_)
      if (x.stream_id == id) e = &x;
    if (e == nullptr) {
      if (entries_.size() == max_streams) {
        auto oldest = entries_.begin();
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
          if (it->last_use < oldest->last_use) oldest = it;
        CUDA_TRY(cudaFree(oldest->memory));
        entries_.erase(oldest);
      }
      entries_.push_back({id, nullptr, 0, 0});
      e = &entries_.back();
    }
    e->last_use = clock_;
    if (need > e->bytes) {
      // The old buffer is retired, not freed: another host thread may hold it for a launch on this stream that
      // it has not enqueued yet. Growth is rare: most needs depend on the value size and the device only, and one
      // that grows with n (reduce_by_key's) at least doubles the buffer, so a caller stepping n up retires a few.
      const std::size_t bytes = need > 2 * e->bytes ? need : 2 * e->bytes;
      if (e->memory != nullptr) retired_.push_back(e->memory);
      e->memory = nullptr;
      e->bytes = 0;
      CUDA_TRY(cudaMalloc(&e->memory, bytes));
      clear_before_first_launch(e->memory, bytes, stream);
      e->bytes = bytes;
    }
    return e->memory;
  }

  ~stream_workspaces() {  // at exit: errors ignored (the context may be gone)
    for (auto& x : entries_) cudaFree(x.memory);
    for (void* p : retired_) cudaFree(p);
  }

 private:
  struct entry {
    unsigned long long stream_id;
    void* memory;
    std::size_t bytes;
    unsigned long long last_use;
  };
  std::mutex mutex_;
  std::vector<entry> entries_;
  std::vector<void*> retired_;
  unsigned long long clock_ = 0;
};

/// Pinned host memory the device writes into directly (mapped; the same address on both sides under UVA): the
/// result at the start, and a flag of its own cache line that the kernel raises once the result is written.
struct pinned_slot {
  void* host = nullptr;
  std::size_t bytes = 0;        // room for the result
  unsigned* flag = nullptr;     // the kernel stores its launch's sequence number here after the result
  unsigned seq = 0;             // the last sequence number handed out
  cudaEvent_t done = nullptr;   // recorded after the kernel that writes the slot (async handles only)

  void reserve(std::size_t need) {
    if (need <= bytes) return;
    if (host != nullptr) CUDA_TRY(cudaFreeHost(host));
    host = nullptr;
    flag = nullptr;
    const std::size_t size = need < 192 ? 192 : (need + 63) / 64 * 64;
    CUDA_TRY(cudaHostAlloc(&host, size + 64, cudaHostAllocMapped | cudaHostAllocPortable));
    bytes = size;
    flag = reinterpret_cast<unsigned*>(static_cast<unsigned char*>(host) + size);
    *flag = 0;
    seq = 0;
  }
  /// A new sequence number for the next launch that writes this slot (never 0, what a new slot's flag holds).
  result_signal next_signal() {
    seq = seq + 1 == 0 ? 1 : seq + 1;
    return {flag, seq};
  }
  /// Whether the launch of `s` has written its result (then the value in `host` is final).
  bool landed(const result_signal& s) const {
    const bool raised = *static_cast<const volatile unsigned*>(s.flag) == s.seq;
    std::atomic_thread_fence(std::memory_order_acquire);  // the value is read after the flag
    return raised;
  }
  void release() noexcept {
    if (host != nullptr) cudaFreeHost(host);
    if (done != nullptr) cudaEventDestroy(done);
    host = nullptr;
    flag = nullptr;
    done = nullptr;
    bytes = 0;
  }
};

/// How long a host-result call spins on its slot's flag before it falls back on a synchronization.
///
/// Why spin: the flag is visible 2.0-2.5 µs before cudaStreamSynchronize returns. On the H100, with
/// scripts/harness/host_call_floor.cu at 7c6ce5f (four runs), a one-block reduction of 2^10 ints into mapped memory
/// took 8.9-9.5 µs with the spin and 11.4-11.9 µs with the synchronization (an empty kernel and a synchronization:
/// 9.6-10.1 µs); the library's own call, measured after the change, left its stream busy for 2.0-2.5 µs (medians)
/// after it returned on the flag (scripts/harness/host_call_residual.cu at b97a408),
/// and the host-result call is for small inputs, where 2 µs is a fifth of the call. Why stop: a long reduction
/// gains nothing measurable from it and the spin keeps a host core busy; the synchronization also reports a
/// kernel that failed (its flag never rises) and honours the device's scheduling flags (cudaDeviceScheduleYield,
/// BlockingSync). 200 µs covers 2^26 4-byte values on an H100.
inline constexpr std::chrono::microseconds result_spin_limit{200};

/// Wait until the launch of `s` has written its result into `slot`: spin on the flag for up to
/// result_spin_limit, then call `synchronize` (cudaStreamSynchronize or cudaEventSynchronize of that launch),
/// which throws if the kernel failed.
template <class SynchronizeF>
void wait_for_result(const pinned_slot& slot, const result_signal& s, SynchronizeF&& synchronize) {
  const auto start = std::chrono::steady_clock::now();
  for (unsigned spins = 0;; ++spins) {
    if (slot.landed(s)) return;
    if (spins % 64 == 63 && std::chrono::steady_clock::now() - start > result_spin_limit) break;
  }
  synchronize();
}

/// What the host-result call of one host thread keeps on one device.
struct host_call_cache {
  pinned_slot result;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;

  /// At least `need` bytes for the next launch, which goes on `stream`. A call on another stream may reuse them
  /// without waiting: the host-result call returns only after its kernel has read its last partial.
  void* reserve_workspace(std::size_t need, cudaStream_t stream) {
    if (need > workspace_bytes) {
      if (workspace != nullptr) CUDA_TRY(cudaFree(workspace));
      workspace = nullptr;
      workspace_bytes = 0;
      CUDA_TRY(cudaMalloc(&workspace, need));
      clear_before_first_launch(workspace, need, stream);  // once per growth, not per call
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
